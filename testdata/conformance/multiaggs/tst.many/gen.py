#!/usr/bin/python3
"""Writes desc.json for multiaggs/tst.many: what a legacy kernel recorded for the
script (see ../../aggs/synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "aggs"))
from synthdesc import *  # noqa: E402,F403


def build():
    D = Desc(options={"destructive": 0, "quiet": 0})
    e1 = D.clause(BEGIN)
    f3 = "%8i %@8lli %@8lli\n"
    f11 = "%4i" + " %@4lli" * 11 + "\n"
    recs = [
        {"printa": f3, "aggs": ["agg0", "agg1"]}, {"printf": "\n"},
        {"printa": f3, "aggs": ["agg0", "agg996"]}, {"printf": "\n"},
        {"printa": f11, "aggs": ["agg12", "agg3", "agg73", "agg997", "agg9",
            "agg9", "agg4", "agg998", "agg11", "agg23", "agg69"]},
        {"printf": "\n"},
        {"printa": f3, "aggs": ["agg245", "agg246"]}, {"printf": "\n"},
        {"printa": f3, "aggs": ["agg999", "agg246"]}, {"printf": "\n"},
        EXIT]
    e2 = D.clause(BEGIN, recs)
    D.agg(e1, "agg996", "quantize", K4)
    D.agg(e1, "agg997", "count", K4)
    D.agg(e1, "agg998", "min", K4)
    D.agg(e1, "agg999", "lquantize", K4, base=-10, limit=10, step=1)
    p = D.new_pass()
    for k in range(247):
        p.agg(D.agg(e2, "agg%d" % k, "sum", K4), [k], k)
    p.fire(e2, [None, [], None, [], None, [], None, [], None, [], 0])
    return D


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
