#!/usr/bin/python3
"""Generate testdata/samples/syscalls.json: the synth description (see
testdata/SYNTH.md) of a realistic capture of this script on a 4-CPU
FreeBSD 14.1 host, which ran for five seconds:

    #pragma D option quiet
    #pragma D option strsize=64

    dtrace:::BEGIN
    {
            printf("Tracing syscalls... Hit Ctrl-C to end.\\n");
    }

    syscall:freebsd:read:entry, syscall:freebsd:write:entry, ...
    {
            self->ts = timestamp;
    }

    syscall:freebsd:read:return, syscall:freebsd:write:return, ...
    /self->ts/
    {
            this->delta = timestamp - self->ts;
            printf("%s[%d] %s took %d us\\n", execname, pid, probefunc,
                this->delta / 1000);
            @lat[probefunc] = quantize(this->delta / 1000);
            self->ts = 0;
    }

    profile-997
    {
            @stacks[stack()] = count();
    }

    tick-5s
    {
            exit(0);
    }

    dtrace:::END
    {
            printf("\\n%-16s %s\\n", "SYSCALL", "LATENCY (us)");
            printa(@lat);
            printa(@stacks);
    }

Deterministic: a fixed seed, no clock, no environment.  Run it from
anywhere with /usr/bin/python3; it writes next to itself.

What the kernel would have recorded, and how the description says it:
- one enabled probe per matched probe (ECB); the entry clauses store
  nothing (an assignment is a size-0 DIFEXPR record), so they have size
  0 and never appear in a buffer;
- the return clauses record execname (64 bytes), pid (int, 4), probefunc
  (64) and delta / 1000 (uint64_t, 8) as one printf statement whose
  format libdtrace pickled the FreeBSD way: %d of a signed int became %i,
  of a uint64_t %llu;
- every return clause has its own aggregation (aggid) of the one
  variable @lat (varid 1): entries of one syscall go to its own aggid;
- profile-997 is an aggregation-only clause; @stacks (varid 2) keys on
  20-frame kernel stacks that the ksyms table resolves (one frame is
  left unresolved on purpose);
- 5 consume passes, 1 s apart: per pass each CPU's aggregation snapshot
  (the increments of that second) and its principal buffer; BEGIN ran on
  CPU 0 in pass 1; tick-5s called exit(0) on CPU 2, so the last status
  says exiting, and END ran on CPU 1, whose buffer is consumed last.
"""

import json
import os
import random

SEED = 20240601
NCPU = 4
NPASS = 5
RECORDS_PER_CPU_PASS = 150
STRSIZE = 64
T0 = 1_734_912_000_000          # hrtime of the first pass, ns since boot
WALL0 = 1_717_243_200_000_000_000  # 2024-06-01 12:00:00 UTC, in ns
SECOND = 1_000_000_000

# syscall, mean latency in us (log-normal), probe ids (entry, return)
SYSCALLS = [
    ("read", 40, 90620, 90621),
    ("write", 25, 90622, 90623),
    ("openat", 18, 91190, 91191),
    ("close", 4, 90630, 90631),
    ("fstat", 3, 90780, 90781),
    ("ioctl", 12, 90716, 90717),
    ("kevent", 4000, 91176, 91177),
    ("select", 9000, 90800, 90801),
    ("nanosleep", 20000, 90864, 90865),
    ("mmap", 30, 90882, 90883),
]

# execname, pid, the syscalls it makes (weights)
PROCS = [
    ("nginx", 1201, {"kevent": 5, "read": 6, "write": 6, "close": 2,
                     "openat": 2, "fstat": 2}),
    ("postgres", 1402, {"read": 8, "write": 3, "select": 2, "fstat": 1}),
    ("sshd", 812, {"select": 3, "read": 3, "write": 3}),
    ("zsh", 2210, {"read": 2, "ioctl": 3, "write": 2, "openat": 1,
                   "close": 1, "fstat": 1}),
    ("cron", 640, {"nanosleep": 1, "openat": 1, "close": 1, "fstat": 1}),
    ("syslogd", 455, {"kevent": 2, "write": 2}),
    ("python3.11", 3301, {"mmap": 2, "read": 3, "openat": 2, "fstat": 3,
                          "close": 2}),
]

