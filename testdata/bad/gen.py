#!/usr/bin/python3
"""gen.py - build the malformed-input corpus testdata/bad/.

Every case is one damaged .dtsnap capture with what dtconsume must make of
it.  A case is a directory:

    <case>/input.dtsnap   the capture
    <case>/about          one line: what was damaged and what must survive
    <case>/stderr         the exact stderr of `dtconsume input.dtsnap`, run
                          in the case directory ("dtconsume: input.dtsnap:
                          item N, cpu C, offset O: message" lines, and the
                          drop/error lines dtrace(1) itself would print)
    <case>/stdout         the exact stdout: what is still decoded
    <case>/exit           the exit status
    <case>/needs-ctf      present when the expected output prints print()
                          by its types (bad.sh skips it without GNU libctf)

Everything is derived here, independently of the decoder: the base capture
is laid out by hand (record headers, alignment, aggregation entries, as the
kernel writes them), its output is the concatenation of the texts of the
printf records in libdtrace's consume order, and each case names the
records it loses and the messages (with item indexes and byte offsets
computed from the encoding) it must produce.  cmd/tests/bad.sh compares.

Run with /usr/bin/python3 (python3-cbor2); the output is deterministic:
    /usr/bin/python3 testdata/bad/gen.py [outdir]   (default: beside gen.py)
"""

import io
import os
import shutil
import struct
import sys

import cbor2

PROG = "dtconsume"
FILE = "input.dtsnap"

# DTrace ABI numbers (sys/dtrace.h)
ACT_DIFEXPR, ACT_EXIT, ACT_PRINTF, ACT_PRINTA = 1, 2, 3, 4
ACT_USTACK, ACT_STACK = 0x0101, 0x0401
AGG_COUNT = 0x0701


# ------------------------------------------------------------------ items

def item(t, **kw):
    """A container item: a map with "t" first, as writers put it."""
    d = {"t": t}
    d.update(kw)
    return d


def rec(action, size, offset, align=None, fmt=0, arg=0, uarg=0):
    return {"action": action, "size": size, "offset": offset,
            "alignment": align if align is not None else min(size, 8) or 1,
            "format": fmt, "arg": arg, "uarg": uarg}


class Raw(bytes):
    """An item given as its exact bytes (for damage CBOR cannot express)."""


def enc(x):
    return bytes(x) if isinstance(x, Raw) else cbor2.dumps(x)


def layout(items):
    """Encoded bytes and the byte offset of every item."""
    out, offs = b"", []
    for x in items:
        offs.append(len(out))
        out += enc(x)
    return out, offs


def data_offset(items, index, key="data"):
    """File offset of the first byte of a byte string value of an item."""
    _, offs = layout(items)
    e = enc(items[index])
    v = items[index][key]
    head = cbor2.dumps(v)[: len(cbor2.dumps(v)) - len(v)]
    pos = e.find(cbor2.dumps(key) + head + v)
    assert pos >= 0
    return offs[index] + pos + len(cbor2.dumps(key)) + len(head)


# ---------------------------------------------------------- buffer layout

def rechdr(epid, ts):
    # dtrace_rechdr_t: the EPID, then the timestamp high word first
    return struct.pack("<III", epid, ts >> 32, ts & 0xffffffff)


# The base program (quiet), one statement per clause:
#   BEGIN             { printf("hello from BEGIN\n"); }
#   syscall::read:entry { printf("read fd %d\n", (int)arg0); @reads[execname] = count(); }
#   syscall::write:entry { printf("write %d bytes\n", arg2); }
#   END               { printa("%-10s %@u\n", @reads); }
FMT_HELLO, FMT_READ, FMT_WRITE, FMT_PRINTA = 1, 2, 3, 4
FORMATS = {FMT_HELLO: "hello from BEGIN\n", FMT_READ: "read fd %d\n",
           FMT_WRITE: "write %d bytes\n", FMT_PRINTA: "%-10s %@u\n"}

EP_BEGIN, EP_READ, EP_WRITE, EP_END = 1, 2, 3, 4
SIZES = {EP_BEGIN: 16, EP_READ: 16, EP_WRITE: 24, EP_END: 24}


# Each record: its bytes, the text its printf prints (None: END's
# printa) and its probe (id, "function:name") for non-quiet output.
def r_begin(ts):
    return (rechdr(EP_BEGIN, ts) + struct.pack("<I", 0),
            "hello from BEGIN\n", (1, ":BEGIN"))


def r_read(ts, fd):
    return (rechdr(EP_READ, ts) + struct.pack("<i", fd),
            "read fd %d\n" % fd, (2, "read:entry"))


def r_write(ts, n):
    # the 8-byte value is 8-aligned at offset 16: 4 bytes of padding
    return (rechdr(EP_WRITE, ts) + b"\0" * 4 + struct.pack("<q", n),
            "write %d bytes\n" % n, (3, "write:entry"))


def r_end(ts):
    return (rechdr(EP_END, ts) + b"\0" * 4 + struct.pack("<q", 1), None,
            (4, ":END"))


AGG_SIZE = 40


def aggent(key, count, aggid=1):
    # aggid, 4 stale bytes, varid (int64), key string[16], count
    k = key.encode() + b"\0" * (16 - len(key))
    return struct.pack("<II", aggid, 0) + struct.pack("<q", 1) + k + \
        struct.pack("<Q", count)


def printa_text(counts):
    # printa("%-10s %@u\n", @reads): rows by value, then by key
    rows = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return "".join("%-10s %u\n" % (k, v) for k, v in rows)


def exit_text(counts):
    # the end-of-run printing of an aggregation printa never printed
    # (libdtrace-text-facts 11.4): "  %-50s %16lld" rows, by value
    rows = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return "".join("  %-50s %16d\n" % (k, v) for k, v in rows)


class Base:
    """The intact capture, as items, with what decoding it prints."""

    def __init__(self):
        self.items = []
        self.idx = {}
        hdr = item("dtsnap", version=[1, 0], byteorder="little",
                   model="LP64", os="FreeBSD", release="14.1-RELEASE",
                   host="fixture", ncpu=2, dt_act_base=55,
                   producer="testdata/bad/gen.py")
        self.add("header", hdr)
        self.add("options", item("options", options={"quiet": "set"}))
        for pid, (prov, fn, nm) in enumerate([
                ("dtrace", "", "BEGIN"), ("syscall", "read", "entry"),
                ("syscall", "write", "entry"), ("dtrace", "", "END")], 1):
            self.add("probe%d" % pid, item("probe", id=pid, provider=prov,
                                           module="", function=fn, name=nm))
        for fid, s in FORMATS.items():
            self.add("format%d" % fid, item("format", id=fid, string=s))
        self.add("eprobe1", item("eprobe", epid=EP_BEGIN, probe=1, uarg=0,
                 size=16, recs=[rec(ACT_PRINTF, 4, 12, fmt=FMT_HELLO,
                                    uarg=1)]))
        self.add("eprobe2", item("eprobe", epid=EP_READ, probe=2, uarg=0,
                 size=16, recs=[rec(ACT_PRINTF, 4, 12, fmt=FMT_READ,
                                    uarg=2)]))
        self.add("eprobe3", item("eprobe", epid=EP_WRITE, probe=3, uarg=0,
                 size=24, recs=[rec(ACT_PRINTF, 8, 16, fmt=FMT_WRITE,
                                    uarg=3)]))
        self.add("eprobe4", item("eprobe", epid=EP_END, probe=4, uarg=0,
                 size=24, recs=[rec(ACT_PRINTA, 8, 16, fmt=FMT_PRINTA,
                                    uarg=4)]))
        self.add("agg1", item("agg", id=1, epid=EP_READ, varid=1,
                 name="reads", size=AGG_SIZE, flags=0,
                 recs=[rec(ACT_DIFEXPR, 8, 8),
                       rec(ACT_DIFEXPR, 16, 16, align=1),
                       rec(AGG_COUNT, 8, 32)]))
        # pass 1: BEGIN ran on CPU 0
        self.add("status1", item("status", **{
            "pass": 1, "began_on": 0, "ended_on": -1, "exiting": 0,
            "exit_status": 0, "dynamic": 0, "dynrinse": 0, "dyndirty": 0,
            "spec": 0, "specbusy": 0, "specunavail": 0,
            "stkstroverflow": 0, "dblerrors": 0, "errors": 0}))
        self.aggbufs = {
            "aggbuf1.0": [("bash", 2), ("sshd", 1)],
            "aggbuf1.1": [("bash", 1), ("cron", 5)],
            "aggbuf2.0": [("bash", 1)],
        }
        self.add_aggbuf("aggbuf1.0", 1, 0)
        self.add_aggbuf("aggbuf1.1", 1, 1)
        # the records of each buffer, with the text each one prints
        self.recs = {
            "buf1.0": [r_begin(100), r_read(110, 3), r_read(120, 4),
                       r_write(130, 100)],
            "buf1.1": [r_read(115, 5), r_write(125, 200)],
            "buf2.0": [r_write(210, 300)],
            "buf2.1": [r_read(205, 6), r_end(220)],
        }
        self.add_buf("buf1.0", 1, 0, 1000)
        self.add_buf("buf1.1", 1, 1, 1000)
        # pass 2: tracing stopped, END ran on CPU 1 (consumed last)
        self.add("status2", item("status", **{
            "pass": 2, "began_on": 0, "ended_on": 1, "exiting": 1,
            "exit_status": 0, "dynamic": 0, "dynrinse": 0, "dyndirty": 0,
            "spec": 0, "specbusy": 0, "specunavail": 0,
            "stkstroverflow": 0, "dblerrors": 0, "errors": 0}))
        self.add_aggbuf("aggbuf2.0", 2, 0)
        self.add_buf("buf2.0", 2, 0, 2000)
        self.add_buf("buf2.1", 2, 1, 2000)
        self.add("end", item("end", exit_status=0))

    def add(self, name, it):
        self.idx[name] = len(self.items)
        self.items.append(it)

    def add_aggbuf(self, name, pas, cpu):
        data = b"".join(aggent(k, v) for k, v in self.aggbufs[name])
        self.add(name, item("aggbuf", **{"pass": pas, "cpu": cpu,
                                         "data": data, "drops": 0}))

    def add_buf(self, name, pas, cpu, ts):
        data = b"".join(r[0] for r in self.recs[name])
        self.add(name, item("buf", **{"pass": pas, "cpu": cpu, "data": data,
                                      "drops": 0, "errors": 0, "oldest": 0,
                                      "timestamp": ts}))

    def i(self, name):
        return self.idx[name]

    def off(self, name):
        return layout(self.items)[1][self.idx[name]]

    def doff(self, name):
        return data_offset(self.items, self.idx[name])

    def text(self, buf, k):
        return self.recs[buf][k][1]

    def counts(self, *aggbufs):
        c = {}
        for name in aggbufs:
            for k, v in self.aggbufs[name]:
                c[k] = c.get(k, 0) + v
        return c

    def stdout(self, lose=(), printa=True, aggs=None, exit_aggs=False,
               quiet=True):
        """What decoding prints: buffers in consume order (BEGIN CPU
        first, END CPU last), minus the records in lose ((buf, k) pairs or
        whole buffer names).  Not quiet, dtrace(1) prints its heading
        once, then "%3d %6d %32s " (CPU, probe id, function:name) before
        and a newline after each record set."""
        out = ""
        for buf in ("buf1.0", "buf1.1", "buf2.0", "buf2.1"):
            cpu = int(buf[-1])
            for k, (_, text, (pid, fn)) in enumerate(self.recs[buf]):
                if buf in lose or (buf, k) in lose:
                    continue
                if not quiet:
                    if out == "":
                        out = "%3s %6s %32s\n" % ("CPU", "ID",
                                                  "FUNCTION:NAME")
                    out += "%3d %6d %32s " % (cpu, pid, fn)
                if text is None:       # END's printa
                    if printa:
                        out += printa_text(self.counts(*(aggs or (
                            "aggbuf1.0", "aggbuf1.1", "aggbuf2.0"))))
                else:
                    out += text
                if not quiet:
                    out += "\n"
        # dtrace(1)'s end-of-run newline, before the exit printings
        out += "\n"
        if exit_aggs:
            out += exit_text(self.counts(*(aggs or (
                "aggbuf1.0", "aggbuf1.1", "aggbuf2.0"))))
        return out


