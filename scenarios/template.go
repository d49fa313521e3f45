package scenarios

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A template is a string with placeholders that draw values when an op
// runs: "cart:{user}", "sku{int:1:50}". A placeholder is '{', a name
// (a letter, then letters, digits or '_'), optional ':'-separated
// arguments, and '}'. Any other '{' is text, so JSON bodies need no
// escaping; "{{" is a literal '{' where one must precede a name.

// GenKind is what a placeholder draws.
type GenKind uint8

// Placeholder kinds.
const (
	GenLiteral GenKind = iota // text
	GenKey                    // {key}: the op's key from the keyspace distribution
	GenBinding                // {name}: a named binding (bindings:)
	GenInt                    // {int:lo:hi}: uniform integer in [lo, hi]
	GenFloat                  // {float} in [0, 1), {float:lo:hi} in [lo, hi)
	GenSeq                    // {seq}: the op's index in its phase's schedule
	GenBytes                  // {bytes:N}: N random printable bytes
	GenText                   // {text:N}: N words separated by spaces
	GenChoice                 // {choice:a,b,c} or {choice:a=3,b=1}: one of the values, by weight
	GenUUID                   // {uuid}: a random version 4 UUID
	GenNowMs                  // {now_ms}: the wall clock in Unix milliseconds
	GenCorpus                 // {corpus:field}: the field of a document drawn from record.source
)

// Segment is one piece of a parsed template: text, or a placeholder
// with its arguments.
type Segment struct {
	Kind    GenKind
	Text    string    // GenLiteral: the text; GenBinding: the binding's name
	Lo, Hi  int64     // GenInt range; GenBytes/GenText: N in Lo
	FLo     float64   // GenFloat range
	FHi     float64   // GenFloat range
	Choices []string  // GenChoice values
	Weights []float64 // GenChoice weights (1 each when none given)
}

// Limits on what a placeholder may ask for.
const (
	MaxGenBytes = 16 << 20 // bytes:N and text:N
	MaxChoices  = 1024
	// MaxTextWord is the longest word text:N draws.
	MaxTextWord = 12
)

// generatorNames are the placeholder names that are generators; a
// binding may not take one of them.
var generatorNames = []string{"key", "int", "float", "seq", "bytes", "text", "choice", "uuid", "now_ms", "corpus"}

// IsGeneratorName reports whether name is a built-in placeholder.
func IsGeneratorName(name string) bool {
	for _, g := range generatorNames {
		if g == name {
			return true
		}
	}
	return false
}

