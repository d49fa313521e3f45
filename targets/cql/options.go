package cql

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// Defaults where the URL is silent.
const (
	DefaultPort     = 9042
	DefaultKeyspace = "ycsb"
	DefaultTable    = "usertable"
	// DefaultPageSize is the rows per page of a scan (and of any read
	// that returns more than one row).
	DefaultPageSize = 100
	// DefaultReplication is the keyspace Prepare creates when none
	// exists: one replica, fine for one node and for tests. Production
	// runs say replication=NetworkTopologyStrategy:dc1=3.
	DefaultReplication = "SimpleStrategy:1"
	// DefaultTimeout is the driver's per-request timeout.
	DefaultTimeout = 5 * time.Second
	// DefaultConnectTimeout bounds dialing and the first handshake.
	DefaultConnectTimeout = 5 * time.Second
	// MaxConnsPerHost caps the default connection count: one CQL
	// connection carries up to 32768 requests in flight.
	MaxConnsPerHost = 16
	// WorkersPerConn is how many workers share one connection by default.
	WorkersPerConn = 32
	// KeyColumn is YCSB's primary key column.
	KeyColumn = "y_id"
)

// Config is what a cql:// URL says. Query parameters:
//
//	consistency=QUORUM        reads and writes (default QUORUM)
//	read_consistency=ONE      reads (read, scan, the read of rmw)
//	write_consistency=QUORUM  writes (insert, update, delete)
//	serial_consistency=SERIAL lightweight transactions (not used by the YCSB ops)
//	timeout=5s                driver request timeout
//	connect_timeout=5s
//	page_size=100             rows per page
//	replication=SimpleStrategy:3 | NetworkTopologyStrategy:dc1=3,dc2=3
//	table=usertable
//	local_dc=dc1              prefer replicas in this DC (token-aware over DC-aware)
//	conns=4                   connections per host (client.pool_size too)
//	proto=4                   native protocol version (default 4)
//	compression=snappy|none
//	write_coalesce=200us      the driver's write coalescing wait (0 = off)
//	batch=none|unlogged       see README: inserts are not batched by default
//	metrics_port=9180         scrape each node's ScyllaDB Prometheus endpoint for ServerStats
type Config struct {
	Hosts             []string // host:port
	Keyspace          string
	Table             string
	TLS               bool // cqls://
	User              string
	ReadConsistency   gocql.Consistency
	WriteConsistency  gocql.Consistency
	SerialConsistency gocql.SerialConsistency
	Timeout           time.Duration
	ConnectTimeout    time.Duration
	PageSize          int
	Replication       Replication
	LocalDC           string
	Conns             int
	Proto             int
	Compression       string
	WriteCoalesce     time.Duration
	WriteCoalesceSet  bool
	Batch             string
	MetricsPort       int
}

// Replication is a keyspace replication strategy.
type Replication struct {
	Class   string         // SimpleStrategy | NetworkTopologyStrategy
	Factors map[string]int // "replication_factor" or datacenter -> RF
}

// CQL renders the replication map: {'class': 'SimpleStrategy', 'replication_factor': 3}.
func (r Replication) CQL() string {
	keys := make([]string, 0, len(r.Factors))
	for k := range r.Factors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{'class': '" + r.Class + "'")
	for _, k := range keys {
		fmt.Fprintf(&b, ", '%s': %d", k, r.Factors[k])
	}
	b.WriteString("}")
	return b.String()
}

// ParseReplication reads SimpleStrategy:3 or NetworkTopologyStrategy:dc1=3,dc2=2
// (short names simple and nts are accepted).
func ParseReplication(s string) (Replication, error) {
	class, rest, ok := strings.Cut(s, ":")
	if !ok || rest == "" {
		return Replication{}, fmt.Errorf("replication %q: want SimpleStrategy:RF or NetworkTopologyStrategy:dc1=RF,dc2=RF", s)
	}
	r := Replication{Factors: map[string]int{}}
	switch strings.ToLower(class) {
	case "simple", "simplestrategy":
		r.Class = "SimpleStrategy"
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return Replication{}, fmt.Errorf("replication %q: the replication factor must be a positive number", s)
		}
		r.Factors["replication_factor"] = n
	case "nts", "networktopologystrategy":
		r.Class = "NetworkTopologyStrategy"
		for _, p := range strings.Split(rest, ",") {
			dc, n, ok := strings.Cut(p, "=")
			rf, err := strconv.Atoi(n)
			if !ok || dc == "" || err != nil || rf < 0 || !validName(dc) {
				return Replication{}, fmt.Errorf("replication %q: want dc=RF pairs, got %q", s, p)
			}
			r.Factors[dc] = rf
		}
	default:
		return Replication{}, fmt.Errorf("replication %q: unknown class %q (use SimpleStrategy or NetworkTopologyStrategy)", s, class)
	}
	return r, nil
}