def msg(item=None, cpu=None, offset=None, text=""):
    where = []
    if item is not None:
        where.append("item %d" % item)
    if cpu is not None:
        where.append("cpu %d" % cpu)
    if offset is not None:
        where.append("offset %d" % offset)
    loc = ", ".join(where)
    return "%s: %s: %s%s\n" % (PROG, FILE, loc + ": " if loc else "", text)


# ------------------------------------------------------------------ cases

def case_registry(cases):
    """A @case(name, about, base=None) decorator that adds each case to
    cases as (name, about, fn, base): gen_diag.py and gen_esc.py keep
    lists of their own."""
    def case(name, about, base=None):
        def deco(fn):
            cases.append((name, about, fn, base))
            return fn
        return deco
    return case


CASES = []
case = case_registry(CASES)


def with_item(b, which, **changes):
    """Replace keys of a named item (None deletes the key)."""
    it = dict(b.items[b.i(which)])
    for k, v in changes.items():
        if v is None:
            it.pop(k, None)
        else:
            it[k] = v
    b.items[b.i(which)] = it


def insert_before(b, name, *new):
    """Insert items before a named one; names after it shift."""
    at = b.i(name)
    b.items[at:at] = list(new)
    for k, v in b.idx.items():
        if v >= at:
            b.idx[k] = v + len(new)


def set_buf(b, name, data):
    with_item(b, name, data=data)


# -- the container -------------------------------------------------------

@case("intact", "the base capture, undamaged: the reference for every case")
def c_intact(b):
    return layout(b.items)[0], "", b.stdout(), 0


class _Stop(Exception):
    """(offset, message) of the decoder's error"""


MAX_ITEM = 1 << 32      # DTCP_MAX_ITEM: bytes in one container item
MAX_NODES = 1 << 26     # DTCP_MAX_NODES: CBOR data items in one item


def cut_short(data, start):
    """(offset, message) for a capture that ends inside the item at start,
    walking its RFC 8949 heads as the decoder meets them.  A string longer
    than an item may be, or a collection of more data items than an item
    may hold, is refused where its head is.  Otherwise the message names
    what was declared and cannot be there: the outermost array or map
    whose count cannot fit in the bytes left from its head (each element
    takes a byte), else the string the end fell into."""
    end = len(data)
    names = {2: "a byte string", 3: "a text string", 4: "an array",
             5: "a map"}
    tight = []          # collections that cannot fit (so cannot end)

    def cut(detail=""):
        if tight:
            detail = tight[0]
        raise _Stop((start, "capture cut short at byte %d%s" %
                     (start, ": " + detail if detail else "")))

    def item(p):
        if p >= end:
            cut()
        major, ai = data[p] >> 5, data[p] & 31
        if ai < 24:
            hs, val = 1, ai
        elif ai <= 27:
            hs = 1 + (1 << (ai - 24))
            if p + hs > end:
                cut()
            val = int.from_bytes(data[p + 1:p + hs], "big")
        else:
            hs, val = 1, None                   # indefinite
        if major in (2, 3) and val is not None:
            if val > MAX_ITEM:
                raise _Stop((p, "%s of %d bytes at byte %d is larger than "
                             "an item may be (%d bytes)" %
                             (names[major], val, p, MAX_ITEM)))
            if val > end - p - hs:
                cut("%s of %d bytes at byte %d runs past the end (%d bytes "
                    "left)" % (names[major], val, p, end - p - hs))
            return p + hs + val
        if major in (2, 3, 4, 5) and val is None:
            q = p + 1
            while q < end and data[q] != 0xff:
                q = item(q)
            if q >= end:
                cut()
            return q + 1
        if major in (4, 5):
            want = val * 2 if major == 5 else val
            what = "%s of %d %s at byte %d" % (
                names[major], val, "pairs" if major == 5 else "elements", p)
            if want > MAX_NODES:
                raise _Stop((p, "%s: more than the %d data items an item "
                             "may hold" % (what, MAX_NODES)))
            if want > end - p:
                tight.append("%s cannot fit in the %d bytes left" %
                             (what, end - p))
            q = p + hs
            for _ in range(want):
                q = item(q)
            return q
        if major == 6:
            return item(p + hs)
        if p + hs > end:
            cut()
        return p + hs

    try:
        item(start)
    except _Stop as e:
        return e.args[0]
    raise AssertionError("the item at %d is whole" % start)


@case("empty-file", "an empty file: not a capture (said as such, not as a "
      "capture cut short)")
def c_empty(b):
    return b"", msg(0, None, 0, "empty file (0 bytes): not a capture"), "", 1


def sync(diag, lost, found):
    """The warning of a resynchronization: why the bytes at lost are not
    an item, and where the next item was found (dtsnap(5) DAMAGE AND
    RESYNCHRONIZATION)."""
    return "%s; sync lost at byte %d, found again at byte %d" % (
        diag, lost, found)


@case("not-cbor", "an ELF file: not a capture at all")
def c_elf(b):
    data = b"\x7fELF\x02\x01\x01\x00" + b"\0" * 56
    return data, msg(0, None, 0, "not a dtsnap capture: it does not start "
                     "with a CBOR map"), "", 1


@case("first-item-array", "the first item is an array holding the header")
def c_first_array(b):
    data = cbor2.dumps([b.items[0]]) + layout(b.items[1:])[0]
    return data, msg(0, None, 0, "not a dtsnap capture: it does not start "
                     "with a CBOR map"), "", 1


@case("first-item-probe", "the header is missing: the first item is the "
      "options item")
def c_first_probe(b):
    data = layout(b.items[1:])[0]
    return data, msg(0, None, 0, "not a dtsnap capture: its first item is "
                     "of kind 'options', not the dtsnap header"), "", 1


@case("header-no-t", "the header map has no \"t\" key")
def c_header_no_t(b):
    h = dict(b.items[0])
    del h["t"]
    b.items[0] = h
    return layout(b.items)[0], msg(0, None, 0, "not a dtsnap capture: the "
                                   "first item has no text key 't'"), "", 1


@case("version-2", "the header says version [2, 0]: a major version this "
      "reader does not know")
def c_version2(b):
    with_item(b, "header", version=[2, 0])
    e = enc(b.items[0])
    off = e.find(cbor2.dumps("version")) + len(cbor2.dumps("version"))
    return layout(b.items)[0], msg(0, None, off, "unsupported capture "
                                   "version 2.0 (this reader knows 1.x)"), \
        "", 1


@case("version-text", "the header's version is the text \"1.0\"")
def c_version_text(b):
    with_item(b, "header", version="1.0")
    e = enc(b.items[0])
    off = e.find(cbor2.dumps("version")) + len(cbor2.dumps("version"))
    return layout(b.items)[0], msg(0, None, off, "dtsnap header has no "
                                   "version [major, minor]"), "", 1


@case("duplicate-header", "a copy of the dtsnap header after the options "
      "item: skipped, everything else decoded")
def c_dup_header(b):
    insert_before(b, "probe1", b.items[0])
    return layout(b.items)[0], msg(2, None, b.off("probe1") - len(
        enc(b.items[0])), "item at byte %d is a copy of the dtsnap header; "
        "skipped" % (b.off("probe1") - len(enc(b.items[0])))), b.stdout(), 1


@case("second-header", "the header of another capture (no seq: a writer "
      "before 1.3) after the options item: skipped, everything else decoded")
def c_second_header(b):
    other = dict(b.items[0], host="elsewhere")
    insert_before(b, "probe1", other)
    o = b.off("probe1") - len(enc(other))
    return layout(b.items)[0], msg(2, None, o, "second dtsnap header at "
                                   "byte %d; skipped" % o), b.stdout(), 1


@case("item-array", "an array where an item should be (between the two "
      "passes): its bytes are skipped to the next item, nothing is lost")
def c_item_array(b):
    insert_before(b, "status2", [1, 2, 3])
    o = b.off("status2") - len(cbor2.dumps([1, 2, 3]))
    return layout(b.items)[0], msg(b.i("status2") - 1, None, o,
                                   sync("item at byte %d is an array, not "
                                        "a map" % o, o, b.off("status2"))), \
        b.stdout(), 1


@case("item-no-t", "a map without \"t\" between the passes: skipped")
def c_item_no_t(b):
    x = {"pass": 2}
    insert_before(b, "status2", x)
    o = b.off("status2") - len(cbor2.dumps(x))
    return layout(b.items)[0], msg(b.i("status2") - 1, None, o,
                                   "item at byte %d has no text key 't'; "
                                   "skipped" % o), b.stdout(), 1


@case("item-t-int", "an item whose \"t\" is the integer 7: skipped")
def c_item_t_int(b):
    x = {"t": 7, "pass": 2}
    insert_before(b, "status2", x)
    o = b.off("status2") - len(cbor2.dumps(x))
    return layout(b.items)[0], msg(b.i("status2") - 1, None, o,
                                   "item at byte %d has no text key 't'; "
                                   "skipped" % o), b.stdout(), 1


@case("unknown-kind", "an item of an unknown kind in a capture of a newer "
      "minor version (1.9): skipped silently (the format may grow)")
def c_unknown_kind(b):
    b.items[0] = dict(b.items[0], version=[1, 9])
    insert_before(b, "status2", item("future", stuff=[1, 2]))
    return layout(b.items)[0], "", b.stdout(), 0


@case("unknown-kind-1.0", "an item of a kind no version 1.0 capture has "
      "(minor versions add kinds): not the format's, skipped with a "
      "message, everything else decoded")
def c_unknown_kind_10(b):
    insert_before(b, "status2", item("future", stuff=[1, 2]))
    o = b.off("status2") - len(enc(item("future", stuff=[1, 2])))
    return layout(b.items)[0], msg(b.i("status2") - 1, None, o, "item at "
                                   "byte %d is of kind 'future', which no "
                                   "capture of version 1.0 has; skipped" % o), \
        b.stdout(), 1


@case("reserved-head", "the first byte of the pass-2 status item replaced "
      "by 0x1c (a reserved CBOR head): that item is lost, the reader finds "
      "the next (pass 2's aggbuf) and everything is printed (the status "
      "item changes nothing printed here)")
def c_reserved(b):
    data, offs = layout(b.items)
    i = b.i("status2")
    o = offs[i]
    data = data[:o] + b"\x1c" + data[o + 1:]
    return data, msg(i, None, o, sync("not CBOR at byte %d" % o, o,
                                      offs[i + 1])), b.stdout(), 1


@case("stray-break", "a CBOR break byte (0xff) where the pass-2 status "
      "item should start: one byte skipped, nothing lost")
def c_break(b):
    data, offs = layout(b.items)
    o = offs[b.i("status2")]
    data = data[:o] + b"\xff" + data[o:]
    return data, msg(b.i("status2"), None, o, sync(
        "not CBOR at byte %d: unexpected break" % o, o, o + 1)), \
        b.stdout(), 1


@case("trailing-garbage", "half an item after the end item")
def c_trailing(b):
    data = layout(b.items)[0]
    n = len(data)
    data += b"\xa2\x61t"
    return data, msg(len(b.items), None, *cut_short(data, n)), \
        b.stdout(), 1


def cut_case(name, at_item, frac, about, lose, aggs, exit_aggs):
    @case(name, about)
    def fn(b):
        data, offs = layout(b.items)
        i = b.i(at_item)
        cut = offs[i] + max(1, int(len(enc(b.items[i])) * frac))
        return data[:cut], msg(i, None,
                               *cut_short(data[:cut], offs[i])), \
            (b.stdout(lose=lose, aggs=aggs, exit_aggs=exit_aggs)
             if lose is not None else ""), 1
    return fn


cut_case("cut-in-header", "header", 0.5,
         "cut in the middle of the header: nothing to decode", None, None,
         False)
cut_case("cut-in-eprobe", "eprobe3", 0.5,
         "cut inside the third eprobe item: no buffer was reached",
         ("buf1.0", "buf1.1", "buf2.0", "buf2.1"), None, False)
cut_case("cut-in-buf", "buf1.1", 0.7,
         "cut inside CPU 1's pass-1 buffer: CPU 0's pass-1 records are "
         "decoded and the aggregation snapshots of pass 1 printed at the end",
         ("buf1.1", "buf2.0", "buf2.1"), ("aggbuf1.0", "aggbuf1.1"), True)
cut_case("cut-in-aggbuf", "aggbuf2.0", 0.6,
         "cut inside pass 2's aggregation buffer: pass 1 decoded",
         ("buf2.0", "buf2.1"), ("aggbuf1.0", "aggbuf1.1"), True)


@case("no-end-item", "the capture stops cleanly after its last buffer, "
      "without the end item (a recorder killed, a copy cut at an item's "
      "end): everything decoded, and said to stop there")
