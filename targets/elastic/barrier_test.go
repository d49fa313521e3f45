package elastic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// barrierES fakes the barrier index of Elasticsearch 8: _update with the
// painless script and upsert, GET _doc, in the API reference's shapes.
// The first update of every document answers 409 (a version conflict
// left over after retry_on_conflict), which the adapter must retry.
type barrierES struct {
	mu        sync.Mutex
	n         map[string]int
	conflicts map[string]bool
}

const (
	barrierUpdated = `{"_index":"soakd-barriers","_id":%q,"_version":%d,"result":%q,
		"_shards":{"total":2,"successful":1,"failed":0},"_seq_no":%d,"_primary_term":1,
		"get":{"_seq_no":%d,"_primary_term":1,"found":true,"_source":{"n":%d}}}`
	barrierConflict   = `{"error":{"root_cause":[{"type":"version_conflict_engine_exception","reason":"[%[1]s]: version conflict, required seqNo [0], primary term [1]. current document has seqNo [1] and primary term [1]","index_uuid":"aAsFqTI0Tc2W0LCWgPNrOA","shard":"0","index":"soakd-barriers"}],"type":"version_conflict_engine_exception","reason":"[%[1]s]: version conflict, required seqNo [0], primary term [1]. current document has seqNo [1] and primary term [1]","index_uuid":"aAsFqTI0Tc2W0LCWgPNrOA","shard":"0","index":"soakd-barriers"},"status":409}`
	barrierFound      = `{"_index":"soakd-barriers","_id":%q,"_version":%d,"_seq_no":%d,"_primary_term":1,"found":true,"_source":{"n":%d}}`
	barrierNotFound   = `{"_index":"soakd-barriers","_id":%q,"found":false}`
	barrierNoIndex    = `{"error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [soakd-barriers]","resource.type":"index_expression","resource.id":"soakd-barriers","index_uuid":"_na_","index":"soakd-barriers"}],"type":"index_not_found_exception","reason":"no such index [soakd-barriers]","resource.type":"index_expression","resource.id":"soakd-barriers","index_uuid":"_na_","index":"soakd-barriers"},"status":404}`
	barrierBadRequest = `{"error":{"root_cause":[],"type":"illegal_argument_exception","reason":"unexpected request"},"status":400}`
)

func (b *barrierES) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id, isUpd := strings.CutPrefix(r.URL.Path, "/soakd-barriers/_update/")
	if isUpd && r.Method == http.MethodPost {
		if string(body) != barrierArrive || r.URL.Query().Get("retry_on_conflict") == "" || r.URL.Query().Get("_source") == "" {
			reply(w, 400, barrierBadRequest)
			return
		}
		if !b.conflicts[id] {
			b.conflicts[id] = true
			reply(w, 409, fmt.Sprintf(barrierConflict, id))
			return
		}
		b.n[id]++
		n, res := b.n[id], "updated"
		if n == 1 {
			res = "created"
		}
		reply(w, 200, fmt.Sprintf(barrierUpdated, id, n, res, n-1, n-1, n))
		return
	}
	if id, ok := strings.CutPrefix(r.URL.Path, "/soakd-barriers/_doc/"); ok && r.Method == http.MethodGet {
		switch n, ok := b.n[id]; {
		case len(b.n) == 0:
			reply(w, 404, barrierNoIndex)
		case !ok:
			reply(w, 404, fmt.Sprintf(barrierNotFound, id))
		default:
			reply(w, 200, fmt.Sprintf(barrierFound, id, n, n-1, n))
		}
		return
	}
	reply(w, 400, barrierBadRequest)
}

func TestBarrier(t *testing.T) {
	b := &barrierES{n: map[string]int{}, conflicts: map[string]bool{}}
	f := newFake(t, b.handle)
	tg := openT(t, f.URL, scenarios.Client{}, scenarios.Auth{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	key := "soakd:barrier:run-1:kv:1"

	// No index yet, then no document: 0 arrived.
	if n, err := tg.Arrived(ctx, key); n != 0 || err != nil {
		t.Fatalf("Arrived before the index exists = %d, %v", n, err)
	}
	const n = 4
	testutil.StaggeredBarrier(t, ctx, func() targets.Barrier { return tg }, key, n, 100*time.Millisecond, 10*time.Second)
	if b.n[key] != n {
		t.Fatalf("counter %d, want %d", b.n[key], n)
	}
	if got, err := tg.Arrived(ctx, "soakd:barrier:other"); got != 0 || err != nil {
		t.Fatalf("Arrived on a missing document = %d, %v", got, err)
	}
	reqs := f.take()
	var upd int
	for _, r := range reqs {
		if r.Method == http.MethodPost {
			upd++
			if r.Path != "/soakd-barriers/_update/"+key || r.Query != "retry_on_conflict=100&_source=n" {
				t.Fatalf("update sent as %s %s?%s", r.Method, r.Path, r.Query)
			}
			jsonEq(t, "arrive", r.Body, `{"script":{"lang":"painless","source":"ctx._source.n += 1"},"upsert":{"n":1}}`)
		}
	}
	if upd != n+1 { // one 409 retried
		t.Fatalf("%d updates, want %d arrivals and one retry after the 409", upd, n+1)
	}

	// N-1 of N: the wait ends at the timeout, saying so.
	key2 := "soakd:barrier:run-1:kv:2"
	b.conflicts[key2] = true
	if _, err := tg.Arrive(ctx, key2); err != nil {
		t.Fatal(err)
	}
	err := targets.WaitBarrier(ctx, tg, key2, targets.BarrierWait{N: 3, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, targets.ErrBarrierTimeout) || !strings.Contains(err.Error(), "2 of 3 shards arrived") {
		t.Fatalf("timeout: %v", err)
	}
}
