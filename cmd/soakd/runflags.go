package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/scenarios"
)

type runFlags struct {
	targets             targetList
	target, out, listen string
	// listenSet: --listen was given, so a taken port fails the run
	// instead of moving to a free one.
	listenSet       bool
	rate            float64
	duration        string
	rateSet         bool
	quiet           bool
	otlpEndpoint    string
	shard, startAt  string
	shardFromEnv    bool
	runID           string
	barrierTimeout  time.Duration
	seed            string
	warmup, records string
	tick            string
	concurrency     int
	swap            string
	repeat          int
	control         bool
	// force lets --out name a directory that already holds a run, and
	// --resume continue a run whose scenario, binary, target or host
	// changed.
	force bool
	// resume is the killed run's directory to continue ("" none).
	resume string
	// checkpointEvery spaces the run's checkpoints (0: runpath's default).
	checkpointEvery time.Duration
	heap            heapFlags
	sched           schedFlags
	mem             memFlags
	// variantTargets are several --target run as one run's variants
	// (with repeats: interleaved).
	variantTargets []scenarios.Target
}

// defaultListen is where /metrics goes unless --listen says otherwise.
const defaultListen = "127.0.0.1:9464"

// runFlagSet is `soakd run`'s flag set, bound to f: the one list of run
// flags, for parsing and for the help.
func runFlagSet(f *runFlags) *flag.FlagSet {
	fs := newFlagSet("run")
	fs.Var(&f.targets, "target", "target `URL` (redis://, mongodb://, http(s)://, cql://); overrides the scenario's. Repeated: the scenario runs once per target, in order, each into DIR/target-N, then the side-by-side table is printed")
	fs.Var(rateValue{&f.rate}, "rate", "override every phase's rate (`ops/s`, a plain number like 5000; 0 = closed loop)")
	fs.StringVar(&f.duration, "duration", "", "override every steady phase's duration (`D` with a unit: 30s, 5m, 12h)")
	fs.StringVar(&f.warmup, "warmup", "", "override every steady phase's warmup (`D`: 0s, 5s)")
	fs.StringVar(&f.tick, "tick", "", "send every open-loop phase's ops in ticks of `D` (1ms..1s, e.g. 20ms): the ops due in a tick are intended at its start and sent together, one wake-up a tick instead of one an op; 0s = each op at its own instant")
	fs.StringVar(&f.records, "records", "", "override keyspace.records and the records of load phases (`N`, e.g. 10000)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "override every phase's concurrency (`N` workers, at least 1)")
	fs.StringVar(&f.seed, "seed", "", "random seed for keys, values and op order (`N`; overrides the scenario's seed; each shard and worker derives its own stream from it)")
	fs.IntVar(&f.repeat, "repeat", 0, "run every steady phase and throughput sweep in `N` short rounds, the variants (persistence variants, several --target, sweep points) interleaved in each (overrides the scenario's repeat:)")
	fs.BoolVar(&f.control, "control", false, "with the side-by-side table at the end: also print the A/A control (A's rounds split in two halves against each other), the noise floor")
	fs.StringVar(&f.out, "out", "", "run `DIR` (default runs/<scenario>-<time>); a directory that already holds a run is refused unless --force")
	fs.BoolVar(&f.force, "force", false, "let --out write over a directory that already holds a run (its summary and latency logs are removed first); with --resume: resume even though the scenario file, the soakd binary, the target or the host changed")
	fs.StringVar(&f.resume, "resume", "", "continue the killed run in `DIR` from its checkpoint, on its absolute schedule (no scenario file: the run's own, with its flags); the ops due while it was down are counted lost")
	fs.DurationVar(&f.checkpointEvery, "checkpoint-every", runpath.DefaultCheckpointEvery, "write the run's checkpoint (what --resume continues from) every `D` (1s..10s): a kill loses at most about D of results, each checkpoint costs about 5 ms of CPU and 100 KB written")
	fs.StringVar(&f.listen, "listen", defaultListen, "`ADDR` for /metrics while running (empty = off; when the default port is taken, a free port is used and printed; a given ADDR that is taken fails the run)")
	fs.BoolVar(&f.quiet, "quiet", false, "print only the summary: no progress line and no start line (where the run was written, warnings and errors still go to stderr)")
	fs.StringVar(&f.otlpEndpoint, "otlp-endpoint", "", "send OpenTelemetry spans to this OTLP/HTTP traces `URL` (default: off unless OTEL_EXPORTER_OTLP_ENDPOINT is set)")
	fs.StringVar(&f.swap, "swap", "", "turn on a swapfile of this `SIZE` (e.g. 2gb) for the run, and off and delete it at the end, however the run ends (root)")
	fs.StringVar(&f.shard, "shard", "", "run shard `INDEX/COUNT` of the scenario (rate/COUNT, a disjoint slice of the load); default $SOAKD_SHARD, or $JOB_COMPLETION_INDEX/$SOAKD_SHARDS")
	fs.BoolVar(&f.shardFromEnv, "shard-from-env", false, "require the shard from $SOAKD_SHARD or $JOB_COMPLETION_INDEX and $SOAKD_SHARDS")
	fs.StringVar(&f.startAt, "start-at", "", "wait until this `RFC3339` time before starting (a shared start for all shards)")
	fs.StringVar(&f.runID, "run-id", "", "name of this run (`ID`), the same on every shard: shards wait for each other in the store before every phase (default $SOAKD_RUN_ID, else derived from --start-at)")
	f.heap.register(fs)
	f.sched.register(fs)
	f.mem.register(fs)
	fs.DurationVar(&f.barrierTimeout, "barrier-timeout", engine.DefaultBarrierTimeout, "give up when the other shards have not reached a phase barrier within this `D`")
	return fs
}

// targetList collects a repeated --target.
type targetList []string

func (l *targetList) String() string { return strings.Join(*l, ",") }

func (l *targetList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// checkCounts refuses a count flag given as zero or less: 0 is the
// flags' "not given" value, so without this `--concurrency 0` would be
// ignored without a word, where the scenario file refuses 0.
func checkCounts(fs *flag.FlagSet, f runFlags) error {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		switch {
		case err != nil:
		case fl.Name == "repeat" && f.repeat < 1:
			err = fmt.Errorf("--repeat %d: use a whole number in 1..100", f.repeat)
		case fl.Name == "checkpoint-every" && (f.checkpointEvery < time.Second || f.checkpointEvery > 10*time.Second):
			err = fmt.Errorf("--checkpoint-every %v: use 1s to 10s", f.checkpointEvery)
		case fl.Name == "concurrency" && f.concurrency < 1:
			err = fmt.Errorf("--concurrency %d: give at least 1 worker (leave the flag out to keep the scenario's)", f.concurrency)
		}
	})
	return err
}
