#!/usr/bin/python3
"""gen_diag.py - the diag-* cases of testdata/bad/: what the decoder says
about a capture, rather than what it recovers from damage.

    /usr/bin/python3 testdata/bad/gen_diag.py [outdir]   (default: beside it)

The cases have gen.py's layout (input.dtsnap, about, stderr, stdout, exit;
cmd/tests/bad.sh compares) and are built on gen.py's base capture, with
every message and offset derived here from the encoding:

  diag-cpu-ge-ncpu       buffers of a CPU the header does not have
  diag-header-ncpu-text  a header value of the wrong type
  diag-after-end         items after the end item (several), and
  diag-after-end-one     a second end item (one)
  diag-buf-twice         two buf items of one CPU in one pass
  diag-zeros-1m          a header and 1 MiB of zero bytes
  diag-empty-maps-4k     a header and 4096 empty maps: 4096 warnings of
                         one kind, 100 of them written (1 MiB of them, a
                         million warnings, made 150 MB of stderr before
                         the cap; the corpus keeps a small one, as every
                         suite reading it pays for each warning)
  diag-unknown-epid-150  150 buffers with an unknown EPID: 100 written
  diag-printf-mismatch   a printf dtrace would refuse to print ("processing
                         aborted"): the line that says where

Run with /usr/bin/python3 (python3-cbor2); the output is deterministic.
"""

import os
import struct
import sys

# gen.py beside this file; no __pycache__ left in the corpus
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import (Base, item, layout, data_offset, msg, rechdr, with_item,  # noqa: E402
                 insert_before, r_read, rec, ACT_PRINTF, FMT_READ, PROG,
                 FILE)

MAXWARN = 100           # decode.c DECODE_MAXWARN: warnings of one kind shown
ALLHOW = "dtsnap validate -a shows them all"

CASES = []
case = gen.case_registry(CASES)

def summary(n, kind):
    """The line that counts the warnings of a kind left out."""
    return "%s: %s: %d more warning%s like '%s' not shown (%s)\n" % (
        PROG, FILE, n, "" if n == 1 else "s", kind, ALLHOW)

def offsets(b):
    return layout(b.items)[1]

@case("diag-cpu-ge-ncpu", "the header says ncpu 1, and CPU 1 has an "
      "aggregation buffer and two principal buffers: dtrace writes none for "
      "a CPU it does not have, so each is reported; their records are "
      "intact and decoded all the same")
def c_cpu_ge_ncpu(b):
    with_item(b, "header", ncpu=1)
    offs = offsets(b)
    err = ""
    for name in ("aggbuf1.1", "buf1.1", "buf2.1"):
        i = b.i(name)
        err += msg(i, None, offs[i], "%s item for cpu 1, but the header "
                   "says the host has 1 cpu: dtrace writes no buffer for "
                   "it; decoded all the same" % b.items[i]["t"])
    return layout(b.items)[0], err, b.stdout(), 1

@case("diag-header-ncpu-text", "the header's ncpu is the text \"2\": "
      "the warning follows the header (it used to be lost: the header "
      "was decoded and BEGIN delivered); the rest decodes as before")
def c_header_ncpu_text(b):
    with_item(b, "header", ncpu="2")
    data, offs = layout(b.items)
    # the value of "ncpu": after the key's 5 bytes (0x64 "ncpu") in item 0
    at = offs[0] + data[offs[0]:].index(b"\x64ncpu") + 5
    err = msg(0, None, at, "key 'ncpu' of dtsnap item 0 is text, not an "
              "unsigned integer")
    return data, err, b.stdout(), 1


@case("diag-after-end", "the end item comes before pass 2 (its status, "
      "aggregation buffer and two buffers): one warning names the first "
      "item after it and counts the rest; everything is decoded")
def c_after_end(b):
    end = b.items.pop(b.i("end"))
    insert_before(b, "status2", end)
    offs = offsets(b)
    e, first = b.i("status2") - 1, b.i("status2")
    err = msg(first, None, offs[first], "status item after the end item "
              "(item %d), which must be the last, and 3 more items after "
              "it; decoded all the same" % e)
    return layout(b.items)[0], err, b.stdout(), 1

@case("diag-after-end-one", "a second end item after the end item: one "
      "warning; the first end item's exit status stands")
def c_after_end_one(b):
    b.items.append(item("end", exit_status=5))
    offs = offsets(b)
    i = len(b.items) - 1
    err = msg(i, None, offs[i], "end item after the end item (item %d), "
              "which must be the last; decoded all the same" % (i - 1))
    return layout(b.items)[0], err, b.stdout(), 1

@case("diag-buf-twice", "a second buf item for CPU 0 in pass 1 (after "
      "CPU 1's, one read record): libdtrace snaps a CPU once a pass; "
      "reported, and both buffers of CPU 0 decoded in file order")
def c_buf_twice(b):
    extra = r_read(140, 7)
    x = item("buf", **{"pass": 1, "cpu": 0, "data": extra[0], "drops": 0,
                       "errors": 0, "oldest": 0, "timestamp": 1000})
    insert_before(b, "status2", x)
    offs = offsets(b)
    i = b.i("status2") - 1
    err = msg(i, None, offs[i], "a second buf item for cpu 0 in pass 1 "
              "(the first is item %d): dtrace snaps a cpu's buffer once a "
              "pass; both decoded, in file order" % b.i("buf1.0"))
    # consume order: CPU 0's buffers (BEGIN's first), then CPU 1's
    b.recs["buf1.0"] = b.recs["buf1.0"] + [extra]
    return layout(b.items)[0], err, b.stdout(), 1

