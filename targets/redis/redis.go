// Package redis is the adapter for Redis and Redis-protocol stores
// (Valkey, KeyDB, SSDB, soakd's embedded store) on go-redis v9.
package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func init() {
	targets.Register("redis", Open)
}

// Target drives one Redis server.
type Target struct {
	c        goredis.UniversalClient
	maxBatch int
	desc     string
	addr     string // host:port, for reading local process stats
}

// Open connects to the server a scenario's target block names.
func Open(ctx context.Context, t scenarios.Target, o targets.Options) (targets.Target, error) {
	if t.URL == "" {
		return nil, errors.New("no url (use redis://host:port)")
	}
	opt, err := goredis.ParseURL(t.URL)
	if err != nil {
		return nil, fmt.Errorf("bad url: %s", strings.ReplaceAll(err.Error(), t.URL, scenarios.RedactURL(t.URL)))
	}
	if t.Auth.UsernameEnv != "" {
		opt.Username = o.Getenv(t.Auth.UsernameEnv)
	}
	if t.Auth.PasswordEnv != "" {
		opt.Password = o.Getenv(t.Auth.PasswordEnv)
	}
	c := t.Client
	if c.PoolSize > 0 {
		opt.PoolSize = c.PoolSize
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
	// Fail fast on a dead server so an outage shows as errors, not hangs.
	opt.MaxRetries = -1
	if opt.DialTimeout == 0 || opt.DialTimeout > time.Second {
		opt.DialTimeout = time.Second
	}
	opt.Protocol = 2
	opt.DisableIdentity = true
	cl := goredis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := cl.Ping(pctx).Err(); err != nil {
		cl.Close()
		return nil, fmt.Errorf("ping: %w", err)
	}
	mb := c.MaxBatch
	if mb <= 0 {
		mb = 256
	}
	tg := &Target{c: cl, maxBatch: mb, addr: opt.Addr}
	if info, err := cl.Info(pctx, "server").Result(); err == nil {
		tg.desc = "redis " + infoField(info, "redis_version")
	}
	return tg, nil
}

func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// Describe names the server version.
func (t *Target) Describe() string { return t.desc }

// Close closes the client.
func (t *Target) Close() error { return t.c.Close() }

// MaxBatch is the pipeline depth used for due ops.
func (t *Target) MaxBatch() int { return t.maxBatch }

// Do runs one op.
func (t *Target) Do(ctx context.Context, r *targets.Request) error {
	cmd, post := t.build(ctx, t.c, r)
	if cmd == nil {
		return post(nil)
	}
	return post(cmd.Err())
}

// DoBatch sends due ops in one pipeline.
func (t *Target) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	if len(reqs) == 1 {
		errs[0] = t.Do(ctx, reqs[0])
		return
	}
	pipe := t.c.Pipeline()
	cmds := make([]goredis.Cmder, len(reqs))
	posts := make([]func(error) error, len(reqs))
	for i, r := range reqs {
		cmds[i], posts[i] = t.build(ctx, pipe, r)
	}
	_, _ = pipe.Exec(ctx)
	for i := range reqs {
		if cmds[i] == nil {
			errs[i] = posts[i](nil)
			continue
		}
		errs[i] = posts[i](cmds[i].Err())
	}
}

func ok(err error) error {
	if errors.Is(err, goredis.Nil) {
		return nil
	}
	return err
}

func notFoundOnNil(err error) error {
	if errors.Is(err, goredis.Nil) {
		return targets.ErrNotFound
	}
	return err
}

// build queues the command for r on c and returns a function that maps
// its error to the op's result.
func (t *Target) build(ctx context.Context, c goredis.Cmdable, r *targets.Request) (goredis.Cmder, func(error) error) {
	key := string(r.Key)
	switch r.Op {
	case scenarios.OpRead:
		cmd := c.HGetAll(ctx, key)
		return cmd, func(err error) error {
			if err == nil && len(cmd.Val()) == 0 {
				return targets.ErrNotFound
			}
			return err
		}
	case scenarios.OpUpdate, scenarios.OpInsert, scenarios.OpHSet, scenarios.OpRMW:
		args := make([]any, 0, 2*len(r.Fields))
		for _, f := range r.Fields {
			args = append(args, f.Name, f.Value)
		}
		if len(args) == 0 {
			args = append(args, "field0", "")
		}
		return c.HSet(ctx, key, args...), ok
	case scenarios.OpDelete, scenarios.OpDel:
		return c.Del(ctx, key), ok
	case scenarios.OpPing:
		return c.Ping(ctx), ok
	case scenarios.OpSet:
		return c.Set(ctx, key, value(r), 0), ok
	case scenarios.OpGet:
		return c.Get(ctx, key), ok
	case scenarios.OpIncr:
		return c.Incr(ctx, "counter:"+strconv.FormatInt(r.KeyNum%1000, 10)), ok
	case scenarios.OpLPush:
		return c.LPush(ctx, "mylist", value(r)), ok
	case scenarios.OpRPush:
		return c.RPush(ctx, "mylist", value(r)), ok
	case scenarios.OpLPop:
		return c.LPop(ctx, "mylist"), ok
	case scenarios.OpRPop:
		return c.RPop(ctx, "mylist"), ok
	case scenarios.OpSAdd:
		return c.SAdd(ctx, "myset", key), ok
	case scenarios.OpSPop:
		return c.SPop(ctx, "myset"), ok
	case scenarios.OpLRange100:
		return c.LRange(ctx, "mylist", 0, 99), ok
	case scenarios.OpLRange300:
		return c.LRange(ctx, "mylist", 0, 299), ok
	case scenarios.OpLRange500:
		return c.LRange(ctx, "mylist", 0, 449), ok
	case scenarios.OpLRange600:
		return c.LRange(ctx, "mylist", 0, 599), ok
	case scenarios.OpMSet:
		// redis-benchmark's MSET sets 10 keys.
		args := make([]any, 0, 20)
		for i := 0; i < 10; i++ {
			args = append(args, key+":"+strconv.Itoa(i), value(r))
		}
		return c.MSet(ctx, args...), ok
	}
	op := r.Op
	return nil, func(error) error { return fmt.Errorf("op %s is not supported by the redis adapter", op) }
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
	case strings.HasPrefix(msg, "MOVED "), strings.HasPrefix(msg, "ASK "):
		return targets.ClassMoved
	case strings.HasPrefix(msg, "LOADING "), strings.HasPrefix(msg, "BUSY "), strings.HasPrefix(msg, "MASTERDOWN "):
		return targets.ClassRejected
	}
	return ""
}

// Prepare checks the scenario's ops are ones this adapter runs.
func (t *Target) Prepare(ctx context.Context, sc *scenarios.Scenario) error {
	for _, p := range sc.Phases {
		for name := range p.Mix {
			op, _ := scenarios.ParseOp(name)
			if op == scenarios.OpScan || op == scenarios.OpSearch {
				return fmt.Errorf("phase %s: op %s is not supported by the redis adapter yet", p.Name, name)
			}
		}
	}
	return nil
}
