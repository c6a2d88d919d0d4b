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

exec "$PYTHON3" - "$DTSNAP" "$DTCONSUME" "$work" <<'PYEOF'
import io
import json
import os
import subprocess
import sys

import cbor2

DTSNAP, DTCONSUME, WORK = sys.argv[1:4]
NPASS, NCPU, NREC, NKEY = 4, 2, 6, 3


def description():
    """The capture: keys and values chosen so that each printed line names
    the item it comes from."""
    passes = []
    for p in range(1, NPASS + 1):
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
    print("# %d/%d passed" % (ntest - nfail, ntest))
    sys.exit(1 if nfail else 0)


main()
PYEOF
