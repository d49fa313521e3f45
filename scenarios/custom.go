package scenarios

import (
	"fmt"
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
// template for each store kind it supports.
type CustomOp struct {
	Redis    *RedisTemplate   `yaml:"redis"`
	Mongo    *MongoTemplate   `yaml:"mongo"`
	Elastic  *ElasticTemplate `yaml:"elastic"`
	CQL      *CQLTemplate     `yaml:"cql"`
	MissWhen MissRule         `yaml:"miss_when"`
	// MaxBytes caps one rendered value (an argument, a key); a template
	// that could render more is refused at validate (default 1mb).
	MaxBytes Bytes `yaml:"max_bytes"`
}

// DefaultCustomMaxBytes is a custom op's default max_bytes.
const DefaultCustomMaxBytes = 1 << 20

// RedisTemplate is a custom op's redis form, one of:
//
//	[HINCRBY, "cart:{user}", "sku{int:1:50}", "1"]       # a command
//	{script: "return ...", keys: ["{key}"], args: ["5"]}  # Lua, EVALSHA
//	{multi: [[SET, "{key}", "v"], [EXPIRE, "{key}", "60"]]} # MULTI/EXEC
type RedisTemplate struct {
	Command []string
	Script  string
	Keys    []string
	Args    []string
	Multi   [][]string
}

// UnmarshalYAML decodes the list form or the mapping form, strictly.
func (t *RedisTemplate) UnmarshalYAML(n *yaml.Node) error {
	bad := func(line int, format string, args ...any) error {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, args...))}}
	}
	strs := func(n *yaml.Node, what string) ([]string, error) {
		if n.Kind != yaml.SequenceNode {
			return nil, bad(n.Line, "%s must be a list of strings", what)
		}
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, bad(c.Line, "%s must be a list of strings", what)
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		cmd, err := strs(n, "a redis command")
		t.Command = cmd
		return err
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			var err error
			switch k.Value {
			case "script":
				if v.Kind != yaml.ScalarNode {
					return bad(v.Line, "redis.script must be the Lua source as a string")
				}
				t.Script = v.Value
			case "keys":
				t.Keys, err = strs(v, "redis.keys")
			case "args":
				t.Args, err = strs(v, "redis.args")
			case "multi":
				if v.Kind != yaml.SequenceNode {
					return bad(v.Line, "redis.multi must be a list of commands")
				}
				for _, c := range v.Content {
					cmd, err := strs(c, "each command of redis.multi")
					if err != nil {
						return err
					}
					t.Multi = append(t.Multi, cmd)
				}
			default:
				return bad(k.Line, "unknown key %q in a redis template (use script, keys, args or multi, or write the command as a list)", k.Value)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return bad(n.Line, "a redis template is a command list, or a mapping with script: or multi:")
}

// Templates lists the template strings of the redis form in the order
// the adapter sends them: the command's arguments; the script's keys then
// args; the multi's commands' arguments one command after another.
func (t *RedisTemplate) Templates() []string {
	switch {
	case t.Script != "":
		return slices.Concat(t.Keys, t.Args)
	case len(t.Multi) > 0:
		return slices.Concat(t.Multi...)
	}
	return t.Command
}

// templatePaths are the YAML paths of Templates' strings, for messages.
func (t *RedisTemplate) templatePaths(pp string) []string {
	var out []string
	switch {
	case t.Script != "":
		for i := range t.Keys {
			out = append(out, fmt.Sprintf("%s.keys[%d]", pp, i))
		}
		for i := range t.Args {
			out = append(out, fmt.Sprintf("%s.args[%d]", pp, i))
		}
	case len(t.Multi) > 0:
		for i, c := range t.Multi {
			for range c {
				out = append(out, fmt.Sprintf("%s.multi[%d]", pp, i))
			}
		}
	default:
		for i := range t.Command {
			out = append(out, fmt.Sprintf("%s[%d]", pp, i))
		}
	}
	return out
}

// Commands lists the template's commands (the multi's, or the one
// command); a script has none.
func (t *RedisTemplate) Commands() [][]string {
	if len(t.Multi) > 0 {
		return t.Multi
	}
	if t.Command != nil {
		return [][]string{t.Command}
	}
	return nil
}

// Templates is the custom op's template strings for target kind k (see
// RedisTemplate.Templates), and false when the op has no form for k.
func (c *CustomOp) Templates(k TargetKind) ([]string, bool) {
	switch k {
	case KindRedis, KindEmbedded:
		if c.Redis != nil {
			return c.Redis.Templates(), true
		}
	case KindMongo:
		if c.Mongo != nil {
			return []string{c.Mongo.Command}, true
		}
	case KindElastic:
		if c.Elastic != nil {
			return []string{c.Elastic.Path, c.Elastic.Body}, true
		}
	case KindCQL:
		if c.CQL != nil {
			return c.CQL.Args, true
		}
	}
	return nil, false
}

// Kinds names the store kinds the op has a form for.
func (c *CustomOp) Kinds() []string {
	var out []string
	if c.Redis != nil {
		out = append(out, "redis")
	}
	if c.Mongo != nil {
		out = append(out, "mongo")
	}
	if c.Elastic != nil {
		out = append(out, "elastic")
	}
	if c.CQL != nil {
		out = append(out, "cql")
	}
	return out
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
