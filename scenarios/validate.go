package scenarios

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"regexp"
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
)

// Bounds on what a scenario (and the command-line and API overrides of
// it) may ask for. Past them a run would wedge the pacer, exhaust memory
// or take far longer than asked; each is refused with the field's
// file:line (or the flag's name), never silently clamped.
const (
	// MaxRate is the per-process ceiling on any rate in ops/s: phase
	// rates, ramp steps, capacity start/max, growth rates, --rate and
	// the daemon's live-rate call. A sharded run's total may exceed it
	// (each shard runs rate/N).
	MaxRate = 10_000_000
	// MinRate is the floor of any positive rate: one op every 1,000 s.
	// Below it the schedule's first intervals outlast any run (and at
	// 1e-11 ops/s they overflowed the pacer's clock).
	MinRate = 0.001
	// MaxRampSteps bounds a ramp's steps, listed or from/to/step (the
	// count is computed before anything is expanded).
	MaxRampSteps = 1000
	// MaxRecords bounds keyspace.records, a load phase's records and
	// growth batch and stop_records.
	MaxRecords = 10_000_000_000
	// MaxConcurrency bounds a phase's workers.
	MaxConcurrency = 10_000
	// MaxFileBytes caps the size of a scenario (or daemon config) file.
	MaxFileBytes = 4 << 20
	// MaxMappingKeys caps the keys of any one YAML mapping in a file;
	// no scenario mapping needs more, and yaml.v3 checks a mapping's keys
	// for duplicates pairwise (quadratic time).
	MaxMappingKeys = 256
	// MaxListItems caps any one YAML list in a file (checked on the
	// node tree, before the strict decode): no scenario list needs more
	// than a sweep's MaxSweepPoints or a ramp's MaxRampSteps.
	MaxListItems = 1000
)

// badRate says what is wrong with a rate (ops/s; zero allowed when
// zeroOK) or "" if nothing is.
func badRate(r float64, zeroOK bool) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0) || r < 0 || (r == 0 && !zeroOK):
		if zeroOK {
			return "must be 0 (closed loop) or a positive number of ops/s"
		}
		return "must be a positive number of ops/s"
	case r > 0 && r < MinRate:
		return fmt.Sprintf("%g ops/s is below the floor of %g ops/s (one op every %g s)", r, float64(MinRate), 1/float64(MinRate))
	case r > MaxRate:
		return fmt.Sprintf("%g ops/s is above the per-process ceiling of %d ops/s (split a larger rate across shards: --shard I/N)", r, MaxRate)
	}
	return ""
}

