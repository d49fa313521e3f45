package scenarios

// RedisMode is how the redis adapter reaches its server: the YAML
// target.client.mode ("" means standalone).
type RedisMode string

// Redis client modes.
const (
	ModeStandalone RedisMode = "standalone"
	ModeCluster    RedisMode = "cluster"
	ModeSentinel   RedisMode = "sentinel"
)

var redisModes = newEnum("client.mode", ModeStandalone, ModeCluster, ModeSentinel)

// RedisModes lists the redis client modes in the order messages name
// them.
func RedisModes() []RedisMode { return redisModes.List() }

// Valid reports whether m is one of the redis client modes.
func (m RedisMode) Valid() bool { return redisModes.Valid(m) }

// ParseRedisMode returns the redis client mode named s, or an error
// naming the modes there are.
func ParseRedisMode(s string) (RedisMode, error) { return redisModes.Parse(s) }

// Refresh is when Elasticsearch makes writes visible to search: the YAML
// target.client.refresh ("" means false).
type Refresh string

// Elasticsearch refresh settings.
const (
	RefreshFalse   Refresh = "false"
	RefreshWaitFor Refresh = "wait_for"
	RefreshTrue    Refresh = "true"
)

var refreshes = enum[Refresh]{what: "client.refresh", values: []Refresh{RefreshFalse, RefreshWaitFor, RefreshTrue},
	format: "%[1]s %[2]q: use %[3]s"}

// Refreshes lists the refresh settings in the order messages name them.
func Refreshes() []Refresh { return refreshes.List() }

// Valid reports whether r is one of the refresh settings.
func (r Refresh) Valid() bool { return refreshes.Valid(r) }

// ParseRefresh returns the refresh setting named s, or an error naming
// the settings there are.
func ParseRefresh(s string) (Refresh, error) { return refreshes.Parse(s) }

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

var redisProtocols = newEnum("client.protocol", ProtocolFast, ProtocolGoRedis)

// RedisProtocols lists the client protocols in the order messages name
// them.
func RedisProtocols() []RedisProtocol { return redisProtocols.List() }

// Valid reports whether p is one of the client protocols.
func (p RedisProtocol) Valid() bool { return redisProtocols.Valid(p) }

// ParseRedisProtocol returns the client protocol named s, or an error
// naming the protocols there are.
func ParseRedisProtocol(s string) (RedisProtocol, error) { return redisProtocols.Parse(s) }

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

var searchFormats = newEnum("client.search", SearchAuto, SearchJSON, SearchHash)

// SearchFormats lists the search formats in the order messages name them.
func SearchFormats() []SearchFormat { return searchFormats.List() }

// Valid reports whether f is one of the search formats.
func (f SearchFormat) Valid() bool { return searchFormats.Valid(f) }

// ParseSearchFormat returns the search format named s, or an error naming
// the formats there are.
func ParseSearchFormat(s string) (SearchFormat, error) { return searchFormats.Parse(s) }

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

// readPreferences are read without regard to case, like the driver
// reads them, and refused in the driver's words.
var readPreferences = enum[ReadPreference]{what: "read preference", fold: true, format: "unknown %[1]s %[2]s",
	values: []ReadPreference{ReadPrimary, ReadPrimaryPreferred, ReadSecondary, ReadSecondaryPreferred, ReadNearest}}

// ReadPreferences lists the read preferences.
func ReadPreferences() []ReadPreference { return readPreferences.List() }

// Valid reports whether p names one of the read preferences, in any case.
func (p ReadPreference) Valid() bool { return readPreferences.Valid(p) }

// ParseReadPreference returns the read preference s names, in any case,
// spelt as its constant, or an error in the driver's words.
func ParseReadPreference(s string) (ReadPreference, error) { return readPreferences.Parse(s) }

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
