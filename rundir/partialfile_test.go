package rundir

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
)

// fullDisk passes writes through until room bytes have gone, then writes
// what fits and fails with ENOSPC (short, when short is set: a short
// write with no error). calls counts the writes it was asked for.
type fullDisk struct {
	w     io.Writer
	room  int
	short bool
	calls int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	d.calls++
	if len(p) <= d.room {
		d.room -= len(p)
		return d.w.Write(p)
	}
	n, err := d.w.Write(p[:d.room])
	d.room -= n
	if err == nil && !d.short {
		err = syscall.ENOSPC
	}
	return n, err
}

func countsRecord(i int) []byte {
	return AppendCount(nil, IntervalCount{Phase: "steady", Op: "get", StartMs: int64(1000 * i), EndMs: int64(1000 * (i + 1)), Ops: 400, Errors: int64(i)})
}

// A log that is written whole is renamed to its final name at Finish;
// no .partial is left.
func TestPartialFileRenamedAtFinish(t *testing.T) {
	dir := t.TempDir()
	p, err := CreatePartial(dir, CountsFile, "line")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, PartialCounts)); err != nil {
		t.Fatalf("not written under its .partial name: %v", err)
	}
	want := []byte(CountsHeader)
	for i, rec := range [][]byte{[]byte(CountsHeader), countsRecord(1), countsRecord(2)} {
		if err := p.Write(rec); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			want = append(want, rec...)
		}
	}
	if err := p.Finish(); err != nil || p.Err() != nil {
		t.Fatalf("Finish: %v (Err %v)", err, p.Err())
	}
	got, err := os.ReadFile(filepath.Join(dir, CountsFile))
	if err != nil || string(got) != string(want) {
		t.Fatalf("counts.csv %q, %v; want %q", got, err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, PartialCounts)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".partial left after Finish: %v", err)
	}
}

// A write that fails part-way (a disk filling up, or a short write)
// is cut back to the last whole record and ends the log: the error
// names the file, where it stopped and the cause; no later write reaches
// the file; Finish returns the error and keeps the .partial name; the
// file reads back as every whole record before the failure.
func TestPartialFileCutsBackTornWrite(t *testing.T) {
	for _, short := range []bool{false, true} {
		name := "enospc"
		if short {
			name = "short write"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := CreatePartial(dir, CountsFile, "line")
			if err != nil {
				t.Fatal(err)
			}
			whole := append([]byte(CountsHeader), countsRecord(1)...)
			// Room for the header, one record and half the next.
			disk := &fullDisk{room: len(whole) + len(countsRecord(2))/2, short: short}
			p.Wrap(func(w io.Writer) io.Writer { disk.w = w; return disk })
			if err := p.Write(whole); err != nil {
				t.Fatal(err)
			}
			err = p.Write(countsRecord(2))
			want := syscall.Errno(syscall.ENOSPC)
			if short {
				if !errors.Is(err, io.ErrShortWrite) {
					t.Fatalf("torn write: %v, want io.ErrShortWrite", err)
				}
			} else if !errors.Is(err, want) {
				t.Fatalf("torn write: %v, want ENOSPC", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, PartialCounts) || !strings.Contains(msg, "on the last whole line") || !strings.Contains(msg, "after "+strconv.Itoa(len(whole))+" bytes") {
				t.Errorf("error %q does not name the file, the unit and where it stopped", msg)
			}
			calls := disk.calls
			if err := p.Write(countsRecord(3)); err != nil || disk.calls != calls {
				t.Errorf("write after the log ended: %v, %d more writes reached the file", err, disk.calls-calls)
			}
			if p.Err() == nil || p.Err().Error() != msg {
				t.Errorf("Err() = %v, want the error that ended the log", p.Err())
			}
			got, _ := os.ReadFile(filepath.Join(dir, PartialCounts))
			if string(got) != string(whole) {
				t.Fatalf("file %q, want the whole records %q (the torn one cut back)", got, whole)
			}
			if err := p.Finish(); err == nil || err.Error() != msg {
				t.Errorf("Finish: %v, want the error that ended the log", err)
			}
			if _, err := os.Stat(filepath.Join(dir, CountsFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a log that ended on an error was given its final name: %v", err)
			}
			recs, err := ReadCounts(filepath.Join(dir, PartialCounts))
			if err != nil || len(recs) != 1 || recs[0].Errors != 1 {
				t.Errorf("read back %+v, %v; want the one whole record", recs, err)
			}
		})
	}
}

// A process killed mid-run (no Finish, no Close) leaves the .partial
// file holding every record written: readable as it stands.
func TestPartialFileKilledLeavesReadablePartial(t *testing.T) {
	dir := t.TempDir()
	p, err := CreatePartial(dir, CountsFile, "line")
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Write([]byte(CountsHeader))
	var want []IntervalCount
	for i := range 3 {
		if err := p.Write(countsRecord(i)); err != nil {
			t.Fatal(err)
		}
		want = append(want, IntervalCount{Phase: "steady", Op: "get", StartMs: int64(1000 * i), EndMs: int64(1000 * (i + 1)), Ops: 400, Errors: int64(i)})
	}
	// Read while the writer still holds the file open, as a reader of
	// a killed run's directory finds it.
	got, err := ReadCounts(filepath.Join(dir, PartialCounts))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, %v; want %+v", got, err, want)
	}
	// A run that failed part-way in a process that runs on (the
	// daemon) closes the log where it is, under its .partial name.
	p.Close()
	if _, err := os.Stat(filepath.Join(dir, PartialCounts)); err != nil {
		t.Errorf("Close removed the .partial: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, CountsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Close gave the log its final name: %v", err)
	}
}

