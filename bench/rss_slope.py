#!/usr/bin/env python3
"""Memory slope of a bench/run.sh RSS run (issue 30's memory goal).

    python3 bench/rss_slope.py DIR [--skip 300] [--until S] [--goal 5] [--top 15]

DIR holds samples.tsv (t_s, rss_kb, heap_alloc, heap_inuse, next_gc,
load1; a row every 10 s on average) and heap/ (soakd --heap-profile). Prints the
least-squares slope of RSS after the first --skip seconds (and up to
--until seconds, to compare runs over the same minutes; the heap
profiles are all read) in kB/min against the goal, the same for the Go
heap goal (next_gc: the GC's goal,
twice the heap live after the last GC at GOGC=100, so it follows the live
heap and not where a sample fell in the GC cycle), and the top of
`go tool pprof -top -diff_base FIRST LAST` on inuse_space: what grew
between the first heap profile (5 min) and the last one taken during the
run (the -end one is taken after the run has let go of its memory, so it
is printed as what is left, not diffed), and the live heap after each
profile's forced GC (heap/heap-live.tsv, exact) with its slope. With
classes.tsv (bench/run.sh writes it beside samples.tsv), the slopes of
the heap arena's and the other anonymous mappings' resident pages and of
the runtime's off-heap classes: where a rise is.
Re-runnable on the files alone, at any time after the run.
"""
import argparse
import glob
import os
import subprocess
import sys


def slope(pts):
    """Least-squares slope of (x, y) points."""
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else 0.0


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2


