#!/usr/bin/python3
"""Writes desc.json for aggs/tst.truncquant: what a legacy kernel recorded for the
script (see ../synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from synthdesc import *  # noqa: E402,F403


def trunc_end(probe, func, keyfn, pts, n, nsize=4, **params):
    """int i; probe /i < 100/ {@[i] = ...; i++} probe /i == 100/ {exit}
    END {trunc(@, n)}"""
    D = Desc(options=Q)
    e1 = D.clause(probe)
    e2 = D.clause(probe, [EXIT])
    e3 = D.clause(END, [{"trunc": "", "size": nsize}])
    nst = len(pts(0))
    ids = [D.agg(e1, "", func, K4, **params) for _ in range(nst)]
    p = D.new_pass()
    for i in range(100):
        for a, v in zip(ids, pts(i)):
            p.agg(a, [i], v)
    p.fire(e2, [0])
    p.fire(e3, [n])
    return D


def build():
    return trunc_end(tick("tick-10ms"), "lquantize", None, lambda i: [i, i + 1, i + 2, i + 3], 5, base=0, limit=150, step=1)


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
