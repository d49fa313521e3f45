package regfile

import (
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
