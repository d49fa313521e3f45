// Package selfhealth samples soakd's own health once an interval: its
// process CPU, the CPU of its busiest thread, the time its threads
// waited on a run queue (runnable, not running), and the host's 1-minute
// load and CPU steal. It reads /proc under an injectable root, so tests
// use fake files. It judges nothing: verdict.SelfAcc turns samples into
// a phase's record and says whether the phase was generator- or
// host-bound.
//
// The sampler runs every second for soaks of many hours, so it keeps its
// files open and reads each from offset 0 into one reused buffer
// (procfs regenerates a file read at offset 0): a sample allocates
// nothing unless a thread appeared since the last one.
package selfhealth

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// MinGap is the shortest time between two samples: /proc/self/stat
// counts CPU in 10 ms ticks, so a shorter interval's CPU is mostly
// rounding. A sample sooner than MinGap after the last is not taken.
const MinGap = 200 * time.Millisecond

// userHZ is the kernel's USER_HZ, the unit of /proc/self/stat's utime
// and stime: 100 on every Linux architecture soakd builds for.
const userHZ = 100

// Sample is one interval of soakd's and the host's health: rates over
// the interval since the previous sample.
type Sample struct {
	// CPU is soakd's process CPU (user + system) in CPU-seconds per
	// second: 1.5 = one and a half cores busy.
	CPU float64
	// ThreadCPUMax is the busiest thread's CPU in the same unit (at most
	// 1): a thread near 1 is a single-thread bottleneck.
	ThreadCPUMax float64
	// RunqueueDelay is the time soakd's threads spent runnable but not
	// running (waiting on a run queue), summed over threads, per second
	// of wall time: 0.2 = threads waited 200 ms in the last second.
	RunqueueDelay float64
	// Load1 is the host's 1-minute load average.
	Load1 float64
	// Steal is the share of the host's CPU time the hypervisor gave to
	// other guests (0..1).
	Steal float64
	// Threads is how many threads soakd has.
	Threads int
	// CPUSeconds and RunqueueDelaySeconds are soakd's totals since the
	// sampler started (Prometheus counters).
	CPUSeconds           float64
	RunqueueDelaySeconds float64
}

// thread is one of soakd's threads: its open schedstat and what it
// showed at the last sample.
type thread struct {
	f         *os.File
	run, wait uint64 // ns on a CPU, ns waiting on a run queue
	gen       uint64 // the last sample that saw it
}

// Sampler reads soakd's and the host's health. It is not safe for
// concurrent use: one goroutine samples.
type Sampler struct {
	root               string
	procStat, hostStat *os.File
	loadavg            *os.File
	taskDir            int // fd of proc/self/task, -1 when not open
	threads            map[uint64]*thread
	buf, dents         []byte
	gen                uint64
	last               time.Time
	primed             bool
	// What the last sample read: soakd's utime + stime, the host's
	// total and steal jiffies; and the run-queue wait so far (s).
	cpuTicks             uint64
	hostTotal, hostSteal uint64
	delayTotal           float64
}

// Open opens the files under root ("/" on a real host, a test's
// directory in tests). A file that cannot be opened leaves its figures
// at 0; Open fails only when none can.
func Open(root string) (*Sampler, error) {
	s := &Sampler{root: root, taskDir: -1, threads: map[uint64]*thread{}, buf: make([]byte, 4096), dents: make([]byte, 8192)}
	s.procStat, _ = os.Open(filepath.Join(root, "proc/self/stat"))
	s.hostStat, _ = os.Open(filepath.Join(root, "proc/stat"))
	s.loadavg, _ = os.Open(filepath.Join(root, "proc/loadavg"))
	if fd, err := unix.Open(filepath.Join(root, "proc/self/task"), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		s.taskDir = fd
	}
	if s.procStat == nil && s.hostStat == nil && s.loadavg == nil && s.taskDir < 0 {
		return nil, errors.New("selfhealth: nothing to read under " + filepath.Join(root, "proc"))
	}
	return s, nil
}

// Close closes the sampler's files.
func (s *Sampler) Close() {
	for _, f := range []*os.File{s.procStat, s.hostStat, s.loadavg} {
		if f != nil {
			f.Close()
		}
	}
	for tid, t := range s.threads {
		t.f.Close()
		delete(s.threads, tid)
	}
	if s.taskDir >= 0 {
		unix.Close(s.taskDir)
		s.taskDir = -1
	}
}

