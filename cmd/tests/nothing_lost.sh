#!/bin/sh
# nothing_lost.sh - damage to one item of a capture loses that item at
# most, and never silently.
#
# A capture of 2 CPUs and 4 passes is made with `dtsnap synth`: every
# principal buffer holds 6 printf records "rec PASS CPU K", every
# aggregation buffer 3 count() keys of its own (PASS*100 + CPU*10 + J),
# printed by END's printa as "agg KEY COUNT".  So every line of the
# decode belongs to exactly one item.  One item (the pass-2 buffer of
# CPU 1, or an aggregation buffer) is then damaged in each way of
# dtsnap(5) DAMAGE AND RESYNCHRONIZATION, in the capture as `dtsnap synth`
# writes it (every item numbered: key "seq", version 1.3) and in the same
# capture as writers before 1.3 wrote it (no "seq"), and dtconsume must,
# record by record:
#   - print every line of every other item, exactly once;
#   - print no line the intact capture does not print, none twice;
#   - not exit 0, and say something on stderr (no silent damage);
#   - print the damaged item's own lines too where the damage leaves
#     them readable (a head count, stray bytes, odd values, a copy).
# It prints how much of the capture each case kept, and in all.  One
# check is a TODO (TAP): an item deleted cleanly from an unnumbered
# capture (an older writer's) leaves no trace to see (dtsnap(5) DAMAGE
# AND RESYNCHRONIZATION); in the numbered one the gap is reported.
#
# Then insertions (issue 24), in both flavors: the legacy capture above
# and a real DTrace v2 capture (testdata/live/captures/passes_v2, written
# by `dtsnap record`: 10 recs and 22 aggsnap items), each numbered (1.3,
# as written) and unnumbered (as writers before 1.3 wrote it).  Bytes are
# inserted between intact items, at three places where that fits (before
# the first format item, mid-capture before a buffer, before the end
# item): an unknown item (well formed; holding a tag; an unassigned simple
# value; arrays 65 deep; a byte string claiming 2^60 bytes; cut in the
# middle; carrying the number of the item after it), a copy of an intact
# item from earlier and from later in the file, a copy of the header, and
# another capture spliced in whole (mid-capture, and appended).  Nothing
# outside the inserted bytes is damaged, so dtconsume must print exactly
# the undamaged capture's lines, in order (compared line by line), exit
# 1, and say for each insertion something located in its bytes (a byte
# offset from its first byte to its end).  In an unnumbered capture a
# copy of an item that is not next to it, and a capture spliced in, look
# like items of the capture: those checks are TODO there (why seq is
# written).
#
# The figure printed last, nothing_lost, is: over every damaged and
# inserted capture (the TODO cases left out), the lines of the undamaged
# capture's decode that dtconsume printed, out of all of them; a line of
# an item the damage itself made unreadable counts as lost, and an
# insertion case whose output is not exactly the undamaged one (a line
# twice, or out of place) loses at least one line.
# Exit 0 when every check holds, 1 otherwise, 77 when a tool is missing.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
DTSNAP="$(cd "$top_builddir" && pwd)/cmd/dtsnap"
DTCONSUME="$(cd "$top_builddir" && pwd)/cmd/dtconsume"
: "${PYTHON3:=/usr/bin/python3}"
[ -x "$DTSNAP" ] && [ -x "$DTCONSUME" ] || { echo "SKIP: build first"; exit 77; }
"$PYTHON3" -c 'import cbor2' 2>/dev/null ||
    { echo "SKIP: python3-cbor2 not found"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-lost.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export LC_ALL=C
unset _DTRACE_TESTING

V2CAP="$top_srcdir/testdata/live/captures/passes_v2/cap.dtsnap"
V2OTHER="$top_srcdir/testdata/live/captures/exit_status/cap.dtsnap"
[ -f "$V2CAP" ] && [ -f "$V2OTHER" ] || { echo "SKIP: no $V2CAP"; exit 77; }

exec "$PYTHON3" - "$DTSNAP" "$DTCONSUME" "$work" "$V2CAP" "$V2OTHER" <<'PYEOF'
import io
import re
import json
import os
import subprocess
import sys

import cbor2

DTSNAP, DTCONSUME, WORK, V2CAP, V2OTHER = sys.argv[1:6]
NPASS, NCPU, NREC, NKEY = 4, 2, 6, 3


def description(first=1, npass=NPASS):
    """The capture: keys and values chosen so that each printed line names
    the item it comes from (passes first .. npass)."""
    passes = []
    for p in range(first, npass + 1):
        aggbufs, bufs = [], []
        for c in range(NCPU):
            aggbufs.append({"cpu": c, "entries": [
                {"agg": "c", "key": [p * 100 + c * 10 + j],
                 "data": [None] * (j + 1 + p)} for j in range(NKEY)]})
            recs = [{"epid": 1, "ts": p * 1000 + c * 100 + k,
                     "data": [[p, c, k]]} for k in range(NREC)]
            if p == NPASS and c == NCPU - 1:
                recs.append({"epid": 2, "ts": p * 1000 + c * 100 + 50})
            bufs.append({"cpu": c, "timestamp": p * 1000 + 900,
                         "records": recs})
        passes.append({"aggbufs": aggbufs, "bufs": bufs})
    return {
        "header": {"ncpu": NCPU}, "options": {"quiet": "set"},
        "probes": [{"id": 1, "provider": "syscall", "function": "read",
                    "name": "entry"},
                   {"id": 2, "provider": "dtrace", "name": "END"}],
        "eprobes": [{"epid": 1, "probe": 1, "recs": [
            {"printf": "rec %d %d %d\n", "args": [4, 4, 4]}]},
            {"epid": 2, "probe": 2, "recs": [
                {"printa": "agg %d %@u\n", "aggs": ["c"]}]}],
        "aggs": [{"id": 1, "epid": 1, "varid": 1, "name": "c",
                  "keys": [{"trace": 4}], "func": "count"}],
        "passes": passes, "end": {"exit_status": 0}}


def lines_of(it):
    """What an item makes dtconsume print (for this description)."""
    if it.get("t") == "buf":
        p, c = it["pass"], it["cpu"]
        return {"rec %d %d %d" % (p, c, k) for k in range(NREC)}
    if it.get("t") == "aggbuf":
        p, c = it["pass"], it["cpu"]
        return {"agg %d %d" % (p * 100 + c * 10 + j, j + 1 + p)
                for j in range(NKEY)}
    return set()


def split(data):
    """The items of a capture: (decoded, bytes)."""
    f = io.BytesIO(data)
    dec = cbor2.CBORDecoder(f)
    out = []
    while f.tell() < len(data):
        at = f.tell()
        x = dec.decode()
        out.append((x, data[at:f.tell()]))
    return out


def unnumbered(items):
    """The same capture as a version 1.2 writer (before seq) wrote it:
    no "seq" key in any item."""
    out = []
    for k, (x, _) in enumerate(items):
        y = {kk: v for kk, v in x.items() if kk != "seq"}
        if k == 0:
            y["version"] = [1, 2]
        out.append((y, cbor2.dumps(y)))
    return out


def numbered(items):
    """A capture as a version 1.3 writer writes it: "seq" right after
    "t" in every item."""
    out = []
    for k, (x, _) in enumerate(items):
        y = {"t": x["t"], "seq": k}
        y.update((kk, v) for kk, v in x.items() if kk not in ("t", "seq"))
        if k == 0:
            y["version"] = [1, 3]
        out.append((y, cbor2.dumps(y)))
    return out


def find(items, kind, p, c):
    for k, (x, _) in enumerate(items):
        if x.get("t") == kind and x.get("pass") == p and x.get("cpu") == c:
            return k
    raise KeyError((kind, p, c))


def add_pair(e, raw):
    """An item's bytes with one more pair "zz": raw (exact bytes)."""
    assert 0xa1 <= e[0] <= 0xb6
    return bytes([e[0] + 1]) + e[1:] + cbor2.dumps("zz") + raw


def with_data_head(e, item, head):
    """An item's bytes with the head of its "data" byte string replaced."""
    d = item["data"]
    h = cbor2.dumps(d)[:-len(d)] if d else cbor2.dumps(d)
    pos = e.find(cbor2.dumps("data") + h + d) + len(cbor2.dumps("data"))
    assert pos >= len(cbor2.dumps("data"))
    return e[:pos] + head + e[pos + len(h):]


# Each damage: (name, which item, how: items -> bytes, whether the damaged
# item's own lines must still be printed).  Items are (decoded, bytes).
def damages():
    def rewrite(k, f):
        return lambda items: b"".join(f(x, e) if i == k else e
                                      for i, (x, e) in enumerate(items))

    def insert_before(k, raw):
        return lambda items: b"".join((raw if i == k else b"") + e
                                      for i, (x, e) in enumerate(items))
    return [
        ("extra-map-pair", "buf", lambda k: rewrite(
            k, lambda x, e: bytes([e[0] + 1]) + e[1:]), True),
        ("missing-map-pair", "buf", lambda k: rewrite(
            k, lambda x, e: bytes([e[0] - 1]) + e[1:]), True),
        ("stray-bytes", "buf", lambda k: insert_before(k, b"\x01\x02\x03"),
         True),
        ("stray-map-head", "buf", lambda k: insert_before(k, b"\xa3"), True),
        ("bad-head", "buf", lambda k: rewrite(
            k, lambda x, e: b"\x1c" + e[1:]), False),
        ("reserved-inside", "buf", lambda k: rewrite(
            k, lambda x, e: e[:3] + b"\xfe" + e[4:]), False),
        ("tag-unknown-key", "buf", lambda k: rewrite(
            k, lambda x, e: add_pair(e, b"\xc6\x01")), True),
        ("simple-unknown-key", "aggbuf", lambda k: rewrite(
            k, lambda x, e: add_pair(e, b"\xf8\x40")), True),
        ("deep-unknown-nesting", "buf", lambda k: rewrite(
            k, lambda x, e: add_pair(e, b"\x81" * 200 + b"\x00")), True),
        ("too-deep-nesting", "buf", lambda k: rewrite(
            k, lambda x, e: add_pair(e, b"\x81" * 70000 + b"\x00")), False),
        ("huge-claim-2p60", "buf", lambda k: rewrite(
            k, lambda x, e: with_data_head(e, x, b"\x5b" +
                                           (1 << 60).to_bytes(8, "big"))),
         False),
        ("huge-claim-4g", "buf", lambda k: rewrite(
            k, lambda x, e: with_data_head(e, x, b"\x5b" +
                                           (1 << 32).to_bytes(8, "big"))),
         False),
        ("length-too-long", "buf", lambda k: rewrite(
            k, lambda x, e: with_data_head(e, x, b"\x59" + (
                len(x["data"]) + 9).to_bytes(2, "big"))), False),
        ("array-count", "buf", lambda k: rewrite(
            k, lambda x, e: add_pair(e, b"\x84\x01\x02")), False),
        ("cut-inside-item", "buf", lambda k: rewrite(
            k, lambda x, e: e[:len(e) * 2 // 3]), False),
        ("duplicated-item", "buf", lambda k: rewrite(
            k, lambda x, e: e + e), True),
        ("deleted-item", "buf", lambda k: rewrite(k, lambda x, e: b""),
         False),
    ]


def unknown(*pairs):
    """The bytes of an item of the unknown kind "zzz" whose pairs are given
    as exact bytes (key, value)."""
    body = cbor2.dumps("t") + cbor2.dumps("zzz")
    for k, v in pairs:
        body += cbor2.dumps(k) + v
    assert len(pairs) + 1 < 24
    return bytes([0xa0 + len(pairs) + 1]) + body


def insertions():
    """Each: (name, what to insert before item k of items: bytes, or None
    where it does not apply, whether it needs numbered items to be seen
    (TODO when not numbered))."""
    def fixed(raw):
        return lambda items, k, other: raw

    def due(items, k, other):
        # the number of the item it is put before, if the items have one
        s = items[k][0].get("seq")
        return unknown(("seq", cbor2.dumps(s if s is not None else 0)),
                       ("a", cbor2.dumps([1, 2])))

    def copy_of(d):
        def f(items, k, other):
            j = k + d
            # an item that prints or changes state, not the end item
            while 0 < j < len(items) - 1 and items[j][0]["t"] not in (
                    "buf", "aggbuf", "recs", "aggsnap", "format", "stmt",
                    "probe"):
                j += 1 if d > 0 else -1
            if not 0 < j < len(items) - 1 or j in (k - 1, k):
                return None
            return items[j][1]
        return f

    def header(items, k, other):
        return items[0][1]

    def splice(items, k, other):
        return b"".join(e for _, e in other)

    cut = unknown(("a", cbor2.dumps(bytes(range(40)))),
                  ("b", cbor2.dumps(7)))
    return [
        ("unknown-item", fixed(unknown(("a", cbor2.dumps([1, 2])))), False),
        ("unknown-tag", fixed(unknown(("a", b"\xc6\x01"))), False),
        ("unknown-simple", fixed(unknown(("c", b"\xf8\x40"))), False),
        ("unknown-deep", fixed(unknown(("b", b"\x81" * 65 + b"\x00"))),
         False),
        ("unknown-tag-deep-simple", fixed(unknown(
            ("a", b"\xc6\x01"), ("b", b"\x81" * 65 + b"\x00"),
            ("c", b"\xf8\x40"))), False),
        ("unknown-huge-length", fixed(unknown(
            ("d", b"\x5b" + (1 << 60).to_bytes(8, "big")))), False),
        ("unknown-truncated", fixed(cut[:len(cut) // 2]), False),
        ("unknown-seq-due", due, False),
        ("copy-of-earlier", copy_of(-3), True),
        ("copy-of-later", copy_of(3), True),
        ("copy-of-header", header, False),
    ]


def places(items):
    """Where insertions go: before the first format item, before a buffer
    mid-capture, before the end item."""
    kinds = [x["t"] for x, _ in items]
    out = [kinds.index("format")]
    bufs = [k for k, t in enumerate(kinds) if t in ("buf", "recs")]
    out.append(bufs[len(bufs) // 2])
    out.append(kinds.index("end"))
    return out


def insert(items, raws):
    """The capture with raws[k] before item k; the byte ranges of the
    inserted bytes in it."""
    out, spans = b"", []
    for k, (_, e) in enumerate(items):
        if raws.get(k):
            spans.append((len(out), len(out) + len(raws[k])))
            out += raws[k]
        out += e
    if raws.get(len(items)):
        spans.append((len(out), len(out) + len(raws[len(items)])))
        out += raws[len(items)]
    return out, spans


def located(err, span):
    """A message says a byte offset of the inserted bytes (its first byte
    to the byte just past them)."""
    for n in re.findall(r"(?:offset|byte) (\d+)", err):
        if span[0] <= int(n) <= span[1]:
            return True
    return False


def check_insertions(flavor, variant, items, other, ntest, totals):
    """Every insertion case in one capture; returns (ntest, nfail)."""
    nfail = 0
    raw = b"".join(e for _, e in items)
    path = os.path.join(WORK, "ins-intact.dtsnap")
    with open(path, "wb") as f:
        f.write(raw)
    st, out, err = run(path)
    intact = out.splitlines()
    ntest += 1
    if st != 0 or err:
        nfail += 1
        print("not ok %d - %s %s intact: status %d, stderr %r" %
              (ntest, flavor, variant, st, err[:200]))
    else:
        print("ok %d - %s %s intact: %d lines" % (ntest, flavor, variant,
                                                  len(intact)))
    cases = [(n, f, seq, places(items)) for n, f, seq in insertions()]
    cases.append(("capture-spliced-in", lambda items, k, o: b"".join(
        e for _, e in o), True, [places(items)[1]]))
    cases.append(("capture-appended", lambda items, k, o: b"".join(
        e for _, e in o), True, [len(items)]))
    numbered_items = "seq" in items[1][0]
    for name, make, needs_seq, where in cases:
        raws = {}
        for k in where:
            r = make(items, k, other)
            if r is not None:
                raws[k] = r
        damaged, spans = insert(items, raws)
        path = os.path.join(WORK, "ins-%s.dtsnap" % name)
        with open(path, "wb") as f:
            f.write(damaged)
        st, out, err = run(path)
        got = out.splitlines()
        why = []
        if st != 1:
            why.append("exit status %d, want 1" % st)
        if got != intact:
            lost = [l for l in intact if l not in got]
            extra = [l for l in got if l not in intact]
            why.append("output differs: %d lines lost (%s), %d not in the "
                       "capture (%s)%s" % (
                           len(lost), ", ".join(lost[:3]), len(extra),
                           ", ".join(extra[:3]),
                           "" if lost or extra else ", order changed"))
        unsaid = [s for s in spans if not located(err, s)]
        if unsaid:
            why.append("no message located in the inserted bytes %s" %
                       ", ".join("%d-%d" % s for s in unsaid))
        kept = sum(1 for l in intact if l in got) if got != intact \
            else len(intact)
        # lines printed twice or out of place count as not kept
        if got != intact:
            kept = min(kept, len(intact) - 1)
        ntest += 1
        totals[0] += kept
        totals[1] += len(intact)
        totals[2] += len(spans) - len(unsaid)
        totals[3] += len(spans)
        msg = "%s %s %s: %d insertion%s, kept %d of %d lines, %d of %d " \
              "insertions reported at their bytes" % (
                  flavor, variant, name, len(spans),
                  "" if len(spans) == 1 else "s", kept, len(intact),
                  len(spans) - len(unsaid), len(spans))
        if why and needs_seq and not numbered_items:
            print("not ok %d - %s # TODO unnumbered: %s; only seq tells "
                  "such an item from the capture's own" %
                  (ntest, msg, "; ".join(why)))
            totals[0] -= kept
            totals[1] -= len(intact)
            totals[2] -= len(spans) - len(unsaid)
            totals[3] -= len(spans)
        elif why:
            nfail += 1
            print("not ok %d - %s" % (ntest, msg))
            print("#   " + "; ".join(why))
            for l in err.splitlines()[:4]:
                print("#   stderr: " + l)
        else:
            print("ok %d - %s" % (ntest, msg))
    return ntest, nfail


def run(path):
    p = subprocess.run([DTCONSUME, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def main():
    desc = os.path.join(WORK, "desc.json")
    with open(desc, "w") as f:
        json.dump(description(), f)
    base = os.path.join(WORK, "base.dtsnap")
    subprocess.run([DTSNAP, "synth", desc, "-o", base], check=True)
    with open(base, "rb") as f:
        plain = split(f.read())
    nfail = ntest = 0
    kept_all = total_all = 0
    assert all("seq" in x for x, _ in plain), "synth wrote no seq"
    for variant, items in (("1.3 seq", plain),
                           ("1.2 unnumbered", unnumbered(plain))):
        raw = b"".join(e for _, e in items)
        path = os.path.join(WORK, "intact.dtsnap")
        with open(path, "wb") as f:
            f.write(raw)
        st, out, err = run(path)
        intact = [l for l in out.splitlines() if l]
        want_all = set().union(*(lines_of(x) for x, _ in items))
        ntest += 1
        if st != 0 or err or sorted(intact) != sorted(want_all):
            nfail += 1
            print("not ok %d - %s intact: status %d, %d lines, stderr %r"
                  % (ntest, variant, st, len(intact), err[:200]))
        else:
            print("ok %d - %s intact: %d lines" % (ntest, variant,
                                                   len(intact)))
        for name, kind, make, own in damages():
            # the pass-2 item of CPU 1: mid-capture, END's printa later
            k = find(items, kind, 2, 1)
            damaged = make(k)(items)
            path = os.path.join(WORK, "%s.dtsnap" % name)
            with open(path, "wb") as f:
                f.write(damaged)
            st, out, err = run(path)
            got = [l for l in out.splitlines() if l]
            mine = lines_of(items[k][0])
            if name == "cut-inside-item":
                # the file ends there: what followed is not in it
                later = set().union(*(lines_of(x) for x, _ in items[k:]))
                need = want_all - later - mine
            else:
                need = want_all - mine
            if own:
                need = need | mine
            why, todo = [], []
            silent = todo if (variant, name) == ("1.2 unnumbered",
                                                 "deleted-item") \
                else why
            if st > 2:
                why.append("exit status %d" % st)
            if st == 0:
                silent.append("exit status 0")
            if not err.strip():
                silent.append("nothing on stderr")
            missing = sorted(need - set(got))
            if missing:
                why.append("%d lines lost: %s" % (len(missing),
                                                  ", ".join(missing[:4])))
            extra = sorted(set(got) - want_all)
            if extra:
                why.append("lines not in the capture: %s" %
                           ", ".join(extra[:4]))
            twice = sorted(l for l in set(got) if got.count(l) > 1)
            if twice:
                why.append("printed twice: %s" % ", ".join(twice[:4]))
            kept = len(set(got) & want_all)
            kept_all += kept
            total_all += len(want_all)
            ntest += 1
            msg = "%s %s: kept %d of %d lines (%d of the damaged item's " \
                  "%d)" % (variant, name, kept, len(want_all),
                           len(set(got) & mine), len(mine))
            if why:
                nfail += 1
                print("not ok %d - %s" % (ntest, msg))
                print("#   " + "; ".join(why))
                for l in err.splitlines()[:3]:
                    print("#   stderr: " + l)
            elif todo:
                print("not ok %d - %s # TODO silent: %s; a clean "
                      "deletion shows only with numbered items (seq)" %
                      (ntest, msg, ", ".join(todo)))
            else:
                print("ok %d - %s" % (ntest, msg))
    print("# kept %d of %d lines over every damaged capture (%.1f%%)" %
          (kept_all, total_all, 100.0 * kept_all / total_all))

    # insertions, in both flavors, numbered and not
    other_desc = os.path.join(WORK, "other.json")
    with open(other_desc, "w") as f:
        json.dump(description(first=NPASS + 1, npass=NPASS + 2), f)
    other = os.path.join(WORK, "other.dtsnap")
    subprocess.run([DTSNAP, "synth", other_desc, "-o", other], check=True)
    with open(other, "rb") as f:
        other_legacy = split(f.read())
    with open(V2CAP, "rb") as f:
        v2 = split(f.read())
    with open(V2OTHER, "rb") as f:
        other_v2 = numbered(split(f.read()))
    assert all("seq" in x for x, _ in v2), "passes_v2 is not numbered"
    totals = [0, 0, 0, 0]
    for flavor, items, oth in (("legacy", plain, other_legacy),
                               ("dtrace-v2", v2, other_v2)):
        for variant, its, o in (("1.3 seq", items, oth),
                                ("1.2 unnumbered", unnumbered(items),
                                 unnumbered(oth))):
            ntest, nf = check_insertions(flavor, variant, its, o, ntest,
                                         totals)
            nfail += nf
    print("# insertions: kept %d of %d lines (%.1f%%); %d of %d insertions "
          "reported at their bytes" % (totals[0], totals[1],
                                       100.0 * totals[0] / totals[1],
                                       totals[2], totals[3]))
    kept_all += totals[0]
    total_all += totals[1]
    print("# nothing_lost: %d of %d lines (%.2f%%): over every damaged and "
          "inserted capture, the lines of the undamaged capture's decode "
          "that were printed, of all of them (those of items the damage "
          "made unreadable count as lost)" % (kept_all, total_all,
                                              100.0 * kept_all / total_all))
    print("# %d/%d passed" % (ntest - nfail, ntest))
    sys.exit(1 if nfail else 0)


main()
PYEOF