def c_no_end(b):
    data, offs = layout(b.items[:-1])
    n = len(b.items) - 2
    return data, msg(n, None, len(data), "capture ends without its end "
                     "item: output stops at byte %d, after item %d" %
                     (len(data), n)), b.stdout(), 1


@case("bytes-2p60", "CPU 1's pass-1 buffer claims 2^60 bytes of data: "
      "refused at its head, as larger than an item may be; that buffer is "
      "lost, the reader finds the pass-2 status item and goes on")
def c_2p60(b):
    data, offs = layout(b.items)
    i = b.i("buf1.1")
    e = enc(b.items[i])
    d = b.items[i]["data"]
    head = cbor2.dumps(d)[:-len(d)]
    pos = e.find(head + d)
    e = e[:pos] + b"\x5b" + struct.pack(">Q", 1 << 60) + e[pos + len(head):]
    data = data[:offs[i]] + e + data[offs[i + 1]:]
    where, why = cut_short(data, offs[i])
    return data, msg(i, None, where, sync(why, offs[i], offs[i] + len(e))), \
        b.stdout(lose=("buf1.1",)), 1


@case("recs-1e9", "eprobe 3's recs array claims 10^9 elements, more than "
      "an item may hold: refused at its head, the eprobe item is lost and "
      "the reader goes on with the next item; each buffer holding a write "
      "record is then skipped from it on, as for an eprobe without size")
def c_1e9(b):
    data, offs = layout(b.items)
    i = b.i("eprobe3")
    e = enc(b.items[i])
    r = b.items[i]["recs"]
    pos = e.find(cbor2.dumps(r))
    e = e[:pos] + b"\x9a" + struct.pack(">I", 10 ** 9) + e[pos + 1:]
    b.items[i] = Raw(e)             # 4 bytes longer: later offsets move
    data = layout(b.items)[0]
    where, why = cut_short(data, offs[i])
    return data, msg(i, None, where, sync(why, offs[i], offs[i] + len(e))) + \
        unknown_write(b), \
        b.stdout(lose=(("buf1.0", 3), ("buf1.1", 1), ("buf2.0", 0))), 1


def unknown_write(b):
    """The messages of a capture whose eprobe 3 (write:entry) is unknown:
    each buffer holding a write record is skipped from that record on."""
    return msg(b.i("buf1.0"), 0, b.doff("buf1.0") + 48, "unknown enabled "
               "probe id 3 at buffer offset 48; the rest of this buffer (24 "
               "bytes) is skipped") + \
        msg(b.i("buf1.1"), 1, b.doff("buf1.1") + 16, "unknown enabled probe "
            "id 3 at buffer offset 16; the rest of this buffer (24 bytes) is "
            "skipped") + \
        msg(b.i("buf2.0"), 0, b.doff("buf2.0"), "unknown enabled probe id 3 "
            "at buffer offset 0; the rest of this buffer (24 bytes) is "
            "skipped")


@case("indef-bytes", "CPU 1's pass-1 buffer data is an indefinite-length "
      "(chunked) byte string: that item is skipped, the rest decoded")
def c_indef(b):
    data, offs = layout(b.items)
    i = b.i("buf1.1")
    e = enc(b.items[i])
    d = b.items[i]["data"]
    head = cbor2.dumps(d)[:-len(d)]
    pos = e.find(head + d)
    chunked = b"\x5f" + cbor2.dumps(d[:16]) + cbor2.dumps(d[16:]) + b"\xff"
    e = e[:pos] + chunked + e[pos + len(head) + len(d):]
    data = data[:offs[i]] + e + data[offs[i + 1]:]
    o = offs[i] + pos
    return data, msg(i, None, o, "indefinite-length byte string at byte %d "
                     "is not supported; item skipped" % o), \
        b.stdout(lose=("buf1.1",)), 1


@case("deep-nesting", "an unknown key of the options item nests 100 arrays, "
      "deeper than the 64 levels the reader decodes: the value is read past "
      "with a warning, the item is kept and nothing is lost")
def c_deep(b):
    data, offs = layout(b.items)
    i = b.i("options")
    it = dict(b.items[i])
    it["x"] = 0
    e = cbor2.dumps(it)
    tail = cbor2.dumps("x") + b"\x00"
    assert e.endswith(tail)
    e = e[:-1] + b"\x81" * 100 + b"\x00"
    data = data[:offs[i]] + e + data[offs[i + 1]:]
    # map (1) + the 65th level: the 64th array opened is at depth 65, and
    # the value it starts runs to the item's last byte (the 0 inside)
    o = offs[i] + len(cbor2.dumps(it)) - 1 + 63
    last = offs[i] + len(e) - 1
    return data, msg(i, None, o, "a value nested deeper than 64 levels "
                     "(bytes %d-%d) is not a dtsnap value; read past it" %
                     (o, last)), b.stdout(), 1


# -- damage to the structure, and resynchronization (dtsnap(5) DAMAGE AND
# RESYNCHRONIZATION): every case keeps every record outside the damaged
# item, and none is silent

def splice(b, name, e):
    """The capture with the encoding of a named item replaced by e: its
    bytes, the item's offset and the offset just past it."""
    data, offs = layout(b.items)
    i = b.i(name)
    start, end = offs[i], offs[i] + len(enc(b.items[i]))
    return data[:start] + e + data[end:], start, start + len(e)


def add_pair(e, key, raw):
    """An item's encoding with one more pair, raw being the value's exact
    bytes (for values cbor2 will not write); the map head is one byte."""
    assert 0xa1 <= e[0] <= 0xb6
    return bytes([e[0] + 1]) + e[1:] + cbor2.dumps(key) + raw


@case("map-pair-extra", "CPU 1's pass-1 buffer item's map head says 9 pairs "
      "(it holds 8): the ninth key would be the pass-2 status item.  The "
      "reader sees an item start inside the item, reads the buffer as its 8 "
      "pairs, says so, and goes on with the status item: nothing lost")
def c_pair_extra(b):
    i = b.i("buf1.1")
    e = enc(b.items[i])
    assert e[0] == 0xa8
    data, start, end = splice(b, "buf1.1", b"\xa9" + e[1:])
    return data, msg(i, None, start, "a map of 9 pairs at byte %d runs into "
                     "the item at byte %d: read as the 8 pairs before it" %
                     (start, end)), b.stdout(), 1


@case("map-pair-extra-header", "the header's map head says one pair more "
      "than it holds, so the options item would be its last key: the header "
      "is read as its 10 pairs, with a warning, and the options item is "
      "still read (quiet output)")
def c_pair_extra_hdr(b):
    e = enc(b.items[0])
    assert e[0] == 0xaa
    data, start, end = splice(b, "header", b"\xab" + e[1:])
    return data, msg(0, None, 0, "a map of 11 pairs at byte 0 runs into the "
                     "item at byte %d: read as the 10 pairs before it" %
                     end), b.stdout(), 1


@case("map-pair-missing", "CPU 1's pass-1 buffer item's map head says 7 "
      "pairs (it holds 8): the item ends before its last pair "
      "(timestamp: 1000), whose key is then where an item should start.  "
      "The buffer is read without its timestamp (not temporal: nothing "
      "changes), the reader skips the pair's bytes to the status item")
def c_pair_missing(b):
    i = b.i("buf1.1")
    e = enc(b.items[i])
    last = cbor2.dumps("timestamp") + cbor2.dumps(1000)
    assert e.endswith(last)
    data, start, end = splice(b, "buf1.1", b"\xa7" + e[1:])
    o = end - len(last)
    return data, msg(i + 1, None, o, sync("item at byte %d is text, not a "
                                          "map" % o, o, end)), \
        b.stdout(), 1


@case("stray-bytes-between", "three stray bytes (1, 2, 3) between CPU 1's "
      "pass-1 buffer and the pass-2 status item: one warning for the three, "
      "nothing lost")
def c_stray_between(b):
    data, offs = layout(b.items)
    o = offs[b.i("status2")]
    data = data[:o] + b"\x01\x02\x03" + data[o:]
    return data, msg(b.i("status2"), None, o, sync(
        "item at byte %d is an unsigned integer, not a map" % o, o, o + 3)), \
        b.stdout(), 1


@case("stray-map-head", "a stray map head (0xa1, one pair) right before the "
      "pass-2 status item, which would be its key: an item start inside "
      "it, so the byte is skipped and nothing is lost")
def c_stray_map(b):
    data, offs = layout(b.items)
    o = offs[b.i("status2")]
    data = data[:o] + b"\xa1" + data[o:]
    return data, msg(b.i("status2"), None, o, sync(
        "item at byte %d has no text key 't'" % o, o, o + 1)), \
        b.stdout(), 1


@case("garbage-tail", "three reserved heads (0x1c) after the end item: "
      "reported, everything decoded")
def c_garbage_tail(b):
    data = layout(b.items)[0]
    n = len(data)
    data += b"\x1c\x1c\x1c"
    return data, msg(len(b.items), None, n, "not CBOR at byte %d; sync lost "
                     "at byte %d, no item after it up to the end at byte %d"
                     % (n, n, n + 3)), b.stdout(), 1


def odd_case(name, about, which, raw, what):
    """An unknown key of a named item holding raw, a value no key of the
    format holds: a warning, the item kept, nothing lost."""
    @case(name, about)
    def fn(b):
        i = b.i(which)
        e = enc(b.items[i])
        data, start, end = splice(b, which, add_pair(e, "zz", raw))
        o = start + len(e) + len(cbor2.dumps("zz"))
        return data, msg(i, None, o, "%s at byte %d is not a dtsnap value; "
                         "read past it" % (what, o)), b.stdout(), 1
    return fn


odd_case("tag-unknown-key", "CPU 1's pass-1 buffer item has an unknown key "
         "holding tag 6 (0xc6, which libcbor 0.8 refuses) around 1",
         "buf1.1", b"\xc6\x01", "a CBOR tag (6)")
odd_case("tag-24-unknown-key", "the options item has an unknown key holding "
         "tag 24 (0xd8 0x18, which libcbor reads) around a byte string",
         "options", b"\xd8\x18\x41\x00", "a CBOR tag (24)")
odd_case("simple-unknown-key", "the pass-2 status item has an unknown key "
         "holding simple value 16 (0xf0, unassigned)", "status2", b"\xf0",
         "a CBOR simple value (16)")
odd_case("simple-255-unknown-key", "CPU 0's pass-2 buffer item has an "
         "unknown key holding simple value 255 (0xf8 0xff)", "buf2.0",
         b"\xf8\xff", "a CBOR simple value (255)")


@case("nesting-65537", "CPU 1's pass-1 buffer item has an unknown key "
      "nesting 65537 arrays, deeper than the reader reads past: that item is "
      "skipped (it cannot be read to its end) and the reader finds the next")
def c_very_deep(b):
    i = b.i("buf1.1")
    e = enc(b.items[i])
    data, start, end = splice(b, "buf1.1",
                              add_pair(e, "zz", b"\x81" * 65537 + b"\x00"))
    # the item map is level 1: the array opened at level 65537 is the
    # 65536th, after 65535 others
    o = start + len(e) + len(cbor2.dumps("zz")) + 65535
    return data, msg(i, None, o, sync("nesting deeper than 65536 levels at "
                                      "byte %d" % o, start, end)), \
        b.stdout(lose=("buf1.1",)), 1


@case("bytes-4g-claim", "CPU 1's pass-1 buffer data claims 2^32 bytes: with "
      "its head that is more than an item may hold (2^32 bytes), refused at "
      "once, not waited for; the buffer is lost, nothing else")
def c_4g(b):
    i = b.i("buf1.1")
    e = enc(b.items[i])
    d = b.items[i]["data"]
    head = cbor2.dumps(d)[:-len(d)]
    pos = e.find(head + d)
    e = e[:pos] + b"\x5b" + struct.pack(">Q", 1 << 32) + e[pos + len(head):]
    data, start, end = splice(b, "buf1.1", e)
    o = start + pos
    return data, msg(i, None, o, sync(
        "a byte string of 4294967296 bytes at byte %d makes the item at byte "
        "%d larger than an item may be (4294967296 bytes)" % (o, start),
        start, end)), b.stdout(lose=("buf1.1",)), 1


@case("bytes-length-long", "CPU 1's pass-1 buffer data's length says 4096 "
      "bytes (it has 40): the string would run past the end of the capture, "
      "but an item follows, so the item is damage, not a cut; that buffer "
      "is lost, the reader finds the pass-2 status item")
