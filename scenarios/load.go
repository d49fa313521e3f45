package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/regfile"
)

// Problem is one thing wrong with a scenario file, with its position.
type Problem struct {
	File  string
	Line  int
	Field string // dotted path such as phases[1].rate; empty for syntax errors
	Msg   string
}

func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is every problem found in one or more files.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// FieldError is a validation problem on a field path, before positions are
// known. Validate returns these; Load turns them into Problems with lines.
type FieldError struct {
	Path string
	Msg  string
}

func (e FieldError) Error() string { return e.Path + ": " + e.Msg }

// LoadFile reads, decodes, defaults and validates a scenario file. On any
// problem it returns Problems listing all of them. Files larger than
// MaxFileBytes are refused unread. The store options of target: are
// checked when the target opens; LoadFileWith checks them here too.
func LoadFile(path string) (*Scenario, error) { return LoadFileWith(path, nil) }

// LoadFileWith is LoadFile with the store options of target: checked by
// the adapters in stores (targets.LoadScenario passes the registry).
func LoadFileWith(path string, stores Stores) (*Scenario, error) {
	data, err := ReadFileCapped(path)
	if err != nil {
		return nil, Problems{{File: path, Msg: err.Error()}}
	}
	return ParseWith(path, data, stores)
}

// ReadFileCapped reads at most MaxFileBytes of path; a longer file is an
// error (its contents are never quoted).
func ReadFileCapped(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, errTooLarge
	}
	return data, nil
}

var errTooLarge = fmt.Errorf("file is larger than %d bytes (4 MB), the cap for scenario and config files", MaxFileBytes)

// Parse decodes data (named file in messages) strictly: unknown keys,
// wrong types and failed validation are all reported, each with its
// line; target:'s store options are checked when the target opens.
func Parse(file string, data []byte) (*Scenario, error) { return ParseWith(file, data, nil) }

// ParseWith is Parse with target:'s store options checked by the
// adapters in stores too (nil: as Parse), here and by every later
// Validate of the scenario.
func ParseWith(file string, data []byte, stores Stores) (*Scenario, error) {
	sc, err := parse(file, data, stores)
	var ps Problems
	if errors.As(err, &ps) && len(ps) > MaxProblems {
		// The first MaxProblems by line say what is wrong; thousands of
		// lines (a point list's every entry) only bury them.
		n := len(ps) - MaxProblems
		ps = append(ps[:MaxProblems:MaxProblems], Problem{File: file, Msg: fmt.Sprintf("... and %d more problems", n)})
		err = ps
	}
	return sc, err
}

// MaxProblems is how many problems Parse lists for one file.
const MaxProblems = 100

func parse(file string, data []byte, stores Stores) (*Scenario, error) {
	if probs := precheck(file, data); len(probs) > 0 {
		return nil, probs
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Problems{{File: file, Msg: "empty scenario file"}}
		}
		return nil, Problems{syntaxProblem(file, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Problems{{File: file, Line: extra.Line, Msg: "more than one YAML document; a scenario file holds one"}}
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return nil, Problems{{File: file, Line: doc.Line, Msg: "a scenario must be a mapping (name:, target:, phases: ...)"}}
	}
	if probs := checkWidth(file, doc); len(probs) > 0 {
		return nil, probs
	}

	var sc Scenario
	var probs Problems
	// Decode a second time with KnownFields so unknown keys are errors;
	// yaml.v3 collects every type/unknown-field error before returning,
	// skipping unknown keys and leaving mistyped fields zero, so the
	// decoded scenario is still validated and a file's unknown keys and
	// bad values are reported in one pass (FieldProblems leaves out the
	// follow-on problems of a mistyped field).
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&sc); err != nil {
		probs = decodeProblems(file, err)
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			// The decoder stopped part way: nothing after it is known.
			sortProblems(probs)
			return nil, probs
		}
	}
	for i := range sc.Phases {
		probs = append(probs, sc.Phases[i].decodeProblems(file, i)...)
	}
	sc.File = file
	sc.Target.Client.file = file
	sc.stores = stores
	if err := sc.decodeForms(); err != nil {
		probs = append(probs, decodeProblems(file, err)...)
	}
	var fes []FieldError
	// concurrency: 0 written out is a mistake, not "use the default".
	for i, p := range sc.Phases {
		if path := fmt.Sprintf("phases[%d].concurrency", i); p.Concurrency == 0 && hasPath(doc, path) {
			fes = append(fes, FieldError{Path: path, Msg: fmt.Sprintf("must be at least 1 and at most %d (omit it for the default %d), got 0", MaxConcurrency, DefaultConcurrency)})
		}
	}
	sc.ApplyDefaults()
	fes = append(fes, sc.Validate()...)
	probs = append(probs, FieldProblems(file, doc, probs, fes)...)
	if len(probs) > 0 {
		nameNumberFields(doc, probs)
		sortProblems(probs)
		return nil, probs
	}
	sc.doc = doc
	return &sc, nil
}

var lineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// parserProblems are the messages of yaml.v3's parser (as opposed to
// its scanner's): for them yaml.v3 reports the 0-based line of the
// construct being parsed (the flow mapping, the block list...), one less
// than its line in the file, and no line at all when that is the first.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

func syntaxProblem(file string, err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if parserProblems[m[2]] {
			n++
		}
		return Problem{File: file, Line: n, Msg: m[2]}
	}
	if parserProblems[msg] {
		return Problem{File: file, Line: 1, Msg: msg}
	}
	return Problem{File: file, Msg: msg}
}

func decodeProblems(file string, err error) Problems {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		out := make(Problems, 0, len(te.Errors))
		for _, e := range te.Errors {
			p := syntaxProblem(file, errors.New(e))
			p.Msg = friendlier(p.Msg)
			out = append(out, p)
		}
		return out
	}
	return Problems{syntaxProblem(file, err)}
}

var notFoundRE = regexp.MustCompile(`^field (\S+) not found in type (\w+\.(\w+))$`)

// notNumberRE matches yaml.v3's error for a string where a number goes
// ("cannot unmarshal !!str `5k` into float64").
var notNumberRE = regexp.MustCompile("^cannot unmarshal !!str `([^`]*)` into (u?int(?:8|16|32|64)?|float(?:32|64))$")

// friendlier rewrites yaml.v3's Go-flavoured messages into scenario terms.
func friendlier(msg string) string {
	if m := notFoundRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown key %q in %s%s", m[1], strings.ToLower(m[3]), keyHint(m[1], m[2]))
	}
	if m := notNumberRE.FindStringSubmatch(msg); m != nil {
		return notANumber(m[1], strings.HasPrefix(m[2], "float"))
	}
	msg = strings.ReplaceAll(msg, "!!str", "a string")
	msg = strings.ReplaceAll(msg, "!!int", "an integer")
	msg = strings.ReplaceAll(msg, "!!float", "a number")
	msg = strings.ReplaceAll(msg, "!!map", "a mapping")
	msg = strings.ReplaceAll(msg, "!!seq", "a list")
	return msg
}

func sortProblems(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
}

// checkWidth refuses any mapping with more than MaxMappingKeys keys
// before the strict decode: yaml.v3 compares a mapping's keys pairwise
// for duplicates, so one wide mapping made decoding quadratic. It walks
// the node tree once.
func checkWidth(file string, n *yaml.Node) Problems {
	var probs Problems
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.MappingNode && len(n.Content)/2 > MaxMappingKeys {
			probs = append(probs, Problem{File: file, Line: n.Line,
				Msg: fmt.Sprintf("a mapping with %d keys; a mapping holds at most %d", len(n.Content)/2, MaxMappingKeys)})
			continue
		}
		if n.Kind == yaml.SequenceNode && len(n.Content) > MaxListItems {
			// Refused before the strict decode builds a value per item.
			probs = append(probs, Problem{File: file, Line: n.Line,
				Msg: fmt.Sprintf("a list with %d items; a list holds at most %d (a sweep's points, a ramp's steps)", len(n.Content), MaxListItems)})
			continue
		}
		if n.Kind != yaml.AliasNode {
			stack = append(stack, n.Content...)
		}
	}
	sortProblems(probs)
	return probs
}