# kernel symbols: module, name, address, size
KSYMS = [
    ("kernel", "fork_exit", 0xffffffff80b0d7c0, 0x90),
    ("kernel", "sched_idletd", 0xffffffff80b5e3a0, 0x6f0),
    ("kernel", "cpu_idle", 0xffffffff810b6c10, 0x120),
    ("kernel", "cpu_idle_acpi", 0xffffffff810b7e60, 0x90),
    ("kernel", "acpi_cpu_idle", 0xffffffff806d2a20, 0x380),
    ("kernel", "acpi_cpu_c1", 0xffffffff81093c50, 0x10),
    ("kernel", "amd64_syscall", 0xffffffff81092a10, 0x7b0),
    ("kernel", "fast_syscall_common", 0xffffffff81067e40, 0x101),
    ("kernel", "sys_read", 0xffffffff80c6f3e0, 0xd0),
    ("kernel", "dofileread", 0xffffffff80c6f5a0, 0x1a0),
    ("kernel", "vn_io_fault", 0xffffffff80d4c9f0, 0x1f0),
    ("kernel", "vn_io_fault1", 0xffffffff80d4cbe0, 0x230),
    ("kernel", "vn_read", 0xffffffff80d4b1c0, 0x210),
    ("kernel", "uiomove_faultflag", 0xffffffff80c2a7d0, 0x250),
    ("kernel", "sys_kevent", 0xffffffff80b9f0e0, 0xb0),
    ("kernel", "kern_kevent_generic", 0xffffffff80b9f190, 0x140),
    ("kernel", "kern_kevent", 0xffffffff80b9f2d0, 0xa0),
    ("kernel", "kern_kevent_fp", 0xffffffff80b9f370, 0x190),
    ("kernel", "kqueue_scan", 0xffffffff80ba07f0, 0x9b0),
    ("kernel", "_sleep", 0xffffffff80bf1c30, 0x260),
    ("kernel", "sleepq_timedwait_sig", 0xffffffff80c40e10, 0x80),
    ("kernel", "sleepq_catch_signals", 0xffffffff80c40890, 0x4b0),
    ("kernel", "mi_switch", 0xffffffff80bfc8d0, 0x1c0),
    ("kernel", "sched_switch", 0xffffffff80c1b250, 0x9a0),
    ("kernel", "cpu_switch", 0xffffffff81069a70, 0x1d0),
    ("kernel", "ithread_loop", 0xffffffff80b8fd00, 0x290),
    ("kernel", "gtaskqueue_thread_loop", 0xffffffff80c9b610, 0xd0),
    ("kernel", "gtaskqueue_run_locked", 0xffffffff80c9b3f0, 0x1a0),
    ("kernel", "_task_fn_rx", 0xffffffff80d95e70, 0x4c0),
    ("kernel", "iflib_rxeof", 0xffffffff80d93a60, 0xd50),
    ("kernel", "ether_input", 0xffffffff80d5a9b0, 0x90),
    ("kernel", "ether_nh_input", 0xffffffff80d5ad70, 0x370),
    ("kernel", "netisr_dispatch_src", 0xffffffff80d70c30, 0x2c0),
    ("kernel", "ether_demux", 0xffffffff80d5a650, 0x160),
    ("kernel", "ip_input", 0xffffffff80dbd850, 0x6d0),
    ("kernel", "tcp_input_with_port", 0xffffffff80de5d70, 0x1a70),
    ("kernel", "pmap_enter", 0xffffffff81072b10, 0xb10),
    ("kernel", "vm_fault", 0xffffffff80f14a00, 0x1710),
    ("kernel", "vm_fault_trap", 0xffffffff80f14830, 0x1d0),
    ("kernel", "trap_pfault", 0xffffffff81090a70, 0x240),
    ("kernel", "trap", 0xffffffff8108fef0, 0x5e0),
    ("kernel", "calltrap", 0xffffffff81067288, 0x18),
    ("zfs.ko", "zfs_freebsd_read", 0xffffffff82473f10, 0x30),
    ("zfs.ko", "zfs_read", 0xffffffff8248a720, 0x2f0),
    ("zfs.ko", "dmu_read_uio_dbuf", 0xffffffff823d6b90, 0x70),
    ("zfs.ko", "dmu_read_uio_dnode", 0xffffffff823d6a40, 0x150),
]
SYM = {name: (addr, size) for _, name, addr, size in KSYMS}

