package cql

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/soakd/soakd/scenarios"
)

// URL defaults.
const (
	DefaultPort           = 9042
	DefaultKeyspace       = "ycsb"
	DefaultTable          = "usertable"
	DefaultPageSize       = 100
	DefaultReplication    = "SimpleStrategy:1"
	DefaultConsistency    = "QUORUM"
	DefaultTimeout        = 5 * time.Second
	DefaultConnectTimeout = 5 * time.Second
)

// Bounds on a cql:// URL's options. timeout is capped by
// scenarios.MaxClientTimeout like the client: timeouts; timeout=0s and
// connect_timeout=0s ("no timeout" to the driver) mean the caps, never
// an unbounded wait.
const (
	MaxWriteCoalesce  = time.Second
	MaxConnectTimeout = time.Minute // connect_timeout
)

// intMax bounds the URL's integer options: page_size (rows a page
// holds in memory), conns (connections per host), metrics_port.
var intMax = map[string]int{"page_size": 100_000, "conns": 1000, "metrics_port": 65535}

// URL is what a cql:// (or cqls://) URL says:
// cql://[user@]host1[:port],host2[:port]/keyspace?options. The target
// and scenario validation (clientSchema) read it with the same parser,
// so a typo fails `soakd validate` with its line, not the run's first
// second.
type URL struct {
	Hosts             []string // host:port
	Keyspace, Table   string
	TLS               bool // cqls://
	User              string
	HasPassword       bool   // user:password@ (refused by the target)
	ReadConsistency   string // upper case, one of Consistencies
	WriteConsistency  string
	SerialConsistency string // SERIAL | LOCAL_SERIAL
	Timeout           time.Duration
	ConnectTimeout    time.Duration
	WriteCoalesce     time.Duration
	WriteCoalesceSet  bool
	PageSize          int
	Conns             int
	Proto             int
	MetricsPort       int
	Replication       Replication
	LocalDC           string
	Compression       string // "" | snappy | none
	Batch             string // none | unlogged
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

// ParseReplication reads SimpleStrategy:3 or
// NetworkTopologyStrategy:dc1=3,dc2=2 (short names simple and nts too).
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
			if !ok || err != nil || rf < 0 || !cqlName(dc, true) {
				return Replication{}, fmt.Errorf("replication %q: want dc=RF pairs, got %q", s, p)
			}
			r.Factors[dc] = rf
		}
	default:
		return Replication{}, fmt.Errorf("replication %q: unknown class %q (use SimpleStrategy or NetworkTopologyStrategy)", s, class)
	}
	return r, nil
}

