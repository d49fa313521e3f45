package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Run states in the index.
const (
	StateQueued      = "queued"
	StateRunning     = "running"
	StateCompleted   = rundir.StatusCompleted
	StateInterrupted = rundir.StatusInterrupted
	StateFailed      = "failed" // could not start (bad scenario, target down, ...)
	// StateKilled is a run recovered from a directory holding only
	// latency.hlog.partial: its process died without writing a summary.
	StateKilled = rundir.StatusKilled
	// StateWriteFailed is such a run whose write-error note says its
	// results could not be written (a full disk).
	StateWriteFailed = rundir.StatusWriteFailed
)

// SourceRecovered is the source of an entry rebuilt from its run
// directory (index.json was missing, stale or unreadable).
const SourceRecovered = "recovered"

// EntryTarget is the target of a run: its kind and redacted URL.
type EntryTarget struct {
	Kind string `json:"kind,omitempty"`
	URL  string `json:"url,omitempty"`
}

// Entry is one run in index.json.
type Entry struct {
	ID           string       `json:"id"`
	Scenario     string       `json:"scenario"`
	ScenarioFile string       `json:"scenario_file"`
	Source       string       `json:"source"` // api | schedule:<name> | soak:<name> | recovered
	Target       *EntryTarget `json:"target,omitempty"`
	State        string       `json:"state"`
	Error        string       `json:"error,omitempty"`
	Created      time.Time    `json:"created"`
	Start        *time.Time   `json:"start,omitempty"`
	End          *time.Time   `json:"end,omitempty"`
	SLOPassed    *bool        `json:"slo_passed,omitempty"`
	// ChecksPassed is an interrupted run's: whether the SLO checks on
	// what it measured held (setVerdict).
	ChecksPassed *bool       `json:"checks_passed,omitempty"`
	Dir          string      `json:"dir"` // relative to data_dir
	Regression   *Regression `json:"regression,omitempty"`
}

// Finished says the entry will not change any more.
func (e *Entry) Finished() bool {
	return e.State != StateQueued && e.State != StateRunning
}

type indexFile struct {
	SchemaVersion int      `json:"schema_version"`
	Runs          []*Entry `json:"runs"`
}

