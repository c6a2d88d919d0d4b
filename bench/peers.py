"""peers.py - the Python pair of bench/peers.sh: the dtconsume package
against babeltrace2's Python bindings (bt2) on the same events.

One capture (bench/gen) and its CTF trace (bench/ctfgen.py); in each
round, interleaved: dtconsume.open(cap) iterated (events as dicts, dt2json's
data model), cap.records() (light Record objects), cap.records(
columns=True) (numpy arrays), and bt2.TraceCollectionMessageIterator over
the CTF trace, every payload field of every event read.  CPU seconds
(user + system) of this process, medians of RUNS; rates per firing
(one CTF event per firing).  Prints a Markdown table.

    python3 peers.py [-r RUNS] CAPTURE CTFDIR
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable, Dict, List

import dtconsume


def own_cpu(fn: Callable[[], int]) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def dicts(cap: str) -> int:
    return sum(1 for _ in dtconsume.open(cap))


def records(cap: str) -> int:
    return sum(1 for _ in dtconsume.open(cap).records())


def columns(cap: str) -> int:
    t = dtconsume.open(cap).records(columns=True)
    return sum(len(c.values) for x in t.values() for c in x.columns)


def bt2_events(ctf: str) -> int:
    """Events of a CTF trace through bt2, every payload field read."""
    import bt2
    n = 0
    string = bt2._StringFieldConst
    for msg in bt2.TraceCollectionMessageIterator(ctf):
        if type(msg) is bt2._EventMessageConst:
            for f in msg.event.payload_field.values():
                str(f) if isinstance(f, string) else int(f)
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-r", type=int, default=5, help="runs of each")
    ap.add_argument("-b", default=None, help="(ignored: PYTHONPATH)")
    ap.add_argument("cap")
    ap.add_argument("ctf")
    a = ap.parse_args()
    with open(a.cap + ".info") as f:
        meta = dict(l.strip().split("=", 1) for l in f if "=" in l)
    firings = int(meta["firings"])
    assert bt2_events(a.ctf) == firings
    paths = [
        ("dicts: for ev in dtconsume.open(cap)", lambda: dicts(a.cap)),
        ("Records: cap.records()", lambda: records(a.cap)),
        ("columns: cap.records(columns=True)", lambda: columns(a.cap)),
        ("bt2: TraceCollectionMessageIterator, every field read",
         lambda: bt2_events(a.ctf)),
    ]
    times: Dict[str, List[float]] = {w: [] for w, _ in paths}
    for _ in range(a.r):
        for w, fn in paths:
            times[w].append(own_cpu(fn))
    med = {w: statistics.median(t) for w, t in times.items()}
    bt = med[paths[-1][0]]
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"{meta['workload']} at scale 1/{round(1 / float(meta['scale']))}: "
          f"{firings} firings; CPU s medians of {a.r}, interleaved; load "
          f"average at the end {load}")
    print()
    print("| path | CPU s | events/s | x bt2 per event |")
    print("|---|---:|---:|---:|")
    for w, _ in paths:
        t = med[w] or 1e-6
        print(f"| {w} | {t:.3f} | {firings / t / 1e6:.2f}M | "
              f"**{bt / t:.1f}** |")


if __name__ == "__main__":
    main()