// mistypedPaths returns the dotted paths of the fields whose values a
// decode problem (other than an unknown key) is about: every key, and
// every scalar value, on the problem's line (a block mapping or list
// starts on its first entry's line, so it is named only by its key). In
// flow style (`{rate: x, to: 5}`) that is more than the one field, which
// only leaves out more follow-on problems.
func mistypedPaths(doc *yaml.Node, probs Problems) []string {
	lines := map[int]bool{}
	for _, p := range probs {
		// A key problem (unknown, another phase kind's: they carry
		// their field) leaves the key out; no field was zeroed.
		if p.Line > 0 && p.Field == "" && !strings.HasPrefix(p.Msg, "unknown key ") {
			lines[p.Line] = true
		}
	}
	if len(lines) == 0 {
		return nil
	}
	var out []string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if lines[k.Line] || (v.Kind == yaml.ScalarNode && lines[v.Line]) {
					out = append(out, p)
				}
				walk(v, p)
			}
		case yaml.SequenceNode:
			for i, v := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				if v.Kind == yaml.ScalarNode && lines[v.Line] {
					out = append(out, p)
				}
				walk(v, p)
			}
		}
	}
	walk(doc, "")
	return out
}

// relatedPaths says whether one dotted path is the other or lies inside it.
func relatedPaths(a, b string) bool {
	inside := func(x, y string) bool {
		return x == y || strings.HasPrefix(x, y+".") || strings.HasPrefix(x, y+"[")
	}
	return inside(a, b) || inside(b, a)
}

// hasPath says whether the dotted path exists in doc.
func hasPath(doc *yaml.Node, path string) bool {
	n := doc
	for _, part := range splitPath(path) {
		switch {
		case part.index >= 0:
			if n.Kind != yaml.SequenceNode || part.index >= len(n.Content) {
				return false
			}
			n = n.Content[part.index]
		default:
			if n.Kind != yaml.MappingNode {
				return false
			}
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == part.key {
					next = n.Content[i+1]
					break
				}
			}
			if next == nil {
				return false
			}
			n = next
		}
	}
	return true
}

// lineOf finds the line of the node at a dotted path like
// "phases[1].mix.read"; it falls back to the deepest node that exists.
func lineOf(doc *yaml.Node, path string) int {
	n := doc
	line := doc.Line
	for _, part := range splitPath(path) {
		if n == nil {
			break
		}
		switch {
		case part.index >= 0:
			if n.Kind != yaml.SequenceNode || part.index >= len(n.Content) {
				return line
			}
			n = n.Content[part.index]
			line = n.Line
		default:
			if n.Kind != yaml.MappingNode {
				return line
			}
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == part.key {
					next = n.Content[i+1]
					line = n.Content[i].Line
					break
				}
			}
			if next == nil {
				return line
			}
			n = next
		}
	}
	return line
}

type pathPart struct {
	key   string
	index int
}

func splitPath(path string) []pathPart {
	var out []pathPart
	for _, seg := range strings.Split(path, ".") {
		if seg == "" {
			continue
		}
		for seg != "" {
			open := strings.IndexByte(seg, '[')
			if open < 0 {
				out = append(out, pathPart{key: seg, index: -1})
				break
			}
			if open > 0 {
				out = append(out, pathPart{key: seg[:open], index: -1})
			}
			end := strings.IndexByte(seg[open:], ']')
			if end < 0 {
				out = append(out, pathPart{key: seg[open:], index: -1})
				break
			}
			i, err := strconv.Atoi(seg[open+1 : open+end])
			if err != nil {
				i = 0
			}
			out = append(out, pathPart{index: i})
			seg = seg[open+end+1:]
		}
	}
	return out
}

// UnmarshalYAML decodes "30s" style durations.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeErr(n, "expected a duration such as 30s")
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return typeErr(n, err.Error())
	}
	*d = v
	return nil
}

// UnmarshalYAML decodes "512mb" style sizes.
func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeErr(n, "expected a size such as 512mb")
	}
	v, err := ParseBytes(n.Value)
	if err != nil {
		return typeErr(n, err.Error())
	}
	*b = v
	return nil
}

// typeErr returns a *yaml.TypeError so the decoder keeps going and
// reports this problem together with all the others.
func typeErr(n *yaml.Node, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, msg)}}
}