// History is data_dir/index.json plus data_dir/runs/<id>/. Every change
// rewrites index.json atomically (temp file, fsync, rename); memory is
// the truth, so a failed write is made good by the next one.
type History struct {
	dir string
	mu  sync.Mutex
	m   map[string]*Entry
	seq int
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidID says whether s can be a run id (and so a directory name).
func ValidID(s string) bool { return idRE.MatchString(s) && s != "." && s != ".." }

// OpenHistory loads the index in dir (creating dir). Runs the index
// still shows queued or running belonged to a daemon that died: they take
// the status of the summary.json they left, or are marked interrupted (a
// run directory without summary.json gets a minimal interrupted one so
// every finished run has a summary). A missing, stale or unreadable
// index.json (torn by a full disk) is rebuilt from the run directories:
// every runs/<id>/ the index lacks is recovered from its summary.json, or
// from latency.hlog.partial as a killed run. An index that cannot be
// written is kept in memory (a note says so) and written on the next
// change; only an unusable data_dir is an error.
func OpenHistory(dir string, now time.Time) (*History, []string, error) {
	return openHistory(dir, now, nil)
}

// resumePick decides, given the runs a killed daemon left unfinished
// (no summary.json), which the daemon resumes (resume, by id) and why
// each other one is not (why, by id; absent: no reason to give).
type resumePick func(unfinished []*Entry, runDir func(id string) string) (resume map[string]bool, why map[string]string)

// openHistory is OpenHistory leaving the runs pick resumes as they are
// (still running, no summary written): the daemon resumes them. The
// others are marked as OpenHistory marks them, with pick's reason.
func openHistory(dir string, now time.Time, pick resumePick) (*History, []string, error) {
	h := &History{dir: dir, m: map[string]*Entry{}}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return nil, nil, fmt.Errorf("data_dir: %w", err)
	}
	var notes []string
	idx := filepath.Join(dir, "index.json")
	data, err := os.ReadFile(idx)
	var f indexFile
	rebuild := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		rebuild = "missing"
	case err != nil:
		rebuild = fmt.Sprintf("unreadable (%v)", err)
	default:
		if err := json.Unmarshal(data, &f); err != nil {
			rebuild = fmt.Sprintf("corrupt (%v)", err)
			f = indexFile{}
			// Kept for a post-mortem; the rebuilt index replaces it.
			if err := os.Rename(idx, idx+".corrupt"); err == nil {
				rebuild += "; the old file is kept as index.json.corrupt"
			}
		}
	}
	var unfinished []*Entry
	for _, e := range f.Runs {
		if e == nil || !ValidID(e.ID) {
			continue
		}
		if !e.Finished() {
			if s, err := rundir.ReadSummary(h.RunDir(e.ID)); err == nil && s.Status != "" {
				// It finished, but the index write saying so failed.
				was := e.State
				e.State = s.Status
				end := s.End
				e.End = &end
				setVerdict(e, s)
				notes = append(notes, fmt.Sprintf("run %s: the index said %s but its summary.json says %s: updated", e.ID, was, s.Status))
				h.m[e.ID] = e
				continue
			}
			unfinished = append(unfinished, e)
		}
		h.m[e.ID] = e
	}
	var resume map[string]bool
	var why map[string]string
	if pick != nil && len(unfinished) > 0 {
		resume, why = pick(unfinished, h.RunDir)
	}
	for _, e := range unfinished {
		if resume[e.ID] {
			notes = append(notes, fmt.Sprintf("run %s was in progress when the daemon stopped: resuming it", e.ID))
			continue
		}
		e.State = StateInterrupted
		e.Error = "the daemon stopped while this run was in progress"
		t := now.UTC()
		e.End = &t
		if err := h.ensureSummary(e); err != nil {
			notes = append(notes, fmt.Sprintf("run %s: %v", e.ID, err))
		}
		note := fmt.Sprintf("run %s was in progress when the daemon stopped: marked %s", e.ID, e.State)
		if w := why[e.ID]; w != "" {
			e.Error += "; not resumed: " + w
			note += "; not resumed: " + w
		}
		notes = append(notes, note)
	}
	n, skipped, err := h.recoverDirs()
	switch {
	case err != nil:
		notes = append(notes, fmt.Sprintf("index: reading %s: %v", filepath.Join(dir, "runs"), err))
	case rebuild != "" && (n > 0 || rebuild != "missing"):
		notes = append(notes, fmt.Sprintf("index.json was %s: rebuilt from the run directories, %d runs recovered", rebuild, n))
	case n > 0:
		notes = append(notes, fmt.Sprintf("index.json was stale: %d runs recovered from their run directories", n))
	}
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("index: %d run directories hold neither summary.json nor %s: not listed", skipped, rundir.PartialLog))
	}
	if err := h.save(); err != nil {
		notes = append(notes, fmt.Sprintf("index write failed (kept in memory, written on the next change): %v", err))
	}
	return h, notes, nil
}

// recoverDirs adds an entry for every run directory the index lacks.
func (h *History) recoverDirs() (n, skipped int, err error) {
	des, err := os.ReadDir(filepath.Join(h.dir, "runs"))
	if err != nil {
		return 0, 0, err
	}
	for _, de := range des {
		id := de.Name()
		if !de.IsDir() || !ValidID(id) || h.m[id] != nil {
			continue
		}
		e := recoverEntry(h.RunDir(id), id)
		if e == nil {
			skipped++
			continue
		}
		h.m[id] = e
		n++
	}
	return n, skipped, nil
}

