package elastic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Custom ops (a scenario's ops: with an elastic form) send one HTTP
// request: the template's method, its rendered path (after the target
// URL) and JSON body. A status other than 2xx is an error, classified
// like the built-ins' (a 404 is a miss under miss_when nil or empty, a
// not_found error otherwise); so is a 2xx reply that reports failure
// inside it (a bulk with errors, failed shards, a timed-out search).
// miss_when judges the rest: nil (found: false), zero (a count or total
// of 0), empty (no hits, found: false or a count of 0).

type customOp struct {
	method string
	// allowDestructive: the scenario's allow_destructive (the path rule
	// is applied to every rendered path, CheckPath).
	allowDestructive bool
	bulk             bool // NDJSON body
	miss             scenarios.MissRule
}

// prepareCustom compiles sc's custom ops with an elastic form.
func (t *Target) prepareCustom(sc *scenarios.Scenario) error {
	cs, err := targets.CompileCustom(sc, func(_ scenarios.Op, c *scenarios.CustomOp) (*customOp, bool, error) {
		f, _ := c.Form(Family.Name)
		e, ok := f.(*ElasticTemplate)
		if !ok {
			return nil, false, nil
		}
		// Only reads: GET and HEAD, and POSTs to _search, _count, _msearch, _mget ...
		read := e.ReadOnly()
		return &customOp{method: e.HTTPMethod(), miss: c.MissWhen, allowDestructive: sc.AllowDestructive,
			bulk: strings.Contains(e.Path, "_bulk") || strings.Contains(e.Path, "_msearch")}, read, nil
	})
	t.custom = cs
	return err
}

var errNoCustom = errors.New("custom op has no elastic form")

// customReply is what a custom op's reply is judged by.
type customReply struct {
	Found  *bool  `json:"found"`
	Count  *int64 `json:"count"`
	Errors bool   `json:"errors"`
	Shards struct {
		Failed int `json:"failed"`
	} `json:"_shards"`
	TimedOut bool `json:"timed_out"`
	Hits     *struct {
		Total *struct {
			Value int64 `json:"value"`
		} `json:"total"`
		Hits []json.RawMessage `json:"hits"`
	} `json:"hits"`
}

// doCustom runs custom op r: Parts are the path and the body. A custom
// op the scenario's ops: did not compile is a replay phase's group
// (replay.go).
func (t *Target) doCustom(ctx context.Context, r *targets.Request) error {
	co := t.custom.Of(r.Op)
	if co == nil {
		return t.doReplay(ctx, r)
	}
	if len(r.Parts) != 2 {
		return errNoCustom
	}
	// The rendered path, not only the template, must pass the safety
	// rule: a value is escaped for its segment (datagen), and a path
	// that still climbs or names what the rule refuses is not sent.
	if err := CheckPath(co.method, string(r.Parts[0]), co.allowDestructive); err != nil {
		return err
	}
	return t.send(ctx, co, r.Parts[0], r.Parts[1])
}

// send sends one request of op co (its method, body kind and miss
// rule) to path (with its query) and judges the reply.
func (t *Target) send(ctx context.Context, co *customOp, fullPath, reqBody []byte) error {
	path, query, _ := strings.Cut(string(fullPath), "?")
	var body []byte
	ctype := ""
	if len(reqBody) > 0 {
		body = reqBody
		if co.bulk {
			ctype = "application/x-ndjson"
			if body[len(body)-1] != '\n' {
				body = append(body[:len(body):len(body)], '\n')
			}
		}
	}
	var rep customReply
	st, err := t.call(ctx, co.method, path, query, body, ctype, true, &rep)
	if err != nil {
		return err
	}
	if st == http.StatusNotFound {
		if co.miss == scenarios.MissNil || co.miss == scenarios.MissEmpty {
			return targets.ErrMiss
		}
		return fmt.Errorf("%s %s: %w", co.method, path, targets.ErrNotFound)
	}
	switch {
	case rep.Errors:
		return errors.New("the reply reports errors (a bulk item failed)")
	case rep.Shards.Failed > 0:
		return fmt.Errorf("%d shards failed", rep.Shards.Failed)
	case rep.TimedOut:
		return errors.New("the search timed out (partial results)")
	}
	found := rep.Found == nil || *rep.Found
	total := int64(-1)
	if rep.Count != nil {
		total = *rep.Count
	}
	hits := -1
	if rep.Hits != nil {
		hits = len(rep.Hits.Hits)
		if rep.Hits.Total != nil {
			total = rep.Hits.Total.Value
		}
	}
	switch co.miss {
	case scenarios.MissNil:
		if !found {
			return targets.ErrMiss
		}
	case scenarios.MissZero:
		if total == 0 {
			return targets.ErrMiss
		}
	case scenarios.MissEmpty:
		if !found || total == 0 || hits == 0 {
			return targets.ErrMiss
		}
	}
	return nil
}
