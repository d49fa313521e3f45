package redis

import (
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// noPerm fails the test unless err is the server's ACL refusal.
func noPerm(t *testing.T, what string, err error) {
	t.Helper()
	// A script's command is refused as "The user executing the script
	// can't run this command"; DEBUG is off unless enable-debug-command.
	if err == nil || !strings.Contains(err.Error(), "NOPERM") && !strings.Contains(err.Error(), "can't run this command") && !strings.Contains(err.Error(), "DEBUG command not allowed") {
		t.Errorf("%s: %v, want NOPERM", what, err)
	}
}

// A managed server's workload runs as SafeUser without allow_destructive:
// the server refuses it FLUSHALL, CONFIG SET, FUNCTION LOAD, SCRIPT FLUSH
// and a script's FLUSHALL (whatever the script's source says), while the
// ops soakd runs itself (INFO for stats, MODULE LIST, SCRIPT LOAD, the
// built-in ops, the fast path) still work. With allow_destructive the
// workload is the default user's.
func TestManagedSafeUser(t *testing.T) {
	testutil.NeedTool(t, "redis-server")
	ctx := ctxT(t)
	var warned []string
	tg := openTarget(t, scenarios.Target{Kind: "redis", Managed: &scenarios.Managed{Persistence: "none"}},
		targets.Options{Warn: func(m string) { warned = append(warned, m) }})
	if tg.WorkloadUser() != SafeUser || len(warned) != 0 || !strings.Contains(tg.Describe(), "workload as ACL user soakd-safe") {
		t.Fatalf("workload user %q, warnings %q, describe %q", tg.WorkloadUser(), warned, tg.Describe())
	}
	admin := tg.Client()
	if err := admin.Set(ctx, "canary", "alive", 0).Err(); err != nil {
		t.Fatal(err)
	}
	w := tg.c
	if who, err := w.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != SafeUser {
		t.Errorf("the workload client is %q (%v)", who, err)
	}
	noPerm(t, "FLUSHALL", w.FlushAll(ctx).Err())
	noPerm(t, "FLUSHDB", w.FlushDB(ctx).Err())
	noPerm(t, "CONFIG SET", w.ConfigSet(ctx, "maxmemory", "1").Err())
	noPerm(t, "SCRIPT FLUSH", w.ScriptFlush(ctx).Err())
	noPerm(t, "FUNCTION LOAD", w.Do(ctx, "FUNCTION", "LOAD", "#!lua name=wipe\nredis.register_function('wipe', function() return redis.call('FLUSHALL') end)").Err())
	noPerm(t, "EVAL of ARGV[1]", w.Eval(ctx, "return redis.call(ARGV[1])", nil, "FLUSHALL").Err())
	noPerm(t, "EVAL of a built name", w.Eval(ctx, "return redis.call('FLUSH' .. 'ALL')", nil).Err())
	noPerm(t, "SHUTDOWN", w.Do(ctx, "SHUTDOWN", "NOSAVE").Err())
	noPerm(t, "DEBUG", w.Do(ctx, "DEBUG", "SLEEP", "0").Err())
	// AUTH default cannot undo it (an ACL cannot deny AUTH, and the
	// default user has no password): the default user is denied the
	// same commands, from the workload's connection or a new one.
	wc := w.(*goredis.Client).Conn()
	if err := wc.Do(ctx, "AUTH", "default", "anything").Err(); err != nil {
		t.Errorf("AUTH default: %v", err)
	}
	if who, _ := wc.Do(ctx, "ACL", "WHOAMI").Text(); who != "default" {
		t.Errorf("after AUTH default the connection is %q", who)
	}
	noPerm(t, "FLUSHALL after AUTH default", wc.FlushAll(ctx).Err())
	noPerm(t, "EVAL of ARGV[1] after AUTH default", wc.Eval(ctx, "return redis.call(ARGV[1])", nil, "FLUSHALL").Err())
	noPerm(t, "ACL SETUSER after AUTH default", wc.Do(ctx, "ACL", "SETUSER", "default", "+@all").Err())
	wc.Close()
	def := rawClient(t, tg.Managed())
	noPerm(t, "FLUSHALL as default", def.FlushAll(ctx).Err())
	noPerm(t, "CONFIG SET as default", def.ConfigSet(ctx, "maxmemory", "1").Err())
	if err := def.Get(ctx, "canary").Err(); err != nil {
		t.Errorf("GET as default: %v", err)
	}
	if v, err := admin.Get(ctx, "canary").Result(); err != nil || v != "alive" {
		t.Fatalf("canary: %q %v", v, err)
	}
	// soakd's admin client (AdminUser) keeps every command.
	if who, err := admin.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != AdminUser {
		t.Errorf("the admin client is %q (%v)", who, err)
	}
	if err := admin.ConfigSet(ctx, "slowlog-log-slower-than", "10000").Err(); err != nil {
		t.Errorf("CONFIG SET as %s: %v", AdminUser, err)
	}
	// What soakd itself sends still works as SafeUser.
	if err := w.ConfigGet(ctx, "maxmemory").Err(); err != nil {
		t.Errorf("CONFIG GET: %v", err)
	}
	if err := w.ScriptLoad(ctx, "return redis.call('GET', KEYS[1])").Err(); err != nil {
		t.Errorf("SCRIPT LOAD: %v", err)
	}
	if st, err := tg.ServerStats(ctx); err != nil || st["used_memory_bytes"] == 0 && len(st) == 0 {
		t.Errorf("stats: %v %v", st, err)
	}
	if _, err := tg.Modules(ctx); err != nil {
		t.Errorf("MODULE LIST: %v", err)
	}
	for _, r := range []*targets.Request{insertReq(1), {Op: scenarios.OpRead, KeyNum: 1, Key: key(1)}, {Op: scenarios.OpPingInline}} {
		if err := tg.Do(ctx, r); err != nil {
			t.Errorf("op %v: %v", r.Op, err)
		}
	}

	open := openTarget(t, scenarios.Target{Kind: "redis", Managed: &scenarios.Managed{Persistence: "none"}}, targets.Options{AllowDestructive: true})
	if open.WorkloadUser() != "" {
		t.Fatalf("allow_destructive: workload user %q", open.WorkloadUser())
	}
	if err := open.c.FlushAll(ctx).Err(); err != nil {
		t.Errorf("allow_destructive: FLUSHALL: %v", err)
	}
}

// On a server soakd does not manage, a user that may run FLUSHALL is
// warned about with the ACL SETUSER line to use, refused under
// require_safe_user, and a user made with that line passes.
func TestUnmanagedUserCheck(t *testing.T) {
	s := startRedis(t)
	ctx := ctxT(t)
	var warned []string
	warn := targets.Options{Warn: func(m string) { warned = append(warned, m) }}
	openTarget(t, scenarios.Target{URL: s.URL()}, warn)
	if len(warned) != 1 || !strings.Contains(warned[0], `the redis user "default" may run FLUSHALL`) || !strings.Contains(warned[0], "ACL SETUSER soakd-safe on >PASSWORD ~* &* +@all -flushall") {
		t.Fatalf("warnings %q", warned)
	}
	warned = nil
	openTarget(t, scenarios.Target{URL: s.URL()}, targets.Options{AllowDestructive: true, Warn: warn.Warn})
	if len(warned) != 0 {
		t.Fatalf("allow_destructive warned %q", warned)
	}
	strict := scenarios.Target{Kind: "redis", URL: s.URL(), Client: scenarios.ClientOf(scenarios.ClientCommon{}, ClientConfig{RequireSafeUser: true})}
	if _, err := targets.Open(ctx, strict, targets.Options{}); err == nil || !strings.Contains(err.Error(), "require_safe_user") {
		t.Fatalf("require_safe_user: %v", err)
	}
	// The line the warning gives makes a user that passes.
	line := strings.Replace(SafeUserLine("bench"), ">PASSWORD", ">s3cret", 1)
	args := []any{}
	for _, f := range strings.Fields(line) {
		args = append(args, f)
	}
	if err := rawClient(t, s).Do(ctx, args...).Err(); err != nil {
		t.Fatal(err)
	}
	strict.URL = "redis://bench:s3cret@" + s.Addr()
	tg, err := targets.Open(ctx, strict, warn)
	if err != nil {
		t.Fatalf("a safe user refused: %v", err)
	}
	defer tg.Close()
	// The default user (no password, every command) is a way around it:
	// AUTH default cannot be denied. The warning gives the line that
	// closes it; with that line run, a safe user opens without one.
	if len(warned) != 1 || !strings.Contains(warned[0], `the redis user "bench" cannot run FLUSHALL, but the default user can`) || !strings.Contains(warned[0], DefaultLockLine()) {
		t.Fatalf("a safe user beside an open default user: warnings %q", warned)
	}
	warned = nil
	lock := []any{}
	for _, f := range strings.Fields(DefaultLockLine()) {
		lock = append(lock, f)
	}
	if err := rawClient(t, s).Do(ctx, lock...).Err(); err != nil {
		t.Fatal(err)
	}
	tg2, err := targets.Open(ctx, strict, warn)
	if err != nil {
		t.Fatal(err)
	}
	defer tg2.Close()
	if len(warned) != 0 {
		t.Fatalf("a safe user warned %q", warned)
	}
	noPerm(t, "FLUSHALL as default after the lock line", rawClient(t, s).FlushAll(ctx).Err())
	noPerm(t, "FLUSHALL as the safe user", tg.(*Target).c.FlushAll(ctx).Err())
}