// validName reports whether s is a plain CQL identifier (keyspace,
// table, datacenter): letters, digits, underscores and dashes (DCs).
func validName(s string) bool {
	if s == "" || len(s) > 48 {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// ParseConsistency reads ONE, QUORUM, LOCAL_QUORUM, ... (any case).
func ParseConsistency(s string) (gocql.Consistency, error) {
	switch strings.ToUpper(s) {
	case "ANY":
		return gocql.Any, nil
	case "ONE":
		return gocql.One, nil
	case "TWO":
		return gocql.Two, nil
	case "THREE":
		return gocql.Three, nil
	case "QUORUM":
		return gocql.Quorum, nil
	case "ALL":
		return gocql.All, nil
	case "LOCAL_QUORUM":
		return gocql.LocalQuorum, nil
	case "EACH_QUORUM":
		return gocql.EachQuorum, nil
	case "LOCAL_ONE":
		return gocql.LocalOne, nil
	}
	return 0, fmt.Errorf("unknown consistency level %q (use ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE or ANY)", s)
}

// ParseURL reads cql://[user@]host1[:port],host2[:port]/keyspace?options
// (cqls:// for TLS). Every problem is reported at once.
func ParseURL(raw string) (Config, error) {
	c := Config{
		Keyspace:         DefaultKeyspace,
		Table:            DefaultTable,
		ReadConsistency:  gocql.Quorum,
		WriteConsistency: gocql.Quorum,
		Timeout:          DefaultTimeout,
		ConnectTimeout:   DefaultConnectTimeout,
		PageSize:         DefaultPageSize,
		Proto:            4,
		Batch:            "none",
	}
	c.SerialConsistency = gocql.Serial
	c.Replication, _ = ParseReplication(DefaultReplication)
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	scheme, rest, ok := strings.Cut(raw, "://")
	switch {
	case !ok:
		return c, errors.New("URL must start with cql:// or cqls://")
	case scheme == "cql", scheme == "scylla", scheme == "cassandra":
	case scheme == "cqls":
		c.TLS = true
	default:
		return c, errors.New("URL must start with cql:// or cqls://")
	}
	rest, query, _ := strings.Cut(rest, "?")
	hostPart, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndex(hostPart, "@"); at >= 0 {
		info := hostPart[:at]
		hostPart = hostPart[at+1:]
		if u, _, hasPass := strings.Cut(info, ":"); hasPass {
			bad("the URL holds a password; name an environment variable in target.auth.password_env")
		} else if dec, err := url.PathUnescape(u); err == nil {
			c.User = dec
		}
	}
	for _, h := range strings.Split(hostPart, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), strconv.Itoa(DefaultPort))
		}
		c.Hosts = append(c.Hosts, h)
	}
	if len(c.Hosts) == 0 {
		bad("the URL names no host (cql://host1,host2:9042/keyspace)")
	}
	if path = strings.Trim(path, "/"); path != "" {
		if !validName(path) || strings.Contains(path, "-") {
			bad("keyspace %q: use letters, digits and underscores", path)
		} else {
			c.Keyspace = path
		}
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		bad("query: %v", err)
	}
	var both *gocql.Consistency
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "consistency", "read_consistency", "write_consistency":
			cl, err := ParseConsistency(v)
			if err != nil {
				bad("%s: %v", k, err)
				continue
			}
			switch k {
			case "consistency":
				both = &cl
			case "read_consistency":
				c.ReadConsistency = cl
			case "write_consistency":
				c.WriteConsistency = cl
			}
		case "serial_consistency":
			switch strings.ToUpper(v) {
			case "SERIAL":
				c.SerialConsistency = gocql.Serial
			case "LOCAL_SERIAL":
				c.SerialConsistency = gocql.LocalSerial
			default:
				bad("serial_consistency %q: use SERIAL or LOCAL_SERIAL", v)
			}
		case "timeout", "connect_timeout", "write_coalesce":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				bad("%s %q: want a duration such as 5s", k, v)
				continue
			}
			switch k {
			case "timeout":
				c.Timeout = d
			case "connect_timeout":
				c.ConnectTimeout = d
			default:
				c.WriteCoalesce, c.WriteCoalesceSet = d, true
			}
		case "metrics_port":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				bad("metrics_port %q: want a port number", v)
				continue
			}
			c.MetricsPort = n
		case "page_size", "conns", "proto":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				bad("%s %q: want a positive number", k, v)
				continue
			}
			switch k {
			case "page_size":
				c.PageSize = n
			case "conns":
				c.Conns = n
			default:
				if n < 3 || n > 4 {
					bad("proto %d: soakd speaks native protocol 3 or 4", n)
				}
				c.Proto = n
			}
		case "replication":
			r, err := ParseReplication(v)
			if err != nil {
				bad("%v", err)
				continue
			}
			c.Replication = r
		case "table":
			if !validName(v) || strings.Contains(v, "-") {
				bad("table %q: use letters, digits and underscores", v)
				continue
			}
			c.Table = v
		case "local_dc":
			c.LocalDC = v
		case "compression":
			if v != "snappy" && v != "none" {
				bad("compression %q: use snappy or none", v)
			}
			c.Compression = v
		case "batch":
			if v != "none" && v != "unlogged" {
				bad("batch %q: use none or unlogged", v)
			}
			c.Batch = v
		default:
			bad("unknown URL option %q (see the README's CQL section)", k)
		}
	}
	if both != nil {
		// consistency sets both; read_/write_consistency override it.
		if _, ok := q["read_consistency"]; !ok {
			c.ReadConsistency = *both
		}
		if _, ok := q["write_consistency"]; !ok {
			c.WriteConsistency = *both
		}
	}
	return c, errors.Join(errs...)
}
