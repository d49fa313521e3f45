package scenarios

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Defaults used where a scenario is silent.
const (
	DefaultFields      = 10
	DefaultFieldBytes  = 100
	DefaultRecords     = 100000
	DefaultPrefix      = "user"
	DefaultConcurrency = 32
	DefaultMaxLag      = Duration(time.Second)
	DefaultZipfTheta   = 0.99
	DefaultScanLength  = 100
	MaxRampSteps       = 1000
)

// ApplyDefaults fills in everything a scenario may leave out.
func (s *Scenario) ApplyDefaults() {
	if s.Name == "" && s.File != "" {
		s.Name = strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
	}
	if s.Target.Kind == "" {
		s.Target.Kind = KindFromURL(s.Target.URL)
	}
	if s.Record.Fields == 0 {
		s.Record.Fields = DefaultFields
	}
	if s.Record.FieldBytes == 0 {
		s.Record.FieldBytes = DefaultFieldBytes
	}
	if s.Keyspace.Records == 0 {
		s.Keyspace.Records = DefaultRecords
	}
	if s.Keyspace.Prefix == "" {
		s.Keyspace.Prefix = DefaultPrefix
	}
	if s.Keyspace.Distribution == "" {
		s.Keyspace.Distribution = "uniform"
	}
	if s.Keyspace.Distribution == "hotspot" {
		if s.Keyspace.HotFraction == 0 {
			s.Keyspace.HotFraction = 0.2
		}
		if s.Keyspace.HotOps == 0 {
			s.Keyspace.HotOps = 0.8
		}
	}
	if s.Keyspace.ZipfTheta == 0 {
		s.Keyspace.ZipfTheta = DefaultZipfTheta
	}
	if s.Keyspace.ScanLength == 0 {
		s.Keyspace.ScanLength = DefaultScanLength
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		if p.Name == "" {
			p.Name = fmt.Sprintf("%s-%d", p.Kind, i+1)
		}
		if p.Concurrency == 0 {
			p.Concurrency = DefaultConcurrency
		}
		if p.MaxLag == 0 {
			p.MaxLag = DefaultMaxLag
		}
		if p.Kind == PhaseLoad {
			if p.Records == 0 {
				p.Records = s.Keyspace.Records
			}
			if len(p.Mix) == 0 {
				p.Mix = map[string]float64{"insert": 100}
			}
		}
		if p.Kind == PhaseRamp && len(p.Steps) == 0 && p.Step > 0 && p.To >= p.From && p.From > 0 && (p.To-p.From)/p.Step < MaxRampSteps {
			for r := p.From; r <= p.To+1e-9; r += p.Step {
				p.Steps = append(p.Steps, Step{Rate: r, Duration: p.StepDuration})
			}
		}
	}
	if s.SLO.MaxErrorRatio == nil {
		v := 0.01
		s.SLO.MaxErrorRatio = &v
	}
	if s.SLO.MaxDroppedRatio == nil {
		v := 0.0
		s.SLO.MaxDroppedRatio = &v
	}
}

// KindFromURL guesses the target kind from a URL scheme ("" if none).
func KindFromURL(u string) string {
	switch {
	case u == "":
		return "embedded"
	case strings.HasPrefix(u, "redis://"), strings.HasPrefix(u, "rediss://"), strings.HasPrefix(u, "unix://"):
		return "redis"
	case strings.HasPrefix(u, "mongodb://"), strings.HasPrefix(u, "mongodb+srv://"):
		return "mongo"
	case strings.HasPrefix(u, "http://"), strings.HasPrefix(u, "https://"):
		return "elastic"
	}
	return ""
}

