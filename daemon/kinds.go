package daemon

import (
	"net/http"

	"github.com/soakd/soakd/scenarios"
)

// KindView is one phase kind as the page sees it: the page names no
// kind itself, it asks the kind table (scenarios.PhaseKinds) here.
type KindView struct {
	Kind scenarios.PhaseKind `json:"kind"`
	// Compared: runs' phases of the kind are compared op by op
	// (PhaseKind.Compared), so a scenario's history chart draws them.
	Compared bool `json:"compared"`
}

// listKinds serves GET /api/v1/kinds: every phase kind, in the kind
// table's order.
func listKinds(w http.ResponseWriter, _ *http.Request) {
	out := []KindView{}
	for _, k := range scenarios.PhaseKinds() {
		out = append(out, KindView{Kind: k, Compared: k.Compared()})
	}
	writeJSON(w, http.StatusOK, map[string]any{"kinds": out})
}
