// Package daemon is `soakd serve`: scheduled runs (cron), continuous
// soaks, an HTTP API to start, stop and steer runs, a run history in the
// data directory with retention, and latency regression verdicts.
package daemon

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/robfig/cron/v3"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/regfile"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// Defaults.
const (
	DefaultListen    = "127.0.0.1:9470"
	DefaultThreshold = verdict.DefaultRegressThreshold
	DefaultK         = verdict.DefaultRegressK
	DefaultHistory   = 10
	// DefaultMinHistory: the history noise model needs this many
	// comparable runs (fewer when regression.history is smaller).
	DefaultMinHistory = verdict.DefaultMinHistory
	DefaultLevel      = verdict.DefaultHistoryLevel
	// DefaultMaxQueued bounds the API runs waiting as "queued"; past it
	// an API start is refused (HTTP 429). Configured schedules and soaks
	// never count against it: each holds at most one run going and one
	// waiting, so their places are always there.
	DefaultMaxQueued = 32
	// MaxMaxQueued is the largest max_queued: each queued run holds its
	// parsed scenario and a metrics exporter in memory.
	MaxMaxQueued = 1000
	// DefaultMaxFailed is how many failed attempts (could not start or
	// failed mid-run) the history keeps; they never count against
	// max_runs, so an outage cannot evict completed runs.
	DefaultMaxFailed = 20
)

// Overlap policies for a schedule that fires while its last run is busy.
const (
	OverlapSkip  = "skip"
	OverlapQueue = "queue"
)

// Config is soakd.yaml.
type Config struct {
	Listen string `yaml:"listen"`
	// AllowedHosts are the host names (besides localhost and IP
	// literals) the daemon answers in a request's Host header: a
	// loopback daemon refuses every other name, so a web page that
	// rebinds its own name to 127.0.0.1 cannot read it (hostcheck.go).
	AllowedHosts  []string `yaml:"allowed_hosts"`
	TokenFile     string   `yaml:"token_file"`
	TokenEnv      string   `yaml:"token_env"`
	DataDir       string   `yaml:"data_dir"`
	MaxConcurrent int      `yaml:"max_concurrent"`
	MaxQueued     int      `yaml:"max_queued"`
	// ScenarioDirs are the only directories (and their subdirectories)
	// the daemon reads scenario files from; default: the config file's
	// directory. Relative entries are relative to the config file.
	ScenarioDirs []string       `yaml:"scenario_dirs"`
	Retention    Retention      `yaml:"retention"`
	Regression   RegressionConf `yaml:"regression"`
	Schedules    []Schedule     `yaml:"schedules"`
	Soaks        []Soak         `yaml:"soaks"`

	// File is the path the config was read from; relative scenario paths
	// are resolved against its directory.
	File string `yaml:"-"`
}

// Retention bounds the run history; 0 means unbounded. Failed attempts
// have their own budget (MaxFailed, default DefaultMaxFailed) and do not
// count against MaxRuns.
type Retention struct {
	MaxRuns   int                `yaml:"max_runs"`
	MaxFailed int                `yaml:"max_failed"`
	MaxAge    scenarios.Duration `yaml:"max_age"`
}

// RegressionConf tunes the verdict after each run: the run against the
// prediction interval of its scenario's comparable history
// (verdict.Compare).
type RegressionConf struct {
	History int `yaml:"history"` // last N runs of the scenario (default 10)
	// Threshold and K judged against a fixed relative change and K x
	// MAD before the history noise model; Threshold still applies when
	// min_history is 1 and only one comparable run exists.
	Threshold float64 `yaml:"threshold"` // relative change (default 0.20)
	K         float64 `yaml:"k"`         // kept for old configs; unused
	// MinHistory: the fewest comparable earlier runs a verdict needs
	// (default 5, or history when that is smaller: the spread of fewer
	// runs is too uncertain to vouch for much).
	MinHistory int `yaml:"min_history"`
	// Level of the prediction interval a new run must leave to be a
	// regression (default 0.99).
	Level float64 `yaml:"level"`
	// AAControls runs a hidden A/A control after each scheduled or soak
	// run and keeps the measured false-alarm rate and MDE (aacontrol.go).
	AAControls bool `yaml:"aa_controls"`
}

// Schedule runs a scenario on a cron expression.
type Schedule struct {
	Name     string `yaml:"name"`
	Cron     string `yaml:"cron"`
	Scenario string `yaml:"scenario"`
	Overlap  string `yaml:"overlap"`
	Target   string `yaml:"target"`
}