def c_len_long(b):
    data, offs = layout(b.items)
    i = b.i("buf1.1")
    e = enc(b.items[i])
    d = b.items[i]["data"]
    assert len(d) == 40
    pos = e.find(b"\x58\x28" + d)
    e = e[:pos] + b"\x59\x10\x00" + e[pos + 2:]
    data, start, end = splice(b, "buf1.1", e)
    o = start + pos
    left = len(data) - o - 3
    assert left < 4096
    return data, msg(i, None, start, sync(
        "a byte string of 4096 bytes at byte %d runs past the end (%d bytes "
        "left)" % (o, left), start, end)), b.stdout(lose=("buf1.1",)), 1


@case("copy-of-buf", "CPU 1's pass-1 buffer item written twice in a row: "
      "the copy is skipped with a warning, nothing is printed twice")
def c_copy(b):
    x = dict(b.items[b.i("buf1.1")])
    insert_before(b, "status2", x)
    i = b.i("status2") - 1
    o = b.off("status2") - len(enc(x))
    return layout(b.items)[0], msg(i, None, o, "item at byte %d is a copy of "
                                   "the buf item before it; skipped" % o), \
        b.stdout(), 1


@case("copy-of-probe", "not damage: probe item 4 written twice in a row "
      "(descriptions may be repeated): no message")
def c_copy_probe(b):
    insert_before(b, "format1", dict(b.items[b.i("probe4")]))
    return layout(b.items)[0], "", b.stdout(), 0


def numbered(b):
    """The capture as a version 1.3 writer writes it: every item says its
    number (key "seq", right after "t")."""
    b.items[0] = dict(b.items[0], version=[1, 3])
    for k, x in enumerate(b.items):
        y = {"t": x["t"], "seq": k}
        y.update((kk, v) for kk, v in x.items() if kk != "t")
        b.items[k] = y


@case("seq-intact", "not damage: a version 1.3 capture, every item "
      "numbered: decoded as the base, no message")
def c_seq_intact(b):
    numbered(b)
    return layout(b.items)[0], "", b.stdout(), 0


@case("seq-deleted", "a version 1.3 capture without CPU 1's pass-1 buffer "
      "item: the next item's number says one is missing")
def c_seq_deleted(b):
    numbered(b)
    i = b.i("buf1.1")
    o = b.off("buf1.1")
    del b.items[i]
    return layout(b.items)[0], msg(i, None, o, "item %d is missing before "
                                   "byte %d (the item there says it is item "
                                   "%d)" % (i, o, i + 1)), \
        b.stdout(lose=("buf1.1",)), 1


@case("seq-repeated", "a version 1.3 capture with CPU 0's pass-1 buffer "
      "item again after CPU 1's: its number says it was read already, so "
      "it is skipped and nothing is printed twice")
def c_seq_repeated(b):
    numbered(b)
    x = b.items[b.i("buf1.0")]
    insert_before(b, "status2", x)
    i = b.i("status2") - 1
    o = b.off("status2") - len(enc(x))
    return layout(b.items)[0], msg(i, None, o, "item at byte %d repeats item "
                                   "%d (its seq); skipped" %
                                   (o, x["seq"])), b.stdout(), 1


@case("seq-unknown-inserted", "a version 1.3 capture with an unknown item "
      "inserted before the first format item (issue 24): no seq, a tag 6, "
      "arrays 65 deep, an unassigned simple value under unknown keys; it "
      "is skipped with one message and costs no number: the format item "
      "after it is read, every record printed")
def c_seq_unknown_inserted(b):
    numbered(b)
    x = Raw(b"\xa4" + cbor2.dumps("t") + cbor2.dumps("zzz") +
            cbor2.dumps("a") + b"\xc6\x01" + cbor2.dumps("b") +
            b"\x81" * 65 + b"\x00" + cbor2.dumps("c") + b"\xf8\x40")
    insert_before(b, "format1", x)
    i = b.i("format1") - 1
    o = b.off("format1") - len(x)
    return layout(b.items)[0], msg(i, None, o, "item at byte %d is of kind "
                                   "'zzz', which no capture of version 1.3 "
                                   "has; skipped" % o), b.stdout(), 1


@case("seq-later-copy", "a version 1.3 capture with a copy of CPU 1's "
      "pass-2 buffer item inserted before pass 1's status: the item after "
      "the copy has the number due, so the copy is out of place and "
      "skipped; the real one is read in its place, nothing lost or moved")
def c_seq_later_copy(b):
    numbered(b)
    x = b.items[b.i("buf2.1")]
    nxt = b.items[b.i("status1")]
    insert_before(b, "status1", x)
    i = b.i("status1") - 1
    o = b.off("status1") - len(enc(x))
    return layout(b.items)[0], msg(i, None, o, "item at byte %d says it is "
                                   "item %d, but item %d follows it: out of "
                                   "place; skipped" % (o, x["seq"],
                                                       nxt["seq"])), \
        b.stdout(), 1


@case("seq-lost-two", "a version 1.3 capture whose pass-1 buffer items "
      "(CPU 0 and 1) lost their first byte: one stretch of damage, and the "
      "number of the item found after it says which two items it held")
def c_seq_lost_two(b):
    numbered(b)
    data, offs = layout(b.items)
    i, j = b.i("buf1.0"), b.i("buf1.1")
    assert j == i + 1
    s, t = offs[i], offs[j]
    data = data[:s] + b"\x1c" + data[s + 1:t] + b"\x1c" + data[t + 1:]
    n = offs[j + 1]
    return data, msg(i, None, s, sync("not CBOR at byte %d" % s, s, n)) + \
        msg(i + 1, None, n, "items %d to %d are missing before byte %d (the "
            "item there says it is item %d)" % (i, j, n, j + 1)), \
        b.stdout(lose=("buf1.0", "buf1.1")), 1


# -- metadata ------------------------------------------------------------

@case("probe-no-name", "the read:entry probe item lacks its required "
      "\"name\": the probe is skipped, its records still decode (quiet)")
def c_probe_noname(b):
    with_item(b, "probe2", name=None)
    return layout(b.items)[0], msg(b.i("probe2"), None, b.off("probe2"),
                                   "probe item %d has no key 'name'" %
                                   b.i("probe2")), b.stdout(), 1


@case("eprobe-no-size", "eprobe 3 (write:entry) lacks \"size\": it is "
      "unknown, so each buffer holding a write record is skipped from it on")
def c_eprobe_nosize(b):
    with_item(b, "eprobe3", size=None)
    i = b.i("eprobe3")
    w10 = b.doff("buf1.0") + 48
    w11 = b.doff("buf1.1") + 16
    w20 = b.doff("buf2.0")
    return layout(b.items)[0], \
        msg(i, None, b.off("eprobe3"), "eprobe item %d has no key 'size'" % i) + \
        msg(b.i("buf1.0"), 0, w10, "unknown enabled probe id 3 at buffer "
            "offset 48; the rest of this buffer (24 bytes) is skipped") + \
        msg(b.i("buf1.1"), 1, w11, "unknown enabled probe id 3 at buffer "
            "offset 16; the rest of this buffer (24 bytes) is skipped") + \
        msg(b.i("buf2.0"), 0, w20, "unknown enabled probe id 3 at buffer "
            "offset 0; the rest of this buffer (24 bytes) is skipped"), \
        b.stdout(lose=(("buf1.0", 3), ("buf1.1", 1), ("buf2.0", 0))), 1


@case("eprobe-size-text", "eprobe 3's size is the text \"24\": same loss as "
      "a missing size, with a message naming the type")
def c_eprobe_sizetext(b):
    with_item(b, "eprobe3", size="24")
    i = b.i("eprobe3")
    e = enc(b.items[i])
    o = b.off("eprobe3") + e.find(cbor2.dumps("size")) + len(cbor2.dumps("size"))
    w10 = b.doff("buf1.0") + 48
    w11 = b.doff("buf1.1") + 16
    w20 = b.doff("buf2.0")
    return layout(b.items)[0], \
        msg(i, None, o, "key 'size' of eprobe item %d is text, not an "
            "unsigned integer" % i) + \
        msg(b.i("buf1.0"), 0, w10, "unknown enabled probe id 3 at buffer "
            "offset 48; the rest of this buffer (24 bytes) is skipped") + \
        msg(b.i("buf1.1"), 1, w11, "unknown enabled probe id 3 at buffer "
            "offset 16; the rest of this buffer (24 bytes) is skipped") + \
        msg(b.i("buf2.0"), 0, w20, "unknown enabled probe id 3 at buffer "
            "offset 0; the rest of this buffer (24 bytes) is skipped"), \
        b.stdout(lose=(("buf1.0", 3), ("buf1.1", 1), ("buf2.0", 0))), 1


@case("eprobe-size-float", "eprobe 3's size is the float 24.0: integers are "
      "never floats")
def c_eprobe_sizefloat(b):
    with_item(b, "eprobe3", size=24.0)
    i = b.i("eprobe3")
    e = enc(b.items[i])
    o = b.off("eprobe3") + e.find(cbor2.dumps("size")) + len(cbor2.dumps("size"))
    w10 = b.doff("buf1.0") + 48
    w11 = b.doff("buf1.1") + 16
    w20 = b.doff("buf2.0")
    return layout(b.items)[0], \
        msg(i, None, o, "key 'size' of eprobe item %d is a float, not an "
            "unsigned integer" % i) + \
        msg(b.i("buf1.0"), 0, w10, "unknown enabled probe id 3 at buffer "
            "offset 48; the rest of this buffer (24 bytes) is skipped") + \
        msg(b.i("buf1.1"), 1, w11, "unknown enabled probe id 3 at buffer "
            "offset 16; the rest of this buffer (24 bytes) is skipped") + \
        msg(b.i("buf2.0"), 0, w20, "unknown enabled probe id 3 at buffer "
            "offset 0; the rest of this buffer (24 bytes) is skipped"), \
        b.stdout(lose=(("buf1.0", 3), ("buf1.1", 1), ("buf2.0", 0))), 1


@case("epid-zero", "an extra eprobe item with epid 0 (DTRACE_EPIDNONE): "
      "skipped")
def c_epid0(b):
    x = item("eprobe", epid=0, probe=1, uarg=0, size=16,
             recs=[rec(ACT_DIFEXPR, 4, 12)])
    insert_before(b, "agg1", x)
    i = b.i("agg1") - 1
    return layout(b.items)[0], msg(i, None, b.off("agg1") - len(enc(x)),
                                   "eprobe item: epid 0 is DTRACE_EPIDNONE, "
                                   "the padding word"), b.stdout(), 1


@case("id-2p32-1", "an extra probe item with id 2^32-1: out of range, "
      "skipped")
def c_id_max(b):
    x = item("probe", id=2 ** 32 - 1, provider="fbt", module="kernel",
             function="f", name="entry")
    insert_before(b, "eprobe1", x)
    i = b.i("eprobe1") - 1
    o = b.off("eprobe1") - len(enc(x))
    o += enc(x).find(cbor2.dumps("id")) + len(cbor2.dumps("id"))
    return layout(b.items)[0], msg(i, None, o, "probe item: id 4294967295 "
                                   "is out of range (at most 16777216)"), \
        b.stdout(), 1


@case("duplicate-eprobe", "eprobe 2 described a second time, differently "
      "(size 40): the first description is kept")
def c_dup_eprobe(b):
    x = dict(b.items[b.i("eprobe2")])
    x["size"] = 40
    insert_before(b, "agg1", x)
    i = b.i("agg1") - 1
    return layout(b.items)[0], msg(i, None, b.off("agg1") - len(enc(x)),
                                   "eprobe 2 described twice; the first is "
                                   "kept"), b.stdout(), 1


@case("duplicate-same", "not damage: format 1, eprobe 2 and aggregation 1 "
      "described a second time, identically (a writer repeating its "
      "descriptions): no message")
def c_dup_same(b):
    insert_before(b, "status1", dict(b.items[b.i("format1")]),
                  dict(b.items[b.i("eprobe2")]), dict(b.items[b.i("agg1")]))
    return layout(b.items)[0], "", b.stdout(), 0


@case("duplicate-probe", "probe 2 described a second time with another "
      "name: the first is kept")
def c_dup_probe(b):
    x = dict(b.items[b.i("probe2")])
    x["name"] = "return"
    insert_before(b, "format1", x)
    i = b.i("format1") - 1
    return layout(b.items)[0], msg(i, None, b.off("format1") - len(enc(x)),
                                   "probe 2 described twice, differently; "
                                   "the first is kept"), b.stdout(), 1


