#!/usr/bin/env bash
# soakd benchmark script: prints one line per measurement so runs can be
# compared across commits (redirect to a file and diff, or paste in notes).
#   bash bench/run.sh            # Go benchmarks + rate runs (30 s each)
#   DUR=10s bash bench/run.sh    # shorter runs
#   RSS=1 bash bench/run.sh      # also the RSS-flatness run (RSS_DUR s, default 600; see rss())
#   SHARDCOST=1 bash bench/run.sh    # also generator CPU cost per million ops (shard sizing)
#   SHARDCOST=only bash bench/run.sh # just that section (~40 s)
#   GROWTH=1 bash bench/run.sh   # also growth-persistence vs a 512mb redis-server (minutes)
#   GROWTH=only bash bench/run.sh    # just the growth-persistence goal run
#   SWAPCLIFF=1 bash bench/run.sh    # also a swap cliff: redis in a 256mb cgroup with a 2 GB swapfile (root; ~3 min)
#   SWAPCLIFF=only bash bench/run.sh # just that section
#   LAG=1 / LAG=only bash bench/run.sh   # schedule lag at 6000 and 50000 ops/s: soakd on one core
#                                        # (taskset -c 1, redis-server on CPU 0) and on two shared cores
#   SCRAPE=1 / SCRAPE=only bash bench/run.sh   # lag at 50000 ops/s on one core, without and with 200
#                                        # concurrent /metrics scrapers (goal: lag p99 < 2 ms with them)
#   OPEN500K=1 / OPEN500K=only bash bench/run.sh  # 500k GET/s open loop, then the highest rate held at p99 < 2 ms
#   CLOSED=1 bash bench/run.sh   # also closed-loop GET c=50 on one core vs redis-benchmark and memtier_benchmark
#   CLOSED=only bash bench/run.sh    # just that section (CLOSED_N requests per run, CLOSED_ROUNDS rounds,
#                                    # CLOSED_CONNS=1,10,50,200,1000 for the issue's one table)
#   RSS=only bash bench/run.sh   # just the memory-slope run: redis-server on CPU 0, soakd on CPU 1, RSS_RATE
#                                # (default 20000) ops/s for RSS_DUR (600) s, samples, heap profiles and
#                                # bench/rss_slope.py's slope after 5 min under RSS_OUT (default bench/out/rss)
#   DAEMONRSS=1 / DAEMONRSS=only bash bench/run.sh  # soakd serve's RSS and live heap per 100 of DAEMONRSS_RUNS (default 600)
#                                # consecutive 300 ms runs of one continuous soak (retention.max_runs 100; bench/daemonrss.py)
#   SOAKCPU=1 / SOAKCPU=only bash bench/run.sh  # soak CPU per op at 6,000 and 20,000 ops/s beside memtier_benchmark
#                                             # ($MEMTIER or PATH; bench/soakcpu.py) and at 250 ops/s; SOAKD_BASE=PATH adds
#                                             # another soakd build to the same rounds (before/after)
#   CUSTOM=1 / CUSTOM=only bash bench/run.sh  # custom op [GET, "{key}"] vs built-in get: soakd CPU per op at
#                                             # CUSTOM_RATE (default 50000) ops/s, and the Go render/op benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-30s}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
go build -o "$OUT/soakd" ./cmd/soakd
# One exit handler for everything the sections start: the redis-server
# of the rate runs and of the closed-loop section. (SWAPCLIFF's swapfile is
# soakd's own: run --swap.)
RPID= RDIR= CPID= CDIR=
bench_exit() {
  if [ -n "$RPID" ]; then kill "$RPID" 2>/dev/null || true; fi
  if [ -n "$RDIR" ]; then rm -rf "$RDIR"; fi
  if [ -n "$CPID" ]; then kill "$CPID" 2>/dev/null || true; fi
  if [ -n "$CDIR" ]; then rm -rf "$CDIR"; fi
}
trap bench_exit EXIT
trap 'bench_exit; exit 130' INT
trap 'bench_exit; exit 143' TERM
echo "# soakd bench $(git describe --always --dirty 2>/dev/null) $(date -u +%FT%TZ) $(nproc) cores"

# shardcost: generator CPU seconds per million ops at 20k/50k/100k/500k ops/s (SC_RATES)
# against a local redis-server, with the 500k scenario's YCSB A shape
# (10 x 100-byte fields, read/update 50/50). CPU is utime+stime of the
# soakd process from /proc/<pid>/stat, sampled 0.5 s into the steady
# phase and ~1.5 s before its end, so start-up and the load are not
# counted; ops in that window from soakd_ops_total on /metrics. Implied hosts: 2-core
# generator hosts for 500 kOps/s at 100% and at 70% CPU (headroom for the
# pacer and GC so the schedule holds).
shardcost() {
  command -v redis-server >/dev/null || { echo "shardcost: no redis-server"; return; }
  local port dir pid
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  dir=$(mktemp -d)
  redis-server --port "$port" --save '' --appendonly no --dir "$dir" --daemonize no >/dev/null &
  pid=$!
  for i in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  cat > "$OUT/shardcost.yaml" <<YAML
name: bench-shardcost
keyspace: {records: 20000, prefix: user, distribution: uniform}
record: {fields: 10, field_bytes: 100}
phases:
  - {name: load, kind: load, concurrency: 16}
  - {name: steady, kind: steady, rate: 20000, duration: 10s, concurrency: 128, max_lag: 1s, mix: {read: 50, update: 50}}
YAML
  echo "## shard cost: generator CPU per million ops (YCSB A shape, redis-server on this host)"
  SC_DUR=${SC_DUR:-10} python3 - "$OUT" "$port" <<'PY'
import json, math, os, socket, subprocess, sys, time, urllib.request
out, port = sys.argv[1], sys.argv[2]
dur = int(os.environ["SC_DUR"])
tck = os.sysconf("SC_CLK_TCK")
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck  # utime, stime
def steady_ops(mport, tries=1):
    # None when /metrics did not answer (a busy host can delay a scrape
    # for seconds): a failed scrape must not count as 0 ops.
    for _ in range(tries):
        try:
            body = urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=5).read().decode()
            break
        except OSError:
            time.sleep(0.1)
    else:
        return None
    return sum(float(l.rsplit(" ", 1)[1]) for l in body.splitlines()
               if l.startswith("soakd_ops_total{") and 'phase="steady"' in l)
