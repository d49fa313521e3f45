package report

import (
	"sort"

	"github.com/soakd/soakd/rundir"
)

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func fmtDur(sec float64) string { return rundir.FormatSeconds(sec) }

func missRatio(o rundir.OpResult) float64 {
	if o.Count == 0 {
		return 0
	}
	return float64(o.Misses) / float64(o.Count)
}
