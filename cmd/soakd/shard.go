package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/soakd/soakd/rundir"
)

// resolveShard picks this process's shard: --shard i/N, else SOAKD_SHARD
// (i/N), else Kubernetes' JOB_COMPLETION_INDEX with the total from
// SOAKD_SHARDS. fromEnv (--shard-from-env) makes the environment
// mandatory.
func resolveShard(flagVal string, fromEnv bool, getenv func(string) string) (rundir.Shard, error) {
	if flagVal != "" {
		sh, err := rundir.ParseShard(flagVal)
		if err != nil {
			return sh, fmt.Errorf("--shard: %w", err)
		}
		return sh, nil
	}
	if v := strings.TrimSpace(getenv("SOAKD_SHARD")); v != "" {
		sh, err := rundir.ParseShard(v)
		if err != nil {
			return sh, fmt.Errorf("SOAKD_SHARD: %w", err)
		}
		return sh, nil
	}
	if v := strings.TrimSpace(getenv("JOB_COMPLETION_INDEX")); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil {
			return rundir.Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX %q is not an integer", v)
		}
		tv := strings.TrimSpace(getenv("SOAKD_SHARDS"))
		if tv == "" {
			return rundir.Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX is set (%d) but SOAKD_SHARDS (the shard count) is not", i)
		}
		n, err := strconv.Atoi(tv)
		if err != nil {
			return rundir.Shard{}, fmt.Errorf("SOAKD_SHARDS %q is not an integer", tv)
		}
		sh := rundir.Shard{Index: i, Count: n}
		if err := sh.Validate(); err != nil {
			return sh, fmt.Errorf("JOB_COMPLETION_INDEX/SOAKD_SHARDS: %w", err)
		}
		return sh, nil
	}
	if fromEnv {
		return rundir.Shard{}, fmt.Errorf("--shard-from-env: set SOAKD_SHARD=i/N, or JOB_COMPLETION_INDEX and SOAKD_SHARDS")
	}
	return rundir.Shard{Index: 0, Count: 1}, nil
}

// parseStartAt parses --start-at (RFC3339).
func parseStartAt(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--start-at %q: want an RFC3339 time such as 2026-01-02T15:04:05Z", v)
	}
	return t, nil
}

// resolveRunID picks the run id shards meet under: --run-id, else
// SOAKD_RUN_ID, else one derived from --start-at (shards given the same
// start agree on it), else none ("").
func resolveRunID(flagVal string, startAt time.Time, getenv func(string) string) (string, error) {
	id, from := strings.TrimSpace(flagVal), "--run-id"
	if id == "" {
		id, from = strings.TrimSpace(getenv("SOAKD_RUN_ID")), "SOAKD_RUN_ID"
	}
	if id == "" {
		if startAt.IsZero() {
			return "", nil
		}
		return "start-" + startAt.UTC().Format("20060102T150405.000000000Z"), nil
	}
	if len(id) > 200 || strings.IndexFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "", fmt.Errorf("%s %q: want at most 200 characters without spaces", from, id)
	}
	return id, nil
}

// waitUntil sleeps until t (shared start of all shards) or ctx ends.
func waitUntil(ctx context.Context, t time.Time, now func() time.Time) error {
	d := t.Sub(now())
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