@case("recdesc-outside", "eprobe 2's record lies at offset 14, size 4, in a "
      "16-byte record: every read:entry record is skipped with a message, "
      "everything else decodes")
def c_recdesc_out(b):
    e2 = dict(b.items[b.i("eprobe2")])
    e2["recs"] = [rec(ACT_PRINTF, 4, 14, fmt=FMT_READ, uarg=2)]
    b.items[b.i("eprobe2")] = e2
    i = b.i("eprobe2")
    err = msg(i, None, b.off("eprobe2"), "eprobe 2: record 0 (offset 14, "
              "size 4) lies outside the 16-byte record")
    for buf, cpu, k, boff in (("buf1.0", 0, 1, 16), ("buf1.0", 0, 2, 32),
                              ("buf1.1", 1, 0, 0), ("buf2.1", 1, 0, 0)):
        err += msg(b.i(buf), cpu, b.doff(buf) + boff, "record of enabled "
                   "probe 2 skipped: its description is inconsistent")
    return layout(b.items)[0], err, b.stdout(lose=(
        ("buf1.0", 1), ("buf1.0", 2), ("buf1.1", 0), ("buf2.1", 0))), 1


@case("agg-one-rec", "the aggregation's description has one record (no "
      "value): skipped, so every entry of aggid 1 is an unknown aggregation "
      "id and printa prints nothing")
def c_agg_onerec(b):
    with_item(b, "agg1", recs=[rec(ACT_DIFEXPR, 8, 8)])
    i = b.i("agg1")
    err = msg(i, None, b.off("agg1"), "aggregation 1 has 1 records; it "
              "needs the variable id and a value")
    for name, cpu in (("aggbuf1.0", 0), ("aggbuf1.1", 1), ("aggbuf2.0", 0)):
        err += msg(b.i(name), cpu, b.doff(name), "unknown aggregation id 1; "
                   "rest of the aggregation buffer skipped")
    return layout(b.items)[0], err, b.stdout(printa=False), 1


@case("format-bad", "format 2 (\"read fd %d\") replaced by \"read fd "
      "%Q\\n\", an undefined conversion: read:entry records cannot be "
      "printed, everything else decodes")
def c_format_bad(b):
    with_item(b, "format2", string="read fd %Q\n")
    i = b.i("format2")
    err = msg(i, None, b.off("format2"), "format 2: format conversion #1 is "
              "undefined: %Q")
    for buf, cpu, boff in (("buf1.0", 0, 16), ("buf1.0", 0, 32),
                           ("buf1.1", 1, 0), ("buf2.1", 1, 0)):
        err += msg(b.i(buf), cpu, b.doff(buf) + boff, "enabled probe 2, "
                   "record 0: unknown format id 2")
    return layout(b.items)[0], err, b.stdout(lose=(
        ("buf1.0", 1), ("buf1.0", 2), ("buf1.1", 0), ("buf2.1", 0))), 1


@case("printf-few-recs", "format 2 becomes \"read fd %d %d %d\\n\": three "
      "arguments, but eprobe 2 has one record")
def c_printf_few(b):
    with_item(b, "format2", string="read fd %d %d %d\n")
    err = ""
    for buf, cpu, boff in (("buf1.0", 0, 16), ("buf1.0", 0, 32),
                           ("buf1.1", 1, 0), ("buf2.1", 1, 0)):
        err += msg(b.i(buf), cpu, b.doff(buf) + boff, "enabled probe 2: "
                   "format 2 needs 3 records, 1 are left")
    return layout(b.items)[0], err, b.stdout(lose=(
        ("buf1.0", 1), ("buf1.0", 2), ("buf1.1", 0), ("buf2.1", 0))), 1


@case("options-wrong-type", "the options item gives quiet an array value: "
      "that option is refused (output is then not quiet)")
def c_opt_type(b):
    with_item(b, "options", options={"quiet": [1]})
    i = b.i("options")
    e = enc(b.items[i])
    o = b.off("options") + e.find(cbor2.dumps([1]))
    return layout(b.items)[0], msg(i, None, o, "options item: option "
                                   "\"quiet\" has a value that is neither "
                                   "text nor an integer"), \
        b.stdout(quiet=False), 1


@case("options-not-map", "the options item's options is an array")
def c_opt_notmap(b):
    with_item(b, "options", options=["quiet"])
    i = b.i("options")
    e = enc(b.items[i])
    o = b.off("options") + e.find(cbor2.dumps(["quiet"]))
    return layout(b.items)[0], msg(i, None, o, "key 'options' of options "
                                   "item %d is an array, not a map" % i), \
        b.stdout(quiet=False), 1


@case("option-unknown", "an options item sets \"nosuchopt\": refused with "
      "dtrace's reason; quiet still applies")
def c_opt_unknown(b):
    with_item(b, "options", options={"quiet": "set", "nosuchopt": 1})
    i = b.i("options")
    e = enc(b.items[i])
    o = b.off("options") + e.find(cbor2.dumps("nosuchopt"))
    return layout(b.items)[0], msg(i, None, o, "options item: couldn't set "
                                   "option \"nosuchopt\" to \"1\": Invalid "
                                   "option name"), b.stdout(), 1


# -- buffers -------------------------------------------------------------

@case("buf-no-data", "CPU 1's pass-1 buf item lacks \"data\": that buffer "
      "is skipped, CPU 0 and pass 2 decode")
def c_buf_nodata(b):
    with_item(b, "buf1.1", data=None)
    i = b.i("buf1.1")
    return layout(b.items)[0], msg(i, None, b.off("buf1.1"), "buf item %d "
                                   "has no key 'data'" % i), \
        b.stdout(lose=("buf1.1",)), 1


@case("buf-data-text", "CPU 0's pass-1 buffer data is a text string")
def c_buf_datatext(b):
    with_item(b, "buf1.0", data="not bytes")
    i = b.i("buf1.0")
    e = enc(b.items[i])
    o = b.off("buf1.0") + e.find(cbor2.dumps("not bytes"))
    return layout(b.items)[0], msg(i, None, o, "key 'data' of buf item %d "
                                   "is text, not a byte string" % i), \
        b.stdout(lose=("buf1.0",)), 1


@case("cpu-negative", "CPU 1's pass-1 buffer says cpu -1: skipped")
def c_cpu_neg(b):
    with_item(b, "buf1.1", cpu=-1)
    i = b.i("buf1.1")
    return layout(b.items)[0], msg(i, None, b.off("buf1.1"), "buf item: cpu "
                                   "-1 is out of range"), \
        b.stdout(lose=("buf1.1",)), 1


@case("pass-negative", "CPU 1's pass-1 buffer says pass -1")
def c_pass_neg(b):
    with_item(b, "buf1.1", **{"pass": -1})
    i = b.i("buf1.1")
    e = enc(b.items[i])
    o = b.off("buf1.1") + e.find(cbor2.dumps("pass")) + len(cbor2.dumps("pass"))
    return layout(b.items)[0], msg(i, None, o, "key 'pass' of buf item %d is "
                                   "a negative integer, not an unsigned "
                                   "integer" % i), \
        b.stdout(lose=("buf1.1",)), 1


@case("unknown-epid", "CPU 0's pass-1 buffer has EPID 99 (no eprobe) "
      "after its first two records: the rest of that buffer is skipped, "
      "CPU 1 and pass 2 decode")
def c_unknown_epid(b):
    recs = b.recs["buf1.0"]
    data = recs[0][0] + recs[1][0] + rechdr(99, 115) + recs[2][0][12:] + \
        recs[3][0]
    set_buf(b, "buf1.0", data)
    i = b.i("buf1.0")
    return layout(b.items)[0], msg(i, 0, b.doff("buf1.0") + 32, "unknown "
                                   "enabled probe id 99 at buffer offset 32; "
                                   "the rest of this buffer (40 bytes) is "
                                   "skipped"), \
        b.stdout(lose=(("buf1.0", 2), ("buf1.0", 3))), 1


@case("record-overrun", "CPU 0's pass-1 buffer ends 8 bytes into its "
      "24-byte write record: the records before it and CPU 1 decode")
def c_overrun(b):
    recs = b.recs["buf1.0"]
    data = recs[0][0] + recs[1][0] + recs[2][0] + recs[3][0][:8]
    set_buf(b, "buf1.0", data)
    i = b.i("buf1.0")
    return layout(b.items)[0], msg(i, 0, b.doff("buf1.0") + 48, "record of "
                                   "enabled probe 3 (24 bytes) at buffer "
                                   "offset 48 overruns the buffer (8 bytes "
                                   "left); the rest of this buffer is "
                                   "skipped"), \
        b.stdout(lose=(("buf1.0", 3),)), 1


@case("stray-bytes", "CPU 1's pass-1 buffer has 3 stray bytes after its "
      "records")
def c_stray(b):
    set_buf(b, "buf1.1", b.items[b.i("buf1.1")]["data"] + b"\x01\x02\x03")
    i = b.i("buf1.1")
    return layout(b.items)[0], msg(i, 1, b.doff("buf1.1") + 40, "3 stray "
                                   "bytes at the end of the buffer (offset "
                                   "40)"), b.stdout(), 1


@case("oldest-beyond", "CPU 1's pass-1 buffer says oldest 4096, beyond its "
      "40 bytes: walked from 0, nothing lost")
def c_oldest(b):
    with_item(b, "buf1.1", oldest=4096)
    i = b.i("buf1.1")
    return layout(b.items)[0], msg(i, 1, b.doff("buf1.1"), "oldest offset "
                                   "4096 lies beyond the 40 bytes of buffer "
                                   "data; walked from 0"), b.stdout(), 1


@case("ring-wrapped", "CPU 1's pass-1 buffer is a wrapped ring (oldest "
      "16): un-rung, the read record (now last in the bytes) comes first")
def c_ring(b):
    d = b.items[b.i("buf1.1")]["data"]
    with_item(b, "buf1.1", data=d[16:] + d[:16], oldest=24)
    return layout(b.items)[0], "", b.stdout(), 0


@case("eprobe-size-8", "eprobe 2 says size 8, less than the 12-byte record "
      "header")
def c_size8(b):
    with_item(b, "eprobe2", size=8)
    e2 = dict(b.items[b.i("eprobe2")])
    e2["recs"] = []
    b.items[b.i("eprobe2")] = e2
    i = b.i("eprobe2")
    err = ""
    for buf, cpu, boff, left in (("buf1.0", 0, 16, 56), ("buf1.1", 1, 0, 40),
                                 ("buf2.1", 1, 0, 40)):
        err += msg(b.i(buf), cpu, b.doff(buf) + boff, "enabled probe 2 has a "
                   "record size of 8, less than the 12-byte record header; "
                   "the rest of this buffer is skipped")
    return layout(b.items)[0], err, b.stdout(lose=(
        ("buf1.0", 1), ("buf1.0", 2), ("buf1.0", 3), "buf1.1",
        "buf2.1"), exit_aggs=True), 1


@case("stack-pcsize-3", "a stack() record of depth 4 in 12 bytes (a pc of "
      "3 bytes) in CPU 1's pass-2 buffer: dtrace's error, the record set "
      "is abandoned, the rest decodes")
def c_stack3(b):
    x = item("probe", id=5, provider="profile", module="", function="",
             name="tick-1s")
    y = item("eprobe", epid=5, probe=5, uarg=0, size=24,
             recs=[rec(ACT_STACK, 12, 12, align=4, arg=4, uarg=5)])
    insert_before(b, "agg1", x, y)
    d = b.items[b.i("buf2.1")]["data"]
    s = rechdr(5, 206) + b"\x01" * 12
    set_buf(b, "buf2.1", d[:16] + s + d[16:])
    i = b.i("buf2.1")
    return layout(b.items)[0], msg(i, 1, b.doff("buf2.1") + 16, "Invalid "
                                   "stack program counter size"), \
        b.stdout(), 1


@case("error-4-recs", "libdtrace's ERROR enabling (uarg 1) with 4 records "
      "instead of 5, firing once in CPU 0's pass-2 buffer")
