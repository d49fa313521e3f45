#!/usr/bin/env python3
"""Soak CPU cost: soakd against memtier_benchmark at the same rates.

bench/run.sh's SOAKCPU section runs this. One redis-server on CPU 0, every
generator on CPU 1 (taskset), 32 connections, 100-byte values, for
SOAKCPU_DUR seconds a run:

  soakd             open loop, YCSB-shaped read/update 50/50 (HGETALL / HSET
                    of one 100-byte field) on 10,000 loaded records
  memtier_benchmark --ratio 1:1 set/get on 10,000 loaded keys, -t 1 -c 32,
                    --rate-limiting ceil(rate/32) per connection (6,016/s
                    for 6,000, 256/s for 250). Its limiter is coarse: each
                    connection sends its share in a burst every ~20 ms, so
                    it wakes ~50 times a second, not once per op.

CPU is the generator process's run time (its threads' schedstat, in ns;
utime+stime where that is missing), read
SKIP seconds after the start and again WINDOW seconds later, so start-up
and the load are not counted; the ops in that window are the tool's own
achieved rate times WINDOW. Each (tool, rate) runs ROUNDS times,
interleaved (the order reversed every other round), and the table gives
the median with the min-max spread. The goal ratio is soakd's CPU-s per
million ops over memtier's in the same round (<= 1 meets it), per round
and its median.

With SOAKD_BASE=PATH (another soakd build, e.g. the commit before a
change) that build runs too, interleaved in the same rounds, as
"soakd-base": before/after on the same host at the same moment.

SOAKCPU_TICK=D[,D...] (default 20ms,5ms; empty: left out) adds
"soakd-tickD" for each: the same soak with --tick D, its arrivals in
ticks as memtier's limiter sends them, each tick's ops intended at its
start (a tick's ops that are due together go out pipelined, up to
client.max_batch, 256). "soakd-tickD-b4", for the first D, is the same
with client.max_batch 4, so each tick's ops are spread over the
connections a few at a time, as memtier's are.

usage: soakcpu.py OUT SOAKD MEMTIER|'' RATES ROUNDS DUR
"""
import json
import math
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CONNS = 32
VALUE = 100
RECORDS = 10000


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


