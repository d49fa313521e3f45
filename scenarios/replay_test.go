package scenarios

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The form parses with its defaults, the source relative to the
// scenario file.
func TestReplayParses(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "capture.txt"), []byte("OK\n1.0 [0 a:1] \"PING\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "replay.yaml")
	sc, err := Parse(file, []byte("target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nphases:\n  - {name: replay, kind: replay, source: capture.txt, format: monitor, speed: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := &sc.Phases[0]
	if p.Kind != PhaseReplay || p.Replay.Speed != 2 || p.Replay.Order != ReplayOrderFile || p.Replay.Group != ReplayGroupCommand {
		t.Fatalf("%+v", p.Replay)
	}
	if got := sc.ReplaySource(p); got != filepath.Join(dir, "capture.txt") {
		t.Fatalf("source resolves to %s", got)
	}
}

// Every problem of a replay phase is reported, each at its file:line
// and field.
func TestReplayValidation(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	for _, tc := range []struct{ yaml, want string }{
		{"phases:\n  - {kind: replay}\n", "x.yaml:3: phases[0].source: a replay phase needs source"},
		{"phases:\n  - {kind: replay, source: nothere.txt}\n", "phases[0].source: stat"},
		{"phases:\n  - {kind: replay, source: " + empty + "}\n", "is empty"},
		{"phases:\n  - {kind: replay, source: " + empty + ", format: pcap}\n", `phases[0].format: unknown "pcap" (use monitor or ndjson)`},
		{"phases:\n  - {kind: replay, source: " + empty + ", speed: 2, rate: 100}\n", "phases[0].speed: give speed"},
		{"phases:\n  - {kind: replay, source: " + empty + ", speed: -1}\n", "phases[0].speed: must be positive"},
		{"phases:\n  - {kind: replay, source: " + empty + ", loop: true}\n", "phases[0].loop: a looping replay needs a duration"},
		{"phases:\n  - {kind: replay, source: " + empty + ", order: shuffled}\n", "phases[0].order"},
		{"phases:\n  - {kind: replay, source: " + empty + ", group: op}\n", "phases[0].group"},
		{"phases:\n  - {kind: replay, source: " + empty + ", mix: {read: 100}}\n", "phases[0].mix: a replay sends the capture's commands"},
		{"phases:\n  - {kind: steady, rate: 1, duration: 1s, mix: {read: 100}, speed: 2}\n", "phases[0].speed: only a replay phase takes speed"},
	} {
		_, err := Parse(filepath.Join(dir, "x.yaml"), []byte("target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n"+tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.yaml, err, tc.want)
		}
	}
	ops := filepath.Join(dir, "ops.ndjson")
	os.WriteFile(ops, []byte(`{"ts": 1, "op": "find", "args": [{"find": "u"}]}`+"\n"), 0o644)
	esOps := filepath.Join(dir, "es.ndjson")
	os.WriteFile(esOps, []byte(`{"ts": 1, "op": "GET", "args": ["/i/_doc/1"]}`+"\n"), 0o644)
	for _, tc := range []struct{ target, extra, want string }{
		{`{kind: mongo, url: "mongodb://127.0.0.1:1"}`, "", ""},
		// The capture is indexed as the run would: a mongo op log is
		// no elastic capture, refused at its line.
		{`{kind: elastic, url: "http://127.0.0.1:1"}`, "", `ops.ndjson: line 1: elastic op "find": want a method`},
		{`{kind: cql, url: "cql://127.0.0.1:1/ks"}`, ", key_prefix: r_", "phases[0].key_prefix: a cql replay runs its statements as they are"},
		{`{kind: elastic, url: "http://127.0.0.1:1"}`, ", key_prefix: R_", `phases[0].key_prefix: "R_" cannot start an index name`},
		{`{kind: elastic, url: "http://127.0.0.1:1"}`, ", key_prefix: replay-", ""},
	} {
		src := ops
		if strings.Contains(tc.target, "elastic") && tc.extra != "" {
			src = esOps
		}
		_, err := Parse("m.yaml", []byte("target: "+tc.target+"\nphases:\n  - {kind: replay, source: "+src+", format: ndjson"+tc.extra+"}\n"))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s%s: error %v, want %q", tc.target, tc.extra, err, tc.want)
		}
	}
	_, err := ParseWith("m.yaml", []byte("target: {kind: scylla, url: \"cql://127.0.0.1:1/ks\"}\nphases:\n  - {kind: replay, source: "+ops+"}\n"), likeBuiltins)
	if err == nil || !strings.Contains(err.Error(), "phases[0].format: monitor (the default) is redis-cli MONITOR's output, Redis commands; a scylla target replays format: ndjson") {
		t.Errorf("monitor on scylla: %v", err)
	}
}

// slo.latency may name a replay's latency group: validate indexes the
// capture to know them, and refuses a name no group has, or one folded
// under "other".
func TestReplaySLONames(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "1.%02d [0 c] \"CMD%d\" \"k\"\n", i, i)
		fmt.Fprintf(&b, "1.%02d [0 c] \"GET\" \"k\"\n", i)
	}
	os.WriteFile(filepath.Join(dir, "cap.txt"), []byte(b.String()), 0o644)
	base := "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nphases:\n  - {name: r, kind: replay, source: cap.txt}\n"
	for slo, want := range map[string]string{
		"GET":   "",
		"other": "",
		"read":  "",
		"GTE":   `slo.latency.GTE: unknown op "GTE": no built-in or scenario op, nor a latency group of the replay (CMD0,`,
		"CMD39": `slo.latency.CMD39: CMD39 is folded under "other" in replay r`,
	} {
		_, err := Parse(filepath.Join(dir, "s.yaml"), []byte(base+"slo: {latency: {"+slo+": {p99: 2ms}}}\n"))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("slo %s: error %v, want %q", slo, err, want)
		}
	}
	// Without a replay phase the old message stands.
	_, err := Parse("s.yaml", []byte("target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nphases:\n  - {kind: steady, rate: 1, duration: 1s, mix: {read: 100}}\nslo: {latency: {GET: {p99: 2ms}}}\n"))
	if err == nil || !strings.Contains(err.Error(), `slo.latency.GET: unknown op "GET"`) || strings.Contains(err.Error(), "replay") {
		t.Errorf("no replay: %v", err)
	}
}

