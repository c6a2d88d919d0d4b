#!/usr/bin/python3
"""Writes desc.json for aggs/tst.allquant: what a legacy kernel recorded for the
script (see ../synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from synthdesc import *  # noqa: E402,F403


def s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def build():
    D = Desc(options=Q)
    e1 = D.clause(syscall("ioctl"))
    e2 = D.clause(syscall("ioctl"), [EXIT])
    ids = [D.agg(e1, "", "quantize") for _ in range(4)]
    p = D.new_pass()
    for i in range(64):
        x = s64(1 << i)
        for a, v in zip(ids, (x, s64(x + 1), s64(-x), s64(-x - 1))):
            p.agg(a, [], v)
    p.fire(e2, [0])
    return D


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
