package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ClientCommon are the target.client options every store's adapter
// takes. The rest of the block belongs to the target kind's adapter
// (StoreSchema), which decodes its own keys from it (Client.Decode).
type ClientCommon struct {
	PoolSize     int      `yaml:"pool_size,omitempty"`
	DialTimeout  Duration `yaml:"dial_timeout,omitempty"`
	ReadTimeout  Duration `yaml:"read_timeout,omitempty"`
	WriteTimeout Duration `yaml:"write_timeout,omitempty"`
	MaxBatch     int      `yaml:"max_batch,omitempty"` // pipelining/bulk size where the adapter batches
}

// Client is a target's client: block: the options every adapter takes,
// decoded, and the block as written, which the adapter of the target's
// kind decodes into its own options (Decode) and checks (StoreSchema).
type Client struct {
	ClientCommon
	node *yaml.Node
	file string // the scenario file, for problems found after parsing
}

// UnmarshalYAML keeps the block and decodes the shared options; keys
// are checked against the target kind's adapter at validation.
func (c *Client) UnmarshalYAML(n *yaml.Node) error {
	c.node = n
	return n.Decode(&c.ClientCommon)
}

// ClientOf builds a client: block as a scenario file would give it:
// the shared options and own, a store's own options (a struct with
// yaml tags; nil for none).
func ClientOf(common ClientCommon, own any) Client {
	var n yaml.Node
	if err := n.Encode(common); err != nil {
		panic("scenarios.ClientOf: " + err.Error())
	}
	if own != nil {
		var o yaml.Node
		if err := o.Encode(own); err != nil || o.Kind != yaml.MappingNode {
			panic(fmt.Sprintf("scenarios.ClientOf: %T is not a mapping (%v)", own, err))
		}
		n.Content = append(n.Content, o.Content...)
	}
	var c Client
	_ = c.UnmarshalYAML(&n) // common's own values decode
	return c
}

// Keys lists the keys the block holds, in file order.
func (c Client) Keys() []string {
	if c.node == nil || c.node.Kind != yaml.MappingNode {
		return nil
	}
	keys := make([]string, 0, len(c.node.Content)/2)
	for i := 0; i+1 < len(c.node.Content); i += 2 {
		keys = append(keys, c.node.Content[i].Value)
	}
	return keys
}

// Decode decodes the block into v, a pointer to a store's own options
// (a struct with a yaml-tagged field per key). Keys v lacks are left to
// CheckStore (ClientCommon's are in Client itself); each value of the
// wrong type is a FieldError on its key (target.client.<key>).
func (c Client) Decode(v any) []FieldError {
	if c.node == nil {
		return nil
	}
	err := c.node.Decode(v)
	if err == nil {
		return nil
	}
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []FieldError{{Path: "target.client", Msg: err.Error()}}
	}
	out := make([]FieldError, 0, len(te.Errors))
	for _, e := range te.Errors {
		path, msg := "target.client", e
		if rest, ok := strings.CutPrefix(e, "line "); ok {
			if n, m, ok := strings.Cut(rest, ": "); ok {
				line, _ := strconv.Atoi(n)
				path, msg = c.pathAt(line), m
			}
		}
		out = append(out, FieldError{Path: path, Msg: friendlier(unquoted(msg))})
	}
	return out
}

// unquoted leaves out the value yaml.v3 quotes in a type error
// ("cannot unmarshal !!str `abc` into int"), as the daemon leaves out
// what a problem would quote of a file.
func unquoted(msg string) string {
	before, rest, ok := strings.Cut(msg, "`")
	if !ok {
		return msg
	}
	if _, after, ok := strings.Cut(rest, "` "); ok {
		return before + after
	}
	return msg
}

// pathAt names the key of the block on line (target.client when none
// is, or the block has no lines: one built by ClientOf).
func (c Client) pathAt(line int) string {
	if line > 0 && c.node.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(c.node.Content); i += 2 {
			if k, v := c.node.Content[i], c.node.Content[i+1]; k.Line == line || v.Line == line {
				return "target.client." + k.Value
			}
		}
	}
	return "target.client"
}

