// Package redis is the adapter for Redis and Redis-protocol stores
// (Valkey, KeyDB, SSDB, soakd's embedded store) on go-redis v9.
//
// YCSB ops work on a hash per record, as YCSB's redis binding does:
// read=HGETALL, update=HSET one field, insert=HSET all fields plus ZADD
// to the sorted set IndexKey scored by record number, scan=ZRANGEBYSCORE
// on that set then HGETALL each, rmw=HGETALL then HSET, delete=DEL+ZREM.
// Search uses RediSearch (1.x FT.ADD dialect or 2.x ON HASH / ON JSON).
package redis

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// IndexKey is the sorted set of inserted records used by scan.
const IndexKey = "soakd:index"

// Target drives one Redis deployment (standalone, cluster or sentinel).
type Target struct {
	c        goredis.UniversalClient
	maxBatch int
	desc     string
	mode     Mode // standalone | cluster | sentinel
	local    bool // the server runs on this host (swap from /proc)
	// statsPause replaces ServerStats's pause between its pieces (tests).
	statsPause func()
	managed    *Server
	// admin is the default user's client on a managed server whose
	// workload (c, own) runs as SafeUser; nil otherwise.
	admin  goredis.UniversalClient
	search searchState
	own    *connPool // soakd's own connections: ping_inline, and the fast path (fast.go)
	fast   bool      // hot ops go over own (client.protocol fast, standalone)
	url    string    // redacted
	limits *targets.MemoryLimits
	custom *customOps // the scenario's custom ops (custom.go), set by Prepare
}

// Open connects to the server a scenario's target block names, starting
// it first when target.managed is set.
func Open(ctx context.Context, t scenarios.Target, o targets.Options) (targets.Target, error) {
	var ms *Server
	if m := t.Managed; m != nil {
		p := m.Persistence
		if p == "" && len(m.Persistences) > 0 {
			p = m.Persistences[0]
		}
		var err error
		ms, err = StartServer(ctx, ServerConfig{Command: m.Command, Args: m.Args, Dir: m.DataDir, Persistence: p, MaxMemory: int64(m.MaxMemory), Policy: m.Policy,
			CgroupMemory: int64(m.CgroupMemory), CgroupSwap: int64(m.CgroupSwap)})
		if err != nil {
			return nil, fmt.Errorf("managed server: %w", err)
		}
		if v, _, note := ms.Cgroup(); m.CgroupMemory > 0 && v == "" {
			o.Warnf("redis-server on port %d runs without its cgroup_memory cap of %s: %s", ms.Port, targets.FormatBytes(int64(m.CgroupMemory)), note)
		}
		t.URL = ms.URL()
	}
	tg, err := open(ctx, t, ms != nil, o)
	if err != nil {
		if ms != nil {
			ms.Stop()
		}
		return nil, err
	}
	tg.managed = ms
	tg.limits = tg.memoryLimits(ctx, ms)
	return tg, nil
}

// memoryLimits gathers what caps the server's memory: maxmemory and its
// policy as the server reports them, the managed server's cgroup, and
// the host's swap for a server on this host. Nil in cluster mode (one
// figure per node).
func (t *Target) memoryLimits(ctx context.Context, ms *Server) *targets.MemoryLimits {
	if t.mode == ModeCluster {
		return nil
	}
	m := &targets.MemoryLimits{}
	ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if info, err := t.c.Info(ictx, "memory").Result(); err == nil {
		m.MaxMemoryBytes, _ = strconv.ParseInt(infoField(info, "maxmemory"), 10, 64)
		m.Policy = infoField(info, "maxmemory_policy")
	}
	if ms != nil {
		m.Managed = true
		m.CgroupMemoryBytes, m.CgroupSwapBytes = ms.cfg.CgroupMemory, ms.cfg.CgroupSwap
		var note string
		m.Cgroup, m.CgroupPath, note = ms.Cgroup()
		switch {
		case m.Cgroup != "":
			m.CgroupNote = note
		case ms.cfg.CgroupMemory > 0:
			m.CgroupNote = "cgroup memory cap not available: " + note
		default:
			if sup := ms.cfg.cgroups.Detect(); sup.Version != "" {
				m.CgroupNote = "no cgroup cap (cgroup_memory unset; this host offers cgroup " + sup.Version + ")"
			} else {
				m.CgroupNote = "no cgroup cap (cgroup_memory unset; this host offers none: " + sup.Reason + ")"
			}
		}
	}
	if t.local {
		if sw, ok := HostSwapBytes(); ok {
			n := int64(sw)
			m.HostSwapBytes = &n
		}
	}
	return m
}

