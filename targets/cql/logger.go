package cql

import (
	"fmt"
	"io"
	"strings"
)

// driverLog is the gocql driver's logger: one line per message, prefixed
// once. gocql starts its own messages with "gocql: ", which under a
// "gocql:" prefix printed the word twice.
type driverLog struct{ w io.Writer }

func (l driverLog) line(s string) {
	s = strings.TrimSpace(strings.TrimPrefix(s, "gocql: "))
	fmt.Fprintf(l.w, "soakd: cql driver: %s\n", s)
}

func (l driverLog) Print(v ...any)                 { l.line(fmt.Sprint(v...)) }
func (l driverLog) Printf(format string, v ...any) { l.line(fmt.Sprintf(format, v...)) }
func (l driverLog) Println(v ...any)               { l.line(fmt.Sprintln(v...)) }
