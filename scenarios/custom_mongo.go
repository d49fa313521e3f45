package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
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

// sampleRender renders segs with a stand-in value for each placeholder
// ("0", which fits a JSON string or number), for checking the JSON.
func sampleRender(segs []Segment) string {
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

func (s *Scenario) validateMongoTemplate(name, pp string, c *CustomOp, isBinding func(string) bool, maxLen func([]Segment) int64) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	m := c.Mongo
	if m.Command == "" {
		add(pp, "op %s: a mongo template needs command: (a database command as extended JSON)", name)
		return errs
	}
	segs, err := ParseTemplate(m.Command, isBinding)
	if err != nil {
		add(pp+".command", "op %s: %v", name, err)
		return errs
	}
	s.checkMongoKeys(name, pp, segs, add)
	sample := sampleRender(segs)
	if !json.Valid([]byte(sample)) {
		add(pp+".command", "op %s: the command is not valid JSON (with each placeholder as 0): %s", name, jsonError(sample))
		return errs
	}
	cmd := MongoCommandName(sample)
	switch {
	case contains(mongoDestructive, cmd):
		if !s.AllowDestructive {
			add(pp+".command", "op %s: %s destroys data or reconfigures the server; refused unless the scenario says allow_destructive: true", name, cmd)
		}
	case !contains(mongoCommands, cmd):
		add(pp+".command", "op %s: command %q is not one a custom op runs (use %s)", name, cmd, strings.Join(mongoCommands, ", "))
	}
	if n := maxLen(segs); n > int64(c.MaxBytes) {
		add(pp+".command", "op %s: the command can render %d bytes, more than max_bytes (%d)", name, n, int64(c.MaxBytes))
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonError says where s stops being JSON.
func jsonError(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return err.Error()
	}
	return "not JSON"
}

// checkMongoKeys refuses a placeholder that begins an object's key
// and whose value could begin with '$': rendered there, a value would name an
// operator ($where, $function...) the template does not. Values in
// strings are escaped as string content and bare values stay one
// scalar (datagen), so no other value can change the command.
func (s *Scenario) checkMongoKeys(name, pp string, segs []Segment, add func(path, format string, args ...any)) {
	keyPrefix := s.Keyspace.Prefix
	if s.Record.KeyField != "" {
		keyPrefix = "" // keys are the corpus's: anything
	}
	binding := func(n string) (Binding, bool) { b, ok := s.Bindings[n]; return b, ok }
	for i, start := range MongoKeyStarts(segs) {
		if start && MayStartWithDollar(segs[i], keyPrefix, binding) {
			add(pp+".command", "op %s: placeholder %s is in a key and can render a name starting with '$' (an operator); put it in a value, or make every value it draws start otherwise", name, segName(segs[i]))
		}
	}
}

// segName is how a placeholder is written, for messages.
func segName(g Segment) string {
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

// SampleRender is sampleRender for the targets: the template with "0"
// for each placeholder.
func SampleRender(segs []Segment) string { return sampleRender(segs) }
