package scenarios

// PhaseSteady runs the mix at a fixed rate (or closed loop) for a
// duration or a count of requests.
const PhaseSteady PhaseKind = "steady"

// A steady phase has no keys of its own beyond requests.
func steadyKind() *kindDef {
	return &kindDef{
		budgeted:  true,
		kind:      PhaseSteady,
		takes:     []string{"requests"},
		validate:  validateSteady,
		overrides: overrideRule{rate: always, timed: always},
		compared:  true,
		plan: planRule{
			maxOps:   func(p *Phase) (int64, bool) { return boundedOps(p.Requests, p.Rate, p.Duration) },
			repeated: always,
			scheduled: func(p *Phase, n int64) (float64, int64) {
				d := p.Duration.D().Seconds()
				if d == 0 && p.Requests > 0 && p.Rate > 0 {
					d = float64(p.Requests) / p.Rate
				}
				return d, n
			},
		},
	}
}

func validateSteady(_ *Scenario, pp string, p *Phase) []FieldError {
	var errs []FieldError
	if p.Duration <= 0 && p.Requests <= 0 {
		errs = append(errs, fieldErr(pp+".duration", "a steady phase needs a duration such as 30s, or requests: N"))
	}
	if p.Warmup > 0 && p.Duration <= 0 {
		errs = append(errs, fieldErr(pp+".warmup", "a warmup needs a phase duration; a phase bounded by requests alone has none"))
	}
	if len(p.Mix) == 0 {
		errs = append(errs, fieldErr(pp+".mix", "a steady phase needs a mix, e.g. {read: 50, update: 50}"))
	}
	return errs
}
