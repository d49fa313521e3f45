package scenarios

import "gopkg.in/yaml.v3"

// PhaseLoad inserts the dataset.
const PhaseLoad PhaseKind = "load"

// LoadSpec is a load phase's own keys.
type LoadSpec struct {
	// Records to insert (default keyspace.records).
	Records int64 `yaml:"records"`
}

func loadKind() *kindDef {
	return &kindDef{
		kind: PhaseLoad,
		keys: keysOf[LoadSpec](),
		decode: func(n *yaml.Node, p *Phase) []string {
			p.Load = &LoadSpec{}
			return decodeKeys(n, p.Load)
		},
		defaults: func(s *Scenario, p *Phase) {
			if p.Load == nil {
				p.Load = &LoadSpec{}
			}
			if p.Load.Records == 0 {
				p.Load.Records = s.Keyspace.Records
			}
			if len(p.Mix) == 0 {
				p.Mix = map[string]float64{"insert": 100}
			}
		},
		validate: validateLoad,
		plan: planRule{
			fills:  true,
			maxOps: func(p *Phase) (int64, bool) { return p.Load.Records, true },
			scheduled: func(p *Phase, n int64) (float64, int64) {
				return 0, max(n, p.Load.Records)
			},
		},
		overrides: overrideRule{
			// A load that inserts the whole keyspace follows it; one
			// that inserts more than n is cut to n.
			records: func(p *Phase, n, ks int64) {
				if p.Load != nil && (p.Load.Records == ks || p.Load.Records > n) {
					p.Load.Records = n
				}
			},
		},
	}
}

func validateLoad(s *Scenario, pp string, p *Phase) []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) { errs = append(errs, fieldErr(path, format, args...)) }
	switch {
	case p.Load.Records < 1:
		add(pp+".records", "a load phase inserts at least 1 record")
	case p.Load.Records > s.Keyspace.Records:
		add(pp+".records", "loads %d records but keyspace.records is %d", p.Load.Records, s.Keyspace.Records)
	}
	for _, op := range sortedMixKeys(p.Mix) {
		if op != "insert" && op != "set" && op != "hset" {
			add(pp+".mix."+op, "a load phase only inserts (insert, set or hset)")
		}
	}
	return errs
}
