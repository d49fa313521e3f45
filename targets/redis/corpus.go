package redis

import (
	"context"
	"encoding/json"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// corpusIndexArgs is FT.CREATE for a corpus's documents: its query
// fields as TEXT and num (the record number) to sort by, as the built-in
// search documents have.
func (t *Target) corpusIndexArgs(sc *scenarios.Scenario) []any {
	t.search.corpus = true
	t.search.fields = sc.SearchFields()
	var args []any
	switch t.search.mode {
	case searchFT1:
		args = []any{"FT.CREATE", t.search.index, "SCHEMA"}
	case searchHash:
		args = []any{"FT.CREATE", t.search.index, "ON", "HASH", "PREFIX", 1, sc.Keyspace.Prefix, "SCHEMA"}
	case searchJSON:
		args = []any{"FT.CREATE", t.search.index, "ON", "JSON", "PREFIX", 1, sc.Keyspace.Prefix, "SCHEMA"}
	}
	for _, f := range t.search.fields {
		if t.search.mode == searchJSON {
			args = append(args, "$."+f, "AS", f)
		} else {
			args = append(args, f)
		}
		args = append(args, "TEXT")
	}
	if t.search.mode == searchJSON {
		args = append(args, "$.num", "AS")
	}
	return append(args, "num", "NUMERIC", "SORTABLE")
}

// insertCorpus writes a corpus document searches see: its fields and
// num. A hash holds them flat, as the corpus package gives them; a JSON
// document keeps their types (numbers, booleans, nested objects and
// arrays as the file has them).
func (t *Target) insertCorpus(ctx context.Context, c cmdable, r *targets.Request, key string, fs []targets.Field, z *goredis.IntCmd) post {
	switch t.search.mode {
	case searchFT1:
		args := []any{"FT.ADD", t.search.index, key, "1.0", "REPLACE", "FIELDS", "num", r.KeyNum}
		return done2(c.Do(ctx, fieldArgs(args, fs)...), z)
	case searchJSON:
		m := make(map[string]any, len(fs)+1)
		for i := range fs {
			m[fs[i].Name] = jsonValue(&fs[i])
		}
		m["num"] = r.KeyNum
		b, _ := json.Marshal(m)
		return done2(c.Do(ctx, "JSON.SET", key, "$", string(b)), z)
	}
	return done2(c.HSet(ctx, key, fieldArgs([]any{"num", r.KeyNum}, fs)...), z)
}

// updateCorpusJSON writes the fields of a corpus document over a
// record's JSON document the way HSET writes them over a hash: each
// field at its path, added when the record lacks it, its JSON type kept;
// a record that is gone is made again from an empty object (NX) rather
// than failing the update. The commands go out in one pipeline.
func (t *Target) updateCorpusJSON(ctx context.Context, c cmdable, key string, fs []targets.Field) post {
	cmds := make([]goredis.Cmder, 0, len(fs)+1)
	cmds = append(cmds, c.Do(ctx, "JSON.SET", key, "$", "{}", "NX"))
	for i := range fs {
		v, _ := json.Marshal(jsonValue(&fs[i]))
		cmds = append(cmds, c.Do(ctx, "JSON.SET", key, jsonPath(fs[i].Name), v))
	}
	return post{cmds: cmds}
}

// jsonValue is a field as a JSON value: its JSON text when the corpus
// marked it so, else its text as a string.
func jsonValue(f *targets.Field) any {
	if f.JSON {
		return json.RawMessage(f.Value)
	}
	return string(f.Value)
}

// jsonPath is the JSONPath of a top-level field: $.name for a name of
// letters, digits and underscores (not starting with a digit), else the
// bracket form $["name"] with " and \ escaped, which takes any name.
func jsonPath(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "$." + name
	}
	var b strings.Builder
	b.WriteString(`$["`)
	for _, r := range name {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString(`"]`)
	return b.String()
}