// cqlName reports whether s is a plain CQL identifier (letters, digits,
// underscores; dashes too for datacenter names).
func cqlName(s string, dash bool) bool {
	if s == "" || len(s) > 48 {
		return false
	}
	for _, c := range s {
		if !(c == '_' || (dash && c == '-') || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func cqlConsistency(s string) (string, bool) {
	u := strings.ToUpper(s)
	return u, slices.Contains(Consistencies, u)
}

// ReadURL reads a cql:// or cqls:// URL and returns every problem
// with it (none: the URL is usable). Defaults fill what it leaves out.
// ParseURL adds what the driver needs.
func ReadURL(raw string) (URL, []string) {
	c := URL{
		Keyspace:          DefaultKeyspace,
		Table:             DefaultTable,
		ReadConsistency:   DefaultConsistency,
		WriteConsistency:  DefaultConsistency,
		SerialConsistency: "SERIAL",
		Timeout:           DefaultTimeout,
		ConnectTimeout:    DefaultConnectTimeout,
		PageSize:          DefaultPageSize,
		Proto:             4,
		Batch:             "none",
	}
	c.Replication, _ = ParseReplication(DefaultReplication)
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	scheme, rest, ok := strings.Cut(raw, "://")
	switch {
	case ok && scheme == "cql":
	case ok && scheme == "cqls":
		c.TLS = true
	default:
		return c, []string{"a CQL URL starts with cql:// or cqls://"}
	}
	rest, query, _ := strings.Cut(rest, "?")
	hostPart, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndex(hostPart, "@"); at >= 0 {
		info := hostPart[:at]
		hostPart = hostPart[at+1:]
		u, _, hasPass := strings.Cut(info, ":")
		c.HasPassword = hasPass
		if dec, err := url.PathUnescape(u); err == nil {
			c.User = dec
		}
	}
	for _, h := range strings.Split(hostPart, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if host, port, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), strconv.Itoa(DefaultPort))
		} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			bad("host %q: port %q is not a port (1-65535)", host, port)
			continue
		} else if host == "" {
			bad("host %q names no host before its port", h)
			continue
		}
		c.Hosts = append(c.Hosts, h)
	}
	if len(c.Hosts) == 0 {
		bad("the URL names no host (cql://host1,host2:9042/keyspace)")
	}
	if path = strings.Trim(path, "/"); path != "" {
		if !cqlName(path, false) {
			bad("keyspace %q: use letters, digits and underscores", path)
		} else {
			c.Keyspace = path
		}
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		bad("query: %v", err)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys) // problems in a stable order
	both := ""
	for _, k := range keys {
		v := q[k][len(q[k])-1]
		switch k {
		case "consistency", "read_consistency", "write_consistency":
			cl, ok := cqlConsistency(v)
			if !ok {
				bad("%s %q: use one of %s", k, v, strings.Join(Consistencies, ", "))
				continue
			}
			switch k {
			case "consistency":
				both = cl
			case "read_consistency":
				c.ReadConsistency = cl
			default:
				c.WriteConsistency = cl
			}
		case "serial_consistency":
			switch u := strings.ToUpper(v); u {
			case "SERIAL", "LOCAL_SERIAL":
				c.SerialConsistency = u
			default:
				bad("serial_consistency %q: use SERIAL or LOCAL_SERIAL", v)
			}
		case "timeout", "connect_timeout", "write_coalesce":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				bad("%s %q: want a duration such as 5s", k, v)
				continue
			}
			if k != "write_coalesce" {
				var msg string
				if d, msg = cqlTimeout(k, d); msg != "" {
					bad("%s", msg)
					continue
				}
			}
			if k == "write_coalesce" && d > MaxWriteCoalesce {
				bad("write_coalesce %q: at most %s (it delays every write by up to that)", v, MaxWriteCoalesce)
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
		case "page_size", "conns", "proto", "metrics_port":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				bad("%s %q: want a positive number", k, v)
				continue
			}
			if lim, ok := intMax[k]; ok && n > lim {
				bad("%s %d: at most %d", k, n, lim)
				continue
			}
			switch k {
			case "page_size":
				c.PageSize = n
			case "conns":
				c.Conns = n
			case "metrics_port":
				c.MetricsPort = n
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
			if !cqlName(v, false) {
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
			bad("unknown CQL URL option %q (consistency, read_consistency, write_consistency, serial_consistency, timeout, connect_timeout, page_size, replication, table, local_dc, conns, proto, compression, write_coalesce, batch, metrics_port)", k)
		}
	}
	if both != "" {
		// consistency sets both; read_/write_consistency override it.
		if _, ok := q["read_consistency"]; !ok {
			c.ReadConsistency = both
		}
		if _, ok := q["write_consistency"]; !ok {
			c.WriteConsistency = both
		}
	}
	return c, probs
}

// cqlTimeout bounds a URL timeout option: 0 means the cap, a longer one
// is refused ("" when d is fine).
func cqlTimeout(k string, d time.Duration) (time.Duration, string) {
	limit := scenarios.MaxClientTimeout
	if k == "connect_timeout" {
		limit = MaxConnectTimeout
	}
	switch {
	case d == 0:
		return limit, ""
	case d > limit:
		return d, fmt.Sprintf("%s %s is longer than the %s cap (0s means the cap)", k, d, limit)
	}
	return d, ""
}
