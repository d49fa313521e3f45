package verdict

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Change-point detection: E-divisive means (Matteson & James, "A
// Nonparametric Approach for Multiple Change Point Analysis of
// Multivariate Data", JASA 2014), the method Apache Otava (formerly
// DataStax Hunter) and MongoDB's signal processing run over performance
// series.
//
// For a segment x[0:m) and a split τ the energy statistic (α = 1) is
//
//	Q(τ) = τ(m-τ)/m · ( 2/(τ(m-τ)) Σ_{i<τ≤j} |x_i-x_j|
//	                  - 2/(τ(τ-1)) Σ_{i<k<τ} |x_i-x_k|
//	                  - 2/((m-τ)(m-τ-1)) Σ_{τ≤j<k} |x_j-x_k| )
//
// which is large where the values before and after τ come from different
// distributions (a level shift or a change of spread). The best split is
// the τ with the largest Q. Its significance is a permutation test: the
// segment is shuffled Permutations times with a fixed seed and p is the
// share of shuffles whose best Q reaches the observed one (so the output
// is a pure function of the input and the options).
//
// A slow drift is a change of distribution too, and E-divisive alone
// splits it. So a candidate must also be abrupt: the segment must hold a
// step beyond its least-squares line (y = a + b·i + δ·[i ≥ τ] against
// y = a + b·i, the largest F over τ, permutations of the line's
// residuals for its null), or, for a change of spread without a step,
// the line's residuals must pass the energy permutation test. A linear
// drift leaves residuals that are noise; a step or a spread change does
// not. The p-value reported is the larger of the two tests'. Segments
// are bisected recursively (most significant split first) until no
// segment holds a significant, abrupt split.
//
// Work: the sums of |x_i-x_j| before every split come from Fenwick
// trees over the segment's value ranks, O(m log m) per scan instead of
// O(m²); the step test is O(m) per permutation. A segment costs at most
// 3·(Permutations+1) scans, fewer once the permutations beating the
// observed statistic already rule out significance. Each round of
// bisection scans segments that partition the series, so a series of n
// points with k change points costs O(P·n·log n·(k+1)) and O(n) memory. Longer
// series than MaxPoints are averaged into MaxPoints buckets first, so a
// 12-hour run at 1 s costs what the same run at 1 min does (720 points:
// at most 3 × 400 permutations × 720 × log 720 ≈ 9M Fenwick steps a
// round, a few milliseconds).

// ChangeOptions tune Detect. The zero value means the defaults
// (DefaultChangeOptions).
type ChangeOptions struct {
	// Alpha is the significance level each test must reach (p ≤ Alpha).
	Alpha float64
	// Permutations per test: p cannot go below 1/(Permutations+1).
	Permutations int
	// MinSize is the fewest points on either side of a change point.
	MinSize int
	// MinRelChange, when > 0, drops change points where neither the
	// median nor the spread (median absolute deviation) moves by this
	// fraction of the median before: significant but too small to matter.
	MinRelChange float64
	// MinAbsChange, when > 0, drops change points where neither the
	// median nor the spread moves by this much (for series that sit at
	// 0, such as error ratios, where a relative move means nothing). A
	// change must pass every floor that is set.
	MinAbsChange float64
	// MaxPoints bounds the series length: longer series are averaged
	// into MaxPoints buckets before detection (indexes are reported in
	// the caller's series).
	MaxPoints int
	// Seed for the permutations.
	Seed uint64
}

// DefaultChangeOptions: 0.5% significance from 399 permutations, segments
// of at least 5 points, at most 720 points (12 hours at 1 minute).
func DefaultChangeOptions() ChangeOptions {
	return ChangeOptions{Alpha: 0.005, Permutations: 399, MinSize: 5, MaxPoints: 720, Seed: 0x50a4d}
}

func (o ChangeOptions) withDefaults() ChangeOptions {
	d := DefaultChangeOptions()
	if o.Alpha <= 0 {
		o.Alpha = d.Alpha
	}
	if o.Permutations <= 0 {
		o.Permutations = d.Permutations
	}
	if o.MinSize < 2 {
		o.MinSize = max(2, d.MinSize)
	}
	if o.MaxPoints <= 0 {
		o.MaxPoints = d.MaxPoints
	}
	o.MaxPoints = max(o.MaxPoints, 4*o.MinSize)
	if o.Seed == 0 {
		o.Seed = d.Seed
	}
	return o
}

// ChangePoint is one change found in a series.
type ChangePoint struct {
	// Index is the first point after the change.
	Index int `json:"index"`
	// Before and After are the medians of the points between the
	// neighbouring change points (or the series' ends) and this one.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Magnitude is After-Before; RelChange is Magnitude/|Before| (0 when
	// Before is 0).
	Magnitude float64 `json:"magnitude"`
	RelChange float64 `json:"rel_change"`
	// PValue is the larger of the segment's permutation test's and the
	// abruptness test's p-values (at least 1/(Permutations+1)).
	PValue float64 `json:"p_value"`
	// BeforeSpread and AfterSpread are the same points' median absolute
	// deviations from their medians.
	BeforeSpread float64 `json:"before_spread"`
	AfterSpread  float64 `json:"after_spread"`
	// Spread is true when the spread moved more than the level
	// (|AfterSpread-BeforeSpread| > |After-Before|): a change of
	// variance, such as a rate that starts to jitter around the same
	// mean, rather than a step.
	Spread bool `json:"spread"`
}

// Detect finds the change points of xs, in index order. It is a pure
// function of xs and o: the same input always gives the same output.
// NaN points are not allowed (callers skip empty buckets).
func Detect(xs []float64, o ChangeOptions) []ChangePoint {
	o = o.withDefaults()
	n := len(xs)
	if n < 2*o.MinSize {
		return nil
	}
	// Bound the work: average groups of g points.
	g := (n + o.MaxPoints - 1) / o.MaxPoints
	ys := xs
	if g > 1 {
		ys = make([]float64, 0, (n+g-1)/g)
		for i := 0; i < n; i += g {
			j := min(n, i+g)
			s := 0.0
			for _, v := range xs[i:j] {
				s += v
			}
			ys = append(ys, s/float64(j-i))
		}
	}
	if flat(ys) {
		return nil
	}
	found := bisect(ys, scaled(ys), o)
	cps := make([]ChangePoint, 0, len(found))
	for k, f := range found {
		at := f.at * g
		lo, hi := 0, n
		if k > 0 {
			lo = found[k-1].at * g
		}
		if k+1 < len(found) {
			hi = found[k+1].at * g
		}
		b, a := median(xs[lo:at]), median(xs[at:hi])
		bs, as := mad(xs[lo:at], b), mad(xs[at:hi], a)
		cp := ChangePoint{Index: at, Before: b, After: a, Magnitude: a - b, PValue: f.p,
			BeforeSpread: bs, AfterSpread: as, Spread: math.Abs(as-bs) > math.Abs(a-b)}
		if b != 0 {
			cp.RelChange = (a - b) / math.Abs(b)
		}
		cps = append(cps, cp)
	}
	return cps
}

// candidate is a segment's best split and its significance.
type candidate struct {
	lo, hi, at int // segment [lo,hi), split at
	p, q       float64
	ok         bool
}

// flatEpsilon is the relative spread below which a series (or segment)
// counts as constant: max-min ≤ flatEpsilon·max(|max|,|min|). Float
// rounding (averaging identical values into buckets, the Fenwick sums)
// moves values by a few ulps (~1e-16 relative); no metric soakd
// measures changes by a billionth of itself for a reason worth naming.
const flatEpsilon = 1e-9

// flat says whether xs is constant up to flatEpsilon.
func flat(xs []float64) bool {
	if len(xs) == 0 {
		return true
	}
	lo, hi := xs[0], xs[0]
	for _, v := range xs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi-lo <= flatEpsilon*max(math.Abs(hi), math.Abs(lo))
}

// scaled maps xs onto [-0.5, 0.5] (centred on the midpoint of its
// range, divided by the range): every statistic Detect computes is
// invariant under it (splits, ranks, F), and the sums of distances are
// then of order 1 instead of carrying a large common level whose
// rounding cancels into spurious differences. xs must not be flat.
func scaled(xs []float64) []float64 {
	lo, hi := xs[0], xs[0]
	for _, v := range xs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	mid, span := lo/2+hi/2, hi-lo
	if math.IsInf(span, 0) { // |values| near MaxFloat64
		mid, span = 0, max(math.Abs(lo), math.Abs(hi))
	}
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = (v - mid) / span
	}
	return out
}

