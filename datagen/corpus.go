package datagen

import (
	"math/rand/v2"

	"github.com/soakd/soakd/corpus"
)

// Corpus is what {corpus:field} draws documents from (*corpus.Corpus).
type Corpus interface {
	Count() int64
	Read(i int64) ([]corpus.Field, error)
}

// UseCorpus sets the corpus {corpus:field} placeholders draw from and
// the function told of a failed read (the run ends on it); call it
// before the program's renderers render.
func (p *Program) UseCorpus(c Corpus, failed func(error)) { p.corpus, p.corpusFailed = c, failed }

// appendCorpus appends field of a document drawn with rng: nothing when
// the document lacks the field or the read failed (reported).
func (p *Program) appendCorpus(b []byte, field string, rng *rand.Rand) []byte {
	if p.corpus == nil || p.corpus.Count() == 0 {
		return b
	}
	doc, err := p.corpus.Read(rng.Int64N(p.corpus.Count()))
	if err != nil {
		if p.corpusFailed != nil {
			p.corpusFailed(err)
		}
		return b
	}
	for _, f := range doc {
		if f.Name != field {
			continue
		}
		return append(b, f.Value...) // escaped for its place by appendPlaced
	}
	return b
}
