package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

func fp(v float64) *float64 { return &v }

// growthVariantsSummary is two persistence variants of one growth phase,
// 4 stages each, with memory figures and a cliff at stage-3 (aof) and
// none (none).
func growthVariantsSummary() *rundir.Summary {
	s := &rundir.Summary{SchemaVersion: 1, Scenario: "g", Target: rundir.TargetInfo{Kind: "redis"}, Status: "completed"}
	for _, v := range []string{"none", "aof:everysec"} {
		p := rundir.PhaseResult{Name: "grow[" + v + "]", Kind: scenarios.PhaseGrowth, Variant: v}
		for i := 0; i < 4; i++ {
			file := 1e6
			if v != "none" {
				file = float64(i+1) * 2e7
			}
			p.Stages = append(p.Stages, rundir.StageResult{Name: fmt.Sprintf("stage-%d", i+1), Records: int64(i+1) * 1000,
				Result: rundir.Result{TargetRate: 100, AchievedRate: 100, Ops: map[string]rundir.OpResult{"get": {Count: 100, Latency: metrics.Summary{P50: 1e-4, P99: 1e-3}}}},
				Load:   &rundir.Result{AchievedRate: 5000},
				Memory: &rundir.StageMemory{UsedBytes: fp(float64(i+1) * 3e7), CgroupUsageBytes: fp(float64(i+1)*3e7 + file), CgroupFileBytes: fp(file),
					CgroupAnonBytes: fp(float64(i+1) * 3e7), CgroupLimitBytes: fp(256 << 20), SwapBytes: fp(0)}})
		}
		if v != "none" {
			p.Cliff = &rundir.Cliff{Stage: "stage-3", StageIndex: 2, Op: "get", Reason: "p99", Records: 3000,
				Signals: []string{"page_cache: cgroup_memory_file_bytes 40000000 -> 60000000 (44% of cgroup usage)"}}
		}
		s.Phases = append(s.Phases, p)
	}
	return s
}

// TestGrowthMemoryCharts: each growth phase gets a memory-per-stage chart
// (used_memory, cgroup usage, page cache, anon, limit, swap vs records),
// the variant comparison puts one per variant side by side, and the
// cliff is marked (a line at its stage's records) on every per-stage
// chart of the phase that has it and on every comparison chart.
func TestGrowthMemoryCharts(t *testing.T) {
	s := growthVariantsSummary()
	rd := BuildReport(s, nil)
	if len(rd.Phases) != 3 || !strings.Contains(rd.Phases[0].Phase, "side by side") {
		t.Fatalf("sections %+v", rd.Phases)
	}
	cmp := rd.Phases[0]
	if got := strings.Join(cmp.Notes, "|"); got != "none: no cliff in 4 stages|aof:everysec: cliff at stage-3 (3000 records): p99 get; server: page_cache: cgroup_memory_file_bytes 40000000 -> 60000000 (44% of cgroup usage)" {
		t.Errorf("comparison notes %q", got)
	}
	var mem []Plot
	for _, pl := range cmp.Plots {
		want := "aof:everysec cliff stage-3: p99 get"
		switch pl.Title {
		case "memory per stage: none":
			want = ""
		case "memory per stage: aof:everysec":
			want = "cliff stage-3: p99 get"
		}
		if strings.HasPrefix(pl.Title, "memory per stage: ") {
			mem = append(mem, pl)
		}
		if want == "" && len(pl.Cliffs) != 0 || want != "" && (len(pl.Cliffs) != 1 || pl.Cliffs[0].X != 3000 || pl.Cliffs[0].Label != want) {
			t.Errorf("comparison chart %q cliffs %+v, want %q", pl.Title, pl.Cliffs, want)
		}
	}
	if len(mem) != 2 || mem[0].Title != "memory per stage: none" || mem[1].Title != "memory per stage: aof:everysec" {
		t.Fatalf("memory charts %+v", mem)
	}
	names := []string{}
	for _, sr := range mem[1].Series {
		names = append(names, sr.Name)
	}
	if got := strings.Join(names, ","); got != "used_memory,cgroup usage,cgroup file (page cache),cgroup anon,cgroup limit,swap" {
		t.Errorf("memory series %s", got)
	}
	if pt := mem[1].Series[2].Points[3]; pt.X != 4000 || pt.Y != 8e7 {
		t.Errorf("page cache at stage-4: %+v", pt)
	}
	for _, pp := range rd.Phases[1:] {
		aof := strings.Contains(pp.Phase, "aof")
		perStage := 0
		for _, pl := range pp.Plots {
			if pl.XLabel != "dataset (records)" {
				continue
			}
			perStage++
			if aof != (len(pl.Cliffs) == 1) {
				t.Errorf("%s %q: cliffs %+v", pp.Phase, pl.Title, pl.Cliffs)
			}
		}
		if perStage < 4 {
			t.Errorf("%s: %d per-stage charts", pp.Phase, perStage)
		}
	}
	page := string(ReportHTML([]*rundir.Summary{s}, nil))
	// Comparison: 1 p99 + insert rate + the aof memory chart; the aof
	// phase: latency, rate, insert rate, memory.
	if n := strings.Count(page, `class="cliff"`); n != 7 {
		t.Errorf("%d cliff lines drawn, want 7", n)
	}
}

