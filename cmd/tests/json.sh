#!/bin/sh
# JSON Lines and CBOR outputs over every fixture: every dt2json line
# parses with the real jq, the CBOR output decoded with python3-cbor2
# equals the JSON output object for object, and the FreeBSD-compatible
# document (-f json-freebsd) is one valid JSON value.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
: "${JQ:=jq}" "${PYTHON3:=/usr/bin/python3}"
command -v "$JQ" >/dev/null 2>&1 || { echo "jq not found"; exit 77; }
"$PYTHON3" -c 'import cbor2' 2>/dev/null || { echo "python3-cbor2 not found"; exit 77; }
DTSNAP="$top_builddir/cmd/dtsnap"
DT2JSON="$top_builddir/cmd/dt2json"
DTCONSUME="$top_builddir/cmd/dtconsume"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-json.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
n=0 fail=0
for desc in $(find "$top_srcdir/testdata" -name desc.json -o -path '*/testdata/valid/*.json' | sort); do
	dir=$(dirname "$desc")
	[ -f "$dir/skip" ] && continue
	n=$((n + 1))
	snap="$work/$n.dtsnap"
	"$DTSNAP" synth "$desc" -o "$snap" 2>/dev/null || continue
	"$DT2JSON" "$snap" >"$work/$n.jsonl" 2>/dev/null
	"$DTCONSUME" -f cbor "$snap" >"$work/$n.cbor" 2>/dev/null
	if ! "$JQ" -c . <"$work/$n.jsonl" >/dev/null 2>"$work/jq.err"; then
		echo "FAIL jq: $desc: $(head -n 1 "$work/jq.err")"
		fail=$((fail + 1))
		continue
	fi
	# the FreeBSD-compatible document must be one valid JSON value
	"$DTCONSUME" -f json-freebsd "$snap" 2>/dev/null >"$work/$n.fb"
	if ! "$JQ" -e '.dtrace.probes | type == "array"' <"$work/$n.fb" \
	    >/dev/null 2>"$work/jq.err"; then
		echo "FAIL json-freebsd: $desc: $(head -n 1 "$work/jq.err")"
		fail=$((fail + 1))
		continue
	fi
	if ! "$PYTHON3" "$top_srcdir/cmd/tests/cbor_vs_json.py" \
	    "$work/$n.cbor" "$work/$n.jsonl" >"$work/cmp.out"; then
		echo "FAIL cbor != json: $desc"
		cat "$work/cmp.out"
		fail=$((fail + 1))
	fi
done
# hand-written expectations on the JSON of some cases (checks.jq: a jq
# program over all lines of the output, slurped, that must give true)
for chk in "$top_srcdir"/testdata/valid/*/checks.jq; do
	[ -f "$chk" ] || continue
	dir=$(dirname "$chk")
	snaps=""
	for j in "$dir"/*.json; do
		s="$work/chk-$(basename "$j" .json).dtsnap"
		"$DTSNAP" synth "$j" -o "$s" 2>/dev/null && snaps="$snaps $s"
	done
	# shellcheck disable=SC2086
	if "$DT2JSON" $snaps 2>/dev/null | "$JQ" -e -s -f "$chk" >/dev/null; then
		echo "PASS checks $(basename "$dir")"
	else
		echo "FAIL checks $(basename "$dir"): $chk is not true"
		fail=$((fail + 1))
	fi
done
# A DTrace v2 ustack/usym record's process word holds the tgid in both
# halves: every "pid" of the live ustack capture is the pid of its proc
# items, as `dtsnap dump` shows them (not (pid<<32)|pid).
cap="$top_srcdir/testdata/live/captures/ustack_v2/cap.dtsnap"
want=$("$DTSNAP" dump "$cap" | sed -n 's/.* proc pid=\([0-9]*\),.*/\1/p' | sort -u)
got=$("$DT2JSON" "$cap" 2>/dev/null | "$JQ" -r '.. | objects | .pid? // empty' | sort | uniq -c | sed 's/^ *//')
if [ -n "$want" ] && [ "$got" = "15 $want" ]; then
	echo "PASS ustack_v2: each of the 15 pids is the proc item's $want"
else
	echo "FAIL ustack_v2: pids [$got], the proc items' [$want]"
	fail=$((fail + 1))
fi
echo "$((n - fail))/$n fixtures: JSON parses with jq and CBOR equals JSON"
[ $n -gt 0 ] || exit 77
[ $fail -eq 0 ]
