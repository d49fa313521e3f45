// Package datagen renders custom ops' templates: it compiles a
// scenario's placeholders (scenarios.ParseTemplate) into generators and
// renders them per op into reused buffers, drawing every value from the
// worker's random stream, so the values are a pure function of (seed,
// shard, worker) like the built-in ops' keys and values.
package datagen

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"github.com/soakd/soakd/scenarios"
)

// Program is a scenario's custom ops compiled for one target kind. It
// is read-only once built and shared by every worker's Renderer.
type Program struct {
	ops      [scenarios.MaxCustomOps]*opProgram // by op - OpCustomBase
	bindings []binding
	pool     []byte // random printable bytes {bytes:N} slices
	corpus   Corpus // {corpus:field} draws from it (UseCorpus); nil without
	// corpusFailed is told of a failed corpus read.
	corpusFailed func(error)
}

type opProgram struct {
	parts    []part
	bindings []int // the bindings the op's templates use, drawn once per op
}

// part is one template string: static text, or generators.
type part struct {
	static []byte
	gens   []gen
}

type gen struct {
	kind    scenarios.GenKind
	lit     []byte
	lo      int64
	span    uint64 // hi - lo
	flo     float64
	fspan   float64
	choices [][]byte
	cum     []float64 // cumulative weights
	binding int
	// place is where the value lands (the form's Places); escape
	// says it must be escaped for it (it can hold bytes that would
	// change the template's structure there).
	place  scenarios.Place
	escape bool
}

type binding struct {
	chooser func() scenarios.Chooser // key bindings
	prefix  []byte
	gen     *gen // gen bindings
}

// Compile builds the program of sc's custom ops for target kind k. It
// fails on a template Validate would refuse; an op without a form for k
// is left out (the mix cannot name it: Validate refuses that too).
func Compile(sc *scenarios.Scenario, k scenarios.TargetKind) (*Program, error) {
	ops, err := sc.CustomOps()
	if err != nil {
		return nil, err
	}
	p := &Program{}
	// A form's templates may be JSON bodies and URL paths (mongo's,
	// elastic's): each value is escaped, when it is rendered, for where
	// the form's Places says it lands (a JSON string's content, a bare
	// JSON scalar, a path segment, a query), so that no key, binding,
	// choice or corpus value can change the template's structure
	// (appendPlaced). A form that places nothing sends values raw.
	names := make([]string, 0, len(sc.Bindings))
	for n := range sc.Bindings {
		names = append(names, n)
	}
	sort.Strings(names)
	index := map[string]int{}
	maxBytes := int64(0)
	for i, n := range names {
		index[n] = i
		b := sc.Bindings[n]
		if b.Gen != "" {
			seg, err := scenarios.ParseGenerator(b.Gen)
			if err != nil {
				return nil, fmt.Errorf("binding %s: %w", n, err)
			}
			g := compileSegment(seg, nil, scenarios.PlaceRaw)
			maxBytes = max(maxBytes, seg.Lo)
			p.bindings = append(p.bindings, binding{gen: &g})
			continue
		}
		newChooser, err := scenarios.NewChoosers(b.Keyspace(), nil)
		if err != nil {
			return nil, fmt.Errorf("binding %s: %w", n, err)
		}
		p.bindings = append(p.bindings, binding{chooser: newChooser, prefix: []byte(b.Prefix)})
	}
	isBinding := func(n string) bool { _, ok := index[n]; return ok }
	for o, c := range ops {
		form, ok := c.FormFor(k)
		if !ok {
			continue
		}
		tpls := form.Templates()
		op := &opProgram{}
		used := map[int]bool{}
		for ti, t := range tpls {
			segs, err := scenarios.ParseTemplate(t, isBinding)
			if err != nil {
				return nil, fmt.Errorf("op %s: %w", sc.OpName(o), err)
			}
			var pt part
			if lit, ok := scenarios.Literal(segs); ok {
				pt.static = []byte(lit)
			} else {
				places := form.Places(ti, segs)
				if places == nil {
					places = make([]scenarios.Place, len(segs))
				}
				for si, s := range segs {
					if s.Kind == scenarios.GenBinding {
						used[index[s.Text]] = true
					}
					if s.Kind == scenarios.GenBytes {
						maxBytes = max(maxBytes, s.Lo)
					}
					pt.gens = append(pt.gens, compileSegment(s, index, places[si]))
				}
			}
			op.parts = append(op.parts, pt)
		}
		for b := range used {
			op.bindings = append(op.bindings, b)
		}
		sort.Ints(op.bindings)
		p.ops[o-scenarios.OpCustomBase] = op
	}
	if maxBytes > 0 {
		p.pool = printable(rand.New(rand.NewPCG(uint64(sc.Seed), 0xb17e5)), int(max(64<<10, 4*maxBytes)+maxBytes))
	}
	return p, nil
}

// Has reports whether the program renders op.
func (p *Program) Has(op scenarios.Op) bool {
	return op.IsCustom() && p.ops[op-scenarios.OpCustomBase] != nil
}

func compileSegment(s scenarios.Segment, index map[string]int, place scenarios.Place) gen {
	g := gen{kind: s.Kind, lit: []byte(s.Text), lo: s.Lo, place: place, escape: needsEscape(s.Kind, place)}
	switch s.Kind {
	case scenarios.GenInt:
		g.span = uint64(s.Hi - s.Lo)
	case scenarios.GenFloat:
		g.flo, g.fspan = s.FLo, s.FHi-s.FLo
	case scenarios.GenChoice:
		acc := 0.0
		for i, c := range s.Choices {
			acc += s.Weights[i]
			g.choices = append(g.choices, []byte(c))
			g.cum = append(g.cum, acc)
		}
	case scenarios.GenBinding:
		g.binding = index[s.Text]
	}
	return g
}

