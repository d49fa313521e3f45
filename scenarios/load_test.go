package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func problemsOf(t *testing.T, src string) Problems {
	t.Helper()
	_, err := Parse("s.yaml", []byte(src))
	if err == nil {
		t.Fatalf("expected problems, got none for:\n%s", src)
	}
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error is %T, not Problems: %v", err, err)
	}
	return ps
}

func hasProblem(ps Problems, line int, field, sub string) bool {
	for _, p := range ps {
		if p.Line == line && (field == "" || p.Field == field) && strings.Contains(p.Msg, sub) {
			return true
		}
	}
	return false
}

func TestParseValid(t *testing.T) {
	src := `name: t
keyspace:
  records: 1000
  distribution: hotspot
phases:
  - kind: load
  - kind: steady
    rate: 500
    duration: 10s
    mix: {read: 95, update: 5}
slo:
  latency:
    read: {p99: 5ms, p99.9: 20ms}
  min_achieved_ratio: 0.99
`
	sc, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Target.Kind != "embedded" || sc.Record.Fields != 10 || sc.Record.FieldBytes != 100 {
		t.Errorf("defaults not applied: %+v %+v", sc.Target, sc.Record)
	}
	if sc.Phases[0].Load.Records != 1000 || sc.Phases[0].Mix["insert"] != 100 {
		t.Errorf("load defaults: %+v", sc.Phases[0])
	}
	if sc.Phases[1].Duration.D().Seconds() != 10 || sc.Phases[1].MaxLag != DefaultMaxLag {
		t.Errorf("steady: %+v", sc.Phases[1])
	}
	if sc.Keyspace.HotFraction != 0.2 || sc.Keyspace.HotOps != 0.8 {
		t.Errorf("hotspot defaults: %+v", sc.Keyspace)
	}
	if got := sc.SLO.Latency["read"]["p99.9"].D().Milliseconds(); got != 20 {
		t.Errorf("slo p99.9 = %dms", got)
	}
}

func TestParseReportsEveryProblemWithLine(t *testing.T) {
	src := `name: t
target:
  kind: redis
  urll: redis://x
keyspace:
  records: -3
phases:
  - kind: steady
    rate: -5
    duration: soon
    mix: {read: 50, frobnicate: 40}
`
	ps := problemsOf(t, src)
	// Decoding problems (unknown key, bad duration) come first, all at once.
	if !hasProblem(ps, 4, "", `unknown key "urll"`) {
		t.Errorf("unknown key not reported on line 4: %v", ps)
	}
	if !hasProblem(ps, 10, "", "not a duration") {
		t.Errorf("bad duration not reported on line 10: %v", ps)
	}
	src2 := strings.Replace(strings.Replace(src, "  urll: redis://x\n", "  url: redis://x\n", 1), "soon", "10s", 1)
	ps = problemsOf(t, src2)
	for _, want := range []struct {
		line  int
		field string
		sub   string
	}{
		{6, "keyspace.records", "at least 1"},
		{9, "phases[0].rate", "positive"},
		{11, "phases[0].mix.frobnicate", "unknown op"},
		{11, "phases[0].mix", "add up to 90"},
	} {
		if !hasProblem(ps, want.line, want.field, want.sub) {
			t.Errorf("missing %s:%d %s %q in\n%v", "s.yaml", want.line, want.field, want.sub, ps)
		}
	}
	if !strings.HasPrefix(ps[0].Error(), "s.yaml:") {
		t.Errorf("problem does not start with file:line: %q", ps[0].Error())
	}
}

func TestParseRejectsSecretsInURL(t *testing.T) {
	ps := problemsOf(t, "target: {url: 'redis://u:hunter2@h:6379'}\nphases: [{kind: steady, duration: 1s, mix: {get: 100}}]\n")
	if !hasProblem(ps, 1, "target.url", "password") {
		t.Fatalf("password in URL not refused: %v", ps)
	}
	if strings.Contains(ps.Error(), "hunter2") {
		t.Fatalf("secret leaked into the error: %v", ps)
	}
}

