#!/usr/bin/python3
"""Writes desc.json for aggs/tst.trunc-sum-5: what a legacy kernel recorded for the
script (see ../synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from synthdesc import *  # noqa: E402,F403


def trunc_later(n, nsize, lq):
    """BEGIN{..} ioctl /i < 100/ {@[100+i] = ...} ioctl /i == 100/
    {trunc(@, n)} ioctl /i > 100 && timestamp > tstop/ {@[200+i]; exit}"""
    D = Desc(options=Q)
    D.clause(BEGIN)
    e1 = D.clause(syscall("ioctl"))
    e2 = D.clause(syscall("ioctl"), [{"trunc": "", "size": nsize}])
    e3 = D.clause(syscall("ioctl"), [EXIT])
    if lq:
        prm = dict(base=0, limit=150, step=1, has_incr=True)
        ids1 = [D.agg(e1, "", "lquantize", K4, **prm) for _ in range(4)]
        ids3 = [D.agg(e3, "", "lquantize", K4, **prm) for _ in range(4)]
    else:
        ids1 = [D.agg(e1, "", "sum", K4)]
        ids3 = [D.agg(e3, "", "sum", K4)]
    p = D.new_pass()
    for i in range(100):
        for k, a in enumerate(ids1):
            p.agg(a, [100 + i], [i + 1 + k, 10000 + i] if lq else 1000 + i)
    p.fire(e2, [n])
    for _ in range(3):
        D.new_pass()                # the 3 seconds of waiting
    p = D.new_pass()
    i = 101
    for k, a in enumerate(ids3):
        p.agg(a, [200 + i], [i + 1 + k, 20000 + i] if lq else 2000 + i)
    p.fire(e3, [0])
    return D


def build():
    return trunc_later(5, 4, False)


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
