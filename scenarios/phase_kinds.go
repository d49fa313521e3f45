package scenarios

// phaseKindTable is the one registry of phase kinds, in the order
// messages name them. A new kind is its file (phase_<kind>.go, with
// its constant, key struct, decode, defaults, validation and overrides),
// its spec's field on Phase, and one entry here.
var phaseKindTable = []*kindDef{
	loadKind(),
	steadyKind(),
	rampKind(),
	capacityKind(),
	growthKind(),
	sweepKind(),
	replayKind(),
}

func kindTable() []*kindDef { return phaseKindTable }

// always is an override rule for kinds an override always reaches.
func always(*Phase) bool { return true }
