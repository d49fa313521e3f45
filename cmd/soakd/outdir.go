package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// runMarkers are the files that make a directory hold a run: what
// `soakd report` reads.
var runMarkers = []string{rundir.SummaryFile, rundir.LatencyLog, rundir.PartialLog}

// runFiles are the files a run writes into its directory (flat): --force
// removes an earlier run's before the new one starts, so a new run that
// is killed is never read as the old one.
var runFiles = []string{rundir.SummaryFile, rundir.SummaryTextFile, rundir.LatencyLog, rundir.PartialLog,
	rundir.HistogramsFile, rundir.CountsFile, rundir.PartialCounts, rundir.RunInfoFile, rundir.WriteNoteFile, rundir.CheckpointFile}

// heldRun names the file that makes dir hold a run ("" when it holds
// none or does not exist; a directory of that name is no run).
func heldRun(dir string) string {
	for _, m := range runMarkers {
		if st, err := os.Lstat(filepath.Join(dir, m)); err == nil && !st.IsDir() {
			return m
		}
	}
	return ""
}

// claimOut makes dir ready for a new run: refused when it holds a run,
// unless force, which removes that run's files first.
func claimOut(dir string, force bool) error {
	m := heldRun(dir)
	if m == "" {
		return nil
	}
	if !force {
		return fmt.Errorf("--out %s already holds a run (%s): choose another directory, or add --force to write over it", dir, m)
	}
	var errs []error
	for _, f := range runFiles {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("--force: clearing %s: %w", dir, err)
	}
	return nil
}

// missingDirs returns dir and those of its parents that do not exist
// yet, deepest first: what the run will create, and what is removed
// again when nothing was measured.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, os.ErrNotExist) {
			return out
		}
		out = append(out, d)
		parent := filepath.Dir(d)
		if parent == d {
			return out
		}
		d = parent
	}
}

// removeEmptyDirs removes dirs (deepest first), each only when empty:
// whatever a failed start left in them stays.
func removeEmptyDirs(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}

// reportCommand is the command that renders the run in dir as HTML.
func reportCommand(dir string) string {
	q := shellQuote(dir)
	return fmt.Sprintf("soakd report --html %s %s", shellQuote(filepath.Join(dir, "report.html")), q)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