// CheckRate checks a rate given outside a scenario file (--rate, the
// daemon's live-rate call); zero (closed loop) is allowed when zeroOK.
func CheckRate(r float64, zeroOK bool) error {
	if msg := badRate(r, zeroOK); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// ApplyDefaults fills in everything a scenario may leave out.
func (s *Scenario) ApplyDefaults() {
	if s.Name == "" && s.File != "" {
		s.Name = strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
	}
	if s.Target.Kind == "" {
		s.Target.Kind = s.kindOfURL()
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
		s.Keyspace.Distribution = DistUniform
	}
	defer s.applyCustomDefaults()
	if s.Keyspace.Distribution == DistHotspot {
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
		s.applyPhaseDefaults(i)
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

// Validate reports every problem with the (defaulted) scenario at once.
func (s *Scenario) Validate() []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	errs = append(errs, s.validateKind()...)
	if s.Target.URL != "" {
		if u, err := url.Parse(s.Target.URL); err != nil || u.Scheme == "" {
			add("target.url", "not a URL: %s", RedactURL(s.Target.URL))
		} else if u.User != nil {
			if _, has := u.User.Password(); has {
				add("target.url", "the URL holds a password; put it in an environment variable and name it in target.auth.password_env")
			}
		}
	}
	if s.Target.Kind == KindEmbedded && s.Target.URL != "" {
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
	errs = append(errs, s.validateClient()...)
	if s.Record.Fields < 1 || s.Record.Fields > 1000 {
		add("record.fields", "must be between 1 and 1000, got %d", s.Record.Fields)
	}
	if s.Record.FieldBytes < 1 || s.Record.FieldBytes > 16<<20 {
		add("record.field_bytes", "must be between 1 and 16777216, got %d", s.Record.FieldBytes)
	}
	errs = append(errs, s.validateCorpus()...)
	ks := s.Keyspace
	if ks.Records < 1 || ks.Records > MaxRecords {
		add("keyspace.records", "must be at least 1 and at most %d, got %d", int64(MaxRecords), ks.Records)
	}
	switch ks.Distribution {
	case DistUniform, DistZipfian, DistLatest:
	case DistHotspot:
		if ks.HotFraction <= 0 || ks.HotFraction >= 1 {
			add("keyspace.hot_fraction", "must be between 0 and 1 (exclusive), got %g", ks.HotFraction)
		}
		if ks.HotOps <= 0 || ks.HotOps > 1 {
			add("keyspace.hot_ops", "must be between 0 (exclusive) and 1, got %g", ks.HotOps)
		}
	default:
		_, err := ParseDistribution(string(ks.Distribution))
		add("keyspace.distribution", "%s", err)
	}
	if ks.ZipfTheta <= 0 || ks.ZipfTheta >= 1 {
		add("keyspace.zipf_theta", "must be between 0 and 1 (exclusive), got %g", ks.ZipfTheta)
	}
	if ks.ScanLength < 1 {
		add("keyspace.scan_length", "must be at least 1")
	}
	errs = append(errs, s.validateNames()...)
	errs = append(errs, s.validateMemory()...)
	errs = append(errs, s.validatePhases()...)
	for op, lim := range s.SLO.Latency {
		if op != "*" && !s.knownOp(op) {
			if msg := s.replayLatencyKey(op); msg != "" {
				add("slo.latency."+op, "%s", msg)
			}
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
	if w := s.SLO.Window; w != 0 {
		switch {
		case w < Duration(time.Second):
			add("slo.window", "must be at least 1s (the latency log's interval), got %s", w.D())
		case len(s.SLO.Latency) == 0:
			add("slo.window", "judges the latency limits over windows, but slo.latency sets none")
		}
	}
	switch n := s.SLO.StopAfter; {
	case n < 0:
		add("slo.stop_after", "must be a count of windows (1 or more), got %d", n)
	case n > 0 && s.SLO.Window == 0:
		add("slo.stop_after", "counts breached windows: set slo.window too (e.g. window: 5m)")
	}
	errs = append(errs, s.validateRepeat()...)
	errs = append(errs, s.validateCustom()...)
	errs = append(errs, s.validateGrowthInserts()...)
	return errs
}

func (s *Scenario) validateMix(pp string, mix map[string]float64) []FieldError {
	var errs []FieldError
	total := 0.0
	keys := make([]string, 0, len(mix))
	for k := range mix {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, op := range keys {
		w := mix[op]
		if !s.knownOp(op) {
			errs = append(errs, FieldError{pp + ".mix." + op, fmt.Sprintf("unknown op %q (known: %s)", op, s.knownOpsText())})
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

// redacted replaces every secret RedactURL removes.
const redacted = "xxxxx"

// sensitiveParam says whether a URL query parameter may hold a secret:
// pass/password/passwd, secret, token, *key (apikey, api_key, sslkey),
// credential, sig/signature, and Mongo's authMechanismProperties (which
// carries AWS_SESSION_TOKEN:...).
func sensitiveParam(k string) bool {
	lk := strings.ToLower(k)
	if lk == "sig" || lk == "authmechanismproperties" {
		return true
	}
	for _, w := range []string{"pass", "secret", "token", "key", "credential", "signature"} {
		if strings.Contains(lk, w) {
			return true
		}
	}
	return false
}

// RedactURL removes credentials from a URL for logs, metrics and errors:
// the password of user:password@, a userinfo with no password (for
// redis://secret@host the one part is the password), and the values of
// query parameters that may hold secrets (sensitiveParam). The order of
// everything else is kept.
func RedactURL(raw string) string {
	out, _ := redactURL(raw)
	return out
}

// redactURL is RedactURL that also returns the secrets it removed, so
// RedactText can remove them from messages that quote them.
func redactURL(raw string) (string, []string) {
	var secrets []string
	rest, frag, hasFrag := strings.Cut(raw, "#")
	base, query, hasQuery := strings.Cut(rest, "?")
	// userinfo: between "://" (or the start) and the last "@" before the path.
	hostStart := 0
	if i := strings.Index(base, "://"); i >= 0 {
		hostStart = i + 3
	}
	authEnd := len(base)
	if j := strings.IndexByte(base[hostStart:], '/'); j >= 0 {
		authEnd = hostStart + j
	}
	// Only an "@" after the scheme's "://" ends a userinfo: red@s://x
	// has none (it sliced base[8:3] and panicked).
	at := strings.LastIndex(base[hostStart:authEnd], "@")
	if at >= 0 {
		at += hostStart
	}
	switch {
	case at < 0:
	case hostStart == 0:
		// Not a URL with a scheme: drop anything that looks like userinfo.
		secrets = append(secrets, base[:at])
		base = redacted + base[at:]
	default:
		info := base[hostStart:at]
		user, pass, hasPass := strings.Cut(info, ":")
		switch {
		case hasPass:
			secrets = append(secrets, pass, unescape(pass))
			base = base[:hostStart] + user + ":" + redacted + base[at:]
		case info != "":
			secrets = append(secrets, info, unescape(info))
			base = base[:hostStart] + redacted + base[at:]
		}
	}
	out := base
	if hasQuery {
		parts := strings.Split(query, "&")
		for i, kv := range parts {
			k, v, ok := strings.Cut(kv, "=")
			if ok && v != "" && sensitiveParam(unescape(k)) {
				secrets = append(secrets, v, unescape(v))
				parts[i] = k + "=" + redacted
			}
		}
		out += "?" + strings.Join(parts, "&")
	}
	if hasFrag {
		out += "#" + frag
	}
	return out, secrets
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

var urlInTextRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)

// RedactURLsIn redacts every URL-looking part of msg (a log line a
// client library wrote) with RedactURL.
func RedactURLsIn(msg string) string {
	return urlInTextRE.ReplaceAllStringFunc(msg, RedactURL)
}

// RedactText removes rawURL and every secret in it from msg (an error or
// a log line a client library wrote), for messages that may quote the
// URL or parts of it.
func RedactText(msg, rawURL string) string {
	if rawURL == "" {
		return msg
	}
	safe, secrets := redactURL(rawURL)
	msg = strings.ReplaceAll(msg, rawURL, safe)
	for _, s := range secrets {
		if len(s) >= 3 && s != redacted {
			msg = strings.ReplaceAll(msg, s, redacted)
		}
	}
	return msg
}