def c_err4(b):
    x = item("probe", id=5, provider="dtrace", module="", function="",
             name="ERROR")
    y = item("eprobe", epid=5, probe=5, uarg=1, size=44,
             recs=[rec(ACT_DIFEXPR, 8, 12 + 8 * k, align=4, uarg=5)
                   for k in range(4)])
    insert_before(b, "agg1", x, y)
    d = b.items[b.i("buf2.0")]["data"]
    e = rechdr(5, 205) + struct.pack("<QQQQ", 2, 1, 0, 1)
    set_buf(b, "buf2.0", e + d)
    i = b.i("buf2.0")
    return layout(b.items)[0], msg(i, 0, b.doff("buf2.0"), "the ERROR "
                                   "enabling 5 has 4 records, not 5"), \
        b.stdout(), 1


@case("unknown-aggid", "CPU 0's pass-1 aggregation buffer has aggid 77 "
      "after its first entry: the rest of it is skipped")
def c_unknown_aggid(b):
    b.aggbufs["aggbuf1.0"] = [("bash", 2)]
    d = aggent("bash", 2) + aggent("sshd", 1, aggid=77)
    with_item(b, "aggbuf1.0", data=d)
    return layout(b.items)[0], msg(b.i("aggbuf1.0"), 0,
                                   b.doff("aggbuf1.0") + 40, "unknown "
                                   "aggregation id 77; rest of the "
                                   "aggregation buffer skipped"), \
        b.stdout(), 1


@case("agg-overrun", "CPU 1's pass-1 aggregation buffer ends 20 bytes into "
      "its second entry")
def c_agg_overrun(b):
    b.aggbufs["aggbuf1.1"] = [("bash", 1)]
    d = aggent("bash", 1) + aggent("cron", 5)[:20]
    with_item(b, "aggbuf1.1", data=d)
    return layout(b.items)[0], msg(b.i("aggbuf1.1"), 1,
                                   b.doff("aggbuf1.1") + 40, "aggregation "
                                   "id 1: entry overruns the aggregation "
                                   "buffer"), b.stdout(), 1


@case("pass-backwards", "CPU 1's pass-2 buffer is labelled pass 1, after "
      "pass 2 started: pass numbers never decrease, so it is read as part "
      "of pass 2, with a message")
def c_pass_back(b):
    with_item(b, "buf2.1", **{"pass": 1})
    return layout(b.items)[0], msg(b.i("buf2.1"), None, b.off("buf2.1"),
                                   "buf item of pass 1 after pass 2: pass "
                                   "numbers never decrease; read as pass "
                                   "2"), b.stdout(), 1


@case("duplicate-eprobe-bad", "eprobe 2 described a second time with a "
      "record outside it: the second is refused, and the first, kept, "
      "still decodes every read:entry record")
def c_dup_eprobe_bad(b):
    x = dict(b.items[b.i("eprobe2")])
    x["recs"] = [rec(ACT_PRINTF, 4, 14, fmt=FMT_READ, uarg=2)]
    insert_before(b, "agg1", x)
    i = b.i("agg1") - 1
    return layout(b.items)[0], msg(i, None, b.off("agg1") - len(enc(x)),
                                   "eprobe 2 described twice; the first is "
                                   "kept"), b.stdout(), 1


@case("status-drops", "not damage: the status and buffer drop counters "
      "print dtrace's drop messages")
def c_drops(b):
    with_item(b, "buf1.1", drops=3)
    with_item(b, "status2", dynamic=2)
    return layout(b.items)[0], "dtrace: 3 drops on CPU 1\n" \
        "dtrace: 2 dynamic variable drops\n", b.stdout(), 0


# -- DTrace v2 (dtsnap(5), DTRACE V2 ITEMS) -------------------------------
#
# The same program on DTrace for Linux (dtrace-utils), quiet, without END:
#   BEGIN               { printf("hello from BEGIN\n"); }
#   syscall::read:entry { printf("read fd %d\n", (int)arg0);
#                         @reads[execname] = count(); }
#   syscall::write:entry { printf("write %d bytes\n", arg2); }
# A record is what libdtrace read from the perf ring after the event
# header: a 32-bit size (the bytes after it), the speculation id, the probe
# id and the statement id, then the data at the statement's recdesc
# offsets (counted from the size word), padded so that the record with its
# size word takes a multiple of 8 bytes (perf's alignment).  There are no
# EPIDs: the statement id says which clause.  count() records nothing: the
# aggregation lives in a BPF map, and each aggsnap item is libdtrace's whole
# hash after a snapshot (an entry: [aggid, key, data]; the key is the
# 4-byte aggregation id then execname's 16 bytes, padded to 24; the data a
# 64-bit generation counter then the count).  An aggsnap replaces the state,
# so the end-of-run printing shows the last one.  Records are delivered in
# file order (no BEGIN-CPU-first ordering), and passes count from 0.

V2_HDR = 16                     # size word, specid, probe id, statement id
V2_AGG_COUNT = 0x0701           # DT_AGG_BASE + 1 (dtrace-utils: by name)
V2_KSIZE, V2_DSIZE = 24, 16
ST_HELLO, ST_READ, ST_WRITE = 1, 2, 3


def v2rec(prid, stid, data, specid=0, size=None):
    body = struct.pack("<III", specid, prid, stid) + data
    body += b"\0" * ((-(4 + len(body))) % 8)
    return struct.pack("<I", len(body) if size is None else size) + body


def v2_begin():
    return (v2rec(1, ST_HELLO, struct.pack("<I", 0)), "hello from BEGIN\n")


def v2_read(fd):
    return (v2rec(2, ST_READ, struct.pack("<i", fd)), "read fd %d\n" % fd)


def v2_write(n):
    return (v2rec(3, ST_WRITE, struct.pack("<q", n)),
            "write %d bytes\n" % n)


def v2key(key, aggid=1):
    k = key.encode()
    return struct.pack("<I", aggid) + k + b"\0" * (V2_KSIZE - 4 - len(k))


def v2ent(key, count, gen=1, aggid=1):
    return [aggid, v2key(key, aggid), struct.pack("<QQ", gen, count)]


class BaseV2:
    """The intact DTrace v2 capture, as items, with what decoding it
    prints (same interface as Base where the cases need it)."""

    def __init__(self):
        self.items = []
        self.idx = {}
        self.add("header", item("dtsnap", version=[1, 1],
                                flavor="dtrace-v2", byteorder="little",
                                model="LP64", os="Linux", release="6.1.0",
                                host="fixture", ncpu=2, dt_act_base=46,
                                producer="testdata/bad/gen.py"))
        self.add("options", item("options", options={"quiet": "set"}))
        for pid, (prov, fn, nm) in enumerate([
                ("dtrace", "", "BEGIN"), ("syscall", "read", "entry"),
                ("syscall", "write", "entry")], 1):
            self.add("probe%d" % pid, item("probe", id=pid, provider=prov,
                                           module="", function=fn, name=nm))
        for fid in (FMT_HELLO, FMT_READ, FMT_WRITE):
            self.add("format%d" % fid, item("format", id=fid,
                                            string=FORMATS[fid]))
        self.add("stmt1", item("stmt", id=ST_HELLO, uarg=0, size=0,
                 recs=[rec(ACT_PRINTF, 4, 16, fmt=FMT_HELLO)]))
        self.add("stmt2", item("stmt", id=ST_READ, uarg=0, size=0,
                 recs=[rec(ACT_PRINTF, 4, 16, fmt=FMT_READ)]))
        self.add("stmt3", item("stmt", id=ST_WRITE, uarg=0, size=0,
                 recs=[rec(ACT_PRINTF, 8, 16, fmt=FMT_WRITE)]))
        self.add("aggdesc1", item("aggdesc", id=1, varid=1, name="reads",
                 flags=0, sig=0, normal=1, ksize=V2_KSIZE, dsize=V2_DSIZE,
                 krecs=[rec(ACT_DIFEXPR, 4, 0, align=4, arg=1),
                        rec(ACT_DIFEXPR, 16, 4, align=1)],
                 drecs=[rec(V2_AGG_COUNT, 8, 0), rec(V2_AGG_COUNT, 8, 8)]))
        # newest first, as libdtrace's dtah_all lists them
        self.snaps = {
            "aggsnap0": [("sshd", 1), ("bash", 2)],
            "aggsnap1": [("cron", 5), ("bash", 3), ("sshd", 1)],
        }
        self.recs = {
            "recs0.0": [v2_begin(), v2_read(3), v2_read(4), v2_write(100)],
            "recs0.1": [v2_read(5), v2_write(200)],
            "recs1.0": [v2_write(300)],
            "recs1.1": [v2_read(6)],
        }
        self.add_snap("aggsnap0", 0)
        self.add_recs("recs0.0", 0, 0)
        self.add_recs("recs0.1", 0, 1)
        self.add_snap("aggsnap1", 1)
        self.add_recs("recs1.0", 1, 0)
        self.add_recs("recs1.1", 1, 1)
        self.add("end", item("end", exit_status=0))

    add = Base.add
    i = Base.i
    off = Base.off
    doff = Base.doff

    def add_snap(self, name, pas, entries=None):
        ents = entries if entries is not None else \
            [v2ent(k, v) for k, v in self.snaps[name]]
        self.add(name, item("aggsnap", **{"pass": pas, "entries": ents}))

    def add_recs(self, name, pas, cpu):
        data = b"".join(r[0] for r in self.recs[name])
        self.add(name, item("recs", **{"pass": pas, "cpu": cpu,
                                       "data": data}))

    def rec_off(self, name, k):
        """Offset of record k inside a recs item's data."""
        return sum(len(r[0]) for r in self.recs[name][:k])

    def entry_off(self, name, k):
        """File offset of entry k of an aggsnap item's entries array."""
        it = self.items[self.i(name)]
        e = enc(it)
        ents = it["entries"]
        pos = e.find(cbor2.dumps("entries") + cbor2.dumps(ents))
        assert pos >= 0
        pos += len(cbor2.dumps("entries"))
        head = len(cbor2.dumps(ents)) - sum(len(cbor2.dumps(x))
                                            for x in ents)
        return self.off(name) + pos + head + \
            sum(len(cbor2.dumps(x)) for x in ents[:k])

    def stdout(self, lose=(), snap="aggsnap1", counts=None):
        """The records' texts in file order (v2 delivers them so), minus
        lose ((recs, k) pairs or whole item names), dtrace(1)'s end-of-run
        newline, then the end-of-run printing of the state the last
        aggsnap left (counts overrides it; {} prints nothing)."""
        out = ""
        for name in ("recs0.0", "recs0.1", "recs1.0", "recs1.1"):
            for k, (_, text) in enumerate(self.recs[name]):
                if name in lose or (name, k) in lose:
                    continue
                out += text
        out += "\n"
        if counts is None:
            counts = dict(self.snaps[snap])
        return out + exit_text(counts)


@case("v2-intact", "the DTrace v2 base capture, undamaged: the reference "
      "for every v2 case", base=BaseV2)
def c_v2_intact(b):
    return layout(b.items)[0], "", b.stdout(), 0


def set_recs(b, name, recs):
    """Replace the records of a recs item (a list of (bytes, text))."""
    b.recs[name] = recs
    with_item(b, name, data=b"".join(r[0] for r in recs))


@case("v2-recs-size-overrun", "the third record of CPU 0's pass-0 recs "
      "item says its size is 4096: the rest of that item is skipped (its "
      "size words cannot be trusted any more), every other item decodes",
      base=BaseV2)
def c_v2_size_overrun(b):
    r = b.recs["recs0.0"]
    bad = struct.pack("<I", 4096) + r[2][0][4:]
    set_recs(b, "recs0.0", r[:2] + [(bad, r[2][1])] + r[3:])
    at = b.rec_off("recs0.0", 2)
    left = len(b.items[b.i("recs0.0")]["data"]) - at
    return layout(b.items)[0], msg(b.i("recs0.0"), 0, b.doff("recs0.0") + at,
                                   "record at offset %d claims 4096 bytes, "
                                   "%d are left; the rest of these records "
                                   "(%d bytes) is skipped" % (at, left - 4,
                                                              left)), \
        b.stdout(lose=(("recs0.0", 2), ("recs0.0", 3))), 1


@case("v2-recs-size-small", "the second record of CPU 1's pass-0 recs item "
      "says size 8, less than the 12 bytes of ids after it: the rest of "
      "that item is skipped", base=BaseV2)
def c_v2_size_small(b):
    r = b.recs["recs0.1"]
    bad = struct.pack("<I", 8) + r[1][0][4:]
    set_recs(b, "recs0.1", r[:1] + [(bad, r[1][1])])
    at = b.rec_off("recs0.1", 1)
    left = len(b.items[b.i("recs0.1")]["data"]) - at
    return layout(b.items)[0], msg(b.i("recs0.1"), 1, b.doff("recs0.1") + at,
                                   "record at offset %d claims 8 bytes, "
                                   "%d are left; the rest of these records "
                                   "(%d bytes) is skipped" % (at, left - 4,
                                                              left)), \
        b.stdout(lose=(("recs0.1", 1),)), 1


