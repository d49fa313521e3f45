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
	"sync"
	"time"

	"github.com/soakd/soakd/engine"
)

// Run states in the index.
const (
	StateQueued      = "queued"
	StateRunning     = "running"
	StateCompleted   = engine.StatusCompleted
	StateInterrupted = engine.StatusInterrupted
	StateFailed      = "failed" // could not start (bad scenario, target down, ...)
)

// Entry is one run in index.json.
type Entry struct {
	ID           string     `json:"id"`
	Scenario     string     `json:"scenario"`
	ScenarioFile string     `json:"scenario_file"`
	Source       string     `json:"source"` // api | schedule:<name> | soak:<name>
	State        string     `json:"state"`
	Error        string     `json:"error,omitempty"`
	Created      time.Time  `json:"created"`
	Start        *time.Time `json:"start,omitempty"`
	End          *time.Time `json:"end,omitempty"`
	SLOPassed    *bool      `json:"slo_passed,omitempty"`
	Dir          string     `json:"dir"` // relative to data_dir
	Regression   *Verdict   `json:"regression,omitempty"`
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
// rewrites index.json atomically (temp file, fsync, rename).
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
// still shows queued or running belonged to a daemon that died: they are
// marked interrupted, and a run directory without summary.json gets a
// minimal interrupted one so every finished run has a summary.
func OpenHistory(dir string, now time.Time) (*History, []string, error) {
	h := &History{dir: dir, m: map[string]*Entry{}}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return nil, nil, fmt.Errorf("data_dir: %w", err)
	}
	var notes []string
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return h, nil, h.save()
	case err != nil:
		return nil, nil, fmt.Errorf("index: %w", err)
	}
	var f indexFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, fmt.Errorf("index %s: %w", filepath.Join(dir, "index.json"), err)
	}
	for _, e := range f.Runs {
		if e == nil || !ValidID(e.ID) {
			continue
		}
		if !e.Finished() {
			e.State = StateInterrupted
			e.Error = "the daemon stopped while this run was in progress"
			t := now.UTC()
			e.End = &t
			if err := h.ensureSummary(e); err != nil {
				notes = append(notes, fmt.Sprintf("run %s: %v", e.ID, err))
			}
			notes = append(notes, fmt.Sprintf("run %s was in progress when the daemon stopped: marked interrupted", e.ID))
		}
		h.m[e.ID] = e
	}
	return h, notes, h.save()
}

// ensureSummary writes a minimal interrupted summary when the engine
// never wrote one.
func (h *History) ensureSummary(e *Entry) error {
	dir := h.RunDir(e.ID)
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		return nil
	}
	s := &engine.Summary{SchemaVersion: engine.SchemaVersion, Scenario: e.Scenario, ScenarioFile: e.ScenarioFile,
		Status: engine.StatusInterrupted, Shard: engine.Shard{Count: 1}, Start: e.Created, End: *e.End}
	if e.Start != nil {
		s.Start = *e.Start
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return engine.WriteRunDir(dir, s)
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
func (h *History) Baselines(scenario, exclude string, n int) []*engine.Summary {
	var out []*engine.Summary
	for _, e := range h.List() {
		if len(out) >= n {
			break
		}
		if e.ID == exclude || e.Scenario != scenario || e.State != StateCompleted {
			continue
		}
		s, err := engine.ReadSummary(h.RunDir(e.ID))
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
	return engine.WriteFileAtomic(filepath.Join(h.dir, "index.json"), append(js, '\n'))
}