func TestParseSyntaxAndShapeErrors(t *testing.T) {
	for name, src := range map[string]string{
		"syntax":   "phases: [\n",
		"notamap":  "- a\n- b\n",
		"empty":    "",
		"twodocs":  "name: a\n---\nname: b\n",
		"wrongtyp": "phases: 3\n",
	} {
		t.Run(name, func(t *testing.T) {
			ps := problemsOf(t, src)
			if ps[0].File != "s.yaml" || ps[0].Msg == "" {
				t.Fatalf("bad problem: %+v", ps[0])
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"redis://user:secret@h:6379/0", "redis://user:xxxxx@h:6379/0"},
		{"redis://secret@h:6379", "redis://xxxxx@h:6379"},
		{"rediss://:secret@h:6379", "rediss://:xxxxx@h:6379"},
		{"mongodb://h/?password=secret&w=1", "mongodb://h/?password=xxxxx&w=1"},
		{"mongodb://h/?w=1&pass=secret", "mongodb://h/?w=1&pass=xxxxx"},
		{"mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:secret", "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=xxxxx"},
		{"mongodb://u:p%40ss@a,b,c/db?replicaSet=rs&tlsCertificateKeyFilePassword=secret", "mongodb://u:xxxxx@a,b,c/db?replicaSet=rs&tlsCertificateKeyFilePassword=xxxxx"},
		{"http://h:9200/?api_key=secret&x_secret=secret&token=secret", "http://h:9200/?api_key=xxxxx&x_secret=xxxxx&token=xxxxx"},
		{"http://h:9200", "http://h:9200"},
		{"http://h:9200/a@b", "http://h:9200/a@b"},
		{"::bad::user:secret@host", "xxxxx@host"},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRedactText(t *testing.T) {
	raw := "redis://hunter2@h:6379/?password=s3cr3t%21"
	msg := "dial redis://hunter2@h:6379/?password=s3cr3t%21 failed; auth hunter2 s3cr3t!"
	got := RedactText(msg, raw)
	for _, leak := range []string{"hunter2", "s3cr3t"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q leaks %q", got, leak)
		}
	}
}

// TestShippedScenariosValidate loads every scenario in the catalog
// (targets' TestShippedScenariosPassTheStores with the real adapters).
func TestShippedScenariosValidate(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	if len(files) == 0 {
		t.Fatal("no shipped scenarios found")
	}
	for _, f := range files {
		if _, err := LoadFileWith(f, likeBuiltins); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("phases: [{kind: ramp, from: 1, to: 5, step: 1, step_duration: 1s, mix: {get: 100}}]"))
	f.Add([]byte("keyspace: {records: -1}\nslo: {latency: {'*': {p0: 1s}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.yaml", data)
		if err == nil && sc == nil {
			t.Fatal("nil scenario without error")
		}
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error is not a non-empty Problems: %v", err)
			}
		}
	})
}

func TestParseCgroupFields(t *testing.T) {
	src := `name: t
target:
  kind: redis
  managed:
    maxmemory: 1gb
    cgroup_swap: 2gb
phases:
  - kind: load
`
	ps := problemsOf(t, src)
	if !hasProblem(ps, 6, "target.managed.cgroup_swap", "needs target.managed.cgroup_memory") {
		t.Errorf("no cgroup_swap problem at line 6: %v", ps)
	}
	src = `name: t
target:
  kind: redis
  managed:
    cgroup_memory: 1mb
phases:
  - kind: load
`
	if ps := problemsOf(t, src); !hasProblem(ps, 5, "target.managed.cgroup_memory", "at least 4mb") {
		t.Errorf("no cgroup_memory problem at line 5: %v", ps)
	}
	sc, err := Parse("s.yaml", []byte(`name: t
target:
  kind: redis
  managed: {maxmemory: 1gb, cgroup_memory: 256mb, cgroup_swap: 2gb}
phases:
  - kind: load
`))
	if err != nil {
		t.Fatal(err)
	}
	if m := sc.Target.Managed; m.CgroupMemory != 256<<20 || m.CgroupSwap != 2<<30 {
		t.Errorf("managed %+v", m)
	}
}

// TestParseReportsUnknownKeysAndBadValuesTogether: unknown keys, mistyped
// values and values Validate refuses come back from one Parse, each with
// its line; a mistyped field does not also draw a problem for the zero it
// decoded to.
func TestParseReportsUnknownKeysAndBadValuesTogether(t *testing.T) {
	src := `name: t
target:
  kind: redis
  urll: redis://x
keyspace:
  records: -3
phases:
  - kind: steady
    rate: -5
    duration: soon
    concurrency: many
    mix: {read: 50, frobnicate: 40}
`
	ps := problemsOf(t, src)
	for _, want := range []struct {
		line  int
		field string
		sub   string
	}{
		{4, "", `unknown key "urll"`},
		{6, "keyspace.records", "at least 1"},
		{9, "phases[0].rate", "positive"},
		{10, "", "not a duration"},
		{11, "", "many"},
		{12, "phases[0].mix.frobnicate", "unknown op"},
	} {
		if !hasProblem(ps, want.line, want.field, want.sub) {
			t.Errorf("missing s.yaml:%d %s %q in\n%v", want.line, want.field, want.sub, ps)
		}
	}
	for _, p := range ps {
		if p.Field == "phases[0].duration" || p.Field == "phases[0].concurrency" {
			t.Errorf("follow-on problem for a mistyped field: %v", p)
		}
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Line < ps[i-1].Line {
			t.Errorf("problems not in line order:\n%v", ps)
		}
	}
}
