package report

import (
	"github.com/soakd/soakd/rundir"
)

func fmtDur(sec float64) string { return rundir.FormatSeconds(sec) }

func missRatio(o rundir.OpResult) float64 {
	if o.Count == 0 {
		return 0
	}
	return float64(o.Misses) / float64(o.Count)
}
