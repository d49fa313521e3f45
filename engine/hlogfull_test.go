package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
)

// fillingDisk passes writes through until limit bytes have gone, then
// writes only what fits and fails with ENOSPC, like a disk filling up.
type fillingDisk struct {
	w            io.Writer
	limit, wrote int
	afterFull    int // writes attempted once full
}

func (f *fillingDisk) Write(p []byte) (int, error) {
	if f.wrote >= f.limit {
		f.afterFull++
		return 0, syscall.ENOSPC
	}
	if f.wrote+len(p) <= f.limit {
		n, err := f.w.Write(p)
		f.wrote += n
		return n, err
	}
	n, err := f.w.Write(p[:f.limit-f.wrote])
	f.wrote += n
	if err == nil {
		err = syscall.ENOSPC
	}
	return n, err
}

// A disk that fills mid-record leaves a latency.hlog.partial that ends on
// the last whole record (the torn one is cut back), no interval is written
// after the failure, ReadPartial reads every line, and the run reports
// the failure as a WriteError with its summary.
func TestLatencyLogEndsOnRecordBoundaryWhenDiskFills(t *testing.T) {
	sc := scenario(t, `
target: {kind: embedded}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 600ms, concurrency: 2, mix: {get: 100}}
`)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	var disk *fillingDisk
	o := Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir, Interval: 50 * time.Millisecond,
		hlogWrap: func(w io.Writer) io.Writer {
			// Room for the header and a little: the first interval's
			// record (two lines, each with a compressed histogram) tears.
			disk = &fillingDisk{w: w, limit: 400}
			return disk
		}}
	sum, err := Run(context.Background(), o)
	var we *rundir.WriteError
	if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), rundir.PartialLog) {
		t.Fatalf("Run error %v, want a WriteError naming %s with ENOSPC", err, rundir.PartialLog)
	}
	if sum == nil || sum.Phases[0].Completed == 0 {
		t.Fatalf("summary lost with the log: %+v", sum)
	}
	if disk.wrote < disk.limit {
		t.Fatalf("the test never filled the disk (wrote %d of %d)", disk.wrote, disk.limit)
	}
	if disk.afterFull != 0 {
		t.Errorf("%d writes attempted after the disk filled; the log should have stopped", disk.afterFull)
	}
	data, err := os.ReadFile(filepath.Join(dir, rundir.PartialLog))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || len(data) >= disk.limit || data[len(data)-1] != '\n' {
		t.Fatalf("latency.hlog.partial is %d bytes (limit %d), want whole lines only; ends %q", len(data), disk.limit, data[max(0, len(data)-40):])
	}
	if !bytes.Contains(data, []byte("#[StartTime: ")) {
		t.Errorf("header lost:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "latency.hlog")); err == nil {
		t.Error("a log that stopped early was renamed to latency.hlog")
	}
	if _, ending, err := rundir.ReadPartial(dir); err != nil || strings.Contains(ending, "torn") {
		t.Errorf("ReadPartial: %v (%s)", err, ending)
	}
}

// With a disk that fills after several intervals, the log keeps every
// whole interval before the failure and ReadPartial reads them all.
func TestLatencyLogKeepsWholeIntervalsBeforeDiskFills(t *testing.T) {
	sc := scenario(t, `
target: {kind: embedded}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 800ms, concurrency: 2, mix: {get: 100}}
`)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	var disk *fillingDisk
	o := Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir, Interval: 50 * time.Millisecond,
		hlogWrap: func(w io.Writer) io.Writer {
			disk = &fillingDisk{w: w, limit: 2000}
			return disk
		}}
	_, err = Run(context.Background(), o)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Run error %v, want ENOSPC", err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, rundir.PartialLog))
	if len(data) == 0 || len(data) >= disk.limit || data[len(data)-1] != '\n' {
		t.Fatalf("latency.hlog.partial is %d bytes (limit %d), want whole lines only", len(data), disk.limit)
	}
	s, ending, err := rundir.ReadPartial(dir)
	if err != nil || strings.Contains(ending, "torn") || len(s.Phases) != 1 || s.Phases[0].Completed == 0 {
		t.Fatalf("ReadPartial: %v (%s) %+v", err, ending, s)
	}
	// The partial log's reader tells a full disk from a kill (the
	// write-error note holds the error) and knows the phase's kind and
	// the target from run.json.
	if s.Status != rundir.StatusWriteFailed || !strings.Contains(s.StatusReason, "no space left on device") {
		t.Errorf("ReadPartial status %q (%s), want write_failed with the error", s.Status, s.StatusReason)
	}
	if s.Phases[0].Kind != "steady" || s.Target.Kind != "embedded" {
		t.Errorf("ReadPartial kind %q target %+v, want steady and embedded from run.json", s.Phases[0].Kind, s.Target)
	}
}

// A run whose logs are written leaves run.json and its write-error note
// blank: the note is for the caller that writes the summary (runpath
// removes it then).
func TestFinishedRunLeavesRunInfoBlankNote(t *testing.T) {
	sc := scenario(t, `
target: {kind: embedded}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 200ms, concurrency: 2, mix: {get: 100}}
`)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	if _, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.WriteNoteFile)); err != nil || rundir.ReadWriteNote(dir) != "" {
		t.Errorf("write-error note: %v, %q; want it there and blank", err, rundir.ReadWriteNote(dir))
	}
	for _, f := range []string{rundir.LatencyLog, rundir.CountsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	ri, err := rundir.ReadRunInfo(dir)
	if err != nil || ri.Scenario != sc.Name || len(ri.Phases) != 1 || ri.Phases[0].Kind != "steady" || ri.Target.Kind != "embedded" {
		t.Errorf("run.json: %+v %v", ri, err)
	}
}
