package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// TestGrowthOOMKillEndsOnlyItsVariant grows 1 KB values on managed
// redis-servers in a 32 MB memory cgroup with no swap, once per
// persistence variant: each server outgrows its cap and the kernel
// OOM-kills it. The kill ends that variant's growth, whose cliff is
// the OOM kill at the stage it happened in, and the next variant still
// runs on a fresh server; the run is marked interrupted with the
// reason (stages it was asked for did not run). A stage of 20,000
// records (about 26 MB in the cgroup) fits, the second's batch does not:
// one stage is measured before the kill, so no other rule (they compare
// a stage with the ones before it) can find a cliff first.
func TestGrowthOOMKillEndsOnlyItsVariant(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: growth-oom-kill
target: {kind: redis, managed: {persistences: [none, "aof:everysec"], cgroup_memory: 32mb}}
keyspace: {records: 1000000}
record: {fields: 1, field_bytes: 1000}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 90, set: 10}
    growth: {batch: 20000, measure_rate: 50, measure_for: 400ms, max_stages: 20, after_cliff: -1}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	sum, err := runWritten(ctx, Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir,
		Interval: 250 * time.Millisecond, Reopen: targets.Reopener(ctx, sc.Target, targets.Options{})})
	if sum == nil {
		t.Fatalf("no summary: %v", err)
	}
	if ml := sum.Target.MemoryLimits; ml == nil || ml.Cgroup == "" {
		// A memory cgroup is the host's (see TestGrowthMemoryPerStage).
		testutil.HostLacks(t, "no memory cgroup: %+v", ml)
	}
	if len(sum.Phases) != 2 {
		t.Fatalf("err %v; %d phases, want one per variant: %+v", err, len(sum.Phases), sum)
	}
	for i, v := range []string{"none", "aof:everysec"} {
		p := sum.Phases[i]
		if p.Variant != v || len(p.Stages) < 2 {
			t.Fatalf("phase %d: variant %q, %d stages", i, p.Variant, len(p.Stages))
		}
		last := p.Stages[len(p.Stages)-1]
		if p.EndedEarly == nil || !strings.Contains(p.EndedEarly.Reason, "OOM-killed by the kernel") {
			t.Errorf("%s: ended early %v, want the OOM kill", p.Name, p.EndedEarly)
		}
		c := p.Cliff
		if c == nil || c.Reason != rundir.CliffOOM || c.Stage != last.Name || c.Unconfirmed {
			t.Fatalf("%s: cliff %+v, want oom at %s", p.Name, c, last.Name)
		}
		if !strings.Contains(strings.Join(c.Signals, "|"), "OOM-killed") {
			t.Errorf("%s: cliff signals %q do not name the OOM kill", p.Name, c.Signals)
		}
		if last.Records <= p.Stages[len(p.Stages)-2].Records {
			t.Errorf("%s: the killed stage's records %d, the one before %d", p.Name, last.Records, p.Stages[len(p.Stages)-2].Records)
		}
	}
	if sum.Status != rundir.StatusInterrupted || !strings.Contains(sum.StatusReason, "OOM-killed") || err == nil {
		t.Errorf("status %s %q, err %v", sum.Status, sum.StatusReason, err)
	}
	got, rerr := rundir.ReadSummary(dir)
	if rerr != nil || len(got.Phases) != 2 {
		t.Fatalf("run directory: %v", rerr)
	}
	txt := report.Text(got)
	for _, v := range []string{"grow[none]", "grow[aof:everysec]"} {
		if !strings.Contains(txt, v) {
			t.Errorf("summary.txt lacks %s:\n%s", v, txt)
		}
	}
	// The killed stage measured nothing: the charts draw no rate for
	// it, rather than a rate of 0.
	// (The kill can also come while a stage measures: that stage has
	// figures and is drawn.)
	killed := map[string]bool{}
	for _, p := range got.Phases {
		last := p.Stages[len(p.Stages)-1]
		if last.Scheduled == 0 && last.Completed == 0 && len(last.Ops) == 0 {
			killed[p.Name+" "+last.Name] = true
		}
	}
	charts := 0
	for _, pp := range report.BuildReport(got, nil).Phases {
		for _, pl := range pp.Plots {
			if pl.Title != "achieved rate per stage" {
				continue
			}
			charts++
			for _, sr := range pl.Series {
				for _, pt := range sr.Points {
					if killed[pp.Phase+" "+pt.Label] {
						t.Errorf("%s %s: %s drawn for the stage that measured nothing", pp.Phase, pl.Title, sr.Name)
					}
				}
			}
		}
	}
	if charts != 2 {
		t.Errorf("%d achieved-rate charts, want one per variant", charts)
	}
	if page := string(report.ReportHTML([]*rundir.Summary{got}, nil)); strings.Count(page, "OOM-killed by the kernel") < 2 {
		t.Error("report.html does not name the OOM kill of each variant")
	}
	t.Logf("%s", txt)
}
