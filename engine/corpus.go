package engine

import (
	"context"

	"github.com/soakd/soakd/corpus"
	"github.com/soakd/soakd/datagen"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// corpusState is the scenario's corpus (record.source), opened at
// prepare; the zero value is no corpus.
type corpusState struct {
	c *corpus.Corpus
	q *corpus.Queries // nil unless the scenario searches
}

// prepareCorpus reads sc's corpus once through (counts, keys, term table)
// and builds the query generator; errors name the scenario's line. The
// custom ops' {corpus:FIELD} read it too, reporting failed reads to
// failed.
func prepareCorpus(ctx context.Context, sc *scenarios.Scenario, custom *datagen.Program, failed func(error)) (corpusState, error) {
	var cs corpusState
	if !sc.HasCorpus() {
		return cs, nil
	}
	c, err := corpus.OpenContext(ctx, sc.CorpusPath(), corpus.Options{KeyField: sc.Record.KeyField, TextFields: sc.SearchFields()})
	if err != nil {
		return cs, sc.ProblemAt("record.source", err)
	}
	if sc.Uses(scenarios.OpSearch) {
		d := corpus.Zipfian
		if q := sc.Record.Query; q != nil && q.Distribution != "" {
			d = corpus.Distribution(q.Distribution)
		}
		if cs.q, err = c.NewQueries(sc.QueryTerms(), d); err != nil {
			c.Close()
			return cs, sc.ProblemAt("record.query", err)
		}
	}
	cs.c = c
	if custom != nil {
		custom.UseCorpus(c, failed)
	}
	return cs, nil
}

// fillCorpus fills req (key, op and schedule index set) from the
// corpus: inserts write document keyNum mod Count, updates the fields
// of a document drawn at random (but its key field), searches a query
// made from the corpus's terms.
func (w *worker) fillCorpus(req *targets.Request, i uint64) {
	cs := &w.r.plan.corpus
	var doc int64 = -1
	switch req.Op {
	case scenarios.OpInsert, scenarios.OpHSet:
		doc = req.KeyNum % cs.c.Count()
	case scenarios.OpUpdate, scenarios.OpRMW:
		doc = w.rng.Int64N(cs.c.Count())
	}
	if doc >= 0 {
		fs, err := cs.c.Read(doc)
		if err != nil {
			w.r.plan.faults.report(err)
		}
		// An update keeps the record's own key field: it rewrites the
		// other fields with those of the document drawn.
		keep := ""
		if req.Op == scenarios.OpUpdate || req.Op == scenarios.OpRMW {
			keep = w.r.plan.sc.Record.KeyField
		}
		out := make([]targets.Field, 0, len(fs))
		for _, f := range fs {
			if keep == "" || f.Name != keep {
				out = append(out, targets.Field{Name: f.Name, Value: f.Value, JSON: f.JSON})
			}
		}
		req.Fields = out
	}
	if req.Op == scenarios.OpSearch && cs.q != nil {
		req.Query = cs.q.Query(w.seg.Seed, i)
	}
}

// corpusKey appends record n's key when the corpus keys its documents.
func (r *runner) corpusKey(b []byte, n int64) ([]byte, bool) {
	c := r.plan.corpus.c
	if c == nil || !c.HasKeys() {
		return b, false
	}
	return c.AppendKey(b, r.plan.sc.Keyspace.Prefix, n), true
}
