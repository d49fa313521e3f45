package rundir

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"

	"github.com/soakd/soakd/regfile"
)

// StatusKilled marks a summary read back from a killed run's
// latency.hlog.partial (ReadPartial); the engine never writes it.
const StatusKilled = "killed"

// StatusWriteFailed marks a summary read back from the
// latency.hlog.partial of a run whose writes failed (a full disk): its
// write-error note holds the error.
const StatusWriteFailed = "write_failed"

// PartialLog is the interval log of a run still going or killed.
const PartialLog = "latency.hlog.partial"

// ReadPartial reads what a killed run left: the intervals of its
// latency.hlog.partial up to the first torn or unreadable line, as a
// summary with per-phase, per-op counts and latency/service percentiles
// (warmup included; errors, drops and lag unknown, no SLO verdicts:
// those were in memory; Partial is set). Scenario, target, shard and
// phase kinds come from run.json when the run wrote one (else the
// kinds are empty: unknown). The status is write_failed when the
// run's write-error note holds an error (a full disk), else killed.
// The second value says how the log ended.
func ReadPartial(dir string) (*Summary, string, error) {
	p := filepath.Join(dir, PartialLog)
	f, err := regfile.Open(p)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	empty, err := sniffHlog(p, f)
	if err != nil {
		return nil, "", err
	}
	lr := hdr.NewHistogramLogReader(f)
	hists := map[string]*hdr.Histogram{}
	var order []string // phases in the order they appear
	seen := map[string]bool{}
	span := map[string][2]int64{} // phase -> first interval start, last end (ms)
	var start, end int64
	intervals := 0
	ending := "the log ends on a whole interval"
	if empty {
		ending = "the log is empty: the run wrote no interval (killed before its first, or still starting)"
	}
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			ending = fmt.Sprintf("the log's last line is torn; read %d whole intervals", intervals)
			break
		}
		if h == nil {
			if intervals == 0 && !empty {
				ending = "the log holds its header and no interval"
			}
			break
		}
		intervals++
		tag := h.Tag()
		if i := strings.LastIndexByte(tag, '.'); i > 0 {
			if j := strings.LastIndexByte(tag[:i], '.'); j > 0 {
				ph := tag[:j]
				if !seen[ph] {
					seen[ph] = true
					order = append(order, ph)
					span[ph] = [2]int64{h.StartTimeMs(), h.EndTimeMs()}
				}
				sp := span[ph]
				span[ph] = [2]int64{min(sp[0], h.StartTimeMs()), max(sp[1], h.EndTimeMs())}
			}
		}
		if start == 0 || (h.StartTimeMs() > 0 && h.StartTimeMs() < start) {
			start = h.StartTimeMs()
		}
		end = max(end, h.EndTimeMs())
		acc := hists[tag]
		if acc == nil {
			acc = metrics.NewHist()
			hists[tag] = acc
		}
		acc.Merge(h)
	}
	// The run started at the log's StartTime line (whole seconds); the
	// first interval begins up to one interval later.
	if t, ok := logStartTime(p); ok && (start == 0 || t.UnixMilli() <= start) {
		start = t.UnixMilli()
	}
	if end < start {
		end = start
	}
	s := &Summary{SchemaVersion: SchemaVersion, Scenario: filepath.Base(dir), Status: StatusKilled, Shard: Shard{Count: 1},
		Target:       TargetInfo{Kind: "unknown (not in the interval log)"},
		StatusReason: fmt.Sprintf("no summary.json; figures from %s (%s; warmup included; errors, drops and lag unknown; no SLO verdicts)", PartialLog, ending),
		Start:        time.UnixMilli(start).UTC(), End: time.UnixMilli(end).UTC(), Partial: true}
	if note := ReadWriteNote(dir); note != "" {
		s.Status = StatusWriteFailed
		s.StatusReason = "the results could not be written (" + note + "); " + s.StatusReason
	}
	ri, _ := ReadRunInfo(dir)
	if ri != nil {
		s.Scenario, s.ScenarioFile, s.Target, s.Shard = ri.Scenario, ri.ScenarioFile, ri.Target, ri.Shard
		if s.Shard.Count == 0 {
			s.Shard.Count = 1
		}
	}
	for _, name := range order {
		sp := span[name]
		pr := PhaseResult{Name: name, Start: time.UnixMilli(sp[0]).UTC(), End: time.UnixMilli(sp[1]).UTC()}
		if ri != nil {
			pr.Kind, _ = ri.KindOf(name)
		}
		pr.DurationSeconds = float64(sp[1]-sp[0]) / 1000
		pr.Ops = map[string]OpResult{}
		for tag, h := range hists {
			op, ok := strings.CutPrefix(tag, name+".")
			if !ok || !strings.HasSuffix(op, ".latency") {
				continue
			}
			op = strings.TrimSuffix(op, ".latency")
			if strings.Contains(op, ".") {
				continue // a longer phase name sharing this prefix
			}
			or := OpResult{Count: h.TotalCount(), Latency: metrics.Summarize(h), Service: metrics.Summarize(hists[name+"."+op+".service"])}
			pr.Ops[op] = or
			pr.Completed += or.Count
		}
		if pr.DurationSeconds > 0 {
			pr.AchievedRate = float64(pr.Completed) / pr.DurationSeconds
		}
		s.Phases = append(s.Phases, pr)
	}
	return s, ending, nil
}

// hlogMagic starts every interval log soakd writes (the HdrHistogram
// log format's version comment).
const hlogMagic = "#[Histogram log format version "

// sniffHlog reports whether f (at its start, left there) is empty, and
// refuses a file that is not an interval log: a random or foreign file
// named latency.hlog.partial would otherwise read as a log of no
// interval that "ends on a whole interval".
func sniffHlog(path string, f io.ReadSeeker) (empty bool, err error) {
	head := make([]byte, len(hlogMagic))
	n, rerr := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	switch {
	case n == 0 && (rerr == io.EOF):
		return true, nil
	case rerr != nil && rerr != io.ErrUnexpectedEOF:
		return false, rerr
	case n < len(hlogMagic) && strings.HasPrefix(hlogMagic, string(head[:n])):
		return true, nil // killed while writing its first line
	case string(head[:n]) != hlogMagic:
		return false, fmt.Errorf("%s: not an interval log: it does not start with %q (%d bytes read)", path, hlogMagic, n)
	}
	return false, nil
}

// logStartTime reads the #[StartTime: <seconds> ...] line of an interval
// log's header.
func logStartTime(path string) (time.Time, bool) {
	f, err := regfile.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			break
		}
		if rest, ok := strings.CutPrefix(line, "#[StartTime: "); ok {
			if i := strings.IndexByte(rest, ' '); i > 0 {
				if sec, err := strconv.ParseFloat(rest[:i], 64); err == nil && sec > 0 {
					return time.UnixMilli(int64(sec * 1000)).UTC(), true
				}
			}
		}
	}
	return time.Time{}, false
}
