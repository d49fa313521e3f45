package resp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"gopkg.in/yaml.v3"
)

// Template is a custom op's redis form, one of:
//
//	[HINCRBY, "cart:{user}", "sku{int:1:50}", "1"]       # a command
//	{script: "return ...", keys: ["{key}"], args: ["5"]}  # Lua, EVALSHA
//	{multi: [[SET, "{key}", "v"], [EXPIRE, "{key}", "60"]]} # MULTI/EXEC
type Template struct {
	Command []string
	Script  string
	Keys    []string
	Args    []string
	Multi   [][]string
}

// UnmarshalYAML decodes the list form or the mapping form, strictly.
func (t *Template) UnmarshalYAML(n *yaml.Node) error {
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
func (t *Template) Templates() []string {
	switch {
	case t.Script != "":
		return slices.Concat(t.Keys, t.Args)
	case len(t.Multi) > 0:
		return slices.Concat(t.Multi...)
	}
	return t.Command
}

// templatePaths are the YAML paths of Templates' strings, for messages.
func (t *Template) templatePaths(pp string) []string {
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
func (t *Template) Commands() [][]string {
	if len(t.Multi) > 0 {
		return t.Multi
	}
	if t.Command != nil {
		return [][]string{t.Command}
	}
	return nil
}

// Places: a RESP command's arguments are separate values, sent raw.
func (t *Template) Places(int, []scenarios.Segment) []scenarios.Place { return nil }

// reads are the redis commands that never change data.
var reads = []string{
	"GET", "MGET", "GETRANGE", "STRLEN", "EXISTS", "TYPE", "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME",
	"HGET", "HMGET", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS", "HSTRLEN", "HRANDFIELD", "HSCAN",
	"LRANGE", "LINDEX", "LLEN", "LPOS",
	"SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SRANDMEMBER", "SINTER", "SUNION", "SDIFF", "SINTERCARD", "SSCAN",
	"ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZSCORE",
	"ZMSCORE", "ZRANK", "ZREVRANK", "ZCARD", "ZCOUNT", "ZLEXCOUNT", "ZRANDMEMBER", "ZSCAN", "ZINTER", "ZUNION", "ZDIFF", "ZINTERCARD",
	"XRANGE", "XREVRANGE", "XLEN", "XPENDING", "XINFO",
	"GETBIT", "BITCOUNT", "BITPOS", "PFCOUNT", "GEOPOS", "GEODIST", "GEOHASH", "GEOSEARCH", "GEORADIUS_RO", "GEORADIUSBYMEMBER_RO",
	"SCAN", "DBSIZE", "RANDOMKEY", "OBJECT", "MEMORY", "DUMP", "PING", "ECHO", "TIME", "INFO",
	"FT.SEARCH", "FT.AGGREGATE", "FT.INFO", "JSON.GET", "JSON.MGET", "JSON.TYPE", "JSON.STRLEN", "JSON.ARRLEN", "JSON.OBJKEYS",
	"EVALSHA_RO", "EVAL_RO", "FCALL_RO", "SORT_RO", "LCS", "SUBSTR",
}

// ReadOnly: every command (of a multi) is on the read list (GET,
// HGETALL, ZRANGE, ...); a script is not.
func (t *Template) ReadOnly() bool {
	if t.Script != "" {
		return false
	}
	cmds := t.Commands()
	for _, cmd := range cmds {
		if len(cmd) == 0 || !slices.Contains(reads, strings.ToUpper(cmd[0])) {
			return false
		}
	}
	return len(cmds) > 0
}

// format decodes the redis form (Template.UnmarshalYAML).
type format struct{}

func (format) Decode(n *yaml.Node) (scenarios.CustomForm, error) {
	t := &Template{}
	return t, t.UnmarshalYAML(n)
}
