package engine

import (
	"context"
	"errors"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// runWritten is Run followed by what runpath.Run does with its summary
// (runpath imports engine, so engine's tests cannot call it): the
// figures from the finished logs (p99 over time, change points, also
// on o.Exporter) and
// summary.json and summary.txt (report.FinishRun). For the tests that
// read those.
func runWritten(ctx context.Context, o Options) (*rundir.Summary, error) {
	sum, err := Run(ctx, o)
	if sum == nil {
		return nil, err
	}
	if werr := report.FinishRun(o.OutDir, sum, o.Interval, o.Exporter); werr != nil {
		return sum, errors.Join(err, werr)
	}
	return sum, err
}