def header_only(b):
    return layout(b.items[:1])[0]

def no_end(head):
    """The header was the last item read: nothing says the run ended."""
    return msg(0, None, len(head), "capture ends without its end item: "
               "output stops at byte %d, after item 0" % len(head))


@case("diag-zeros-1m", "the header, then 1 MiB of zero bytes (CBOR "
      "integers, not items): one warning for the whole run, not one per "
      "byte")
def c_zeros(b):
    head = header_only(b)
    data = head + b"\0" * (1 << 20)
    err = msg(1, None, len(head), "item at byte %d is an unsigned integer, "
              "not a map; sync lost at byte %d, no item after it up to the "
              "end at byte %d" % (len(head), len(head), len(data)))
    err += no_end(head)
    # nothing to print but dtrace(1)'s end-of-run newline (as in gen.py's
    # cut-in-eprobe)
    return data, err, "\n", 1

@case("diag-empty-maps-4k", "the header, then 4096 empty CBOR maps: "
      "each is an item without its key 't', 4096 warnings of one kind; the "
      "first 100 are written and one line counts the rest")
def c_empty_maps(b):
    head = header_only(b)
    n = 4096
    data = head + b"\xa0" * n
    err = ""
    for k in range(MAXWARN):
        at = len(head) + k
        err += msg(1 + k, None, at, "item at byte %d has no text key 't'; "
                   "skipped" % at)
    err += no_end(head)
    err += summary(n - MAXWARN, "required key missing")
    return data, err, "\n", 1

@case("diag-unknown-epid-150", "150 passes between the base's two, each "
      "a CPU 0 buffer holding one record of the unknown EPID 99: 150 "
      "warnings of one kind, the first 100 written and one line counting "
      "the rest; the base's records all decode")
def c_unknown_epid_150(b):
    n = 150
    # the base's pass 2 becomes pass 2 + n
    for name in ("status2", "aggbuf2.0", "buf2.0", "buf2.1"):
        with_item(b, name, **{"pass": 2 + n})
    bad = rechdr(99, 1500) + struct.pack("<I", 0)
    for k in range(n):
        insert_before(b, "status2", item("buf", **{
            "pass": 2 + k, "cpu": 0, "data": bad, "drops": 0, "errors": 0,
            "oldest": 0, "timestamp": 1500}))
    first = b.i("status2") - n
    err = ""
    for k in range(MAXWARN):
        i = first + k
        err += msg(i, 0, data_offset(b.items, i), "unknown enabled probe id "
                   "99 at buffer offset 0; the rest of this buffer (16 "
                   "bytes) is skipped")
    err += summary(n - MAXWARN, "unknown enabled probe id")
    return layout(b.items)[0], err, b.stdout(), 1

@case("diag-printf-mismatch", "read:entry's printf(\"read fd %d\") has a "
      "3-byte argument, which no integer conversion takes: dtrace prints "
      "\"processing aborted\" at the first read record (CPU 0, after BEGIN's "
      "line) and nothing more; a second line names the item, CPU and offset")
def c_printf_mismatch(b):
    with_item(b, "eprobe2", recs=[rec(ACT_PRINTF, 3, 12, align=1,
                                      fmt=FMT_READ, uarg=2)])
    i = b.i("buf1.0")
    off = data_offset(b.items, i) + len(b.recs["buf1.0"][0][0])
    why = "processing aborted: Data record list does not match statement"
    err = "dtrace: %s\n" % why + msg(i, 0, off, "%s; nothing after this "
                                     "record is decoded" % why)
    # BEGIN's line, then nothing (no end-of-run newline after an abort)
    return layout(b.items)[0], err, b.text("buf1.0", 0), 1

@case("diag-agg-quantize-8", "@reads is described as quantize() with an "
      "8-byte value (a quantize holds 127 buckets): the values merge, but "
      "END's printa cannot print them: dtrace prints \"processing "
      "aborted\" at END's record (CPU 1, last) after every other line; a "
      "second line names the item, CPU and offset.  The Python package's "
      "aggregations().text() raises the same reason as a DecodeError")
def c_agg_quantize_8(b):
    with_item(b, "agg1", recs=[rec(gen.ACT_DIFEXPR, 8, 8),
                               rec(gen.ACT_DIFEXPR, 16, 16, align=1),
                               rec(0x0707, 8, 32)])
    i = b.i("buf2.1")
    off = data_offset(b.items, i) + len(b.recs["buf2.1"][0][0])
    why = "processing aborted: Data record list does not match statement"
    err = "dtrace: %s\n" % why + msg(i, 1, off, "%s; nothing after this "
                                     "record is decoded" % why)
    # every line before END's printa; no end-of-run newline after an abort
    out = b.stdout(printa=False)
    assert out.endswith("\n")
    return layout(b.items)[0], err, out[:-1], 1


def main():
    gen.write_cases(CASES, gen.outdir_arg(), "diag-")


if __name__ == "__main__":
    main()
