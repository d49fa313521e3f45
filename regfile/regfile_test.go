package regfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesFIFO: a FIFO with no writer is refused at once, named
// as a FIFO, instead of blocking the caller in open(2).
func TestOpenRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "summary.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a FIFO") || !strings.Contains(err.Error(), fifo) {
			t.Fatalf("want a not-a-regular-file error naming %s as a FIFO, got %v", fifo, err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the stuck open so the test process can end.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("ReadFile blocked on a FIFO")
	}
	if _, err := Open(dir); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("a directory: got %v", err)
	}
	reg := filepath.Join(dir, "ok")
	if err := os.WriteFile(reg, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(reg); err != nil || string(b) != "x" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: want ErrNotExist, got %v", err)
	}
}

func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFileLimit(p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q %v", b, err)
	}
	if _, err := ReadFileLimit(p, 9); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("over the limit: %v", err)
	}
}

func TestReaderStopsOnCancel(t *testing.T) {
	cause := errors.New("SIGINT")
	ctx, cancel := context.WithCancelCause(context.Background())
	r := Reader(ctx, strings.NewReader(strings.Repeat("x", 3*Chunk)))
	buf := make([]byte, 2*Chunk)
	if n, err := r.Read(buf); n != Chunk || err != nil {
		t.Fatalf("first read %d %v, want one chunk", n, err)
	}
	cancel(cause)
	if _, err := r.Read(buf); !errors.Is(err, cause) {
		t.Errorf("after the cancel: %v, want its cause", err)
	}
}
