"""python_bench.py - the Python figures of `make bench` (bench/python.sh).

On trace captures (bench/gen -w trace: small trace() records, the
per-event interface's worst case), in one run: decode only on a large
one (-C), the Python paths on a smaller one (-S):

  cat                       bytes/s, the reference of bench/run.sh
  dtconsume -f none         per-event decode-only (C, dtc_reader_consume)
  bench/batch               batch decode-only (C, dtc_batch_next)
  Python dicts              dtconsume.open(cap) iterated: dt2json's data
                            model as dicts, every event
  Python records            cap.records(): light Record objects
  Python columns            cap.records(columns=True): numpy arrays
  cffi records              the same light records through cffi over
                            libdtconsume.so (dtc_reader_next), the alternative
                            to the C extension
  babeltrace2 (bt2)         the same events as a CTF 1.8 trace
                            (bench/ctfgen.py) iterated with bt2's Python
                            bindings, each payload field read

then the fleet recipe: the aggregations of 64 captures (16 hosts x 4 of
bench/gen's agg workload, -F) folded on a Dask LocalCluster of 1 and of 2
worker processes.  Times are process CPU seconds (user + system) where one
process does the work, wall seconds for Dask; each the median of RUNS.

    python3 python_bench.py -b BUILDDIR -s SRCDIR [-r RUNS] [-C SCALE]
        [-S SCALE]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, List, Tuple


def child_cpu(argv: List[str]) -> float:
    """CPU seconds (user + sys) of one run of argv, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)


def own_cpu(fn: Callable[[], int]) -> Tuple[float, int]:
    t0 = time.process_time()
    n = fn()
    return time.process_time() - t0, n


def median(xs: List[float]) -> float:
    return statistics.median(xs)