// The log of a run that never started is removed.
func TestPartialFileDiscard(t *testing.T) {
	dir := t.TempDir()
	p, err := CreatePartial(dir, LatencyLog, "record")
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Write([]byte("#header\n"))
	p.Discard()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
	if _, err := CreatePartial(filepath.Join(dir, "missing"), LatencyLog, "record"); err == nil {
		t.Error("created a log in a directory that does not exist")
	}
}

// A killed run's latency.hlog.partial, written through a PartialFile
// whose disk filled mid-record, reads back (ReadPartial) as every whole
// interval before the failure, none torn.
func TestPartialFileLatencyLogReadAfterTornWrite(t *testing.T) {
	dir := t.TempDir()
	p, err := CreatePartial(dir, LatencyLog, "record")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	lw := hdr.NewHistogramLogWriter(&buf)
	_ = lw.OutputLogFormatVersion()
	_ = lw.OutputStartTime(start.UnixMilli())
	_ = lw.OutputBaseTime(start.UnixMilli())
	lw.SetBaseTime(start.UnixMilli())
	_ = lw.OutputLegend()
	interval := func(i int) []byte {
		buf.Reset()
		for _, tag := range []string{"steady.get.latency", "steady.get.service"} {
			h := metrics.NewHist()
			for v := range 100 {
				_ = h.RecordValue(int64(1000 * (v + 1)))
			}
			h.SetTag(tag)
			h.SetStartTimeMs(int64(1000 * i))
			h.SetEndTimeMs(int64(1000 * (i + 1)))
			_ = lw.OutputIntervalHistogram(h)
		}
		return bytes.Clone(buf.Bytes())
	}
	header := bytes.Clone(buf.Bytes())
	first, second := interval(0), interval(1)
	disk := &fullDisk{room: len(header) + len(first) + len(second)/2}
	p.Wrap(func(w io.Writer) io.Writer { disk.w = w; return disk })
	for i, rec := range [][]byte{header, first, second} {
		if err := p.Write(rec); (err != nil) != (i == 2) {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	s, ending, err := ReadPartial(dir)
	if err != nil || strings.Contains(ending, "torn") {
		t.Fatalf("ReadPartial: %v (%s)", err, ending)
	}
	if len(s.Phases) != 1 || s.Phases[0].Ops["get"].Count != 100 {
		t.Errorf("read back %+v, want the first interval's 100 gets", s.Phases)
	}
}
