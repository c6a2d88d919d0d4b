#!/bin/sh
# seq.sh - item numbers (key "seq", dtsnap(5) version 1.3) in captures
# the writer makes, and what they let a reader see.
#
# A capture of 2 CPUs and 3 passes is written with `dtsnap synth`; every
# principal buffer prints its own lines ("rec PASS CPU K") and END prints
# an aggregation.  Checked, with cbor2 as the independent decoder:
#   - the header says 1.3, and every item says its index right after "t";
#   - the same capture without the numbers (as 1.0, what the writer wrote
#     before) decodes to the same output: the key changes nothing else;
#   - one buffer item cut out whole (no damaged byte) is named by
#     dtconsume, which exits 1 and prints every other line; the same cut
#     in the unnumbered capture is silent (why the numbers are written);
#   - a buffer item repeated further on, and two buffer items swapped,
#     are named, and no line is printed twice or out of order;
#   - `dtsnap convert` keeps the numbers as they are: through JSON and
#     back byte for byte, a gap stays a gap, and an unnumbered capture
#     (a live DTrace v2 one) stays unnumbered.
# Exit 0 when every check holds, 1 otherwise, 77 when a tool is missing.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
DTSNAP="$(cd "$top_builddir" && pwd)/cmd/dtsnap"
DTCONSUME="$(cd "$top_builddir" && pwd)/cmd/dtconsume"
: "${PYTHON3:=/usr/bin/python3}"
for t in "$DTSNAP" "$DTCONSUME"; do
	[ -x "$t" ] || { echo "SKIP: no $t: build first"; exit 77; }
