package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync/atomic"
)

// Chooser picks the record number an op touches, in [0, n).
type Chooser interface {
	Next(r *rand.Rand) int64
}

// Inserted counts the records that exist so far; the latest distribution
// reads it and inserts advance it. It is shared by the workers of a run.
type Inserted struct{ n atomic.Int64 }

// Load returns the current record count.
func (c *Inserted) Load() int64 { return c.n.Load() }

// Store sets the record count.
func (c *Inserted) Store(v int64) { c.n.Store(v) }

// Add advances the count and returns the new value.
func (c *Inserted) Add(d int64) int64 { return c.n.Add(d) }

// Max raises the count to v if it is lower.
func (c *Inserted) Max(v int64) {
	for cur := c.n.Load(); cur < v && !c.n.CompareAndSwap(cur, v); cur = c.n.Load() {
	}
}

// NewChoosers prepares what every worker's chooser shares (the zipfian
// constants cost O(min(n, 2^20)) to compute) and returns a constructor
// for per-worker choosers.
func NewChoosers(ks Keyspace, inserted *Inserted) (func() Chooser, error) {
	switch ks.Distribution {
	case DistZipfian:
		z := newZipf(ks.Records, ks.ZipfTheta) // read-only once built
		return func() Chooser { return &scrambledZipf{z: z, n: ks.Records} }, nil
	case DistLatest:
		if inserted == nil {
			inserted = &Inserted{}
			inserted.Store(ks.Records)
		}
		base := newZipf(max(inserted.Load(), 1), ks.ZipfTheta)
		return func() Chooser {
			z := *base
			return &latest{theta: ks.ZipfTheta, inserted: inserted, z: &z}
		}, nil
	}
	if _, err := NewChooser(ks, inserted); err != nil {
		return nil, err
	}
	return func() Chooser { c, _ := NewChooser(ks, inserted); return c }, nil
}

// NewChooser builds the key chooser for a keyspace. inserted is used by
// "latest" (and bounds the others when fewer records exist than the
// keyspace declares); it may be nil for a fixed keyspace.
func NewChooser(ks Keyspace, inserted *Inserted) (Chooser, error) {
	n := ks.Records
	switch ks.Distribution {
	case "", DistUniform:
		return &uniform{n: n, inserted: inserted}, nil
	case DistZipfian:
		return &scrambledZipf{z: newZipf(n, ks.ZipfTheta), n: n}, nil
	case DistHotspot:
		hot := int64(math.Round(float64(n) * ks.HotFraction))
		if hot < 1 {
			hot = 1
		}
		if hot >= n {
			hot = n - 1
		}
		return &hotspot{n: n, hot: hot, hotOps: ks.HotOps}, nil
	case DistLatest:
		if inserted == nil {
			inserted = &Inserted{}
			inserted.Store(n)
		}
		return &latest{theta: ks.ZipfTheta, inserted: inserted}, nil
	}
	return nil, fmt.Errorf("unknown distribution %q", ks.Distribution)
}

type uniform struct {
	n        int64
	inserted *Inserted
}

func (u *uniform) Next(r *rand.Rand) int64 {
	n := u.n
	if u.inserted != nil {
		if c := u.inserted.Load(); c > 0 && c < n {
			n = c
		}
	}
	return r.Int64N(n)
}

type hotspot struct {
	n, hot int64
	hotOps float64
}

func (h *hotspot) Next(r *rand.Rand) int64 {
	if r.Float64() < h.hotOps {
		return r.Int64N(h.hot)
	}
	return h.hot + r.Int64N(h.n-h.hot)
}

// zipf draws ranks 0..n-1 with P(rank i) proportional to 1/(i+1)^theta,
// following Gray et al., "Quickly generating billion-record synthetic
// databases" (the method YCSB uses). It can grow n incrementally.
type zipf struct {
	theta, alpha, zeta2, zetan, eta float64
	n                               int64
}

func newZipf(n int64, theta float64) *zipf {
	z := &zipf{theta: theta, alpha: 1 / (1 - theta), zeta2: zetaRange(0, 2, theta)}
	z.resize(n)
	return z
}

func (z *zipf) resize(n int64) {
	if n <= z.n {
		if n == z.n {
			return
		}
		z.n, z.zetan = 0, 0
	}
	z.zetan += zetaRange(z.n, n, z.theta)
	z.n = n
	z.eta = (1 - math.Pow(2/float64(n), 1-z.theta)) / (1 - z.zeta2/z.zetan)
}

func (z *zipf) next(r *rand.Rand) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if z.n > 1 && uz < 1+math.Pow(0.5, z.theta) {
		return 1
	}
	v := int64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	if v >= z.n {
		v = z.n - 1
	}
	if v < 0 {
		v = 0
	}
	return v
}

// exactZetaTerms is how many terms of the zeta sum are added one by one;
// beyond it the tail is an Euler-Maclaurin estimate, accurate to ~1e-9
// relative, so a 100M-record keyspace starts in microseconds, not seconds.
const exactZetaTerms = 1 << 20

// zetaRange returns sum_{i=from+1}^{to} 1/i^theta.
func zetaRange(from, to int64, theta float64) float64 {
	sum := 0.0
	i := from + 1
	for ; i <= to && i <= exactZetaTerms; i++ {
		sum += 1 / math.Pow(float64(i), theta)
	}
	if i <= to {
		// Tail from a=i-1 (exclusive) to b=to: integral plus endpoint corrections.
		a, b := float64(i), float64(to)
		f := func(x float64) float64 { return math.Pow(x, -theta) }
		integral := (math.Pow(b, 1-theta) - math.Pow(a, 1-theta)) / (1 - theta)
		d1 := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
		sum += integral + (f(a)+f(b))/2 + (d1(b)-d1(a))/12
	}
	return sum
}

