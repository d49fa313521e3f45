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

// decorate makes the corpus the mix's keys (when it keys its
// documents, under the keyspace's prefix) and documents (keyField: the
// documents' key field); failed hears of a failed read.
func (cs corpusState) decorate(m *mixSource, prefix, keyField string, failed func(error)) {
	if cs.c == nil {
		return
	}
	if cs.c.HasKeys() {
		m.keys = corpusKeys{c: cs.c, prefix: prefix}
	}
	m.docs = corpusDocs{inner: m.docs, cs: cs, keyField: keyField, failed: failed}
}

// corpusKeys are the keys the corpus gives its documents, in place of
// the keyspace's numbers.
type corpusKeys struct {
	c      *corpus.Corpus
	prefix string
}

func (k corpusKeys) appendKey(b []byte, n int64) []byte { return k.c.AppendKey(b, k.prefix, n) }

// corpusDocs are the corpus's documents over the mix's generated ones:
// inserts write document KeyNum mod Count, updates the fields of a
// document drawn at random (but its key field), searches a query made
// from the corpus's terms.
type corpusDocs struct {
	inner    docFiller
	cs       corpusState
	keyField string
	failed   func(error)
}

func (d corpusDocs) fillDoc(s *mixStream, req *targets.Request, fs []targets.Field, i uint64) {
	d.inner.fillDoc(s, req, fs, i)
	c := d.cs.c
	var doc int64 = -1
	switch req.Op {
	case scenarios.OpInsert, scenarios.OpHSet:
		doc = req.KeyNum % c.Count()
	case scenarios.OpUpdate, scenarios.OpRMW:
		doc = s.rng.Int64N(c.Count())
	}
	if doc >= 0 {
		docFields, err := c.Read(doc)
		if err != nil {
			d.failed(err)
		}
		// An update keeps the record's own key field: it rewrites the
		// other fields with those of the document drawn.
		keep := ""
		if req.Op == scenarios.OpUpdate || req.Op == scenarios.OpRMW {
			keep = d.keyField
		}
		out := make([]targets.Field, 0, len(docFields))
		for _, f := range docFields {
			if keep == "" || f.Name != keep {
				out = append(out, targets.Field{Name: f.Name, Value: f.Value, JSON: f.JSON})
			}
		}
		req.Fields = out
	}
	if req.Op == scenarios.OpSearch && d.cs.q != nil {
		req.Query = d.cs.q.Query(s.seg.Seed, i)
	}
}
