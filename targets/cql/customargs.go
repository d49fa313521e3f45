package cql

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/gocql/gocql"
)

// A custom op's args are rendered as text; each is bound as the type of
// its ? marker, which the server reports when it prepares the statement
// (every statement a custom op may run is prepared: SELECT, INSERT,
// UPDATE, DELETE, BEGIN ... APPLY BATCH). The driver hands that type to
// the arg's MarshalCQL, so an int column gets a 4-byte int, a double an
// IEEE double, a uuid its 16 bytes, and text or a blob the bytes as
// they are. Text that is no value of the marker's type is an error of
// the op, never sent as something else.

// customArg is one rendered arg of a custom op.
type customArg []byte

// MarshalCQL encodes a as a value of info's type.
func (a customArg) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	t := info.Type()
	switch t {
	case gocql.TypeVarchar, gocql.TypeText, gocql.TypeAscii, gocql.TypeBlob:
		return a, nil
	case gocql.TypeInt, gocql.TypeBigInt, gocql.TypeSmallInt, gocql.TypeTinyInt, gocql.TypeCounter, gocql.TypeTimestamp:
		n, err := strconv.ParseInt(strings.TrimSpace(string(a)), 10, 64)
		if err != nil {
			return nil, a.notA(t)
		}
		return gocql.Marshal(info, n)
	case gocql.TypeVarint:
		n, ok := new(big.Int).SetString(strings.TrimSpace(string(a)), 10)
		if !ok {
			return nil, a.notA(t)
		}
		return twosComplement(n), nil
	case gocql.TypeFloat, gocql.TypeDouble:
		f, err := strconv.ParseFloat(strings.TrimSpace(string(a)), 64)
		if err != nil {
			return nil, a.notA(t)
		}
		if t == gocql.TypeFloat {
			return gocql.Marshal(info, float32(f))
		}
		return gocql.Marshal(info, f)
	case gocql.TypeDecimal:
		b, ok := decimal(strings.TrimSpace(string(a)))
		if !ok {
			return nil, a.notA(t)
		}
		return b, nil
	case gocql.TypeBoolean:
		v, err := strconv.ParseBool(strings.TrimSpace(string(a)))
		if err != nil {
			return nil, a.notA(t)
		}
		return gocql.Marshal(info, v)
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		u, err := gocql.ParseUUID(strings.TrimSpace(string(a)))
		if err != nil {
			return nil, a.notA(t)
		}
		return u[:], nil
	}
	// inet, date, time, duration, collections...: the driver's own
	// text conversion, where it has one.
	b, err := gocql.Marshal(info, string(a))
	if err != nil {
		return nil, fmt.Errorf("cql arg %q: cannot bind text to a %s marker: %w", a, t, err)
	}
	return b, nil
}

func (a customArg) notA(t gocql.Type) error {
	return fmt.Errorf("cql arg %q is not a %s value (the statement's marker is %s)", a, t, t)
}

// decimal encodes text like -12.345 as a CQL decimal: the scale (digits
// after the point) as a 4-byte int, then the unscaled value as a varint.
func decimal(s string) ([]byte, bool) {
	intPart, frac, _ := strings.Cut(s, ".")
	digits := intPart + frac
	if digits == "" || digits == "-" || digits == "+" || strings.ContainsAny(frac, "+-") {
		return nil, false
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	out := make([]byte, 4, 4+8)
	scale := int32(len(frac))
	out[0], out[1], out[2], out[3] = byte(scale>>24), byte(scale>>16), byte(scale>>8), byte(scale)
	return append(out, twosComplement(n)...), true
}

// twosComplement is n as a CQL varint: big-endian two's complement in
// the fewest bytes.
func twosComplement(n *big.Int) []byte {
	switch n.Sign() {
	case 0:
		return []byte{0}
	case 1:
		b := n.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n - 1, bytes inverted, is n in two's complement.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}
