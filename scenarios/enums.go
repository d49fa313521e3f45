package scenarios

// TargetKind names the adapter that drives a target: the YAML
// target.kind. Which kinds there are is the adapters' to say: each
// declares its name, aliases and URL schemes when it registers (package
// targets), and scenarios asks them through Stores.
type TargetKind string

// Kinds scenarios names itself: embedded is the target of a scenario
// that names none; the others are the stores whose custom-op forms and
// replay dialects this package still reads (custom_<store>.go,
// replay.go).
const (
	KindEmbedded TargetKind = "embedded"
	KindRedis    TargetKind = "redis"
	KindMongo    TargetKind = "mongo"
	KindElastic  TargetKind = "elastic"
	KindCQL      TargetKind = "cql"
)