// recoverEntry rebuilds run id's entry from its directory: summary.json
// gives scenario, target, start/end, status and SLO verdict; a killed
// run's latency.hlog.partial gives start (its StartTime), end (its last
// interval's end) and status killed, the scenario coming from the id.
// nil when the directory holds neither.
func recoverEntry(dir, id string) *Entry {
	e := &Entry{ID: id, Source: SourceRecovered, Dir: "runs/" + id}
	if s, err := rundir.ReadSummary(dir); err == nil {
		e.Scenario, e.ScenarioFile, e.State, e.Error = s.Scenario, s.ScenarioFile, s.Status, s.StatusReason
		if e.State == "" {
			e.State = StateCompleted
		}
		start, end := s.Start, s.End
		e.Created, e.Start, e.End = start, &start, &end
		setVerdict(e, s)
		if s.Target.Kind != "" || s.Target.URL != "" {
			e.Target = &EntryTarget{Kind: s.Target.Kind, URL: scenarios.RedactURL(s.Target.URL)}
		}
		return e
	}
	s, ending, err := rundir.ReadPartial(dir)
	if err != nil {
		return nil
	}
	e.Scenario, e.State = scenarioFromID(id), s.Status
	e.Error = s.Status + ": no summary.json; " + rundir.PartialLog + ": " + ending
	if s.Status == StateWriteFailed {
		e.Error = s.StatusReason
	}
	if ri, err := rundir.ReadRunInfo(dir); err == nil {
		// The run said at its start what it was.
		e.Scenario, e.ScenarioFile = ri.Scenario, ri.ScenarioFile
		e.Target = &EntryTarget{Kind: ri.Target.Kind, URL: scenarios.RedactURL(ri.Target.URL)}
	}
	start, end := s.Start, s.End
	e.Created, e.Start, e.End = start, &start, &end
	return e
}

// scenarioFromID is the scenario part of an id NewID made
// (<time>-<scenario>-<seq>), else the id.
func scenarioFromID(id string) string {
	rest := id
	if i := strings.IndexByte(rest, '-'); i == len("20060102T150405Z") {
		if _, err := time.Parse("20060102T150405Z", rest[:i]); err == nil {
			rest = rest[i+1:]
		}
	}
	if i := strings.LastIndexByte(rest, '-'); i > 0 {
		if _, err := strconv.Atoi(rest[i+1:]); err == nil {
			rest = rest[:i]
		}
	}
	if rest == "" {
		return id
	}
	return rest
}

// ensureSummary gives a run the daemon lost mid-way (its index entry
// still said queued or running) a summary.json. A run that left
// latency.hlog.partial keeps what it measured: the summary is the
// killed-run reader's (phases, ops, latency; errors, drops and lag
// unknown), with the entry's scenario and target, and the entry takes
// its status (killed, or write_failed after a full disk). A run that
// left no log gets a minimal interrupted summary.
func (h *History) ensureSummary(e *Entry) error {
	dir := h.RunDir(e.ID)
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		return nil
	}
	if s, ending, err := rundir.ReadPartial(dir); err == nil {
		if e.Scenario != "" {
			s.Scenario = e.Scenario
		}
		if e.ScenarioFile != "" {
			s.ScenarioFile = e.ScenarioFile
		}
		if e.Target != nil {
			s.Target.Kind, s.Target.URL = e.Target.Kind, e.Target.URL
		}
		e.State = s.Status
		e.Error = "the daemon stopped while this run was in progress; its figures were read back from " + rundir.PartialLog + " (" + ending + ")"
		if s.Status == StateWriteFailed {
			e.Error = s.StatusReason
		}
		if e.Start != nil && e.Start.Before(s.Start) {
			s.Start = *e.Start
		}
		e.End = &s.End
		return report.WriteRunDir(dir, s)
	}
	s := &rundir.Summary{SchemaVersion: rundir.SchemaVersion, Scenario: e.Scenario, ScenarioFile: e.ScenarioFile,
		Status: rundir.StatusInterrupted, Shard: rundir.Shard{Count: 1}, Start: e.Created, End: *e.End}
	if e.Start != nil {
		s.Start = *e.Start
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return report.WriteRunDir(dir, s)
}

// RunDir is the absolute directory of run id.
func (h *History) RunDir(id string) string { return filepath.Join(h.dir, "runs", id) }

