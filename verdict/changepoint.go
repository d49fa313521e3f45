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
// segment is shuffled up to Permutations times with a fixed seed (so
// the output is a pure function of the input and the options) and p is
// the share of shuffles whose best Q reaches the observed one, or with
// fewer than tailHits such shuffles an estimate from the shuffles'
// upper tail (permTest).
//
// A slow drift is a change of distribution too, and E-divisive alone
// splits it. So a candidate must also be abrupt: on running medians,
// the best step must fit the segment better than its least-squares
// line, beyond what steps fit to that line with the step's residuals
// shuffled (stepLine, at StepAlpha), or, for a change of spread without
// a step, the line's residuals must pass the energy permutation test.
// The p-value reported is the energy test's (the larger of it and the
// residuals' for a spread change). Segments are bisected recursively
// (most significant split first) until no segment holds a significant,
// abrupt split.
//
// Work: the sums of |x_i-x_j| before every split come from Fenwick
// trees over the segment's value ranks, O(m log m) per scan instead of
// O(m²); the step test is O(m) per permutation. A segment costs at most
// Permutations energy scans and stepPermutations step tests, far fewer
// when the shuffles reaching the statistic already rule out
// significance or the tail already puts it far beyond them. Each round
// of bisection scans segments that partition the series, so a series of
// n points with k change points costs O(P·n·log n·(k+1)) and O(n)
// memory. Longer series than MaxPoints are averaged into MaxPoints
// buckets first, so a 12-hour run at 1 s costs what the same run at
// 1 min does.

