package engine

import (
	"math/rand/v2"

	"github.com/soakd/soakd/datagen"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// mixSource is the run's mix as an op source: each index's op drawn
// from the segment's mix with its seed; its key the next in a sequential
// segment (a load, a growth stage's batch), a fresh record for an
// insert, else drawn from the keyspace's distribution; a built-in op's
// fields from the generated values, a custom op rendered from its
// template. keys and docs are what a corpus decorates (corpus.go).
type mixSource struct {
	// choosers makes each stream's key chooser (on the run's record
	// count); inserts numbers the next inserted record.
	choosers func() scenarios.Chooser
	inserts  func() int64
	keys     keyNamer
	docs     docFiller
	// values are the run's field values (a segment may bring its own).
	values     *scenarios.Values
	fieldNames []string
	scanLen    int
	custom     *datagen.Program // nil when the scenario has none
}

// newMixSource is plan's mix on the run's record count inserted, this
// shard's inserts numbered by shard.
func newMixSource(p *Plan, inserted *scenarios.Inserted, shard *shardState) (*mixSource, error) {
	ch, err := scenarios.NewChoosers(p.sc.Keyspace, inserted)
	if err != nil {
		return nil, err
	}
	ks := p.sc.Keyspace
	m := &mixSource{
		choosers: ch,
		inserts:  func() int64 { return shard.nextInsertKey(inserted) },
		keys:     prefixKeys{prefix: ks.Prefix, ordered: ks.Ordered},
		docs:     valueDocs{},
		values:   p.values, scanLen: ks.ScanLength, custom: p.custom,
		fieldNames: make([]string, p.sc.Record.Fields),
	}
	for i := range m.fieldNames {
		m.fieldNames[i] = scenarios.FieldName(i)
	}
	p.corpus.decorate(m, ks.Prefix, p.sc.Record.KeyField, p.faults.report)
	return m, nil
}

// opFor draws index i's op from seg's mix with seg's seed.
func (m *mixSource) opFor(seg *segment, i uint64) scenarios.Op {
	return seg.Mix.Pick(scenarios.Mix64(seg.Seed ^ i))
}

func (m *mixSource) stream(seg *segment, w, slots int) opStream {
	pcg := rand.NewPCG(seg.Seed, uint64(w)+1)
	s := &mixStream{src: m, seg: seg, pcg: pcg, rng: rand.New(pcg), chooser: m.choosers(),
		values: cmpOr(seg.Values, m.values), fields: make([][]targets.Field, slots)}
	for j := range s.fields {
		s.fields[j] = make([]targets.Field, len(m.fieldNames))
	}
	if m.custom != nil {
		s.render = datagen.NewRenderer(m.custom)
	}
	return s
}

// mixStream is one worker's stream of a mix segment: its random
// stream, key chooser, template renderer and field buffers (one set
// per request slot).
type mixStream struct {
	src     *mixSource
	seg     *segment
	pcg     *rand.PCG
	rng     *rand.Rand
	chooser scenarios.Chooser
	values  *scenarios.Values
	render  *datagen.Renderer // custom ops; nil when the scenario has none
	fields  [][]targets.Field
	next    uint64
}

func (s *mixStream) fill(slot int, req *targets.Request, i uint64) scenarios.Op {
	seg, src := s.seg, s.src
	s.next = i + 1
	op := src.opFor(seg, i)
	req.Op = op
	var keyNum int64
	switch {
	case seg.Sequential:
		keyNum = seg.KeyBase + int64(i)
	case op == scenarios.OpInsert:
		keyNum = src.inserts()
	default:
		keyNum = s.chooser.Next(s.rng)
	}
	req.KeyNum = keyNum
	req.Key = src.keys.appendKey(req.Key[:0], keyNum)
	if op.IsCustom() {
		s.fillCustom(req, i)
		return op
	}
	src.docs.fillDoc(s, req, s.fields[slot], i)
	return op
}

func (s *mixStream) position(rng []byte) position {
	st, _ := s.pcg.AppendBinary(rng[:0])
	return position{next: s.next, rng: st}
}

func (s *mixStream) restore(p position) error {
	if err := s.pcg.UnmarshalBinary(p.rng); err != nil {
		return err
	}
	s.next = p.next
	return nil
}

// cmpOr returns v, or def when v is nil.
func cmpOr[T any](v, def *T) *T {
	if v != nil {
		return v
	}
	return def
}

// A keyNamer writes record n's key.
type keyNamer interface {
	appendKey(b []byte, n int64) []byte
}

// prefixKeys are the keyspace's own keys: prefix and number.
type prefixKeys struct {
	prefix  string
	ordered bool
}

func (k prefixKeys) appendKey(b []byte, n int64) []byte {
	return scenarios.AppendKey(b, k.prefix, n, k.ordered)
}

// A docFiller fills a built-in op's payload (req.Op and its key set,
// schedule index i): its fields, a search's query, a scan's paging,
// drawn from stream s's generators.
type docFiller interface {
	fillDoc(s *mixStream, req *targets.Request, fs []targets.Field, i uint64)
}

// valueDocs are the generated records: writes set fields of generated
// values (an insert or HSET all of them, an update one), a search asks
// for words of its record's document.
type valueDocs struct{}

func (valueDocs) fillDoc(s *mixStream, req *targets.Request, fs []targets.Field, i uint64) {
	op := req.Op
	switch op {
	case scenarios.OpInsert, scenarios.OpSet, scenarios.OpHSet, scenarios.OpMSet, scenarios.OpLPush, scenarios.OpRPush:
		n := len(fs)
		if op != scenarios.OpInsert && op != scenarios.OpHSet {
			n = 1
		}
		for k := 0; k < n; k++ {
			fs[k] = targets.Field{Name: s.src.fieldNames[k], Value: s.values.Next(s.rng)}
		}
		req.Fields = fs[:n]
	case scenarios.OpUpdate, scenarios.OpRMW:
		k := s.rng.IntN(len(fs))
		fs[0] = targets.Field{Name: s.src.fieldNames[k], Value: s.values.Next(s.rng)}
		req.Fields = fs[:1]
	default:
		req.Fields = nil
	}
	req.Query = ""
	if op == scenarios.OpSearch {
		req.Query = scenarios.SearchQuery(req.KeyNum) // words of record KeyNum's document
	}
	req.ScanLen = s.src.scanLen
	req.PageSize = 10
	req.Page = int(s.rng.IntN(5))
}