@case("v2-unknown-stmt", "a record of statement 99 (described nowhere) "
      "between the two read records of CPU 0's pass-0 recs item: v2 records "
      "carry their size, so only that record is skipped", base=BaseV2)
def c_v2_unknown_stmt(b):
    r = b.recs["recs0.0"]
    x = (v2rec(2, 99, struct.pack("<i", 7)), "")
    set_recs(b, "recs0.0", r[:2] + [x] + r[2:])
    at = b.rec_off("recs0.0", 2)
    return layout(b.items)[0], msg(b.i("recs0.0"), 0, b.doff("recs0.0") + at,
                                   "record of unknown statement 99 (probe 2) "
                                   "at offset %d skipped" % at), \
        b.stdout(), 1


@case("v2-record-short", "the write record of CPU 1's pass-0 recs item is "
      "16 bytes (size word 12): statement 3's 8-byte printf argument at "
      "offset 16 needs 24; that record is skipped, the rest decodes",
      base=BaseV2)
def c_v2_record_short(b):
    r = b.recs["recs0.1"]
    short = v2rec(3, ST_WRITE, b"")
    assert len(short) == 16
    set_recs(b, "recs0.1", [r[0], (short, r[1][1])])
    b.recs["recs0.1"].append(v2_read(9))
    set_recs(b, "recs0.1", b.recs["recs0.1"])
    at = b.rec_off("recs0.1", 1)
    return layout(b.items)[0], msg(b.i("recs0.1"), 1, b.doff("recs0.1") + at,
                                   "record of statement 3 at offset %d has "
                                   "16 bytes, its records need 24; skipped" %
                                   at), b.stdout(lose=(("recs0.1", 1),)), 1


@case("v2-recdesc-in-header", "statement 2's printf argument is described "
      "at offset 12, inside the 16-byte record header (the statement id): "
      "refused at its description, and every read:entry record is skipped "
      "with a message, everything else decodes", base=BaseV2)
def c_v2_recdesc_hdr(b):
    with_item(b, "stmt2", recs=[rec(ACT_PRINTF, 4, 12, fmt=FMT_READ)])
    err = msg(b.i("stmt2"), None, b.off("stmt2"), "statement 2: record 0 "
              "(offset 12) lies inside the 16-byte record header")
    lose = []
    for name in ("recs0.0", "recs0.1", "recs1.0", "recs1.1"):
        cpu = int(name[-1])
        for k, (data, text) in enumerate(b.recs[name]):
            if struct.unpack("<I", data[12:16])[0] == ST_READ:
                lose.append((name, k))
                err += msg(b.i(name), cpu, b.doff(name) +
                           b.rec_off(name, k), "record of enabled probe 2 "
                           "skipped: its description is inconsistent")
    return layout(b.items)[0], err, b.stdout(lose=lose), 1


@case("v2-stmt-unknown-action", "statement 2's record has action 255, "
      "which DTrace v2 does not define: one message at its description, "
      "and each read:entry record shows its 4-byte value as dtrace-utils' "
      "fallback (dt_print_trace) prints it, quiet and unsigned, with no "
      "newline; everything else decodes", base=BaseV2)
def c_v2_stmt_unknown_action(b):
    with_item(b, "stmt2", recs=[rec(255, 4, 16, fmt=FMT_READ)])
    err = msg(b.i("stmt2"), None, b.off("stmt2"), "statement 2: record 0 "
              "has action 255, which DTrace v2 does not define; shown as "
              "trace() data, as dtrace prints it")
    for name in ("recs0.0", "recs0.1", "recs1.0", "recs1.1"):
        b.recs[name] = [
            (data, "%d" % struct.unpack("<i", data[16:20])[0]
             if struct.unpack("<I", data[12:16])[0] == ST_READ else text)
            for data, text in b.recs[name]]
    return layout(b.items)[0], err, b.stdout(), 1


@case("v2-probe-undescribed", "no probe item describes probe 2 "
      "(syscall::read:entry), whose records statement 2 has: one notice "
      "at its first record, and every record decodes", base=BaseV2)
def c_v2_probe_undescribed(b):
    at = b.i("probe2")
    del b.items[at]
    for k, v in b.idx.items():
        if v > at:
            b.idx[k] = v - 1
    del b.idx["probe2"]
    err = msg(b.i("recs0.0"), 0, b.doff("recs0.0") + b.rec_off("recs0.0", 1),
              "record of statement 2 names probe 2, which no probe item "
              "describes; decoded without its names")
    return layout(b.items)[0], err, b.stdout(), 1


@case("v2-recs-stray", "CPU 1's pass-1 recs item has 10 stray bytes after "
      "its record, too few for a record header", base=BaseV2)
def c_v2_stray(b):
    d = b.items[b.i("recs1.1")]["data"]
    with_item(b, "recs1.1", data=d + b"\x01" * 10)
    return layout(b.items)[0], msg(b.i("recs1.1"), 1, b.doff("recs1.1") +
                                   len(d), "10 stray bytes at the end of the "
                                   "records (offset %d)" % len(d)), \
        b.stdout(), 1


def snap_msg(nbad, n, k, text):
    """One message per aggsnap item: how many entries were skipped, and
    why the first of them (in entry order) was."""
    return ("aggsnap item: %d of %d entries skipped; the first, entry %d, %s"
            % (nbad, n, k, text))


def snap_case(name, about, entries, k, text, counts):
    """The last aggsnap with entries (newest first); entry k is the bad
    one, reported with text; counts: the state left."""
    @case(name, about, base=BaseV2)
    def fn(b):
        with_item(b, "aggsnap1", entries=entries)
        return layout(b.items)[0], msg(b.i("aggsnap1"), None,
                                       b.entry_off("aggsnap1", k),
                                       snap_msg(1, len(entries), k, text)), \
            b.stdout(counts=counts), 1
    return fn


snap_case("v2-aggsnap-unknown-agg", "entry 1 of the last aggsnap names "
          "aggregation 7, which no aggdesc describes: that entry is "
          "skipped, the other two make the state printed at the end",
          [v2ent("cron", 5), v2ent("bash", 3, aggid=7), v2ent("sshd", 1)],
          1, "names an unknown aggregation", {"cron": 5, "sshd": 1})
snap_case("v2-aggsnap-key-size", "entry 0 of the last aggsnap has a "
          "20-byte key (the aggdesc says 24): skipped",
          [[1, v2key("cron")[:20], struct.pack("<QQ", 1, 5)],
           v2ent("bash", 3), v2ent("sshd", 1)],
          0, "does not have the key and data sizes of its aggregation, aggregation id first",
          {"bash": 3, "sshd": 1})
snap_case("v2-aggsnap-data-size", "entry 2 of the last aggsnap has 24 "
          "bytes of data (the aggdesc says 16): skipped",
          [v2ent("cron", 5), v2ent("bash", 3),
           [1, v2key("sshd"), struct.pack("<QQQ", 1, 1, 0)]],
          2, "does not have the key and data sizes of its aggregation, aggregation id first",
          {"cron": 5, "bash": 3})
snap_case("v2-aggsnap-key-id", "entry 1 of the last aggsnap is listed "
          "under aggregation 1 but its key starts with aggregation id 2: "
          "skipped",
          [v2ent("cron", 5), [1, v2key("bash", aggid=2),
                              struct.pack("<QQ", 1, 3)], v2ent("sshd", 1)],
          1, "does not have the key and data sizes of its aggregation, aggregation id first",
          {"cron": 5, "sshd": 1})
snap_case("v2-aggsnap-pair", "entry 1 of the last aggsnap is [aggid, key], "
          "not an array of 3: skipped",
          [v2ent("cron", 5), v2ent("bash", 3)[:2], v2ent("sshd", 1)],
          1, "is not [aggid, key bytes, data bytes]", {"cron": 5,
                                                       "sshd": 1})
snap_case("v2-aggsnap-not-array", "entry 0 of the last aggsnap is a map: "
          "skipped",
          [{"aggid": 1}, v2ent("bash", 3), v2ent("sshd", 1)],
          0, "is not [aggid, key bytes, data bytes]", {"bash": 3,
                                                       "sshd": 1})
snap_case("v2-aggsnap-text-key", "entry 2 of the last aggsnap gives its "
          "key as text: skipped",
          [v2ent("cron", 5), v2ent("bash", 3),
           [1, "sshd", struct.pack("<QQ", 1, 1)]],
          2, "is not [aggid, key bytes, data bytes]", {"cron": 5,
                                                       "bash": 3})


@case("v2-aggsnap-no-entries", "the pass-0 aggsnap lacks \"entries\": it "
      "is skipped; the pass-1 one still gives the final state",
      base=BaseV2)
def c_v2_snap_noent(b):
    with_item(b, "aggsnap0", entries=None)
    i = b.i("aggsnap0")
    return layout(b.items)[0], msg(i, None, b.off("aggsnap0"), "aggsnap item "
                                   "%d has no key 'entries'" % i), \
        b.stdout(), 1


@case("v2-aggdesc-one-drec", "the aggdesc has one data record (the "
      "generation counter, no value): refused, so every aggsnap entry names "
      "an unknown aggregation and nothing is printed at the end",
      base=BaseV2)
def c_v2_one_drec(b):
    with_item(b, "aggdesc1", drecs=[rec(V2_AGG_COUNT, 8, 0)])
    err = msg(b.i("aggdesc1"), None, b.off("aggdesc1"), "aggregation 1 has "
              "1 data records; it needs the counter and a value")
    # every entry names it: all skipped, the first named
    for name in ("aggsnap0", "aggsnap1"):
        n = len(b.snaps[name])
        err += msg(b.i(name), None, b.entry_off(name, 0),
                   snap_msg(n, n, 0, "names an unknown aggregation"))
    return layout(b.items)[0], err, b.stdout(counts={}), 1


@case("v2-recs-in-legacy", "a recs item (DTrace v2) between the buffers of "
      "pass 1 of a legacy capture: refused with a warning, the rest "
      "decodes")
def c_v2_recs_legacy(b):
    x = item("recs", **{"pass": 1, "cpu": 0, "data": v2_read(3)[0]})
    insert_before(b, "buf1.1", x)
    i = b.i("buf1.1") - 1
    return layout(b.items)[0], msg(i, None, b.off("buf1.1") - len(enc(x)),
                                   "recs item in a legacy capture (it "
                                   "belongs to dtrace-v2 captures); "
                                   "skipped"), b.stdout(), 1


@case("v2-buf-in-v2", "a legacy buf item between the recs items of pass 0 "
      "of a DTrace v2 capture: refused with a warning, the rest decodes",
      base=BaseV2)
def c_v2_buf_in_v2(b):
    x = item("buf", **{"pass": 0, "cpu": 0, "data": r_read(110, 3)[0],
                       "drops": 0, "errors": 0, "oldest": 0,
                       "timestamp": 1000})
    insert_before(b, "recs0.1", x)
    i = b.i("recs0.1") - 1
    return layout(b.items)[0], msg(i, None, b.off("recs0.1") - len(enc(x)),
                                   "buf item in a dtrace-v2 capture (it "
                                   "belongs to legacy captures); skipped"), \
        b.stdout(), 1


@case("v2-eprobe-in-v2", "a legacy eprobe item among the statements of a "
      "DTrace v2 capture: refused with a warning", base=BaseV2)
def c_v2_eprobe_in_v2(b):
    x = item("eprobe", epid=2, probe=2, uarg=0, size=16,
             recs=[rec(ACT_PRINTF, 4, 12, fmt=FMT_READ)])
    insert_before(b, "aggdesc1", x)
    i = b.i("aggdesc1") - 1
    return layout(b.items)[0], msg(i, None, b.off("aggdesc1") - len(enc(x)),
                                   "eprobe item in a dtrace-v2 capture (it "
                                   "belongs to legacy captures); skipped"), \
        b.stdout(), 1


@case("v2-flavor-unknown", "the header's flavor is \"dtrace-v3\": a flavor "
      "this reader does not know, so nothing can be decoded", base=BaseV2)
def c_v2_flavor_unknown(b):
    with_item(b, "header", flavor="dtrace-v3")
    return layout(b.items)[0], msg(0, None, 0, "capture flavor 'dtrace-v3' "
                                   "is not one this reader knows (legacy, "
                                   "dtrace-v2)"), "", 1


