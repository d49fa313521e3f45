package engine

import (
	"context"
	"fmt"

	"github.com/soakd/soakd/corpus"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// corpusState is the scenario's corpus (record.source), opened at
// prepare; the zero value is no corpus.
type corpusState struct {
	c *corpus.Corpus
	q *corpus.Queries // nil unless the scenario searches
}

// openCorpus reads the corpus once through (counts, keys, term table)
// and builds the query generator; errors name the scenario's line.
func (r *runner) openCorpus(ctx context.Context) error {
	sc := r.sc
	if !sc.HasCorpus() {
		return nil
	}
	c, err := corpus.OpenContext(ctx, sc.CorpusPath(), corpus.Options{KeyField: sc.Record.KeyField, TextFields: sc.SearchFields()})
	if err != nil {
		return sc.ProblemAt("record.source", err)
	}
	r.corpus.c = c
	if r.custom != nil {
		r.custom.UseCorpus(c, r.corpusFailed)
	}
	if sc.Uses(scenarios.OpSearch) {
		d := corpus.Zipfian
		if q := sc.Record.Query; q != nil && q.Distribution != "" {
			d = corpus.Distribution(q.Distribution)
		}
		if r.corpus.q, err = c.NewQueries(sc.QueryTerms(), d); err != nil {
			c.Close()
			return sc.ProblemAt("record.query", err)
		}
	}
	return nil
}

func (r *runner) closeCorpus() {
	if r.corpus.c != nil {
		r.corpus.c.Close()
	}
}

// corpusErr keeps the first failed corpus read: the run reports it.
func (r *runner) corpusFailed(err error) {
	r.corpusErrOnce.Do(func() {
		r.corpusErr = err
		if r.cancelRun != nil {
			r.cancelRun(err)
		}
	})
}

// fillCorpus fills req (key, op and schedule index set) from the
// corpus: inserts write document keyNum mod Count, updates the fields
// of a document drawn at random (but its key field), searches a query
// made from the corpus's terms.
func (w *worker) fillCorpus(req *targets.Request, i uint64) {
	cs := &w.r.corpus
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
			w.r.corpusFailed(err)
		}
		// An update keeps the record's own key field: it rewrites the
		// other fields with those of the document drawn.
		keep := ""
		if req.Op == scenarios.OpUpdate || req.Op == scenarios.OpRMW {
			keep = w.r.sc.Record.KeyField
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
	if r.corpus.c == nil || !r.corpus.c.HasKeys() {
		return b, false
	}
	return r.corpus.c.AppendKey(b, r.sc.Keyspace.Prefix, n), true
}

// corpusError is the run's error when a corpus read failed.
func (r *runner) corpusError() error {
	if r.corpusErr == nil {
		return nil
	}
	return fmt.Errorf("record.source: %w", r.corpusErr)
}