done
"$PYTHON3" -c 'import cbor2' 2>/dev/null ||
    { echo "SKIP: python3-cbor2 not found ($PYTHON3)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-seq.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
unset _DTRACE_TESTING
export TZ=UTC

# py CMD ARGS: byte surgery on captures, item by item (cbor2's decoder
# says where each item ends, so every other item keeps its own bytes).
#   check CAP            the numbering; prints "ok" or what is wrong
#   strip CAP OUT        the items without "seq", version [1, 0]
#   cut CAP N OUT        item N left out
#   dup CAP N M OUT      a copy of item N inserted before item M
#   swap CAP N OUT       items N and N+1 swapped
#   off CAP N            the byte offset of item N
#   find CAP KIND P C    the index of the KIND item of pass P, CPU C
py() {
	"$PYTHON3" - "$@" <<'PYEOF'
import io
import sys

import cbor2


def items(path):
    data = open(path, "rb").read()
    f = io.BytesIO(data)
    dec = cbor2.CBORDecoder(f)
    out = []
    while f.tell() < len(data):
        at = f.tell()
        x = dec.decode()
        out.append((x, data[at:f.tell()]))
    return out


def write(path, raws):
    open(path, "wb").write(b"".join(raws))


cmd, cap = sys.argv[1], sys.argv[2]
its = items(cap)
raws = [r for _, r in its]
if cmd == "check":
    bad = []
    for k, (x, r) in enumerate(its):
        keys = list(x)
        if keys[:2] != ["t", "seq"] or x["seq"] != k:
            bad.append("item %d (%s): keys %s, seq %r" %
                       (k, x.get("t"), keys[:3], x.get("seq")))
        # the writer's encoding is the preferred one cbor2 writes too
        if cbor2.dumps(x) != r:
            bad.append("item %d (%s): not the preferred encoding" %
                       (k, x.get("t")))
    if its[0][0].get("version") != [1, 4]:
        bad.append("header version %r" % (its[0][0].get("version"),))
    print("; ".join(bad[:4]) if bad else "ok")
elif cmd == "strip":
    out = []
    for x, _ in its:
        y = {k: v for k, v in x.items() if k != "seq"}
        if y["t"] == "dtsnap":
            y["version"] = [1, 0]
        out.append(cbor2.dumps(y))
    write(sys.argv[3], out)
elif cmd == "cut":
    n = int(sys.argv[3])
    write(sys.argv[4], raws[:n] + raws[n + 1:])
elif cmd == "dup":
    n, m = int(sys.argv[3]), int(sys.argv[4])
    write(sys.argv[5], raws[:m] + [raws[n]] + raws[m:])
elif cmd == "swap":
    n = int(sys.argv[3])
    write(sys.argv[4], raws[:n] + [raws[n + 1], raws[n]] + raws[n + 2:])
elif cmd == "off":
    print(sum(len(r) for r in raws[:int(sys.argv[3])]))
elif cmd == "find":
    kind, p, c = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    print([k for k, (x, _) in enumerate(its) if x["t"] == kind and
           x.get("pass") == p and x.get("cpu") == c][0])
PYEOF
}

# The description: 3 passes of 2 CPUs, 4 printf records per buffer.
{
	printf '{"header": {"ncpu": 2}, "options": {"quiet": "set"},\n'
	printf ' "probes": [{"id": 1, "provider": "syscall", "function": "read", "name": "entry"},\n'
	printf '            {"id": 2, "provider": "dtrace", "name": "END"}],\n'
	printf ' "eprobes": [{"epid": 1, "probe": 1, "recs": [{"printf": "rec %%d %%d %%d\\n", "args": [4, 4, 4]}]},\n'
	printf '             {"epid": 2, "probe": 2, "recs": [{"printa": "agg %%d %%@u\\n", "aggs": ["c"]}]}],\n'
	printf ' "aggs": [{"id": 1, "epid": 1, "varid": 1, "name": "c", "keys": [{"trace": 4}], "func": "count"}],\n'
	printf ' "passes": ['
	sep=""
	for p in 1 2 3; do
		printf '%s\n  {"aggbufs": [' "$sep"
		printf '{"cpu": 0, "entries": [{"agg": "c", "key": [%d], "data": [null, null]}]}' $p
		printf '], "bufs": ['
		for c in 0 1; do
			[ $c = 1 ] && printf ', '
			printf '{"cpu": %d, "timestamp": %d, "records": [' $c $((p * 1000 + 900))
			for k in 0 1 2 3; do
				[ $k = 0 ] || printf ', '
				printf '{"epid": 1, "ts": %d, "data": [[%d, %d, %d]]}' \
				    $((p * 1000 + c * 100 + k)) $p $c $k
			done
			[ $p = 3 ] && [ $c = 1 ] &&
			    printf ', {"epid": 2, "ts": %d}' $((p * 1000 + 150))
			printf ']}'
		done
		printf ']}'
		sep=","
	done
	printf '],\n "end": {"exit_status": 0}}\n'
} >"$work/desc.json"

cd "$work" || exit 99
if ! "$DTSNAP" synth desc.json -o cap.dtsnap 2>synth.err; then
	not_ok "dtsnap synth writes the capture" "$(head -n 3 synth.err)"
	finish
fi

# dec NAME: decode NAME.dtsnap into NAME.out, NAME.err; the exit status
# in $st.
dec() {
	"$DTCONSUME" "$1.dtsnap" >"$1.out" 2>"$1.err"
	st=$?
}

# lines_without BASE PASS CPU: BASE.out without the lines of one buffer.
lines_without() {
	grep -v "^rec $2 $3 " "$1.out"
}

r=$(py check cap.dtsnap)
if [ "$r" = ok ]; then
	ok "written as 1.3, every item numbered right after \"t\""
else
	not_ok "written as 1.3, every item numbered right after \"t\"" "$r"
fi

dec cap
if [ $st = 0 ] && [ ! -s cap.err ] && [ "$(grep -c '^rec ' cap.out)" = 24 ] &&
    grep -q '^agg 3 2$' cap.out; then
	ok "the intact capture decodes: exit 0, no message, 24 records"
else
	not_ok "the intact capture decodes: exit 0, no message, 24 records" \
	    "exit $st" "$(head -n 3 cap.err)" "$(head -n 3 cap.out)"
fi

py strip cap.dtsnap plain.dtsnap
dec plain
if [ $st = 0 ] && [ ! -s plain.err ] && cmp -s cap.out plain.out; then
	ok "the same capture unnumbered (1.0) decodes to the same output"
else
	not_ok "the same capture unnumbered (1.0) decodes to the same output" \
	    "exit $st" "$(head -n 3 plain.err)" "$(diff cap.out plain.out | head -n 5)"
fi

# a buffer item cut out whole: CPU 1's of pass 2
n=$(py find cap.dtsnap buf 2 1)
o=$(py off cap.dtsnap "$n")
py cut cap.dtsnap "$n" cut.dtsnap
dec cut
want="dtconsume: cut.dtsnap: item $n, offset $o: item $n is missing before byte $o (the item there says it is item $((n + 1)))"
lines_without cap 2 1 >cut.want
if [ $st = 1 ] && [ "$(cat cut.err)" = "$want" ] && cmp -s cut.want cut.out; then
	ok "item $n cut out cleanly: named, exit 1, every other line printed"
else
	not_ok "item $n cut out cleanly: named, exit 1, every other line printed" \
	    "exit $st" "got:  $(cat cut.err)" "want: $want" \
	    "$(diff cut.want cut.out | head -n 5)"
fi
# the control: without the numbers the same cut leaves no trace
py cut plain.dtsnap "$n" plaincut.dtsnap
dec plaincut
if [ $st = 0 ] && [ ! -s plaincut.err ] && cmp -s cut.want plaincut.out; then
	ok "the same cut in the unnumbered capture is silent (exit 0)"
else
	not_ok "the same cut in the unnumbered capture is silent (exit 0)" \
	    "exit $st" "$(head -n 3 plaincut.err)"
fi

# CPU 0's buffer of pass 1 again before pass 2's aggregation buffer:
# not next to itself, so only its number tells the copy
n=$(py find cap.dtsnap buf 1 0)
m=$(py find cap.dtsnap aggbuf 2 0)
o=$(py off cap.dtsnap "$m")
py dup cap.dtsnap "$n" "$m" dup.dtsnap
dec dup
want="dtconsume: dup.dtsnap: item $m, offset $o: item at byte $o repeats item $n (its seq); skipped"
if [ $st = 1 ] && [ "$(cat dup.err)" = "$want" ] && cmp -s cap.out dup.out; then
	ok "item $n repeated before item $m: skipped with a message, nothing printed twice"
else
	not_ok "item $n repeated before item $m: skipped with a message, nothing printed twice" \
	    "exit $st" "got:  $(cat dup.err)" "want: $want" \
	    "$(diff cap.out dup.out | head -n 5)"
fi

# pass 3's two buffers swapped: the first one read (CPU 1's) says item
# n+1, and item n, which is due, follows it: it is out of place and
# skipped; n is read, and n+1 is then named missing before item n+2.
# Order is part of the data: nothing is printed out of place.  CPU 0's
# item now starts where CPU 1's ended.
n=$(py find cap.dtsnap buf 3 0)
o=$(py off cap.dtsnap "$n")
o3=$(py off cap.dtsnap $((n + 2)))
py swap cap.dtsnap "$n" swap.dtsnap
dec swap
want="dtconsume: swap.dtsnap: item $n, offset $o: item at byte $o says it is item $((n + 1)), but item $n follows it: out of place; skipped
dtconsume: swap.dtsnap: item $((n + 2)), offset $o3: item $((n + 1)) is missing before byte $o3 (the item there says it is item $((n + 2)))"
# (CPU 1's pass-3 buffer holds END's record too: its aggregation is
# then printed at the end in the default format, not by END's printa)
lines_without cap 3 1 | grep "^rec " >swap.want
grep "^rec " swap.out >swap.recs
if [ $st = 1 ] && [ "$(cat swap.err)" = "$want" ] && cmp -s swap.want swap.recs; then
	ok "items $n and $((n + 1)) swapped: $((n + 1)) out of place, skipped and named missing; nothing printed out of order"
else
	not_ok "items $n and $((n + 1)) swapped: $((n + 1)) out of place, skipped and named missing; nothing printed out of order" \
	    "exit $st" "got:  $(cat swap.err)" "want: $want" \
	    "$(diff swap.want swap.recs | head -n 5)"
fi

# convert passes the numbers through as they are
"$DTSNAP" convert -f json cap.dtsnap -o cap.json &&
    "$DTSNAP" convert -f cbor cap.json -o back.dtsnap
if cmp -s cap.dtsnap back.dtsnap && grep -q '^{"t":"buf","seq":' cap.json; then
	ok "convert to JSON and back keeps every number, byte for byte"
else
	not_ok "convert to JSON and back keeps every number, byte for byte" \
	    "$(head -c 200 cap.json)"
fi
"$DTSNAP" convert -f cbor cut.dtsnap -o recut.dtsnap 2>/dev/null
dec recut
if cmp -s cut.dtsnap recut.dtsnap && [ $st = 1 ]; then
	ok "convert renumbers nothing: a gap stays a gap"
else
	not_ok "convert renumbers nothing: a gap stays a gap" "exit $st"
fi
live="$top_srcdir/testdata/live/captures/agg_count/cap.dtsnap"
if [ -f "$live" ]; then
	"$DTSNAP" convert -f json "$live" -o live.json &&
	    "$DTSNAP" convert -f cbor live.json -o live.dtsnap
	if cmp -s "$live" live.dtsnap && ! grep -q '"seq":' live.json &&
	    grep -q '"flavor":"dtrace-v2"' live.json; then
		ok "convert adds no number to an unnumbered live DTrace v2 capture"
	else
		not_ok "convert adds no number to an unnumbered live DTrace v2 capture" \
		    "$(head -c 200 live.json)"
	fi
fi
finish
