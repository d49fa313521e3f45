// Package regfile opens files soakd reads as input (scenarios, configs,
// summaries, latency logs, corpora, captures, token and CA files) and
// refuses anything that is not a regular file; Reader makes a pass over
// one stop when its context ends. A FIFO named as input would otherwise block open(2) or read(2)
// until a writer comes, in a system call no signal interrupts: `soakd
// report` on a FIFO ignored SIGINT.
package regfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by the error for a path that is a FIFO,
// socket, device or directory.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading if it is a regular file. It looks before
// it opens (Stat), opens without blocking (O_NONBLOCK: a FIFO swapped in
// between does not wait for a writer) and looks again at what it
// opened. Errors name the path and, for a special file, its kind.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err = f.Stat()
	if err == nil {
		err = check(path, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ErrTooLarge is wrapped by ReadFileLimit's error for a file over its
// limit.
var ErrTooLarge = errors.New("larger than soakd reads")

// ReadFileLimit reads the regular file path whole (see Open) if it
// holds at most limit bytes; a larger one is an error naming it and the
// limit, read no further than limit+1 bytes.
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
	}
	return b, nil
}

// ReadFile reads the regular file path whole (see Open).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func check(path string, st fs.FileInfo) error {
	m := st.Mode()
	if m.IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s): soakd reads only regular files", ErrNotRegular, kind(m))}
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "type " + m.Type().String()
}

// Chunk is the most a Reader reads in one call: between two chunks it
// looks at its context, so a reader of a large file stops within one
// chunk's read (well under a second even from a slow disk) of a cancel.
const Chunk = 1 << 20

// Reader returns r read in chunks of at most Chunk bytes, failing with
// ctx's cause once ctx has ended. Every pass over a user's file (a
// corpus, a capture, a gzip stream) reads through one, so SIGINT or a
// stop ends it promptly.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	if len(p) > Chunk {
		p = p[:Chunk]
	}
	return c.r.Read(p)
}
