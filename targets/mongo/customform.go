package mongo

import (
	"encoding/json"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/scenarios"
)

// MongoTemplate is a custom op's mongo form: one database command as
// extended JSON, with placeholders, run on the scenario's database
// (client.database), e.g.
//
//	{command: '{"find": "carts", "filter": {"user": "{user}"}, "limit": 1}'}
//	{command: '{"update": "carts", "updates": [{"q": {"_id": "{key}"}, "u": {"$inc": {"n": 1}}, "upsert": true}]}'}
type MongoTemplate struct {
	Command string `yaml:"command"`
}

// mongoCommands are the commands a mongo custom op may run.
var mongoCommands = []string{"find", "aggregate", "count", "distinct", "insert", "update", "delete", "findAndModify"}

// mongoDestructive are the commands refused without allow_destructive.
var mongoDestructive = []string{"drop", "dropDatabase", "dropIndexes", "deleteIndexes", "renameCollection", "shutdown",
	"setParameter", "replSetReconfig", "replSetStepDown", "killOp", "killAllSessions", "fsync", "compact", "createIndexes"}

// MongoCommandName returns the command a rendered command document runs
// (its first key), "" when it is not a JSON object.
func MongoCommandName(doc string) string {
	dec := json.NewDecoder(strings.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	t, err := dec.Token()
	if err != nil {
		return ""
	}
	k, _ := t.(string)
	return k
}

// Check checks the mongo form: a command as JSON, one a custom op runs
// (or, with allow_destructive, a destructive one), no operator a value
// could name, and its max_bytes.
func (m *MongoTemplate) Check(c scenarios.CustomCheck) []scenarios.FieldError {
	var errs []scenarios.FieldError
	add := func(path, format string, args ...any) { scenarios.Add(&errs, path, format, args...) }
	s, name, pp, isBinding := c.Scenario, c.Name, c.Path, c.IsBinding
	if m.Command == "" {
		add(pp, "op %s: a mongo template needs command: (a database command as extended JSON)", name)
		return errs
	}
	segs, err := scenarios.ParseTemplate(m.Command, isBinding)
	if err != nil {
		add(pp+".command", "op %s: %v", name, err)
		return errs
	}
	checkMongoKeys(s, name, pp, segs, add)
	sample := scenarios.SampleRender(segs)
	if !json.Valid([]byte(sample)) {
		add(pp+".command", "op %s: the command is not valid JSON (with each placeholder as 0): %s", name, scenarios.JSONProblem(sample))
		return errs
	}
	cmd := MongoCommandName(sample)
	switch {
	case slices.Contains(mongoDestructive, cmd):
		if !s.AllowDestructive {
			add(pp+".command", "op %s: %s destroys data or reconfigures the server; refused unless the scenario says allow_destructive: true", name, cmd)
		}
	case !slices.Contains(mongoCommands, cmd):
		add(pp+".command", "op %s: command %q is not one a custom op runs (use %s)", name, cmd, strings.Join(mongoCommands, ", "))
	}
	if n := c.MaxLen(segs); n > int64(c.Op.MaxBytes) {
		add(pp+".command", "op %s: the command can render %d bytes, more than max_bytes (%d)", name, n, int64(c.Op.MaxBytes))
	}
	return errs
}

// checkMongoKeys refuses a placeholder that begins an object's key
// and whose value could begin with '$': rendered there, a value would name an
// operator ($where, $function...) the template does not. Values in
// strings are escaped as string content and bare values stay one
// scalar (datagen), so no other value can change the command.
func checkMongoKeys(s *scenarios.Scenario, name, pp string, segs []scenarios.Segment, add func(path, format string, args ...any)) {
	keyPrefix := s.Keyspace.Prefix
	if s.Record.KeyField != "" {
		keyPrefix = "" // keys are the corpus's: anything
	}
	binding := func(n string) (scenarios.Binding, bool) { b, ok := s.Bindings[n]; return b, ok }
	for i, start := range scenarios.JSONKeyStarts(segs) {
		if start && MayStartWithDollar(segs[i], keyPrefix, binding) {
			add(pp+".command", "op %s: placeholder %s is in a key and can render a name starting with '$' (an operator); put it in a value, or make every value it draws start otherwise", name, scenarios.PlaceholderName(segs[i]))
		}
	}
}

// MayStartWithDollar reports whether segment g, a placeholder, can
// render a value that begins with '$' (a mongo operator's name in a key):
// key is the keyspace's prefix and binding a named binding.
func MayStartWithDollar(g scenarios.Segment, keyPrefix string, binding func(name string) (scenarios.Binding, bool)) bool {
	switch g.Kind {
	case scenarios.GenKey:
		return keyPrefix == "" || keyPrefix[0] == '$'
	case scenarios.GenChoice:
		for _, c := range g.Choices {
			if strings.HasPrefix(c, "$") {
				return true
			}
		}
		return false
	case scenarios.GenBinding:
		b, ok := binding(g.Text)
		if !ok {
			return true
		}
		if b.Gen == "" {
			return strings.HasPrefix(b.Prefix, "$")
		}
		s, err := scenarios.ParseGenerator(b.Gen)
		return err != nil || MayStartWithDollar(s, keyPrefix, binding)
	case scenarios.GenCorpus:
		return true // a document's text: anything
	}
	return false // numbers, UUIDs, [A-Za-z0-9] bytes, words
}

// mongoReads are the mongo custom commands that never change data (an
// aggregate with $out or $merge writes).
var mongoReads = []string{"find", "aggregate", "count", "distinct"}

// ReadOnly: find, count, distinct and an aggregate without $out or
// $merge.
func (m *MongoTemplate) ReadOnly() bool {
	cmd := MongoCommandName(m.Command)
	if cmd == "" {
		// Placeholders may keep the raw template from parsing.
		segs, err := scenarios.ParseTemplate(m.Command, func(string) bool { return true })
		if err != nil {
			return false
		}
		cmd = MongoCommandName(scenarios.SampleRender(segs))
	}
	if cmd == "aggregate" && (strings.Contains(m.Command, `"$out"`) || strings.Contains(m.Command, `"$merge"`)) {
		return false
	}
	return slices.Contains(mongoReads, cmd)
}

// Templates: the command.
func (m *MongoTemplate) Templates() []string { return []string{m.Command} }

// Places: the command is JSON.
func (m *MongoTemplate) Places(_ int, segs []scenarios.Segment) []scenarios.Place {
	return scenarios.JSONPlaces(segs)
}

// customFormat decodes the mongo form.
type customFormat struct{}

func (customFormat) Decode(n *yaml.Node) (scenarios.CustomForm, error) {
	m := &MongoTemplate{}
	return m, scenarios.DecodeNode(n, m)
}