// bisect returns the accepted splits in index order: raw is the series,
// zs the same series scaled (the statistics run on zs; the floors
// MinRelChange and MinAbsChange on raw).
func bisect(raw, zs []float64, o ChangeOptions) []candidate {
	var found []candidate
	evaluate := func(lo, hi int) candidate { return evaluate(raw, zs, lo, hi, o) }
	segs := []candidate{evaluate(0, len(raw))}
	for {
		best := -1
		for i, c := range segs {
			if c.ok && (best < 0 || c.p < segs[best].p || (c.p == segs[best].p && c.q > segs[best].q)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		c := segs[best]
		found = append(found, c)
		segs = slices.Delete(segs, best, best+1)
		segs = append(segs, evaluate(c.lo, c.at), evaluate(c.at, c.hi))
	}
	sort.Slice(found, func(i, j int) bool { return found[i].at < found[j].at })
	return found
}

// evaluate finds segment [lo,hi)'s best split and tests it: the
// segment's permutation test, then the abruptness test, then
// MinRelChange. A segment constant up to flatEpsilon has no split.
func evaluate(raw, ys []float64, lo, hi int, o ChangeOptions) candidate {
	c := candidate{lo: lo, hi: hi}
	if hi-lo < 2*o.MinSize || flat(raw[lo:hi]) {
		return c
	}
	e := newEnergy(ys[lo:hi])
	tau, q := e.scan(o.MinSize, 0)
	if q <= 0 {
		return c
	}
	c.at, c.q = lo+tau, q
	// The seed depends on the segment only, so a segment's verdict does
	// not depend on the order segments are evaluated in.
	rng := rand.New(rand.NewPCG(o.Seed, uint64(lo)<<32|uint64(hi)))
	if c.p = e.permute(rng, o, q, o.MinSize, 0); c.p > o.Alpha {
		return c
	}
	// Abrupt, not a drift: a step beyond the segment's straight line,
	// or else a change of spread in the residuals of that line.
	seg := ys[lo:hi]
	// The step test runs on the values (most power for a clean step) and
	// on their ranks (a stall's outliers do not swamp it); the better p
	// counts twice (Bonferroni), so a drift still passes at most Alpha.
	half := o
	half.Alpha = o.Alpha / 2
	pv := newStepTest(seg, o.MinSize, false).permute(rng, half)
	pr := newStepTest(seg, o.MinSize, true).permute(rng, half)
	ps := min(1, 2*min(pv, pr))
	if ps > o.Alpha {
		r := newEnergy(detrend(seg))
		_, rq := r.scan(o.MinSize, 0)
		if rq <= 0 {
			return c
		}
		ps = r.permute(rng, o, rq, o.MinSize, 0)
	}
	if c.p = max(c.p, ps); c.p > o.Alpha {
		return c
	}
	if o.MinRelChange > 0 || o.MinAbsChange > 0 {
		left, right := raw[lo:c.at], raw[c.at:hi]
		bl, br := median(left), median(right)
		dl, ds := math.Abs(br-bl), math.Abs(mad(right, br)-mad(left, bl))
		if o.MinRelChange > 0 && (bl == 0 || max(dl, ds) < o.MinRelChange*math.Abs(bl)) {
			return c
		}
		if o.MinAbsChange > 0 && max(dl, ds) < o.MinAbsChange {
			return c
		}
	}
	c.ok = true
	return c
}

// detrend returns xs less their least-squares line.
func detrend(xs []float64) []float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i, y := range xs {
		x := float64(i)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	b := 0.0
	if d := n*sxx - sx*sx; d != 0 {
		b = (n*sxy - sx*sy) / d
	}
	a := (sy - b*sx) / n
	r := make([]float64, len(xs))
	for i, y := range xs {
		r[i] = y - a - b*float64(i)
	}
	return r
}

// energy holds a segment for repeated scans: its values, each value's
// rank among them and each value's sum of distances to all the others
// (both independent of the order, so permutations shuffle them along).
type energy struct {
	x     []float64
	rank  []int
	rowS  []float64
	total float64 // Σ_{i<j} |x_i-x_j|
	cnt   []int   // Fenwick trees over ranks, reset per scan
	sum   []float64
}

func newEnergy(xs []float64) *energy {
	m := len(xs)
	e := &energy{x: slices.Clone(xs), rank: make([]int, m), rowS: make([]float64, m), cnt: make([]int, m+1), sum: make([]float64, m+1)}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return xs[order[a]] < xs[order[b]] })
	prefix := make([]float64, m+1)
	for r, i := range order {
		prefix[r+1] = prefix[r] + xs[i]
	}
	for r, i := range order {
		v := xs[i]
		e.rank[i] = r
		e.rowS[i] = float64(r)*v - prefix[r] + (prefix[m] - prefix[r+1]) - float64(m-1-r)*v
		e.total += e.rowS[i]
	}
	e.total /= 2
	return e
}

