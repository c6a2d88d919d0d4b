#!/usr/bin/python3
"""Writes desc.json for aggs/tst.quantmany: what a legacy kernel recorded for the
script (see ../synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from synthdesc import *  # noqa: E402,F403


def build():
    D = Desc(options=Q)
    D.clause(syscall("ioctl"))
    e2 = D.clause(syscall("ioctl"), [EXIT])
    D.clause(syscall("ioctl"))
    e4 = D.clause(syscall("ioctl"))
    a = D.agg(e4, "", "quantize", K8, has_incr=True)
    p = D.new_pass()
    val = shift = 0
    while True:
        if val == 0:
            val = -(1 << shift)
            shift += 1
        if shift == 32:
            p.fire(e2, [0])
            break
        if val == -1:
            val = 1 << shift
        p.agg(a, [shift], [val, val])
        val >>= 1
    return D


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
