package scenarios

import "testing"

// TestParseRequests: requests bounds a steady phase alone or with a
// duration; problems come back with their file line.
func TestParseRequests(t *testing.T) {
	src := `name: t
phases:
  - name: alone
    kind: steady
    concurrency: 50
    requests: 100000
    mix: {ping_inline: 100}
  - name: both
    kind: steady
    rate: 1000
    duration: 10s
    requests: 500
    mix: {zadd: 50, zpopmin: 50}
`
	sc, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Phases[0].Requests != 100000 || sc.Phases[0].Duration != 0 || sc.Phases[1].Requests != 500 {
		t.Fatalf("requests not decoded: %+v", sc.Phases)
	}
	if got := sc.MaxConcurrency(); got != 50 {
		t.Errorf("MaxConcurrency %d, want 50 (the largest phase's)", got)
	}

	ps := problemsOf(t, `name: t
phases:
  - kind: steady
    mix: {get: 100}
  - kind: steady
    requests: -3
    mix: {get: 100}
  - kind: ramp
    requests: 10
    steps: [{rate: 10, duration: 1s}]
    mix: {get: 100}
  - kind: steady
    requests: 10
    warmup: 1s
    mix: {get: 100}
`)
	for _, c := range []struct {
		line       int
		field, sub string
	}{
		{3, "phases[0].duration", "or requests: N"},
		{6, "phases[1].requests", "must not be negative"},
		{9, "phases[2].requests", "only a steady or sweep phase"},
		{14, "phases[3].warmup", "needs a phase duration"},
	} {
		if !hasProblem(ps, c.line, c.field, c.sub) {
			t.Errorf("no problem at line %d %s containing %q in:\n%v", c.line, c.field, c.sub, ps)
		}
	}
}

func TestNewOpsKnown(t *testing.T) {
	for _, name := range []string{"ping_inline", "zadd", "zpopmin"} {
		op, ok := ParseBuiltinOp(name)
		if !ok || op.String() != name {
			t.Errorf("op %s not known", name)
		}
	}
	if OpPingInline.IsWrite() || !OpZAdd.IsWrite() || !OpZPopMin.IsWrite() {
		t.Error("IsWrite: ping_inline reads, zadd and zpopmin write")
	}
	for _, op := range []Op{OpLPop, OpRPop, OpSPop, OpZPopMin} {
		if !op.IsPop() {
			t.Errorf("%s is a pop", op)
		}
	}
	if OpZAdd.IsPop() || OpLPush.IsPop() {
		t.Error("pushes are not pops")
	}
}

func TestMaxOps(t *testing.T) {
	sc := &Scenario{Phases: []Phase{
		{Kind: PhaseSteady, Requests: 1000, Mix: map[string]float64{"lpop": 100}},
		{Kind: PhaseSteady, Requests: 1000, Rate: 100, Duration: Duration(2e9), Mix: map[string]float64{"rpop": 50, "get": 50}},
		{Kind: PhaseSteady, Rate: 10, Duration: Duration(3e9), Mix: map[string]float64{"lpop": 100}},
		{Kind: PhaseSteady, Requests: 7, Mix: map[string]float64{"spop": 100}},
	}}
	if n, ok := sc.MaxOps(OpLPop, OpRPop); n != 1000+200+30 || !ok {
		t.Errorf("list pops bound %d %v, want 1230 true", n, ok)
	}
	if n, ok := sc.MaxOps(OpSPop); n != 7 || !ok {
		t.Errorf("spop bound %d %v", n, ok)
	}
	if n, ok := sc.MaxOps(OpZPopMin); n != 0 || !ok {
		t.Errorf("unused op bound %d %v", n, ok)
	}
	sc.Phases = append(sc.Phases, Phase{Kind: PhaseSteady, Duration: Duration(1e9), Mix: map[string]float64{"lpop": 100}})
	if _, ok := sc.MaxOps(OpLPop); ok {
		t.Error("a closed-loop phase by duration has no bound")
	}
}
