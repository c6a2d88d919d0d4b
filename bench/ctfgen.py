"""ctfgen.py - the records of a bench capture as a CTF 1.8 trace, for
comparing babeltrace2 with dtconsume on the same events (bench/peers.sh:
its text and dummy sinks and its Python iteration; bench/python.sh).

Two of the bench's workloads (bench/gen -w trace|printf):
- trace: syscall:::entry { trace(arg0); } and syscall:::return
  { trace((int)arg1); trace(errno); }: every firing becomes one CTF event
  syscall_entry { int64 arg0 } or syscall_return { int32 rval; int32
  errno };
- printf: syscall:::entry { printf("%s %d %d\n", execname, pid, arg0); }:
  every firing becomes one event syscall_printf { string execname; int32
  pid; int64 arg0 } (the string NUL-terminated, as LTTng writes one: CTF
  has no fixed-size string, so the CTF trace is smaller than the capture,
  whose strings are strsize bytes).
Each event carries the firing's timestamp; one stream per CPU in time
order, packets of at most PACKET bytes.  The events are read
from the capture with dtconsume's batch reader, so both sides hold the
same data.

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

"""

# per workload: its events' metadata; an event's id is its index in the
# capture's data tables' column count map (WIDTH: columns -> event id)
EVENTS = {
    "trace": """
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
""",
    "printf": """
event {
    name = "syscall_printf";
    id = 2;
    stream_id = 0;
    fields := struct { string execname; int32_t pid; int64_t arg0; };
};
""",
}
WIDTH = {1: 0, 2: 1, 3: 2}          # data columns of a firing -> event id

HDR = struct.Struct("<IIQQQQI")     # packet header + context: 44 bytes
ENTRY = struct.Struct("<IQq")       # id, timestamp, arg0
RETURN = struct.Struct("<IQii")     # id, timestamp, rval, errno
PRINTF = struct.Struct("<IQ")       # id, timestamp; then execname, NUL,
PRINTF_TAIL = struct.Struct("<iq")  # pid, arg0


def events(capture: str) -> Dict[int, List[Tuple[int, int, tuple]]]:
    """Per CPU, (timestamp, event id, values) in time order."""
    per: Dict[int, List[Tuple[int, int, int, tuple]]] = {}
    for batch in dtconsume.open(capture).batches():
        for t in batch:
            a = t["arrays"]
            ncol = len(a["cols"])
            if not t["data"] or ncol not in WIDTH:
                continue
            cols = [c.tolist() for c in a["cols"]]
            for k, (i, ts, cpu) in enumerate(zip(a["index"].tolist(),
                                                 a["timestamp"].tolist(),
                                                 a["cpu"].tolist())):
                per.setdefault(cpu, []).append(
                    (i, ts, WIDTH[ncol], tuple(c[k] for c in cols)))
    # a CTF stream is in time order (babeltrace2's muxer refuses one
    # that goes back); a capture's CPU buffer is not across passes
    return {cpu: [(ts, eid, v) for i, ts, eid, v in
                  sorted(evs, key=lambda e: (e[1], e[0]))]
            for cpu, evs in per.items()}


def pack(eid: int, ts: int, v: tuple) -> bytes:
    if eid == 0:
        return ENTRY.pack(0, ts, v[0])
    if eid == 1:
        return RETURN.pack(1, ts, v[0], v[1])
    name = v[0].encode() if isinstance(v[0], str) else bytes(v[0])
    return PRINTF.pack(2, ts) + name + b"\0" + PRINTF_TAIL.pack(v[1], v[2])


def write(capture: str, outdir: str) -> int:
    os.makedirs(outdir, exist_ok=True)
    per = events(capture)
    ids = {eid for evs in per.values() for _, eid, _ in evs}
    with open(os.path.join(outdir, "metadata"), "w") as f:
        f.write(METADATA)
        for w in ("trace", "printf"):
            f.write(EVENTS[w])
    if not ids:
        sys.exit(f"ctfgen.py: {capture}: no trace or printf firings")
    n = 0
    for cpu, evs in sorted(per.items()):
        with open(os.path.join(outdir, f"stream_{cpu}"), "wb") as f:
            i = 0
            while i < len(evs):
                body = bytearray()
                first = evs[i][0]
                last = first
                while i < len(evs):
                    ts, eid, v = evs[i]
                    ev = pack(eid, ts, v)
                    if HDR.size + len(body) + len(ev) > PACKET:
                        break
                    body += ev
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
