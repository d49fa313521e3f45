package scenarios

import (
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
)

// PhaseGrowth grows the dataset in stages, measuring after each.
const PhaseGrowth PhaseKind = "growth"

// Growth defaults (a growth phase's growth: block).
const (
	DefaultGrowthMaxStages = 100
	DefaultCliffFactor     = 3.0
)

// GrowthSpec configures staged dataset growth.
type GrowthSpec struct {
	Batch       int64    `yaml:"batch"`        // records inserted per stage
	MeasureRate float64  `yaml:"measure_rate"` // ops/s while measuring
	MeasureFor  Duration `yaml:"measure_for"`
	LoadRate    float64  `yaml:"load_rate"` // 0 = as fast as allowed
	StopRecords int64    `yaml:"stop_records"`
	StopMemory  Bytes    `yaml:"stop_memory"`
	AfterCliff  int      `yaml:"after_cliff"`  // stages to run past the first cliff (-1 = don't stop)
	CliffFactor float64  `yaml:"cliff_factor"` // p99 rise that counts as a cliff, default 3
	MaxStages   int      `yaml:"max_stages"`
	// Measure is how a stage measures: mix (default) runs the phase's
	// mix at measure_rate for measure_for; per_op runs each op of the mix
	// alone, closed loop, for an equal slice of measure_for, and records
	// each op's throughput.
	Measure GrowthMeasure `yaml:"measure"`
	// Insert names a custom op (ops:) that inserts each stage's batch
	// in place of the built-in insert: rendered once per record with
	// {key} and {seq} that record's number. "" = the built-in insert.
	Insert string `yaml:"insert"`
}

// GrowthMeasure is growth.measure.
type GrowthMeasure string

// Growth measuring modes.
const (
	MeasureMix   GrowthMeasure = "mix"
	MeasurePerOp GrowthMeasure = "per_op"
)

var growthMeasures = newEnum("growth.measure", MeasureMix, MeasurePerOp)

// PerOpOrder is the order per_op measures a mix's ops in: by name, with
// deletes last so the reads and writes before them find the whole
// dataset.
func PerOpOrder(ops []Op, names *OpTable) []Op {
	out := append([]Op(nil), ops...)
	isDel := func(o Op) bool { return o == OpDel || o == OpDelete }
	sort.SliceStable(out, func(i, j int) bool {
		if di, dj := isDel(out[i]), isDel(out[j]); di != dj {
			return dj
		}
		return names.Name(out[i]) < names.Name(out[j])
	})
	return out
}

// growthKeys is a growth phase's own keys.
type growthKeys struct {
	Growth *GrowthSpec `yaml:"growth"`
}

func growthKind() *kindDef {
	return &kindDef{
		budgeted: true,
		kind:     PhaseGrowth,
		keys:     keysOf[growthKeys](),
		decode: func(n *yaml.Node, p *Phase) []string {
			var k growthKeys
			errs := decodeKeys(n, &k)
			p.Growth = k.Growth
			return errs
		},
		defaults: func(s *Scenario, p *Phase) {
			if p.Growth != nil {
				p.Growth.applyDefaults(s.Keyspace.Records)
			}
		},
		validate:  validateGrowth,
		overrides: overrideRule{rate: always},
		plan: planRule{
			fills:     true,
			openLoop:  always,
			scheduled: scheduledGrowth,
			growsTo: func(p *Phase, pp string) (int64, string) {
				if p.Growth == nil {
					return 0, ""
				}
				return p.Growth.StopRecords, pp + ".growth.stop_records"
			},
			checkRepeat: checkGrowthRepeat,
		},
	}
}

// applyDefaults fills what a growth: block leaves out; without a stop
// condition growth stops at the keyspace's records (reads are drawn from
// the keyspace, so it bounds a useful dataset).
func (g *GrowthSpec) applyDefaults(records int64) {
	if g.CliffFactor == 0 {
		g.CliffFactor = DefaultCliffFactor
	}
	if g.MaxStages == 0 {
		g.MaxStages = DefaultGrowthMaxStages
	}
	if g.Measure == "" {
		g.Measure = MeasureMix
	}
	if g.StopRecords == 0 && g.StopMemory == 0 {
		g.StopRecords = records
	}
}

func validateGrowth(_ *Scenario, pp string, p *Phase) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) { errs = append(errs, fieldErr(path, format, args...)) }
	if len(p.Mix) == 0 {
		add(pp+".mix", "a growth phase needs a mix for its measuring stages")
	}
	g := p.Growth
	if g == nil {
		add(pp+".growth", "a growth phase needs growth: {batch, measure_rate, measure_for, ...}")
		return errs
	}
	if g.Batch < 1 || g.Batch > MaxRecords {
		add(pp+".growth.batch", "must be between 1 and %d", int64(MaxRecords))
	}
	if g.StopRecords < 0 || g.StopRecords > MaxRecords {
		add(pp+".growth.stop_records", "must be between 0 (default keyspace.records) and %d", int64(MaxRecords))
	}
	if msg := badRate(g.LoadRate, true); msg != "" {
		add(pp+".growth.load_rate", "%s", msg)
	}
	if g.MeasureFor <= 0 {
		add(pp+".growth.measure_for", "must be a positive duration")
	}
	if msg := badRate(g.MeasureRate, true); msg != "" {
		add(pp+".growth.measure_rate", "%s", msg)
	}
	if g.CliffFactor < 0 || (g.CliffFactor > 0 && g.CliffFactor <= 1) {
		add(pp+".growth.cliff_factor", "must be greater than 1 (a p99 rise of that factor is a cliff)")
	}
	if g.MaxStages < 0 {
		add(pp+".growth.max_stages", "must be positive (omit it for %d)", DefaultGrowthMaxStages)
	}
	switch {
	case !growthMeasures.Valid(g.Measure):
		add(pp+".growth.measure", "unknown %q (use %s)", g.Measure, growthMeasures.Text())
	case g.Measure == MeasurePerOp && g.MeasureRate > 0:
		add(pp+".growth.measure_rate", "per_op measures each op closed loop: leave measure_rate out")
	}
	return errs
}

// scheduledGrowth is the stages' measuring (and their batch inserts
// where load_rate paces them) from n records on.
func scheduledGrowth(p *Phase, n int64) (float64, int64) {
	g := p.Growth
	if g == nil || g.Batch <= 0 {
		return 0, n
	}
	stages := int64(g.MaxStages)
	if g.StopRecords > 0 {
		stages = min(stages, max(0, (g.StopRecords-n+g.Batch-1)/g.Batch))
	}
	per := g.MeasureFor.D().Seconds()
	if g.LoadRate > 0 {
		per += float64(g.Batch) / g.LoadRate
	}
	n += stages * g.Batch
	if g.StopRecords > 0 {
		n = min(n, g.StopRecords)
	}
	return float64(stages) * per, n
}

// checkGrowthRepeat refuses repeats of a growth phase when the run has
// several persistence variants: their servers would all be up at once.
func checkGrowthRepeat(s *Scenario, p *Phase, pp string, n int) []FieldError {
	if p.Growth != nil && s.Target.Managed != nil && len(s.Target.Managed.Persistences) > 1 {
		return []FieldError{{pp + ".kind", fmt.Sprintf("a growth phase cannot run with repeat %d: repeats keep every persistence variant's server up at once, and a growth study needs the host to itself (use repeat: 1)", n)}}
	}
	return nil
}
