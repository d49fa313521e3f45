package cql

import (
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Aliases are the other names target.kind may give this adapter.
var Aliases = []string{"scylla", "cassandra"}

func init() {
	targets.Register(string(scenarios.KindCQL), targets.Adapter{
		Open: Open, Schema: clientSchema, Order: 50, Aliases: Aliases,
		URLSchemes: []string{"cql", "cqls"}, DefaultMaxBatch: DefaultMaxBatch, Family: Family,
		Title: "CQL stores (ScyllaDB, Cassandra)", Help: "CQL: ScyllaDB and Cassandra (kind: scylla, cassandra or cql)",
	})
}

// The cql adapter takes only the client: options every adapter takes
// (scenarios.ClientCommon); its own options are the URL's (ReadURL).
var clientSchema = targets.ClientSchema[struct{}]{Check: checkURL}

// checkURL reports every problem of a cql:// URL at target.url. A URL
// of another scheme is reported by scenario validation as not this
// kind's.
func checkURL(t scenarios.Target, _ *struct{}) []scenarios.FieldError {
	if !strings.HasPrefix(t.URL, "cql://") && !strings.HasPrefix(t.URL, "cqls://") {
		return nil
	}
	_, probs := ReadURL(t.URL)
	errs := make([]scenarios.FieldError, 0, len(probs))
	for _, p := range probs {
		errs = append(errs, scenarios.FieldError{Path: "target.url", Msg: p})
	}
	return errs
}
