package scenarios

import "gopkg.in/yaml.v3"

// PhaseReplay sends a captured stream of commands (replay.go).
const PhaseReplay PhaseKind = "replay"

func replayKind() *kindDef {
	return &kindDef{
		budgeted: true,
		kind:     PhaseReplay,
		keys:     keysOf[ReplaySpec](),
		decode: func(n *yaml.Node, p *Phase) []string {
			p.Replay = &ReplaySpec{}
			return decodeKeys(n, p.Replay)
		},
		defaults: func(_ *Scenario, p *Phase) {
			if p.Replay == nil {
				p.Replay = &ReplaySpec{}
			}
			p.Replay.applyDefaults()
		},
		validate: func(s *Scenario, pp string, p *Phase) []FieldError { return s.validateReplay(pp, p) },
		// --rate sends the capture at a fixed rate, in file order.
		overrides: overrideRule{rate: always},
		// A capture keeps its own timing (or its fixed rate): no tick.
		plan: planRule{ownTiming: true},
	}
}
