package redis

import (
	"context"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
)

// Logger carries go-redis's own log lines (pool dial failures, sentinel
// and cluster topology changes) to soakd's log instead of go-redis
// writing them to stderr itself, with every URL in them redacted.
type Logger struct {
	// Log receives each line, redacted and without a trailing newline.
	Log func(msg string)
}

// Printf implements go-redis's internal.Logging.
func (l Logger) Printf(_ context.Context, format string, v ...any) {
	if l.Log == nil {
		return
	}
	l.Log(scenarios.RedactURLsIn(strings.TrimRight(fmt.Sprintf(format, v...), "\n")))
}

// SetLogger routes go-redis's log lines to log. go-redis keeps its
// logger in a package global (redis.SetLogger), so this is process-wide:
// call it once, from main's wiring, never from an adapter or a test
// that runs in parallel with others.
func SetLogger(log func(msg string)) { goredis.SetLogger(Logger{Log: log}) }
