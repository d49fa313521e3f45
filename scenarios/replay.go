package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ReplaySpec holds a replay phase's own keys (flat in the phase, so the
// YAML reads {kind: replay, source: capture.txt, format: monitor, speed: 2}).
// The engine indexes the capture (capture.Build) when the run starts.
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

// redisUnreplayable are commands a replay counts as skipped instead of
// sending: the blocking and connection-state commands a custom op may
// not send (they would stall the ops pipelined with them or change the
// connection under them).
func redisUnreplayable(cmd string) bool { return slices.Contains(redisBlocking, cmd) }

// ReplaySkips reports whether a replay skips command cmd (upper case).
func ReplaySkips(cmd string) bool { return redisUnreplayable(cmd) }

// ReplayRefusal returns why a replay may not send command args, "" when
// it may: a destructive command against any target but the embedded
// store, unless the scenario says allow_destructive: true.
func (s *Scenario) ReplayRefusal(args []string) string {
	if d := destructiveRedis(args); d != "" && !s.allowsDestructive() {
		return fmt.Sprintf("%s destroys data or stops or reconfigures the server; refused against a %s target unless the scenario says allow_destructive: true", d, s.Target.Kind)
	}
	return ""
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
	if k := CanonicalKind(s.Target.Kind); k != KindRedis && k != KindEmbedded && k != "" {
		add("kind", "replay sends Redis commands; a %s target is not supported yet (use a redis or the embedded target)", s.Target.Kind)
	}
	return errs
}
