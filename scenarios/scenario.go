// Package scenarios defines the scenario file (schema, strict decoding,
// validation with file:line positions), the workload generators (records,
// keys, distributions, op mixes) and ships the scenario catalog as YAML.
package scenarios

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Scenario is one decoded scenario file.
type Scenario struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Target      Target   `yaml:"target"`
	Record      Record   `yaml:"record"`
	Keyspace    Keyspace `yaml:"keyspace"`
	Phases      []Phase  `yaml:"phases"`
	SLO         SLO      `yaml:"slo"`
	// Seed makes key choice and values reproducible; 0 means a fixed default.
	Seed int64 `yaml:"seed"`
	// Repeat splits every steady phase and throughput sweep into this
	// many short rounds, each running the variants (persistence
	// variants, sweep points) in the Interleave order, so the host's
	// drift hits all of them alike; 0 = 1.
	Repeat     int        `yaml:"repeat"`
	Interleave Interleave `yaml:"interleave"`
	// Bindings and Ops declare custom operations (custom.go).
	Bindings map[string]Binding   `yaml:"bindings"`
	Ops      map[string]*CustomOp `yaml:"ops"`
	// AllowDestructive lets custom ops send commands that destroy data or
	// stop a server to a target other than the embedded store.
	AllowDestructive bool `yaml:"allow_destructive"`

	// File is the path the scenario was read from (not part of the YAML).
	File string `yaml:"-"`
	// doc is the YAML the scenario was read from, for Warnings' lines.
	doc *yaml.Node
	// stores checks target: per store (ParseWith); nil: the adapter
	// checks it when the target opens.
	stores Stores
}

// Target says which store to drive and how to reach it.
type Target struct {
	Kind TargetKind `yaml:"kind"` // embedded | redis | mongo | elastic | cql (scylla, cassandra)
	URL  string     `yaml:"url"`
	TLS  TLS        `yaml:"tls"`
	Auth Auth       `yaml:"auth"`
	// Client holds the client options: those every adapter takes, and
	// the block as written for the kind's adapter to decode (client.go).
	Client Client `yaml:"client"`
	// Managed asks soakd to start and stop the server process itself.
	Managed *Managed `yaml:"managed"`
	// Embedded tunes the in-process store (kind embedded only).
	Embedded EmbeddedOptions `yaml:"embedded"`
}

