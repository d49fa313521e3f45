package term

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{666666666 * time.Nanosecond, "667ms"},
		{0, "0s"},
		{500 * time.Nanosecond, "500ns"},
		{1234567 * time.Nanosecond, "1ms"},
		{666666 * time.Nanosecond, "667µs"},
		{1500 * time.Millisecond, "1.5s"},
		{10*time.Second + 400*time.Millisecond, "10s"},
		{125 * time.Second, "2m5s"},
		{5 * time.Minute, "5m"},
		{12 * time.Hour, "12h"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + 2*time.Second, "1h0m2s"},
		{-1500 * time.Millisecond, "-1.5s"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestColorize(t *testing.T) {
	got := Colorize("SLO PASSED\n  SLO FAIL get p99\nverdict: REGRESSION\nFAILOVER, PASSWORD\n")
	for _, want := range []string{green + "PASSED" + reset, red + "FAIL" + reset, red + "REGRESSION" + reset} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if !strings.Contains(got, "\nFAILOVER, PASSWORD\n") {
		t.Errorf("parts of other words painted: %q", got)
	}
}

// TestLine: the status line is rewritten in place, cut to the width;
// other output goes above it and the line comes back below.
func TestLine(t *testing.T) {
	var b bytes.Buffer
	l := NewLine(&b, func() int { return 11 })
	l.Live("[steady 1s/10s]")
	l.Live("[steady 2s/10s]")
	l.Write([]byte("soakd: warning: x\n"))
	l.Live("")
	l.Write([]byte("after\n"))
	want := clearLine + "[steady 1s" + clearLine + "[steady 2s" + clearLine + "soakd: warning: x\n[steady 2s" + clearLine + "after\n"
	if b.String() != want {
		t.Errorf("wrote\n%q\nwant\n%q", b.String(), want)
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, x := range []io.Writer{f, w, &bytes.Buffer{}} {
		if IsTerminal(x) {
			t.Errorf("%T taken for a terminal", x)
		}
	}
	if Width(f) != 0 {
		t.Errorf("a file has a width")
	}
	if pty := openPTY(t); pty != nil {
		if !IsTerminal(pty) {
			t.Error("a pseudo-terminal is not taken for a terminal")
		}
	}
}

func TestNoColor(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if NoColor(get) {
		t.Error("NO_COLOR unset turns colour off")
	}
	env["NO_COLOR"] = "0" // any non-empty value
	if !NoColor(get) {
		t.Error("NO_COLOR=0 leaves colour on")
	}
}

func TestRate(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 0.001: "0.001", 0.5: "0.5", 2.25: "2.25", 99.94: "99.9", 250: "250", 2000.4: "2000", 40000: "40000"} {
		if got := Rate(in); got != want {
			t.Errorf("Rate(%g) = %q, want %q", in, got, want)
		}
	}
}