// Problems places problems found in the block (paths from target.client)
// at their lines in the scenario file, for the adapter's errors at open.
func (c Client) Problems(fes []FieldError) Problems {
	out := make(Problems, 0, len(fes))
	for _, fe := range fes {
		p := Problem{File: c.file, Field: fe.Path, Msg: fe.Msg}
		if rest, ok := strings.CutPrefix(fe.Path, "target.client"); ok && c.node != nil {
			p.Line = lineOf(c.node, strings.TrimPrefix(rest, "."))
		}
		out = append(out, p)
	}
	return out
}

// commonKeys are ClientCommon's keys, in the order messages name them.
func commonKeys() []string {
	return []string{"pool_size", "dial_timeout", "read_timeout", "write_timeout", "max_batch"}
}

// problems checks the shared options (max_batch with the memory bounds,
// memory.go): each problem with its path.
func (c ClientCommon) problems() []FieldError {
	var errs []FieldError
	if c.PoolSize < 0 {
		errs = append(errs, FieldError{Path: "target.client.pool_size", Msg: "must not be negative"})
	}
	for _, p := range c.timeoutProblems() {
		errs = append(errs, FieldError{Path: p[0], Msg: p[1]})
	}
	return errs
}

// StoreSchema is how a store's adapter checks its part of a target:
// block. Package targets registers one with each kind's factory.
type StoreSchema interface {
	// ClientKeys lists the client: keys the store takes besides
	// ClientCommon's.
	ClientKeys() []string
	// CheckTarget decodes t.Client into the store's options
	// (Client.Decode) and checks them and t.URL, returning every
	// problem with its path from target: (target.client.mode,
	// target.url).
	CheckTarget(t Target) []FieldError
}

// CheckStore checks t's store options against the adapter registered
// for t.Kind: a client: key that store does not take (naming the store
// that does, if one does) and the adapter's own checks. A kind with no
// adapter in stores is checked when it is opened, not here.
func CheckStore(stores Stores, t Target) []FieldError {
	st, ok := stores.Store(t.Kind)
	if !ok || st.Schema == nil {
		return nil
	}
	schema := st.Schema
	var errs []FieldError
	known := append(commonKeys(), schema.ClientKeys()...)
	for _, k := range t.Client.Keys() {
		if slices.Contains(known, k) {
			continue
		}
		path := "target.client." + k
		if owners := keyOwners(stores, k); len(owners) > 0 {
			errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf("only %s target takes %s (this is %s target)", withArticle(orList(owners)), k, withArticle(string(t.Kind)))})
			continue
		}
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf("unknown key %q%s (%s target's client takes %s)", k, didYouMean(k, known), withArticle(string(t.Kind)), strings.Join(known, ", "))})
	}
	return append(errs, schema.CheckTarget(t)...)
}

// keyOwners lists the kinds (aliases left out) whose client: takes key,
// by name.
func keyOwners(stores Stores, key string) []string {
	var out []string
	for _, k := range stores.StoreKinds() {
		if st, ok := stores.Store(k); ok && st.Schema != nil && slices.Contains(st.Schema.ClientKeys(), key) {
			out = append(out, string(k))
		}
	}
	slices.Sort(out)
	return out
}

// withArticle puts "a" or "an" before a kind's name.
func withArticle(name string) string {
	if name != "" && strings.ContainsRune("aeio", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// validateClient checks target.client: the shared options, and the
// store's through the registry the scenario was parsed with (none: the
// adapter checks them when the target opens).
func (s *Scenario) validateClient() []FieldError {
	errs := s.Target.Client.problems()
	if s.stores != nil {
		errs = append(errs, CheckStore(s.stores, s.Target)...)
		if st, ok := s.stores.Store(s.Target.Kind); ok && len(errs) == 0 {
			if sc, ok := st.Schema.(ScenarioChecker); ok {
				errs = append(errs, sc.CheckScenario(s)...)
			}
		}
	}
	return errs
}

// ScenarioChecker is a StoreSchema that also checks the rest of a
// scenario against what its target's options say (redis in cluster
// mode: every custom op's keys in one hash slot), so validate refuses
// what the adapter's Prepare would.
type ScenarioChecker interface {
	CheckScenario(s *Scenario) []FieldError
}
