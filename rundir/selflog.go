package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/soakd/soakd/internal/selfhealth"
	"github.com/soakd/soakd/regfile"
)

// SelfLog is the run's own-health log: one line per sample of soakd's
// own health (once an interval, and at each stage's and phase's end),
// what the phases' self records sum up. Best effort: a run whose log
// cannot be written has none.
const SelfLog = "self.csv"

// SelfLogHeader is SelfLog's first line: the sample's end (RFC 3339,
// UTC, milliseconds), soakd's CPU in cores, its busiest thread's, the
// seconds its threads waited on a run queue per second, the host's
// 1-minute load and CPU steal share, and soakd's threads.
const SelfLogHeader = "time,cpu_cores,thread_cpu_max,runqueue_delay_ratio,load1,steal,threads\n"

// AppendSelfLine appends the SelfLog line of sample s taken at at.
func AppendSelfLine(b []byte, at time.Time, s selfhealth.Sample) []byte {
	b = at.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	for _, v := range []float64{s.CPU, s.ThreadCPUMax, s.RunqueueDelay, s.Load1, s.Steal} {
		b = append(b, ',')
		b = strconv.AppendFloat(b, v, 'f', 4, 64)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Threads), 10)
	return append(b, '\n')
}

// SelfSample is one line of a run's SelfLog.
type SelfSample struct {
	At     time.Time
	Sample selfhealth.Sample
}

// ReadSelfLog reads dir's SelfLog (nil, nil when the run left none). A
// torn last line (a killed run) ends the read; any other bad line is an
// error naming the file and line.
func ReadSelfLog(dir string) ([]SelfSample, error) {
	path := filepath.Join(dir, SelfLog)
	b, err := regfile.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) == 0 || lines[0]+"\n" != SelfLogHeader {
		return nil, fmt.Errorf("%s:1: want the header %q", path, strings.TrimSpace(SelfLogHeader))
	}
	var out []SelfSample
	for i, line := range lines[1:] {
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		var v [5]float64
		ok := len(f) == 7
		var at time.Time
		var threads int
		if ok {
			at, err = time.Parse(time.RFC3339Nano, f[0])
			ok = err == nil
			for k := range v {
				v[k], err = strconv.ParseFloat(f[k+1], 64)
				ok = ok && err == nil
			}
			threads, err = strconv.Atoi(f[6])
			ok = ok && err == nil
		}
		if !ok {
			if i == len(lines)-2 && !strings.HasSuffix(string(b), "\n") {
				break // torn last line
			}
			return nil, fmt.Errorf("%s:%d: want %s, got %q", path, i+2, strings.TrimSpace(SelfLogHeader), line)
		}
		out = append(out, SelfSample{At: at, Sample: selfhealth.Sample{CPU: v[0], ThreadCPUMax: v[1], RunqueueDelay: v[2], Load1: v[3], Steal: v[4], Threads: threads}})
	}
	return out, nil
}
