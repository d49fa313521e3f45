package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

func TestResolveShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	cases := []struct {
		flag    string
		fromEnv bool
		env     func(string) string
		want    rundir.Shard
		err     string
	}{
		{"", false, env(), rundir.Shard{Index: 0, Count: 1}, ""},
		{"2/4", false, env("SOAKD_SHARD", "1/4"), rundir.Shard{Index: 2, Count: 4}, ""},
		{"", false, env("SOAKD_SHARD", "3/16"), rundir.Shard{Index: 3, Count: 16}, ""},
		{"", true, env("JOB_COMPLETION_INDEX", "5", "SOAKD_SHARDS", "16"), rundir.Shard{Index: 5, Count: 16}, ""},
		{"", true, env("JOB_COMPLETION_INDEX", "5"), rundir.Shard{}, "SOAKD_SHARDS"},
		{"", true, env("JOB_COMPLETION_INDEX", "16", "SOAKD_SHARDS", "16"), rundir.Shard{}, "index must be in 0..15"},
		{"", true, env(), rundir.Shard{}, "--shard-from-env"},
		{"4/4", false, env(), rundir.Shard{}, "index must be in 0..3"},
		{"-1/4", false, env(), rundir.Shard{}, "index must be in 0..3"},
		{"1/0", false, env(), rundir.Shard{}, "count must be at least 1"},
		{"x", false, env(), rundir.Shard{}, "INDEX/COUNT"},
	}
	for _, c := range cases {
		got, err := resolveShard(c.flag, c.fromEnv, c.env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.flag, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %v %v, want %v", c.flag, got, err, c.want)
		}
	}
	if _, err := parseStartAt("tomorrow"); err == nil {
		t.Error("--start-at tomorrow accepted")
	}
	at, err := parseStartAt("2026-01-02T03:04:05Z")
	if err != nil || at.Unix() != 1767323045 {
		t.Errorf("parseStartAt: %v %v", at, err)
	}
}

func TestRunRejectsBadShard(t *testing.T) {
	scen := write(t, t.TempDir(), "shard.yaml", "name: shard-test\nphases: [{name: steady, kind: steady, rate: 100, duration: 1s, mix: {get: 100}}]\n")
	var out, errb syncBuf
	app := &App{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Now: time.Now}
	if code := app.Main(context.Background(), []string{"run", scen, "--shard", "4/4", "--listen", ""}); code != exitRefused {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errb.String(), "shard 4/4: index must be in 0..3") {
		t.Fatalf("stderr %q", errb.String())
	}
}

func TestResolveRunID(t *testing.T) {
	at, _ := parseStartAt("2030-01-02T03:04:05.5+01:00")
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "SOAKD_RUN_ID" {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		flag, env string
		at        time.Time
		want, err string
	}{
		{"", "", time.Time{}, "", ""},
		{"r1", "r2", at, "r1", ""},
		{"", "r2", at, "r2", ""},
		{"", "", at, "start-20300102T020405.500000000Z", ""},
		{"a b", "", at, "", "--run-id"},
		{"", "x\ty", at, "", "SOAKD_RUN_ID"},
		{strings.Repeat("x", 201), "", at, "", "at most 200"},
	}
	for _, c := range cases {
		got, err := resolveRunID(c.flag, c.at, env(c.env))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q/%q: err %v, want %q", c.flag, c.env, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q/%q: %q %v, want %q", c.flag, c.env, got, err, c.want)
		}
	}
	// The same instant written another way gives the same id.
	at2, _ := parseStartAt("2030-01-02T02:04:05.500Z")
	if a, b := mustRunID(t, at), mustRunID(t, at2); a != b {
		t.Errorf("same --start-at instant, ids %q and %q", a, b)
	}
}

func mustRunID(t *testing.T, at time.Time) string {
	t.Helper()
	id, err := resolveRunID("", at, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return id
}
