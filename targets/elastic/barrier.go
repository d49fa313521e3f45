package elastic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/soakd/soakd/targets"
)

// BarrierIndex holds the shards' phase barriers, one document per
// barrier ({"n": arrivals}, id = the barrier key). Elasticsearch creates
// it on the first arrival (action.auto_create_index, on by default).
// Delete it at will between runs.
const BarrierIndex = "soakd-barriers"

var _ targets.Barrier = (*Target)(nil)

// barrierArrive is the _update body: count one arrival, or create the
// counter at 1 (the upsert document is stored as-is, without running
// the script).
const barrierArrive = `{"script":{"lang":"painless","source":"ctx._source.n += 1"},"upsert":{"n":1}}`

type barrierSource struct {
	N int `json:"n"`
}

func barrierPath(kind, key string) string {
	return "/" + BarrierIndex + "/" + kind + "/" + url.PathEscape(key)
}

// Arrive counts this shard in at barrier key: POST _update with a
// painless increment and an upsert, asking for the updated _source back.
// retry_on_conflict lets the server retry the shards' simultaneous
// arrivals on the one document; a 409 that still comes back is retried.
func (t *Target) Arrive(ctx context.Context, key string) (int, error) {
	ctx, cancel := t.timeouts.Context(ctx, true)
	defer cancel()
	var res struct {
		Result string `json:"result"`
		Get    struct {
			Found  bool          `json:"found"`
			Source barrierSource `json:"_source"`
		} `json:"get"`
	}
	var err error
	for try := 0; try < 5; try++ {
		_, err = t.call(ctx, http.MethodPost, barrierPath("_update", key), "retry_on_conflict=100&_source=n", []byte(barrierArrive), "", false, &res)
		var e *Error
		if !errors.As(err, &e) || e.Status != http.StatusConflict {
			break
		}
	}
	if err != nil {
		return 0, err
	}
	if !res.Get.Found {
		return 0, fmt.Errorf("barrier update (%s) returned no document", res.Result)
	}
	return res.Get.Source.N, nil
}

// Arrived reads barrier key's counter (GET _doc, real time, no refresh
// needed); a missing document or a missing index is 0.
func (t *Target) Arrived(ctx context.Context, key string) (int, error) {
	ctx, cancel := t.timeouts.Context(ctx, false)
	defer cancel()
	var res struct {
		Found  bool          `json:"found"`
		Source barrierSource `json:"_source"`
	}
	st, err := t.call(ctx, http.MethodGet, barrierPath("_doc", key), "_source=n", nil, "", true, &res)
	if err != nil {
		return 0, err
	}
	if st == http.StatusNotFound || !res.Found {
		return 0, nil
	}
	return res.Source.N, nil
}
