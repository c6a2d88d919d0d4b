#!/usr/bin/python3
"""Writes desc.json for aggs/tst.quantzero: what a legacy kernel recorded for the
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


def build():
    D = Desc(options=Q)
    D.clause(BEGIN)
    T = tick("tick-1ms")
    D.clause(T)
    D.clause(T)
    e3 = D.clause(T)
    e4 = D.clause(T, [{"printa": None, "aggs": [""]}, EXIT])
    a = D.agg(e3, "", "quantize", [{"trace": 8}], has_incr=True)
    p = D.new_pass()
    for i, incr in zero_walk():
        p.agg(a, [i], [0, incr])
    p.fire(e4, [None, 0])
    return D


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
