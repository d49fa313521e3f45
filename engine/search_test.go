package engine

import (
	"context"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
)

// TestSearchRequestsCarryTheWorkloadQuery: every search op the engine
// sends, open- and closed-loop, carries scenarios.SearchQuery of its
// record number, and no other op carries a query.
func TestSearchRequestsCarryTheWorkloadQuery(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 300}
phases:
  - {name: load, kind: load, concurrency: 4}
  - {name: open, kind: steady, rate: 2000, requests: 2000, concurrency: 4, max_lag: 1h, mix: {search: 58.5, read: 31.5, update: 10}}
  - {name: closed, kind: steady, rate: 0, duration: 300ms, concurrency: 2, mix: {search: 65, read: 35}}
`)
	rec := &testutil.Recorder{}
	if _, err := Run(context.Background(), Options{Scenario: sc, Target: rec, TargetKind: "recorder", OutDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	sent := rec.Sent()
	searches := 0
	for _, s := range sent {
		if s.Op != scenarios.OpSearch {
			if s.Query != "" {
				t.Fatalf("%s of record %d carries query %q", s.Op, s.KeyNum, s.Query)
			}
			continue
		}
		searches++
		if want := scenarios.SearchQuery(s.KeyNum); s.Query == "" || s.Query != want {
			t.Fatalf("search of record %d: query %q, want %q", s.KeyNum, s.Query, want)
		}
		if s.KeyNum < 0 || s.KeyNum >= 300 {
			t.Fatalf("search of record %d, outside the 300 loaded", s.KeyNum)
		}
	}
	if searches < 500 {
		t.Fatalf("%d searches of %d requests, want the mix's share", searches, len(sent))
	}
}
