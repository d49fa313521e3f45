package engine

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// Hostile inputs against a real redis-server holding a canary key: each
// way issue 40 found to destroy data without allow_destructive (a
// subcommand as a placeholder, a script that takes its command from
// ARGV, FUNCTION LOAD, an EVAL of FLUSHALL or an FCALL in a capture) is
// refused before anything is sent; and were the static checks ever
// fooled, the server refuses the workload's user the command. A capture
// of scripted INCRs (EVAL plus MONITOR's "[0 lua]" line each) runs each
// INCR once. The canary survives every one.
func TestHostileRedisInputs(t *testing.T) {
	needRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const target = "target: {kind: redis, managed: {persistence: none}}\n"
	// The target a run without allow_destructive opens.
	tg, err := targets.Open(ctx, scenario(t, target+"phases:\n  - {name: s, kind: steady, rate: 1, duration: 1s, mix: {get: 100}}\n").Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rt := tg.(*redistarget.Target)
	if rt.WorkloadUser() != redistarget.SafeUser {
		t.Fatalf("workload user %q", rt.WorkloadUser())
	}
	admin := rt.Client()
	if err := admin.Set(ctx, "canary", "alive", 0).Err(); err != nil {
		t.Fatal(err)
	}
	wipe := "#!lua name=hostile\nredis.register_function('wipe', function() return redis.call('FLUSHALL') end)"
	if err := admin.Do(ctx, "FUNCTION", "LOAD", "REPLACE", wipe).Err(); err != nil {
		t.Fatal(err)
	}
	canary := func(step string) {
		t.Helper()
		if v, err := admin.Get(ctx, "canary").Result(); err != nil || v != "alive" {
			t.Fatalf("%s: the canary is gone (%q, %v)", step, v, err)
		}
		if v, err := admin.ConfigGet(ctx, "maxmemory").Result(); err != nil || v["maxmemory"] != "0" {
			t.Fatalf("%s: maxmemory is %v (%v)", step, v, err)
		}
		if v, err := admin.Do(ctx, "FUNCTION", "LIST", "LIBRARYNAME", "hostile").Slice(); err != nil || len(v) != 1 {
			t.Fatalf("%s: the function library is gone (%v, %v)", step, v, err)
		}
	}

	// Custom ops: refused by validate, at the op's line.
	ops := []struct {
		name, ops string
		line      int
		want      string
	}{
		{"choice subcommand", `  a: {redis: [CONFIG, "{choice:SET}", maxmemory, "1"]}`, 3, "CONFIG SET destroys data"},
		{"choice subcommand in multi", "  a:\n    redis:\n      multi:\n        - [CONFIG, \"{choice:SET}\", maxmemory, \"1\"]", 6, "CONFIG SET destroys data"},
		{"script command from ARGV", `  a: {redis: {script: "return redis.call(ARGV[1])", args: [FLUSHALL]}}`, 3, "is not a string literal"},
		{"function load", `  a: {redis: [FUNCTION, LOAD, "#!lua name=x\nredis.register_function('f', function() return redis.call('FLUSHALL') end)"]}`, 3, "FUNCTION LOAD destroys data"},
		{"function flush by choice", `  a: {redis: [FUNCTION, "{choice:FLUSH}"]}`, 3, "FUNCTION FLUSH destroys data"},
	}
	for _, c := range ops {
		src := target + "ops:\n" + c.ops + "\nphases:\n  - {name: s, kind: steady, rate: 50, duration: 300ms, concurrency: 1, mix: {a: 100}}\n"
		_, err := scenarios.Parse("hostile.yaml", []byte(src))
		if at := fmt.Sprintf("hostile.yaml:%d:", c.line); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), at) {
			t.Errorf("%s: %v, want %s ... %q", c.name, err, at, c.want)
		}
		canary(c.name)

		// Were validate fooled, the server refuses the command: the same
		// scenario, its check skipped, runs as the safe user, every op an
		// error.
		sc := scenario(t, "allow_destructive: true\n"+src)
		sc.AllowDestructive = false
		sum, err := Run(ctx, Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir(), Interval: 200 * time.Millisecond})
		if err != nil {
			t.Fatalf("%s, unchecked: %v", c.name, err)
		}
		if r := sum.Phases[0].Result; r.Completed == 0 || r.Errors != r.Completed {
			t.Errorf("%s, unchecked: %d ops, %d errors (%v); want every op refused", c.name, r.Completed, r.Errors, r.Ops["a"].Errors)
		}
		canary(c.name + ", unchecked")
	}

	// Replays: a script or function line is refused, naming its line (after MONITOR's OK),
	// before anything is sent.
	const flushEval = `"EVAL" "return redis.call('FLUSHALL')" "0"`
	captures := []struct {
		name  string
		lines []string
		want  string
	}{
		{"EVAL of FLUSHALL", []string{`1.0 [0 127.0.0.1:5000] "SET" "k" "v"`, `1.1 [0 127.0.0.1:5000] ` + flushEval, `1.1 [0 lua] "FLUSHALL"`}, "line 3: EVAL runs a Lua script"},
		{"FUNCTION LOAD and FCALL", []string{`1.0 [0 127.0.0.1:5000] "FUNCTION" "LOAD" "` + strings.ReplaceAll(wipe, "\n", `\n`) + `"`, `1.1 [0 127.0.0.1:5000] "FCALL" "wipe" "0"`}, "line 2: FUNCTION loads"},
		{"FCALL", []string{`1.1 [0 127.0.0.1:5000] "FCALL" "wipe" "0"`}, "line 2: FCALL runs a function"},
		{"EVALSHA", []string{`1.1 [0 127.0.0.1:5000] "EVALSHA" "` + sha(t, "return redis.call('FLUSHALL')") + `" "0"`}, "line 2: EVALSHA runs a Lua script"},
	}
	for _, c := range captures {
		hostile := []byte(strings.Join(append([]string{"OK"}, c.lines...), "\n") + "\n")
		src := writeCapture(t, "capture.txt", append([]string{"OK"}, c.lines...))
		yaml := target + "phases:\n  - {name: r, kind: replay, source: " + src + ", concurrency: 1}\n"
		// validate reads the capture through and refuses it at its line.
		if _, err := scenarios.Parse("test.yaml", []byte(yaml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, validate: %v, want %q", c.name, err, c.want)
		}
		// Swapped in after validation: the run's own index refuses it too.
		if err := os.WriteFile(src, []byte("OK\n1.0 [0 127.0.0.1:5000] \"SET\" \"k\" \"v\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sc := scenario(t, yaml)
		if err := os.WriteFile(src, hostile, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Run(ctx, Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		canary(c.name)
	}

	// The server refuses what a replay's check would let through were it
	// fooled: the scripts and the function run as the safe user.
	src := writeCapture(t, "capture.txt", []string{"OK",
		`1.0 [0 127.0.0.1:5000] ` + flushEval, `1.0 [0 lua] "FLUSHALL"`,
		`1.1 [0 127.0.0.1:5000] "FCALL" "wipe" "0"`,
		`1.2 [0 127.0.0.1:5000] "EVAL" "return redis.call(ARGV[1])" "0" "FLUSHALL"`,
	})
	sc := scenario(t, "allow_destructive: true\n"+target+"phases:\n  - {name: r, kind: replay, source: "+src+", concurrency: 1}\n")
	sum, err := Run(ctx, Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.Phases[0].Result; r.Completed != 3 || r.Errors != 3 {
		t.Errorf("replayed as the safe user: %d ops, %d errors; want 3 refused", r.Completed, r.Errors)
	}
	canary("replayed scripts as the safe user")

	// Ten scripted INCRs: each EVAL and its "[0 lua]" line; the SHA1 on
	// scripts: lets the EVAL run without allow_destructive, the lua lines
	// are counted, not sent, and the counter ends at 10, not 20.
	incr := "return redis.call('INCR', KEYS[1])"
	lines := []string{"OK"}
	for i := 0; i < 10; i++ {
		lines = append(lines, fmt.Sprintf(`1.%d [0 127.0.0.1:5000] "EVAL" "%s" "1" "counter"`, i, incr), fmt.Sprintf(`1.%d [0 lua] "incr" "counter"`, i))
	}
	src = writeCapture(t, "incr.txt", lines)
	sc = scenario(t, target+"phases:\n  - {name: r, kind: replay, source: "+src+", concurrency: 1, scripts: ["+sha(t, incr)+"]}\n")
	sum, err = Run(ctx, Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := sum.Phases[0]
	if p.Result.Completed != 10 || p.Result.Errors != 0 || p.Replay.ScriptLines != 10 {
		t.Errorf("scripted INCRs: %d ops, %d errors, %d script lines; want 10, 0, 10", p.Result.Completed, p.Result.Errors, p.Replay.ScriptLines)
	}
	if n, err := admin.Get(ctx, "counter").Int(); err != nil || n != 10 {
		t.Errorf("counter %d (%v), want 10: each scripted INCR once", n, err)
	}
	canary("scripted INCRs")
}

// sha is the SHA1 of a Lua script, as SCRIPT LOAD prints it.
func sha(t *testing.T, src string) string {
	t.Helper()
	h := sha1.Sum([]byte(src))
	return hex.EncodeToString(h[:])
}
