package cql

import (
	"strings"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Kinds are the target kinds this adapter registers.
var Kinds = []scenarios.TargetKind{scenarios.KindCQL, scenarios.KindScylla, scenarios.KindCassandra}

func init() {
	for _, k := range Kinds {
		targets.Register(string(k), targets.Adapter{Open: Open, Schema: clientSchema})
	}
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