// scan returns the split τ in [minSize, m-minSize] with the largest Q,
// or with fixed > 0 only Q at τ = fixed.
func (e *energy) scan(minSize, fixed int) (int, float64) {
	m := len(e.x)
	clear(e.cnt)
	clear(e.sum)
	fm := float64(m)
	var within, rest, seen float64 = 0, e.total, 0
	bestT, bestQ := 0, math.Inf(-1)
	for p := 0; p < m; p++ {
		v, r := e.x[p], e.rank[p]
		// Points before p of lower rank, and their sum.
		cl, sl := 0, 0.0
		for i := r; i > 0; i -= i & -i {
			cl += e.cnt[i]
			sl += e.sum[i]
		}
		left := float64(cl)*v - sl + (seen - sl) - float64(p-cl)*v
		within += left
		rest -= e.rowS[p] - left
		seen += v
		for i := r + 1; i <= m; i += i & -i {
			e.cnt[i]++
			e.sum[i] += v
		}
		tau := p + 1
		if tau < minSize || tau > m-minSize || (fixed > 0 && tau != fixed) {
			continue
		}
		ft := float64(tau)
		between := e.total - within - rest
		q := 2*between/fm - 2*within*(fm-ft)/(fm*(ft-1)) - 2*rest*ft/(fm*(fm-ft-1))
		if q > bestQ {
			bestT, bestQ = tau, q
		}
		if fixed > 0 {
			break
		}
	}
	return bestT, bestQ
}