# stacks, innermost frame first (as stack() records them); one frame in
# a module without symbols stays an address
STACKS = [
    ("idle", ["acpi_cpu_c1+0x6", "acpi_cpu_idle+0x2eb", "cpu_idle_acpi+0x3e",
              "cpu_idle+0xa8", "sched_idletd+0x546", "fork_exit+0x80"]),
    ("zfsread", ["uiomove_faultflag+0x1a3", "dmu_read_uio_dnode+0x9f",
                 "dmu_read_uio_dbuf+0x3b", "zfs_read+0x1a7",
                 "zfs_freebsd_read+0x1f", "vn_read+0x1ce",
                 "vn_io_fault1+0x1c2", "vn_io_fault+0x1b0",
                 "dofileread+0x81", "sys_read+0xc1", "amd64_syscall+0x153",
                 "fast_syscall_common+0xf8"]),
    ("netrx", ["tcp_input_with_port+0x9d1", "ip_input+0x2e9",
               "netisr_dispatch_src+0xb9", "ether_demux+0x14e",
               "ether_nh_input+0x35c", "netisr_dispatch_src+0xb9",
               "ether_input+0x69", "iflib_rxeof+0xd3e", "_task_fn_rx+0x72",
               "gtaskqueue_run_locked+0x15d", "gtaskqueue_thread_loop+0xc3",
               "fork_exit+0x7f"]),
    ("kevent", ["cpu_switch+0x0", "sched_switch+0x5f2", "mi_switch+0x172",
                "sleepq_catch_signals+0x2b8", "sleepq_timedwait_sig+0x12",
                "_sleep+0x1c6", "kqueue_scan+0x94a", "kern_kevent_fp+0x97",
                "kern_kevent+0x82", "kern_kevent_generic+0x71",
                "sys_kevent+0x61", "amd64_syscall+0x153",
                "fast_syscall_common+0xf8"]),
    ("fault", ["pmap_enter+0x8a5", "vm_fault+0x10a4", "vm_fault_trap+0x6d",
               "trap_pfault+0x1f6", "trap+0x3f9", "calltrap+0x8"]),
    ("unresolved", ["0xffffffff83012345", "ithread_loop+0x1d9",
                    "fork_exit+0x7f"]),
]
STACKFRAMES = 20


def pc(frame):
    if frame.startswith("0x"):
        return int(frame, 16)
    name, off = frame.split("+")
    assert int(off, 16) < SYM[name][1], frame    # inside its function
    return SYM[name][0] + int(off, 16)


def hexnum(x):
    return "0x%x" % x


