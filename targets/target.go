// Package targets holds the store adapter interface, the one registry of
// adapters, and error classification shared by them. Adapters live in
// subpackages (redis, mongo, elastic, embedded) and register themselves.
package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/storeinfo"
)

// Request is one operation handed to an adapter. The engine owns it and
// reuses it: adapters must not keep references after Do returns.
type Request struct {
	Op     scenarios.Op
	KeyNum int64  // record number
	Key    []byte // formatted key (prefix + number)
	// Fields holds names/values for insert (all fields) and update (one
	// field, as YCSB does); values alias read-only generator buffers.
	Fields []Field
	// ScanLen is the number of records a scan returns.
	ScanLen int
	// Search terms and pagination for search ops.
	Query    string
	Page     int
	PageSize int
	// Parts holds a custom op's rendered template strings, in the order
	// its spec lists them (scenarios.CustomOp.Templates); they alias Buf
	// and the compiled templates, and are reused like the request.
	Parts [][]byte
	Buf   []byte
	// End is when this op's reply arrived, set by a Batcher that can
	// tell the ops of one batch apart; zero means the batch's end.
	End time.Time
}

// Field is one field of a record.
type Field struct {
	Name  string
	Value []byte
	// JSON says Value is JSON text (a corpus document's number, boolean,
	// object or array), not a string: a store that keeps JSON documents
	// writes it as that JSON value.
	JSON bool
}

// Target is a connected store. Do must be safe for concurrent use by the
// engine's workers.
type Target interface {
	// Do runs one operation. A nil error is a success; a "not found" on a
	// read of a record that exists is an error the adapter reports.
	Do(ctx context.Context, r *Request) error
	Close() error
}

// Batcher is implemented by targets that can send several due operations
// in one round trip (pipelines, bulk). errs has len(reqs).
type Batcher interface {
	// DoBatch runs reqs, every one an op Batchable accepts. An adapter
	// that can tell when each op's reply arrived sets its Request.End.
	DoBatch(ctx context.Context, reqs []*Request, errs []error)
	// MaxBatch is the largest batch worth sending at once.
	MaxBatch() int
	// Batchable reports whether the store really runs op together with
	// others in one round trip. The engine sends any other op on its
	// own, so no op waits for its neighbours in a batch.
	Batchable(op scenarios.Op) bool
}

// Preparer is implemented by targets that set things up before a run
// (indexes, capability checks). An error here fails the run at start.
type Preparer interface {
	Prepare(ctx context.Context, sc *scenarios.Scenario) error
}

// StatsSource is implemented by targets that report server-side figures
// (memory, persistence, cache...). Names are snake_case metric suffixes,
// e.g. "used_memory_bytes"; a figure the server lacks is absent, not zero.
type StatsSource interface {
	ServerStats(ctx context.Context) (map[string]float64, error)
}

// Watched is implemented by targets that run their server themselves
// (target.managed): Down is closed if that process ends while the target
// is open, and DownReason then says how. A nil channel never fires.
type Watched interface {
	Down() <-chan struct{}
	DownReason() string
}

// OOMReporter is implemented by Watched targets whose server runs in a
// memory cgroup: OOMKills is the kernel's OOM kill count in that cgroup
// when the process ended (0 while it runs, or when it ended another way).
type OOMReporter interface {
	OOMKills() float64
}

// Classifier is implemented by targets with store-specific error classes
// (oom, moved, rejected...). The result must be one of a small fixed set.
type Classifier interface {
	Classify(err error) string
}

// Describer reports a one-line description (server version, modules...)
// for summaries; it must not include credentials.
type Describer interface {
	Describe() string
}

// Options passes what a factory needs besides the scenario's target block.
type Options struct {
	Env func(string) string // environment lookup for auth (os.Getenv when nil)
	// Warn reports a problem that does not stop the run, one line
	// without a trailing newline (dropped when nil); e.g. a cgroup cap
	// the host does not allow.
	Warn func(msg string)
	// Concurrency is the scenario's largest phase concurrency
	// (Scenario.MaxConcurrency). Client pools hold that many connections
	// unless target.client.pool_size says otherwise, so N workers get N
	// connections (redis-benchmark -c N); 0 leaves the client's default.
	Concurrency int
	// AllowDestructive is the scenario's allow_destructive: without it a
	// redis target's workload runs as a user the server refuses
	// destructive commands (managed servers), or the connected user is
	// checked at open.
	AllowDestructive bool
}

// PoolSize is the connection pool size for a client: the scenario's
// client.pool_size when set, else Concurrency (0: the client's default).
func (o Options) PoolSize(c scenarios.ClientCommon) int {
	if c.PoolSize > 0 {
		return c.PoolSize
	}
	return o.Concurrency
}

