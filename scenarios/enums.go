package scenarios

// TargetKind names the adapter that drives a target: the YAML
// target.kind. The constants are the built-in kinds; the adapter registry
// (package targets) stays open to others.
type TargetKind string

// Built-in target kinds; scylla and cassandra are aliases of cql.
const (
	KindEmbedded  TargetKind = "embedded"
	KindRedis     TargetKind = "redis"
	KindMongo     TargetKind = "mongo"
	KindElastic   TargetKind = "elastic"
	KindCQL       TargetKind = "cql"
	KindScylla    TargetKind = "scylla"
	KindCassandra TargetKind = "cassandra"
)

// targetKinds' message names the aliases apart from the adapters.
var targetKinds = enum[TargetKind]{what: "target kind", format: "unknown %[1]s %[2]q (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))",
	values: []TargetKind{KindEmbedded, KindRedis, KindMongo, KindElastic, KindCQL, KindScylla, KindCassandra}}

// TargetKinds lists the built-in target kinds in the order messages name
// them.
func TargetKinds() []TargetKind { return targetKinds.List() }

// Valid reports whether k is one of the built-in target kinds.
func (k TargetKind) Valid() bool { return targetKinds.Valid(k) }

// ParseTargetKind returns the built-in target kind named s, or an error
// naming the kinds there are.
func ParseTargetKind(s string) (TargetKind, error) { return targetKinds.Parse(s) }
