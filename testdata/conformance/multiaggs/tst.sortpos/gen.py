#!/usr/bin/python3
"""Writes desc.json for multiaggs/tst.sortpos: what a legacy kernel recorded for the
script (see ../../aggs/synthdesc.py for the conventions).
Run: /usr/bin/python3 gen.py"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "aggs"))
from synthdesc import *  # noqa: E402,F403


def build():
    D = Desc(options=Q)
    D.clause(BEGIN)
    e1 = D.clause(syscall("ioctl"))
    f = "%9lli" + " %@9lli" * 6 + "\n"
    # setopt("aggsortpos", lltostr(j)): the value differs per firing, so
    # the two LIBACT string records are described raw (arg = DT_ACT_SETOPT
    # = dt_act_base 55 + 28) with their text in the record data.
    SO = {"action": 5, "size": 256, "arg": 83, "uarg": 2}
    e2 = D.clause(syscall("ioctl"), [
        {"printf": "Sorted at position %i:\n", "args": [4], "uarg": 1},
        SO, dict(SO),
        {"printa": f, "aggs": ["a", "b", "c", "a", "d", "a"], "uarg": 3},
        {"printf": "\n", "uarg": 4}])
    e3 = D.clause(syscall("ioctl"), [EXIT])
    ids = [D.agg(e1, n, "sum", K8) for n in "abcd"]
    p = D.new_pass()
    for i in range(1, 101):
        for a, off in zip(ids, (0, 25, 50, 75)):
            p.agg(a, [i], (off + i) % 100 if off else i)
    for j in range(10):
        p.fire(e2, [[j], "aggsortpos", str(j), None, []])
    p.fire(e3, [0])
    return D


if __name__ == "__main__":
    with open(os.path.join(HERE, "desc.json"), "w") as f:
        f.write(build().dumps())
