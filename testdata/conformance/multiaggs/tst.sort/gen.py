#!/usr/bin/python3
"""Writes desc.json for multiaggs/tst.sort: what a legacy kernel recorded for the
script (see ../../aggs/synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "aggs"))
from synthdesc import *  # noqa: E402,F403


def build():
    D = Desc(options=Q)
    e1 = D.clause(syscall("ioctl"))
    f = "%10lli %@10lli %@10lli %@10lli %@10lli\n"
    e2 = D.clause(syscall("ioctl"), [{"printa": f, "aggs": list("abcd")},
        {"printa": f, "aggs": list("dcba")}, EXIT])
    ids = [D.agg(e1, n, "sum", K8) for n in "abcd"]
    p = D.new_pass()
    for i in range(1, 101):
        for a, sh in zip(ids, (2, 4, 8, 16)):
            p.agg(a, [i], 100 - i // sh)
    p.fire(e2, [None, None, 0])
    return D


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