def theil_sen(pts):
    """The median of the slopes of all pairs of points."""
    return median([(y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(pts) for x2, y2 in pts[i + 1:] if x2 != x1])


def slope_interval(pts, block, resamples=2000, level=0.95, seed=30):
    """A (level) interval for the least-squares slope of pts (x evenly
    spaced in time) when the residuals are autocorrelated (the GC cycle
    and the scavenger make RSS a sawtooth of minutes): the line is fit,
    its residuals are resampled in circular blocks of `block` points
    (residual block bootstrap, x kept), and the slope is refit on each
    resample; the percentile interval of those slopes."""
    import random
    n = len(pts)
    b = slope(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    a = my - b * mx
    res = [y - (a + b * x) for x, y in pts]
    rng = random.Random(seed)
    block = max(1, min(block, n))
    got = []
    for _ in range(resamples):
        r = []
        while len(r) < n:
            s0 = rng.randrange(n)
            r.extend(res[(s0 + k) % n] for k in range(block))
        got.append(slope([(x, a + b * x + e) for (x, _), e in zip(pts, r)]))
    got.sort()
    lo = got[int((1 - level) / 2 * resamples)]
    hi = got[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return b, lo, hi


def read_samples(path):
    rows = []
    with open(path) as f:
        head = f.readline().split()
        for line in f:
            v = line.split()
            if len(v) != len(head):
                continue
            try:
                rows.append({k: float(x) for k, x in zip(head, v)})
            except ValueError:
                continue
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--skip", type=float, default=300, help="seconds left out at the start (default 300)")
    ap.add_argument("--until", type=float, default=0, help="seconds after which samples are left out (default 0: none)")
    ap.add_argument("--goal", type=float, default=5, help="RSS slope goal in kB/min (default 5)")
    ap.add_argument("--top", type=int, default=15, help="lines of the heap diff (default 15)")
    a = ap.parse_args()

    rows = read_samples(os.path.join(a.dir, "samples.tsv"))
    late = [r for r in rows if r["t_s"] >= a.skip and r["rss_kb"] > 0 and (a.until <= 0 or r["t_s"] <= a.until)]
    if len(late) < 3:
        print(f"rss: {len(late)} samples after {a.skip:.0f} s{f' up to {a.until:.0f} s' if a.until > 0 else ''} in {a.dir}/samples.tsv: too few for a slope")
    else:
        mins = [r["t_s"] / 60 for r in late]
        rss = slope([(m, r["rss_kb"]) for m, r in zip(mins, late)])
        loads = sorted(r["load1"] for r in late)
        print(f"rss: {len(late)} samples from {late[0]['t_s']/60:.1f} to {late[-1]['t_s']/60:.1f} min: "
              f"first {late[0]['rss_kb']/1024:.1f} MiB, last {late[-1]['rss_kb']/1024:.1f} MiB, "
              f"min {min(r['rss_kb'] for r in late)/1024:.1f}, max {max(r['rss_kb'] for r in late)/1024:.1f}; "
              f"load average (1 min) {loads[0]:.2f}-{loads[-1]:.2f}, median {loads[len(loads)//2]:.2f}")
        verdict = "meets" if rss < a.goal else "misses"
        print(f"rss slope after the first {a.skip/60:.0f} min: {rss:+.2f} kB/min ({verdict} the goal < {a.goal:g} kB/min)")
        # The slope's 95% interval, residual blocks of 10 minutes (a few
        # GC cycles): the goal is shown met only when the whole interval
        # lies below it.
        step = (mins[-1] - mins[0]) / max(1, len(mins) - 1)
        _, lo, hi = slope_interval([(m, r["rss_kb"]) for m, r in zip(mins, late)], int(round(10 / step)) if step > 0 else 1)
        call = ("met: the whole interval lies below it" if hi < a.goal else
                "missed: the whole interval lies above it" if lo > a.goal else "not shown: the interval holds it")
        print(f"rss slope 95% interval (block bootstrap of residuals, 10-minute blocks, 2000 resamples): "
              f"[{lo:+.2f}, {hi:+.2f}] kB/min; goal < {a.goal:g} kB/min {call}")
        # RSS swings by tens of MiB with the GC cycle: a slope robust to
        # that, Theil-Sen (the median of the pairwise slopes) over the
        # medians of 5-minute bins, and the first and last bins' medians.
        bins = {}
        for m, r in zip(mins, late):
            bins.setdefault(int((m - mins[0]) // 5), []).append((m, r["rss_kb"]))
        med = [(median([m for m, _ in b]), median([y for _, y in b])) for _, b in sorted(bins.items()) if len(b) >= 10]
        if len(med) >= 3:
            print(f"rss, medians of 5-minute bins: {med[0][1]/1024:.1f} MiB ({med[0][0]:.0f} min) -> {med[-1][1]/1024:.1f} MiB "
                  f"({med[-1][0]:.0f} min); Theil-Sen slope over them {theil_sen(med):+.2f} kB/min")
        for col, what in (("rss_anon_kb", "anonymous (heap, stacks)"), ("rss_file_kb", "file-backed (the binary's pages)")):
            part = [(m, r[col]) for m, r in zip(mins, late) if r.get(col, 0) > 0]
            if len(part) >= 3:
                print(f"  of which {what}: {part[0][1]/1024:.1f} -> {part[-1][1]/1024:.1f} MiB, slope {slope(part):+.2f} kB/min")
        gc = [(m, r["next_gc"] / 1024) for m, r in zip(mins, late) if r.get("next_gc", 0) > 0]
        if len(gc) >= 3:
            print(f"go heap goal (next_gc, ~2x the live heap): {gc[0][1]/1024:.2f} -> {gc[-1][1]/1024:.2f} MiB, "
                  f"slope {slope(gc):+.2f} kB/min")
        ia = [(m, r["heap_inuse"] / 1024) for m, r in zip(mins, late) if r.get("heap_inuse", 0) > 0]
        if len(ia) >= 3:
            print(f"go heap in use (any point of the GC cycle): slope {slope(ia):+.2f} kB/min")

    split_slopes(os.path.join(a.dir, "rss_split.tsv"))
    class_slopes(os.path.join(a.dir, "classes.tsv"), a.skip, a.until)
    profs = sorted(glob.glob(os.path.join(a.dir, "heap", "heap-*.pb.gz")))
    inrun = [p for p in profs if not p.endswith("-end.pb.gz")]
    ends = [p for p in profs if p.endswith("-end.pb.gz")]
    # The live heap after each profile's forced GC, exact from
    # heap-live.tsv (soakd --heap-profile): the series the RSS follows,
    # without the GC cycle's noise.
    live = []
    tsv = os.path.join(a.dir, "heap", "heap-live.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            f.readline()
            for line in f:
                v = line.split("\t")
                if len(v) >= 5 and not v[1].endswith("-end.pb.gz"):
                    # The runtime's mapped memory less what it released
                    # (a 7th column; older tables have only the total).
                    held = int(v[4]) - (int(v[6]) if len(v) >= 7 else 0)
                    live.append((float(v[0]) / 60, int(v[2]) / 1024, held / 1024))
    if live:
        print("live heap after a forced GC (heap-live.tsv): " + ", ".join(f"{m:.0f} min {kb/1024:.3f} MiB" for m, kb, _ in live))
        late = [x for x in live if x[0] >= a.skip / 60]
        if len(late) >= 2:
            print(f"live heap slope from {late[0][0]:.0f} to {late[-1][0]:.0f} min: {slope([(m, kb) for m, kb, _ in late]):+.2f} kB/min "
                  f"({late[-1][1] - late[0][1]:+.0f} kB); runtime's mapped memory less the released (all mapped in older tables) "
                  f"{slope([(m, t) for m, _, t in late]):+.2f} kB/min ({late[0][2]/1024:.2f} -> {late[-1][2]/1024:.2f} MiB)")
    for p in ends:
        kb = total_kb(p)
        print(f"after the run ({os.path.basename(p)}): {kb/1024 if kb is not None else float('nan'):.2f} MiB in use")
    if len(inrun) < 2:
        print(f"heap profiles: {len(inrun)} taken during the run in {a.dir}/heap, need two for the diff")
        return
    first, last = inrun[0], inrun[-1]
    print(f"growth from {os.path.basename(first)} to {os.path.basename(last)} (the last taken during the run; inuse_space):")
    cmd = ["go", "tool", "pprof", "-top", "-sample_index=inuse_space", "-diff_base", first, last]
    print("  $ " + " ".join(cmd))
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print("  pprof failed: " + res.stderr.strip()[-500:])
        return
    lines = res.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip().startswith("flat")), None)
    for l in lines:
        if l.startswith("Showing nodes"):
            print("  " + l)
    if start is not None:
        for l in lines[start:start + 1 + a.top]:
            print("  " + l)


# classes.tsv's figures worth a slope: where in the anonymous memory a
# rise is (smaps: the heap arena against everything else), and the
# runtime's off-heap classes that can grow on their own.
CLASSES = (
    ("smaps_arena_rss_kb", 1, "heap arena, resident (smaps)"),
    ("smaps_other_anon_rss_kb", 1, "other anonymous mappings, resident (smaps: the runtime's off-heap data)"),
    ("go_memstats_heap_sys_bytes", 1024, "heap mapped (heap_sys)"),
    ("go_memstats_stack_inuse_bytes", 1024, "goroutine stacks"),
    ("go_memstats_gc_sys_bytes", 1024, "GC metadata (gc_sys)"),
    ("go_memstats_buck_hash_sys_bytes", 1024, "profiler buckets (buck_hash_sys)"),
    ("go_memstats_mspan_sys_bytes", 1024, "span structures (mspan_sys)"),
    ("go_memstats_other_sys_bytes", 1024, "other runtime (other_sys)"),
    ("go_threads", 0, "OS threads"),
)


def class_slopes(path, skip, until):
    """Per-class slopes from classes.tsv (t, name, value rows)."""
    if not os.path.exists(path):
        return
    series = {}
    with open(path) as f:
        for line in f:
            v = line.split("\t")
            if len(v) != 3:
                continue
            try:
                t, x = float(v[0]), float(v[2])
            except ValueError:
                continue
            if t >= skip and (until <= 0 or t <= until):
                series.setdefault(v[1], []).append((t / 60, x))
    print(f"where it is ({os.path.basename(path)}, from {skip/60:.0f} min):")
    for name, div, what in CLASSES:
        pts = series.get(name, [])
        if len(pts) < 3:
            continue
        if div == 0:
            print(f"  {what}: {pts[0][1]:.0f} -> {pts[-1][1]:.0f}")
            continue
        kb = [(m, x / div) for m, x in pts]
        print(f"  {what}: {kb[0][1]/1024:.2f} -> {kb[-1][1]/1024:.2f} MiB, slope {slope(kb):+.2f} kB/min")


def split_slopes(path):
    """Slopes of a side sampler's table (t_utc, vmrss_kb, rssanon_kb,
    rssfile_kb), for runs whose samples.tsv predates those columns."""
    if not os.path.exists(path):
        return
    import datetime
    pts = []
    with open(path) as f:
        f.readline()
        for line in f:
            v = line.split()
            if len(v) == 4:
                t = datetime.datetime.strptime(v[0], "%Y-%m-%dT%H:%M:%SZ").timestamp() / 60
                pts.append((t, int(v[1]), int(v[2]), int(v[3])))
    if len(pts) < 3:
        return
    span = pts[-1][0] - pts[0][0]
    print(f"{os.path.basename(path)} ({len(pts)} samples over {span:.0f} min): VmRSS {slope([(p[0], p[1]) for p in pts]):+.2f}, "
          f"RssAnon {slope([(p[0], p[2]) for p in pts]):+.2f}, RssFile {slope([(p[0], p[3]) for p in pts]):+.2f} kB/min "
          f"(RssFile {pts[0][3]/1024:.1f} -> {pts[-1][3]/1024:.1f} MiB)")


UNITS = {"B": 1 / 1024, "kB": 1, "MB": 1024, "GB": 1024 * 1024}


def total_kb(path):
    """The inuse_space total of a profile, in kB (pprof's 'of X total')."""
    r = subprocess.run(["go", "tool", "pprof", "-top", "-nodecount=1", "-sample_index=inuse_space", path],
                       capture_output=True, text=True)
    for l in r.stdout.splitlines():
        if l.startswith("Showing nodes") and " of " in l:
            v = l.split(" of ", 1)[1].split()[0]
            for u in sorted(UNITS, key=len, reverse=True):
                if v.endswith(u):
                    try:
                        return float(v[: -len(u)]) * UNITS[u]
                    except ValueError:
                        return None
    return None


def prof_minutes(path):
    """Minutes since start from a name like heap-01h05m00s.pb.gz."""
    n = os.path.basename(path)[len("heap-"):].split(".")[0].replace("-end", "")
    h, rest = n.split("h")
    m, rest = rest.split("m")
    return int(h) * 60 + int(m) + int(rest.rstrip("s")) / 60


if __name__ == "__main__":
    sys.exit(main())
