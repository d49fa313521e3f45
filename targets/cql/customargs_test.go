package cql

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// Each marker type gets its wire encoding from the rendered text; text
// that is no value of the type, or out of its range, is an error naming
// the value and the type.
func TestCustomArgEncodings(t *testing.T) {
	ty := func(typ gocql.Type) gocql.TypeInfo { return gocql.NewNativeType(4, typ, "") }
	for _, c := range []struct {
		typ  gocql.Type
		in   string
		want []byte
	}{
		{gocql.TypeText, "héllo", []byte("héllo")},
		{gocql.TypeBlob, "\x00\x01", []byte{0, 1}},
		{gocql.TypeInt, "-2", []byte{0xff, 0xff, 0xff, 0xfe}},
		{gocql.TypeBigInt, "258", []byte{0, 0, 0, 0, 0, 0, 1, 2}},
		{gocql.TypeSmallInt, "513", []byte{2, 1}},
		{gocql.TypeTinyInt, "-1", []byte{0xff}},
		{gocql.TypeCounter, "1", []byte{0, 0, 0, 0, 0, 0, 0, 1}},
		{gocql.TypeTimestamp, "1000", []byte{0, 0, 0, 0, 0, 0, 0x03, 0xe8}},
		{gocql.TypeVarint, "128", []byte{0, 0x80}},
		{gocql.TypeVarint, "-129", []byte{0xff, 0x7f}},
		{gocql.TypeVarint, "-128", []byte{0x80}},
		{gocql.TypeVarint, "0", []byte{0}},
		{gocql.TypeDouble, "1.5", []byte{0x3f, 0xf8, 0, 0, 0, 0, 0, 0}},
		{gocql.TypeFloat, "1.5", []byte{0x3f, 0xc0, 0, 0}},
		{gocql.TypeDecimal, "-1.25", []byte{0, 0, 0, 2, 0x83}},
		{gocql.TypeDecimal, "7", []byte{0, 0, 0, 0, 7}},
		{gocql.TypeBoolean, "true", []byte{1}},
		{gocql.TypeBoolean, "0", []byte{0}},
		{gocql.TypeUUID, "01234567-89ab-4def-8123-456789abcdef", []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0x4d, 0xef, 0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}},
		{gocql.TypeInet, "127.0.0.1", []byte{127, 0, 0, 1}},
	} {
		got, err := customArg(c.in).MarshalCQL(ty(c.typ))
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s %q: %x, %v; want %x", c.typ, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		typ gocql.Type
		in  string
	}{
		{gocql.TypeInt, "n3"}, {gocql.TypeInt, "3000000000"}, {gocql.TypeTinyInt, "300"}, {gocql.TypeBigInt, ""},
		{gocql.TypeDouble, "x"}, {gocql.TypeDecimal, "1.2.3"}, {gocql.TypeDecimal, "1.-2"}, {gocql.TypeBoolean, "yes"},
		{gocql.TypeUUID, "not-a-uuid"}, {gocql.TypeVarint, "1e3"},
	} {
		_, err := customArg(c.in).MarshalCQL(ty(c.typ))
		if err == nil {
			t.Errorf("%s %q: no error", c.typ, c.in)
		} else if !strings.Contains(err.Error(), c.in) && c.in != "" {
			t.Errorf("%s %q: the error does not name the value: %v", c.typ, c.in, err)
		}
	}
}