results, cores_at, held, results_by_rate, measured = [], [], [], [], []
print(f"shardcost: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at start")
rates = tuple(int(r) for r in os.environ.get("SC_RATES", "20000 50000 100000 500000").split())
for rate in rates:
    d = f"{out}/shardcost-{rate}"
    subprocess.run(["rm", "-rf", d])
    s = socket.socket(); s.bind(("127.0.0.1", 0)); mport = s.getsockname()[1]; s.close()
    p = subprocess.Popen([f"{out}/soakd", "run", f"{out}/shardcost.yaml", "--target", f"redis://127.0.0.1:{port}",
                          "--rate", str(rate), "--duration", f"{dur}s", "--out", d, "--listen", f"127.0.0.1:{mport}", "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not steady_ops(mport) and p.poll() is None:  # wait out start-up and the load
        time.sleep(0.1)
    time.sleep(0.5)
    c0, n0, w0 = cpu(p.pid), steady_ops(mport, 3), time.monotonic()
    time.sleep(dur - 2)
    c1, n1, w1 = cpu(p.pid), steady_ops(mport, 3), time.monotonic()
    p.wait()
    if n0 is None or n1 is None or n1 <= n0:
        print(f"shardcost-{rate}: skipped: /metrics did not answer at the window's ends ({n0}, {n1})")
        continue
    st = [x for x in json.load(open(d + "/summary.json"))["phases"] if x["name"] == "steady"][0]
    per_m = (c1 - c0) / (n1 - n0) * 1e6
    results.append(per_m)
    results_by_rate.append((rate, per_m))
    measured.append(rate)
    cores_at.append((c1 - c0) / (w1 - w0))
    lat = st["ops"]["read"]["latency"]
    # held: the rate, no drops, and the 500k scenario's p99 SLO (10 ms) for reads
    if st["dropped"] == 0 and st["achieved_rate"] >= 0.99 * rate and lat["p99"] <= 0.010:
        held.append(rate)
    print(f"shardcost-{rate}: achieved={st['achieved_rate']:.0f}/s (completed in window) drain={st.get('drain_seconds', 0)*1e3:.1f}ms window {w1 - w0:.1f}s {n1 - n0:.0f} ops "
          f"cpu={c1 - c0:.2f}s ({(c1 - c0) / (w1 - w0):.2f} cores) = {per_m:.2f} cpu-s per million ops; "
          f"read p99={lat['p99'] * 1e3:.2f}ms dropped={st['dropped']} errors={st['errors']}")
# Cost per op falls with the per-host rate (more due ops per pipeline), so
# the host count depends on how much each host is asked to do.
for rate, per_m in results_by_rate:
    cores = 500000 * per_m / 1e6
    print(f"shardcost: at the cost measured at {rate // 1000}k ops/s ({per_m:.2f} cpu-s/Mop) 500 kOps/s needs {cores:.1f} generator cores: "
          f"{math.ceil(cores / 2)} two-core hosts at 100% CPU, {math.ceil(cores / 1.4)} at 70%")
# Fit cores = fixed + marginal * rate (pacer wake-ups, collector and idle
# workers cost about the same at any rate; the per-op part is small).
if len(measured) >= 2:
    mr, mc = sum(measured) / len(measured), sum(cores_at) / len(measured)
    b = sum((r - mr) * (c - mc) for r, c in zip(measured, cores_at)) / sum((r - mr) ** 2 for r in measured)
    a = mc - b * mr
    print(f"shardcost: fit cores = {a:.2f} + {b * 1e6:.2f} us/op x rate")
if held:
    best = max(held)
    print(f"shardcost: highest per-host rate that held (no drops, read p99 <= 10 ms, redis-server on the same host): {best // 1000}k ops/s "
          f"-> {math.ceil(500000 / best)} two-core hosts for 500 kOps/s")
else:
    print("shardcost: no measured rate held read p99 <= 10 ms here")
PY
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -rf "$dir"
}

# swapcliff: growth-persistence's shape (1 KB values, get/set/del at
# 5000 ops/s) against a managed redis-server with maxmemory 1gb
# noeviction inside a cgroup memory cap of 256mb that may swap 2gb, in
# 50k-record stages to 700k records (~800 MB): past ~200k records the
# server lives partly in swap. Needs root and swap: when the host has
# none, soakd run --swap 2gb makes a swapfile for the run and turns it off
# and removes it however the run ends. Prints the cliff stage next to the
# first stage whose server stats show swap in use.
swapcliff() {
  command -v redis-server >/dev/null || { echo "swapcliff: skipped: no redis-server"; return; }
  [ "$(id -u)" = 0 ] || { echo "swapcliff: skipped: needs root (swapon, cgroups)"; return; }
  echo "## swap cliff: redis-server in a 256mb cgroup with 2gb of swap, maxmemory 1gb noeviction"
  local swap=()
  if [ -z "$(swapon --show --noheadings)" ]; then
    swap=(--swap 2gb)
    echo "swapcliff: no host swap: soakd run --swap 2gb"
  else
    echo "swapcliff: using the host's swap: $(swapon --show --noheadings | tr '\n' ' ')"
  fi
  python3 - "$OUT/swapcliff.yaml" "${SWAPCLIFF_MEASURE:-5s}" <<'PY'
import re, sys
out, measure = sys.argv[1], sys.argv[2]
s = open("scenarios/growth-persistence.yaml").read()
s = s[s.index("name: growth-persistence"):]  # the scenario, not its comment
for a, b in [(r"name: growth-persistence", "name: swapcliff"),
             (r'persistences: \["rdb:300", "aof:everysec", none\]', "persistences: [none]"),
             (r"maxmemory: 4gb", "maxmemory: 1gb"),
             (r"maxmemory_policy: allkeys-lru", "maxmemory_policy: noeviction\n    cgroup_memory: 256mb\n    cgroup_swap: 2gb"),
             (r"(?m)^  records: 20000000", "  records: 700000"), (r"batch: 1000000", "batch: 50000"),
             (r"stop_records: 20000000", "stop_records: 700000"), (r"measure_for: 60s", "measure_for: " + measure)]:
    s, n = re.subn(a, b, s)
    assert n == 1, a
open(out, "w").write(s)
PY
  rm -rf "$OUT/swapcliff"
  local rc=0
  "$OUT/soakd" run "$OUT/swapcliff.yaml" "${swap[@]}" --out "$OUT/swapcliff" --listen "" --quiet >/dev/null 2>"$OUT/swapcliff.log" || rc=$?
  grep -i 'warning\|swapfile' "$OUT/swapcliff.log" | sed 's/^/swapcliff: /' || true
  if [ -f "$OUT/swapcliff/summary.json" ]; then
    grep '^memory limits:' "$OUT/swapcliff/summary.txt" | sed 's/^/swapcliff: /' || true
    python3 - "$OUT/swapcliff" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
for p in s["phases"]:
    st = p.get("stages", [])
    def swap(x):
        sv = x.get("server", {})
        return max(sv.get("process_swap_bytes", 0), sv.get("cgroup_swap_usage_bytes", 0))
    first = next((x for x in st if swap(x) > 0), None)
    c = p.get("cliff")
    cl = f'{c["stage"]} ({c["records"]} records, {c["reason"]} {c.get("op","")}; {"; ".join(c["signals"])})' if c else "none"
    sw = f'{first["name"]} ({first["records"]} records, {swap(first)/2**20:.1f} MB swapped)' if first else "never"
    print(f'swapcliff {p["name"]}: stages={len(st)} cliff={cl} first_swap={sw}')
    for x in st:
        sv = x.get("server", {})
        g = x.get("ops", {}).get("get", {}).get("latency", {})
        print(f'  {x["name"]}: records={x["records"]} get_p99={g.get("p99", 0)*1000:.2f}ms achieved={x["achieved_rate"]:.0f}/s '
              f'cgroup_usage={sv.get("cgroup_memory_usage_bytes", 0)/2**20:.0f}MB cgroup_swap={sv.get("cgroup_swap_usage_bytes", 0)/2**20:.0f}MB '
              f'process_swap={sv.get("process_swap_bytes", 0)/2**20:.0f}MB errors={x["errors"]}')
PY
  else
    echo "swapcliff: no summary (soakd exit $rc): $(tail -3 "$OUT/swapcliff.log")"
  fi
  local left; left=$(swapon --show --noheadings | tr '\n' ' ')
  echo "swapcliff: swap after the run: ${left:-off}"
}

growth() {
  command -v redis-server >/dev/null || { echo "growth: no redis-server"; return; }
  # growth-persistence against a managed redis-server capped at 512mb:
  # 100k-record stages of 1 KB values (the cap holds ~450k), every
  # persistence variant (the scenario's three plus aof:always); prints the
  # cliff stage next to the first stage where used_memory reached
  # maxmemory, whether they are within one stage, and each variant's run
  # time. With allkeys-lru the cliff is the get miss ratio jumping. GROWTH_MEASURE sets the measuring
  # time per stage (default 10s). Takes several minutes.
  echo "## growth-persistence, maxmemory 512mb"
  python3 - "$OUT/growth.yaml" "${GROWTH_MEASURE:-10s}" <<'PY'
import re, sys
out, measure = sys.argv[1], sys.argv[2]
s = open("scenarios/growth-persistence.yaml").read()
for a, b in [(r"maxmemory: 4gb", "maxmemory: 512mb"), (r"(?m)^  records: 20000000", "  records: 1500000"),
             (r"batch: 1000000", "batch: 100000"), (r"stop_records: 20000000", "stop_records: 1500000"),
             (r"measure_for: 60s", "measure_for: " + measure),
             (r'persistences: \["rdb:300", "aof:everysec", none\]', 'persistences: ["rdb:300", "aof:everysec", "aof:always", none]')]:
    s, n = re.subn(a, b, s)
    assert n == 1, a
open(out, "w").write(s)
PY
  rm -rf "$OUT/growth"
  "$OUT/soakd" run "$OUT/growth.yaml" --out "$OUT/growth" --listen "" --quiet >/dev/null 2>"$OUT/growth.log" || true
  python3 - "$OUT/growth" <<'PY'
import json, sys
from datetime import datetime
s = json.load(open(sys.argv[1] + "/summary.json"))
for p in s["phases"]:
    st = p.get("stages", [])
    full = next((x for x in st if x.get("server", {}).get("maxmemory_bytes", 0) > 0 and
                 x["server"].get("used_memory_bytes", 0) >= 0.95 * x["server"]["maxmemory_bytes"]), None)
    c = p.get("cliff")
    cl = f'{c["stage"]} ({c["records"]} records, {c["reason"]} {c.get("op","")}; {"; ".join(c["signals"])})' if c else "none"
    fl = f'{full["name"]} ({full["records"]} records)' if full else "never"
    apart = abs(c["stage_index"] - st.index(full)) if c and full else None
    ok = "yes" if apart is not None and apart <= 1 else "NO"
    secs = (datetime.fromisoformat(p["end"].replace("Z", "+00:00")) - datetime.fromisoformat(p["start"].replace("Z", "+00:00"))).total_seconds()
    print(f'growth {p["name"]}: stages={len(st)} cliff={cl} used_memory_at_maxmemory={fl} within_one_stage={ok} run_time={secs:.0f}s')
PY
  "$OUT/soakd" report "$OUT/growth" --html "$OUT/growth/report.html" >/dev/null 2>&1 && echo "growth report: $OUT/growth/report.html"
}

summarize() { # dir label; GOAL_LAG_US / GOAL_P99_MS add the goal ratios (<= 1 meets it)
  python3 - "$1" "$2" "${GOAL_LAG_US:-}" "${GOAL_P99_MS:-}" <<'PY'
import json, sys
d, label, glag, gp99 = sys.argv[1:5]
s = json.load(open(d + "/summary.json"))
p = [x for x in s["phases"] if x["name"] == "steady"][0]
tr, ar = p["target_rate"], p["achieved_rate"]
dev = (ar - tr) / tr * 100 if tr else 0
ops = " ".join(f'{op}:p50={o["latency"]["p50"]*1e3:.3f}ms,p99={o["latency"]["p99"]*1e3:.3f}ms,svc_p99={o["service"]["p99"]*1e3:.3f}ms' for op, o in sorted(p["ops"].items()))
ciw = p.get("completed_in_window", 0)
pct = f' ({ciw / p["scheduled"] * 100:.2f}% in window)' if p["scheduled"] else ""
goals = ""
if glag:
    goals += f' lag_p99/goal({glag}us)={p["lag"]["p99"] * 1e6 / float(glag):.2f}'
if gp99:
    worst = max(o["latency"]["p99"] for o in p["ops"].values())
    goals += f' p99/goal({gp99}ms)={worst * 1e3 / float(gp99):.2f}'
print(f'{label}: target={tr:.0f} achieved={ar:.1f} ({dev:+.3f}%) completed_in_window={ciw}/{p["scheduled"]}{pct} drain={p.get("drain_seconds", 0)*1e3:.1f}ms lag_p50={p["lag"]["p50"]*1e6:.0f}us lag_p99={p["lag"]["p99"]*1e6:.0f}us lag_p99.9={p["lag"]["p99.9"]*1e6:.0f}us lag_max={p["lag"]["max"]*1e3:.2f}ms dropped={p["dropped"]} errors={p["errors"]} {ops}{goals}')
PY
}

rate_run() { # label rate target-args...; PIN=CPUS runs soakd under taskset -c CPUS; BIN= another build; RT=1 under chrt -f 50
  local label=$1 rate=$2; shift 2
  local d="$OUT/$label" pin=()
  if [ -n "${PIN:-}" ]; then pin=(taskset -c "$PIN"); fi
  if [ -n "${RT:-}" ]; then pin=(chrt -f 50 "${pin[@]}"); fi
  rm -rf "$d"
  "${pin[@]}" "${BIN:-$OUT/soakd}" run "${SCEN:-bench/kv.yaml}" --rate "$rate" --duration "$DUR" --out "$d" --listen "" --quiet "$@" >/dev/null 2>"$d.log" || true
  if [ -f "$d/summary.json" ]; then summarize "$d" "$label"; else echo "$label: no summary: $(tail -1 "$d.log")"; fi
}

# start_redis [CPUS]: one redis-server for the rate sections (PORT, RPID,
# RDIR; bench_exit stops it), pinned to CPUS when given.
start_redis() {
  PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  RDIR=$(mktemp -d)
  local pin=()
  if [ -n "${1:-}" ]; then pin=(taskset -c "$1"); fi
  "${pin[@]}" redis-server --port "$PORT" --save '' --appendonly no --dir "$RDIR" --daemonize no >/dev/null &
  RPID=$!
  for i in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
}
stop_redis() {
  if [ -n "$RPID" ]; then kill "$RPID" 2>/dev/null || true; wait "$RPID" 2>/dev/null || true; fi
  if [ -n "$RDIR" ]; then rm -rf "$RDIR"; fi
  RPID= RDIR=
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# lag: schedule lag (actual send - intended start) at 6000 and 50000
# ops/s (bench/kv.yaml, GET/SET 90/10) against a local redis-server,
# first with soakd on one core (taskset -c 1) and redis-server on CPU 0,
# then with both on both cores (LAG_CORES=1core: one core only). Goals:
# lag p99 < 0.2 ms at 6000 ops/s and < 0.5 ms at 50000, printed as the
# ratio p99/goal (<= 1 meets it), and lag p99.9 < 0.5 ms at both.
# SOAKD_BASE=PATH runs that build too, interleaved with this one
# (A,B,A,B) for LAG_ROUNDS rounds (default 1): label suffix -base.
# LAG_TICK="20ms 5ms" adds, after each run, the same with --tick D for
# each D (label suffix -tickD): arrivals in ticks.
# LAG_SLICE="100us 1ms" adds, after each run, the same with
# --sched-slice D for each D (label suffix -sliceD; soakd's default is
# the kernel's own slice).
# LAG_RELEASE="1s" adds, after each run, the same with
# --release-memory-every D for each D (label suffix -releaseD; soakd's
# default is 10s).
# LAG_RT=1 (root) runs soakd and redis-server SCHED_FIFO (chrt -f 50):
# on a host shared with other work, the lag is then soakd's own, not
# the other processes' turn on its CPU.
lag() {
  command -v redis-server >/dev/null || { echo "lag: no redis-server"; return; }
  echo "## schedule lag (${LAG_DUR:-$DUR} per run; load average before each run${LAG_RT:+; soakd and redis-server SCHED_FIFO})"
  start_redis 0
  if [ -n "${LAG_RT:-}" ]; then chrt -f -p 50 "$RPID"; fi
  local rate cores round bin
  local bins=("$OUT/soakd")
  if [ -n "${SOAKD_BASE:-}" ]; then bins+=("$SOAKD_BASE"); fi
  for cores in ${LAG_CORES:-1core 2core}; do
    if [ "$cores" = 2core ]; then taskset -pc 0,1 "$RPID" >/dev/null; fi
    for rate in 6000 50000; do
      for round in $(seq "${LAG_ROUNDS:-1}"); do
        for bin in "${bins[@]}"; do
          for tick in 0 ${LAG_TICK:-}; do
            for extra in default $(for d in ${LAG_SLICE:-}; do echo "sched-slice=$d"; done) $(for d in ${LAG_RELEASE:-}; do echo "release-memory-every=$d"; done); do
              if [ "$extra" != default ] && [ "$bin" != "$OUT/soakd" ]; then continue; fi
              local flag=() suffix=
              if [ "$extra" != default ]; then
                flag=("--${extra%%=*}" "${extra#*=}")
                suffix=-$([ "${extra%%=*}" = sched-slice ] && echo slice || echo release)${extra#*=}
              fi
              echo "load average $(loadavg)"
              RT=${LAG_RT:-} BIN=$bin PIN=$([ "$cores" = 1core ] && echo 1) GOAL_LAG_US=$([ "$rate" = 6000 ] && echo 200 || echo 500) DUR=${LAG_DUR:-$DUR} \
                rate_run "lag-$cores-$rate$([ "$bin" = "$OUT/soakd" ] || echo -base)$([ "$tick" = 0 ] || echo "-tick$tick")$suffix" "$rate" --target "redis://127.0.0.1:$PORT" \
                $([ "$tick" = 0 ] || echo "--tick $tick") "${flag[@]}"
            done
          done
        done
      done
    done
  done
  stop_redis
}

# scrape: schedule lag at 50000 ops/s (bench/kv.yaml) with soakd on one
# core (taskset -c 1) and redis-server on CPU 0, first with nobody
# scraping, then with 200 scrapers (threads on CPU 0, keep-alive,
# gzip, each asking again as soon as it has its answer) on --listen.
# /metrics is rendered once per interval and served from cached bytes,
# at most 4 scrapes at once: goal lag p99 < 2 ms with the scrapers.
scrape() {
  command -v redis-server >/dev/null || { echo "scrape: no redis-server"; return; }
  echo "## schedule lag with 200 concurrent /metrics scrapers (${SCRAPE_DUR:-20s} per run, soakd on one core)"
  start_redis 0
  local d="$OUT/scrape-quiet" mport spid
  echo "load average $(loadavg)"
  PIN=1 GOAL_LAG_US=2000 DUR=${SCRAPE_DUR:-20s} rate_run scrape-none-50000 50000 --target "redis://127.0.0.1:$PORT"
  d="$OUT/scrape-200-50000"
  rm -rf "$d"
  mport=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  echo "load average $(loadavg)"
  taskset -c 1 "$OUT/soakd" run bench/kv.yaml --rate 50000 --duration "${SCRAPE_DUR:-20s}" --out "$d" --listen "127.0.0.1:$mport" --quiet \
    --target "redis://127.0.0.1:$PORT" >/dev/null 2>"$d.log" &
  spid=$!
  taskset -c 0 python3 - "$mport" "$spid" <<'PY'
import http.client, os, sys, threading, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
codes, lock, stop = {}, threading.Lock(), threading.Event()
def alive():
    try:
        os.kill(pid, 0); return True
    except OSError:
        return False
def scraper():
    c = None
    while not stop.is_set():
        try:
            if c is None:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", "/metrics", headers={"Accept-Encoding": "gzip"})
            r = c.getresponse(); r.read(); code = r.status
        except OSError:
            code, c = "error", None
            time.sleep(0.05)
        with lock:
            codes[code] = codes.get(code, 0) + 1
for _ in range(200):
    threading.Thread(target=scraper, daemon=True).start()
t0 = time.monotonic()
while alive():
    time.sleep(0.2)
stop.set()
el = time.monotonic() - t0
print("scrape-200: " + " ".join(f"{k}={v}" for k, v in sorted(codes.items(), key=str)) + f" over {el:.0f}s ({codes.get(200, 0) / el:.0f} served/s)")
PY
  wait "$spid" || true
  if [ -f "$d/summary.json" ]; then GOAL_LAG_US=2000 summarize "$d" scrape-200-50000; else echo "scrape-200-50000: no summary: $(tail -1 "$d.log")"; fi
  stop_redis
}

# open500k: GET at 500,000 ops/s open loop against a redis-server on the
# same host (bench/get.yaml), then a capacity search (GET, p99 from
# intended start < 2 ms, achieved >= 99%, nothing dropped) for the
# highest rate this host holds; redis-benchmark's pipelined GET rate on
# the same server is printed next to them as the host's ceiling. With
# PIN=CPUS every client (soakd's runs and its capacity search,
# redis-benchmark, memtier_benchmark) runs under taskset -c CPUS and
# redis-server on the other CPU (PIN=1: soakd on CPU 1, redis on CPU 0);
# RT=1 (root) runs soakd and redis-server SCHED_FIFO (chrt -f 50), so on
# a host shared with other work the search finds what soakd holds, not
# what the other processes leave it.
open500k() {
  command -v redis-server >/dev/null || { echo "open500k: no redis-server"; return; }
  echo "## open loop GET at 500000 ops/s ($DUR), then the highest rate held at p99 < 2 ms${PIN:+ (clients on CPU $PIN, redis-server on CPU $([ "$PIN" = 0 ] && echo 1 || echo 0))}"
  local cpin=()
  if [ -n "${PIN:-}" ]; then
    cpin=(taskset -c "$PIN")
    start_redis "$([ "$PIN" = 0 ] && echo 1 || echo 0)"
  else
    start_redis
  fi
  if [ -n "${RT:-}" ]; then
    cpin=(chrt -f 50 "${cpin[@]}")
    chrt -f -p 50 "$RPID"
    echo "soakd, redis-server and the other clients SCHED_FIFO (RT=1)"
  fi
  local i
  for i in $(seq "${OPEN500K_RUNS:-1}"); do
    echo "load average $(loadavg)"
    GOAL_P99_MS=5 SCEN=bench/get.yaml rate_run "open500k-$i" 500000 --target "redis://127.0.0.1:$PORT"
  done
  cat > "$OUT/open-capacity.yaml" <<YAML
name: bench-open-capacity
keyspace: {records: 10000}
record: {fields: 1, field_bytes: 3}
phases:
  - {name: load, kind: load, concurrency: 16, mix: {set: 100}}
  - name: capacity
    kind: capacity
    concurrency: 64
    max_lag: 1s
    mix: {get: 100}
    capacity: {start: ${CAP_START:-100000}, factor: 2, max: ${CAP_MAX:-800000}, step_duration: ${CAP_STEP:-5s}, precision: 0.1}
slo:
  latency: {"*": {p99: 2ms}}
  min_achieved_ratio: 0.99
  max_dropped_ratio: 0
YAML
  echo "load average $(loadavg)"
  rm -rf "$OUT/open-capacity"
  "${cpin[@]}" "$OUT/soakd" run "$OUT/open-capacity.yaml" --target "redis://127.0.0.1:$PORT" --out "$OUT/open-capacity" --listen "" --quiet >/dev/null 2>"$OUT/open-capacity.log" || true
  local held
  held=$(python3 - "$OUT/open-capacity" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1] + "/summary.json"))
except OSError:
    print(0); sys.exit()
p = [x for x in s["phases"] if x["name"] == "capacity"][0]
c = p.get("capacity") or {}
for pt in c.get("curve", []):
    why = "" if pt["passed"] else " failed: " + "; ".join(pt.get("failed", []))
    print(f'open-capacity probe: rate={pt["rate"]:.0f} achieved={pt["achieved"]:.0f} get_p99={pt["p99"].get("get", 0)*1e3:.2f}ms held={pt["passed"]}{why}', file=sys.stderr)
print(f'{c.get("highest_rate_held", 0):.0f}')
PY
)
  echo "open-capacity: highest rate held at GET p99 < 2 ms (achieved >= 99%, 0 dropped): $held ops/s"
  echo "load average $(loadavg)"
  local rb
  rb=$("${cpin[@]}" redis-benchmark -p "$PORT" -c 50 -P 16 -n 2000000 -t get -q | tr '\r' '\n' | grep -E '^GET' | tail -1 | awk '{print $2}')
  echo "redis-benchmark -c 50 -P 16 GET: ${rb:-?} requests/s (closed loop, pipelined: the server's ceiling on this host)"
  python3 -c "import sys; rb, h = float(sys.argv[1] or 0), float(sys.argv[2] or 0)
print(f'ratios: 500k/redis-benchmark={500000/rb:.2f} held/redis-benchmark={h/rb:.2f}' if rb else 'ratios: no redis-benchmark figure')" "${rb:-0}" "${held:-0}"
  if command -v "${MEMTIER:-memtier_benchmark}" >/dev/null; then
    "${cpin[@]}" "${MEMTIER:-memtier_benchmark}" -p "$PORT" --ratio 0:1 -c 10 -t 2 --pipeline 16 --test-time 10 --hide-histogram 2>/dev/null | grep -E '^Gets|^Totals' | sed 's/^/memtier_benchmark: /'
  else
    echo "memtier_benchmark: not installed"
  fi
  stop_redis
}