def main():
    rnd = random.Random(SEED)
    sysinfo = {s[0]: s for s in SYSCALLS}

    probes = [{"id": 1, "provider": "dtrace", "name": "BEGIN"},
              {"id": 2, "provider": "dtrace", "name": "END"},
              {"id": 3, "provider": "dtrace", "name": "ERROR"},
              {"id": 73110, "provider": "profile", "name": "profile-997"},
              {"id": 73111, "provider": "profile", "name": "tick-5s"}]
    for name, _, eid, rid in SYSCALLS:
        probes.append({"id": eid, "provider": "syscall",
                       "module": "freebsd", "function": name,
                       "name": "entry"})
        probes.append({"id": rid, "provider": "syscall",
                       "module": "freebsd", "function": name,
                       "name": "return"})

    # epids in the order libdtrace enables the clauses
    eprobes = [{"epid": 1, "probe": 1, "recs": [
        {"printf": "Tracing syscalls... Hit Ctrl-C to end.\n", "args": []}]}]
    epid = 2
    for name, _, eid, _ in SYSCALLS:
        eprobes.append({"epid": epid, "probe": eid,
                        "recs": [{"action": 1, "size": 0}]})
        epid += 1
    ret_epid = {}
    aggs = []
    for i, (name, _, _, rid) in enumerate(SYSCALLS):
        ret_epid[name] = epid
        eprobes.append({"epid": epid, "probe": rid, "recs": [
            {"action": 1, "size": 0},
            {"printf": "%s[%i] %s took %llu us\n",
             "args": ["string", 4, "string", 8]},
            {"action": 1, "size": 0}]})
        aggs.append({"id": i + 1, "epid": epid, "varid": 1, "name": "lat",
                     "keys": [{"trace": "string"}], "func": "quantize"})
        epid += 1
    prof_epid = epid
    eprobes.append({"epid": prof_epid, "probe": 73110, "recs": [],
                    "aggonly": True})
    stacks_aggid = len(aggs) + 1
    aggs.append({"id": stacks_aggid, "epid": prof_epid, "varid": 2,
                 "name": "stacks", "keys": [{"stack": STACKFRAMES}],
                 "func": "count"})
    exit_epid = epid + 1
    eprobes.append({"epid": exit_epid, "probe": 73111,
                    "recs": [{"exit": True}]})
    end_epid = epid + 2
    eprobes.append({"epid": end_epid, "probe": 2, "recs": [
        {"printf": "\n%-16s %s\n", "args": ["string", "string"]},
        {"printa": None, "aggs": ["lat"]},
        {"printa": None, "aggs": ["stacks"]}]})
    eprobes.append({"epid": end_epid + 1, "probe": 3, "error": True})

    passes = []
    for p in range(NPASS):
        start = T0 + p * SECOND
        aggbufs, bufs = [], []
        for cpu in range(NCPU):
            recs, lat = [], {}
            t = start + rnd.randrange(1000, 200000)
            if p == 0 and cpu == 0:
                recs.append({"epid": 1, "ts": t, "data": [[]]})
            for _ in range(RECORDS_PER_CPU_PASS):
                execname, pid, mix = rnd.choice(PROCS)
                names = list(mix)
                sc = rnd.choices(names, [mix[n] for n in names])[0]
                mean = sysinfo[sc][1]
                delta = int(rnd.lognormvariate(0, 1.0) * mean * 1000)
                t += rnd.randrange(2000, SECOND // (RECORDS_PER_CPU_PASS
                                                    + 10))
                recs.append({"epid": ret_epid[sc], "ts": t,
                             "data": [None, [execname, pid, sc,
                                             delta // 1000], None]})
                lat.setdefault(sc, []).append(delta // 1000)
            entries = [{"agg": i + 1, "key": [name], "data": lat[name]}
                       for i, (name, _, _, _) in enumerate(SYSCALLS)
                       if name in lat]
            # about 997 samples a second, mostly in the idle loop
            weights = [(STACKS[0], 700 + rnd.randrange(200))]
            for st in STACKS[1:]:
                if rnd.random() < 0.8:
                    weights.append((st, rnd.randrange(1, 60)))
            for (name, frames), n in weights:
                entries.append({"agg": stacks_aggid,
                                "key": [[hexnum(pc(f)) for f in frames]],
                                "value": [n]})
            aggbufs.append({"cpu": cpu, "entries": entries})
            if p == NPASS - 1 and cpu == 2:
                recs.append({"epid": exit_epid, "ts": t + 20000,
                             "data": [0]})
            if p == NPASS - 1 and cpu == 1:
                recs.append({"epid": end_epid, "ts": t + 90000,
                             "data": [["SYSCALL", "LATENCY (us)"]]})
            bufs.append({"cpu": cpu, "timestamp": start + SECOND - 1000,
                         "records": recs})
        status = {"began_on": 0}
        if p == NPASS - 1:
            status.update({"ended_on": 1, "exiting": 1, "exit_status": 0})
        passes.append({"status": status, "aggbufs": aggbufs,
                       "bufs": bufs})

    desc = {
        "header": {"os": "freebsd", "release": "14.1-RELEASE",
                   "host": "web01.example.org", "ncpu": NCPU},
        "options": {"quiet": 1, "strsize": STRSIZE, "bufsize": "4m",
                    "aggsize": "4m", "switchrate": "1hz"},
        "probes": probes,
        "eprobes": eprobes,
        "aggs": aggs,
        "ksyms": [[hexnum(a), s, m, n] for m, n, a, s in
                  sorted(KSYMS, key=lambda k: k[2])],
        "clock": {"hrtime": T0, "walltime": str(WALL0)},
        "passes": passes,
        "end": {"exit_status": 0},
    }
    write(desc, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "syscalls.json"))


def write(desc, path):
    """One JSON value per line where it helps: records, entries, rows."""
    d = lambda v: json.dumps(v, separators=(", ", ": "))
    out = ["{"]
    keys = list(desc)
    for k in keys:
        v = desc[k]
        comma = "," if k != keys[-1] else ""
        if k == "passes":
            out.append('  "passes": [')
            for i, p in enumerate(v):
                out.append("    {")
                out.append('      "status": %s,' % d(p["status"]))
                out.append('      "aggbufs": [')
                for j, ab in enumerate(p["aggbufs"]):
                    out.append('        {"cpu": %d, "entries": [' % ab["cpu"])
                    out.append(",\n".join("          " + d(e)
                                          for e in ab["entries"]))
                    out.append("        ]}" + ("," if j < len(p["aggbufs"]) - 1
                                                else ""))
                out.append("      ],")
                out.append('      "bufs": [')
                for j, b in enumerate(p["bufs"]):
                    out.append('        {"cpu": %d, "timestamp": %d, '
                               '"records": [' % (b["cpu"], b["timestamp"]))
                    out.append(",\n".join("          " + d(r)
                                          for r in b["records"]))
                    out.append("        ]}" + ("," if j < len(p["bufs"]) - 1
                                                else ""))
                out.append("      ]")
                out.append("    }" + ("," if i < len(v) - 1 else ""))
            out.append("  ]" + comma)
        elif isinstance(v, list):
            out.append('  "%s": [' % k)
            out.append(",\n".join("    " + d(e) for e in v))
            out.append("  ]" + comma)
        else:
            out.append('  "%s": %s%s' % (k, d(v), comma))
    out.append("}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