func TestReplayRefusal(t *testing.T) {
	sc := &Scenario{Target: Target{Kind: KindRedis}}
	if s := sc.ReplayRefusal([]string{"flushall"}); !strings.Contains(s, "FLUSHALL destroys data") {
		t.Errorf("flushall: %q", s)
	}
	if s := sc.ReplayRefusal([]string{"SET", "k", "v"}); s != "" {
		t.Errorf("SET refused: %q", s)
	}
	sc.AllowDestructive = true
	if s := sc.ReplayRefusal([]string{"FLUSHALL"}); s != "" {
		t.Errorf("allow_destructive: %q", s)
	}
	sc = &Scenario{Target: Target{Kind: KindEmbedded}}
	if s := sc.ReplayRefusal([]string{"FLUSHALL"}); s != "" {
		t.Errorf("embedded: %q", s)
	}
	for kind, cases := range map[TargetKind]map[string][]string{
		KindMongo:   {"dropDatabase": {"dropDatabase"}, "": {"find"}},
		KindElastic: {"DELETE /products": {"DELETE", "/products"}, "_delete_by_query": {"POST", "/p/_delete_by_query"}, "": {"DELETE", "/p/_doc/1"}},
		"scylla":    {"TRUNCATE": {"truncate ks.t"}, "": {"SELECT * FROM t"}},
	} {
		sc := &Scenario{Target: Target{Kind: kind}, stores: likeBuiltins}
		for want, args := range cases {
			got := sc.ReplayRefusal(args)
			if want == "" && got != "" || want != "" && !strings.Contains(got, want+" destroys data") {
				t.Errorf("%s %q: %q, want %q", kind, args, got, want)
			}
		}
	}
}

// A redis replay refuses the lines whose effect it cannot see (a script,
// a function, FUNCTION LOAD, SCRIPT FLUSH) unless allow_destructive, or
// the phase's scripts: lists the script's SHA1.
func TestReplayRefusesScripts(t *testing.T) {
	sc := &Scenario{Target: Target{Kind: KindRedis}}
	const src = "return redis.call('FLUSHALL')"
	const sum = "fdb4a6e4dfd7cdd4b3aebda2b1b4b2e5ef0cb3d4" // not src's
	for _, args := range [][]string{
		{"EVAL", src, "0"}, {"eval_ro", src, "0"}, {"EVALSHA", sum, "0"}, {"evalsha_ro", sum, "0"},
		{"FCALL", "wipe", "0"}, {"FCALL_RO", "wipe", "0"}, {"FUNCTION", "LOAD", "#!lua name=x"},
		{"FUNCTION", "FLUSH"}, {"SCRIPT", "FLUSH"}, {"SCRIPT", "LOAD", src},
	} {
		if s := sc.ReplayRefusal(args); !strings.Contains(s, strings.ToUpper(args[0])) || !strings.Contains(s, "allow_destructive: true") {
			t.Errorf("%q: %q", args, s)
		}
	}
	h := sha1.Sum([]byte(src))
	sha := hex.EncodeToString(h[:])
	if s := sc.ReplayRefusal([]string{"EVAL", src, "0"}); !strings.Contains(s, "SHA1 "+sha) {
		t.Errorf("the message does not give the SHA1: %q", s)
	}
	r := &ReplaySpec{Scripts: []string{strings.ToUpper(sha)}}
	for _, args := range [][]string{{"EVAL", src, "0"}, {"EVALSHA", sha, "0"}, {"EVALSHA_RO", strings.ToUpper(sha), "0"}, {"script", "load", src}} {
		if s := sc.replayRefusal(r, args); s != "" {
			t.Errorf("listed %q refused: %q", args, s)
		}
	}
	if s := sc.replayRefusal(r, []string{"EVAL", src + " ", "0"}); s == "" {
		t.Error("an unlisted script passed")
	}
	if s := sc.replayRefusal(r, []string{"SCRIPT", "FLUSH"}); s == "" {
		t.Error("SCRIPT FLUSH passed with a scripts: list")
	}
	if s := sc.replayRefusal(r, []string{"FCALL", sha, "0"}); s == "" {
		t.Error("FCALL passed for a listed SHA1")
	}
	sc.AllowDestructive = true
	if s := sc.ReplayRefusal([]string{"EVAL", src, "0"}); s != "" {
		t.Errorf("allow_destructive: %q", s)
	}
	ps := problemsOf(t, "name: t\ntarget: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nphases:\n  - name: r\n    kind: replay\n    source: s.yaml\n    scripts: [abc]\n")
	if !hasProblem(ps, 7, "phases[0].scripts[0]", "is not a SHA1") {
		t.Errorf("got %v", ps)
	}
}