// Soak runs a scenario again and again until the daemon stops or a
// reload removes it. Soaks do not count against max_concurrent.
type Soak struct {
	Name     string             `yaml:"name"`
	Scenario string             `yaml:"scenario"`
	Target   string             `yaml:"target"`
	Pause    scenarios.Duration `yaml:"pause"` // between iterations (default 0)
	// Tick sends every open-loop phase's ops in ticks of this length
	// (scenarios/tick.go; 0: each op at its own instant).
	Tick scenarios.Duration `yaml:"tick"`
	// Resume: a run of this soak that a killed daemon left (no
	// summary.json, a checkpoint) is resumed when the daemon starts
	// again, before the soak starts anything new (resume.go). false
	// marks it interrupted and starts over, as before resume existed.
	// Default true.
	Resume *bool `yaml:"resume"`
}

// Resumes says whether the soak resumes its killed runs (Resume, true
// when not set).
func (s Soak) Resumes() bool { return s.Resume == nil || *s.Resume }

// overrides is what the soak changes in its scenario for each run; nil
// when nothing.
func (s Soak) overrides() *runpath.Overrides {
	if s.Target == "" && s.Tick == 0 {
		return nil
	}
	o := &runpath.Overrides{Target: s.Target}
	if s.Tick != 0 {
		o.Tick = s.Tick.String()
	}
	return o
}

// Default returns a config with every default filled in; getenv supplies
// $STATE_DIRECTORY (systemd's StateDirectory=).
func Default(getenv func(string) string) Config {
	c := Config{Listen: DefaultListen, MaxConcurrent: 1, MaxQueued: DefaultMaxQueued}
	c.Retention.MaxFailed = DefaultMaxFailed
	c.DataDir = defaultDataDir(getenv)
	c.Regression = RegressionConf{History: DefaultHistory, Threshold: DefaultThreshold, K: DefaultK, Level: DefaultLevel}
	return c
}

func defaultDataDir(getenv func(string) string) string {
	if getenv != nil {
		// systemd may pass several colon-separated directories.
		if sd := getenv("STATE_DIRECTORY"); sd != "" {
			return strings.Split(sd, ":")[0]
		}
	}
	return "./soakd-data"
}

// ApplyDefaults fills what the file left empty (after decoding over Default).
func (c *Config) ApplyDefaults() {
	if c.Regression.MinHistory == 0 {
		c.Regression.MinHistory = max(1, min(DefaultMinHistory, c.Regression.History))
	}
	for i := range c.Schedules {
		if c.Schedules[i].Overlap == "" {
			c.Schedules[i].Overlap = OverlapSkip
		}
	}
}

// ScenarioPath resolves a scenario path from the config against the
// config file's directory.
func (c *Config) ScenarioPath(p string) string {
	if p == "" || filepath.IsAbs(p) || c.File == "" {
		return p
	}
	return filepath.Join(filepath.Dir(c.File), p)
}

// Dirs returns the scenario directories, absolute and with symlinks
// resolved where they exist.
func (c *Config) Dirs() []string {
	dirs := c.ScenarioDirs
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		d = c.ScenarioPath(d)
		if d == "." && c.File != "" {
			d = filepath.Dir(c.File)
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		out = append(out, d)
	}
	return out
}

// OpenScenario loads the scenario at path (already resolved with
// ScenarioPath) for the daemon: only a regular file of at most
// scenarios.MaxFileBytes inside one of the scenario directories, never a
// FIFO or a device. Errors name the path but never quote the content of
// a file that did not parse as a scenario (it may be any file the
// daemon can read).
func (c *Config) OpenScenario(path string) (*scenarios.Scenario, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %v", path, err)
	}
	dirs := c.Dirs()
	outside := fmt.Errorf("scenario %s: outside the scenario directories (%s); scenario_dirs in the daemon config lists them", path, strings.Join(dirs, ", "))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if !within(abs, dirs) {
			return nil, outside
		}
		return nil, fmt.Errorf("scenario %s: no such file", path)
	}
	if !within(real, dirs) {
		return nil, outside
	}
	// O_NONBLOCK: opening a FIFO does not wait for a writer; the Stat
	// of the open file then refuses it (and devices) before any read.
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: cannot open it", path)
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, fmt.Errorf("scenario %s: cannot stat it", path)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("scenario %s: not a regular file", path)
	case st.Size() > scenarios.MaxFileBytes:
		return nil, fmt.Errorf("scenario %s: larger than %d bytes, the cap for scenario files", path, scenarios.MaxFileBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, scenarios.MaxFileBytes+1))
	if err != nil || len(data) > scenarios.MaxFileBytes {
		return nil, fmt.Errorf("scenario %s: cannot read it (or it grew past %d bytes)", path, scenarios.MaxFileBytes)
	}
	sc, err := targets.ParseScenario(path, data)
	if err != nil {
		return nil, opaque(path, err)
	}
	return sc, nil
}

