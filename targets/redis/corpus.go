package redis

import (
	"context"
	"encoding/json"

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

// insertCorpus writes a corpus document searches see: its fields (flat,
// as the corpus package gives them) and num.
func (t *Target) insertCorpus(ctx context.Context, c cmdable, r *targets.Request, key string, fs []targets.Field, z *goredis.IntCmd) post {
	switch t.search.mode {
	case searchFT1:
		args := []any{"FT.ADD", t.search.index, key, "1.0", "REPLACE", "FIELDS", "num", r.KeyNum}
		return done2(c.Do(ctx, fieldArgs(args, fs)...), z)
	case searchJSON:
		m := make(map[string]any, len(fs)+1)
		for _, f := range fs {
			m[f.Name] = string(f.Value)
		}
		m["num"] = r.KeyNum
		b, _ := json.Marshal(m)
		return done2(c.Do(ctx, "JSON.SET", key, "$", string(b)), z)
	}
	return done2(c.HSet(ctx, key, fieldArgs([]any{"num", r.KeyNum}, fs)...), z)
}
