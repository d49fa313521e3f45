package capture

import "strings"

// Dialect is how one store's ops are read from a capture: which latency
// group an op falls in, whether it cannot be replayed, and the request
// parts the store's adapter sends for it. Check runs once per op while
// the capture is indexed (one goroutine); Render for every op sent, from
// any worker, and keeps no state.
type Dialect interface {
	// Check validates op (Args[0] its name) and returns its latency
	// group, or skip for an op that cannot be replayed (counted, not
	// sent). prefix is the replay's key_prefix: an op it cannot keep
	// off the store's own data is an error.
	Check(op Op, prefix string) (group string, skip bool, err error)
	// Render appends op's request parts to buf, with prefix before the
	// keys (redis), the collection (mongo) or the indices (elastic) it
	// names, and returns the buffer and the parts (aliasing it).
	Render(op Op, prefix string, buf []byte, parts [][]byte) ([]byte, [][]byte)
}

// CommandDialect is the dialect of ops that are a command and its
// arguments, as MONITOR prints them (the RESP stores'): grouped by the
// command's name in upper case, keys remapped by IsKey. skip says which
// commands (upper case) are not replayed.
func CommandDialect(skip func(cmd string) bool) Dialect {
	return &redisDialect{skip: skip, upper: map[string]string{}}
}

// redisDialect: an op is a command and its arguments, grouped by the
// command's name in upper case; keys are remapped by IsKey.
type redisDialect struct {
	skip  func(string) bool
	upper map[string]string // command as captured -> upper case (Check only)
}

func (d *redisDialect) Check(op Op, _ string) (string, bool, error) {
	cmd, ok := d.upper[string(op.Args[0])] // no allocation once seen
	if !ok {
		cmd = strings.ToUpper(string(op.Args[0]))
		d.upper[string(op.Args[0])] = cmd
	}
	if d.skip != nil && d.skip(cmd) {
		return cmd, true, nil
	}
	return cmd, false, nil
}

func (d *redisDialect) Render(op Op, prefix string, buf []byte, parts [][]byte) ([]byte, [][]byte) {
	return Remap(op.Args, prefix, buf, parts)
}

// Cut slices buf at ends into parts (reused): a dialect's Render
// returns them; an end below 0 is a null part.
func Cut(buf []byte, ends []int, parts [][]byte) [][]byte {
	parts = parts[:0]
	start := 0
	for _, e := range ends {
		if e < 0 { // a null part
			parts = append(parts, nil)
			continue
		}
		parts = append(parts, buf[start:e:e])
		start = e
	}
	return parts
}
