package scenarios

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/soakd/soakd/regfile"
)

// ReplaySpec holds a replay phase's own keys (flat in the phase, so the
// YAML reads {kind: replay, source: capture.txt, format: monitor, speed: 2}).
// The engine indexes the capture when the run starts, in the dialect of
// the target's store family (ReplayRules).
type ReplaySpec struct {
	// Source is the capture file, relative to the scenario file's
	// directory (or the working directory when there is no file).
	Source string `yaml:"source"`
	// Format is monitor (redis-cli MONITOR output) or ndjson.
	Format string `yaml:"format"`
	// Speed scales the captured timing: 2 replays twice as fast. The
	// default; a phase with rate: sends at that fixed rate instead.
	Speed float64 `yaml:"speed"`
	// Loop starts the capture over until the phase's duration is up.
	Loop bool `yaml:"loop"`
	// Order is file (default) or random (seeded by the scenario's seed).
	Order string `yaml:"order"`
	// Group is how latency is broken down: command (default) or line.
	Group string `yaml:"group"`
	// KeyPrefix is put before every key the commands name.
	KeyPrefix string `yaml:"key_prefix"`
	// Scripts lists the SHA1s of the Lua scripts a redis replay may run
	// without allow_destructive (EVAL of a script with that SHA1,
	// EVALSHA of it, SCRIPT LOAD of it); any other EVAL, EVALSHA, FCALL,
	// FUNCTION or SCRIPT is refused, since what a script runs is not in
	// its line.
	Scripts []string `yaml:"scripts"`
}

// Replay orders and groupings.
const (
	ReplayOrderFile    = "file"
	ReplayOrderRandom  = "random"
	ReplayGroupCommand = "command"
	ReplayGroupLine    = "line"
)

var (
	replayFormats = newEnum("format", "monitor", "ndjson")
	replayOrders  = newEnum("order", ReplayOrderFile, ReplayOrderRandom)
	replayGroups  = newEnum("group", ReplayGroupCommand, ReplayGroupLine)
)

// ReplayMaxGroups is the most latency groups one replay phase takes
// (the rest share ReplayOtherGroup).
const ReplayMaxGroups = 32

// ReplayOtherGroup is the latency group of the commands past
// ReplayMaxGroups (the capture index's "other").
const ReplayOtherGroup = "other"

// ReplayRefusal returns why a replay may not send op args (args[0] the
// op: a Redis command, a mongo command's name, an HTTP method, a CQL
// statement), "" when it may: what the custom ops' safety rule refuses
// on the target's store (its family's ReplayRules), unless the scenario
// says allow_destructive: true (or the target is a scratch store).
func (s *Scenario) ReplayRefusal(args []string) string { return s.ReplayRefusalIn(nil, args) }

// ReplayRefusalIn is ReplayRefusal for a line of replay phase spec r
// (nil: no scripts: list).
func (s *Scenario) ReplayRefusalIn(r *ReplaySpec, args []string) string {
	return s.replayRefusal(r, args)
}

func (s *Scenario) replayRefusal(r *ReplaySpec, args []string) string {
	rules := s.replayRules()
	if s.allowsDestructive() || len(args) == 0 || rules == nil {
		return ""
	}
	return rules.Refusal(s, r, args)
}

// ReplaySource returns the path of phase p's capture.
func (s *Scenario) ReplaySource(p *Phase) string {
	if p.Replay == nil {
		return ""
	}
	src := p.Replay.Source
	if src == "" || filepath.IsAbs(src) || s.File == "" {
		return src
	}
	return filepath.Join(filepath.Dir(s.File), src)
}

func (r *ReplaySpec) applyDefaults() {
	if r.Format == "" {
		r.Format = "monitor"
	}
	if r.Order == "" {
		r.Order = ReplayOrderFile
	}
	if r.Group == "" {
		r.Group = ReplayGroupCommand
	}
}

