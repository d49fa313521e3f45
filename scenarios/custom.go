package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Binding is a named value several templates share: {user} in
// "cart:{user}". Within one op every {user} is the same value, drawn
// once per op. A binding is either a record number drawn from a key
// distribution (key:) or one generator (gen:, e.g. "int:1:50").
type Binding struct {
	// Key is the distribution the record number is drawn from.
	Key Distribution `yaml:"key"`
	// Records is the binding's own keyspace size (default
	// keyspace.records).
	Records     int64   `yaml:"records"`
	Prefix      string  `yaml:"prefix"` // text before the number
	HotFraction float64 `yaml:"hot_fraction"`
	HotOps      float64 `yaml:"hot_ops"`
	ZipfTheta   float64 `yaml:"zipf_theta"`
	// Gen is a generator placeholder's body, such as "int:1:50" or
	// "choice:red,green".
	Gen string `yaml:"gen"`
}

// Keyspace is the keyspace a key binding draws record numbers from.
func (b Binding) Keyspace() Keyspace {
	return Keyspace{Records: b.Records, Distribution: b.Key, HotFraction: b.HotFraction, HotOps: b.HotOps, ZipfTheta: b.ZipfTheta}
}

// MissRule says which reply of a custom op counts as a miss: an
// outcome, not an error (miss_when).
type MissRule string

// Miss rules.
const (
	MissNever MissRule = ""      // every non-error reply is a success
	MissNil   MissRule = "nil"   // a nil reply (redis nil bulk or array)
	MissZero  MissRule = "zero"  // the integer 0 (EXISTS, DEL, ZINCRBY's absent counters...)
	MissEmpty MissRule = "empty" // nil, an empty array, map or string
)

// CustomOp is one entry of a scenario's ops: a named operation with a
// form for each store family it supports (ops.<name>.<family>: redis,
// mongo, ...), decoded by the family's CustomFormat (family.go).
type CustomOp struct {
	MissWhen MissRule `yaml:"miss_when"`
	// MaxBytes caps one rendered value (an argument, a key); a template
	// that could render more is refused at validate (default 1mb).
	MaxBytes Bytes `yaml:"max_bytes"`
	// forms are the op's forms in file order.
	forms []opForm
	// stores are those the forms were decoded with (their families).
	stores Stores
}

// opForm is one form of a custom op: its family's key, the node as
// written and, once decoded, the family's form of it.
type opForm struct {
	family string
	key    *yaml.Node
	node   *yaml.Node
	form   CustomForm
}

// DefaultCustomMaxBytes is a custom op's default max_bytes.
const DefaultCustomMaxBytes = 1 << 20

// UnmarshalYAML decodes the shared keys and keeps each other key's node,
// a family's form, for decodeForms.
func (c *CustomOp) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		what := n.ShortTag()
		if n.Kind == yaml.ScalarNode {
			what += " `" + n.Value + "`"
		}
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: cannot unmarshal %s into scenarios.CustomOp", n.Line, what)}}
	}
	var errs []string
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if at, dup := seen[k.Value]; dup {
			errs = append(errs, fmt.Sprintf("line %d: mapping key %q already defined at line %d", k.Line, k.Value, at))
			continue
		}
		seen[k.Value] = k.Line
		var err error
		switch k.Value {
		case "miss_when":
			err = v.Decode(&c.MissWhen)
		case "max_bytes":
			err = v.Decode(&c.MaxBytes)
		default:
			c.forms = append(c.forms, opForm{family: k.Value, key: k, node: v})
		}
		var te *yaml.TypeError
		switch {
		case errors.As(err, &te):
			errs = append(errs, te.Errors...)
		case err != nil:
			return err
		}
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// MarshalYAML writes the op as it was read, each family of the stores
// the op was read with in their order (null where it has no form), then
// the shared keys: what Scenario.Hash hashes.
func (c *CustomOp) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v any) error {
		var vn yaml.Node
		if err := vn.Encode(v); err != nil {
			return err
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &vn)
		return nil
	}
	for _, name := range c.families() {
		var v any
		if f, ok := c.Form(name); ok {
			v = f
		} else if i := c.formIndex(name); i >= 0 {
			v = c.forms[i].node
		}
		if err := add(name, v); err != nil {
			return nil, err
		}
	}
	if err := add("miss_when", c.MissWhen); err != nil {
		return nil, err
	}
	if err := add("max_bytes", c.MaxBytes); err != nil {
		return nil, err
	}
	return m, nil
}

// families lists the families of the op's stores, then any family the
// op names that they lack.
func (c *CustomOp) families() []string {
	out := familyNames(c.stores)
	for _, f := range c.forms {
		if !slices.Contains(out, f.family) {
			out = append(out, f.family)
		}
	}
	return out
}

func (c *CustomOp) formIndex(family string) int {
	for i, f := range c.forms {
		if f.family == family {
			return i
		}
	}
	return -1
}

// Form returns the op's form for the family of that name (false when it
// has none, or it was not decoded: no store of the family is known).
func (c *CustomOp) Form(family string) (CustomForm, bool) {
	if i := c.formIndex(family); i >= 0 && c.forms[i].form != nil {
		return c.forms[i].form, true
	}
	return nil, false
}