// Warnf sends a warning through Options.Warn.
func (o Options) Warnf(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// Getenv reads an environment variable through Options.
func (o Options) Getenv(k string) string {
	if o.Env == nil {
		return os.Getenv(k)
	}
	return o.Env(k)
}

// Factory opens a target from a scenario's target block.
type Factory func(ctx context.Context, t scenarios.Target, o Options) (Target, error)

// Open connects to the target a scenario names, once its store options
// pass the adapter's checks (a problem names the file and line).
func Open(ctx context.Context, t scenarios.Target, o Options) (Target, error) {
	return registry.Open(ctx, t, o)
}

// Open is the package's Open with r's adapters.
func (r *Registry) Open(ctx context.Context, t scenarios.Target, o Options) (Target, error) {
	a, ok := r.adapter(t.Kind)
	if !ok {
		return nil, errors.New(scenarios.UnknownKind(r, t.Kind))
	}
	if fes := scenarios.CheckStore(r, t); len(fes) > 0 {
		err := t.Client.Problems(fes)
		return nil, &redactedError{msg: fmt.Sprintf("%s target %s: %s", t.Kind, scenarios.RedactURL(t.URL), scenarios.RedactText(err.Error(), t.URL)), err: err}
	}
	tg, err := a.Open(ctx, t, o)
	if err != nil {
		// Client libraries may quote the URL (or its password) in errors:
		// the message is redacted, the chain kept for errors.Is/As.
		return nil, &redactedError{msg: fmt.Sprintf("%s target %s: %s", t.Kind, scenarios.RedactURL(t.URL), scenarios.RedactText(err.Error(), t.URL)), err: err}
	}
	return tg, nil
}

// redactedError has a redacted message and wraps the original error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Reopener returns a function that opens target t again with another
// managed persistence variant (engine.Options.Reopen): the persistence
// matrix starts one fresh server per variant.
func Reopener(ctx context.Context, t scenarios.Target, o Options) func(persistence string) (Target, error) {
	return func(persistence string) (Target, error) {
		tt := t
		if tt.Managed != nil {
			m := *tt.Managed
			m.Persistence = persistence
			tt.Managed = &m
		}
		return Open(ctx, tt, o)
	}
}

// Error classes used in soakd_ops_total{outcome} and summary.json's
// error counts: the leaf storeinfo's, so rundir and verdict need not
// import targets.
const (
	ClassOK          = storeinfo.ClassOK
	ClassTimeout     = storeinfo.ClassTimeout
	ClassConnection  = storeinfo.ClassConnection
	ClassOOM         = storeinfo.ClassOOM
	ClassMoved       = storeinfo.ClassMoved
	ClassRejected    = storeinfo.ClassRejected
	ClassNotFound    = storeinfo.ClassNotFound
	ClassOther       = storeinfo.ClassOther
	ClassMiss        = storeinfo.ClassMiss
	ClassInterrupted = storeinfo.ClassInterrupted
	ClassCrossSlot   = storeinfo.ClassCrossSlot
)

// Classes lists every outcome label value, so metrics stay bounded.
func Classes() []string { return storeinfo.Classes() }

// IsError reports whether an outcome class counts as an error: every
// class but ok and miss.
func IsError(class string) bool { return storeinfo.IsError(class) }

// ErrNotFound is returned by adapters when a read finds no record.
var ErrNotFound = errors.New("record not found")

// ErrMiss is returned by adapters when a cache-style read (GET) finds
// no value; it is classified ClassMiss and not counted as an error.
var ErrMiss = errors.New("cache miss")

// Classify maps an error to a class using the target's own classifier
// first and generic network rules after.
func Classify(t Target, err error) string {
	if err == nil {
		return ClassOK
	}
	if c, ok := t.(Classifier); ok {
		if cl := c.Classify(err); cl != "" {
			return cl
		}
	}
	return ClassifyGeneric(err)
}

// ClassifyGeneric classifies timeouts, connection failures and not-found.
func ClassifyGeneric(err error) string {
	if err == nil {
		return ClassOK
	}
	if errors.Is(err, ErrNotFound) {
		return ClassNotFound
	}
	if errors.Is(err, ErrMiss) {
		return ClassMiss
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return ClassTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ClassTimeout
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return ClassConnection
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return ClassConnection
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "timeout"):
		return ClassTimeout
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "broken pipe"), strings.Contains(msg, "use of closed network connection"):
		return ClassConnection
	}
	return ClassOther
}

// scrubbed is an error whose text has had secrets removed; it still
// unwraps to the original so classification works.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Scrub returns err with every non-empty secret in its text replaced by
// xxxxx (credentials never appear in errors); err itself when none do.
func Scrub(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}
