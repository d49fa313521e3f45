package mongo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"strings"
)

// mongoDialect: an op is one database command. In the op log,
//
//	{"ts": 1.5, "op": "find", "args": [{"find": "users", "filter": {"_id": "u1"}}]}
//
// op is the command's name and args its one command document, extended
// JSON (an object, or a string holding one), its first key the command,
// as MongoDB's profiler and logs print it. The group is the command's
// name in upper case (FIND, INSERT, FINDANDMODIFY), never one of soakd's
// own op names. key_prefix goes before the command's collection (the
// first key's value, when it is a string).
type mongoDialect struct{}

// mongoSkipped are commands that hang on state the captured session
// had (cursors, sessions, transactions, authentication): not replayed.
var mongoSkipped = []string{"getmore", "killcursors", "hello", "ismaster", "saslstart", "saslcontinue",
	"authenticate", "logout", "endsessions", "startsession", "refreshsessions", "killsessions",
	"committransaction", "aborttransaction"}

// mongoOtherCollections are stages and fields naming collections besides
// the command's own, which key_prefix does not remap.
var mongoOtherCollections = []string{`"$out"`, `"$merge"`, `"$lookup"`, `"$unionWith"`, `"$graphLookup"`}

func (mongoDialect) Check(op capture.Op, prefix string) (string, bool, error) {
	name := string(op.Args[0])
	if len(op.Args) != 2 {
		return "", false, fmt.Errorf(`mongo op %s: want "args": [the command document], got %d args`, name, len(op.Args)-1)
	}
	first, _, _, err := mongoFirstKey(op.Args[1])
	if err != nil {
		return "", false, fmt.Errorf("mongo op %s: args[0]: %v", name, err)
	}
	if !strings.EqualFold(first, name) {
		return "", false, fmt.Errorf("mongo op %s: the command document runs %q (its first key); op must name it", name, first)
	}
	group := strings.ToUpper(name)
	for _, s := range mongoSkipped {
		if strings.EqualFold(name, s) {
			return group, true, nil
		}
	}
	if prefix != "" {
		for _, c := range mongoOtherCollections {
			if bytes.Contains(op.Args[1], []byte(c)) {
				return "", false, fmt.Errorf("mongo op %s: %s names another collection, which key_prefix does not remap (replay without key_prefix, into a scratch database)", name, strings.Trim(c, `"`))
			}
		}
	}
	return group, false, nil
}

// Render's parts: the command document, its collection prefixed.
func (mongoDialect) Render(op capture.Op, prefix string, buf []byte, parts [][]byte) ([]byte, [][]byte) {
	if len(op.Args) < 2 {
		buf = append(buf, "{}"...)
		return buf, append(parts[:0], buf[len(buf)-2:])
	}
	doc := op.Args[1]
	start := len(buf)
	if _, vs, ve, err := mongoFirstKey(doc); err == nil && prefix != "" && vs >= 0 {
		var coll string
		if json.Unmarshal(doc[vs:ve], &coll) == nil {
			q, _ := json.Marshal(prefix + coll)
			buf = append(buf, doc[:vs]...)
			buf = append(buf, q...)
			buf = append(buf, doc[ve:]...)
			return buf, append(parts[:0], buf[start:len(buf):len(buf)])
		}
	}
	buf = append(buf, doc...)
	return buf, append(parts[:0], buf[start:len(buf):len(buf)])
}

// mongoFirstKey returns a command document's first key and where its
// value is in doc when it is a string (vs = -1 when not).
func mongoFirstKey(doc []byte) (key string, vs, ve int, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", -1, -1, errors.New("not a command document (a JSON object, extended JSON)")
	}
	t, err := dec.Token()
	if err != nil {
		return "", -1, -1, fmt.Errorf("not a command document: %v", err)
	}
	key, ok := t.(string)
	if !ok {
		return "", -1, -1, errors.New("an empty command document")
	}
	after := int(dec.InputOffset())
	v, err := dec.Token()
	if err != nil {
		return "", -1, -1, fmt.Errorf("not a command document: %v", err)
	}
	if _, isStr := v.(string); isStr {
		ve = int(dec.InputOffset())
		vs = after + bytes.IndexByte(doc[after:ve], '"')
	} else {
		vs, ve = -1, -1
	}
	// The whole document must be JSON.
	if !json.Valid(doc) {
		return "", -1, -1, errors.New("not a command document: not valid JSON")
	}
	return key, vs, ve, nil
}

// Family is the mongo family: the mongo form of a custom op and the
// replay of op logs of database commands.
var Family = &targets.Family{Name: "mongo", Custom: customFormat{}, Replay: replay{}}

// replay is the mongo replay dialect (mongoDialect) and its rules.
type replay struct{}

func (replay) Dialect() capture.Dialect { return mongoDialect{} }

func (replay) CheckReplay(sc *scenarios.Scenario, r *scenarios.ReplaySpec) []scenarios.FieldError {
	return sc.OpLogReplayProblems(r)
}

// Refusal: the commands a custom op may not run without
// allow_destructive.
func (replay) Refusal(sc *scenarios.Scenario, _ *scenarios.ReplaySpec, args []string) string {
	for _, c := range mongoDestructive {
		if strings.EqualFold(args[0], c) {
			return sc.DestructiveRefusal(c)
		}
	}
	return ""
}