// TestTimelinePersistenceSpans: a phase's persistence_events are shaded
// on its latency-over-time chart (one rect each, coloured by kind, with
// a legend entry per kind), and on no other chart, and listed in
// summary.txt.
func TestTimelinePersistenceSpans(t *testing.T) {
	s := growthVariantsSummary()
	p := &s.Phases[1]
	p.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.End = p.Start.Add(10 * time.Second)
	p.PersistenceEvents = []rundir.PersistenceEvent{{Kind: "bgsave", StartOffsetSeconds: 2, EndOffsetSeconds: 3.5}, {Kind: "aof_rewrite", StartOffsetSeconds: 6, EndOffsetSeconds: 8}}
	tl := &Timeline{Width: map[string]time.Duration{p.Name: time.Second}, Phases: map[string]map[string][]TimePoint{p.Name: {}}}
	for i := 0; i < 10; i++ {
		tl.Phases[p.Name]["get"] = append(tl.Phases[p.Name]["get"], TimePoint{At: p.Start.Add(time.Duration(i) * time.Second), Count: 10, P99: 1e-3})
	}
	rd := BuildReport(s, tl)
	var spans int
	for _, pp := range rd.Phases {
		for _, pl := range pp.Plots {
			if len(pl.Spans) == 0 {
				continue
			}
			spans++
			if !strings.Contains(pl.Title, "latency over time") || pp.Phase != p.Name {
				t.Errorf("spans on %s %q", pp.Phase, pl.Title)
			}
			want := []Span{{From: 2, To: 3.5, Label: "bgsave"}, {From: 6, To: 8, Label: "aof_rewrite"}}
			if fmt.Sprint(pl.Spans) != fmt.Sprint(want) {
				t.Errorf("spans %+v, want %+v", pl.Spans, want)
			}
		}
	}
	if spans != 1 {
		t.Fatalf("%d charts with spans, want the one timeline", spans)
	}
	if txt := Text(s); !strings.Contains(txt, "\n  persistence: bgsave +2.0s..+3.5s, aof_rewrite +6.0s..+8.0s\n") {
		t.Errorf("summary text lacks the persistence periods:\n%s", txt)
	}
	page := string(ReportHTML([]*rundir.Summary{s}, []*Timeline{tl}))
	if n := strings.Count(page, `class="span"`); n != 2 {
		t.Errorf("%d shaded spans drawn, want 2", n)
	}
	for _, want := range []string{`fill="#ff9900" fill-opacity="0.25"><title>bgsave 2s-3.5s</title>`, `fill="#9933cc" fill-opacity="0.25"><title>aof_rewrite 6s-8s</title>`, `>bgsave</text>`, `>aof_rewrite</text>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

// TestPerOpThroughputCharts: stages measured per op get a chart of each
// op's closed-loop throughput vs records, and the variant comparison one
// chart per op with a line per variant (the study's set/get/del figures),
// both with the cliff marked.
func TestPerOpThroughputCharts(t *testing.T) {
	s := growthVariantsSummary()
	for pi := range s.Phases {
		for i := range s.Phases[pi].Stages {
			st := &s.Phases[pi].Stages[i]
			st.PerOp = map[string]*rundir.Result{
				"get": {AchievedRate: float64(40000 - 1000*i - 5000*pi)},
				"set": {AchievedRate: float64(30000 - 1000*i - 5000*pi)},
			}
		}
	}
	rd := BuildReport(s, nil)
	find := func(section, title string) *Plot {
		for _, pp := range rd.Phases {
			if pp.Phase != section {
				continue
			}
			for i := range pp.Plots {
				if pp.Plots[i].Title == title {
					return &pp.Plots[i]
				}
			}
		}
		return nil
	}
	cmp := find("grow: persistence variants side by side", "set throughput per stage (alone, closed loop), by persistence")
	if cmp == nil || len(cmp.Series) != 2 || cmp.Series[0].Name != "none" || cmp.Series[1].Name != "aof:everysec" {
		t.Fatalf("comparison chart %+v", cmp)
	}
	if pt := cmp.Series[1].Points[2]; pt.X != 3000 || pt.Y != 23000 || len(cmp.Cliffs) != 1 || cmp.Cliffs[0].X != 3000 {
		t.Errorf("aof set at stage-3: %+v, cliffs %+v", pt, cmp.Cliffs)
	}
	ph := find("grow[aof:everysec]", "per-op throughput per stage (each op alone, closed loop)")
	if ph == nil || len(ph.Series) != 2 || ph.Series[0].Name != "get" || ph.Series[0].Points[0].Y != 35000 || len(ph.Cliffs) != 1 {
		t.Fatalf("phase chart %+v", ph)
	}
	// summary.txt's stage line: the cgroup's usage split and each op's
	// throughput alone.
	if txt := Text(s); !strings.Contains(txt, "cgroup 50.0 MB (page cache 20.0, anon 30.0); load 5000 ops/s, 0 errors; alone get 35000 ops/s set 25000 ops/s") {
		t.Errorf("text lacks the aof stage-1 line:\n%s", txt)
	}
}