// Validate reports every problem with the (defaulted) scenario at once.
func (s *Scenario) Validate() []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	switch s.Target.Kind {
	case "embedded", "redis", "mongo", "elastic":
	default:
		add("target.kind", "unknown target kind %q (use embedded, redis, mongo or elastic)", s.Target.Kind)
	}
	if s.Target.URL != "" {
		if u, err := url.Parse(s.Target.URL); err != nil || u.Scheme == "" {
			add("target.url", "not a URL: %s", RedactURL(s.Target.URL))
		} else if u.User != nil {
			if _, has := u.User.Password(); has {
				add("target.url", "the URL holds a password; put it in an environment variable and name it in target.auth.password_env")
			}
		}
		if k := KindFromURL(s.Target.URL); k != "" && s.Target.Kind != "embedded" && k != s.Target.Kind {
			add("target.url", "URL scheme is for %s but target.kind is %s", k, s.Target.Kind)
		}
	}
	if s.Target.Kind == "embedded" && s.Target.URL != "" {
		add("target.url", "the embedded target takes no URL")
	}
	if s.Target.Embedded.StallFor > 0 && s.Target.Embedded.StallEvery <= s.Target.Embedded.StallFor {
		add("target.embedded.stall_every", "must be longer than stall_for")
	}
	if m := s.Target.Managed; m != nil {
		for i, p := range append([]string{m.Persistence}, m.Persistences...) {
			if p == "" {
				continue
			}
			if err := ValidPersistence(p); err != nil {
				path := "target.managed.persistence"
				if i > 0 {
					path = fmt.Sprintf("target.managed.persistences[%d]", i-1)
				}
				add(path, "%v", err)
			}
		}
		if m.MaxMemory < 0 {
			add("target.managed.maxmemory", "must not be negative")
		}
		if m.CgroupSwap > 0 && m.CgroupMemory == 0 {
			add("target.managed.cgroup_swap", "needs target.managed.cgroup_memory (the swap allowance is on top of a cgroup memory cap)")
		}
		if m.CgroupMemory > 0 && m.CgroupMemory < 4<<20 {
			add("target.managed.cgroup_memory", "must be at least 4mb (redis-server needs a few MB to start), got %d bytes", m.CgroupMemory)
		}
	}
	if c := s.Target.Client; c.PoolSize < 0 {
		add("target.client.pool_size", "must not be negative")
	}
	switch s.Target.Client.Refresh {
	case "", "false", "true", "wait_for":
	default:
		add("target.client.refresh", "must be false, true or wait_for")
	}
	if s.Record.Fields < 1 || s.Record.Fields > 1000 {
		add("record.fields", "must be between 1 and 1000, got %d", s.Record.Fields)
	}
	if s.Record.FieldBytes < 1 || s.Record.FieldBytes > 16<<20 {
		add("record.field_bytes", "must be between 1 and 16777216, got %d", s.Record.FieldBytes)
	}
	ks := s.Keyspace
	if ks.Records < 1 {
		add("keyspace.records", "must be at least 1, got %d", ks.Records)
	}
	switch ks.Distribution {
	case "uniform", "zipfian", "latest":
	case "hotspot":
		if ks.HotFraction <= 0 || ks.HotFraction >= 1 {
			add("keyspace.hot_fraction", "must be between 0 and 1 (exclusive), got %g", ks.HotFraction)
		}
		if ks.HotOps <= 0 || ks.HotOps > 1 {
			add("keyspace.hot_ops", "must be between 0 (exclusive) and 1, got %g", ks.HotOps)
		}
	default:
		add("keyspace.distribution", "unknown distribution %q (use uniform, zipfian, hotspot or latest)", ks.Distribution)
	}
	if ks.ZipfTheta <= 0 || ks.ZipfTheta >= 1 {
		add("keyspace.zipf_theta", "must be between 0 and 1 (exclusive), got %g", ks.ZipfTheta)
	}
	if ks.ScanLength < 1 {
		add("keyspace.scan_length", "must be at least 1")
	}
	if len(s.Phases) == 0 {
		add("phases", "a scenario needs at least one phase")
	}
	names := map[string]int{}
	for i, p := range s.Phases {
		pp := fmt.Sprintf("phases[%d]", i)
		if j, dup := names[p.Name]; dup {
			add(pp+".name", "phase name %q is also used by phases[%d]", p.Name, j)
		}
		names[p.Name] = i
		if math.IsNaN(p.Rate) || math.IsInf(p.Rate, 0) || p.Rate < 0 {
			add(pp+".rate", "must be 0 (closed loop) or a positive number of ops/s")
		}
		if p.Concurrency < 1 || p.Concurrency > 100000 {
			add(pp+".concurrency", "must be between 1 and 100000")
		}
		if p.MaxLag < 0 {
			add(pp+".max_lag", "must not be negative")
		}
		if p.Warmup < 0 || (p.Duration > 0 && p.Warmup >= p.Duration) {
			add(pp+".warmup", "must be shorter than the phase duration")
		}
		if p.Requests < 0 {
			add(pp+".requests", "must not be negative")
		} else if p.Requests > 0 && p.Kind != PhaseSteady {
			add(pp+".requests", "only a steady phase takes a request count (this is a %s phase)", p.Kind)
		}
		errs = append(errs, validateMix(pp, p.Mix)...)
		switch p.Kind {
		case PhaseLoad:
			if p.Records < 1 {
				add(pp+".records", "a load phase inserts at least 1 record")
			}
			if p.Records > ks.Records {
				add(pp+".records", "loads %d records but keyspace.records is %d", p.Records, ks.Records)
			}
			for op := range p.Mix {
				if op != "insert" && op != "set" && op != "hset" {
					add(pp+".mix."+op, "a load phase only inserts (insert, set or hset)")
				}
			}
		case PhaseSteady:
			if p.Duration <= 0 && p.Requests <= 0 {
				add(pp+".duration", "a steady phase needs a duration such as 30s, or requests: N")
			}
			if p.Warmup > 0 && p.Duration <= 0 {
				add(pp+".warmup", "a warmup needs a phase duration; a phase bounded by requests alone has none")
			}
			if len(p.Mix) == 0 {
				add(pp+".mix", "a steady phase needs a mix, e.g. {read: 50, update: 50}")
			}
		case PhaseRamp:
			if len(p.Steps) == 0 && p.Step > 0 && (p.To-p.From)/p.Step >= MaxRampSteps {
				add(pp+".step", "from/to/step make more than %d steps", MaxRampSteps)
			} else if len(p.Steps) == 0 {
				add(pp+".steps", "a ramp needs steps (list of {rate, duration}) or from/to/step/step_duration")
			}
			for j, st := range p.Steps {
				if st.Rate <= 0 {
					add(fmt.Sprintf("%s.steps[%d].rate", pp, j), "must be positive")
				}
				if st.Duration <= 0 {
					add(fmt.Sprintf("%s.steps[%d].duration", pp, j), "must be positive")
				}
			}
			if len(p.Mix) == 0 {
				add(pp+".mix", "a ramp needs a mix")
			}
		case PhaseCapacity:
			if len(p.Mix) == 0 {
				add(pp+".mix", "a capacity search needs a mix")
			}
			if c := p.Capacity; c != nil {
				if c.Start < 0 || (c.Max > 0 && c.Max < c.Start) {
					add(pp+".capacity.max", "must be at least capacity.start")
				}
				if c.Factor != 0 && c.Factor <= 1 {
					add(pp+".capacity.factor", "must be greater than 1")
				}
			}
		case PhaseGrowth:
			if len(p.Mix) == 0 {
				add(pp+".mix", "a growth phase needs a mix for its measuring stages")
			}
			if g := p.Growth; g == nil {
				add(pp+".growth", "a growth phase needs growth: {batch, measure_rate, measure_for, ...}")
			} else {
				if g.Batch < 1 {
					add(pp+".growth.batch", "must be at least 1")
				}
				if g.MeasureFor <= 0 {
					add(pp+".growth.measure_for", "must be a positive duration")
				}
				if g.MeasureRate < 0 {
					add(pp+".growth.measure_rate", "must not be negative")
				}
			}
		case "":
			add(pp+".kind", "every phase needs a kind (load, steady, ramp, capacity or growth)")
		default:
			add(pp+".kind", "unknown phase kind %q (use load, steady, ramp, capacity or growth)", p.Kind)
		}
	}
	for op, lim := range s.SLO.Latency {
		if op != "*" && !KnownOpName(op) {
			add("slo.latency."+op, "unknown op %q", op)
		}
		for pct, d := range lim {
			if _, err := ParsePercentile(pct); err != nil {
				add("slo.latency."+op+"."+pct, "%v", err)
			}
			if d <= 0 {
				add("slo.latency."+op+"."+pct, "limit must be a positive duration")
			}
		}
	}
	if r := s.SLO.MinAchievedRatio; r < 0 || r > 1 {
		add("slo.min_achieved_ratio", "must be between 0 and 1")
	}
	if r := s.SLO.MaxErrorRatio; r != nil && (*r < 0 || *r > 1) {
		add("slo.max_error_ratio", "must be between 0 and 1")
	}
	if r := s.SLO.MaxDroppedRatio; r != nil && (*r < 0 || *r > 1) {
		add("slo.max_dropped_ratio", "must be between 0 and 1")
	}
	return errs
}

