package corpus

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/soakd/soakd/regfile"
)

// A FIFO as a corpus is refused by name by Open, Check and Peek, at
// once: nothing waits for a writer (none ever comes here; a blocked
// open would hang the test).
func TestFIFORefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "docs.ndjson")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	for name, f := range map[string]func() error{
		"Open":  func() error { _, err := Open(p, Options{}); return err },
		"Check": func() error { return Check(p, "", nil) },
		"Peek":  func() error { return Peek(p, "", nil) },
	} {
		err := f()
		if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "a FIFO") {
			t.Errorf("%s: %v, want the FIFO refused by name", name, err)
		}
	}
}

// A gzipped corpus that inflates past its cap is refused when the copy
// reaches the cap, with the cap in the error, and leaves no copy behind.
func TestGzipInflationCapped(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	line := `{"id":"x","body":"` + strings.Repeat("a", 1000) + `"}` + "\n"
	p := write(t, "big.ndjson.gz", strings.Repeat(line, 5000)) // ~5 MB inflated, a few KB stored
	_, err := Open(p, Options{MaxInflated: 1 << 20})
	if !errors.Is(err, ErrInflatedCap) || !strings.Contains(err.Error(), "1 MiB, the cap") || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v, want the 1 MiB cap named", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	c, err := Open(p, Options{MaxInflated: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if c.Count() != 5000 {
		t.Errorf("%d documents, want 5000", c.Count())
	}
	c.Close()
}

// The pass at Open stops on its context: a cancelled run's corpus (or
// its gzip copy) is not read to the end first.
func TestOpenStopsOnCancel(t *testing.T) {
	line := `{"id":"x","body":"some words here"}` + "\n"
	body := strings.Repeat(line, 100_000)
	cause := errors.New("SIGINT")
	for _, name := range []string{"docs.ndjson", "docs.ndjson.gz"} {
		p := write(t, name, body)
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		_, err := OpenContext(ctx, p, Options{})
		if !errors.Is(err, cause) {
			t.Errorf("%s: %v, want the cancel's cause", name, err)
		}
	}
}

// Invalid UTF-8 in a corpus is refused by Open, Check and Peek at its
// line and column, in NDJSON and in CSV: stored, it would not be the
// corpus's text (JSON turns it into U+FFFD).
func TestInvalidUTF8Refused(t *testing.T) {
	for name, tc := range map[string]struct{ body, at string }{
		"docs.ndjson": {"{\"id\":\"1\",\"body\":\"fine\"}\n{\"id\":\"2\",\"body\":\"caf\xe9\"}\n", ": line 2: "},
		"docs.csv":    {"id,body\n1,fine\n2,caf\xe9\n", `: line 3: column "body": `},
	} {
		p := write(t, name, tc.body)
		for fn, f := range map[string]func() error{
			"Open":  func() error { _, err := Open(p, Options{}); return err },
			"Check": func() error { return Check(p, "", nil) },
		} {
			err := f()
			if err == nil || !strings.Contains(err.Error(), p+tc.at) || !strings.Contains(err.Error(), "invalid UTF-8 (byte 0xe9") {
				t.Errorf("%s %s: %v, want invalid UTF-8 refused at its line", fn, name, err)
			}
		}
	}
	p := write(t, "first.ndjson", "{\"id\":\"\xff\"}\n")
	if err := Peek(p, "", nil); err == nil || !strings.Contains(err.Error(), "line 1: invalid UTF-8 (byte 0xff at column 8)") {
		t.Errorf("Peek: %v, want line 1 column 8", err)
	}
}
