package cql

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/soakd/soakd/targets"
)

// CQL error kinds counted in ServerStats (cql_errors_<kind>_total): the
// outcome label stays soakd's fixed set, these say which CQL error it was.
const (
	errUnavailable = iota
	errOverloaded
	errReadTimeout
	errWriteTimeout
	errReadFailure
	errWriteFailure
	errClientTimeout
	errConnection
	errOther
	numErrKinds
)

var errKindNames = [numErrKinds]string{"unavailable", "overloaded", "read_timeout", "write_timeout", "read_failure", "write_failure", "client_timeout", "connection", "other"}

// kind maps a driver error to a CQL error kind and soakd's class:
//
//	Unavailable (0x1000), Overloaded (0x1001), Is_bootstrapping (0x1002),
//	Read_failure (0x1300), Write_failure (0x1500), CAS unknown (0x1700),
//	auth errors               -> rejected: the coordinator refused the op
//	Read_timeout (0x1200), Write_timeout (0x1100), the driver's own
//	request timeout, a context deadline -> timeout
//	no hosts / closed connection / network errors -> connection
func kind(err error) (int, string) {
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeUnavailable:
			return errUnavailable, targets.ClassRejected
		case gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping:
			return errOverloaded, targets.ClassRejected
		case gocql.ErrCodeReadTimeout:
			return errReadTimeout, targets.ClassTimeout
		case gocql.ErrCodeWriteTimeout:
			return errWriteTimeout, targets.ClassTimeout
		case gocql.ErrCodeReadFailure:
			return errReadFailure, targets.ClassRejected
		case gocql.ErrCodeWriteFailure, gocql.ErrCodeCDCWriteFailure, gocql.ErrCodeCASWriteUnknown:
			return errWriteFailure, targets.ClassRejected
		case gocql.ErrCodeCredentials, gocql.ErrCodeUnauthorized:
			return errOther, targets.ClassRejected
		}
		return errOther, targets.ClassOther
	}
	switch {
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, context.DeadlineExceeded):
		return errClientTimeout, targets.ClassTimeout
	case errors.Is(err, errConnLost), errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrSessionClosed), errors.Is(err, gocql.ErrTooManyTimeouts),
		errors.Is(err, gocql.ErrNoStreams), errors.Is(err, gocql.ErrNoConnectionsStarted):
		return errConnection, targets.ClassConnection
	}
	switch c := targets.ClassifyGeneric(err); c {
	case targets.ClassTimeout:
		return errClientTimeout, c
	case targets.ClassConnection:
		return errConnection, c
	default:
		return errOther, c
	}
}

// Classify maps driver errors to soakd's classes (see kind) and counts
// each CQL error kind for ServerStats.
func (t *Target) Classify(err error) string {
	if err == nil {
		return targets.ClassOK
	}
	if errors.Is(err, targets.ErrNotFound) {
		return targets.ClassNotFound
	}
	k, class := kind(err)
	t.errCounts[k].Add(1)
	return class
}

// ServerStats reports the driver's view (hosts known and up, connect
// errors, CQL errors by kind), what system.local and system.peers hold
// as numbers, Cassandra 4's system_views thread pools and client count
// when the server has them (views.go) and, with metrics_port, ScyllaDB's own figures (cache,
// memory, compactions, coordinator timeouts, reactor utilization)
// scraped from each node's Prometheus endpoint.
func (t *Target) ServerStats(ctx context.Context) (map[string]float64, error) {
	out := map[string]float64{}
	known, up := t.hosts.Load().counts()
	out["cql_hosts_known"] = float64(known)
	out["cql_hosts_up"] = float64(up)
	out["cql_connect_errors_total"] = float64(t.connErrors.Load())
	if maxMean, minMean, n, errs := t.hostLat.interval(); n > 0 {
		// Per host, since the last stats call: the slowest and fastest
		// host's mean request time, as the driver timed them.
		out["cql_host_mean_request_seconds_max"] = maxMean
		out["cql_host_mean_request_seconds_min"] = minMean
		out["cql_hosts_serving"] = float64(n)
		out["cql_host_request_errors"] = float64(errs)
	}
	for i, n := range errKindNames {
		out["cql_errors_"+n+"_total"] = float64(t.errCounts[i].Load())
	}
	if t.cfg.MetricsPort > 0 {
		t.scrapeScylla(ctx, out)
	}
	var proto string
	var tokens []string
	err := t.sess().Query("SELECT native_protocol_version, tokens FROM system.local WHERE key = 'local'").
		WithContext(ctx).Consistency(gocql.One).Scan(&proto, &tokens)
	if err != nil {
		return out, t.scrub(fmt.Errorf("system.local: %w", err))
	}
	out["cql_local_tokens"] = float64(len(tokens))
	var peers int
	iter := t.sess().Query("SELECT peer FROM system.peers").WithContext(ctx).Consistency(gocql.One).Iter()
	peers = iter.NumRows()
	if err := iter.Close(); err == nil {
		out["cql_peers"] = float64(peers)
	}
	t.readViews(ctx, out)
	return out, nil
}
