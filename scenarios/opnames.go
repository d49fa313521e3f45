package scenarios

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Custom ops (a scenario's ops:) are Ops too, so everything indexed by
// Op (per-op histograms, counts, metrics) holds them without change. They
// take the values from OpCustomBase up; a name keeps its value for the
// life of the process, so the same name is the same Op in every run and
// every scenario a daemon runs, and String and ParseOp need no scenario.

// MaxCustomOps is how many distinct custom op names one soakd process
// can hold (a scenario's ops: has at most this many).
const MaxCustomOps = 64

// OpCustomBase is the first custom op's value.
const OpCustomBase = numBuiltinOps

// customNames is the process's table of custom op names: an append-only
// list (readers load its entries without a lock) and its index.
type customNames struct {
	mu    sync.Mutex
	names [MaxCustomOps]atomic.Pointer[string]
	index sync.Map // name -> Op
	n     int
}

var custom customNames

// InternOp returns the Op of custom op name, giving it the next free
// value the first time the process sees it. A built-in name returns its
// built-in Op.
func InternOp(name string) (Op, error) {
	if o, ok := parseBuiltinOp(name); ok {
		return o, nil
	}
	if o, ok := custom.index.Load(name); ok {
		return o.(Op), nil
	}
	custom.mu.Lock()
	defer custom.mu.Unlock()
	if o, ok := custom.index.Load(name); ok {
		return o.(Op), nil
	}
	if custom.n >= MaxCustomOps {
		return 0, fmt.Errorf("custom op %q: this process already holds %d custom op names, the most it can", name, MaxCustomOps)
	}
	o := OpCustomBase + Op(custom.n)
	s := name
	custom.names[custom.n].Store(&s)
	custom.n++
	custom.index.Store(name, o)
	return o, nil
}

// IsCustom reports whether o is a custom op (one of a scenario's ops:).
func (o Op) IsCustom() bool { return o >= OpCustomBase && o < NumOps }

// customName is the name of custom op o, "" when none has that value.
func customName(o Op) string {
	if p := custom.names[o-OpCustomBase].Load(); p != nil {
		return *p
	}
	return ""
}

// parseCustomOp returns the Op of a custom op name the process holds.
func parseCustomOp(name string) (Op, bool) {
	o, ok := custom.index.Load(name)
	if !ok {
		return 0, false
	}
	return o.(Op), true
}
