package scenarios

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// MaxNameBytes bounds a scenario, phase or sweep point name.
const MaxNameBytes = 128

// badName says what is wrong with a name that becomes part of an hlog
// tag (<phase>.<op>.latency, <phase>/<point>.<op>.latency), a
// Prometheus label value, a run directory or a daemon run id, or "" if
// nothing is. What breaks them:
//   - a comma ends an hlog tag (the log line is Tag=<tag>,<start>,...):
//     latency.hlog was unreadable past it;
//   - spaces and line breaks: hdrhistogram-go's log writer refuses the
//     tag (histograms.hlog was missing after the whole run), and Java's
//     HistogramLogReader splits on them;
//   - '/' separates a phase from its stage in a tag and names a
//     directory in a path; '\' does on other systems;
//   - control and other non-printing characters (tabs, NUL, zero-width
//     marks) break lines, terminals and file names;
//   - "." and ".." are directories, not names.
//
// Everything else printable is allowed ('.', ':', '-', '+', '_', '=',
// letters in any script): Prometheus label values take any UTF-8, and
// tags are split from their op at the last '.'.
func badName(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > MaxNameBytes:
		return fmt.Sprintf("is %d bytes long; a name has at most %d", len(s), MaxNameBytes)
	case s == "." || s == "..":
		return fmt.Sprintf("%q is a directory, not a name", s)
	}
	for i, r := range s {
		var what string
		switch {
		case r == ',':
			what = "a comma (it ends a tag in latency.hlog)"
		case r == '/' || r == '\\':
			what = fmt.Sprintf("a %q (it separates a phase from its stage in histogram tags and directories in paths)", r)
		case unicode.IsSpace(r):
			what = "a space or line break (histogram log tags cannot hold one)"
		case r == unicode.ReplacementChar || !unicode.IsPrint(r):
			what = fmt.Sprintf("the non-printing character %U", r)
		default:
			continue
		}
		return fmt.Sprintf("%s holds %s at byte %d; use letters, digits and . _ - : +", quoteName(s), what, i)
	}
	return ""
}

// quoteName quotes a name for a message, cut short if long.
func quoteName(s string) string {
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:40], "") + "..."
	}
	return fmt.Sprintf("%q", s)
}

// validateNames checks every name that a run turns into an hlog tag, a
// metric label or a file name: the scenario's, each phase's and each
// sweep point's (a label given or made from the point).
func (s *Scenario) validateNames() []FieldError {
	var errs []FieldError
	if msg := badName(s.Name); msg != "" {
		if s.File != "" && s.Name == strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File)) {
			msg += " (the name comes from the file name: set name:)"
		}
		errs = append(errs, FieldError{"name", msg})
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		pp := fmt.Sprintf("phases[%d]", i)
		if msg := badName(p.Name); msg != "" {
			errs = append(errs, FieldError{pp + ".name", msg})
		}
		f := p.plan().labels
		if f == nil {
			continue
		}
		for _, l := range f(p, pp) {
			if msg := badName(l.label); msg != "" {
				errs = append(errs, FieldError{l.path, "label " + msg})
			}
		}
	}
	return errs
}