// validateReplay checks a replay phase: its fields, and that the capture
// exists and is not empty (the engine parses it when the run starts).
func (s *Scenario) validateReplay(pp string, p *Phase) []FieldError {
	var errs []FieldError
	add := func(key, format string, args ...any) {
		errs = append(errs, FieldError{Path: pp + "." + key, Msg: fmt.Sprintf(format, args...)})
	}
	r := p.Replay
	if r.Source == "" {
		add("source", "a replay phase needs source: the capture file")
	} else if st, err := os.Stat(s.ReplaySource(p)); err != nil {
		add("source", "%v", err)
	} else if !st.Mode().IsRegular() {
		add("source", "%s is not a regular file", s.ReplaySource(p))
	} else if st.Size() == 0 {
		add("source", "%s is empty", s.ReplaySource(p))
	} else if _, _, err := s.indexCapture(p); err != nil && !errors.Is(err, errNotChecked) {
		// What the run's index would refuse, refused here with its line.
		add("source", "%s: %v", s.ReplaySource(p), err)
	}
	if !replayFormats.Valid(r.Format) {
		add("format", "unknown %q (use %s)", r.Format, replayFormats.Text())
	}
	if !replayOrders.Valid(r.Order) {
		add("order", "unknown %q (use %s)", r.Order, replayOrders.Text())
	}
	if !replayGroups.Valid(r.Group) {
		add("group", "unknown %q (use %s)", r.Group, replayGroups.Text())
	}
	switch {
	case r.Speed < 0 || r.Speed != r.Speed:
		add("speed", "must be positive (2 = twice the captured speed)")
	case r.Speed > 0 && p.Rate > 0:
		add("speed", "give speed (the captured timing, scaled) or rate (a fixed rate in file order), not both")
	}
	if r.Loop && p.Duration <= 0 {
		add("loop", "a looping replay needs a duration")
	}
	if len(p.Mix) > 0 {
		add("mix", "a replay sends the capture's commands; it takes no mix")
	}
	for i, sha := range r.Scripts {
		if _, err := hex.DecodeString(sha); err != nil || len(sha) != 40 {
			add(fmt.Sprintf("scripts[%d]", i), "%q is not a SHA1 (40 hex digits, as SCRIPT LOAD prints it)", sha)
		}
	}
	if rules := s.replayRules(); rules != nil {
		for _, fe := range rules.CheckReplay(s, r) {
			add(fe.Path, "%s", fe.Msg)
		}
	}
	return errs
}

// replayLatencyKey checks an slo.latency key that names no op, for a
// scenario with replay phases: "" when it is (or may be) a latency group
// of one, else why not. A capture of at most replayCheckBytes is indexed
// to know its groups; a larger or unreadable one is checked when the run
// starts (the engine refuses a limit no group has).
func (s *Scenario) replayLatencyKey(op string) string {
	var names []string
	unsure := false
	for i := range s.Phases {
		p := &s.Phases[i]
		if p.Kind != PhaseReplay {
			continue
		}
		groups, folded, ok := s.replayGroups(p)
		if !ok {
			unsure = true
			continue
		}
		if slices.Contains(groups, op) {
			return ""
		}
		if slices.Contains(folded, op) {
			return fmt.Sprintf("%s is folded under %q in replay %s (it keeps the %d most frequent commands apart); limit %s instead", op, ReplayOtherGroup, p.Name, ReplayMaxGroups-1, ReplayOtherGroup)
		}
		names = append(names, groups...)
	}
	if unsure {
		return ""
	}
	if names == nil {
		return fmt.Sprintf("unknown op %q", op)
	}
	slices.Sort(names)
	return fmt.Sprintf("unknown op %q: no built-in or scenario op, nor a latency group of the replay (%s)", op, strings.Join(slices.Compact(names), ", "))
}

// replayCheckBytes is the largest capture validate indexes.
const replayCheckBytes = 64 << 20

// replayGroups indexes phase p's capture for its latency groups; ok is
// false when it cannot (too large, unreadable, malformed: validateReplay
// or the run says why).
func (s *Scenario) replayGroups(p *Phase) (groups, folded []string, ok bool) {
	groups, folded, err := s.indexCapture(p)
	return groups, folded, err == nil
}

// errNotChecked: a capture larger than replayCheckBytes is indexed when
// the run starts, not at validate.
var errNotChecked = errors.New("not checked at validate")

// indexCapture indexes phase p's capture as the run will (at most
// replayCheckBytes of it; a larger one is errNotChecked), through the
// replay rules of the target's family: its groups, or why the run would
// refuse it. Without the rules (no store known) it is not checked.
func (s *Scenario) indexCapture(p *Phase) (groups, folded []string, err error) {
	rules := s.replayRules()
	if rules == nil {
		if _, known := s.store(); known {
			return nil, nil, fmt.Errorf("no replay dialect for a %s target", s.Target.Kind)
		}
		return nil, nil, errNotChecked
	}
	f, err := regfile.Open(s.ReplaySource(p)) // a FIFO is refused by name, not waited on
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() > replayCheckBytes {
		return nil, nil, errNotChecked
	}
	return rules.Index(s, p, f, st.Size())
}

// HasOp reports whether name is a built-in op or one of the scenario's
// ops: (an slo.latency key that is neither must be a replay group).
func (s *Scenario) HasOp(name string) bool { return s.knownOp(name) }

// OpLogReplayProblems are the problems of replay spec r on a store that
// replays only the NDJSON op log and runs no scripts (a ReplayRules'
// CheckReplay for mongo, elastic, cql): scripts: given, format: monitor.
func (s *Scenario) OpLogReplayProblems(r *ReplaySpec) []FieldError {
	var errs []FieldError
	if len(r.Scripts) > 0 {
		Add(&errs, "scripts", "scripts: lists Lua scripts a redis replay may run; a %s replay runs none", s.Target.Kind)
	}
	if r.Format == "monitor" {
		Add(&errs, "format", "monitor (the default) is redis-cli MONITOR's output, Redis commands; a %s target replays format: ndjson, the op log", s.Target.Kind)
	}
	return errs
}