// permute returns the permutation p-value of an observed statistic q:
// (1 + shuffles reaching q) / (Permutations + 1). It stops early once p
// must exceed Alpha (the candidate is rejected; the p returned is then
// a lower bound above Alpha).
func (e *energy) permute(rng *rand.Rand, o ChangeOptions, q float64, minSize, fixed int) float64 {
	limit := int(o.Alpha * float64(o.Permutations+1)) // p ≤ Alpha ⇔ 1+hits ≤ limit
	hits := 0
	for k := 0; k < o.Permutations; k++ {
		rng.Shuffle(len(e.x), func(i, j int) {
			e.x[i], e.x[j] = e.x[j], e.x[i]
			e.rank[i], e.rank[j] = e.rank[j], e.rank[i]
			e.rowS[i], e.rowS[j] = e.rowS[j], e.rowS[i]
		})
		if _, pq := e.scan(minSize, fixed); pq >= q*(1-1e-12) {
			hits++
			if 1+hits > limit {
				return float64(1+hits) / float64(k+2)
			}
		}
	}
	return float64(1+hits) / float64(o.Permutations+1)
}

// mad is the median absolute deviation from m.
func mad(xs []float64, m float64) float64 {
	d := make([]float64, len(xs))
	for i, v := range xs {
		d[i] = math.Abs(v - m)
	}
	return median(d)
}

// stepTest asks whether a segment (its values, or its ranks so one
// stall's outliers do not swamp a step) holds a step beyond a straight
// line:
// the model y = a + b·i + δ·[i ≥ τ] against y = a + b·i, the statistic
// the largest F(τ) = RSS reduction / remaining RSS over τ, its null
// distribution from permuting the line's residuals (the max over τ is
// in every permutation, so picking the best τ is accounted for).
type stepTest struct {
	r       []float64 // residuals of the line
	den     []float64 // per τ, |s̃|²: the step regressor less its projection on the line
	minSize int
}

func newStepTest(xs []float64, minSize int, ranked bool) *stepTest {
	if ranked {
		xs = ranks(xs)
	}
	m := len(xs)
	t := &stepTest{r: detrend(xs), den: make([]float64, m+1), minSize: minSize}
	fm := float64(m)
	mean := (fm - 1) / 2
	sxx := 0.0
	for i := 0; i < m; i++ {
		sxx += (float64(i) - mean) * (float64(i) - mean)
	}
	tail := 0.0 // Σ_{i≥τ} (i - mean)
	for tau := m - 1; tau >= 1; tau-- {
		tail += float64(tau) - mean
		k := fm - float64(tau)
		t.den[tau] = k - k*k/fm - tail*tail/sxx
	}
	return t
}

func (t *stepTest) stat(r []float64) float64 {
	m := len(r)
	rss := 0.0
	for _, v := range r {
		rss += v * v
	}
	best, tail := 0.0, 0.0
	for tau := m - 1; tau >= t.minSize; tau-- {
		tail += r[tau]
		if tau > m-t.minSize || t.den[tau] <= 1e-12 {
			continue
		}
		red := tail * tail / t.den[tau]
		if rest := rss - red; rest > 0 {
			best = max(best, red/rest)
		} else if red > 0 {
			return math.Inf(1)
		}
	}
	return best
}

func (t *stepTest) permute(rng *rand.Rand, o ChangeOptions) float64 {
	q := t.stat(t.r)
	if q <= 0 {
		return 1
	}
	limit := int(o.Alpha * float64(o.Permutations+1))
	hits := 0
	p := slices.Clone(t.r)
	for k := 0; k < o.Permutations; k++ {
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		if t.stat(detrend(p)) >= q*(1-1e-12) {
			hits++
			if 1+hits > limit {
				return float64(1+hits) / float64(k+2)
			}
		}
	}
	return float64(1+hits) / float64(o.Permutations+1)
}

// ranks returns each value's rank among xs, ties given their mean rank.
func ranks(xs []float64) []float64 {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return xs[order[a]] < xs[order[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && xs[order[j]] == xs[order[i]] {
			j++
		}
		for k := i; k < j; k++ {
			r[order[k]] = float64(i+j-1) / 2
		}
		i = j
	}
	return r
}