// FormFor returns the op's form for target kind k, through the family
// its store declares.
func (c *CustomOp) FormFor(k TargetKind) (CustomForm, bool) {
	if c.stores == nil {
		return nil, false
	}
	st, ok := c.stores.Store(k)
	if !ok {
		return nil, false
	}
	return c.Form(st.Family)
}

// WithForm returns a copy of c with form f for family (a test's or an
// adapter's op built in code).
func (c CustomOp) WithForm(family string, f CustomForm) *CustomOp {
	c.forms = append(slices.Clip(c.forms), opForm{family: family, form: f})
	return &c
}

// WithStores returns c reading families through stores (FormFor).
func (c CustomOp) WithStores(stores Stores) *CustomOp {
	c.stores = stores
	return &c
}

// Templates is the custom op's template strings for target kind k (see
// CustomForm.Templates), and false when the op has no form for k.
func (c *CustomOp) Templates(k TargetKind) ([]string, bool) {
	f, ok := c.FormFor(k)
	if !ok {
		return nil, false
	}
	return f.Templates(), true
}

// ReadOnly reports whether the op's form for target kind k only reads
// (CustomForm.ReadOnly); an op without a form for k does not.
func (c *CustomOp) ReadOnly(k TargetKind) bool {
	f, ok := c.FormFor(k)
	return ok && f.ReadOnly()
}

// familyTemplates is the template strings of the op's form for family
// name (nil: it has none decoded).
func (c *CustomOp) familyTemplates(name string) []string {
	if f, ok := c.Form(name); ok {
		return f.Templates()
	}
	return nil
}

// Kinds names the store families the op has a form for, in the stores'
// order.
func (c *CustomOp) Kinds() []string {
	var out []string
	for _, name := range c.families() {
		if c.formIndex(name) >= 0 {
			out = append(out, name)
		}
	}
	return out
}

// decodeForms decodes each op's forms with the families of the
// scenario's stores (familyStores): a key no family of the stores it
// was read with takes is an unknown key, as it was for the decoder. Read
// with plain Parse, only a key close to one the op takes is (a typo):
// any other may be the form of a family the binary does not link, and
// stays undecoded and unchecked, as target: is until the target opens
// (and so do all forms when no store is linked).
func (s *Scenario) decodeForms() error {
	stores := s.familyStores()
	var errs []string
	for _, name := range s.customOpNames() {
		c := s.Ops[name]
		if c == nil {
			continue
		}
		c.stores = stores
		if stores == nil {
			continue
		}
		for i := range c.forms {
			f := &c.forms[i]
			if f.node == nil {
				continue
			}
			format, ok := familyFormat(stores, f.family)
			if !ok {
				keys := append([]string{"miss_when", "max_bytes"}, familyNames(stores)...)
				hint := didYouMean(f.family, keys)
				if s.stores == nil && hint == "" {
					continue // plain Parse: the form of a family this binary may not link, left unread
				}
				errs = append(errs, fmt.Sprintf("line %d: unknown key %q in customop%s", f.key.Line, f.family, hint))
				continue
			}
			form, err := format.Decode(f.node)
			f.form = form
			var te *yaml.TypeError
			switch {
			case errors.As(err, &te):
				errs = append(errs, te.Errors...)
			case err != nil:
				errs = append(errs, fmt.Sprintf("line %d: %v", f.node.Line, err))
			}
		}
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// DecodeNode decodes n into v, a pointer to a form's struct, with keys v
// has no field for as errors (in yaml.v3's words, for the messages of
// unknown keys): a family's Decode for a plain mapping form.
func DecodeNode(n *yaml.Node, v any) error {
	t := reflect.TypeOf(v)
	errs := unknownKeys(n, t)
	if len(errs) > 0 {
		learnKeys(t)
	}
	err := n.Decode(v)
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		// A form's type is named as the scenario's own types are
		// ("into scenarios.MongoTemplate"), wherever its store keeps it.
		st := t
		for st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		for _, e := range te.Errors {
			errs = append(errs, strings.ReplaceAll(e, "into "+st.String(), "into scenarios."+st.Name()))
		}
	case err != nil:
		return err
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// CustomOps returns each of the scenario's custom ops by its Op in the
// scenario's table (OpTable).
func (s *Scenario) CustomOps() (map[Op]*CustomOp, error) {
	t, err := s.OpTable()
	if err != nil {
		return nil, err
	}
	out := make(map[Op]*CustomOp, len(s.Ops))
	for name, c := range s.Ops {
		o, _ := t.Lookup(name)
		out[o] = c
	}
	return out, nil
}

// knownOp reports whether name is a built-in op or one of the
// scenario's ops.
func (s *Scenario) knownOp(name string) bool {
	if _, ok := parseBuiltinOp(name); ok {
		return true
	}
	_, ok := s.Ops[name]
	return ok
}

// customOpNames lists the scenario's custom op names, sorted.
func (s *Scenario) customOpNames() []string {
	names := make([]string, 0, len(s.Ops))
	for n := range s.Ops {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// knownOpsText is the list of op names a mix may use, for messages.
func (s *Scenario) knownOpsText() string {
	return strings.Join(slices.Concat(OpNames(), s.customOpNames()), ", ")
}
