// Package heapprof writes heap profiles of a running process into one
// directory: after a first delay, then at a fixed interval, and once
// more when stopped. Each profile is taken after a forced GC, so its
// inuse figures are the live heap, and is the gzipped protobuf that
// runtime/pprof writes (`go tool pprof -top FILE`; two of them with
// `-diff_base OLD NEW` show what grew between them). Beside them,
// heap-live.tsv gets a line per profile with exact figures from
// runtime/metrics read right after that GC: the live heap (the profile's
// inuse figures are sampled estimates), all memory the runtime mapped,
// the part of it released to the OS, and the goroutines.
package heapprof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

// Schedule says when profiles are taken, counted from Start.
type Schedule struct {
	// First is the first profile's delay (e.g. 5m: past start-up).
	First time.Duration
	// Every is the interval after the first (0: only the first and the
	// one at Stop).
	Every time.Duration
}

// Profiler takes the heap profiles of one Schedule into one directory.
type Profiler struct {
	dir   string
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	written []string
	err     error
}

// Start creates dir (and its parents) if needed and starts taking
// profiles into it. It writes only files named heap-*.pb.gz directly
// in dir, never elsewhere.
func Start(dir string, s Schedule) (*Profiler, error) {
	if dir == "" {
		return nil, errors.New("no directory given")
	}
	if s.First <= 0 || s.Every < 0 {
		return nil, fmt.Errorf("first profile after %v, then every %v: both must be positive", s.First, s.Every)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	// A directory soakd cannot write (/proc, say) is refused now, not
	// at the run's end when the first profile fails.
	probe, err := os.CreateTemp(dir, ".heap-probe-*")
	if err != nil {
		return nil, fmt.Errorf("%s cannot take profiles: %w", dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	// The table soakd appends to must be a plain file of its own: a
	// symlink planted there would make soakd (often root) append
	// wherever it points.
	if fi, err := os.Lstat(filepath.Join(dir, LiveFile)); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a symlink?): remove it or give another directory", filepath.Join(dir, LiveFile))
	}
	p := &Profiler{dir: dir, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop(s)
	return p, nil
}

func (p *Profiler) loop(s Schedule) {
	defer close(p.done)
	t := time.NewTimer(s.First)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.take("")
			if s.Every == 0 {
				<-p.stop
				return
			}
			t.Reset(s.Every)
		}
	}
}

// Stop takes the last profile (named with an -end suffix) and returns
// the paths written, in order, and the first error met on the way.
// Later calls return the same.
func (p *Profiler) Stop() ([]string, error) {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.take("-end")
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.written...), p.err
}

// Name is the file name of a profile taken at elapsed since Start:
// heap-01h05m00s.pb.gz, which sorts by time.
func Name(elapsed time.Duration, suffix string) string {
	s := int64(elapsed / time.Second)
	return fmt.Sprintf("heap-%02dh%02dm%02ds%s.pb.gz", s/3600, s/60%60, s%60, suffix)
}

// LiveFile is the name of the table of exact figures beside the
// profiles, in the profile directory.
const LiveFile = "heap-live.tsv"

// liveHeader is LiveFile's first line.
const liveHeader = "elapsed_s\tprofile\tlive_heap_bytes\theap_objects_bytes\truntime_total_bytes\tgoroutines\theap_released_bytes\n"

// liveMetrics are LiveFile's figures, in its column order. The runtime's
// total counts the address space it mapped, released pages included: the
// part it holds in memory is the total less the released heap.
var liveMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/total:bytes", "/sched/goroutines:goroutines", "/memory/classes/heap/released:bytes"}

// take writes one profile, through a temporary file renamed into place
// so a reader never sees half of one, and its line of LiveFile.
func (p *Profiler) take(suffix string) {
	elapsed := time.Since(p.start)
	name := Name(elapsed, suffix)
	path := filepath.Join(p.dir, name)
	err := writeHeap(path)
	if err == nil {
		err = p.appendLive(elapsed, name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		if p.err == nil {
			p.err = err
		}
		return
	}
	p.written = append(p.written, path)
}

func writeHeap(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".heap-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	runtime.GC()
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// appendLive adds the runtime's figures (read just after writeHeap's
// GC) to LiveFile, writing its header first when it is new.
func (p *Profiler) appendLive(elapsed time.Duration, name string) error {
	ss := make([]metrics.Sample, len(liveMetrics))
	for i, n := range liveMetrics {
		ss[i].Name = n
	}
	metrics.Read(ss)
	line := fmt.Sprintf("%.1f\t%s", elapsed.Seconds(), name)
	for _, s := range ss {
		var v uint64
		if s.Value.Kind() == metrics.KindUint64 {
			v = s.Value.Uint64()
		}
		line += fmt.Sprintf("\t%d", v)
	}
	path := filepath.Join(p.dir, LiveFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s is not a regular file", path)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		line = liveHeader + line
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
