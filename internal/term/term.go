// Package term is what soakd prints to a person at a terminal: whether
// a stream is one (and how wide), a status line rewritten in place,
// colour for the words that say how a run went, and durations rounded
// for reading.
package term

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// fder is a writer with a file descriptor (*os.File).
type fder interface{ Fd() uintptr }

// IsTerminal reports whether w writes to a terminal: a file whose
// descriptor answers the terminal-attributes ioctl. A pipe, a regular
// file or a writer without a descriptor is not one.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(fder)
	return ok && isTerminal(int(f.Fd()))
}

// Width is the width in columns of the terminal w writes to; 0 when it
// is not one or does not say.
func Width(w io.Writer) int {
	f, ok := w.(fder)
	if !ok {
		return 0
	}
	return width(int(f.Fd()))
}

// NoColor reports whether colour is off by the environment: NO_COLOR set
// to anything but the empty string (no-color.org).
func NoColor(getenv func(string) string) bool {
	return getenv != nil && getenv("NO_COLOR") != ""
}

// SGR sequences.
const (
	green = "\x1b[32m"
	red   = "\x1b[1;31m"
	reset = "\x1b[0m"
)

// verdictWords are the words that say how a run or a check went.
var verdictWords = regexp.MustCompile(`\b(PASSED|PASS|FAILED|FAIL|REGRESSION)\b`)

// Colorize paints the verdict words of text: PASS and PASSED green;
// FAIL, FAILED and REGRESSION bold red. Only for a terminal.
func Colorize(text string) string {
	return verdictWords.ReplaceAllStringFunc(text, func(w string) string {
		if strings.HasPrefix(w, "PASS") {
			return green + w + reset
		}
		return red + w + reset
	})
}

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\x1b[2K"

// Line writes to a terminal that keeps one status line at its bottom,
// rewritten in place (Live); everything else written goes above it
// (Write). Safe for concurrent use.
type Line struct {
	mu    sync.Mutex
	w     io.Writer
	width func() int // columns; <= 0: unknown (the line is not cut)
	cur   string     // the line shown, "" when none
}

// NewLine is a Line on w, whose width in columns width reports (nil:
// unknown). A status line longer than the terminal would wrap, and a
// wrapped line cannot be erased in place: it is cut to fit.
func NewLine(w io.Writer, width func() int) *Line {
	return &Line{w: w, width: width}
}

// Live shows s (one line, no newline) in place of the line shown; ""
// removes it.
func (l *Line) Live(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s = l.fit(s)
	if s == "" && l.cur == "" {
		return
	}
	io.WriteString(l.w, clearLine+s)
	l.cur = s
}

// Write writes p above the status line: the line is erased, p written,
// and the line drawn again below it (when p ends its last line).
func (l *Line) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == "" {
		return l.w.Write(p)
	}
	buf := make([]byte, 0, len(clearLine)+len(p)+len(l.cur))
	buf = append(append(buf, clearLine...), p...)
	if len(p) > 0 && p[len(p)-1] == '\n' {
		buf = append(buf, l.cur...)
	} else {
		l.cur = ""
	}
	if _, err := l.w.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fit cuts s to the terminal's width less one column (a line that
// fills the last column moves some terminals' cursor to the next).
func (l *Line) fit(s string) string {
	if l.width == nil {
		return s
	}
	w := l.width() - 1
	if w <= 0 || utf8.RuneCountInString(s) <= w {
		return s
	}
	n := 0
	for i := range s {
		if n == w {
			return s[:i]
		}
		n++
	}
	return s
}

// Duration is d as a person reads it: to a whole unit of its size
// (667ms, not 666.666666ms; 1.5s; 2m5s; 12h, not 12h0m0s).
func Duration(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	var s string
	switch {
	case d == 0:
		return "0s"
	case d < time.Microsecond:
		s = d.String()
	case d < time.Millisecond:
		s = d.Round(time.Microsecond).String()
	case d < time.Second:
		s = d.Round(time.Millisecond).String()
	case d < 10*time.Second:
		s = d.Round(100 * time.Millisecond).String()
	default:
		s = d.Round(time.Second).String()
		// Go writes 12h0m0s and 5m0s: the zero units say nothing.
		if strings.Contains(s, "m") && strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.Contains(s, "h") && strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
	}
	if neg {
		return "-" + s
	}
	return s
}

// Rate is an ops/s figure for people: whole numbers from 100 up, three
// significant digits below (so 0.5 ops/s is not printed as 0, nor
// 2.25 as 2).
func Rate(r float64) string {
	a := r
	if a < 0 {
		a = -a
	}
	if a >= 100 || a == 0 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}
