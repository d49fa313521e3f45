package redis

import (
	"fmt"
	"slices"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/resp"
)

func init() {
	targets.Register(string(scenarios.KindRedis), targets.Adapter{
		Open: Open, Schema: redisSchema{clientSchema}, Order: 20,
		URLSchemes: []string{"redis", "rediss", "unix"}, SchemeHint: "redis://, rediss://",
		DefaultMaxBatch: DefaultMaxBatch, Family: resp.Family,
		Title: "Redis", Help: "Redis and Redis-protocol stores (Valkey, KeyDB, Dragonfly, ...)",
	})
}

// ClientConfig is the redis adapter's own target.client options (the
// shared ones are scenarios.ClientCommon).
type ClientConfig struct {
	Mode       Mode         `yaml:"mode,omitempty"`        // standalone | cluster | sentinel ("" = standalone)
	MasterName string       `yaml:"master_name,omitempty"` // sentinel
	Addrs      []string     `yaml:"addrs,omitempty"`       // cluster/sentinel seed addresses
	Search     SearchFormat `yaml:"search,omitempty"`      // auto | json | hash ("" = auto)
	Protocol   Protocol     `yaml:"protocol,omitempty"`    // fast | goredis ("" = fast when standalone)
	// RequireSafeUser refuses to run, on a server soakd does not manage
	// and without allow_destructive, when the connected user may run
	// destructive commands (or the server cannot tell: ACL DRYRUN needs
	// Redis 7); without it soakd warns.
	RequireSafeUser bool `yaml:"require_safe_user,omitempty"`
}

var clientSchema = targets.ClientSchema[ClientConfig]{Check: checkClient}

// checkClient checks the options against each other.
func checkClient(_ scenarios.Target, c *ClientConfig) []scenarios.FieldError {
	var errs []scenarios.FieldError
	add := func(key, format string, args ...any) {
		errs = append(errs, scenarios.FieldError{Path: "target.client." + key, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Mode != "" && !slices.Contains(Modes, c.Mode) {
		add("mode", "unknown %q (use standalone, cluster or sentinel)", c.Mode)
	}
	if c.Mode == ModeSentinel && c.MasterName == "" {
		add("mode", "sentinel needs client.master_name")
	}
	if c.Search != "" && !slices.Contains(SearchFormats, c.Search) {
		add("search", "unknown %q (use auto, json or hash)", c.Search)
	}
	switch p := c.Protocol; {
	case p == "":
	case !slices.Contains(Protocols, p):
		add("protocol", "must be fast or goredis, got %q", string(p))
	case p == ProtocolFast && c.Mode != "" && c.Mode != ModeStandalone:
		add("protocol", "fast needs client.mode standalone (%s mode runs on go-redis)", c.Mode)
	}
	return errs
}

// Mode is how the adapter reaches its server: client.mode.
type Mode string

// Redis client modes.
const (
	ModeStandalone Mode = "standalone"
	ModeCluster    Mode = "cluster"
	ModeSentinel   Mode = "sentinel"
)

// Modes lists the client modes in the order messages name them.
var Modes = []Mode{ModeStandalone, ModeCluster, ModeSentinel}

// Protocol is how the adapter sends its hot ops (get, set, the YCSB
// ops, the redis-benchmark suite) to a standalone server:
// client.protocol. "" means fast in standalone mode and goredis in
// cluster and sentinel modes.
type Protocol string

// Redis client protocols.
const (
	// ProtocolFast is soakd's own RESP path: pooled connections, commands
	// encoded into reused buffers, replies parsed without allocating.
	ProtocolFast Protocol = "fast"
	// ProtocolGoRedis sends every op through go-redis.
	ProtocolGoRedis Protocol = "goredis"
)

// Protocols lists the client protocols in the order messages name them.
var Protocols = []Protocol{ProtocolFast, ProtocolGoRedis}

// SearchFormat is how the adapter stores records for op search:
// client.search ("" means auto: JSON when the server has RedisJSON,
// else hashes).
type SearchFormat string

// Search formats.
const (
	SearchAuto SearchFormat = "auto"
	SearchJSON SearchFormat = "json"
	SearchHash SearchFormat = "hash"
)

// SearchFormats lists the search formats in the order messages name them.
var SearchFormats = []SearchFormat{SearchAuto, SearchJSON, SearchHash}