// ChangeOptions tune Detect. The zero value means the defaults
// (DefaultChangeOptions).
type ChangeOptions struct {
	// Alpha is the significance level each test must reach (p ≤ Alpha).
	Alpha float64
	// Permutations bounds the energy test's shuffles (the decision
	// needs Alpha·(Permutations+1) ≥ 1; p below 1/(Permutations+1) is
	// estimated from the shuffles' tail).
	Permutations int
	// MinSize is the fewest points on either side of a change point.
	MinSize int
	// MinRelChange, when > 0, drops change points where neither the
	// median (less 1.5 standard errors of the medians' difference) nor
	// the spread (median absolute deviation) moves by this fraction of
	// the median before: significant but too small to matter.
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

// DefaultChangeOptions: 0.5% significance from up to 999 permutations, segments
// of at least 5 points, at most 720 points (12 hours at 1 minute).
func DefaultChangeOptions() ChangeOptions {
	return ChangeOptions{Alpha: 0.005, Permutations: 999, MinSize: 5, MaxPoints: 720, Seed: 0x50a4d}
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
	// PValue is the segment's permutation test's p-value (the larger of
	// it and the residuals' for a change of spread): the share of
	// shuffles reaching the statistic, or with fewer than tailHits of
	// them an estimate from the shuffles' upper tail, so never the
	// 1/(Permutations+1) a share alone bottoms out at; at least
	// MinPValue.
	PValue float64 `json:"p_value"`
	// BeforeN and AfterN are how many points Before and After are the
	// medians of.
	BeforeN int `json:"before_n"`
	AfterN  int `json:"after_n"`
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
		cp := ChangePoint{Index: at, Before: b, After: a, Magnitude: a - b, PValue: f.p, BeforeN: at - lo, AfterN: hi - at,
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
	pe, ok := permTest(o, q, func() float64 {
		e.shuffle(rng)
		_, pq := e.scan(o.MinSize, 0)
		return pq
	})
	if c.p = pe; !ok {
		return c
	}
	// Abrupt, not a drift: a step fits the segment better than its
	// straight line, beyond what steps fit to that line with the same
	// noise (at StepAlpha), or else a change of spread in the residuals
	// of that line (at Alpha).
	seg := ys[lo:hi]
	so := o
	so.Alpha, so.Permutations = StepAlpha, stepPermutations
	if _, ok := newStepLine(seg, o.MinSize).test(rng, so); !ok {
		r := newEnergy(detrend(seg))
		_, rq := r.scan(o.MinSize, 0)
		if rq <= 0 {
			return c
		}
		ps, ok := permTest(o, rq, func() float64 {
			r.shuffle(rng)
			_, pq := r.scan(o.MinSize, 0)
			return pq
		})
		if !ok {
			return c
		}
		c.p = max(c.p, ps)
	}
	if o.MinRelChange > 0 || o.MinAbsChange > 0 {
		left, right := raw[lo:c.at], raw[c.at:hi]
		bl, br := median(left), median(right)
		ml, mr := mad(left, bl), mad(right, br)
		dl, ds := math.Abs(br-bl), math.Abs(mr-ml)
		// The level's move less floorZ standard errors of the medians'
		// difference (a median's: 1.2533·σ/√n, σ ≈ 1.4826·MAD).
		se := 1.2533 * 1.4826 * math.Sqrt(ml*ml/float64(len(left))+mr*mr/float64(len(right)))
		dl = max(0, dl-floorZ*se)
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

// shuffle permutes the segment's values (their ranks and distance sums
// along).
func (e *energy) shuffle(rng *rand.Rand) {
	rng.Shuffle(len(e.x), func(i, j int) {
		e.x[i], e.x[j] = e.x[j], e.x[i]
		e.rank[i], e.rank[j] = e.rank[j], e.rank[i]
		e.rowS[i], e.rowS[j] = e.rowS[j], e.rowS[i]
	})
}

// mad is the median absolute deviation from m.
func mad(xs []float64, m float64) float64 {
	d := make([]float64, len(xs))
	for i, v := range xs {
		d[i] = math.Abs(v - m)
	}
	return median(d)
}

// Permutation tests are sequential: a test stops as soon as more
// shuffles have reached the statistic than a p ≤ Alpha allows (most
// segments without a change stop within a few dozen shuffles), and
// stops early the other way once the shuffles so far put the statistic
// far beyond anything they reach (tailSure). When fewer than tailHits
// shuffles reach the statistic, the share of shuffles reaching it says
// little more than "below tailHits/(N+1)", so p is estimated from the
// shuffles' upper tail instead: the statistics are maxima of
// squared-distance sums over the splits, whose tails are exponential
// (the Gumbel domain of attraction), so an exponential is fitted to the
// excesses of the top tailK shuffles over the next (peaks over a
// threshold, as in Knijnenburg et al., "Fewer permutations, more
// accurate P-values", Bioinformatics 2009) and p is the share beyond
// the threshold times the fitted chance of exceeding the statistic.
// MinPValue is the smallest p-value Detect reports: a tail extrapolated
// further than that says only "far beyond every shuffle".
const MinPValue = 1e-10

const (
	tailHits = 5    // fewer shuffles reaching the statistic: p from the tail
	tailMin  = 99   // shuffles before an early accept
	tailSure = 1e-3 // early accept once the tail's p is below Alpha·tailSure
)

// permTest runs up to o.Permutations shuffles (each returns the
// statistic of one shuffled segment) against the observed statistic q
// and returns the p-value and whether p ≤ o.Alpha. The decision is the
// exact permutation test's, (1 + shuffles reaching q)/(N + 1) ≤ Alpha,
// except for an early accept when the tail's p is below Alpha·tailSure;
// the p returned is that share, or with fewer than tailHits shuffles
// reaching q the tail's estimate, at most min(tailHits/(N+1), Alpha).
func permTest(o ChangeOptions, q float64, shuffle func() float64) (float64, bool) {
	n := o.Permutations
	allowed := int(math.Floor(o.Alpha*float64(n+1)*(1+1e-12))) - 1 // shuffles reaching q a p ≤ Alpha allows
	if allowed < 0 {
		return 1, false
	}
	reach := q - 1e-12*math.Abs(q)
	var stats []float64
	hits := 0
	for k := 1; k <= n; k++ {
		s := shuffle()
		stats = append(stats, s)
		if s >= reach {
			if hits++; hits > allowed {
				return float64(1+hits) / float64(k+1), false
			}
		}
		if hits == 0 && k >= tailMin && (k+1)%100 == 0 {
			if pt := tailP(stats, q); pt <= o.Alpha*tailSure {
				return max(MinPValue, pt), true
			}
		}
	}
	if hits >= tailHits {
		return float64(1+hits) / float64(n+1), true
	}
	return max(MinPValue, min(tailP(stats, q), float64(tailHits)/float64(n+1), o.Alpha)), true
}

// tailP estimates the chance that a shuffle's statistic reaches q from
// the upper tail of stats (q beyond all but a few of them): an
// exponential fitted to the excesses of the top k over the (k+1)th
// largest. It returns +Inf when the tail cannot be fitted (ties).
func tailP(stats []float64, q float64) float64 {
	n := len(stats)
	k := min(50, max(10, n/40))
	if n < 2*k {
		return math.Inf(1)
	}
	s := slices.Clone(stats)
	slices.Sort(s)
	u := s[n-1-k]
	beta := 0.0
	for _, v := range s[n-k:] {
		beta += v - u
	}
	beta /= float64(k)
	if beta <= 0 || q <= u {
		return math.Inf(1)
	}
	return float64(k) / float64(n+1) * math.Exp(-(q-u)/beta)
}

// StepAlpha is the level of the abruptness test (stepLine): it tells a
// step from a drift once the energy test has found a change at Alpha,
// so it guards against drifts, not against noise. A stricter level
// costs short series their steps: at 20 intervals a straight line fits
// a step with 10 points a side nearly as well as the step does.
const StepAlpha = 0.05

// stepPermutations bound the abruptness test's shuffles: its p is not
// reported, and at StepAlpha 399 shuffles decide it as well as more.
const stepPermutations = 399

// floorZ: a level move counts against the floors (MinRelChange,
// MinAbsChange) less floorZ standard errors of the two medians'
// difference, so a move must clear a floor with some confidence, not
// only in its point estimate. Noise that wanders (a shared host's
// latency, AR(1)-like) makes medians of 10 intervals differ by the 20%
// latency floor now and then; a real 2x step clears it by far.
const floorZ = 1.5

// stepSmooth is the running median the abruptness test looks through:
// a busy interval or two vanish, a step's edge survives whole (each
// side has at least MinSize points), and noise that wanders for a few
// intervals (AR(1)-like, as latency does on a shared host) is smoothed
// into what a line fits better than a step.
const stepSmooth = 5

// stepLine asks whether a segment is a step rather than a drift. The
// statistic is how much better the best step (two levels split at τ,
// every τ leaving MinSize a side) fits than the least-squares line,
// (RSS_line - RSS_step) / RSS_step, on the values' running medians of
// stepSmooth. Its null is a drift: the segment's line (fitted to the
// running medians) plus the values' residuals from the median of their
// side of the best step, in shuffled order. For a step those residuals
// are its noise, and a line with that noise is seldom told better by a
// step; for a drift they hold the part of the line no step follows as
// well as the noise, so the null is noisier than the drift and the test
// errs towards "drift".
//
// (Before: an F test of a step beyond the line, with the line in the
// model too, on the values and on their ranks, each at Alpha/2. A line
// takes three quarters of the sum of squares of a step in the middle of
// 20 points, and ranks of a step with noise on each side are as
// straight as ranks of a drift, so a clean 2x step of p99 at 20
// intervals passed about 3 times in 4.)
type stepLine struct {
	x, fit, r, y []float64 // values, the line, the residuals of the step, scratch
	sm, win      []float64 // scratch for runningMedian
	minSize      int
}

func newStepLine(xs []float64, minSize int) *stepLine {
	m := len(xs)
	t := &stepLine{x: xs, fit: make([]float64, m), r: make([]float64, m), y: make([]float64, m),
		sm: make([]float64, m), win: make([]float64, stepSmooth), minSize: minSize}
	sm := slices.Clone(runningMedian(t.sm, t.win, xs))
	lr := detrend(sm)
	for i, v := range sm {
		t.fit[i] = v - lr[i]
	}
	tau, _ := bestStep(sm, minSize)
	l, r := median(xs[:tau]), median(xs[tau:])
	for i, v := range xs {
		if i < tau {
			t.r[i] = v - l
		} else {
			t.r[i] = v - r
		}
	}
	return t
}

// bestStep returns the split τ in [minSize, m-minSize] whose two levels
// explain the most of y's sum of squares about its mean, and that sum.
func bestStep(y []float64, minSize int) (int, float64) {
	m := len(y)
	fm := float64(m)
	mu := 0.0
	for _, v := range y {
		mu += v
	}
	mu /= fm
	bestT, best, left := minSize, 0.0, 0.0 // left: Σ_{i<τ} (y_i - mean)
	for i := 0; i < m-minSize; i++ {
		left += y[i] - mu
		if tau := i + 1; tau >= minSize {
			if ss := left * left * fm / (float64(tau) * (fm - float64(tau))); ss > best {
				bestT, best = tau, ss
			}
		}
	}
	return bestT, best
}

// stat returns (RSS_line - RSS_step)/RSS_step of y's running medians at
// their best step (+Inf for a perfect step, -Inf for a perfect line).
func (t *stepLine) stat(y []float64) float64 {
	y = runningMedian(t.sm, t.win, y)
	m := len(y)
	fm := float64(m)
	mu := 0.0
	for _, v := range y {
		mu += v
	}
	mu /= fm
	xm := (fm - 1) / 2
	var tot, sxy, sxx float64
	for i, v := range y {
		d, x := v-mu, float64(i)-xm
		tot += d * d
		sxy += x * d
		sxx += x * x
	}
	_, step := bestStep(y, t.minSize)
	rssStep, rssLine := tot-step, tot-sxy*sxy/sxx
	eps := 1e-12 * tot
	switch {
	case rssStep <= eps && rssLine <= eps:
		return 0
	case rssStep <= eps:
		return math.Inf(1)
	case rssLine <= eps:
		return math.Inf(-1)
	}
	return (rssLine - rssStep) / rssStep
}

// test is the permutation test of stat (a step no better than the line:
// p = 1).
func (t *stepLine) test(rng *rand.Rand, o ChangeOptions) (float64, bool) {
	q := t.stat(t.x)
	if !(q > 0) {
		return 1, false
	}
	p := slices.Clone(t.r)
	return permTest(o, q, func() float64 {
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		for i, v := range p {
			t.y[i] = t.fit[i] + v
		}
		return t.stat(t.y)
	})
}

// runningMedian writes into out each point's median of the stepSmooth
// points around it (the window kept whole at the ends; win is scratch
// of that length) and returns out.
func runningMedian(out, win, xs []float64) []float64 {
	m, w := len(xs), len(win)
	if m < w {
		return append(out[:0], xs...)
	}
	for i := range xs {
		lo := min(max(0, i-w/2), m-w)
		if w == 5 {
			out[i] = median5(xs[lo], xs[lo+1], xs[lo+2], xs[lo+3], xs[lo+4])
			continue
		}
		copy(win, xs[lo:lo+w])
		slices.Sort(win)
		out[i] = win[w/2]
	}
	return out
}

// median5 is the median of five values, found with six comparisons
// instead of a sort (runningMedian's inner loop).
func median5(a, b, c, d, e float64) float64 {
	// Order the pairs (a ≤ b, c ≤ d), then drop the least of a and c
	// (it has three values above it: not the median).
	if a > b {
		a, b = b, a
	}
	if c > d {
		c, d = d, c
	}
	if a > c {
		a, c = c, a
		b, d = d, b
	}
	// The median of the five is the second least of b, c, d, e.
	a = e
	if a > b {
		a, b = b, a
	}
	// Now a ≤ b and c ≤ d: the median is the larger of the two lesser.
	return min(max(a, c), min(b, d))
}
