package engine

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/corpus"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
)

const shippedCorpus = "../scenarios/testdata/corpus/docs.ndjson.gz"

// corpusScenario writes the shipped corpus, decompressed, as
// docs.ndjson beside a scenario file holding src, and loads that file.
func corpusScenario(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	dir := t.TempDir()
	in, err := os.Open(shippedCorpus)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "docs.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	out.Close()
	p := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func openCorpus(t *testing.T, sc *scenarios.Scenario) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Open(sc.CorpusPath(), corpus.Options{KeyField: sc.Record.KeyField, TextFields: sc.SearchFields()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A corpus loaded into redis-server through engine.Run: every document
// is a hash keyed by its id, field for field the document (nested
// values as JSON strings, nulls left out); records past the file's end
// cycle through it again under new keys.
func TestCorpusLoadIntoRedis(t *testing.T) {
	t.Parallel()
	sc := corpusScenario(t, `
target: {kind: redis, managed: {persistence: none}}
record: {source: docs.ndjson, key_field: id}
keyspace: {records: 1600, prefix: "doc:"}
phases:
  - {name: load, kind: load, concurrency: 4}
`)
	sum, _, cl := runRedis(t, sc, rundir.Shard{})
	if p := sum.Phases[0]; p.Errors != 0 || p.Result.Ops["insert"].Count != 1600 {
		t.Fatalf("load: %d errors, %+v", p.Errors, p.Result.Ops)
	}
	c := openCorpus(t, sc)
	if c.Count() != 1500 {
		t.Fatalf("corpus holds %d documents", c.Count())
	}
	ctx := context.Background()
	if n := cl.DBSize(ctx).Val(); n != 1600+1 { // + the scan index zset
		t.Fatalf("%d keys after loading 1600 records", n)
	}
	for i := int64(0); i < 1600; i++ {
		doc, err := c.Read(i % c.Count())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, f := range doc {
			want[f.Name] = string(f.Value)
		}
		key := string(c.AppendKey(nil, "doc:", i))
		got := cl.HGetAll(ctx, key).Val()
		if len(got) != len(want) {
			t.Fatalf("%s: HGETALL has %d fields, the document %d:\n%v\n%v", key, len(got), len(want), got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s field %s = %q, document has %q", key, k, got[k], v)
			}
		}
	}
	if got := cl.HGet(ctx, "doc:p00001", "id").Val(); got != "p00001" {
		t.Fatalf("doc:p00001 id %q", got)
	}
	if cl.Exists(ctx, "doc:p00100:1").Val() != 1 {
		t.Fatal("record 1599 (second pass) not under doc:p00100:1")
	}
}

// Search queries drawn from the corpus's terms find its documents on
// RediSearch: each query's hits are at least the documents that hold
// all its words (the stemmer may add some), most queries find
// something, and a second run with the same seed sends the same queries.
func TestCorpusSearchRedis(t *testing.T) {
	so := testutil.NeedFile(t, "/usr/lib/redis/modules/redisearch.so")
	sc := corpusScenario(t, `
target: {kind: redis, managed: {persistence: none, args: [--loadmodule, `+so+`, TIMEOUT, 0]}}
record:
  source: docs.ndjson
  key_field: id
  query: {terms: 2, from: [title, body], distribution: zipfian}
keyspace: {records: 1500, prefix: "doc:"}
seed: 42
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: search, kind: steady, rate: 0, requests: 300, concurrency: 4, mix: {search: 100}}
`)
	needRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := func() []string {
		tg, err := targets.Open(ctx, sc.Target, targets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		rec := &testutil.Recorder{Inner: tg}
		sum, err := Run(ctx, Options{Scenario: sc, Target: rec, TargetKind: sc.Target.Kind, OutDir: t.TempDir(), Interval: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range sum.Phases {
			if p.Errors != 0 {
				t.Fatalf("phase %s: %d errors %+v", p.Name, p.Errors, p.Result.Ops)
			}
		}
		var qs []string
		for _, s := range testutil.Searches(rec.Sent()) {
			qs = append(qs, s.Query)
		}
		if len(qs) < 150 {
			t.Fatalf("%d searches", len(qs))
		}
		if t.Failed() {
			return nil
		}
		// The index is the corpus's: check the queries against it.
		checkRediSearch(t, ctx, tg.(*redistarget.Target), sc, qs)
		return qs
	}
	first := run()
	second := run()
	sort.Strings(first)
	sort.Strings(second)
	if strings.Join(first, "|") != strings.Join(second, "|") {
		t.Fatal("the same seed and file gave different queries")
	}
}

func checkRediSearch(t *testing.T, ctx context.Context, tg *redistarget.Target, sc *scenarios.Scenario, qs []string) {
	t.Helper()
	c := openCorpus(t, sc)
	// The words of each document's title and body.
	docs := make([]map[string]bool, c.Count())
	for i := range docs {
		d, _ := c.Read(int64(i))
		docs[i] = map[string]bool{}
		for _, f := range d {
			if f.Name == "title" || f.Name == "body" {
				for _, w := range strings.Fields(string(f.Value)) {
					docs[i][w] = true
				}
			}
		}
	}
	found := 0
	cl := tg.Client()
	for _, q := range qs {
		want := 0
		for _, d := range docs {
			all := true
			for _, w := range strings.Fields(q) {
				all = all && d[w]
			}
			if all {
				want++
			}
		}
		res, err := cl.Do(ctx, "FT.SEARCH", redistarget.SearchIndex, q, "NOCONTENT", "LIMIT", 0, 1).Slice()
		if err != nil {
			t.Fatalf("FT.SEARCH %q: %v", q, err)
		}
		got := res[0].(int64)
		if got < int64(want) {
			t.Fatalf("query %q: RediSearch finds %d documents, %d hold all its words", q, got, want)
		}
		if want > 0 {
			found++
		}
	}
	if found < len(qs)*6/10 {
		t.Fatalf("only %d of %d queries match a document", found, len(qs))
	}
	t.Logf("%d of %d corpus queries match documents", found, len(qs))
}

// A custom op's {corpus:title} draws the title of a corpus document:
// every value SET through engine.Run is one of the corpus's titles.
func TestCorpusPlaceholderRedis(t *testing.T) {
	t.Parallel()
	sc := corpusScenario(t, `
target: {kind: redis, managed: {persistence: none}}
record: {source: docs.ndjson, key_field: id}
keyspace: {records: 1500, prefix: "doc:"}
ops:
  set_title: {redis: [SET, "t:{seq}", "{corpus:title}"]}
phases:
  - {name: s, kind: steady, rate: 0, requests: 200, concurrency: 2, mix: {set_title: 100}}
`)
	sum, _, cl := runRedis(t, sc, rundir.Shard{})
	if p := sum.Phases[0]; p.Errors != 0 || p.Result.Ops["set_title"].Count != 200 {
		t.Fatalf("%d errors, %+v", p.Errors, p.Result.Ops)
	}
	c := openCorpus(t, sc)
	titles := map[string]bool{}
	for i := int64(0); i < c.Count(); i++ {
		d, _ := c.Read(i)
		for _, f := range d {
			if f.Name == "title" {
				titles[string(f.Value)] = true
			}
		}
	}
	ctx := context.Background()
	keys := cl.Keys(ctx, "t:*").Val()
	if len(keys) != 200 {
		t.Fatalf("%d keys", len(keys))
	}
	distinct := map[string]bool{}
	for _, k := range keys {
		v := cl.Get(ctx, k).Val()
		if !titles[v] {
			t.Fatalf("%s = %q, not a corpus title", k, v)
		}
		distinct[v] = true
	}
	if len(distinct) < 150 {
		t.Fatalf("only %d distinct titles in 200 draws from 1500 documents", len(distinct))
	}
}
