package cql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"
)

// Tuning that is not in the URL.
const (
	// MaxConnsPerHost caps the default connection count: one CQL
	// connection carries up to 32768 requests in flight.
	MaxConnsPerHost = 16
	// WorkersPerConn is how many workers share one connection by default.
	WorkersPerConn = 32
	// KeyColumn is YCSB's primary key column.
	KeyColumn = "y_id"
)

// Config is a cql:// URL as the driver needs it. The URL's options and
// defaults are ReadURL's (also used by soakd validate):
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
	URL
	Read, Write gocql.Consistency
	Serial      gocql.SerialConsistency
}

// ParseConsistency maps a level name (any case) to the driver's.
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
	return 0, fmt.Errorf("unknown consistency level %q (use %s)", s, strings.Join(Consistencies, ", "))
}

// ParseURL reads cql://[user@]host1[:port],host2[:port]/keyspace?options
// (cqls:// for TLS); every problem is in the one error.
func ParseURL(raw string) (Config, error) {
	u, probs := ReadURL(raw)
	if u.HasPassword {
		probs = append(probs, "the URL holds a password; name an environment variable in target.auth.password_env")
	}
	c := Config{URL: u, Serial: gocql.Serial}
	if u.SerialConsistency == "LOCAL_SERIAL" {
		c.Serial = gocql.LocalSerial
	}
	var err error
	if c.Read, err = ParseConsistency(u.ReadConsistency); err != nil {
		probs = append(probs, err.Error())
	}
	if c.Write, err = ParseConsistency(u.WriteConsistency); err != nil {
		probs = append(probs, err.Error())
	}
	if len(probs) > 0 {
		return c, errors.New(strings.Join(probs, "; "))
	}
	return c, nil
}