def gen(build: str, work: str, scale: str, name: str) -> Tuple[str, dict]:
    cap = os.path.join(work, name + ".dtsnap")
    subprocess.run([os.path.join(build, "bench", "gen"), "-w", "trace",
                    "-s", scale, "-i", cap + ".info", "-o", cap], check=True)
    with open(cap + ".info") as f:
        meta = dict(l.strip().split("=", 1) for l in f if "=" in l)
    meta["bytes"] = os.path.getsize(cap)
    subprocess.run(["cat", cap], stdout=subprocess.DEVNULL, check=True)
    return cap, meta


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-b", required=True, help="build directory")
    ap.add_argument("-s", required=True, help="source directory")
    ap.add_argument("-r", type=int, default=3, help="runs per measurement")
    ap.add_argument("-C", default="1/8", help="scale of the decode-only "
                    "capture (C paths and numpy columns)")
    ap.add_argument("-S", default="1/32", help="scale of the capture the "
                    "per-object Python paths (and bt2) read")
    ap.add_argument("-F", default="1/256", help="scale of the agg captures "
                    "of the fleet (64 of them)")
    ap.add_argument("-d", default=None, help="work directory")
    a = ap.parse_args()
    build, src = os.path.abspath(a.b), os.path.abspath(a.s)
    sys.path[:0] = [os.path.join(build, "python"),
                    os.path.join(src, "python", "tests"),
                    os.path.join(src, "bench")]
    os.environ.setdefault("top_builddir", build)
    os.environ.setdefault("top_srcdir", src)
    import dtconsume
    import numpy                      # imported before any timing
    work = a.d or tempfile.mkdtemp(prefix="dtc-pybench.")
    runs = a.r

    def med(fn: Callable[[], float], n: int = runs) -> float:
        return median([fn() for _ in range(n)])

    def columns(cap: str) -> Callable[[], float]:
        def run() -> int:
            t = dtconsume.open(cap).records(columns=True)
            return sum(len(c.values) for x in t.values() for c in x.columns)
        return lambda: own_cpu(run)[0]

    # -- 1. decode only, per event against batch, one capture -------------
    big, bm = gen(build, work, a.C, "big")
    bf, bv = int(bm["firings"]), int(bm["values"])
    # interleaved (cat, per event, batch, numpy, cat, ...): on a shared
    # machine the load changes from minute to minute, and each path should
    # see the same
    paths = [
        ("cat", lambda: child_cpu(["cat", big])),
        ("dtconsume -f none (per event: dtc_reader_consume)",
         lambda: child_cpu([os.path.join(build, "cmd", "dtconsume"),
                            "-f", "none", big])),
        ("bench/batch (batch: dtc_batch_next, every value read)",
         lambda: child_cpu([os.path.join(build, "bench", "batch"), big])),
        ("Python records(columns=True): numpy arrays", columns(big)),
    ]
    times: dict = {w: [] for w, _ in paths}
    for _ in range(max(runs, 5)):
        for w, fn in paths:
            times[w].append(fn())
    dec = [(w, median(times[w]), min(times[w])) for w, _ in paths]
    os.remove(big)

    # -- 2. Python paths on a smaller capture, bt2 on the same events -----
    cap, m = gen(build, work, a.S, "small")
    firings, values = int(m["firings"]), int(m["values"])
    py = []
    nlines = [0]

    def dicts() -> float:
        t, n = own_cpu(lambda: sum(1 for _ in dtconsume.open(cap)))
        nlines[0] = n
        return t
    py.append(("Python iterator: dicts (dt2json's model)", med(dicts)))
    py.append(("Python records(): light Record objects", med(
        lambda: own_cpu(lambda: sum(1 for _ in
                                    dtconsume.open(cap).records()))[0])))
    py.append(("Python records(columns=True): numpy arrays",
               med(columns(cap))))
    lib = os.path.join(build, ".libs", "libdtconsume.so")
    try:
        import cffi  # noqa: F401

        def via_cffi() -> float:
            p = subprocess.run([sys.executable,
                                os.path.join(src, "bench", "python_cffi.py"),
                                lib, cap], capture_output=True, check=True,
                               text=True)
            return float(p.stdout.split("seconds=")[1])
        py.append(("cffi over libdtconsume.so (dtc_reader_next): light records",
                   med(via_cffi, 1)))
    except ImportError:
        py.append(("cffi (python3-cffi missing)", 0.0))
    try:
        import bt2  # noqa: F401
        import ctfgen
        import peers
        ctf = os.path.join(work, "ctf")
        nev = ctfgen.write(cap, ctf)
        assert nev == firings, (nev, firings)

        def via_bt2() -> float:
            t, n = own_cpu(lambda: peers.bt2_events(ctf))
            assert n == firings
            return t
        py.append(("babeltrace2 Python bindings (bt2), same events as CTF",
                   med(via_bt2, 1)))
    except ImportError:
        py.append(("babeltrace2 (python3-bt2 missing)", 0.0))

    # -- 3. the fleet: Dask with 1 and 2 workers ---------------------------
    dask_rows = []
    inproc = cmd = 0.0
    try:
        import operator
        import dask.bag as db
        from dask.distributed import Client, LocalCluster
        # 16 hosts x 4 captures of the agg workload (-F), a seed each
        fdir = os.path.join(work, "fleet")
        os.makedirs(fdir, exist_ok=True)
        paths = []
        for h in range(16):
            for n in range(4):
                p = os.path.join(fdir, f"host{h:02d}-{n}.dtsnap")
                subprocess.run([os.path.join(build, "bench", "gen"), "-w",
                                "agg", "-s", a.F, "-S", str(h * 4 + n + 1),
                                "-o", p], check=True)
                paths.append(p)
        want = subprocess.run([os.path.join(build, "cmd", "dtconsume"),
                               "--merge-aggs", *paths], capture_output=True,
                              check=True).stdout.decode()
        for workers in (1, 2):
            t0 = time.perf_counter()
            with LocalCluster(n_workers=workers, threads_per_worker=1,
                              processes=True, dashboard_address=None,
                              silence_logs=50) as cl, Client(cl):
                start = time.perf_counter() - t0
                ts = []
                for _ in range(runs):
                    # a new function each run: a new graph, whose
                    # results no worker can still hold from the last one
                    def aggs(p: str) -> "dtconsume.Aggregations":
                        return dtconsume.aggregations(p)
                    t1 = time.perf_counter()
                    merged = (db.from_sequence(paths, npartitions=16)
                              .map(aggs).fold(operator.add).compute())
                    ts.append(time.perf_counter() - t1)
                    assert "\n" * len(paths) + merged.text() == want
                # the same with one merge per partition and one at the end
                tr = []
                for _ in range(runs):
                    def per_part(ps, _r=len(tr)):
                        return dtconsume.merge_aggregations(list(ps))
                    t1 = time.perf_counter()
                    m2 = (db.from_sequence(paths, npartitions=16)
                          .reduction(per_part, per_part).compute())
                    tr.append(time.perf_counter() - t1)
                    assert "\n" * len(paths) + m2.text() == want
            dask_rows.append((workers, start, median(ts), median(tr)))
        inproc = med(lambda: own_cpu(
            lambda: len(dtconsume.merge_aggregations(paths).data))[0])
        cmd = med(lambda: child_cpu([os.path.join(build, "cmd", "dtconsume"),
                                     "--merge-aggs", *paths]))
        fleet_bytes = sum(os.path.getsize(p) for p in paths)
        one = len(dtconsume.aggregations(paths[0]).data)
    except ImportError as e:
        print(f"(no Dask figures: {e})")

    load = open("/proc/loadavg").read().split()[:3]
    print("## Python (bench/python.sh)")
    print()
    print(f"- {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, "
          f"libdtconsume {dtconsume.library_version()}, python "
          f"{sys.version.split()[0]}, numpy {numpy.__version__}; "
          f"median of {runs} runs (cffi and bt2: one run); load average at "
          f"the end {' '.join(load)}")
    print("- CPU s: user + system of the process doing the work")
    print()
    print(f"Decode only, bench/gen -w trace -s {a.C}: "
          f"{bm['bytes'] / 1e6:.0f} MB, {bf} firings, {bv} trace() values")
    print()
    print(f"(interleaved, {max(runs, 5)} runs each: median and min CPU s)")
    print()
    print("| path | CPU s median | min | firings/s | values/s | x cat |")
    print("|---|---:|---:|---:|---:|---:|")
    cat_s = dec[0][1] or 0.001
    for what, t, lo in dec:
        t = t or 0.001
        if what == "cat":
            print(f"| cat | {t:.3f} | {lo:.3f} | | | 1 |")
            continue
        print(f"| {what} | {t:.3f} | {lo:.3f} | {bf / t / 1e6:.2f}M | "
              f"{bv / t / 1e6:.2f}M | {cat_s / t:.2f} |")
    print()
    print(f"Python, bench/gen -w trace -s {a.S}: {m['bytes'] / 1e6:.1f} MB, "
          f"{firings} firings, {values} trace() values")
    print()
    print("| path | CPU s | events/s | values/s | x bt2 (values/s) |")
    print("|---|---:|---:|---:|---:|")
    bt = next((t for w, t in py if w.startswith("babeltrace2 Python") and t),
              0.0)
    for what, t in py:
        if not t:
            print(f"| {what} | - | - | - | - |")
            continue
        print(f"| {what} | {t:.3f} | {firings / t / 1e6:.2f}M | "
              f"{values / t / 1e6:.2f}M | "
              f"{(bt / t) if bt else 0:.0f} |")
    print()
    print(f"(dicts: {nlines[0]} lines: one per firing, the header and the end)")
    if dask_rows:
        print()
        print(f"Fleet: 64 captures (16 hosts x 4: bench/gen -w agg -s {a.F} "
              f"-S 1..64), {fleet_bytes / 1e6:.0f} MB in all; one "
              f"capture's aggregations pickle to {one / 1e3:.0f} kB "
              f"(merged: {len(merged.data) / 1e3:.0f} kB)")
        print()
        print("| merge of the 64 captures' aggregations | workers | "
              "cluster start s | wall s |")
        print("|---|---:|---:|---:|")
        for w, st, t, t2 in dask_rows:
            print(f"| Dask LocalCluster, processes: bag.map(aggregations)"
                  f".fold(+) | {w} | {st:.2f} | {t:.3f} |")
            print(f"| Dask LocalCluster, processes: bag.reduction("
                  f"merge_aggregations) | {w} | | {t2:.3f} |")
        print(f"| dtconsume.merge_aggregations(paths), one process | 1 | - | "
              f"{inproc:.3f} (CPU) |")
        print(f"| dtconsume --merge-aggs | 1 | - | {cmd:.3f} (CPU) |")


if __name__ == "__main__":
    main()
