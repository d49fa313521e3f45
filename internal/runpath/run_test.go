package runpath

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	_ "github.com/soakd/soakd/targets/embedded"
)

const short = `name: short
target: {kind: embedded}
keyspace: {records: 200}
phases:
  - {name: load, kind: load, concurrency: 2}
  - {name: steady, kind: steady, rate: 200, duration: 300ms, concurrency: 2, mix: {get: 100}}
`

func parse(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("short.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if fes := sc.Validate(); len(fes) > 0 {
		t.Fatal(fes)
	}
	return sc
}

func noEnv(string) string { return "" }

// A run writes its whole directory: the engine's logs under their final
// names, summary.json and summary.txt from the post-run work, run.json,
// and no write-error note. BeforeStart is called once, with the run's
// exporter, before the first op.
func TestRunWritesRunDirectory(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	var seen *metrics.Exporter
	exp, err := NewExporter(parse(t, short), rundir.Shard{Count: 1}, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Scenario: parse(t, short), OutDir: dir, Getenv: noEnv, Exporter: exp,
		BeforeStart: func(ctx context.Context, e *metrics.Exporter) error {
			calls++
			seen = e
			if _, err := os.Stat(filepath.Join(dir, rundir.PartialLog)); err == nil {
				t.Error("BeforeStart called after the run began writing its log")
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || seen != exp {
		t.Errorf("BeforeStart called %d times with %p, want once with the run's exporter %p", calls, seen, exp)
	}
	if sum.Status != rundir.StatusCompleted || len(sum.Phases) != 2 || sum.Phases[1].Completed == 0 {
		t.Fatalf("summary %+v", sum)
	}
	for _, f := range []string{rundir.SummaryFile, rundir.SummaryTextFile, rundir.LatencyLog, rundir.CountsFile, rundir.HistogramsFile, rundir.RunInfoFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, f := range []string{rundir.WriteNoteFile, rundir.PartialLog, rundir.PartialCounts} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind: %v", f, err)
		}
	}
	back, err := rundir.ReadSummary(dir)
	if err != nil || back.Phases[1].Completed != sum.Phases[1].Completed {
		t.Errorf("summary.json read back %v: %+v", err, back)
	}
}

// A BeforeStart that refuses ends the run before its first op: no
// summary, its error, nothing measured.
func TestRunBeforeStartRefuses(t *testing.T) {
	dir := t.TempDir()
	refused := errors.New("--listen 127.0.0.1:1: address in use")
	sum, err := Run(context.Background(), Options{Scenario: parse(t, short), OutDir: dir, Getenv: noEnv,
		BeforeStart: func(context.Context, *metrics.Exporter) error { return refused }})
	if sum != nil || !errors.Is(err, refused) {
		t.Fatalf("Run: %+v, %v; want no summary and the refusal", sum, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a run that never started wrote %v", ents)
	}
}

// A run whose summary cannot be written (summary.json is a directory
// here; a full disk elsewhere) returns its complete summary with a
// WriteError naming the file, and its write-error note keeps the error
// for the reader of the run directory.
func TestRunSummaryNotWritten(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, rundir.SummaryFile), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Scenario: parse(t, short), OutDir: dir, Getenv: noEnv})
	var we *rundir.WriteError
	if !errors.As(err, &we) || we.Dir != dir || !strings.Contains(err.Error(), rundir.SummaryFile) {
		t.Fatalf("Run error %v, want a WriteError naming %s", err, rundir.SummaryFile)
	}
	if sum == nil || sum.Phases[1].Completed == 0 {
		t.Fatalf("summary lost: %+v", sum)
	}
	if note := rundir.ReadWriteNote(dir); !strings.Contains(note, rundir.SummaryFile) {
		t.Errorf("write-error note %q, want the summary's error", note)
	}
}

