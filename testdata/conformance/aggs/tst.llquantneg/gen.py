#!/usr/bin/python3
"""Writes desc.json for aggs/tst.llquantneg: what a legacy kernel recorded for the
script (see ../synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from synthdesc import *  # noqa: E402,F403


def ioctl_llq(params, incr=None, neg=False):
    D = Desc(options=Q)
    if neg:
        e1 = D.clause(syscall("ioctl"))
        e2 = D.clause(syscall("ioctl"))
        e3 = D.clause(syscall("ioctl"), [EXIT])
        a1 = D.agg(e1, "", "llquantize", **params)
        a2 = D.agg(e2, "", "llquantize", has_incr=True, **params)
        p = D.new_pass()
        i = 0
        while True:
            p.agg(a1, [], i)
            i += 1
            p.agg(a2, [], [i, -1])
            i += 1
            if i == 1500:
                p.fire(e3, [0])
                break
        return D
    e1 = D.clause(syscall("ioctl"))
    e2 = D.clause(syscall("ioctl"), [EXIT])
    if incr is None:
        a = D.agg(e1, "", "llquantize", **params)
    else:
        a = D.agg(e1, "", "llquantize", has_incr=True, **params)
    p = D.new_pass()
    for i in range(1500):
        p.agg(a, [], i if incr is None else [i, incr])
    p.fire(e2, [0])
    return D


def build():
    return ioctl_llq(dict(factor=10, low=0, high=6, nsteps=20), neg=True)


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