// TLS options for rediss://, mongodb+srv:// and https:// targets.
type TLS struct {
	Enabled            bool   `yaml:"enabled"`
	CAFile             string `yaml:"ca_file"`
	CertFile           string `yaml:"cert_file"`
	KeyFile            string `yaml:"key_file"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
}

// Auth names environment variables that hold credentials; the scenario
// never holds a secret itself.
type Auth struct {
	UsernameEnv string `yaml:"username_env"`
	PasswordEnv string `yaml:"password_env"`
	APIKeyEnv   string `yaml:"api_key_env"`
}

// Managed describes a server process soakd starts for the run.
type Managed struct {
	Command     string   `yaml:"command"`
	Args        []string `yaml:"args"`
	DataDir     string   `yaml:"data_dir"`
	Persistence string   `yaml:"persistence"` // none | rdb:<seconds> | aof:everysec | aof:always
	// Persistences lists variants to run one after another (growth matrix).
	Persistences []string `yaml:"persistences"`
	MaxMemory    Bytes    `yaml:"maxmemory"`
	Policy       string   `yaml:"maxmemory_policy"`
	// CgroupMemory caps the process's memory through a cgroup where the
	// host allows it (swap cliffs).
	CgroupMemory Bytes `yaml:"cgroup_memory"`
	CgroupSwap   Bytes `yaml:"cgroup_swap"`
}

// EmbeddedOptions tune the in-process store; stalls exist to demonstrate
// that soakd shows a stalled store in its latency figures.
type EmbeddedOptions struct {
	StallEvery Duration `yaml:"stall_every"`
	StallFor   Duration `yaml:"stall_for"`
	// Restricted makes it answer like a store with only a subset of the
	// Redis protocol (SSDB's: no HELLO, CLIENT, INFO, SELECT, MULTI).
	Restricted bool `yaml:"restricted"`
}

// Record is the YCSB record shape, or a corpus of the user's documents
// (corpusspec.go).
type Record struct {
	Fields     int `yaml:"fields"`
	FieldBytes int `yaml:"field_bytes"`
	// Source is a corpus file (NDJSON, CSV with a header, either maybe
	// gzipped), relative to the scenario file's directory.
	Source string `yaml:"source"`
	// KeyField names the field that keys a document ("" = the record
	// number).
	KeyField string `yaml:"key_field"`
	// Query says how search ops draw their terms from the corpus.
	Query *CorpusQuery `yaml:"query"`
}

// Keyspace says which keys exist and how ops choose them.
type Keyspace struct {
	Records      int64        `yaml:"records"`
	Prefix       string       `yaml:"prefix"`
	Distribution Distribution `yaml:"distribution"` // uniform | zipfian | hotspot | latest
	HotFraction  float64      `yaml:"hot_fraction"` // hotspot: share of keys that are hot
	HotOps       float64      `yaml:"hot_ops"`      // hotspot: share of ops that go to them
	ZipfTheta    float64      `yaml:"zipf_theta"`   // zipfian/latest constant, default 0.99
	ScanLength   int          `yaml:"scan_length"`  // records per scan, default 100
	// Ordered keys (no hashing of the record number) for stores that scan
	// by key range; default false like YCSB's insertorder=hashed.
	Ordered bool `yaml:"ordered"`
}

// Distribution is how ops choose keys: the YAML keyspace.distribution.
type Distribution string

// Key distributions.
const (
	DistUniform Distribution = "uniform"
	DistZipfian Distribution = "zipfian"
	DistHotspot Distribution = "hotspot"
	DistLatest  Distribution = "latest"
)

var distributions = newEnum("distribution", DistUniform, DistZipfian, DistHotspot, DistLatest)

// Distributions lists the key distributions in the order messages name
// them.
func Distributions() []Distribution { return distributions.List() }

// Valid reports whether d is one of the distributions.
func (d Distribution) Valid() bool { return distributions.Valid(d) }

// ParseDistribution returns the distribution named s, or an error naming
// the distributions there are.
func ParseDistribution(s string) (Distribution, error) { return distributions.Parse(s) }

// SLO holds the pass/fail limits for a run.
type SLO struct {
	// Latency maps an op name (or "*" for every op) to percentile limits,
	// e.g. {"p99": "5ms", "p99.9": "20ms"}. Latency is from intended start.
	Latency map[string]map[string]Duration `yaml:"latency"`
	// MinAchievedRatio is the lowest achieved/target rate ratio allowed.
	MinAchievedRatio float64 `yaml:"min_achieved_ratio"`
	// MaxErrorRatio is the highest errors/ops ratio allowed.
	MaxErrorRatio *float64 `yaml:"max_error_ratio"`
	// MaxDroppedRatio is the highest dropped/scheduled ratio allowed.
	MaxDroppedRatio *float64 `yaml:"max_dropped_ratio"`
	// Window, when set, also judges every latency limit over each window
	// this long (tumbling, from the end of a steady phase's warmup): a
	// phase passes only when every window holds, so a bad five minutes
	// is not averaged away by a good hour.
	Window Duration `yaml:"window"`
	// StopAfter, when set, ends the run once some op's latency limit
	// broke in this many consecutive windows (needs Window): a soak
	// that is failing for good stops paying for itself.
	StopAfter int `yaml:"stop_after"`
}

// Percentile is a parsed SLO key such as "p99.9".
type Percentile struct {
	Name  string
	Value float64 // 0..100
}

// ParsePercentile parses "p50", "p99.9", "max".
func ParsePercentile(s string) (Percentile, error) {
	if s == "max" {
		return Percentile{Name: s, Value: 100}, nil
	}
	if !strings.HasPrefix(s, "p") {
		return Percentile{}, fmt.Errorf("percentile %q must look like p99 or p99.9 or max", s)
	}
	v, err := strconv.ParseFloat(s[1:], 64)
	if err != nil || v <= 0 || v > 100 {
		return Percentile{}, fmt.Errorf("percentile %q must look like p99 or p99.9 or max", s)
	}
	return Percentile{Name: s, Value: v}, nil
}

// Duration is a time.Duration that decodes from "30s", "5m", "1h30m".
type Duration time.Duration

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes the duration as Go syntax.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// ParseDuration accepts Go durations plus a "d" day suffix.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "d") {
		n, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64)
		if err == nil {
			return Duration(n * float64(24*time.Hour)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (use 500ms, 30s, 5m, 12h, 1d)", s)
	}
	return Duration(d), nil
}

// Bytes is a byte count that decodes from 512mb, 1gb, 1048576.
type Bytes int64

// ParseBytes accepts plain integers and kb/mb/gb (powers of 1024).
func ParseBytes(s string) (Bytes, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suf))
			mult = u.m
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size (use 512mb, 1gb or a number of bytes)", s)
	}
	return Bytes(n * float64(mult)), nil
}

// Op is an operation kind. The set is fixed, so per-op state can live in
// arrays indexed by Op on the hot path.
type Op uint8

// The ops soakd knows: YCSB core ops, search, and the redis-benchmark suite.
const (
	OpRead Op = iota
	OpUpdate
	OpInsert
	OpScan
	OpSearch
	OpRMW
	OpDelete
	OpPing
	OpSet
	OpGet
	OpIncr
	OpLPush
	OpRPush
	OpLPop
	OpRPop
	OpSAdd
	OpHSet
	OpSPop
	OpLRange100
	OpLRange300
	OpLRange500
	OpLRange600
	OpMSet
	OpDel
	OpPingInline
	OpZAdd
	OpZPopMin
	numBuiltinOps
	// NumOps bounds every Op: the built-ins, then MaxCustomOps custom
	// ops (optable.go).
	NumOps = numBuiltinOps + MaxCustomOps
)

func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpUpdate:
		return "update"
	case OpInsert:
		return "insert"
	case OpScan:
		return "scan"
	case OpSearch:
		return "search"
	case OpRMW:
		return "rmw"
	case OpDelete:
		return "delete"
	case OpPing:
		return "ping"
	case OpSet:
		return "set"
	case OpGet:
		return "get"
	case OpIncr:
		return "incr"
	case OpLPush:
		return "lpush"
	case OpRPush:
		return "rpush"
	case OpLPop:
		return "lpop"
	case OpRPop:
		return "rpop"
	case OpSAdd:
		return "sadd"
	case OpHSet:
		return "hset"
	case OpSPop:
		return "spop"
	case OpLRange100:
		return "lrange_100"
	case OpLRange300:
		return "lrange_300"
	case OpLRange500:
		return "lrange_500"
	case OpLRange600:
		return "lrange_600"
	case OpMSet:
		return "mset"
	case OpDel:
		return "del"
	case OpPingInline:
		return "ping_inline"
	case OpZAdd:
		return "zadd"
	case OpZPopMin:
		return "zpopmin"
	}
	// A custom op's name is its run's (OpTable.Name).
	return "op" + strconv.Itoa(int(o))
}

// ParseBuiltinOp maps a built-in op's name to its Op; a custom op's
// name needs its run's table (OpTable.Lookup).
func ParseBuiltinOp(name string) (Op, bool) { return parseBuiltinOp(name) }

func parseBuiltinOp(name string) (Op, bool) {
	for o := Op(0); o < numBuiltinOps; o++ {
		if o.String() == name {
			return o, true
		}
	}
	return 0, false
}

// OpNames returns the built-in op names, sorted.
func OpNames() []string {
	out := make([]string, 0, numBuiltinOps)
	for o := Op(0); o < numBuiltinOps; o++ {
		out = append(out, o.String())
	}
	sort.Strings(out)
	return out
}

// IsWrite reports whether the op inserts or changes data.
func (o Op) IsWrite() bool {
	switch o {
	case OpRead, OpScan, OpSearch, OpPing, OpPingInline, OpGet, OpLRange100, OpLRange300, OpLRange500, OpLRange600:
		return false
	}
	return true
}

// IsPop reports whether the op removes an element from a structure the
// redis-benchmark suite fills (lpop, rpop, spop, zpopmin): adapters
// pre-fill those structures so a pop never finds them empty.
func (o Op) IsPop() bool {
	switch o {
	case OpLPop, OpRPop, OpSPop, OpZPopMin:
		return true
	}
	return false
}
