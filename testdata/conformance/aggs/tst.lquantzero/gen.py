#!/usr/bin/python3
"""Writes desc.json for aggs/tst.lquantzero: what a legacy kernel recorded for the
script (see ../synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from synthdesc import *  # noqa: E402,F403


def zero_walk():
    """The a=7, b=13 walk shared by quantzero, lquantzero and negorder:
    yields (i, incr) for each firing with incr != 0."""
    a, b = 7, 13
    val = (-a * b) + a
    i = 0
    while True:
        incr = int(val - b * int(val / b))   # C % truncates toward zero
        val += a
        if val == 0:
            val += a
        if incr == 0:
            return
        i += 1
        yield i, incr


def zero_family(printf_aggs, aggspecs, probe):
    """BEGIN{a,b,val} probe{incr = val % b; val += a} probe/val == 0/
    {val += a} probe/incr != 0/ {i++; aggs} probe/incr == 0/
    {printf+printa...; exit}"""
    D = Desc(options=Q)
    D.clause(BEGIN)
    D.clause(probe)
    D.clause(probe)
    e3 = D.clause(probe)
    recs, data = [], []
    for title, name in printf_aggs:
        recs += [{"printf": title}, {"printa": None, "aggs": [name]},
            {"printf": "\n"}]
        data += [[], None, []]
    recs.append(EXIT)
    data.append(0)
    e4 = D.clause(probe, recs)
    ids = [D.agg(e3, n, f, K8, **prm) if x is None else
        D.agg(e3, n, f, K8, has_incr=True, **prm)
        for (n, f, prm, x) in aggspecs]
    p = D.new_pass()
    for i, incr in zero_walk():
        for a, (n, f, prm, x) in zip(ids, aggspecs):
            if x is None:
                p.agg(a, [i], incr)
            else:
                p.agg(a, [i], [x, incr])
    p.fire(e4, data)
    return D


def build():
    rng = [("one", 10, 20, 1), ("two", 1, 20, 5), ("three", 0, 20, 1),
        ("four", -10, 10, 1), ("five", -10, 0, 1), ("six", -10, -1, 1),
        ("seven", -10, -2, 1)]
    specs = [(n, "lquantize", dict(base=b, limit=l, step=s), 0)
        for n, b, l, s in rng]
    titles = [("Zero %s:\n" % t, n) for t, n in (
        ("below the range", "one"), ("just below the range", "two"),
        ("at the bottom of the range", "three"),
        ("within the range", "four"), ("at the top of the range", "five"),
        ("just above the range", "six"), ("above the range", "seven"))]
    return zero_family(titles, specs, syscall("ioctl"))


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
