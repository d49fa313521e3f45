package daemon

import (
	"strings"

	"github.com/soakd/soakd/internal/runpath"
)

// Resuming the soak runs a killed daemon left: at start (New), each
// configured soak's newest run that has no summary.json but a
// checkpoint is kept as it is rather than marked interrupted, and the
// soak's first run is that run resumed (runpath Options.Resume) in its
// own directory under its own id. A run that cannot be resumed (the
// soak is gone or says resume: false, the directory has no checkpoint,
// the scenario changed) is marked as before, the reason in its entry
// and the log.

// resumeSource is the entry source of soak runs: "soak:<name>".
const resumeSource = "soak:"

// pickResumes is New's resumePick: per soak that resumes, its newest
// unfinished run when its directory can be resumed (resumable: nil).
// The picked entries are kept in resumes, by soak name, for the soaks'
// first runs. Schedules' and API runs are never resumed: a schedule
// runs again at its next time, and an API caller asks again.
func pickResumes(cfg *Config, resumable func(dir string) error, resumes map[string]Entry) resumePick {
	return func(unfinished []*Entry, runDir func(string) string) (map[string]bool, map[string]string) {
		soaks := map[string]Soak{}
		for _, s := range cfg.Soaks {
			soaks[s.Name] = s
		}
		why := map[string]string{}
		newest := map[string]*Entry{}
		for _, e := range unfinished {
			name, ok := strings.CutPrefix(e.Source, resumeSource)
			if !ok {
				continue
			}
			s, ok := soaks[name]
			switch {
			case !ok:
				why[e.ID] = "its soak " + name + " is no longer in the config"
				continue
			case !s.Resumes():
				why[e.ID] = "its soak " + name + " says resume: false"
				continue
			}
			if n := newest[name]; n != nil {
				older := e
				if newer(e, n) {
					older, newest[name] = n, e
				}
				why[older.ID] = "a newer run of its soak is resumed instead"
				continue
			}
			newest[name] = e
		}
		resume := map[string]bool{}
		for name, e := range newest {
			if err := resumable(runDir(e.ID)); err != nil {
				why[e.ID] = err.Error()
				continue
			}
			resume[e.ID] = true
			resumes[name] = *e
		}
		return resume, why
	}
}

// newer says whether a was asked for after b.
func newer(a, b *Entry) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	return a.ID > b.ID
}

// runpathResumable is runpath.Resumable as pickResumes takes it.
func runpathResumable(dir string) error {
	_, err := runpath.Resumable(dir)
	return err
}

// takeResume hands soak its run to resume (ok false: none), once.
// d.mu is held.
func (d *Daemon) takeResumeLocked(soak string) (Entry, bool) {
	e, ok := d.resumes[soak]
	delete(d.resumes, soak)
	return e, ok
}

// unresumed ends entry e of a run that could not be resumed as a killed
// daemon's runs ended before resume existed (OpenHistory): a summary
// from what it logged, killed (or interrupted when it logged nothing),
// the reason in its error and the log.
func (d *Daemon) unresumed(e *Entry, err error) {
	now := d.o.Now().UTC()
	e.State, e.End = StateInterrupted, &now
	e.Error = "the daemon stopped while this run was in progress"
	if serr := d.hist.ensureSummary(e); serr != nil {
		d.log.Warn("run not resumed: no summary written", "id", e.ID, "err", serr.Error())
	}
	e.Error += "; not resumed: " + err.Error()
	d.log.Warn("run not resumed", "id", e.ID, "state", e.State, "err", err.Error())
}

// soakResumes says whether a run from source (an entry's Source) is a
// configured soak's that resumes: the daemon stopping suspends it.
func (c *Config) soakResumes(source string) bool {
	name, ok := strings.CutPrefix(source, resumeSource)
	if !ok {
		return false
	}
	for _, s := range c.Soaks {
		if s.Name == name {
			return s.Resumes()
		}
	}
	return false
}
