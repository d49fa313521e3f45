package runpath

import (
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// NewExporter is a run's exporter: soakd_run_info with version and
// target kind, and soakd_slo_latency_seconds for every op of the
// scenario's mixes ("*" limits merged, max as quantile 1).
func NewExporter(sc *scenarios.Scenario, shard rundir.Shard, version string) (*metrics.Exporter, error) {
	ops, err := sc.OpTable()
	if err != nil {
		return nil, err
	}
	limits, err := verdict.New(sc.SLO, ops)
	if err != nil {
		return nil, err
	}
	exp := metrics.NewExporter(sc.Name, shard.Label(), targets.Classes(), map[string]string{"version": version, "target_kind": string(sc.Target.Kind)})
	for _, s := range limits.Series(sc.MixOps()) {
		exp.SetSLO(s.Op, s.Quantile, s.Seconds)
	}
	return exp, nil
}