// MemoryLimits reports what caps the server's memory (read at Open).
func (t *Target) MemoryLimits() *targets.MemoryLimits { return t.limits }

// open connects to t; a managed server is standalone whatever
// client.mode says.
func open(ctx context.Context, t scenarios.Target, managed bool, o targets.Options) (*Target, error) {
	cc, err := clientSchema.Decode(t)
	if err != nil {
		return nil, err
	}
	if managed {
		cc.Mode = ""
	}
	if t.URL == "" && len(cc.Addrs) == 0 {
		return nil, errors.New("no url (use redis://host:port)")
	}
	var opt *goredis.Options
	if t.URL != "" {
		var err error
		opt, err = goredis.ParseURL(t.URL)
		if err != nil {
			return nil, fmt.Errorf("bad url: %s", scenarios.RedactText(err.Error(), t.URL))
		}
	} else {
		opt = &goredis.Options{Addr: cc.Addrs[0]}
	}
	// A named variable that is empty is an error, as on the other
	// targets: connecting without the password meant to be sent would
	// measure another server, or fail later as NOAUTH.
	if k := t.Auth.UsernameEnv; k != "" {
		if opt.Username = o.Getenv(k); opt.Username == "" {
			return nil, fmt.Errorf("auth.username_env names %s, which is empty", k)
		}
	}
	if k := t.Auth.PasswordEnv; k != "" {
		if opt.Password = o.Getenv(k); opt.Password == "" {
			return nil, fmt.Errorf("auth.password_env names %s, which is empty", k)
		}
	}
	tlsCfg, err := tlsConfig(t.TLS, opt)
	if err != nil {
		return nil, err
	}
	c := t.Client.ClientCommon
	// One connection per worker of the busiest phase (redis-benchmark -c
	// N opens N), unless client.pool_size or the URL's pool_size says
	// otherwise; go-redis's own default is 10 per CPU.
	if c.PoolSize > 0 || opt.PoolSize == 0 {
		opt.PoolSize = o.PoolSize(c)
	}
	if c.DialTimeout > 0 {
		opt.DialTimeout = c.DialTimeout.D()
	}
	if c.ReadTimeout > 0 {
		opt.ReadTimeout = c.ReadTimeout.D()
	}
	if c.WriteTimeout > 0 {
		opt.WriteTimeout = c.WriteTimeout.D()
	}
	// Fail fast on a dead server so an outage shows as errors, not hangs:
	// no command retries, one dial attempt of at most a second. After
	// PoolSize failed dials go-redis answers from its last dial error and
	// probes once a second, so a restarted server is used again within ~1 s.
	if opt.DialTimeout == 0 || opt.DialTimeout > time.Second {
		opt.DialTimeout = time.Second
	}
	mode := cc.Mode
	if mode == "" {
		mode = ModeStandalone
	}
	var cl goredis.UniversalClient
	switch mode {
	case ModeStandalone:
		cl = newStandalone(opt, tlsCfg)
	case ModeCluster:
		addrs := cc.Addrs
		if len(addrs) == 0 {
			addrs = []string{opt.Addr}
		}
		cl = goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: addrs, Username: opt.Username, Password: opt.Password, TLSConfig: tlsCfg,
			PoolSize: opt.PoolSize, DialTimeout: opt.DialTimeout, ReadTimeout: opt.ReadTimeout, WriteTimeout: opt.WriteTimeout,
			MaxRetries: -1, DialerRetries: 1, Protocol: 2, DisableIdentity: true, ContextTimeoutEnabled: true,
		})
	case ModeSentinel:
		addrs := cc.Addrs
		if len(addrs) == 0 {
			addrs = []string{opt.Addr}
		}
		cl = goredis.NewFailoverClient(&goredis.FailoverOptions{
			MasterName: cc.MasterName, SentinelAddrs: addrs, Username: opt.Username, Password: opt.Password, DB: opt.DB,
			TLSConfig: tlsCfg, PoolSize: opt.PoolSize, DialTimeout: opt.DialTimeout, ReadTimeout: opt.ReadTimeout,
			WriteTimeout: opt.WriteTimeout, MaxRetries: -1, DialerRetries: 1, Protocol: 2, DisableIdentity: true, ContextTimeoutEnabled: true,
		})
	default:
		return nil, fmt.Errorf("unknown client.mode %q", mode) // clientSchema refused it
	}
	// ContextTimeoutEnabled (above): this deadline, not a read timeout
	// of minutes, bounds the ping of a store that accepts and never
	// answers. The ops' context has no deadline: they keep ReadTimeout.
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := cl.Ping(pctx).Err(); err != nil {
		cl.Close()
		return nil, fmt.Errorf("ping: %w", err)
	}
	// Without allow_destructive a managed server's workload runs as
	// SafeUser, which the server refuses destructive commands (acl.go);
	// the default user's client stays for soakd's own admin work.
	var admin goredis.UniversalClient
	if managed && mode == ModeStandalone && !o.AllowDestructive {
		pw, err := createSafeUser(pctx, cl)
		if err != nil {
			o.Warnf("redis-server: the workload runs as the default user, which may run destructive commands: %v", err)
		} else {
			wopt := *opt
			wopt.Username, wopt.Password = SafeUser, pw
			wl := newStandalone(&wopt, tlsCfg)
			if err := wl.Ping(pctx).Err(); err != nil {
				wl.Close()
				cl.Close()
				return nil, fmt.Errorf("ping as %s: %w", SafeUser, err)
			}
			admin, cl, opt = cl, wl, &wopt
			// AUTH default from the workload must not undo it: the
			// default user is denied the same commands, and soakd's own
			// admin work moves to AdminUser.
			if a, err := lockDown(pctx, admin, opt, tlsCfg); err != nil {
				o.Warnf("redis-server: the default user may still run destructive commands (AUTH default from a custom op or a capture would give them back): %v", err)
			} else {
				admin.Close()
				admin = a
			}
		}
	}
	mb := c.MaxBatch
	if mb <= 0 {
		mb = DefaultMaxBatch
	}
	tg := &Target{c: cl, admin: admin, maxBatch: mb, mode: mode, url: scenarios.RedactURL(t.URL)}
	tg.own = newConnPool(opt.PoolSize, ownDialer(mode, opt, cc, tlsCfg), ownSetup(opt), opt.ReadTimeout, opt.WriteTimeout)
	// Cluster and sentinel need go-redis's routing and failover; an
	// explicit fast there is refused by checkClient.
	tg.fast = cc.Protocol != ProtocolGoRedis && mode == ModeStandalone
	tg.local = isLocal(opt.Addr, opt.Network) && mode == ModeStandalone
	tg.search.pref = cc.Search
	if info, err := cl.Info(pctx, "server").Result(); err == nil {
		tg.desc = "redis " + infoField(info, "redis_version")
		if m := infoField(info, "redis_mode"); m != "" && m != "standalone" {
			tg.desc += " (" + m + ")"
		}
	}
	if !managed && !o.AllowDestructive {
		user, may, err := checkUser(ctx, cl)
		switch {
		case err == nil && may && cc.RequireSafeUser:
			tg.Close()
			return nil, fmt.Errorf("target.client.require_safe_user: %s", unsafeUserMessage(user))
		case err == nil && may:
			o.Warnf("%s", unsafeUserMessage(user))
		case err == nil && user != "default":
			if dmay, derr := mayRun(ctx, cl, "default", safeProbe); derr == nil && dmay {
				o.Warnf("%s", defaultUserMessage(user))
			}
		case err != nil && cc.RequireSafeUser:
			tg.Close()
			return nil, fmt.Errorf("target.client.require_safe_user: cannot tell whether the redis user may run destructive commands (ACL WHOAMI and ACL DRYRUN, Redis 7 or later): %v", err)
		}
	}
	return tg, nil
}

