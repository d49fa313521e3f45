package scenarios

import (
	"fmt"
	"slices"
)

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

// TargetKinds lists the built-in target kinds in the order messages name
// them.
var TargetKinds = []TargetKind{KindEmbedded, KindRedis, KindMongo, KindElastic, KindCQL, KindScylla, KindCassandra}

// Valid reports whether k is one of the built-in target kinds.
func (k TargetKind) Valid() bool {
	return slices.Contains(TargetKinds, k)
}

// ParseTargetKind returns the built-in target kind named s, or an error
// naming the kinds there are.
func ParseTargetKind(s string) (TargetKind, error) {
	if k := TargetKind(s); k.Valid() {
		return k, nil
	}
	return "", fmt.Errorf("unknown target kind %q (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))", s)
}
