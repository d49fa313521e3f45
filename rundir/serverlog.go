package rundir

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/soakd/soakd/regfile"
)

// ServerLog is the run's server-side log: per stats sample (once an
// interval), the figures a verdict needs to say whether the server
// confirms a slowdown and what it was doing then: each command's calls
// and the server's time on them (counters), and the persistence, fork,
// eviction and swap figures (ServerLogged). Long form, one figure a
// line: "time,stat,value". Best effort: a run whose log cannot be
// written has none; a target without server stats writes none.
const ServerLog = "server.csv"

// ServerLogHeader is ServerLog's first line.
const ServerLogHeader = "time,stat,value\n"

// serverLogged are the non-command figures ServerLog keeps.
var serverLogged = map[string]bool{
	"rdb_bgsave_in_progress": true, "aof_rewrite_in_progress": true, "latest_fork_seconds": true,
	"rdb_saves_total": true, "aof_rewrites_total": true, "aof_delayed_fsync_total": true,
	"evicted_keys_total": true, "process_swap_bytes": true, "cgroup_swap_usage_bytes": true,
	"used_memory_bytes": true, "maxmemory_bytes": true,
}

// ServerLogged says whether ServerLog keeps stat: a command's counters
// (cmd_<name>_calls_total, cmd_<name>_seconds_total) or an event figure.
func ServerLogged(stat string) bool {
	if strings.HasPrefix(stat, "cmd_") {
		return strings.HasSuffix(stat, "_calls_total") || strings.HasSuffix(stat, "_seconds_total")
	}
	return serverLogged[stat]
}

// ServerLogWriter appends samples to a run's ServerLog. A nil writer
// writes nothing.
type ServerLogWriter struct {
	mu   sync.Mutex
	f    *os.File
	line []byte
	keys []string
}

// CreateServerLog creates dir's ServerLog (nil when it cannot).
func CreateServerLog(dir string) *ServerLogWriter {
	f, err := os.Create(filepath.Join(dir, ServerLog))
	if err != nil {
		return nil
	}
	if _, err := f.WriteString(ServerLogHeader); err != nil {
		f.Close()
		return nil
	}
	return &ServerLogWriter{f: f}
}

// Add writes the logged figures of sample st, taken at at.
func (w *ServerLogWriter) Add(at time.Time, st map[string]float64) {
	if w == nil || len(st) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return
	}
	w.keys = w.keys[:0]
	for k := range st {
		if ServerLogged(k) {
			w.keys = append(w.keys, k)
		}
	}
	sort.Strings(w.keys)
	b := w.line[:0]
	for _, k := range w.keys {
		b = at.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		b = append(b, ',')
		b = append(b, k...)
		b = append(b, ',')
		b = strconv.AppendFloat(b, st[k], 'g', -1, 64)
		b = append(b, '\n')
	}
	w.line = b
	if _, err := w.f.Write(b); err != nil {
		w.f.Close()
		w.f = nil
	}
}

// Close closes the log.
func (w *ServerLogWriter) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// ServerSample is one stats sample of ServerLog.
type ServerSample struct {
	At    time.Time
	Stats map[string]float64
}

// ReadServerLog reads dir's ServerLog in time order (nil, nil when the
// run left none). A torn last line (a killed run) ends the read; any
// other bad line is an error naming the file and line.
func ReadServerLog(dir string) ([]ServerSample, error) {
	path := filepath.Join(dir, ServerLog)
	f, err := regfile.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	var out []ServerSample
	sc := bufio.NewScanner(f)
	n := 0
	var bad error
	for sc.Scan() {
		n++
		if bad != nil {
			return nil, bad
		}
		line := sc.Text()
		if n == 1 {
			if line+"\n" != ServerLogHeader {
				return nil, fmt.Errorf("%s:1: header %q, want %q", path, line, strings.TrimSpace(ServerLogHeader))
			}
			continue
		}
		ts, rest, ok1 := strings.Cut(line, ",")
		stat, val, ok2 := strings.Cut(rest, ",")
		at, err1 := time.Parse(time.RFC3339Nano, ts)
		v, err2 := strconv.ParseFloat(val, 64)
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			// Only the last line may be torn.
			bad = fmt.Errorf("%s:%d: want time,stat,value, got %q", path, n, line)
			continue
		}
		if len(out) == 0 || !out[len(out)-1].At.Equal(at) {
			out = append(out, ServerSample{At: at, Stats: map[string]float64{}})
		}
		out[len(out)-1].Stats[stat] = v
	}
	return out, sc.Err()
}
