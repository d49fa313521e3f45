package report

import (
	"fmt"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// markBound notes on a cell that its phase p was generator- or
// host-bound (its first bound round's).
func (c *SuiteCell) markBound(p *rundir.PhaseResult) {
	if c.Bound == "" && p.Self != nil && p.Self.Bound != "" {
		c.Bound, c.Withheld = p.Self.Bound, p.Self.Withheld()
	}
}

// withheld is column ci's verdict when it cannot be given: the column or
// the first (the baseline) ran the test generator- or host-bound, so
// the figures are soakd's or the host's, not the store's ("" when
// neither was).
func (r SuiteRow) withheld(ci int) string {
	for _, c := range []int{ci, 0} {
		if c < len(r.Cells) && r.Cells[c].Bound != "" {
			return "no verdict: " + r.Cells[c].Bound + "-bound"
		}
	}
	return ""
}

// writeBoundNotes says, once per column and test, why a verdict was
// withheld.
func (t SuiteTable) writeBoundNotes(b *strings.Builder) {
	seen := map[string]bool{}
	for _, r := range t.Rows {
		for ci, c := range r.Cells {
			key := fmt.Sprint(ci, "\x00", r.Test)
			if c.Withheld == "" || seen[key] {
				continue
			}
			seen[key] = true
			fmt.Fprintf(b, "  %s, column %s: %s; its figures are not the store's\n", r.Test, t.Columns[ci].Label, c.Withheld)
		}
	}
}