@case("v2-version-1.0", "a dtrace-v2 header that says version [1, 0]: the "
      "flavor came with 1.1, so the capture is refused", base=BaseV2)
def c_v2_version10(b):
    with_item(b, "header", version=[1, 0])
    return layout(b.items)[0], msg(0, None, 0, "a dtrace-v2 capture needs "
                                   "container version 1.1 or later, the "
                                   "header says 1.0"), "", 1


def v2_fault(**kw):
    f = {"pass": 0, "cpu": 1, "stid": ST_READ, "probe": 2, "action": 0,
         "offset": 24, "fault": 1, "addr": 0,
         "msg": "error on enabled probe ID 2 (ID 2: syscall::read:entry): "
                "invalid address (0x0) in action #1 at BPF pc 24\n"}
    f.update(kw)
    return item("fault", **{k: v for k, v in f.items() if v is not None})


def v2_drop(**kw):
    d = {"pass": 1, "cpu": 0, "kind": 0, "drops": 3, "total": 3,
         "msg": "3 drops on CPU 0\n"}
    d.update(kw)
    return item("drop", **{k: v for k, v in d.items() if v is not None})


@case("v2-fault-drop", "not damage: a fault item after CPU 0's pass-0 "
      "records and a drop item after CPU 0's pass-1 records: their messages "
      "on stderr where libdtrace reported them, exit status 0",
      base=BaseV2)
def c_v2_fault_drop(b):
    insert_before(b, "recs0.1", v2_fault())
    insert_before(b, "recs1.1", v2_drop())
    return layout(b.items)[0], "dtrace: " + v2_fault()["msg"] + \
        "dtrace: " + v2_drop()["msg"], b.stdout(), 0


def note_case(name, about, make, key, text):
    """A damaged fault or drop item (make(): the item) after CPU 0's pass-0
    records: skipped with a message naming the key, nothing else lost."""
    @case(name, about, base=BaseV2)
    def fn(b):
        x = make()
        insert_before(b, "recs0.1", x)
        i = b.i("recs0.1") - 1
        o = b.off("recs0.1") - len(enc(x))
        if key in x:
            e = enc(x)
            o += e.find(cbor2.dumps(key)) + len(cbor2.dumps(key))
        return layout(b.items)[0], msg(i, None, o, text % i), \
            b.stdout(), 1
    return fn


note_case("v2-fault-no-pass", "a fault item without \"pass\": skipped",
          lambda: v2_fault(**{"pass": None}), "pass",
          "fault item %d has no key 'pass'")
note_case("v2-fault-stid-text", "a fault item whose stid is text",
          lambda: v2_fault(stid="2"), "stid",
          "key 'stid' of fault item %d is text, not an unsigned integer")
note_case("v2-fault-msg-int", "a fault item whose msg is an integer",
          lambda: v2_fault(msg=5), "msg",
          "key 'msg' of fault item %d is an unsigned integer, not text")
note_case("v2-fault-offset-float", "a fault item whose offset (the BPF pc) "
          "is a float", lambda: v2_fault(offset=24.0), "offset",
          "key 'offset' of fault item %d is a float, not an integer")
note_case("v2-drop-no-pass", "a drop item without \"pass\": skipped",
          lambda: v2_drop(**{"pass": None}), "pass",
          "drop item %d has no key 'pass'")
note_case("v2-drop-kind-text", "a drop item whose kind is text",
          lambda: v2_drop(kind="principal"), "kind",
          "key 'kind' of drop item %d is text, not an unsigned integer")
note_case("v2-drop-count-negative", "a drop item whose drops is -3",
          lambda: v2_drop(drops=-3), "drops",
          "key 'drops' of drop item %d is a negative integer, not an "
          "unsigned integer")
note_case("v2-drop-cpu-text", "a drop item whose cpu is text",
          lambda: v2_drop(cpu="0"), "cpu",
          "key 'cpu' of drop item %d is text, not an integer")


@case("v2-cut-in-recs", "the capture ends 70% into CPU 1's pass-0 recs "
      "item: CPU 0's pass-0 records decode, and the pass-0 aggsnap's state "
      "is printed at the end", base=BaseV2)
def c_v2_cut_recs(b):
    data, offs = layout(b.items)
    i = b.i("recs0.1")
    cut = offs[i] + int(len(enc(b.items[i])) * 0.7)
    return data[:cut], msg(i, None, *cut_short(data[:cut], offs[i])), \
        b.stdout(lose=("recs0.1", "recs1.0", "recs1.1"), snap="aggsnap0"), 1


@case("v2-cut-in-aggsnap", "the capture ends inside the pass-1 aggsnap: "
      "pass 0 decodes, with its aggsnap's state at the end", base=BaseV2)
def c_v2_cut_snap(b):
    data, offs = layout(b.items)
    i = b.i("aggsnap1")
    cut = offs[i] + int(len(enc(b.items[i])) * 0.5)
    return data[:cut], msg(i, None, *cut_short(data[:cut], offs[i])), \
        b.stdout(lose=("recs1.0", "recs1.1"), snap="aggsnap0"), 1



# -- keys recs items do not have, a flavor of the wrong type, a repeated
# aggdesc (first found as decoder problems, now what the decoder must do)

@case("v2-flavor-int", "the header's flavor is the integer 2, not text: "
      "the header is refused (read as legacy, every v2 item would be lost)",
      base=BaseV2)
def c_v2_flavor_int(b):
    with_item(b, "header", flavor=2)
    data, offs = layout(b.items)
    e = enc(b.items[0])
    o = offs[0] + e.find(cbor2.dumps("flavor")) + len(cbor2.dumps("flavor"))
    return data, msg(0, None, o, "key 'flavor' of dtsnap item 0 is an "
                     "unsigned integer, not text"), "", 1


@case("v2-aggdesc-duplicate", "aggregation 1 described a second time with "
      "dsize 24: reported, the first is kept and everything decodes",
      base=BaseV2)
def c_v2_dup_aggdesc(b):
    x = dict(b.items[b.i("aggdesc1")])
    x["dsize"] = 24
    insert_before(b, "aggsnap0", x)
    i = b.i("aggsnap0") - 1
    return layout(b.items)[0], msg(i, None, layout(b.items)[1][i],
                                   "aggregation 1 described twice; the "
                                   "first is kept"), b.stdout(), 1


def recs_key_case(name, about, **keys):
    """A recs item with keys of a legacy buf item: ignored (unknown keys
    are skipped; a recs item has no ring, no drops)."""
    @case(name, about, base=BaseV2)
    def fn(b):
        with_item(b, "recs0.0", **keys)
        return layout(b.items)[0], "", b.stdout(), 0
    return fn


recs_key_case("v2-recs-oldest", "CPU 0's pass-0 recs item has a key "
              "'oldest' 24 (a legacy ring's): ignored, the records decode "
              "in their order", oldest=24)
recs_key_case("v2-recs-oldest-4", "as v2-recs-oldest with 'oldest' 4, "
              "which would misalign the records if it were used", oldest=4)
recs_key_case("v2-recs-drops", "CPU 0's pass-0 recs item has a key "
              "'drops' 3: ignored (v2 drops come as drop items)", drops=3)


def write_cases(cases, outdir, prefix=""):
    """Each case's directory under outdir (its name must start with
    prefix): input.dtsnap, about, and the expected stderr, stdout and exit
    (None: not derived, see the case's about; bad.sh then only checks that
    the decoder does not crash)."""
    names = set()
    for name, about, fn, base in cases:
        assert name.startswith(prefix) and name not in names, name
        names.add(name)
        data, err, out, status = fn((base or Base)())
        d = os.path.join(outdir, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        with open(os.path.join(d, "input.dtsnap"), "wb") as f:
            f.write(data)
        if getattr(base, "NEEDS_CTF", False):   # print() by its types
            open(os.path.join(d, "needs-ctf"), "w").close()
        for fname, val in (("about", about + "\n"), ("stderr", err),
                           ("stdout", out),
                           ("exit", None if status is None else
                            "%d\n" % status)):
            if isinstance(val, bytes):      # output that is not UTF-8
                with open(os.path.join(d, fname), "wb") as f:
                    f.write(val)
            elif val is not None:
                with open(os.path.join(d, fname), "w", encoding="utf-8",
                          newline="") as f:
                    f.write(val)
    print("%d cases" % len(cases))


def outdir_arg():
    return sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.abspath(__file__))


@case("format-not-utf8", "format 2 (read:entry's \"read fd %d\\n\") holds "
      "the bytes ff fe, which are not UTF-8, in a CBOR text string: dtrace "
      "prints a format's bytes as they are, so every read line has them; "
      "the Python package reads the format as Latin-1, as the JSON writer "
      "keeps text that is not UTF-8")
def c_format_not_utf8(b):
    it = b.i("format%d" % FMT_READ)
    with_item(b, "format%d" % FMT_READ, string="readXX fd %d\n")
    raw = enc(b.items[it]).replace(b"readXX", b"read\xff\xfe")
    b.items[it] = Raw(raw)
    out = b.stdout().encode().replace(b"read fd ", b"read\xff\xfe fd ")
    return layout(b.items)[0], "", out, 0


class LiveCapture:
    """A real capture of testdata/live/captures (NAME set by the case), as
    items (re-encoded by cbor2: the layout, and so every offset, is
    gen.py's), with dtrace's own output for it."""

    NAME = None

    def __init__(self):
        d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "live", "captures", self.NAME)
        with open(os.path.join(d, "cap.dtsnap"), "rb") as f:
            data = f.read()
        with open(os.path.join(d, "expected.out"), encoding="utf-8") as f:
            self.out = f.read()
        self.items = []
        f = io.BytesIO(data)
        while f.tell() < len(data):
            self.items.append(cbor2.load(f))

    def index(self, t):
        return [k for k, x in enumerate(self.items) if x.get("t") == t]


class PrintStruct(LiveCapture):
    NAME = "print_struct"
    NEEDS_CTF = True      # the output of bad.sh needs a build with libctf


@case("ctf-int-65535-bits", "testdata/live/captures/print_struct with its "
      "int's CTF encoding (type 2 of the D dictionary) saying 65535 bits in "
      "4 bytes: the dictionary opens, .x and .y print as dtrace-utils "
      "prints an integer wider than 64 bits, \"(int)?(65535 bit value)\", "
      "and one notice at the print() record says the types are damaged "
      "(exit 0: nothing is skipped)",
      base=PrintStruct)
def c_ctf_int_65535(b):
    (ci,) = b.index("ctf")
    ctf = bytearray(b.items[ci]["data"])
    # ctf_header_t (v3): preamble, then 12 words, cth_typeoff and
    # cth_stroff the 10th and 11th; a type record: name, info, size
    # words (kind: info's top 6 bits, vlen its low 16), then its
    # variable part: an integer's encoding word (bits: its low 16), 12
    # bytes a struct member

    typeoff, stroff = struct.unpack_from("<II", ctf, 4 + 9 * 4)
    off, tid = 52 + typeoff, 0
    vbytes = {1: 4, 2: 4, 4: 12, 6: 12, 7: 12, 8: 8}  # per vlen for 6-8
    while tid < 2:          # type 2 is "int" (type 1 the struct point)
        tid += 1
        info = struct.unpack_from("<I", ctf, off + 4)[0]
        kind, vlen = info >> 26, info & 0xffff
        if tid == 2:
            assert kind == 1
            enc = struct.unpack_from("<I", ctf, off + 12)[0]
            assert enc & 0xffff == 32
            struct.pack_into("<I", ctf, off + 12, (enc & ~0xffff) | 0xffff)
            break
        off += 12 + vbytes.get(kind, 0) * (vlen if kind in (6, 7, 8) else 1)
    b.items[ci] = dict(b.items[ci], data=bytes(ctf))
    (ri,) = b.index("recs")
    out = b.out.replace("(int)3,", "(int)?(65535 bit value),").replace(
        "(int)-4,", "(int)?(65535 bit value),")
    err = msg(ri, None, data_offset(b.items, ri), "print() of type %d of "
              "module D: the capture's types are damaged: type 2 is an "
              "integer of 65535 bits in 4 bytes; printed as dtrace prints "
              "it" % b.items[ci]["ids"][0])
    # a notice (nothing is skipped: the value prints as dtrace prints it)
    return layout(b.items)[0], err, out, 0


def main():
    write_cases(CASES, outdir_arg())


if __name__ == "__main__":
    main()
