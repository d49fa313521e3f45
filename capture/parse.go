// Package capture reads captured traffic for replay: the output of
// `redis-cli MONITOR` and soakd's NDJSON op log. It parses lines,
// indexes a capture in one streaming pass (an offset, a length, a
// timestamp, a db and a group per op, never the commands themselves),
// and turns an op into the request parts of the store it is replayed on
// (a Dialect: CommandDialect for MONITOR lines; each other store's in its
// targets/<store>/replaydialect.go), remapping keys.
// The engine's replay executor reads each op back from the file by its
// offset when it sends it.
package capture

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
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
// MONITOR, or as the NDJSON ts gives it), its db (MONITOR's "[db
// client]", NDJSON's "db"; 0 when not given) and the command with its
// arguments. Args alias the parser's buffer.
type Op struct {
	TS   int64
	DB   int
	Args [][]byte
	// JSON[i] reports that Args[i] was a JSON value other than a string
	// in an NDJSON log (an object, array, number, boolean or null): its
	// text is then the value's JSON. Nil for MONITOR (all strings).
	JSON []bool
	// Script reports a MONITOR line a script issued ("[db lua]"): the
	// EVAL, EVALSHA or FCALL that ran the script is in the capture too,
	// so replaying both would run the command twice.
	Script bool
}

// IsJSON reports whether argument i is a JSON value, not a string.
func (o Op) IsJSON(i int) bool { return i < len(o.JSON) && o.JSON[i] }

// IsNull reports whether argument i is JSON null.
func (o Op) IsNull(i int) bool { return o.IsJSON(i) && string(o.Args[i]) == "null" }

// Parser decodes lines of one format, reusing its buffers: the Op a
// call returns is valid until the next call.
type Parser struct {
	format Format
	buf    []byte
	ends   []int
	args   [][]byte
	json   []bool
	bin    []int // an NDJSON line's "b64"
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
	db, script := 0, false
	if sp := bytes.IndexByte(rest[:cl], ' '); sp > 1 {
		n, err := strconv.Atoi(string(rest[1:sp]))
		if err != nil || n < 0 || n > MaxDB {
			return Op{}, fmt.Errorf("db %q in \"[db client]\" is not a number from 0 to %d", clip(rest[1:sp]), MaxDB)
		}
		db = n
		script = string(rest[sp+1:cl]) == "lua"
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
	return Op{TS: ts, DB: db, Args: p.slice(), Script: script}, nil
}

// MaxDB is the highest db number a capture may name.
const MaxDB = 1<<16 - 1

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
	TS   *float64          `json:"ts"`
	Op   string            `json:"op"`
	Args []json.RawMessage `json:"args"`
	DB   *int              `json:"db"`
	// B64 lists the indexes of args that are base64 of raw bytes
	// (ndjson.go).
	B64 []int `json:"b64"`
}

// parseNDJSON decodes {"ts": seconds, "op": "SET", "args": ["k","v"]}.
// A string argument is its text; any other JSON value (an object, an
// array, a number...) is its JSON text, marked in Op.JSON.
func (p *Parser) parseNDJSON(line []byte) (Op, error) {
	var o ndjsonOp
	if !utf8.Valid(line) {
		// encoding/json would turn the bytes into U+FFFD: the value sent
		// would not be the one logged.
		return Op{}, errors.New(`invalid UTF-8: a JSON line is text; give an argument of raw bytes base64-encoded, its index in "b64"`)
	}
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
	db := 0
	if o.DB != nil {
		if *o.DB < 0 || *o.DB > MaxDB {
			return Op{}, fmt.Errorf(`"db" %d must be from 0 to %d`, *o.DB, MaxDB)
		}
		db = *o.DB
	}
	p.buf, p.ends, p.json = p.buf[:0], p.ends[:0], append(p.json[:0], false)
	p.buf = append(p.buf, o.Op...)
	p.ends = append(p.ends, len(p.buf))
	p.bin = p.bin[:0]
	for k, i := range o.B64 {
		if i < 0 || i >= len(o.Args) {
			return Op{}, fmt.Errorf(`"b64"[%d]: %d is no index of args (0 to %d)`, k, i, len(o.Args)-1)
		}
		p.bin = append(p.bin, i)
	}
	for i, a := range o.Args {
		a = bytes.TrimSpace(a)
		if len(a) > 0 && a[0] == '"' {
			var s string
			if err := json.Unmarshal(a, &s); err != nil {
				return Op{}, fmt.Errorf("args[%d]: %v", i, err)
			}
			if slices.Contains(p.bin, i) {
				var err error
				if p.buf, err = base64.StdEncoding.AppendDecode(p.buf, []byte(s)); err != nil {
					return Op{}, fmt.Errorf(`args[%d]: listed in "b64", but not base64: %v`, i, err)
				}
			} else {
				p.buf = append(p.buf, s...)
			}
			p.json = append(p.json, false)
		} else {
			if slices.Contains(p.bin, i) {
				return Op{}, fmt.Errorf(`args[%d]: listed in "b64", but not a string`, i)
			}
			p.buf = append(p.buf, a...)
			p.json = append(p.json, true)
		}
		p.ends = append(p.ends, len(p.buf))
	}
	return Op{TS: int64(math.Round(*o.TS * 1e9)), DB: db, Args: p.slice(), JSON: p.json}, nil
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