// lockDown makes AdminUser through def (the default user's client),
// opens its client and denies the default user the destructive commands
// (lockDefault); it returns AdminUser's client.
func lockDown(ctx context.Context, def goredis.UniversalClient, opt *goredis.Options, tlsCfg *tls.Config) (goredis.UniversalClient, error) {
	pw, err := createAdminUser(ctx, def)
	if err != nil {
		return nil, err
	}
	aopt := *opt
	aopt.Username, aopt.Password = AdminUser, pw
	a := newStandalone(&aopt, tlsCfg)
	if err := a.Ping(ctx).Err(); err != nil {
		a.Close()
		return nil, fmt.Errorf("ping as %s: %w", AdminUser, err)
	}
	if err := lockDefault(ctx, a); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// newStandalone is the go-redis client of a standalone server.
func newStandalone(opt *goredis.Options, tlsCfg *tls.Config) *goredis.Client {
	return goredis.NewClient(&goredis.Options{
		Addr: opt.Addr, Network: opt.Network, Username: opt.Username, Password: opt.Password, DB: opt.DB,
		TLSConfig: tlsCfg, PoolSize: opt.PoolSize, DialTimeout: opt.DialTimeout, ReadTimeout: opt.ReadTimeout,
		WriteTimeout: opt.WriteTimeout, MaxRetries: -1, DialerRetries: 1, Protocol: 2, DisableIdentity: true, ContextTimeoutEnabled: true,
	})
}

// ownDialer dials the node soakd's own connections talk to: the server, a
// cluster's first seed node (PING is keyless) or the master the
// sentinels name at dial time.
func ownDialer(mode Mode, opt *goredis.Options, c ClientConfig, tc *tls.Config) func(context.Context) (net.Conn, error) {
	addr := func(context.Context) (string, error) { return opt.Addr, nil }
	network := opt.Network
	switch mode {
	case ModeCluster:
		network = "tcp"
		if len(c.Addrs) > 0 {
			seed := c.Addrs[0]
			addr = func(context.Context) (string, error) { return seed, nil }
		}
	case ModeSentinel:
		network = "tcp"
		sentinels := c.Addrs
		if len(sentinels) == 0 {
			sentinels = []string{opt.Addr}
		}
		addr = func(ctx context.Context) (string, error) {
			var last error
			for _, s := range sentinels {
				sc := goredis.NewSentinelClient(&goredis.Options{Addr: s, TLSConfig: tc, DialTimeout: opt.DialTimeout, MaxRetries: -1, Protocol: 2, DisableIdentity: true})
				hp, err := sc.GetMasterAddrByName(ctx, c.MasterName).Result()
				sc.Close()
				if err == nil && len(hp) == 2 {
					return net.JoinHostPort(hp[0], hp[1]), nil
				}
				last = err
			}
			return "", fmt.Errorf("sentinel master %s: %v", c.MasterName, last)
		}
	}
	return dialer(network, addr, opt.DialTimeout, tc)
}

// ownSetup is what a new connection of soakd's own sends first.
func ownSetup(opt *goredis.Options) [][]string {
	var cmds [][]string
	switch {
	case opt.Username != "" && opt.Password != "":
		cmds = append(cmds, []string{"AUTH", opt.Username, opt.Password})
	case opt.Password != "":
		cmds = append(cmds, []string{"AUTH", opt.Password})
	}
	if opt.DB != 0 {
		cmds = append(cmds, []string{"SELECT", strconv.Itoa(opt.DB)})
	}
	return cmds
}

func tlsConfig(o scenarios.TLS, opt *goredis.Options) (*tls.Config, error) {
	if !o.Enabled && opt.TLSConfig == nil {
		return nil, nil
	}
	host, _, _ := net.SplitHostPort(opt.Addr)
	return targets.TLSConfig(o, host)
}

func isLocal(addr, network string) bool {
	if network == "unix" {
		return true
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func infoField(info, name string) string {
	for rest := info; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && k == name {
			return v
		}
	}
	return ""
}

// Describe names the server version and the search module in use.
func (t *Target) Describe() string {
	d := t.desc
	if t.search.module != "" {
		d += ", " + t.search.module
	}
	if t.managed != nil {
		d += ", managed by soakd (persistence " + t.managed.Persistence + ")"
	}
	if t.admin != nil {
		d += ", workload as ACL user " + SafeUser
	}
	return d
}

// Down is closed when the managed server's process has ended (nil, never
// closed, for a server soakd does not run).
func (t *Target) Down() <-chan struct{} {
	if t.managed == nil {
		return nil
	}
	return t.managed.Exited()
}

// DownReason says how the managed server ended.
func (t *Target) DownReason() string {
	if t.managed == nil {
		return ""
	}
	return t.managed.ExitReason()
}

// OOMKills is the OOM kills in the managed server's cgroup when it
// ended (targets.OOMReporter).
func (t *Target) OOMKills() float64 {
	if t.managed == nil {
		return 0
	}
	return t.managed.OOMKills()
}

// Managed returns the server soakd started for this target, or nil.
func (t *Target) Managed() *Server { return t.managed }

// Client returns the underlying go-redis client (tests, tools): the
// admin client (AdminUser's) on a managed server whose workload runs as
// SafeUser.
func (t *Target) Client() goredis.UniversalClient { return t.adminClient() }

// adminClient is the client for soakd's own admin commands (MODULE
// LIST): AdminUser's (or, if it could not be made, the default user's)
// when the workload runs as SafeUser.
func (t *Target) adminClient() goredis.UniversalClient {
	if t.admin != nil {
		return t.admin
	}
	return t.c
}

// WorkloadUser is the ACL user the workload runs as: SafeUser on a
// managed server without allow_destructive, "" otherwise (the URL's or
// auth's user).
func (t *Target) WorkloadUser() string {
	if t.admin != nil {
		return SafeUser
	}
	return ""
}

// Close closes the clients and stops a managed server.
func (t *Target) Close() error {
	err := t.c.Close()
	if t.admin != nil {
		t.admin.Close()
	}
	t.own.Close()
	if t.managed != nil {
		if e := t.managed.Stop(); err == nil {
			err = e
		}
	}
	return err
}

// DefaultMaxBatch is the pipeline depth of due ops when client.max_batch
// is left out.
const DefaultMaxBatch = 256

// MaxBatch is the pipeline depth used for due ops.
func (t *Target) MaxBatch() int { return t.maxBatch }

// Batchable: every op whose commands can all be queued up front goes in
// the pipeline. scan and rmw send follow-up commands after their first
// reply, so they run on their own and never hold a pipeline's other ops.
func (t *Target) Batchable(op scenarios.Op) bool {
	if op.IsCustom() {
		return t.customBatchable(op)
	}
	return op != scenarios.OpScan && op != scenarios.OpRMW
}

// cmdable is what both the client and a pipeline offer.
type cmdable interface {
	goredis.Cmdable
	Do(ctx context.Context, args ...any) *goredis.Cmd
}

// post finishes an op after its queued commands ran: it reads their
// results, and through fn may send follow-up commands (scan, rmw). It is
// a value, not a closure, so queuing a hot op allocates nothing of
// soakd's own (go-redis's commands still do).
type post struct {
	kind postKind
	cmd  goredis.Cmder      // the op's command
	cmd2 goredis.Cmder      // a second command, its error checked after cmd's
	cmds []goredis.Cmder    // update over JSON: one command per field
	err  error              // postFail
	miss scenarios.MissRule // postCustom
	fn   func(ctx context.Context) error
}

type postKind uint8

const (
	postDone     postKind = iota // the error of cmd, cmd2 and cmds; nil replies are fine
	postPop                      // a nil reply is a miss (lpop, rpop, spop)
	postGet                      // a nil reply is a miss (GET)
	postZPop                     // an empty reply is a miss (zpopmin)
	postRead                     // an empty hash is a record not found (HGETALL)
	postReadJSON                 // a nil reply is a record not found (JSON.GET)
	postFail                     // err without a command
	postFn                       // fn
	postCustom                   // a custom op's command, judged by miss
)

// finish is the op's outcome.
func (p post) finish(ctx context.Context) error {
	switch p.kind {
	case postFail:
		return p.err
	case postFn:
		return p.fn(ctx)
	case postCustom:
		return finishCustom(p.cmd, p.miss)
	case postPop, postGet:
		// A nil pop means the structure was empty, counted as a miss,
		// never as a silent success (Prepare pre-fills so that a bounded
		// scenario's pops never miss).
		return okMiss(p.cmd.Err())
	case postZPop:
		if err := p.cmd.Err(); err != nil {
			return okMiss(err)
		}
		if len(p.cmd.(*goredis.ZSliceCmd).Val()) == 0 {
			return targets.ErrMiss
		}
		return nil
	case postRead:
		if err := p.cmd.Err(); err != nil {
			return err
		}
		if len(p.cmd.(*goredis.MapStringStringCmd).Val()) == 0 {
			return targets.ErrNotFound
		}
		return nil
	case postReadJSON:
		if errors.Is(p.cmd.Err(), goredis.Nil) {
			return targets.ErrNotFound
		}
		return p.cmd.Err()
	}
	for _, c := range [2]goredis.Cmder{p.cmd, p.cmd2} {
		if c == nil {
			continue
		}
		if err := okNil(c.Err()); err != nil {
			return err
		}
	}
	for _, c := range p.cmds {
		if err := okNil(c.Err()); err != nil {
			return err
		}
	}
	return nil
}

// multi reports whether the op queues more than one command, so Do
// sends them in one pipeline.
func (t *Target) multi(op scenarios.Op) bool {
	switch op {
	case scenarios.OpInsert, scenarios.OpDelete:
		return true
	case scenarios.OpUpdate:
		// Over JSON an update is a JSON.SET a field.
		return t.search.mode == searchJSON
	}
	return false
}

// Do runs one op.
func (t *Target) Do(ctx context.Context, r *targets.Request) error {
	if t.fastOp(r.Op) {
		reqs, errs := [1]*targets.Request{r}, [1]error{}
		t.fastDo(ctx, reqs[:], errs[:], false)
		return errs[0]
	}
	if t.multi(r.Op) {
		pipe := t.c.Pipeline()
		p := t.build(ctx, pipe, r)
		_, _ = pipe.Exec(ctx)
		return p.finish(ctx)
	}
	return t.build(ctx, t.c, r).finish(ctx)
}

// DoBatch sends due ops in one pipeline. The engine sends only
// Batchable ops here; a follow-up of any other (scan's reads, rmw's
// write) would run after the pipeline, so that op's End is stamped
// after it and the pipeline's other ops keep the pipeline's end.
func (t *Target) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	if len(reqs) == 1 {
		errs[0] = t.Do(ctx, reqs[0])
		return
	}
	if t.fastBatch(reqs) {
		t.fastDo(ctx, reqs, errs, true)
		return
	}
	pipe := t.c.Pipeline()
	var buf [64]post
	posts := buf[:0]
	for _, r := range reqs {
		posts = append(posts, t.build(ctx, pipe, r))
	}
	_, _ = pipe.Exec(ctx)
	end := time.Now()
	for i, r := range reqs {
		errs[i] = posts[i].finish(ctx)
		r.End = end
		if !t.Batchable(r.Op) {
			r.End = time.Now()
		}
	}
}

func okNil(err error) error {
	if errors.Is(err, goredis.Nil) {
		return nil
	}
	return err
}

// done is the post for ops whose result is the error of their command.
func done(cmd goredis.Cmder) post { return post{cmd: cmd} }

// done2 is the post for ops of two commands: cmd's error first, then
// cmd2's.
func done2(cmd, cmd2 goredis.Cmder) post { return post{cmd: cmd, cmd2: cmd2} }

// popped is the post of a pop (lpop, rpop, spop).
func popped(cmd *goredis.StringCmd) post { return post{kind: postPop, cmd: cmd} }

func okMiss(err error) error {
	if errors.Is(err, goredis.Nil) {
		return targets.ErrMiss
	}
	return err
}

func fail(err error) post { return post{kind: postFail, err: err} }

// then is the post of an op that sends more after its first replies.
func then(fn func(ctx context.Context) error) post { return post{kind: postFn, fn: fn} }

// Keys of the redis-benchmark suite, as redis-benchmark names them.
const (
	benchList    = "mylist"
	benchSet     = "myset"
	benchHash    = "myhash"
	benchZSet    = "myzset"
	benchCounter = "counter:"
)

// LRangeFill is how many elements Prepare puts in mylist for lrange ops.
const LRangeFill = 600

// build queues the commands for r on c and returns its post.
func (t *Target) build(ctx context.Context, c cmdable, r *targets.Request) post {
	if r.Op.IsCustom() {
		return t.buildCustom(ctx, c, r)
	}
	key := keyString(r)
	switch r.Op {
	case scenarios.OpRead:
		return t.read(ctx, c, key)
	case scenarios.OpUpdate:
		return t.update(ctx, c, r)
	case scenarios.OpInsert:
		return t.insert(ctx, c, r)
	case scenarios.OpScan:
		n := r.ScanLen
		if n <= 0 {
			n = scenarios.DefaultScanLength
		}
		zr := c.ZRangeByScore(ctx, IndexKey, &goredis.ZRangeBy{Min: strconv.FormatInt(r.KeyNum, 10), Max: "+inf", Count: int64(n)})
		return then(func(ctx context.Context) error {
			if err := zr.Err(); err != nil {
				return err
			}
			return t.readAll(ctx, zr.Val())
		})
	case scenarios.OpRMW:
		rd := t.read(ctx, c, key)
		// A real read-modify-write: the write is sent after the read's
		// reply (r stays valid: posts run before Do/DoBatch return).
		return then(func(ctx context.Context) error {
			if err := rd.finish(ctx); err != nil {
				return err
			}
			return t.update(ctx, t.c, r).finish(ctx)
		})
	case scenarios.OpDelete:
		return t.delete(ctx, c, key)
	case scenarios.OpSearch:
		return t.searchOp(ctx, c, r)
	case scenarios.OpDel:
		return done(c.Del(ctx, key))
	case scenarios.OpHSet:
		// redis-benchmark: HSET myhash element:__rand_int__ value.
		return done(c.HSet(ctx, benchHash, "element:"+strconv.FormatInt(r.KeyNum, 10), valueArg(r)))
	case scenarios.OpPing:
		// redis-benchmark's PING_MBULK: PING as a RESP array.
		return done(c.Ping(ctx))
	case scenarios.OpPingInline:
		// redis-benchmark's PING_INLINE: "PING\r\n" on an inline
		// connection (inline.go); in a batch it follows the pipeline.
		return then(func(ctx context.Context) error { return t.own.inline(ctx, "PING") })
	case scenarios.OpSet:
		return done(c.Set(ctx, key, valueArg(r), 0))
	case scenarios.OpGet:
		return post{kind: postGet, cmd: c.Get(ctx, key)}
	case scenarios.OpIncr:
		return done(c.Incr(ctx, benchCounter+strconv.FormatInt(r.KeyNum, 10)))
	case scenarios.OpLPush:
		return done(c.LPush(ctx, benchList, valueArg(r)))
	case scenarios.OpRPush:
		return done(c.RPush(ctx, benchList, valueArg(r)))
	case scenarios.OpLPop:
		return popped(c.LPop(ctx, benchList))
	case scenarios.OpRPop:
		return popped(c.RPop(ctx, benchList))
	case scenarios.OpSAdd:
		return done(c.SAdd(ctx, benchSet, "element:"+strconv.FormatInt(r.KeyNum, 10)))
	case scenarios.OpSPop:
		return popped(c.SPop(ctx, benchSet))
	case scenarios.OpZAdd:
		// redis-benchmark -r: ZADD myzset __rand_int__ element:__rand_int__.
		return done(c.ZAdd(ctx, benchZSet, goredis.Z{Score: float64(r.KeyNum), Member: "element:" + strconv.FormatInt(r.KeyNum, 10)}))
	case scenarios.OpZPopMin:
		return post{kind: postZPop, cmd: c.ZPopMin(ctx, benchZSet)}
	case scenarios.OpLRange100:
		return done(c.LRange(ctx, benchList, 0, 99))
	case scenarios.OpLRange300:
		return done(c.LRange(ctx, benchList, 0, 299))
	case scenarios.OpLRange500:
		return done(c.LRange(ctx, benchList, 0, 499))
	case scenarios.OpLRange600:
		return done(c.LRange(ctx, benchList, 0, 599))
	case scenarios.OpMSet:
		// redis-benchmark's MSET sets 10 keys. In a cluster they share a
		// hash tag so MSET stays in one slot.
		base := key
		if t.mode == ModeCluster {
			base = "{" + key + "}"
		}
		args := make([]any, 0, 20)
		for i := 0; i < 10; i++ {
			args = append(args, base+":"+strconv.Itoa(i), valueArg(r))
		}
		return done(c.MSet(ctx, args...))
	}
	return fail(fmt.Errorf("op %s is not supported by the redis adapter", r.Op))
}

func (t *Target) read(ctx context.Context, c cmdable, key string) post {
	if t.search.mode == searchJSON {
		return post{kind: postReadJSON, cmd: c.Do(ctx, "JSON.GET", key)}
	}
	return post{kind: postRead, cmd: c.HGetAll(ctx, key)}
}

// readAll reads the records of keys in one pipeline (scan).
func (t *Target) readAll(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	pipe := t.c.Pipeline()
	for _, k := range keys {
		if t.search.mode == searchJSON {
			pipe.Do(ctx, "JSON.GET", k)
		} else {
			pipe.HGetAll(ctx, k)
		}
	}
	_, err := pipe.Exec(ctx)
	return okNil(err)
}

// fieldArgs appends each field's name and value as go-redis arguments
// without copying or boxing them: a pointer fits in an interface without
// an allocation, and go-redis writes a *string's string and what a
// BinaryMarshaler returns. They point into fs, valid until the op's
// commands ran.
func fieldArgs(args []any, fs []targets.Field) []any {
	for i := range fs {
		args = append(args, &fs[i].Name, (*bytesArg)(&fs[i].Value))
	}
	return args
}

// bytesArg hands a []byte to go-redis through a pointer.
type bytesArg []byte

// MarshalBinary returns the bytes themselves.
func (b *bytesArg) MarshalBinary() ([]byte, error) { return *b, nil }

// valueArg is r's first field value as a go-redis argument (nil, an
// empty string, when r has no fields).
func valueArg(r *targets.Request) any {
	if len(r.Fields) > 0 {
		return (*bytesArg)(&r.Fields[0].Value)
	}
	return nil
}

// keyString is r.Key as a string without a copy. It is valid while r
// is, until Do or DoBatch returns: go-redis writes a command's arguments
// when the command runs and keeps none in its replies or errors.
func keyString(r *targets.Request) string {
	return unsafe.String(unsafe.SliceData(r.Key), len(r.Key))
}

func (t *Target) update(ctx context.Context, c cmdable, r *targets.Request) post {
	fs := r.Fields
	if len(fs) == 0 {
		fs = []targets.Field{{Name: scenarios.FieldName(0)}}
	}
	key := keyString(r)
	switch t.search.mode {
	case searchFT1:
		args := fieldArgs([]any{"FT.ADD", t.search.index, key, "1.0", "REPLACE", "PARTIAL", "FIELDS"}, fs)
		return done(c.Do(ctx, args...))
	case searchJSON:
		if t.search.corpus {
			return t.updateCorpusJSON(ctx, c, key, fs)
		}
		cmds := make([]goredis.Cmder, len(fs))
		for i, f := range fs {
			v, _ := json.Marshal(string(f.Value))
			cmds[i] = c.Do(ctx, "JSON.SET", key, "$."+f.Name, v, "XX")
		}
		return post{cmds: cmds}
	}
	return done(c.HSet(ctx, key, fieldArgs(make([]any, 0, 2*len(fs)), fs)...))
}

func (t *Target) insert(ctx context.Context, c cmdable, r *targets.Request) post {
	key := keyString(r)
	fs := r.Fields
	if len(fs) == 0 {
		fs = []targets.Field{{Name: scenarios.FieldName(0)}}
	}
	z := c.ZAdd(ctx, IndexKey, goredis.Z{Score: float64(r.KeyNum), Member: key})
	if t.search.corpus {
		return t.insertCorpus(ctx, c, r, key, fs, z)
	}
	switch t.search.mode {
	case searchFT1:
		title, body := scenarios.DocText(r.KeyNum)
		args := []any{"FT.ADD", t.search.index, key, "1.0", "REPLACE", "FIELDS", "title", title, "body", body, "num", r.KeyNum}
		return done2(c.Do(ctx, fieldArgs(args, fs)...), z)
	case searchHash:
		title, body := scenarios.DocText(r.KeyNum)
		args := fieldArgs([]any{"title", title, "body", body, "num", r.KeyNum}, fs)
		return done2(c.HSet(ctx, key, args...), z)
	case searchJSON:
		return done2(c.Do(ctx, "JSON.SET", key, "$", jsonDoc(r.KeyNum, fs)), z)
	}
	return done2(c.HSet(ctx, key, fieldArgs(make([]any, 0, 2*len(fs)), fs)...), z)
}

func (t *Target) delete(ctx context.Context, c cmdable, key string) post {
	z := c.ZRem(ctx, IndexKey, key)
	if t.search.mode == searchFT1 {
		// FT.DEL ... DD removes the document from the index and its hash.
		return done2(c.Do(ctx, "FT.DEL", t.search.index, key, "DD"), z)
	}
	return done2(c.Del(ctx, key), z)
}

func value(r *targets.Request) []byte {
	if len(r.Fields) > 0 {
		return r.Fields[0].Value
	}
	return nil
}

// Classify maps Redis errors to soakd's classes.
func (t *Target) Classify(err error) string {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "OOM "):
		return targets.ClassOOM
	case strings.Contains(msg, "CROSSSLOT"):
		return targets.ClassCrossSlot
	case strings.HasPrefix(msg, "MOVED "), strings.HasPrefix(msg, "ASK "), strings.HasPrefix(msg, "TRYAGAIN"),
		strings.HasPrefix(msg, "CLUSTERDOWN"):
		return targets.ClassMoved
	case strings.HasPrefix(msg, "LOADING "), strings.HasPrefix(msg, "BUSY "), strings.HasPrefix(msg, "MASTERDOWN "),
		strings.HasPrefix(msg, "MISCONF "), strings.HasPrefix(msg, "READONLY "):
		return targets.ClassRejected
	case errors.Is(err, goredis.ErrClosed), strings.Contains(msg, "connection pool exhausted"):
		return targets.ClassConnection
	case errors.Is(err, goredis.ErrPoolTimeout):
		return targets.ClassTimeout
	}
	return ""
}