TCK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """The process's CPU seconds: the scheduler's run time of each of
    its threads from /proc/PID/task/*/schedstat, in nanoseconds (a 250
    ops/s soak uses ~0.1 s in a window, which utime+stime's 10 ms ticks
    would round by 10%); utime+stime where schedstat is missing."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        ns = 0
        for t in tasks:
            try:
                ns += int(open(f"/proc/{pid}/task/{t}/schedstat").read().split()[0])
            except OSError:
                pass
        if ns > 0:
            return ns / 1e9
    except OSError:
        pass
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TCK


def ctx_switches(pid):
    n = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for t in tasks:
        try:
            for line in open(f"/proc/{pid}/task/{t}/status"):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    n += int(line.split()[1])
        except OSError:
            pass
    return n


def sample_run(argv, skip, window):
    """Runs argv on CPU 1; returns (stdout+stderr, cpu in window, ctx
    switches in window, load average at start)."""
    load = os.getloadavg()[0]
    p = subprocess.Popen(["taskset", "-c", "1", *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t0 = time.monotonic()
    time.sleep(skip)
    c0, x0 = cpu_s(p.pid), ctx_switches(p.pid)
    time.sleep(max(0, t0 + skip + window - time.monotonic()))
    c1, x1 = cpu_s(p.pid), ctx_switches(p.pid)
    text = p.stdout.read()
    p.wait()
    return text, c1 - c0, x1 - x0, load


def main():
    out, soakd, memtier, rates, rounds, dur = sys.argv[1:7]
    rates = [int(r) for r in rates.split(",")]
    rounds, dur = int(rounds), int(dur)
    skip = 4
    window = dur - 6
    if window < 4:
        sys.exit("soakcpu: SOAKCPU_DUR must be at least 10 s")
    rdir = tempfile.mkdtemp()
    port = free_port()
    redis = subprocess.Popen(["taskset", "-c", "0", "redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                              "--dir", rdir], stdout=subprocess.DEVNULL)
    try:
        for _ in range(50):
            if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        measure(out, soakd, memtier, rates, rounds, dur, skip, window, port)
    finally:
        redis.terminate()
        redis.wait()
        shutil.rmtree(rdir, ignore_errors=True)


def measure(out, soakd, memtier, rates, rounds, dur, skip, window, port):
    target = f"redis://127.0.0.1:{port}"
    with open(f"{out}/soakcpu-load.yaml", "w") as f:
        f.write(f"name: bench-soakcpu-load\nkeyspace: {{records: {RECORDS}}}\nrecord: {{fields: 1, field_bytes: {VALUE}}}\n"
                "phases:\n  - {name: load, kind: load, concurrency: 16}\n")
    for name, client in (("soakcpu", ""), ("soakcpu-batch4", "target: {kind: redis, client: {max_batch: 4}}\n")):
        with open(f"{out}/{name}.yaml", "w") as f:
            f.write(f"name: bench-soakcpu\n{client}keyspace: {{records: {RECORDS}}}\nrecord: {{fields: 1, field_bytes: {VALUE}}}\n"
                    f"phases:\n  - {{name: steady, kind: steady, rate: 1000, duration: {dur}s, concurrency: {CONNS}, max_lag: 1s,"
                    " mix: {read: 50, update: 50}}\n")
    shutil.rmtree(f"{out}/soakcpu-load", ignore_errors=True)
    subprocess.run([soakd, "run", f"{out}/soakcpu-load.yaml", "--target", target, "--out", f"{out}/soakcpu-load",
                    "--listen", "", "--quiet"], capture_output=True, check=True)
    pipe = "".join(f"SET memtier-{i} {'x' * VALUE}\r\n" for i in range(1, RECORDS + 1))
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=pipe, text=True, capture_output=True, check=True)

    # name -> (binary, scenario, extra flags)
    soakds = {"soakd": (soakd, "soakcpu", [])}
    if os.environ.get("SOAKD_BASE"):
        soakds["soakd-base"] = (os.environ["SOAKD_BASE"], "soakcpu", [])
    ticks = [t for t in os.environ.get("SOAKCPU_TICK", "20ms,5ms").split(",") if t]
    for t in ticks:
        soakds[f"soakd-tick{t}"] = (soakd, "soakcpu", ["--tick", t])
    if ticks:
        soakds[f"soakd-tick{ticks[0]}-b4"] = (soakd, "soakcpu-batch4", ["--tick", ticks[0]])
    runs = []
    for r in rates:
        for name in soakds:
            runs.append((name, r))
        if memtier:
            runs.append(("memtier", r))
    if not memtier:
        print("soakcpu: memtier_benchmark not found (set MEMTIER=path): soakd's figures only, no ratios")
    print(f"soakcpu: {len(runs)} runs x {rounds} rounds, {dur} s each, CPU over {skip}-{skip + window} s;"
          f" {CONNS} connections, {VALUE} B values; load average {os.getloadavg()[0]:.2f} at start")
    res = {}  # (tool, rate) -> list of per-round dicts
    for rnd in range(1, rounds + 1):
        order = runs if rnd % 2 else runs[::-1]
        for tool, rate in order:
            if tool in soakds:
                row = run_soakd(out, tool, *soakds[tool], target, rate, dur, skip, window)
            else:
                row = run_memtier(memtier, port, rate, dur, skip, window)
            if row is None:
                continue
            row["round"] = rnd
            res.setdefault((tool, rate), []).append(row)
            extra = ""
            if tool in soakds:
                extra = f" lag_p50={row['lag_p50']:.0f}us lag_p99={row['lag_p99']:.0f}us dropped={row['dropped']} errors={row['errors']}"
            print(f"soakcpu round {rnd} {tool} {rate}/s: achieved={row['achieved']:.0f}/s cpu={row['cpu']:.3f}s"
                  f" core={row['core'] * 100:.2f}% cpu_s_per_million={row['per_m']:.1f} ctxsw_per_op={row['ctx_op']:.2f}"
                  f"{extra} load={row['load']:.2f}")
    print("## soak CPU: medians over rounds [min-max]")
    print("| tool | rate | share of a core | CPU-s per million ops | context switches per op | lag p99 |")
    print("|---|---|---|---|---|---|")
    for (tool, rate), rows in sorted(res.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        def f(key, scale=1.0, fmt="{:.1f}"):
            v = [x[key] * scale for x in rows]
            return f"{fmt.format(statistics.median(v))} [{fmt.format(min(v))}-{fmt.format(max(v))}]"
        lag = f("lag_p99", fmt="{:.0f}") + " us" if tool in soakds else "-"
        print(f"| {tool} | {rate} | {f('core', 100, '{:.2f}')}% | {f('per_m')} | {f('ctx_op', fmt='{:.2f}')} | {lag} |")
    pairs = [(name, "memtier", " (goal <= 1.0)") for name in soakds]
    if "soakd-base" in soakds:
        pairs.append(("soakd", "soakd-base", ""))
    for rate in rates:
        for a, b, goal in pairs:
            ratios = paired(res.get((a, rate)), res.get((b, rate)))
            if ratios:
                print(f"soakcpu ratio {rate}/s: {a}/{b} CPU per op = {statistics.median(ratios):.2f}"
                      f" [{min(ratios):.2f}-{max(ratios):.2f}] over {len(ratios)} rounds{goal if rate >= 1000 else ''}")
    for rate in rates:
        for name in soakds:
            s = res.get((name, rate))
            if s and rate < 1000:
                v = [x["core"] * 100 for x in s]
                print(f"soakcpu {rate}/s: {name} {statistics.median(v):.2f}% of a core [{min(v):.2f}-{max(v):.2f}] (goal < 1%)")
    print(f"soakcpu: load average {os.getloadavg()[0]:.2f} at end")


def paired(a, b):
    """Per-round ratios of a's CPU per op over b's, in rounds both ran."""
    if not a or not b:
        return []
    by = {x["round"]: x["per_m"] for x in b}
    return [x["per_m"] / by[x["round"]] for x in a if x["round"] in by]


def run_soakd(out, name, soakd, scenario, flags, target, rate, dur, skip, window):
    d = f"{out}/soakcpu-{name}-{rate}"
    shutil.rmtree(d, ignore_errors=True)
    text, cpu, ctx, load = sample_run([soakd, "run", f"{out}/{scenario}.yaml", "--target", target, "--rate", str(rate),
                                       "--duration", f"{dur}s", "--out", d, "--listen", "", "--quiet", *flags], skip, window)
    try:
        p = [x for x in json.load(open(d + "/summary.json"))["phases"] if x["name"] == "steady"][0]
    except (OSError, KeyError, IndexError, ValueError) as e:
        print(f"soakcpu {name} {rate}/s: no summary ({e}): {text[-300:]}")
        return None
    ops = p["achieved_rate"] * window
    return {"achieved": p["achieved_rate"], "cpu": cpu, "core": cpu / window, "per_m": cpu / max(ops, 1) * 1e6,
            "ctx_op": ctx / max(ops, 1), "lag_p50": p["lag"]["p50"] * 1e6, "lag_p99": p["lag"]["p99"] * 1e6,
            "dropped": p["dropped"], "errors": p["errors"], "load": load}


def run_memtier(memtier, port, rate, dur, skip, window):
    per_conn = math.ceil(rate / CONNS)
    text, cpu, ctx, load = sample_run([memtier, "-s", "127.0.0.1", "-p", str(port), "--protocol", "redis", "-t", "1",
                                       "-c", str(CONNS), "--ratio", "1:1", "--data-size", str(VALUE),
                                       "--key-prefix", "memtier-", "--key-minimum", "1", "--key-maximum", str(RECORDS),
                                       "--key-pattern", "R:R", "--rate-limiting", str(per_conn), "--test-time", str(dur),
                                       "--hide-histogram", "--distinct-client-seed"], skip, window)
    g = re.findall(r"^Totals\s+([0-9.]+)", text, re.M)
    if not g:
        print(f"soakcpu memtier {rate}/s: no figure: {text[-300:]}")
        return None
    achieved = float(g[-1])
    ops = achieved * window
    return {"achieved": achieved, "cpu": cpu, "core": cpu / window, "per_m": cpu / max(ops, 1) * 1e6,
            "ctx_op": ctx / max(ops, 1), "load": load}


if __name__ == "__main__":
    main()
