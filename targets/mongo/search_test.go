package mongo

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// filterTarget builds, for each search op, the filter the adapter would
// send (searchQuery) and keeps it with the op's record number. FerretDB,
// the only server these tests have, lacks text indexes and $text, so the
// search's results are only exercised against real MongoDB
// (docker-compose).
type filterTarget struct {
	mu      sync.Mutex
	filters map[int64][]bson.D
}

func (f *filterTarget) Do(_ context.Context, r *targets.Request) error {
	if r.Op != scenarios.OpSearch {
		return nil
	}
	filter, _, err := searchQuery(r)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.filters[r.KeyNum] = append(f.filters[r.KeyNum], filter)
	f.mu.Unlock()
	return nil
}

func (f *filterTarget) Close() error { return nil }

// TestSearchFilterThroughEngine runs a search mix through engine.Run:
// every search's $text filter holds the engine's query for its record
// (scenarios.SearchQuery), all words required.
func TestSearchFilterThroughEngine(t *testing.T) {
	sc, err := scenarios.Parse("search.yaml", []byte(`
target: {kind: mongo, url: "mongodb://127.0.0.1:1"}
keyspace: {records: 300}
phases:
  - {name: run, kind: steady, rate: 0, requests: 800, concurrency: 4, mix: {search: 58.5, read: 31.5, update: 10}}
`))
	if err != nil {
		t.Fatal(err)
	}
	ft := &filterTarget{filters: map[int64][]bson.D{}}
	rec := &testutil.Recorder{Inner: ft}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: rec, TargetKind: "mongo", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Phases[0].Errors != 0 {
		t.Fatalf("%d errors", sum.Phases[0].Errors)
	}
	searches := testutil.Searches(rec.Sent())
	if len(searches) < 300 {
		t.Fatalf("%d searches", len(searches))
	}
	ft.mu.Lock()
	defer ft.mu.Unlock()
	n := 0
	for k, fs := range ft.filters {
		var a, b string
		if _, err := fmt.Sscan(scenarios.SearchQuery(k), &a, &b); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprint(bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: `"` + a + `" "` + b + `"`}}}})
		for _, f := range fs {
			n++
			if fmt.Sprint(f) != want {
				t.Fatalf("record %d: filter %v, want %v", k, f, want)
			}
		}
	}
	if n != len(searches) {
		t.Fatalf("%d filters for %d search ops", n, len(searches))
	}
}