func printable(r *rand.Rand, n int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return b
}

// words are what {text:N} draws from (none longer than
// scenarios.MaxTextWord).
var words = [...]string{
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
	"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
	"uniform", "victor", "whiskey", "xray", "yankee", "zulu", "amber", "basalt", "cobalt", "dune",
	"ember", "fjord", "glacier", "harbor", "island", "jungle", "kelp", "lagoon", "meadow", "nebula",
	"orchid", "prairie", "quartz", "river", "savanna", "tundra", "umber", "valley", "willow", "yarrow",
	"zephyr", "anchor", "beacon", "canyon", "delta", "estuary", "forest", "grove", "hollow", "inlet",
	"summit", "ridge", "spring", "stone",
}

// Renderer renders a program's ops for one worker. Not safe for
// concurrent use.
type Renderer struct {
	p        *Program
	choosers []scenarios.Chooser
	vals     [][]byte // each binding's value for the op being rendered
	ends     []int    // where each part ends in buf (-1: static)
	scratch  []byte   // a value before it is escaped for its place
}

// NewRenderer returns a worker's renderer for p.
func NewRenderer(p *Program) *Renderer {
	r := &Renderer{p: p, choosers: make([]scenarios.Chooser, len(p.bindings)), vals: make([][]byte, len(p.bindings))}
	for i, b := range p.bindings {
		if b.chooser != nil {
			r.choosers[i] = b.chooser()
		}
	}
	return r
}

// Render renders op's template strings into buf and parts (both reused:
// pass them back with length 0) and returns them: parts[i] is template i
// in the order scenarios' Templates lists them. key is the op's key
// ({key}), seq its index in the schedule ({seq}), rng the worker's
// stream. Once buf and parts have grown to an op's size, it allocates
// nothing.
func (r *Renderer) Render(op scenarios.Op, key []byte, seq uint64, rng *rand.Rand, buf []byte, parts [][]byte) ([]byte, [][]byte) {
	o := r.p.ops[op-scenarios.OpCustomBase]
	for _, b := range o.bindings {
		bd := &r.p.bindings[b]
		v := r.vals[b][:0]
		if bd.gen != nil {
			v = r.appendGen(v, bd.gen, key, seq, rng)
		} else {
			v = append(v, bd.prefix...)
			v = strconv.AppendInt(v, r.choosers[b].Next(rng), 10)
		}
		r.vals[b] = v
	}
	// Parts are appended to buf first and sliced after, since buf may
	// move while it grows.
	endsS := r.ends[:0]
	for i := range o.parts {
		pt := &o.parts[i]
		if pt.static != nil {
			endsS = append(endsS, -1)
			continue
		}
		for j := range pt.gens {
			buf = r.appendPlaced(buf, &pt.gens[j], key, seq, rng)
		}
		endsS = append(endsS, len(buf))
	}
	start := 0
	for i := range o.parts {
		if endsS[i] < 0 {
			parts = append(parts, o.parts[i].static)
			continue
		}
		parts = append(parts, buf[start:endsS[i]:endsS[i]])
		start = endsS[i]
	}
	r.ends = endsS
	return buf, parts
}

func (r *Renderer) appendGen(b []byte, g *gen, key []byte, seq uint64, rng *rand.Rand) []byte {
	switch g.kind {
	case scenarios.GenLiteral:
		return append(b, g.lit...)
	case scenarios.GenKey:
		return append(b, key...)
	case scenarios.GenBinding:
		return append(b, r.vals[g.binding]...)
	case scenarios.GenInt:
		var v uint64
		if g.span == ^uint64(0) {
			v = rng.Uint64()
		} else {
			v = rng.Uint64N(g.span + 1)
		}
		return strconv.AppendInt(b, g.lo+int64(v), 10)
	case scenarios.GenFloat:
		return strconv.AppendFloat(b, g.flo+rng.Float64()*g.fspan, 'f', 6, 64)
	case scenarios.GenSeq:
		return strconv.AppendUint(b, seq, 10)
	case scenarios.GenBytes:
		n := int(g.lo)
		off := rng.IntN(len(r.p.pool) - n + 1)
		return append(b, r.p.pool[off:off+n]...)
	case scenarios.GenText:
		for i := int64(0); i < g.lo; i++ {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, words[rng.IntN(len(words))]...)
		}
		return b
	case scenarios.GenChoice:
		u := rng.Float64() * g.cum[len(g.cum)-1]
		i := sort.SearchFloat64s(g.cum, u)
		if i >= len(g.choices) {
			i = len(g.choices) - 1
		}
		return append(b, g.choices[i]...)
	case scenarios.GenUUID:
		return appendUUID(b, rng.Uint64(), rng.Uint64())
	case scenarios.GenNowMs:
		return strconv.AppendInt(b, time.Now().UnixMilli(), 10)
	case scenarios.GenCorpus:
		return r.p.appendCorpus(b, string(g.lit), rng)
	}
	return b
}

// appendUUID appends a version 4 UUID made of hi and lo.
func appendUUID(b []byte, hi, lo uint64) []byte {
	const hexd = "0123456789abcdef"
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	var u [16]byte
	for i := 0; i < 8; i++ {
		u[i] = byte(hi >> (56 - 8*i))
		u[8+i] = byte(lo >> (56 - 8*i))
	}
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexd[c>>4], hexd[c&0xf])
	}
	return b
}
