package cql

import (
	"bytes"
	"testing"
)

func TestDriverLogNamesTheDriverOnce(t *testing.T) {
	var b bytes.Buffer
	l := driverLog{&b}
	l.Printf("gocql: unable to dial control conn %s: %v", "127.0.0.1:1", "refused")
	l.Println("gocql:", "plain")
	l.Print("no prefix")
	want := "soakd: cql driver: unable to dial control conn 127.0.0.1:1: refused\nsoakd: cql driver: plain\nsoakd: cql driver: no prefix\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
