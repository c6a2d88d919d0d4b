"""python_cffi.py - the other way to reach libdtconsume from Python: cffi
in ABI mode over the built shared library, pulling events with dtc_reader_next
and making the same light records as dtconsume's Records (index, cpu,
timestamp, epid, values) for the data records of each probe firing.

bench/python.sh times it next to the C extension, which is why the
package is a C extension (python/README, "Why a C extension").

    python3 python_cffi.py LIBDTCONSUME.so CAPTURE
prints "records=N values=V seconds=S" (process CPU time)
"""

from __future__ import annotations

import sys
import time

import cffi

CDEF = """
typedef struct dtc_error {
    int code; int cpu; long long item; long long offset;
    char source[80]; char text[200];
} dtc_error;
typedef struct dtc_recdesc {
    uint16_t action; uint16_t alignment; uint16_t format; uint32_t size;
    uint32_t offset; uint64_t arg; uint64_t uarg;
} dtc_recdesc;
typedef struct dtc_probedesc {
    uint32_t id; const char *provider, *module, *function, *name;
    const char *fullname;
} dtc_probedesc;
typedef struct dtc_eprobedesc {
    uint32_t epid; uint32_t probeid; uint64_t uarg; uint32_t size;
    uint32_t nrecs; const dtc_recdesc *recs; const dtc_probedesc *probe;
} dtc_eprobedesc;
typedef struct dtc_value {
    uint16_t kind; uint16_t action; uint32_t size; const uint8_t *data;
    const dtc_recdesc *rd; int swapped; uint64_t u; int64_t i; uint64_t pid;
    uint64_t addr; uint32_t nframes; uint32_t pcsize; const uint8_t *pcs;
    const uint8_t *strtab; uint32_t strsize; const void *fmt; uint32_t nargs;
    const struct dtc_value *args; const void *agg; const void *ctype;
} dtc_value;
typedef struct dtc_event {
    int type; const void *reader; const char *source; uint32_t pass; int cpu;
    const void *header; const dtc_eprobedesc *ep; const dtc_probedesc *probe;
    uint64_t timestamp; int flow; int indent; uint32_t recindex;
    const dtc_value *value; int quiet, flowindent; int rawbytes;
    const void *agg; int dropkind; uint64_t count; uint32_t fault_epid;
    const void *fault_ep; const void *fault_probe; uint64_t action;
    int64_t difoffset; uint64_t fault; uint64_t fault_addr; int notice;
    const char *message; int exit_status; int complete;
    uint64_t nrecords, ndrops, nerrors;
} dtc_event;
typedef struct dtc_reader dtc_reader;
dtc_reader *dtc_reader_open_file(const char *path, unsigned flags, dtc_error *err);
int dtc_reader_next(dtc_reader *r, const dtc_event **ev, dtc_error *err);
void dtc_reader_close(dtc_reader *r);
"""

PROBE, RECORD, PROBE_END, EOF, INT = 2, 3, 4, 1, 1


def main(lib_path: str, capture: str) -> None:
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    lib = ffi.dlopen(lib_path)
    err = ffi.new("dtc_error *")
    evp = ffi.new("const dtc_event **")
    t0 = time.process_time()
    r = lib.dtc_reader_open_file(capture.encode(), 0, err)
    nrec = nval = 0
    index = 0
    cur = None
    vals: list = []
    out = []
    while True:
        rc = lib.dtc_reader_next(r, evp, err)
        if rc == EOF:
            break
        ev = evp[0]
        if ev == ffi.NULL:
            continue
        t = ev.type
        if t == RECORD:
            v = ev.value
            vals.append(v.i if v.kind == INT else ffi.string(v.data, v.size))
        elif t == PROBE:
            cur = (index, ev.cpu, ev.timestamp, ev.ep.epid)
            vals = []
        elif t == PROBE_END:
            out.append(cur + (tuple(vals),))
            index += 1
            nval += len(vals)
            if len(out) >= 4096:       # as an iterator would hand them out
                nrec += len(out)
                out = []
    nrec += len(out)
    lib.dtc_reader_close(r)
    print(f"records={nrec} values={nval} "
          f"seconds={time.process_time() - t0:.3f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
