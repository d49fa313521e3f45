package cql

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// driverLog is the gocql driver's logger: one line per message, prefixed
// once. gocql starts its own messages with "gocql: ", which under a
// "gocql:" prefix printed the word twice.
//
// The driver says most things once per host ("unable to dial control
// conn 10.0.0.7:9042: ..."), so a URL of 2000 unreachable hosts printed
// 2000 lines. A message is printed the first time its shape (the text
// with its host addresses taken out) is seen; later messages of that
// shape are counted, and flush prints one line saying how many there
// were and the last one's hosts. The target flushes when a connect ends
// and when it closes.
type driverLog struct {
	w    io.Writer
	mu   sync.Mutex
	seen map[string]*shapeCount
	keys []string // shapes with a count, in first-seen order
}

type shapeCount struct {
	n    int64
	last string // the last suppressed message, with its hosts
}

func newDriverLog(w io.Writer) *driverLog { return &driverLog{w: w, seen: map[string]*shapeCount{}} }

// hostRE matches a host address in a driver message: [v6]:port,
// name-or-v4:port, a bare v4 address, or a bare v6 address with "::".
var hostRE = regexp.MustCompile(`\[[0-9A-Fa-f:.%]+\](?::\d+)?|[0-9A-Za-z][0-9A-Za-z.\-]*:\d+\b|\b\d+\.\d+\.\d+\.\d+\b|[0-9A-Fa-f]*::[0-9A-Fa-f:]*`)

// shape is s with its host addresses replaced by "<host>".
func shape(s string) string { return hostRE.ReplaceAllString(s, "<host>") }

func (l *driverLog) line(s string) {
	s = strings.TrimSpace(strings.TrimPrefix(s, "gocql: "))
	k := shape(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.seen[k]; ok {
		if c.n == 0 {
			l.keys = append(l.keys, k)
		}
		c.n++
		c.last = s
		return
	}
	if len(l.seen) >= maxShapes {
		l.flushLocked() // a run's worth of distinct messages: keep the map bounded
	}
	l.seen[k] = &shapeCount{}
	fmt.Fprintf(l.w, "soakd: cql driver: %s\n", s)
}

// flush prints one line per shape whose messages were held back since
// the last flush, and prints the next message of each shape again.
func (l *driverLog) flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
}

// maxShapes bounds the shapes a driverLog remembers between flushes.
const maxShapes = 1024

func (l *driverLog) flushLocked() {
	for _, k := range l.keys {
		c := l.seen[k]
		fmt.Fprintf(l.w, "soakd: cql driver: %d more like %q (the last: %s)\n", c.n, k, c.last)
	}
	l.keys = l.keys[:0]
	clear(l.seen)
}

func (l *driverLog) Print(v ...any)                 { l.line(fmt.Sprint(v...)) }
func (l *driverLog) Printf(format string, v ...any) { l.line(fmt.Sprintf(format, v...)) }
func (l *driverLog) Println(v ...any)               { l.line(fmt.Sprintln(v...)) }