// Sample reads the files at now (the caller's clock) and returns the
// rates since the previous call; ok is false on the first call (it only
// sets the baseline) and when now is less than MinGap after the
// previous call (nothing is read then: the next sample covers it).
func (s *Sampler) Sample(now time.Time) (out Sample, ok bool) {
	if s.primed && now.Sub(s.last) < MinGap {
		return Sample{}, false
	}
	dt := now.Sub(s.last).Seconds()
	primed := s.primed
	s.last, s.primed = now, true

	if b := s.read(s.procStat); b != nil {
		if ticks, ok := procCPUTicks(b); ok {
			if primed && ticks >= s.cpuTicks && dt > 0 {
				out.CPU = float64(ticks-s.cpuTicks) / userHZ / dt
			}
			s.cpuTicks = ticks
			out.CPUSeconds = float64(ticks) / userHZ
		}
	}
	if b := s.read(s.loadavg); b != nil {
		out.Load1 = firstFloat(b)
	}
	if b := s.read(s.hostStat); b != nil {
		if total, steal, ok := hostCPU(b); ok {
			if primed && total > s.hostTotal && steal >= s.hostSteal {
				out.Steal = float64(steal-s.hostSteal) / float64(total-s.hostTotal)
			}
			s.hostTotal, s.hostSteal = total, steal
		}
	}
	var runMax, wait uint64
	out.Threads, runMax, wait = s.sampleThreads(primed)
	if primed && dt > 0 {
		out.ThreadCPUMax = float64(runMax) / 1e9 / dt
		out.RunqueueDelay = float64(wait) / 1e9 / dt
	}
	s.delayTotal += float64(wait) / 1e9
	out.RunqueueDelaySeconds = s.delayTotal
	return out, primed && dt > 0
}

// read reads f from offset 0 into the sampler's buffer (nil when f is
// not open or the read fails).
func (s *Sampler) read(f *os.File) []byte {
	if f == nil {
		return nil
	}
	n, err := f.ReadAt(s.buf, 0)
	if n == 0 && err != nil {
		return nil
	}
	return s.buf[:n]
}

// sampleThreads lists proc/self/task, opens the schedstat of each thread
// it has not seen, forgets the threads gone, and returns how many
// threads there are, the largest on-CPU time one of them gained and the
// run-queue wait they gained together (ns) since the last sample. A
// thread first seen counts from its start (on the first sample, not at
// all: that is the baseline).
func (s *Sampler) sampleThreads(primed bool) (n int, runMax, wait uint64) {
	if s.taskDir < 0 {
		return 0, 0, 0
	}
	s.gen++
	if _, err := unix.Seek(s.taskDir, 0, 0); err != nil {
		return 0, 0, 0
	}
	for {
		got, err := unix.Getdents(s.taskDir, s.dents)
		if err != nil || got <= 0 {
			break
		}
		for b := s.dents[:got]; len(b) >= 19; {
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			tid, ok := parseUint(name)
			if !ok {
				continue // "." and ".."
			}
			t := s.threads[tid]
			if t == nil {
				f, err := os.Open(filepath.Join(s.root, "proc/self/task", string(name), "schedstat"))
				if err != nil {
					continue
				}
				t = &thread{f: f}
				s.threads[tid] = t
				if !primed {
					// The baseline: what it did before is not this interval's.
					t.run, t.wait = schedstat(s.read(f))
				}
			}
			t.gen = s.gen
			run, w := schedstat(s.read(t.f))
			if run >= t.run {
				runMax = max(runMax, run-t.run)
			}
			if w >= t.wait {
				wait += w - t.wait
			}
			t.run, t.wait = run, w
			n++
		}
	}
	for tid, t := range s.threads {
		if t.gen != s.gen {
			t.f.Close()
			delete(s.threads, tid)
		}
	}
	return n, runMax, wait
}

// schedstat parses a schedstat line: ns on a CPU, ns waiting on a run
// queue, timeslices.
func schedstat(b []byte) (run, wait uint64) {
	f0, rest := nextField(b)
	f1, _ := nextField(rest)
	run, _ = parseUint(f0)
	wait, _ = parseUint(f1)
	return run, wait
}

// procCPUTicks is utime + stime (fields 14 and 15) of a /proc/<pid>/stat
// line, counted after the command name's closing parenthesis (the name
// may hold spaces).
func procCPUTicks(b []byte) (uint64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	rest := b[i+1:]
	var f []byte
	var sum uint64
	for k := 3; k <= 15; k++ {
		f, rest = nextField(rest)
		if f == nil {
			return 0, false
		}
		if k >= 14 {
			v, ok := parseUint(f)
			if !ok {
				return 0, false
			}
			sum += v
		}
	}
	return sum, true
}

// hostCPU is the total and the steal jiffies of /proc/stat's first
// line, "cpu user nice system idle iowait irq softirq steal ..." (guest
// time is already in user and nice).
func hostCPU(b []byte) (total, steal uint64, ok bool) {
	f, rest := nextField(b)
	if string(f) != "cpu" {
		return 0, 0, false
	}
	for k := 0; k < 8; k++ {
		f, rest = nextField(rest)
		v, good := parseUint(f)
		if !good {
			if k < 4 {
				return 0, 0, false
			}
			break // an old kernel without iowait, irq or steal
		}
		total += v
		if k == 7 {
			steal = v
		}
	}
	return total, steal, true
}

// firstFloat parses the first field of b (0 when it is not a number).
func firstFloat(b []byte) float64 {
	f, _ := nextField(b)
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil {
		return 0
	}
	return v
}

// nextField returns b's first space-separated field (nil when none) and
// what follows it; a newline ends the line.
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\n' {
		j++
	}
	if i == j {
		return nil, nil
	}
	if j < len(b) && b[j] == '\n' {
		return b[i:j], nil
	}
	return b[i:j], b[j:]
}

// parseUint parses a decimal without allocating.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
