package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// The raw pipeline sends a standalone server's batches of the plain
// key-value ops (get, set, read, update) as RESP written straight into
// a connection's buffer, and reads the replies without keeping them: no
// command objects, no boxed arguments, no reply values. Through
// go-redis's Pipeline the same batch allocated ~5 objects (~250 B) per
// op and was half of soakd's CPU at 500k GET/s. The replies are judged
// as the go-redis path judges them: a nil get is a miss, an empty
// hgetall not found, an error reply its message (classified by
// Classify).
//
// It runs on the connections of the inline pool (inline.go), which dial
// the server with the client's timeouts, TLS, AUTH and SELECT.

// rawOp reports whether op goes through the raw pipeline.
func (t *Target) rawOp(op scenarios.Op) bool {
	switch op {
	case scenarios.OpGet, scenarios.OpSet:
		return true
	case scenarios.OpRead, scenarios.OpUpdate:
		// Plain hashes only: RedisJSON documents and FT.ADD (RediSearch
		// 1.x) use other commands.
		return t.search.mode == searchNone || t.search.mode == searchHash
	}
	return false
}

// rawBatch runs reqs as one raw pipeline when the target is a
// standalone server and every op is one rawOp takes; it reports
// whether it did.
func (t *Target) rawBatch(ctx context.Context, reqs []*targets.Request, errs []error) bool {
	if t.mode != scenarios.ModeStandalone {
		return false
	}
	for _, r := range reqs {
		if !t.rawOp(r.Op) {
			return false
		}
	}
	ic, err := t.inline.get(ctx)
	if err != nil {
		for i := range reqs {
			errs[i] = err
		}
		return true
	}
	err = ic.pipeline(t.inline, reqs, errs)
	end := time.Now()
	for _, r := range reqs {
		r.End = end
	}
	t.inline.put(ic, err)
	return true
}

// pipeline writes reqs and reads one reply per op into errs. A returned
// error is the connection's (write, read, protocol): every op without a
// reply yet gets it.
func (ic *inlineConn) pipeline(p *inlinePool, reqs []*targets.Request, errs []error) error {
	b := ic.w[:0]
	for _, r := range reqs {
		b = appendCommand(b, r)
	}
	ic.w = b
	_ = ic.c.SetWriteDeadline(time.Now().Add(p.writeTimeout))
	if _, err := ic.c.Write(b); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return err
	}
	_ = ic.c.SetReadDeadline(time.Now().Add(p.readTimeout))
	for i, r := range reqs {
		kind, n, err := ic.reply()
		if err != nil {
			for j := i; j < len(errs); j++ {
				errs[j] = err
			}
			return err
		}
		errs[i] = judge(r.Op, kind, n)
		if kind == '-' {
			errs[i] = replyError(ic.lastErr)
		}
	}
	return nil
}

// appendCommand appends r's command as a RESP array.
func appendCommand(b []byte, r *targets.Request) []byte {
	switch r.Op {
	case scenarios.OpGet:
		b = append(b, "*2\r\n$3\r\nGET\r\n"...)
		return appendBulk(b, r.Key)
	case scenarios.OpSet:
		b = append(b, "*3\r\n$3\r\nSET\r\n"...)
		b = appendBulk(b, r.Key)
		return appendBulk(b, value(r))
	case scenarios.OpRead:
		b = append(b, "*2\r\n$7\r\nHGETALL\r\n"...)
		return appendBulk(b, r.Key)
	}
	// OpUpdate: HSET key field value ... (the first field with no
	// fields, as the go-redis path does).
	fs := r.Fields
	n := max(len(fs), 1)
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(2+2*n), 10)
	b = append(b, "\r\n$4\r\nHSET\r\n"...)
	b = appendBulk(b, r.Key)
	if len(fs) == 0 {
		b = appendBulk(b, []byte(scenarios.FieldName(0)))
		return appendBulk(b, nil)
	}
	for _, f := range fs {
		b = appendBulkString(b, f.Name)
		b = appendBulk(b, f.Value)
	}
	return b
}

func appendBulk(b, v []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, "\r\n"...)
	b = append(b, v...)
	return append(b, "\r\n"...)
}

func appendBulkString(b []byte, v string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, "\r\n"...)
	b = append(b, v...)
	return append(b, "\r\n"...)
}

// judge is an op's outcome from its reply's kind and length (-1: a nil
// bulk string or array), as the go-redis path decides it.
func judge(op scenarios.Op, kind byte, n int64) error {
	switch {
	case kind == '-':
		return nil // the caller sets the reply's message
	case op == scenarios.OpGet && n < 0:
		return targets.ErrMiss
	case op == scenarios.OpRead && n <= 0:
		return targets.ErrNotFound
	}
	return nil
}

// maxReplyDepth bounds nested arrays in a reply the raw pipeline skips.
const maxReplyDepth = 8

var errProtocol = errors.New("redis: unexpected reply")

// reply reads one reply and returns its kind ('+', '-', ':', '$', '*'),
// its length for bulk strings and arrays (-1 for nil) and leaves an
// error reply's message in ic.lastErr. It keeps nothing of the payload.
func (ic *inlineConn) reply() (kind byte, n int64, err error) {
	return ic.replyDepth(0)
}

func (ic *inlineConn) replyDepth(depth int) (kind byte, n int64, err error) {
	line, err := ic.r.ReadSlice('\n')
	if err != nil {
		return 0, 0, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return 0, 0, fmt.Errorf("%w: %q", errProtocol, line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', ':':
		return kind, 0, nil
	case '-':
		ic.lastErr = string(body)
		return kind, 0, nil
	case '$', '*':
		var ok bool
		if n, ok = parseLen(body); !ok {
			return 0, 0, fmt.Errorf("%w: %q", errProtocol, line)
		}
		if kind == '$' {
			if n > 0 {
				if _, err := ic.r.Discard(int(n)); err != nil {
					return 0, 0, err
				}
			}
			if n >= 0 {
				if _, err := ic.r.Discard(2); err != nil {
					return 0, 0, err
				}
			}
			return kind, n, nil
		}
		if depth >= maxReplyDepth {
			return 0, 0, fmt.Errorf("%w: arrays nested deeper than %d", errProtocol, maxReplyDepth)
		}
		for k := int64(0); k < n; k++ {
			if _, _, err := ic.replyDepth(depth + 1); err != nil {
				return 0, 0, err
			}
		}
		return kind, n, nil
	}
	return 0, 0, fmt.Errorf("%w: %q", errProtocol, line)
}

// parseLen parses a bulk string's or an array's length: -1 or 0..2^40.
func parseLen(b []byte) (int64, bool) {
	if len(b) == 2 && b[0] == '-' && b[1] == '1' {
		return -1, true
	}
	if len(b) == 0 || len(b) > 12 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