// KnownOpName reports whether name is an op soakd knows.
func KnownOpName(name string) bool {
	_, ok := ParseOp(name)
	return ok
}

func validateMix(pp string, mix map[string]float64) []FieldError {
	var errs []FieldError
	total := 0.0
	keys := make([]string, 0, len(mix))
	for k := range mix {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, op := range keys {
		w := mix[op]
		if !KnownOpName(op) {
			errs = append(errs, FieldError{pp + ".mix." + op, fmt.Sprintf("unknown op %q (known: %s)", op, strings.Join(OpNames(), ", "))})
		}
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			errs = append(errs, FieldError{pp + ".mix." + op, "a percentage must be a non-negative number"})
		}
		total += w
	}
	if len(mix) > 0 && (total < 99.99 || total > 100.01) {
		errs = append(errs, FieldError{pp + ".mix", fmt.Sprintf("percentages add up to %g, not 100", total)})
	}
	return errs
}

// ValidPersistence checks a persistence variant name.
func ValidPersistence(p string) error {
	switch {
	case p == "none", p == "aof:everysec", p == "aof:always", p == "aof:no":
		return nil
	case strings.HasPrefix(p, "rdb:"):
		var n int
		if _, err := fmt.Sscanf(p, "rdb:%d", &n); err == nil && n > 0 && fmt.Sprintf("rdb:%d", n) == p {
			return nil
		}
	}
	return fmt.Errorf("unknown persistence %q (use none, rdb:<seconds>, aof:everysec, aof:always)", p)
}

// RedactURL removes credentials from a URL for logs, metrics and errors.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		// Not parseable: drop anything that looks like userinfo.
		if at := strings.LastIndex(raw, "@"); at >= 0 {
			if i := strings.Index(raw, "://"); i >= 0 && i < at {
				return raw[:i+3] + "xxxxx@" + raw[at+1:]
			}
			return "xxxxx@" + raw[at+1:]
		}
		return raw
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	changed := false
	for k := range q {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "password") || strings.Contains(lk, "secret") || strings.Contains(lk, "token") || lk == "apikey" || lk == "api_key" {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}
