package cql

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestDriverLogNamesTheDriverOnce(t *testing.T) {
	var b bytes.Buffer
	l := newDriverLog(&b)
	l.Printf("gocql: unable to dial control conn %s: %v", "127.0.0.1:1", "refused")
	l.Println("gocql:", "plain")
	l.Print("no prefix")
	want := "soakd: cql driver: unable to dial control conn 127.0.0.1:1: refused\nsoakd: cql driver: plain\nsoakd: cql driver: no prefix\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The driver's message for each of 2000 hosts (a 2000-host URL, none
// reachable) comes out as two lines: the first host's, then one
// counting the other 1999 and naming the last.
func TestDriverLogSummarisesPerHostMessages(t *testing.T) {
	var b bytes.Buffer
	l := newDriverLog(&b)
	for i := range 2000 {
		h := fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256)
		l.Printf("gocql: unable to dial control conn %s:9042: dial tcp %s:9042: connect: connection refused\n", h, h)
	}
	l.Printf("gocql: unable to dial control conn [fe80::1]:9042: dial tcp [fe80::1]:9042: i/o timeout")
	l.flush()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"soakd: cql driver: unable to dial control conn 10.0.0.0:9042: dial tcp 10.0.0.0:9042: connect: connection refused",
		"soakd: cql driver: unable to dial control conn [fe80::1]:9042: dial tcp [fe80::1]:9042: i/o timeout",
		`soakd: cql driver: 1999 more like "unable to dial control conn <host>: dial tcp <host>: connect: connection refused" (the last: unable to dial control conn 10.0.7.207:9042: dial tcp 10.0.7.207:9042: connect: connection refused)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %d lines:\n%s\nwant\n%s", len(lines), b.String(), strings.Join(want, "\n"))
	}
	b.Reset()
	l.Printf("gocql: unable to dial control conn 10.0.0.1:9042: dial tcp 10.0.0.1:9042: connect: connection refused")
	if !strings.Contains(b.String(), "10.0.0.1:9042") {
		t.Errorf("after a flush the shape is printed again, got %q", b.String())
	}
}