// NewID returns a fresh, sortable run id.
func (h *History) NewID(now time.Time, scenario string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		h.seq++
		id := fmt.Sprintf("%s-%s-%d", now.UTC().Format("20060102T150405Z"), safeName(scenario), h.seq)
		if _, dup := h.m[id]; !dup {
			return id
		}
	}
}

func safeName(s string) string {
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			out = append(out, c)
		default:
			out = append(out, '_')
		}
		if len(out) >= 48 {
			break
		}
	}
	if len(out) == 0 {
		return "run"
	}
	return string(out)
}

// Put adds or replaces an entry and saves the index.
func (h *History) Put(e *Entry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := *e
	h.m[e.ID] = &c
	return h.save()
}

// Update changes entry id under the lock and saves the index.
func (h *History) Update(id string, f func(*Entry)) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.m[id]
	if !ok {
		return fmt.Errorf("no run %s", id)
	}
	f(e)
	return h.save()
}

// Get returns a copy of entry id.
func (h *History) Get(id string) (Entry, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.m[id]
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// List returns copies of every entry, newest first.
func (h *History) List() []Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Entry, 0, len(h.m))
	for _, e := range h.m {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.After(out[j].Created)
		}
		return out[i].ID > out[j].ID
	})
	return out
}

// Baselines returns the summaries of the last n completed runs of
// scenario before the run excluded, newest first.
func (h *History) Baselines(scenario, exclude string, n int) []*rundir.Summary {
	var out []*rundir.Summary
	for _, e := range h.List() {
		if len(out) >= n {
			break
		}
		if e.ID == exclude || e.Scenario != scenario || e.State != StateCompleted {
			continue
		}
		s, err := rundir.ReadSummary(h.RunDir(e.ID))
		if err != nil {
			continue
		}
		out = append(out, s)
	}
	return out
}

// Prune applies retention: finished runs beyond maxRuns (newest kept),
// failed attempts beyond maxFailed (newest kept; they never count
// against maxRuns, so an outage's failures cannot evict completed runs)
// and anything finished older than maxAge are removed from the index
// and disk. It returns the ids removed.
func (h *History) Prune(now time.Time, maxRuns, maxFailed int, maxAge time.Duration) ([]string, error) {
	list := h.List()
	var drop []string
	kept, keptFailed := 0, 0
	for _, e := range list {
		if !e.Finished() {
			continue
		}
		old := maxAge > 0 && now.Sub(e.Created) > maxAge
		if e.State == StateFailed {
			if old || (maxFailed > 0 && keptFailed >= maxFailed) {
				drop = append(drop, e.ID)
				continue
			}
			keptFailed++
			continue
		}
		over := maxRuns > 0 && kept >= maxRuns
		if old || over {
			drop = append(drop, e.ID)
			continue
		}
		kept++
	}
	if len(drop) == 0 {
		return nil, nil
	}
	h.mu.Lock()
	for _, id := range drop {
		delete(h.m, id)
	}
	err := h.save()
	h.mu.Unlock()
	for _, id := range drop {
		if rerr := os.RemoveAll(h.RunDir(id)); rerr != nil && err == nil {
			err = rerr
		}
	}
	return drop, err
}

// save writes index.json; h.mu is held.
func (h *History) save() error {
	f := indexFile{SchemaVersion: 1, Runs: make([]*Entry, 0, len(h.m))}
	for _, e := range h.m {
		f.Runs = append(f.Runs, e)
	}
	sort.Slice(f.Runs, func(i, j int) bool { return f.Runs[i].ID < f.Runs[j].ID })
	js, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeIndex(filepath.Join(h.dir, "index.json"), append(js, '\n'))
}

// writeIndex replaces path atomically: data goes to .index.json.tmp,
// is fsynced and renamed over path, and the directory is fsynced. A
// failure (a full disk) leaves the old index whole and removes the temp
// file; the next change writes the whole index again. The temp name is
// fixed (h.mu serialises writers) so a crash leaves no litter.
func writeIndex(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
