"""A fleet of captures for the Dask recipe (test_fleet.py, bench/python.sh):
HOSTS hosts x PER_HOST captures of one aggregating script, written as
`dtsnap synth` descriptions (testdata/SYNTH.md) from a seeded generator,
so every run builds the same bytes.

The script they stand for (FreeBSD, quiet):

    syscall:::entry { @calls[execname] = count(); @lat = quantize(arg0);
        @bytes[execname, (int)arg1] = sum(arg2); @size[execname] = avg(arg2);
        @slow = lquantize(arg0, 0, 100, 10); @peak = max(arg2);
        @low = min(arg2); @dev = stddev(arg2); }
    profile:::profile-997 { @stacks[stack()] = count(); }

Each host runs its own mix of programs; the stacks come from one kernel
(the same ksyms in every capture: the first capture's symbols print the
merge, as dtconsume --merge-aggs does).
"""

from __future__ import annotations

import json
import os
import random
from typing import List

import util

HOSTS = 16
PER_HOST = 4
PROGRAMS = ["sshd", "bash", "nginx", "postgres", "cron", "vim", "python3",
            "java", "redis-server", "systemd"]
KSYMS = [["0xffffffff81000000", 4096, "kernel", "do_syscall_64"],
         ["0xffffffff81001000", 4096, "kernel", "vfs_read"],
         ["0xffffffff81002000", 4096, "kernel", "vfs_write"],
         ["0xffffffff81003000", 8192, "kernel", "tcp_sendmsg"],
         ["0xffffffff81005000", 4096, "kernel", "schedule"],
         ["0xffffffffc0100000", 65536, "zfs", "zio_execute"]]
BASES = [int(k[0], 16) for k in KSYMS]


def description(host: int, n: int) -> dict:
    rnd = random.Random(host * 1000 + n)
    progs = rnd.sample(PROGRAMS, 6)
    aggs = [
        {"id": 1, "epid": 1, "varid": 1, "name": "calls",
         "keys": [{"trace": "string", "size": 16}], "func": "count"},
        {"id": 2, "epid": 1, "varid": 2, "name": "lat", "func": "quantize"},
        {"id": 3, "epid": 1, "varid": 3, "name": "bytes",
         "keys": [{"trace": "string", "size": 16}, {"trace": 4}],
         "func": "sum"},
        {"id": 4, "epid": 1, "varid": 4, "name": "size",
         "keys": [{"trace": "string", "size": 16}], "func": "avg"},
        {"id": 5, "epid": 1, "varid": 5, "name": "slow",
         "func": "lquantize", "base": 0, "limit": 100, "step": 10},
        {"id": 6, "epid": 1, "varid": 6, "name": "peak", "func": "max"},
        {"id": 7, "epid": 1, "varid": 7, "name": "low", "func": "min"},
        {"id": 8, "epid": 1, "varid": 8, "name": "dev", "func": "stddev"},
        {"id": 9, "epid": 2, "varid": 9, "name": "stacks",
         "keys": [{"stack": 4}], "func": "count"},
    ]
    bufs = []
    for cpu in range(2):
        ents = []
        for _ in range(40):
            p = rnd.choice(progs)
            lat = rnd.randrange(1, 1 << rnd.randrange(1, 20))
            size = rnd.randrange(0, 65536)
            ents.append({"agg": 1, "key": [p], "data": [None]})
            ents.append({"agg": 2, "key": [], "data": [lat]})
            ents.append({"agg": 3, "key": [p, rnd.randrange(0, 8)],
                         "data": [size]})
            ents.append({"agg": 4, "key": [p], "data": [size]})
            ents.append({"agg": 5, "key": [], "data": [rnd.randrange(-5, 120)]})
            ents.append({"agg": 6, "key": [], "data": [size]})
            ents.append({"agg": 7, "key": [], "data": [size]})
            ents.append({"agg": 8, "key": [], "data": [size]})
        for _ in range(10):
            depth = rnd.randrange(1, 5)
            pcs = [hex(rnd.choice(BASES) + rnd.randrange(0, 4096))
                   for _ in range(depth)]
            ents.append({"agg": 9, "key": [pcs], "data": [None]})
        bufs.append({"cpu": cpu, "entries": ents})
    return {
        "header": {"os": "freebsd", "release": "14.1",
                   "host": f"web{host:02d}", "ncpu": 2},
        "options": {"quiet": 1},
        "probes": [{"id": 1, "provider": "syscall", "module": "freebsd",
                    "function": "read", "name": "entry"},
                   {"id": 2, "provider": "profile", "module": "",
                    "function": "", "name": "profile-997"}],
        "eprobes": [{"epid": 1, "probe": 1, "recs": [], "aggonly": True},
                    {"epid": 2, "probe": 2, "recs": [], "aggonly": True}],
        "aggs": aggs,
        "ksyms": KSYMS,
        "passes": [{"aggbufs": bufs}],
        "end": {"exit_status": 0},
    }


def make(dirname: str) -> List[str]:
    """HOSTS x PER_HOST captures in dirname (made once), in host order."""
    os.makedirs(dirname, exist_ok=True)
    paths = []
    for h in range(HOSTS):
        for n in range(PER_HOST):
            p = os.path.join(dirname, f"web{h:02d}-{n}.dtsnap")
            if not os.path.exists(p):
                d = p[:-len(".dtsnap")] + ".json"
                with open(d, "w") as f:
                    json.dump(description(h, n), f)
                if not util.synth(d, p):
                    raise RuntimeError(f"dtsnap synth {d} failed")
            paths.append(p)
    return paths
