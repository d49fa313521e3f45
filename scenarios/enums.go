package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// RedisMode is how the redis adapter reaches its server: the YAML
// target.client.mode ("" means standalone).
type RedisMode string

// Redis client modes.
const (
	ModeStandalone RedisMode = "standalone"
	ModeCluster    RedisMode = "cluster"
	ModeSentinel   RedisMode = "sentinel"
)

// RedisModes lists the redis client modes in the order messages name
// them.
var RedisModes = []RedisMode{ModeStandalone, ModeCluster, ModeSentinel}

// Valid reports whether m is one of the redis client modes.
func (m RedisMode) Valid() bool {
	return slices.Contains(RedisModes, m)
}

// ParseRedisMode returns the redis client mode named s, or an error
// naming the modes there are.
func ParseRedisMode(s string) (RedisMode, error) {
	if m := RedisMode(s); m.Valid() {
		return m, nil
	}
	return "", fmt.Errorf("unknown client.mode %q (use standalone, cluster or sentinel)", s)
}

// Refresh is when Elasticsearch makes writes visible to search: the YAML
// target.client.refresh ("" means false).
type Refresh string

// Elasticsearch refresh settings.
const (
	RefreshFalse   Refresh = "false"
	RefreshWaitFor Refresh = "wait_for"
	RefreshTrue    Refresh = "true"
)

// Refreshes lists the refresh settings in the order messages name them.
var Refreshes = []Refresh{RefreshFalse, RefreshWaitFor, RefreshTrue}

// Valid reports whether r is one of the refresh settings.
func (r Refresh) Valid() bool {
	return slices.Contains(Refreshes, r)
}

// ParseRefresh returns the refresh setting named s, or an error naming
// the settings there are.
func ParseRefresh(s string) (Refresh, error) {
	if r := Refresh(s); r.Valid() {
		return r, nil
	}
	return "", fmt.Errorf("client.refresh %q: use false, wait_for or true", s)
}

// RedisProtocol is how the redis adapter sends its hot ops (get, set,
// the YCSB ops, the redis-benchmark suite) to a standalone server: the
// YAML target.client.protocol. "" means fast in standalone mode and
// goredis in cluster and sentinel modes.
type RedisProtocol string

// Redis client protocols.
const (
	// ProtocolFast is soakd's own RESP path: pooled connections, commands
	// encoded into reused buffers, replies parsed without allocating.
	ProtocolFast RedisProtocol = "fast"
	// ProtocolGoRedis sends every op through go-redis.
	ProtocolGoRedis RedisProtocol = "goredis"
)

// RedisProtocols lists the client protocols in the order messages name
// them.
func RedisProtocols() []RedisProtocol { return []RedisProtocol{ProtocolFast, ProtocolGoRedis} }

// Valid reports whether p is one of the client protocols.
func (p RedisProtocol) Valid() bool {
	return p == ProtocolFast || p == ProtocolGoRedis
}

// ParseRedisProtocol returns the client protocol named s, or an error
// naming the protocols there are.
func ParseRedisProtocol(s string) (RedisProtocol, error) {
	if p := RedisProtocol(s); p.Valid() {
		return p, nil
	}
	return "", fmt.Errorf("unknown client.protocol %q (use fast or goredis)", s)
}

// SearchFormat is how the redis adapter stores records for op search:
// the YAML target.client.search ("" means auto: JSON when the server has
// RedisJSON, else hashes).
type SearchFormat string

// Redis search formats.
const (
	SearchAuto SearchFormat = "auto"
	SearchJSON SearchFormat = "json"
	SearchHash SearchFormat = "hash"
)

// SearchFormats lists the search formats in the order messages name them.
var SearchFormats = []SearchFormat{SearchAuto, SearchJSON, SearchHash}

// Valid reports whether f is one of the search formats.
func (f SearchFormat) Valid() bool {
	return slices.Contains(SearchFormats, f)
}

// ParseSearchFormat returns the search format named s, or an error naming
// the formats there are.
func ParseSearchFormat(s string) (SearchFormat, error) {
	if f := SearchFormat(s); f.Valid() {
		return f, nil
	}
	return "", fmt.Errorf("unknown client.search %q (use auto, json or hash)", s)
}

// ReadPreference is which MongoDB members serve reads: the YAML
// target.client.read_preference ("" means the URI's, else primary). Like
// the driver, it is read without regard to case.
type ReadPreference string

// MongoDB read preferences.
const (
	ReadPrimary            ReadPreference = "primary"
	ReadPrimaryPreferred   ReadPreference = "primaryPreferred"
	ReadSecondary          ReadPreference = "secondary"
	ReadSecondaryPreferred ReadPreference = "secondaryPreferred"
	ReadNearest            ReadPreference = "nearest"
)

// ReadPreferences lists the read preferences.
var ReadPreferences = []ReadPreference{ReadPrimary, ReadPrimaryPreferred, ReadSecondary, ReadSecondaryPreferred, ReadNearest}

// Valid reports whether p names one of the read preferences, in any case.
func (p ReadPreference) Valid() bool {
	_, err := ParseReadPreference(string(p))
	return err == nil
}

// ParseReadPreference returns the read preference s names, in any case,
// spelt as its constant, or an error in the driver's words.
func ParseReadPreference(s string) (ReadPreference, error) {
	for _, p := range ReadPreferences {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown read preference %v", s)
}

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
