package rundir

import (
	"strconv"
	"time"

	"github.com/soakd/soakd/internal/selfhealth"
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
