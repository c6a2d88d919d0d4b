"""ctfgen.py - the records of a trace capture as a CTF 1.8 trace, for
comparing babeltrace2's Python iteration with dtconsume's (bench/python.sh).

The bench's trace workload (bench/gen -w trace) is syscall:::entry
{ trace(arg0); } and syscall:::return { trace((int)arg1); trace(errno); }:
every firing becomes one CTF event with the same fields, timestamp and
CPU: syscall_entry { int64 arg0 } or syscall_return { int32 rval; int32
errno }, one stream per CPU in the capture's order, packets of at most
PACKET bytes.  The events are read from the capture with dtconsume's batch
reader, so both sides hold the same data.

    python3 ctfgen.py CAPTURE OUTDIR
"""

from __future__ import annotations

import os
import struct
import sys
from typing import Dict, List, Tuple

import dtconsume

PACKET = 64 * 1024
MAGIC = 0xC1FC1FC1

METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;

trace {
    major = 1;
    minor = 8;
    byte_order = le;
    packet.header := struct {
        uint32_t magic;
        uint32_t stream_id;
    };
};

clock {
    name = monotonic;
    freq = 1000000000;
    offset = 0;
};

typealias integer {
    size = 64; align = 8; signed = false;
    map = clock.monotonic.value;
} := uint64_clock_t;

stream {
    id = 0;
    packet.context := struct {
        uint64_t packet_size;
        uint64_t content_size;
        uint64_clock_t timestamp_begin;
        uint64_clock_t timestamp_end;
        uint32_t cpu_id;
    };
    event.header := struct {
        uint32_t id;
        uint64_clock_t timestamp;
    };
};

event {
    name = "syscall_entry";
    id = 0;
    stream_id = 0;
    fields := struct { int64_t arg0; };
};

event {
    name = "syscall_return";
    id = 1;
    stream_id = 0;
    fields := struct { int32_t rval; int32_t errno; };
};
"""

HDR = struct.Struct("<IIQQQQI")     # packet header + context: 44 bytes
ENTRY = struct.Struct("<IQq")       # id, timestamp, arg0
RETURN = struct.Struct("<IQii")     # id, timestamp, rval, errno


def events(capture: str) -> Dict[int, List[Tuple[int, int, tuple]]]:
    """Per CPU, (timestamp, event id, values) in the capture's order."""
    per: Dict[int, List[Tuple[int, int, int, tuple]]] = {}
    for batch in dtconsume.open(capture).batches():
        for t in batch:
            a = t["arrays"]
            ncol = len(a["cols"])
            if not t["data"] or ncol not in (1, 2):
                continue
            cols = [c.tolist() for c in a["cols"]]
            for k, (i, ts, cpu) in enumerate(zip(a["index"].tolist(),
                                                 a["timestamp"].tolist(),
                                                 a["cpu"].tolist())):
                per.setdefault(cpu, []).append(
                    (i, ts, ncol - 1, tuple(c[k] for c in cols)))
    return {cpu: [(ts, eid, v) for _, ts, eid, v in sorted(evs)]
            for cpu, evs in per.items()}


def write(capture: str, outdir: str) -> int:
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "metadata"), "w") as f:
        f.write(METADATA)
    n = 0
    for cpu, evs in sorted(events(capture).items()):
        with open(os.path.join(outdir, f"stream_{cpu}"), "wb") as f:
            i = 0
            while i < len(evs):
                body = bytearray()
                first = evs[i][0]
                last = first
                while i < len(evs) and HDR.size + len(body) + 24 <= PACKET:
                    ts, eid, v = evs[i]
                    if eid == 0:
                        body += ENTRY.pack(0, ts, v[0])
                    else:
                        body += RETURN.pack(1, ts, v[0], v[1])
                    last = ts
                    i += 1
                    n += 1
                content = HDR.size + len(body)
                f.write(HDR.pack(MAGIC, 0, PACKET * 8, content * 8, first,
                                 last, cpu))
                f.write(body)
                f.write(b"\0" * (PACKET - content))
    return n


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: ctfgen.py CAPTURE OUTDIR")
    print(f"events={write(sys.argv[1], sys.argv[2])}")