// ParseTemplate parses s into segments. bindings says which names are
// named bindings; any other name that is not a generator is an error.
func ParseTemplate(s string, bindings func(name string) bool) ([]Segment, error) {
	var segs []Segment
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			segs = append(segs, Segment{Kind: GenLiteral, Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c == '{' && i+1 < len(s) && s[i+1] == '{' {
			lit.WriteByte('{')
			i += 2
			continue
		}
		if c != '{' || i+1 >= len(s) || !isNameStart(s[i+1]) {
			lit.WriteByte(c)
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("placeholder at offset %d has no closing '}': %q", i, s[i:])
		}
		body := s[i+1 : i+end]
		seg, err := parsePlaceholder(body, bindings)
		if err != nil {
			return nil, err
		}
		flush()
		segs = append(segs, seg)
		i += end + 1
	}
	flush()
	return segs, nil
}

// ParseGenerator parses the body of one placeholder ("int:1:50") as a
// named binding's gen: holds it; it may not name a binding.
func ParseGenerator(body string) (Segment, error) {
	return parsePlaceholder(body, func(string) bool { return false })
}

func isNameStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func isNameByte(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func parsePlaceholder(body string, bindings func(string) bool) (Segment, error) {
	name, args, hasArgs := strings.Cut(body, ":")
	for j := 0; j < len(name); j++ {
		if !isNameByte(name[j]) {
			return Segment{}, fmt.Errorf("placeholder {%s}: %q is not a name", body, name)
		}
	}
	noArgs := func(k GenKind) (Segment, error) {
		if hasArgs {
			return Segment{}, fmt.Errorf("placeholder {%s}: {%s} takes no arguments", body, name)
		}
		return Segment{Kind: k}, nil
	}
	switch name {
	case "key":
		return noArgs(GenKey)
	case "seq":
		return noArgs(GenSeq)
	case "uuid":
		return noArgs(GenUUID)
	case "now_ms":
		return noArgs(GenNowMs)
	case "corpus":
		if !hasArgs || args == "" {
			return Segment{}, fmt.Errorf("placeholder {%s}: write {corpus:field} with field a field of record.source's documents", body)
		}
		return Segment{Kind: GenCorpus, Text: args}, nil
	case "int":
		parts := strings.Split(args, ":")
		if !hasArgs || len(parts) != 2 {
			return Segment{}, fmt.Errorf("placeholder {%s}: write {int:lo:hi}", body)
		}
		lo, err1 := strconv.ParseInt(parts[0], 10, 64)
		hi, err2 := strconv.ParseInt(parts[1], 10, 64)
		if err1 != nil || err2 != nil {
			return Segment{}, fmt.Errorf("placeholder {%s}: lo and hi must be integers", body)
		}
		if lo > hi {
			return Segment{}, fmt.Errorf("placeholder {%s}: lo %d is above hi %d", body, lo, hi)
		}
		if uint64(hi-lo) == 1<<63 || hi-lo < 0 {
			return Segment{}, fmt.Errorf("placeholder {%s}: the range is too wide", body)
		}
		return Segment{Kind: GenInt, Lo: lo, Hi: hi}, nil
	case "float":
		if !hasArgs {
			return Segment{Kind: GenFloat, FLo: 0, FHi: 1}, nil
		}
		parts := strings.Split(args, ":")
		if len(parts) != 2 {
			return Segment{}, fmt.Errorf("placeholder {%s}: write {float} or {float:lo:hi}", body)
		}
		lo, err1 := strconv.ParseFloat(parts[0], 64)
		hi, err2 := strconv.ParseFloat(parts[1], 64)
		if err1 != nil || err2 != nil || lo != lo || hi != hi {
			return Segment{}, fmt.Errorf("placeholder {%s}: lo and hi must be numbers", body)
		}
		if lo >= hi || hi-lo > 1e15 || lo < -1e15 || hi > 1e15 {
			return Segment{}, fmt.Errorf("placeholder {%s}: need lo < hi, both within ±1e15", body)
		}
		return Segment{Kind: GenFloat, FLo: lo, FHi: hi}, nil
	case "bytes", "text":
		n, err := strconv.ParseInt(args, 10, 64)
		if !hasArgs || err != nil {
			return Segment{}, fmt.Errorf("placeholder {%s}: write {%s:N} with N a positive integer", body, name)
		}
		if n < 1 || n > MaxGenBytes {
			return Segment{}, fmt.Errorf("placeholder {%s}: N must be between 1 and %d", body, MaxGenBytes)
		}
		k := GenBytes
		if name == "text" {
			k = GenText
		}
		return Segment{Kind: k, Lo: n}, nil
	case "choice":
		if !hasArgs || args == "" {
			return Segment{}, fmt.Errorf("placeholder {%s}: write {choice:a,b,c} or {choice:a=3,b=1}", body)
		}
		seg := Segment{Kind: GenChoice}
		for _, c := range strings.Split(args, ",") {
			v, w := c, 1.0
			if a, b, ok := strings.Cut(c, "="); ok {
				f, err := strconv.ParseFloat(b, 64)
				if err != nil || f <= 0 || f != f || f > 1e12 {
					return Segment{}, fmt.Errorf("placeholder {%s}: weight %q of %q must be a positive number", body, b, a)
				}
				v, w = a, f
			}
			seg.Choices = append(seg.Choices, v)
			seg.Weights = append(seg.Weights, w)
		}
		if len(seg.Choices) > MaxChoices {
			return Segment{}, fmt.Errorf("placeholder {%s}: %d choices; at most %d", body, len(seg.Choices), MaxChoices)
		}
		return seg, nil
	}
	if bindings(name) {
		if hasArgs {
			return Segment{}, fmt.Errorf("placeholder {%s}: binding {%s} takes no arguments", body, name)
		}
		return Segment{Kind: GenBinding, Text: name}, nil
	}
	return Segment{}, fmt.Errorf("unknown placeholder {%s} (use key, int, float, seq, bytes, text, choice, uuid, now_ms or a name from bindings:)", name)
}

// MaxLen is the most bytes the segment renders; key is the longest key
// and binding the longest value of a named binding.
func (g Segment) MaxLen(key int, binding func(name string) int) int64 {
	switch g.Kind {
	case GenLiteral:
		return int64(len(g.Text))
	case GenKey:
		return int64(key)
	case GenBinding:
		return int64(binding(g.Text))
	case GenInt, GenSeq, GenNowMs:
		return 20
	case GenFloat:
		return 24 // %.6f of a value within ±1e15
	case GenBytes:
		return g.Lo
	case GenText:
		return g.Lo * (MaxTextWord + 1)
	case GenChoice:
		m := 0
		for _, c := range g.Choices {
			m = max(m, len(c))
		}
		return int64(m)
	case GenUUID:
		return 36
	}
	return 0
}

// Literal reports whether the segments are all text, and the text.
func Literal(segs []Segment) (string, bool) {
	var b strings.Builder
	for _, g := range segs {
		if g.Kind != GenLiteral {
			return "", false
		}
		b.WriteString(g.Text)
	}
	return b.String(), true
}

// What stores' forms of a custom op share (family.go) to check their
// templates.

// SampleRender renders segs with a stand-in value for each placeholder
// ("0", which fits a JSON string or number), for checking the JSON.
func SampleRender(segs []Segment) string {
	var b strings.Builder
	for _, g := range segs {
		if g.Kind == GenLiteral {
			b.WriteString(g.Text)
		} else {
			b.WriteString("0")
		}
	}
	return b.String()
}

// JSONProblem says where s stops being JSON.
func JSONProblem(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return err.Error()
	}
	return "not JSON"
}

// PlaceholderName is how placeholder g is written, for messages.
func PlaceholderName(g Segment) string {
	switch g.Kind {
	case GenKey:
		return "{key}"
	case GenBinding:
		return "{" + g.Text + "}"
	case GenChoice:
		return "{choice:" + strings.Join(g.Choices, ",") + "}"
	case GenCorpus:
		return "{corpus:" + g.Text + "}"
	}
	return "a placeholder"
}
