#!/usr/bin/env python3
"""The daemon's memory over many short scheduled runs (issue 30).

    python3 bench/daemonrss.py SOAKD OUT [--runs 550] [--max-runs 100] [--heap-every 0]

Starts `soakd serve` (GODEBUG=gctrace=1, its log in OUT/serve.log) with one continuous soak of a
300 ms steady phase on the embedded target (pause 100ms, retention.max_runs --max-runs) and the
data dir OUT/data, and samples it every second until --runs runs have finished: runs finished
(soakd_daemon_runs_total), VmRSS, and the live heap after the last GC (the `X->Y->Z MB` of the
last gctrace line: Z, the heap marked live; and /metrics' go_memstats_next_gc_bytes, the next
GC's goal, about twice that in bytes). Writes OUT/samples.tsv and prints, after the first 50
runs, the median of each per 100 runs and the least-squares slope per run, the run
directories and index.json left (the retention bound), and where heap profiles went (--heap-profile
OUT/heap: one at 5 min, every --heap-every, and at the end; diff the first and the end with
`go tool pprof -top -sample_index=inuse_space -diff_base FIRST END`). Re-print from the
samples alone: python3 bench/daemonrss.py --report OUT
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rss_slope import median, slope  # noqa: E402  (one least-squares slope and median for both)
from soakcpu import free_port  # noqa: E402

SCENARIO = """name: daemonrss-tiny
keyspace: {records: 100}
phases: [{name: steady, kind: steady, rate: 200, duration: 300ms, warmup: 0s, mix: {get: 100}}]
slo: {latency: {'*': {p99: 1m}}, max_dropped_ratio: 1}
"""


def metric(text, name):
    tot, seen = 0.0, False
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            tot += float(line.rsplit(" ", 1)[1])
            seen = True
    return tot if seen else None




GCLINE = re.compile(r"^gc \d+ .* (\d+)->(\d+)->(\d+) MB")


def last_live_mb(log):
    """Z of the last gctrace line (heap marked live, MB)."""
    try:
        with open(log, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 65536))
            tail = f.read().decode(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(tail):
        m = GCLINE.match(line)
        if m:
            return int(m.group(3))
    return None


def report(out):
    rows = []
    with open(os.path.join(out, "samples.tsv")) as f:
        head = f.readline().split()
        for line in f:
            v = line.split()
            if len(v) == len(head):
                rows.append(dict(zip(head, map(float, v))))
    late = [r for r in rows if r["runs"] > 50]
    if len(late) < 3:
        print(f"daemonrss: {len(late)} samples after run 50: too few")
        return
    top = int(max(r["runs"] for r in late))
    print(f"daemon memory over {top} runs, per 100 runs after the first 50 (medians of 1 s samples):")
    print("| runs | samples | RSS MiB median (min-max) | live heap after GC, gctrace MiB median (min) | next GC goal MiB median (min) |")
    print("|---|---|---|---|---|")
    lo, mins = 50, []
    while lo < top:
        hi = lo + 100
        b = [r for r in late if lo < r["runs"] <= hi]
        if b:
            lv = [r['live_mb'] for r in b if r['live_mb'] >= 0]
            rs = [r['rss_kb'] / 1024 for r in b]
            gc = [r['next_gc'] / 2**20 for r in b]
            print(f"| {lo + 1}-{min(hi, top)} | {len(b)} | {median(rs):.1f} ({min(rs):.1f}-{max(rs):.1f}) | "
                  f"{median(lv):.0f} ({min(lv):.0f}) | {median(gc):.2f} ({min(gc):.2f}) |")
            mins.append(((lo + min(hi, top)) / 2, min(gc) * 1024, min(rs) * 1024))
        lo = hi
    s_rss = slope([(r["runs"], r["rss_kb"]) for r in late])
    s_gc = slope([(r["runs"], r["next_gc"] / 1024) for r in late])
    live = [(r["runs"], r["live_mb"] * 1024) for r in late if r["live_mb"] >= 0]
    s_live = slope(live) if len(live) >= 3 else float("nan")
    loads = sorted(r["load1"] for r in late)
    if "rss_anon_kb" in late[0]:
        a0, f0 = late[0], late[-1]
        print(f"RSS split: anonymous (heap, stacks) slope {slope([(r['runs'], r['rss_anon_kb']) for r in late]):+.2f} kB/run, "
              f"file-backed (the binary's pages read in) {slope([(r['runs'], r['rss_file_kb']) for r in late]):+.2f} kB/run "
              f"({a0['rss_file_kb']/1024:.1f} -> {f0['rss_file_kb']/1024:.1f} MiB)")
    print(f"slope per run after run 50 (least squares): RSS {s_rss:+.2f} kB, next GC goal {s_gc:+.2f} kB "
          f"(live heap ~ half: {s_gc / 2:+.2f} kB), gctrace live heap {s_live:+.2f} kB (MB resolution); "
          f"load average {loads[0]:.2f}-{loads[-1]:.2f}")
    if len(mins) >= 2:
        # The lowest goal of a bin is set by a GC while no run held its
        # histograms and workers: the daemon's own retained heap.
        print(f"slope of the per-bin minimums: next GC goal {slope([(x, g) for x, g, _ in mins]):+.3f} kB/run, "
              f"RSS {slope([(x, r) for x, _, r in mins]):+.3f} kB/run")
    tsv = os.path.join(out, "heap", "heap-live.tsv")
    if os.path.exists(tsv):
        # Exact figures after each heap profile's forced GC; a run may be
        # in flight (its histograms and workers, ~15-20 MB) or not.
        print("after each heap profile's forced GC (heap-live.tsv): runs finished, live heap MiB, runtime total MiB, goroutines:")
        with open(tsv) as f:
            f.readline()
            for line in f:
                v = line.split("\t")
                t = float(v[0])
                near = min(rows, key=lambda r: abs(r["t_s"] - t)) if rows else {"runs": -1}
                print(f"  {v[1]}: {int(near['runs'])} runs, live {int(v[2]) / 2**20:.2f}, total {int(v[4]) / 2**20:.2f}, "
                      f"goroutines {v[5].strip()}")
    runs_dir = os.path.join(out, "data", "runs")
    if os.path.isdir(runs_dir):
        n = len(os.listdir(runs_dir))
        idx = os.path.join(out, "data", "index.json")
        size = os.path.getsize(idx) if os.path.exists(idx) else 0
        print(f"retention: {n} run directories left in {runs_dir}, index.json {size / 1024:.0f} kB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("soakd", nargs="?")
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=550)
    ap.add_argument("--max-runs", type=int, default=100)
    ap.add_argument("--heap-every", default="0")
    ap.add_argument("--report", action="store_true", help="only print the figures of OUT/samples.tsv")
    ap.add_argument("--nice", type=int, default=0)
    a = ap.parse_args()
    if a.report:
        report(a.out)
        return 0
    out = a.out
    for sub in ("data", "heap", "scenarios"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(os.path.join(out, "scenarios"), exist_ok=True)
    with open(os.path.join(out, "scenarios", "tiny.yaml"), "w") as f:
        f.write(SCENARIO)
    port = free_port()
    cfg = os.path.join(out, "soakd.yaml")
    with open(cfg, "w") as f:
        f.write(f"listen: 127.0.0.1:{port}\ntoken_env: DAEMONRSS_TOKEN\ndata_dir: {out}/data\n"
                f"scenario_dirs: [{out}/scenarios]\nretention: {{max_runs: {a.max_runs}}}\n"
                f"soaks:\n  - {{name: tiny, scenario: {out}/scenarios/tiny.yaml, pause: 100ms}}\n")
    env = dict(os.environ, GODEBUG="gctrace=1", DAEMONRSS_TOKEN="daemonrss")
    log = os.path.join(out, "serve.log")
    cmd = ["nice", "-n", str(a.nice), a.soakd, "serve", "--config", cfg, "--heap-profile", os.path.join(out, "heap"),
           "--heap-profile-every", a.heap_every]
    print("$ GODEBUG=gctrace=1 " + " ".join(cmd))
    with open(log, "w") as lf:
        proc = subprocess.Popen(cmd, env=env, stdout=lf, stderr=subprocess.STDOUT)
    t0 = time.time()
    try:
        with open(os.path.join(out, "samples.tsv"), "w") as sf:
            sf.write("t_s\truns\trss_kb\tlive_mb\tnext_gc\theap_alloc\tload1\trss_anon_kb\trss_file_kb\n")
            runs = 0
            while runs < a.runs:
                time.sleep(1)
                if proc.poll() is not None:
                    print(f"daemonrss: soakd serve exited {proc.returncode}; see {log}")
                    break
                try:
                    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
                except OSError:
                    continue
                runs = int(metric(text, "soakd_daemon_runs_total") or 0)
                status = open(f"/proc/{proc.pid}/status").read()
                rss, anon, file_ = (int(status.split(k)[1].split()[0]) for k in ("VmRSS:", "RssAnon:", "RssFile:"))
                live = last_live_mb(log)
                sf.write(f"{time.time() - t0:.1f}\t{runs}\t{rss}\t{live if live is not None else -1}\t"
                         f"{metric(text, 'go_memstats_next_gc_bytes') or 0:.0f}\t"
                         f"{metric(text, 'go_memstats_heap_alloc_bytes') or 0:.0f}\t{os.getloadavg()[0]:.2f}\t{anon}\t{file_}\n")
                sf.flush()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(f"daemonrss: {time.time() - t0:.0f} s; samples {out}/samples.tsv, log {log}, heap profiles {out}/heap")
    report(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