# rss: soakd's resident memory over a long open-loop run of bench/rss.yaml
# (read/update 50/50, 100 B values) at RSS_RATE ops/s (default 20000) for
# RSS_DUR seconds (default 600) with RSS_CONNS connections (default 32):
# redis-server on CPU 0 (taskset -c 0), soakd on CPU 1 (RSS_EMBEDDED=1:
# the embedded store instead, soakd unpinned), both under nice -n
# RSS_NICE (default 0). Every 10 s on average RSS_OUT/samples.tsv (default
# $OUT/rss) gets soakd's VmRSS, its Go heap figures from /metrics and the
# load average (RSS_OUT/classes.tsv: the runtime's memory classes and
# smaps' heap arena against other anonymous mappings, same times); soakd writes heap profiles (--heap-profile) at 5 min,
# every RSS_HEAP_EVERY (default 30m) and at the end into RSS_OUT/heap
# (one sample per RSS_HEAP_RATE bytes allocated, default Go's 524288;
# RSS_HEAP_EVERY=off: none, and the runtime's profiler stays off).
# bench/rss_slope.py then prints the least-squares slope after the first
# 5 minutes (goal < 5 kB/min) and what grew between the 5-minute and the
# end heap profile; re-run it on RSS_OUT later: python3 bench/rss_slope.py RSS_OUT
rss() {
  local rate=${RSS_RATE:-20000} dur=${RSS_DUR:-600} conns=${RSS_CONNS:-32} out=${RSS_OUT:-$OUT/rss}
  local nice=(nice -n "${RSS_NICE:-0}") pin=() target=() what=embedded port
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  rm -rf "$out/run" "$out/heap" "$out/samples.tsv" "$out/classes.tsv" "$out/soakd.log" && mkdir -p "$out"
  if [ "${RSS_EMBEDDED:-0}" != 1 ]; then
    command -v redis-server >/dev/null || { echo "rss: no redis-server (RSS_EMBEDDED=1 runs against the embedded store)"; return; }
    RDIR=$(mktemp -d)
    PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
    "${nice[@]}" taskset -c 0 redis-server --port "$PORT" --save '' --appendonly no --dir "$RDIR" --daemonize no >/dev/null &
    RPID=$!
    for i in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
    pin=(taskset -c 1) target=(--target "redis://127.0.0.1:$PORT") what="redis-server on CPU 0, soakd on CPU 1"
  fi
  # RSS_HEAP_EVERY=off: no heap profiles, so the runtime's profiler is
  # off as in a run without --heap-profile (its tables grow the RSS).
  local prof=(--heap-profile "$out/heap" --heap-profile-every "${RSS_HEAP_EVERY:-30m}" --heap-profile-rate "${RSS_HEAP_RATE:-524288}")
  if [ "${RSS_HEAP_EVERY:-}" = off ]; then prof=(); fi
  echo "## RSS over a ${dur}s run at $rate ops/s, $conns connections ($what, nice ${RSS_NICE:-0}); $out; load average $(loadavg)"
  "${nice[@]}" "${pin[@]}" timeout $((dur + 900)) "$OUT/soakd" run bench/rss.yaml "${target[@]}" --rate "$rate" --duration "${dur}s" \
    --concurrency "$conns" --out "$out/run" --force --listen "127.0.0.1:$port" --quiet \
    "${prof[@]}" --release-memory-every "${RSS_RELEASE:-10s}" >"$out/soakd.log" 2>&1 &
  local spid=$! t0 now pid= rss heap metrics
  t0=$(date +%s.%N)
  # timeout runs soakd as its child: sample that process, not timeout.
  for i in $(seq 50); do pid=$(pgrep -P "$spid" -x soakd | head -1 || true); [ -n "$pid" ] && break; sleep 0.1; done
  printf 't_s\trss_kb\theap_alloc\theap_inuse\tnext_gc\tload1\trss_anon_kb\trss_file_kb\n' >"$out/samples.tsv"
  while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do
    # 5-15 s at random, 10 on average: a fixed period near a multiple of
    # --release-memory-every would read the RSS sawtooth at a phase that
    # drifts slowly, and the drift would show as a slope.
    sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 5 + 10 * rand() }')"
    now=$(date +%s.%N)
    # VmRSS, then its anonymous (heap, stacks) and file-backed (the
    # binary's pages read in so far) parts.
    rss=$(awk '/^VmRSS/{v=$2} /^RssAnon/{a=$2} /^RssFile/{f=$2} END{if (v != "") print v, a, f}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] || break
    set -- $rss
    # Under set -e and pipefail a scrape that times out on a busy host
    # must not end the script (its exit trap would stop redis-server).
    # One scrape a sample, for both tables.
    metrics=$(curl -s -m 5 "127.0.0.1:$port/metrics" || true)
    heap=$(printf '%s\n' "$metrics" | awk '/^go_memstats_heap_alloc_bytes /{a=$2} /^go_memstats_heap_inuse_bytes /{i=$2} /^go_memstats_next_gc_bytes /{n=$2} END{printf "%.0f\t%.0f\t%.0f", a, i, n}')
    local ts
    ts=$(awk -v a="$now" -v b="$t0" 'BEGIN{printf "%.1f", a - b}')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ts" "$1" "$heap" "$(cut -d' ' -f1 /proc/loadavg)" "$2" "$3" >>"$out/samples.tsv"
    # Where the memory is, one long-format row per figure: the runtime's
    # classes (go_memstats_*: heap idle/released/in use, stacks, span and
    # cache metadata, GC metadata, profiling buckets, other), threads,
    # goroutines, and from smaps the resident pages of the heap arena
    # (anonymous mappings at 0x100000000-0x7f0000000000) against the
    # process's other anonymous mappings (the runtime's off-heap data).
    { printf '%s\n' "$metrics" | awk -v t="$ts" '/^go_(memstats_[a-z_]+_bytes|threads|goroutines) /{print t "\t" $1 "\t" $2}'
      awk -v t="$ts" 'function hex(h,  i, c, n) { n = 0; for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)) - 1; n = n * 16 + c } return n }
        /^[0-9a-f]+-[0-9a-f]+ / { split($1, r, "-"); lo = hex(r[1]); anon = ($6 == "" || $6 ~ /^\[(heap|stack)/); next }
        /^Rss:/ { if (anon) { if (lo >= 4294967296 && lo < 139637976727552) arena += $2; else other += $2 } }
        END { print t "\tsmaps_arena_rss_kb\t" arena + 0; print t "\tsmaps_other_anon_rss_kb\t" other + 0 }' "/proc/$pid/smaps" 2>/dev/null || true
    } >>"$out/classes.tsv"
  done
  wait "$spid" || true
  if [ -n "$RPID" ]; then stop_redis; fi
  python3 bench/rss_slope.py "$out" || true
  if [ -f "$out/run/summary.json" ]; then summarize "$out/run" "rss-$rate"; else echo "rss: no summary: $(tail -2 "$out/soakd.log")"; fi
}

# daemonrss: the daemon's memory over many short scheduled runs: soakd
# serve with one continuous soak of a 300 ms embedded-target run (pause
# 100ms, retention.max_runs 100) until DAEMONRSS_RUNS runs have finished
# (default 600, ~4-5 min); RSS and the live heap after GC per 100 runs
# after the first 50 and their slopes per run (bench/daemonrss.py; its
# files under DAEMONRSS_OUT, default $OUT/daemonrss).
daemonrss() {
  local out=${DAEMONRSS_OUT:-$OUT/daemonrss}
  echo "## daemon memory over ${DAEMONRSS_RUNS:-600} short runs; load average $(loadavg)"
  mkdir -p "$out"
  python3 bench/daemonrss.py "$OUT/soakd" "$out" --runs "${DAEMONRSS_RUNS:-600}" --heap-every "${DAEMONRSS_HEAP_EVERY:-1m}"
  echo "load average at the end: $(loadavg)"
}

# closed: closed-loop GET with 50 connections on one core. redis-server
# runs on CPU 0 (taskset -c 0), each generator on CPU 1: soakd (the fast
# RESP path, and go-redis for comparison), redis-benchmark -t get -c 50
# -P 1 and memtier_benchmark --ratio 0:1 -c 50 -t 1 ($MEMTIER or PATH;
# left out when not found). All GET the same 10,000 keys of 3-byte values
# loaded beforehand, CLOSED_N requests each; the keyspace hit ratio from
# INFO shows they all hit. ops/s is each tool's own figure (soakd: the
# steady phase's achieved rate); CPU is the generator process's
# utime+stime (wait4), start-up included, per million requests.
closed() {
  command -v redis-server >/dev/null || { echo "closed: no redis-server"; return; }
  command -v redis-benchmark >/dev/null || { echo "closed: no redis-benchmark"; return; }
  local port memtier
  memtier=${MEMTIER:-$(command -v memtier_benchmark || true)}
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  # CPID/CDIR: the exit handler stops this server on every exit path.
  CDIR=$(mktemp -d)
  taskset -c 0 redis-server --port "$port" --save '' --appendonly no --dir "$CDIR" --daemonize no >/dev/null &
  CPID=$!
  for i in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  cat > "$OUT/closed-load.yaml" <<YAML
name: bench-closed-load
keyspace: {records: 10000}
record: {fields: 1, field_bytes: 3}
phases:
  - {name: load, kind: load, concurrency: 16, mix: {set: 100}}
YAML
  echo "## closed loop GET at ${CLOSED_CONNS:-50} connections, one core (redis-server on CPU 0, generators on CPU 1)"
  "$OUT/soakd" run "$OUT/closed-load.yaml" --target "redis://127.0.0.1:$port" --out "$OUT/closed-load" --listen "" --quiet >/dev/null 2>&1
  python3 - "$OUT" "$port" "$memtier" "${CLOSED_N:-500000}" "${CLOSED_ROUNDS:-2}" "${CLOSED_CONNS:-50}" <<'PY'
import json, os, re, shutil, subprocess, sys, time
out, port, memtier, n, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
conns = [int(c) for c in sys.argv[6].split(",")]
for c in conns:
    for proto in ("fast", "goredis"):
        with open(f"{out}/closed-{proto}-c{c}.yaml", "w") as f:
            f.write(f"""name: bench-closed-get
target: {{kind: redis, client: {{protocol: {proto}}}}}
keyspace: {{records: 10000}}
record: {{fields: 1, field_bytes: 3}}
phases:
  - {{name: steady, kind: steady, rate: 0, requests: {n}, concurrency: {c}, mix: {{get: 100}}}}
""")
def cli(*a):
    return subprocess.run(["redis-cli", "-p", port, *a], capture_output=True, text=True, check=True).stdout
# redis-benchmark -r 10000 GETs key:<12 digits>, memtier memtier-1..10000.
pipe = "".join(f"SET key:{i:012d} xxx\r\nSET memtier-{i+1} xxx\r\n" for i in range(10000))
subprocess.run(["redis-cli", "-p", port, "--pipe"], input=pipe, text=True, capture_output=True, check=True)
print(f"closed: {int(cli('dbsize'))} keys; {n} GETs per run; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at start"
      " (a shared host: other work competes for both cores; there ops/s favour soakd's several threads"
      " over the single-threaded tools, and CPU-s per million is the fairer figure)")
def hits():
    st = dict(l.split(":", 1) for l in cli("info", "stats").splitlines() if ":" in l)
    return int(st["keyspace_hits"]), int(st["keyspace_misses"])
def run(argv):
    h0, m0 = hits()
    t0 = time.monotonic()
    p = subprocess.Popen(["taskset", "-c", "1", *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    text = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    h1, m1 = hits()
    cpu = ru.ru_utime + ru.ru_stime
    return text, cpu, wall, h1 - h0, m1 - m0
tools = [("soakd", None), ("soakd-goredis", None), ("redis-benchmark", None)]
if memtier:
    tools.append(("memtier_benchmark", None))
else:
    print("closed: memtier_benchmark not found (set MEMTIER=path): no memtier ratio")
table = {}
for c, r in [(c, r) for r in range(1, rounds + 1) for c in conns]:
    res = {}
    for name, _ in tools:
        if name.startswith("soakd"):
            proto = "goredis" if name.endswith("goredis") else "fast"
            d = f"{out}/closed-{proto}-c{c}"
            shutil.rmtree(d, ignore_errors=True)
            text, cpu, wall, h, m = run([f"{out}/soakd", "run", f"{out}/closed-{proto}-c{c}.yaml", "--target", f"redis://127.0.0.1:{port}",
                                         "--out", d, "--listen", "", "--quiet"])
            try:
                ph = [x for x in json.load(open(d + "/summary.json"))["phases"] if x["name"] == "steady"][0]
                ops, done = ph["achieved_rate"], ph.get("completed_in_window", 0)
                extra = f" errors={ph['errors']} p50={ph['ops']['get']['latency']['p50']*1e3:.3f}ms p99={ph['ops']['get']['latency']['p99']*1e3:.3f}ms"
            except (OSError, KeyError, IndexError, ValueError) as e:
                print(f"closed {name}: no summary ({e}): {text[-300:]}")
                continue
        elif name == "redis-benchmark":
            text, cpu, wall, h, m = run(["redis-benchmark", "-p", port, "-t", "get", "-c", str(c), "-n", str(n), "-P", "1", "-r", "10000", "-q"])
            g = re.findall(r"GET: ([0-9.]+) requests per second", text.replace("\r", "\n"))
            if not g:
                print(f"closed {name}: no figure: {text[-300:]}")
                continue
            ops, done, extra = float(g[-1]), n, ""
        else:
            per = max(n // c, 1)
            text, cpu, wall, h, m = run([memtier, "-s", "127.0.0.1", "-p", port, "--protocol", "redis", "-c", str(c), "-t", "1",
                                         "-n", str(per), "--ratio", "0:1", "--key-pattern", "R:R", "--key-minimum", "1",
                                         "--key-maximum", "10000", "--hide-histogram", "--distinct-client-seed"])
            g = re.findall(r"^Totals\s+([0-9.]+)", text, re.M)
            if not g:
                print(f"closed {name}: no figure: {text[-300:]}")
                continue
            ops, done, extra = float(g[-1]), per * c, ""
        res[name] = ops
        table.setdefault((c, name), []).append(ops)
        print(f"closed round {r} c={c} {name}: ops/s={ops:.0f} cpu_s_per_million={cpu / max(done, 1) * 1e6:.1f} cpu={cpu:.2f}s wall={wall:.1f}s"
              f" requests={done} hit_ratio={h / max(h + m, 1):.4f}{extra}")
    line = [f"closed round {r} c={c} ratios:"]
    if "soakd" in res and "redis-benchmark" in res:
        line.append(f"soakd/redis-benchmark={res['soakd'] / res['redis-benchmark']:.2f} (goal >= 1.1)")
    if "soakd" in res and "memtier_benchmark" in res:
        line.append(f"soakd/memtier={res['soakd'] / res['memtier_benchmark']:.2f} (goal >= 1.0)")
    if "soakd" in res and "soakd-goredis" in res:
        line.append(f"fast/goredis={res['soakd'] / res['soakd-goredis']:.2f}")
    print(" ".join(line), f"load average {os.getloadavg()[0]:.1f}")
# One table: the median over rounds of each tool's ops/s at each
# connection count, and soakd over memtier (goal >= 1 at every count).
names = [name for name, _ in tools]
print("closed table (median ops/s over rounds): conns | " + " | ".join(names) + (" | soakd/memtier" if memtier else ""))
for c in conns:
    med = {}
    for name in names:
        v = sorted(table.get((c, name), []))
        med[name] = v[len(v) // 2] if v else float("nan")
    row = f"closed table: {c} | " + " | ".join(f"{med[name]:.0f}" for name in names)
    if memtier:
        row += f" | {med['soakd'] / med['memtier_benchmark']:.2f}"
    print(row)
PY
  kill "$CPID" 2>/dev/null || true
  wait "$CPID" 2>/dev/null || true
  rm -rf "$CDIR"
  CPID= CDIR=
}

# custom: the cost of a custom op against the built-in it mirrors. The
# same open-loop GET run at CUSTOM_RATE ops/s for DUR, once with the
# built-in get and once with the custom op [GET, "{key}"] (miss_when: nil,
# like get: the keys are absent, so both count misses), against one
# redis-server; soakd's CPU (user+system of the process, from getrusage)
# per completed op, and the ratio custom/built-in (goal <= 1.2). Then the
# Go benchmarks: rendering the compiled template (0 allocs/op) and
# BenchmarkCustomGet next to BenchmarkGet/fast (cpu-ns/op).
custom() {
  command -v redis-server >/dev/null || { echo "custom: no redis-server"; return; }
  echo "## custom op vs built-in get (${CUSTOM_RATE:-50000} ops/s, $DUR each)"
  start_redis
  local kind
  for kind in builtin custom; do
    local mix='{get: 100}' ops=''
    if [ "$kind" = custom ]; then mix='{cget: 100}'; ops='ops: {cget: {redis: [GET, "{key}"], miss_when: nil}}'; fi
    cat > "$OUT/custom-$kind.yaml" <<YAML
name: bench-custom-$kind
keyspace: {records: 10000}
$ops
phases:
  - {name: steady, kind: steady, rate: ${CUSTOM_RATE:-50000}, duration: $DUR, concurrency: 64, max_lag: 1s, mix: $mix}
YAML
    rm -rf "$OUT/custom-$kind"
    python3 - "$OUT/soakd" run "$OUT/custom-$kind.yaml" --target "redis://127.0.0.1:$PORT" --out "$OUT/custom-$kind" --listen "" --quiet <<'PY' > "$OUT/custom-$kind.cpu"
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)
PY
  done
  stop_redis
  python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
per = {}
for kind in ("builtin", "custom"):
    cpu = float(open(f"{out}/custom-{kind}.cpu").read())
    s = json.load(open(f"{out}/custom-{kind}/summary.json"))
    p = s["phases"][0]
    per[kind] = cpu / max(p["completed"], 1) * 1e6
    print(f'{kind}: achieved={p["achieved_rate"]:.1f} completed={p["completed"]} errors={p["errors"]} cpu={cpu:.2f}s cpu_per_op={per[kind]:.2f}us')
print(f'custom/builtin cpu per op = {per["custom"] / per["builtin"]:.3f} (goal <= 1.2)')
PY
  go test -run XXX -bench Render -benchmem ./datagen/ | grep -E '^Benchmark'
  go test -run XXX -bench 'BenchmarkGet$/fast|BenchmarkCustomGet' -benchmem -benchtime 100000x ./targets/redis/ | grep -E '^Benchmark'
}

# soakcpu: what a soak costs, beside memtier_benchmark in the same run
# (bench/soakcpu.py: redis-server on CPU 0, generators on CPU 1, 32
# connections, 100 B values, SOAKCPU_ROUNDS interleaved rounds of
# SOAKCPU_DUR seconds a run). Goals: soakd's CPU-s per million ops over
# memtier's <= 1 at 6,000 and 20,000 ops/s; 250 ops/s under 1% of a core.
# Then the Go benchmarks of a paced fast-path op and of one bare wake-up
# (cpu-ns and context switches per op).
soakcpu() {
  command -v redis-server >/dev/null || { echo "soakcpu: no redis-server"; return; }
  local memtier
  memtier=${MEMTIER:-$(command -v memtier_benchmark || true)}
  echo "## soak CPU beside memtier_benchmark (${SOAKCPU_DUR:-20} s a run, ${SOAKCPU_ROUNDS:-3} rounds)"
  python3 bench/soakcpu.py "$OUT" "$OUT/soakd" "$memtier" "${SOAKCPU_RATES:-250,6000,20000}" "${SOAKCPU_ROUNDS:-3}" "${SOAKCPU_DUR:-20}"
  go test -run XXX -bench PacedOp -benchtime 3000x -cpu 1 ./targets/redis/ | grep -E '^Benchmark'
  # What one wake-up of an idle process costs (the pacer's timerfd, one core).
  taskset -c 1 go test -run XXX -bench PacerWake -benchtime 5000x -cpu 1 ./engine/ | grep -E '^Benchmark'
}

if [ "${SOAKCPU:-0}" = only ]; then
  soakcpu
  exit 0
fi
if [ "${CUSTOM:-0}" = only ]; then
  custom
  exit 0
fi
if [ "${CLOSED:-0}" = only ]; then
  closed
  exit 0
fi
if [ "${LAG:-0}" = only ]; then
  lag
  exit 0
fi

if [ "${SCRAPE:-0}" = only ]; then
  scrape
  exit 0
fi

if [ "${OPEN500K:-0}" = only ]; then
  open500k
  exit 0
fi

if [ "${RSS:-0}" = only ]; then
  rss
  exit 0
fi

if [ "${DAEMONRSS:-0}" = only ]; then
  daemonrss
  exit 0
fi

if [ "${GROWTH:-0}" = only ]; then
  growth
  exit 0
fi

if [ "${SWAPCLIFF:-0}" = only ]; then
  swapcliff
  exit 0
fi

if [ "${SHARDCOST:-0}" = only ]; then
  shardcost
  exit 0
fi

echo "## Go benchmarks (recording path)"
go test -run XXX -bench 'Record|Drain' -benchmem -benchtime 1s ./metrics/ | grep -E '^Benchmark'

echo "## open-loop rate runs ($DUR each)"
rate_run embedded-6000 6000
rate_run embedded-50000 50000

if command -v redis-server >/dev/null; then
  start_redis
  rate_run redis-6000 6000 --target "redis://127.0.0.1:$PORT"
  rate_run redis-50000 50000 --target "redis://127.0.0.1:$PORT"
  SCEN=bench/get.yaml rate_run redis-get-100000 100000 --target "redis://127.0.0.1:$PORT"
  # Past what one 2-core host holds: achieved counts only ops completed in
  # the window, and the drain shows the backlog left at its end.
  SCEN=bench/get.yaml rate_run redis-get-500000 500000 --target "redis://127.0.0.1:$PORT"
  if command -v redis-benchmark >/dev/null; then
    echo "## closed loop GET, 50 connections"
    redis-benchmark -p "$PORT" -c 50 -n 500000 -t get -q | tr '\r' '\n' | grep -E 'GET' | tail -1 | sed 's/^/redis-benchmark: /'
    cat > "$OUT/closed.yaml" <<YAML
name: bench-closed-get
keyspace: {records: 10000}
record: {fields: 1, field_bytes: 3}
phases:
  - {name: load, kind: load, concurrency: 16, mix: {set: 100}}
  - {name: steady, kind: steady, rate: 0, duration: 15s, concurrency: 50, mix: {get: 100}}
YAML
    rm -rf "$OUT/closed"
    "$OUT/soakd" run "$OUT/closed.yaml" --target "redis://127.0.0.1:$PORT" --out "$OUT/closed" --listen "" --quiet >/dev/null 2>&1 || true
    summarize "$OUT/closed" "soakd-closed-loop-get-c50"
  fi
  stop_redis
fi

if [ "${SOAKCPU:-0}" = 1 ]; then
  soakcpu
fi
if [ "${CUSTOM:-0}" = 1 ]; then
  custom
fi
if [ "${CLOSED:-0}" = 1 ]; then
  closed
fi
if [ "${LAG:-0}" = 1 ]; then
  lag
fi
if [ "${SCRAPE:-0}" = 1 ]; then
  scrape
fi

if [ "${OPEN500K:-0}" = 1 ]; then
  open500k
fi

if [ "${RSS:-0}" = 1 ]; then
  rss
fi

if [ "${DAEMONRSS:-0}" = 1 ]; then
  daemonrss
fi

if [ "${SHARDCOST:-0}" = 1 ]; then
  shardcost
fi

if [ "${GROWTH:-0}" = 1 ]; then
  growth
fi

if [ "${SWAPCLIFF:-0}" = 1 ]; then
  swapcliff
fi