// finish on what the engine returned: nothing ran (no summary: its
// error, nothing written); the engine's logs failed (the summary is
// still written, the error stays theirs and the note keeps their
// error); an interrupted run (its error, the note removed).
func TestFinish(t *testing.T) {
	sum := func() *rundir.Summary {
		return &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: "s", Shard: rundir.Shard{Count: 1}, Status: rundir.StatusCompleted}
	}
	dir := t.TempDir()
	nothing := errors.New("prepare target: no index")
	if err := finish(dir, nil, nil, nothing, nil); err != nothing {
		t.Errorf("no summary: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("nothing ran, yet %v written", ents)
	}

	dir = t.TempDir()
	note, err := rundir.ReserveWriteNote(dir)
	if err != nil {
		t.Fatal(err)
	}
	logs := &rundir.WriteError{Dir: dir, Err: errors.New(rundir.PartialLog + ": no space left on device")}
	note.Record(logs.Err)
	note.Close()
	if err := finish(dir, nil, sum(), logs, nil); err != logs {
		t.Errorf("logs failed: %v, want their WriteError", err)
	}
	if _, err := rundir.ReadSummary(dir); err != nil {
		t.Errorf("summary not written after the logs failed: %v", err)
	}
	if got := rundir.ReadWriteNote(dir); got != logs.Err.Error() {
		t.Errorf("note %q, want the logs' error", got)
	}

	dir = t.TempDir()
	note, err = rundir.ReserveWriteNote(dir)
	if err != nil {
		t.Fatal(err)
	}
	note.Close()
	stopped := errors.New("phase barrier: timed out")
	s := sum()
	s.Status = rundir.StatusInterrupted
	if err := finish(dir, nil, s, stopped, nil); err != stopped {
		t.Errorf("interrupted: %v, want its error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.WriteNoteFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the note stayed after the results were written: %v", err)
	}
}

// barrierTarget holds phase barriers (targets.Barrier).
type barrierTarget struct{ targets.Target }

func (barrierTarget) Arrive(context.Context, string) (int, error)  { return 1, nil }
func (barrierTarget) Arrived(context.Context, string) (int, error) { return 1, nil }

// The shards keep in step only with a run id and one store they share
// that holds barriers; otherwise the run id is dropped with a warning
// saying why. One shard needs no barrier.
func TestBarrierRunID(t *testing.T) {
	embedded := parse(t, short)
	redis := parse(t, strings.Replace(short, "{kind: embedded}", "{kind: redis, url: \"redis://127.0.0.1:1\"}", 1))
	managed := parse(t, strings.Replace(short, "{kind: embedded}", "{kind: redis, managed: {}}", 1))
	two := rundir.Shard{Index: 0, Count: 2}
	for _, tc := range []struct {
		name  string
		o     Options
		tg    targets.Target
		id    string
		warns string
	}{
		{"one shard", Options{Scenario: embedded, Shard: rundir.Shard{Count: 1}, RunID: "r"}, nil, "r", ""},
		{"no run id", Options{Scenario: redis, Shard: two}, barrierTarget{}, "", "has no run id"},
		{"embedded", Options{Scenario: embedded, Shard: two, RunID: "r"}, barrierTarget{}, "", "every shard runs its own embedded store"},
		{"managed", Options{Scenario: managed, Shard: two, RunID: "r"}, barrierTarget{}, "", "every shard runs its own redis store"},
		{"no barrier", Options{Scenario: redis, Shard: two, RunID: "r"}, nil, "", "redis targets hold no phase barrier"},
		{"shared store", Options{Scenario: redis, Shard: two, RunID: "r"}, barrierTarget{}, "r", ""},
	} {
		id, msg := barrierRunID(tc.o, tc.tg)
		if id != tc.id || (tc.warns == "") != (msg == "") || !strings.Contains(msg, tc.warns) {
			t.Errorf("%s: run id %q, warning %q; want %q and %q", tc.name, id, msg, tc.id, tc.warns)
		}
	}
}

// A shard of a run on the embedded store goes ahead without barriers,
// saying so once, and a close that fails after it would be said too
// (none here): the warnings reach Options.Warn with their kind.
func TestRunWarnsShardsOutOfStep(t *testing.T) {
	var got []Warning
	sum, err := Run(context.Background(), Options{Scenario: parse(t, short), OutDir: t.TempDir(), Getenv: noEnv,
		Shard: rundir.Shard{Index: 1, Count: 2}, RunID: "r", BarrierTimeout: time.Second,
		Warn: func(w Warning) { got = append(got, w) }})
	if err != nil || sum.Status != rundir.StatusCompleted {
		t.Fatalf("Run: %v %+v", err, sum)
	}
	if len(got) != 1 || got[0].Kind != WarnShards || !strings.Contains(got[0].Msg, "phases are not synchronised across shards") {
		t.Errorf("warnings %+v, want the one shards warning", got)
	}
}