// opaque keeps a scenario's field problems (its schema's own messages)
// but replaces YAML syntax, type and unknown-key problems, which quote
// the file, by their line numbers.
func opaque(path string, err error) error {
	generic := fmt.Errorf("scenario %s: not a valid scenario file (check it with soakd validate)", path)
	var ps scenarios.Problems
	if !errors.As(err, &ps) {
		return generic
	}
	var lines []string
	for _, p := range ps {
		switch {
		case p.Field != "":
		case p.Line == 0:
			return generic
		default:
			lines = append(lines, strconv.Itoa(p.Line))
		}
	}
	if len(lines) == 0 {
		return ps // field problems only: the file parsed as a scenario
	}
	if len(lines) > 10 {
		lines = append(lines[:10], "...")
	}
	return fmt.Errorf("scenario %s: not a valid scenario file (problems at line %s; check it with soakd validate)", path, strings.Join(lines, ", "))
}

// within says whether path is one of dirs or inside one.
func within(path string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// Validate reports every problem with the (defaulted) config at once,
// each on the dotted path of the field (as scenarios' Validate does).
func (c *Config) Validate() []scenarios.FieldError {
	var errs []scenarios.FieldError
	add := func(path, format string, a ...any) {
		errs = append(errs, scenarios.FieldError{Path: path, Msg: fmt.Sprintf(format, a...)})
	}
	if _, port, err := net.SplitHostPort(c.Listen); err != nil || port == "" {
		add("listen", "%q is not host:port (e.g. %s)", c.Listen, DefaultListen)
	}
	switch {
	case c.TokenFile == "" && c.TokenEnv == "":
		add("token_file", "set token_file or token_env: the API needs a bearer token for state-changing calls")
	case c.TokenFile != "" && c.TokenEnv != "":
		add("token_env", "set token_file or token_env, not both")
	}
	if c.DataDir == "" {
		add("data_dir", "must not be empty")
	}
	if c.MaxConcurrent < 1 {
		add("max_concurrent", "must be at least 1, got %d", c.MaxConcurrent)
	}
	if c.MaxQueued < 1 || c.MaxQueued > MaxMaxQueued {
		add("max_queued", "must be from 1 to %d (each queued run holds its scenario and metrics in memory), got %d", MaxMaxQueued, c.MaxQueued)
	}
	if c.Retention.MaxFailed < 0 {
		add("retention.max_failed", "must be >= 0 (0 = keep all), got %d", c.Retention.MaxFailed)
	}
	if c.Retention.MaxRuns < 0 {
		add("retention.max_runs", "must be >= 0 (0 = keep all), got %d", c.Retention.MaxRuns)
	}
	if c.Retention.MaxAge < 0 {
		add("retention.max_age", "must be >= 0 (0 = keep all)")
	}
	if c.Regression.History < 1 {
		add("regression.history", "must be at least 1, got %d", c.Regression.History)
	}
	if c.Regression.MinHistory < 1 || c.Regression.MinHistory > max(c.Regression.History, 1) {
		add("regression.min_history", "must be from 1 to regression.history (%d), got %d", c.Regression.History, c.Regression.MinHistory)
	}
	if !(c.Regression.Threshold > 0) {
		add("regression.threshold", "must be > 0 (a fraction: 0.2 = 20%%), got %v", c.Regression.Threshold)
	}
	if c.Regression.K < 0 {
		add("regression.k", "must be >= 0, got %v", c.Regression.K)
	}
	if !(c.Regression.Level > 0 && c.Regression.Level < 1) {
		add("regression.level", "must be between 0 and 1 (0.99 = 99%%), got %v", c.Regression.Level)
	}
	names := map[string]string{}
	name := func(path, n string) {
		if n == "" {
			add(path+".name", "is required")
			return
		}
		if prev, dup := names[n]; dup {
			add(path+".name", "%q is already used by %s", n, prev)
			return
		}
		names[n] = path
	}
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	for i, s := range c.Schedules {
		p := fmt.Sprintf("schedules[%d]", i)
		name(p, s.Name)
		if s.Cron == "" {
			add(p+".cron", "is required (5 fields: minute hour day-of-month month day-of-week, or @daily, @every 1h ...)")
		} else if _, err := parser.Parse(s.Cron); err != nil {
			add(p+".cron", "%q: %v", s.Cron, err)
		}
		if s.Overlap != OverlapSkip && s.Overlap != OverlapQueue {
			add(p+".overlap", "%q: must be skip or queue", s.Overlap)
		}
		errs = append(errs, c.checkScenario(p, s.Scenario, s.Target)...)
	}
	for i, s := range c.Soaks {
		p := fmt.Sprintf("soaks[%d]", i)
		name(p, s.Name)
		if s.Pause < 0 {
			add(p+".pause", "must be >= 0")
		}
		if err := scenarios.CheckTick(s.Tick); err != nil {
			add(p+".tick", "%v", err)
		}
		errs = append(errs, c.checkScenario(p, s.Scenario, s.Target)...)
	}
	return errs
}

func (c *Config) checkScenario(p, file, target string) []scenarios.FieldError {
	var errs []scenarios.FieldError
	if file == "" {
		return []scenarios.FieldError{{Path: p + ".scenario", Msg: "is required (path to a scenario file)"}}
	}
	if _, err := c.OpenScenario(c.ScenarioPath(file)); err != nil {
		var ps scenarios.Problems
		if errors.As(err, &ps) {
			for _, sp := range ps {
				errs = append(errs, scenarios.FieldError{Path: p + ".scenario", Msg: sp.Error()})
			}
		} else {
			errs = append(errs, scenarios.FieldError{Path: p + ".scenario", Msg: err.Error()})
		}
	}
	if target == "" {
		return errs
	}
	// The same check every run of it gets (runpath.Apply): a URL with a
	// password, a scheme the scenario's target cannot take, is refused
	// here rather than at every firing.
	sc, err := c.OpenScenario(c.ScenarioPath(file))
	if err != nil {
		sc = &scenarios.Scenario{Target: scenarios.Target{Kind: scenarios.KindEmbedded}}
	}
	fes, err := runpath.Apply(sc, runpath.Overrides{Target: target})
	if err != nil {
		var oe *runpath.OverrideError
		msg := err.Error()
		if errors.As(err, &oe) {
			msg = strings.TrimPrefix(oe.Msg, " ")
		}
		return append(errs, scenarios.FieldError{Path: p + ".target", Msg: msg})
	}
	for _, fe := range fes {
		if strings.HasPrefix(fe.Path, "target.") {
			errs = append(errs, scenarios.FieldError{Path: p + ".target", Msg: fe.Msg})
		}
	}
	return errs
}

// LoadConfig reads, decodes strictly, defaults and validates soakd.yaml.
// Every problem is returned at once as scenarios.Problems, each with
// file:line.
func LoadConfig(path string, getenv func(string) string) (*Config, error) {
	data, err := scenarios.ReadFileCapped(path)
	if err != nil {
		return nil, scenarios.Problems{{File: path, Msg: err.Error()}}
	}
	return ParseConfig(path, data, getenv)
}

// ParseConfig is LoadConfig on bytes.
func ParseConfig(file string, data []byte, getenv func(string) string) (*Config, error) {
	c := Default(getenv)
	doc, probs, decoded := scenarios.DecodeStrict(file, data, &c, "daemon config")
	if !decoded {
		return nil, probs
	}
	// Unknown keys and mistyped values are reported with the values
	// Validate refuses, in one pass.
	c.File = file
	c.ApplyDefaults()
	probs = append(probs, scenarios.FieldProblems(file, doc, probs, c.Validate())...)
	if len(probs) > 0 {
		scenarios.SortProblems(probs)
		return nil, probs
	}
	return &c, nil
}

// Token reads the API bearer token the config names. The error never
// contains the token.
func (c *Config) Token(getenv func(string) string) ([]byte, error) {
	var tok string
	switch {
	case c.TokenFile != "":
		b, err := regfile.ReadFileLimit(c.TokenFile, 64<<10) // a FIFO is refused, not waited on; a token is short
		if err != nil {
			return nil, fmt.Errorf("token_file: %w", err)
		}
		tok = strings.TrimSpace(string(b))
		if tok == "" {
			return nil, fmt.Errorf("token_file %s is empty", c.TokenFile)
		}
	case c.TokenEnv != "":
		if getenv != nil {
			tok = strings.TrimSpace(getenv(c.TokenEnv))
		}
		if tok == "" {
			return nil, fmt.Errorf("token_env: environment variable %s is not set or empty", c.TokenEnv)
		}
	default:
		return nil, errors.New("no token_file or token_env")
	}
	return []byte(tok), nil
}