// scrambledZipf spreads zipfian popularity over the keyspace by hashing
// the rank, as YCSB's ScrambledZipfianGenerator does, so hot records are
// not clustered at the start of the key range.
type scrambledZipf struct {
	z *zipf
	n int64
}

func (s *scrambledZipf) Next(r *rand.Rand) int64 {
	return int64(FNV64(uint64(s.z.next(r))) % uint64(s.n))
}

// latest favours the most recently inserted records (YCSB's
// SkewedLatestGenerator): rank 0 is the newest record.
type latest struct {
	theta    float64
	inserted *Inserted
	z        *zipf
}

func (l *latest) Next(r *rand.Rand) int64 {
	n := l.inserted.Load()
	if n < 1 {
		return 0
	}
	if l.z == nil {
		l.z = newZipf(n, l.theta)
	} else if n != l.z.n {
		l.z.resize(n)
	}
	return n - 1 - l.z.next(r)
}

// FNV64 is the 64-bit FNV-1a hash of the 8 bytes of v (YCSB's fnvhash64).
func FNV64(v uint64) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= 0x100000001b3
		v >>= 8
	}
	return h
}

// AppendKey appends the key of record n to dst: prefix plus the record
// number, hashed unless ordered (YCSB insertorder=hashed vs ordered).
func AppendKey(dst []byte, prefix string, n int64, ordered bool) []byte {
	dst = append(dst, prefix...)
	if ordered {
		// Zero-padded so lexical order equals numeric order.
		var buf [20]byte
		s := strconv.AppendInt(buf[:0], n, 10)
		for i := len(s); i < 12; i++ {
			dst = append(dst, '0')
		}
		return append(dst, s...)
	}
	return strconv.AppendUint(dst, FNV64(uint64(n)), 10)
}

// Mix picks ops by percentage. Picking is a pure function of a 64-bit
// input, so op i of a schedule has the same kind wherever it is decided
// (the dispatcher counting drops, the worker running it).
type Mix struct {
	ops   []Op
	cum   []uint64  // cumulative thresholds over the full uint64 range
	share []float64 // each op's fraction of the mix
}

// NewMix builds a Mix from percentages (which Validate checked add to
// 100), naming built-in ops or the custom ops of ops (the run's table).
func NewMix(m map[string]float64, ops *OpTable) (*Mix, error) {
	names := make([]string, 0, len(m))
	for k, w := range m {
		if w > 0 {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("empty mix")
	}
	sort.Strings(names)
	total := 0.0
	for _, k := range names {
		total += m[k]
	}
	mx := &Mix{}
	acc := 0.0
	for i, k := range names {
		op, ok := ops.Lookup(k)
		if !ok {
			return nil, fmt.Errorf("unknown op %q", k)
		}
		acc += m[k]
		th := uint64(math.MaxUint64)
		if i < len(names)-1 {
			th = uint64(acc / total * float64(math.MaxUint64))
		}
		mx.ops = append(mx.ops, op)
		mx.cum = append(mx.cum, th)
		mx.share = append(mx.share, m[k]/total)
	}
	return mx, nil
}

// Split apportions n ops over the mix by its shares (largest
// remainder), adding each op's count to out: the counts sum to n
// exactly. It is O(len(mix)), whatever n is.
func (m *Mix) Split(n int64, out *[NumOps]int64) {
	if n <= 0 {
		return
	}
	var given int64
	rem := make([]float64, len(m.ops))
	for i, op := range m.ops {
		exact := float64(n) * m.share[i]
		k := int64(exact)
		rem[i] = exact - float64(k)
		out[op] += k
		given += k
	}
	for ; given < n; given++ {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		out[m.ops[best]]++
		rem[best] = -1
	}
}

// Pick returns the op for a uniformly distributed 64-bit value.
func (m *Mix) Pick(u uint64) Op {
	for i, th := range m.cum {
		if u <= th {
			return m.ops[i]
		}
	}
	return m.ops[len(m.ops)-1]
}

// Ops returns the ops with a positive share, sorted by name.
func (m *Mix) Ops() []Op { return append([]Op(nil), m.ops...) }

// Mix64 is a splitmix64 finaliser: a fast, well-mixed hash used to turn a
// schedule index into the uniform value Pick expects.
func Mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Values hands out field values without allocating: slices of a
// per-worker buffer of random printable bytes, at random offsets.
type Values struct {
	buf  []byte
	size int
}

// NewValues builds a value source for fields of size bytes.
func NewValues(r *rand.Rand, size int) *Values {
	n := 64 << 10
	if n < 4*size {
		n = 4 * size
	}
	buf := make([]byte, n+size)
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for i := range buf {
		buf[i] = alphabet[r.IntN(len(alphabet))]
	}
	return &Values{buf: buf, size: size}
}

// Next returns a value of the configured size. It aliases an internal
// buffer that is never written after construction.
func (v *Values) Next(r *rand.Rand) []byte {
	off := r.IntN(len(v.buf) - v.size + 1)
	return v.buf[off : off+v.size : off+v.size]
}

// FieldName returns the name of field i ("field0".."fieldN", as YCSB).
func FieldName(i int) string { return "field" + strconv.Itoa(i) }
