// Package capture reads captured Redis traffic for replay: the output
// of `redis-cli MONITOR` and soakd's NDJSON op log. It parses lines,
// indexes a capture in one streaming pass (an offset, a length, a
// timestamp and a group per op, never the commands themselves) and
// remaps keys. The engine's replay executor reads each op back from the
// file by its offset when it sends it.
package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Format is a capture's format: the YAML `format:` of a replay phase.
type Format string

// Capture formats.
const (
	FormatMonitor Format = "monitor"
	FormatNDJSON  Format = "ndjson"
)

// Formats lists the formats in the order messages name them.
var Formats = []Format{FormatMonitor, FormatNDJSON}

// Valid reports whether f is one of the formats.
func (f Format) Valid() bool { return slices.Contains(Formats, f) }

// Op is one parsed line: its timestamp (ns since the Unix epoch for
// MONITOR, or as the NDJSON ts gives it) and the command with its
// arguments. Args alias the buffer the parser was given.
type Op struct {
	TS   int64
	Args [][]byte
}

// Parser decodes lines of one format, reusing its buffers: the Op a
// call returns is valid until the next call.
type Parser struct {
	format Format
	buf    []byte
	ends   []int
	args   [][]byte
}

// NewParser returns a parser for format f.
func NewParser(f Format) *Parser { return &Parser{format: f} }

// errSkipLine marks a line that holds no op (MONITOR's first "OK").
var errSkipLine = errors.New("no op on this line")

// Parse decodes one line (without its newline).
func (p *Parser) Parse(line []byte) (Op, error) {
	if p.format == FormatNDJSON {
		return p.parseNDJSON(line)
	}
	return p.parseMonitor(line)
}

// parseMonitor decodes a line as redis-cli MONITOR prints it:
//
//	1733350000.123456 [0 127.0.0.1:50000] "SET" "key" "va\"lue"
//
// Arguments are double-quoted with the escapes Redis's sdscatrepr
// writes: \" \\ \n \r \t \a \b and \xHH.
func (p *Parser) parseMonitor(line []byte) (Op, error) {
	line = bytes.TrimRight(line, "\r")
	if string(line) == "OK" {
		return Op{}, errSkipLine
	}
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 {
		return Op{}, errors.New(`not a MONITOR line: want a timestamp, [db client] and quoted arguments`)
	}
	ts, err := parseSeconds(line[:sp])
	if err != nil {
		return Op{}, err
	}
	rest := line[sp+1:]
	if len(rest) == 0 || rest[0] != '[' {
		return Op{}, errors.New(`missing "[db client]" after the timestamp`)
	}
	cl := bytes.IndexByte(rest, ']')
	if cl < 0 {
		return Op{}, errors.New(`unterminated "[db client]"`)
	}
	rest = rest[cl+1:]
	p.buf, p.ends = p.buf[:0], p.ends[:0]
	for {
		for len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			break
		}
		if rest[0] != '"' {
			return Op{}, fmt.Errorf("argument %d: want a double-quoted string, got %q", len(p.ends)+1, clip(rest))
		}
		n, err := p.unquote(rest)
		if err != nil {
			return Op{}, fmt.Errorf("argument %d: %w", len(p.ends)+1, err)
		}
		rest = rest[n:]
		if len(rest) > 0 && rest[0] != ' ' {
			return Op{}, fmt.Errorf("argument %d: text after its closing quote: %q", len(p.ends), clip(rest))
		}
	}
	if len(p.ends) == 0 {
		return Op{}, errors.New("no command after [db client]")
	}
	return Op{TS: ts, Args: p.slice()}, nil
}

// unquote appends the quoted string at the start of s to p.buf and
// returns how many bytes of s it took.
func (p *Parser) unquote(s []byte) (int, error) {
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			p.ends = append(p.ends, len(p.buf))
			return i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return 0, errors.New("a backslash at the end of the line")
			}
			i++
			switch e := s[i]; e {
			case '"', '\\':
				p.buf = append(p.buf, e)
			case 'n':
				p.buf = append(p.buf, '\n')
			case 'r':
				p.buf = append(p.buf, '\r')
			case 't':
				p.buf = append(p.buf, '\t')
			case 'a':
				p.buf = append(p.buf, '\a')
			case 'b':
				p.buf = append(p.buf, '\b')
			case 'x':
				if i+2 >= len(s) {
					return 0, errors.New(`\x needs two hex digits`)
				}
				v, err := strconv.ParseUint(string(s[i+1:i+3]), 16, 8)
				if err != nil {
					return 0, fmt.Errorf(`\x%s is not two hex digits`, s[i+1:i+3])
				}
				p.buf = append(p.buf, byte(v))
				i += 2
			default:
				return 0, fmt.Errorf(`unknown escape \%c`, e)
			}
		default:
			p.buf = append(p.buf, c)
		}
	}
	return 0, errors.New("unterminated quoted string")
}

// slice cuts p.buf at p.ends into p.args.
func (p *Parser) slice() [][]byte {
	p.args = p.args[:0]
	start := 0
	for _, e := range p.ends {
		p.args = append(p.args, p.buf[start:e:e])
		start = e
	}
	return p.args
}

// parseSeconds parses MONITOR's "seconds.micros" into ns, exactly.
func parseSeconds(b []byte) (int64, error) {
	s := string(b)
	whole, frac, _ := cutByte(s, '.')
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec < 0 || len(frac) > 9 || sec > math.MaxInt64/1_000_000_000-1 {
		return 0, fmt.Errorf("timestamp %q is not seconds.microseconds", clip(b))
	}
	ns := int64(0)
	if frac != "" {
		f, err := strconv.ParseUint(frac, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("timestamp %q is not seconds.microseconds", clip(b))
		}
		ns = int64(f)
		for k := len(frac); k < 9; k++ {
			ns *= 10
		}
	}
	return sec*1e9 + ns, nil
}

func cutByte(s string, c byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// ndjsonOp is one line of the NDJSON op log.
type ndjsonOp struct {
	TS   *float64 `json:"ts"`
	Op   string   `json:"op"`
	Args []string `json:"args"`
}

// parseNDJSON decodes {"ts": seconds, "op": "SET", "args": ["k","v"]}.
func (p *Parser) parseNDJSON(line []byte) (Op, error) {
	var o ndjsonOp
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return Op{}, fmt.Errorf("not a JSON op (want {\"ts\": seconds, \"op\": \"SET\", \"args\": [...]}): %v", err)
	}
	if o.TS == nil {
		return Op{}, errors.New(`missing "ts" (seconds, a number)`)
	}
	if !(*o.TS >= 0) || *o.TS > math.MaxInt64/1e9-1 {
		return Op{}, fmt.Errorf(`"ts" %v must be a number of seconds, not negative`, *o.TS)
	}
	if o.Op == "" {
		return Op{}, errors.New(`missing "op" (the command name)`)
	}
	p.buf, p.ends = p.buf[:0], p.ends[:0]
	p.buf = append(p.buf, o.Op...)
	p.ends = append(p.ends, len(p.buf))
	for _, a := range o.Args {
		p.buf = append(p.buf, a...)
		p.ends = append(p.ends, len(p.buf))
	}
	return Op{TS: int64(math.Round(*o.TS * 1e9)), Args: p.slice()}, nil
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
