package cql

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/gocql/gocql"
)

// Cassandra 4.0+ serves node-local virtual tables in system_views;
// ServerStats reads two cheap ones. Cassandra 3 and ScyllaDB do not have
// them: the server answers "keyspace system_views does not exist" or
// "unconfigured table ..." (an Invalid error, or Unauthorized when the
// role may not read them). That answer does not change while soakd runs,
// so the first one switches the query off for good (viewQuery.off): no
// error every interval, no failed stats. Any other error (a timeout, a
// lost connection) only skips the figures for that call.
//
// Virtual tables describe the node that coordinates the query, and gocql
// 1.7 cannot pin a query to a host: the figures are one node's (the one
// the policy picked), not the cluster's sum.
type viewQuery struct {
	off atomic.Bool
}

// absent reports whether err is the server saying the table is not there
// (or not readable), and remembers it.
func (v *viewQuery) absent(err error) bool {
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeInvalid, gocql.ErrCodeUnauthorized, gocql.ErrCodeSyntax:
			v.off.Store(true)
			return true
		}
	}
	return false
}

// threadPools are the pools reported one by one (a fixed set, so the
// stats names stay bounded); every pool counts in the sums. Names are
// matched without case, '-' or '_' (Cassandra lists "ReadStage",
// "Native-Transport-Requests"...).
var threadPools = map[string]string{
	"readstage":               "read_stage",
	"mutationstage":           "mutation_stage",
	"nativetransportrequests": "native_transport_requests",
	"compactionexecutor":      "compaction_executor",
}

func poolKey(name string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
}

// readViews adds system_views figures to out:
// cql_thread_pool_{active,pending,blocked}_tasks (summed over the
// pools), cql_thread_pool_<pool>_{active,pending}_tasks for the pools in
// threadPools, and cql_native_clients (rows of system_views.clients:
// connections to the native port).
func (t *Target) readViews(ctx context.Context, out map[string]float64) {
	if !t.viewPools.off.Load() {
		var name string
		var active, pending, blocked int64
		var sum [3]int64
		per := map[string][2]int64{}
		iter := t.sess().Query("SELECT name, active_tasks, pending_tasks, blocked_tasks FROM system_views.thread_pools").
			WithContext(ctx).Consistency(gocql.One).Iter()
		for iter.Scan(&name, &active, &pending, &blocked) {
			sum[0] += active
			sum[1] += pending
			sum[2] += blocked
			if p, ok := threadPools[poolKey(name)]; ok {
				c := per[p]
				per[p] = [2]int64{c[0] + active, c[1] + pending}
			}
		}
		if err := iter.Close(); err == nil {
			out["cql_thread_pool_active_tasks"] = float64(sum[0])
			out["cql_thread_pool_pending_tasks"] = float64(sum[1])
			out["cql_thread_pool_blocked_tasks"] = float64(sum[2])
			for _, p := range threadPools {
				out["cql_thread_pool_"+p+"_active_tasks"] = float64(per[p][0])
				out["cql_thread_pool_"+p+"_pending_tasks"] = float64(per[p][1])
			}
		} else {
			t.viewPools.absent(err)
		}
	}
	if !t.viewClients.off.Load() {
		// Counting rows, not count(*): aggregates on virtual tables
		// warn (or fail) on some 4.x releases; the table is small.
		var port int
		n := 0
		iter := t.sess().Query("SELECT port FROM system_views.clients").
			WithContext(ctx).Consistency(gocql.One).Iter()
		for iter.Scan(&port) {
			n++
		}
		if err := iter.Close(); err == nil {
			out["cql_native_clients"] = float64(n)
		} else {
			t.viewClients.absent(err)
		}
	}
}
