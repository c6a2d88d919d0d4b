#!/bin/sh
# Record selection: --probe, --cpu, --epid, --since, --until and -x cpu of
# dtconsume and dt2json, over the synth captures of testdata/select (the
# cases file, outputs worked out by hand in its README) and over real
# DTrace for Linux captures of testdata/live/captures, whose expected
# lines are picked from what dtrace itself printed.  Text, JSON (the end
# object's totals, the objects kept), CBOR (the same objects) and -f none.
. "$(dirname "$0")/lib.sh"
need_dtsnap
: "${JQ:=jq}" "${PYTHON3:=python3}"
DTCONSUME="$top_builddir/cmd/dtconsume"
DT2JSON="$top_builddir/cmd/dt2json"
SEL="$top_srcdir/testdata/select"
LIVE="$top_srcdir/testdata/live/captures"
[ -x "$DTCONSUME" ] || { echo "# no $DTCONSUME"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-select.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export TZ=UTC
unset _DTRACE_TESTING DTCONSUME_PROGRESS_AFTER

# the captures: sel.json as it is, without its end item, without its clock
"$DTSNAP" synth "$SEL/sel.json" -o "$work/sel.dtsnap" || exit 99
sed '/"end":/d' "$SEL/sel.json" >"$work/cut.json"
"$DTSNAP" synth "$work/cut.json" -o "$work/cut.dtsnap" || exit 99
sed '/"clock":/d' "$SEL/sel.json" >"$work/noclock.json"
"$DTSNAP" synth "$work/noclock.json" -o "$work/noclock.dtsnap" || exit 99
"$DTSNAP" synth "$SEL/agg.json" -o "$work/agg.dtsnap" || exit 99
DTCONSUME=$(cd "$(dirname "$DTCONSUME")" && pwd)/dtconsume
DT2JSON=$(cd "$(dirname "$DT2JSON")" && pwd)/dt2json

# --- the cases file: stdout, stderr and exit status
set -f    # globs in the arguments are dtconsume's
while read -r name cap args; do
	case $name in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086
	(cd "$work" && "$DTCONSUME" $args "$cap.dtsnap" >out 2>err)
	rc=$?
	want_rc=0
	[ -f "$SEL/expected/$name.rc" ] && want_rc=$(cat "$SEL/expected/$name.rc")
	: >"$work/none"
	want_err="$SEL/expected/$name.err"
	[ -f "$want_err" ] || want_err="$work/none"
	if [ "$rc" = "$want_rc" ] &&
	    cmp -s "$work/out" "$SEL/expected/$name.out" &&
	    cmp -s "$work/err" "$want_err"; then
		ok "$name: dtconsume $args"
	else
		not_ok "$name: dtconsume $args" "exit $rc, want $want_rc" \
		    "$(diff "$SEL/expected/$name.out" "$work/out" | head -n 8)" \
		    "$(diff "$want_err" "$work/err" | head -n 4)"
	fi
done <"$SEL/cases"
set +f

# --- JSON: what is kept, and the end object's totals
# jqcheck NAME EXPR ARGS...: dt2json ARGS, slurped, must make EXPR true
jqcheck() {
	name=$1 expr=$2
	shift 2
	if (cd "$work" && "$DT2JSON" "$@" 2>/dev/null) |
	    "$JQ" -e -s "$expr" >/dev/null 2>&1; then
		ok "json $name"
	else
		not_ok "json $name" "dt2json $*" "$expr"
	fi
}
if command -v "$JQ" >/dev/null 2>&1; then
	END='(map(select(.type == "end")) | .[0])'
	jqcheck "read:entry: the end object counts 3 firings, 7 left out" \
	    "$END | .firings == 3 and .firings_skipped == 7 and .errors == 0
	    and .records == 3 and .exit_status == 3 and .complete == true" \
	    --probe 'read:entry' sel.dtsnap
	jqcheck "read:entry: only probe objects of read:entry" \
	    '[.[] | select(.type == "probe") | .probe] ==
	    ["syscall:freebsd:read:entry", "syscall:freebsd:read:entry",
	    "syscall:freebsd:read:entry"]' --probe 'read:entry' sel.dtsnap
	jqcheck "dtrace:::ERROR: the error object alone" \
	    '([.[] | select(.type == "error") | .fault_epid] == [4]) and
	    ([.[] | select(.type == "probe")] == []) and
	    (map(select(.type == "end"))[0] | .firings == 0 and
	    .firings_skipped == 9 and .errors == 1)' \
	    --probe 'dtrace:::ERROR' sel.dtsnap
	jqcheck "no selection: 9 firings, none left out" \
	    "$END | .firings == 9 and .firings_skipped == 0 and .errors == 1" \
	    sel.dtsnap
	jqcheck "the exit of a firing left out: exit_status 3, no exit object" \
	    "([.[] | select(.type == \"exit\")] == []) and ($END |
	    .exit_status == 3 and .complete == false)" --probe BEGIN cut.dtsnap
	# (past 2^53, so decimal strings: dt2json(1))
	jqcheck "a window of wall-clock times: walltimes inside it" \
	    '[.[] | select(.type == "probe") | .walltime] ==
	    ["1700000000000001100", "1700000000000001500",
	    "1700000000000002200", "1700000000000002500"]' \
	    --since 2023-11-14T22:13:20.0000011Z \
	    --until 2023-11-14T22:13:20.0000025Z sel.dtsnap
	jqcheck "agg: the printa of a firing left out, printed at the end" \
	    '[.[] | select(.type == "aggregation") | [.trigger, .name,
	    .rows[0].values[0].value]] == [["exit", "c", 1]]' \
	    --probe read:entry agg.dtsnap
	jqcheck "agg: printed by a printa selected, not again at the end" \
	    '[.[] | select(.type == "aggregation") | [.trigger,
	    .rows[0].values[0].value]] == [["printa", 2]]' \
	    --probe tick-1s agg.dtsnap
else
	echo "# jq not found: JSON checks not run"
fi
# CBOR carries the same objects as JSON (the library selects for both)
if "$PYTHON3" -c 'import cbor2' 2>/dev/null; then
	(cd "$work" && "$DT2JSON" --cpu 1 --probe 'syscall:::' sel.dtsnap \
	    >sel.jsonl 2>/dev/null &&
	    "$DTCONSUME" -f cbor --cpu 1 --probe 'syscall:::' sel.dtsnap \
	    >sel.cbor 2>/dev/null)
	if "$PYTHON3" "$top_srcdir/cmd/tests/cbor_vs_json.py" \
	    "$work/sel.cbor" "$work/sel.jsonl" >"$work/cmp" 2>&1 &&
	    [ "$(grep -c '"type":"probe"' "$work/sel.jsonl")" = 3 ]; then
		ok "cbor: the same 3 firings as json"
	else
		not_ok "cbor: the same firings as json" "$(head -n 3 "$work/cmp")"
	fi
else
	echo "# python3-cbor2 not found: CBOR check not run"
fi

# --- real captures: dtrace's own lines, picked by clause
# live NAME EXPECTED-FILE RC ARGS...: dtconsume ARGS CAPTURE
live() {
	name=$1 want=$2 want_rc=$3
	shift 3
	"$DTCONSUME" "$@" "$LIVE/$name/cap.dtsnap" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$rc" = "$want_rc" ] && cmp -s "$work/out" "$want"; then
		ok "live $name: $*"
	else
		not_ok "live $name: $*" "exit $rc, want $want_rc" \
		    "$(diff "$want" "$work/out" | head -n 6)" "$(head -n 2 "$work/err")"
	fi
}
if [ -f "$LIVE/exit_status/cap.dtsnap" ]; then
	# exit_status.d prints begin (BEGIN), exiting with 3 (tick-10ms, which
	# calls exit(3)), end (END); dtrace(1) ends with a newline
	x="$LIVE/exit_status/expected.out"
	sed -n '2p;4p' "$x" >"$work/want"
	live exit_status "$work/want" 0 --probe 'profile:::tick-*'
	sed -n '3,4p' "$x" >"$work/want"
	live exit_status "$work/want" 3 -E --probe ':::END'
	# the statement ids of DTrace v2 are the EPIDs: 0 BEGIN, 1 the tick
	sed -n '1p;4p' "$x" >"$work/want"
	live exit_status "$work/want" 0 --epid 0
	printf '1 captures, 1 probe firings (2 skipped by the selection), 2 records, 0 aggregation printings (0 rows), 0 drops, 0 errors, 0 notices\n' >"$work/want"
	live exit_status "$work/want" 0 -f none --probe 'tick-10ms'
	if command -v "$JQ" >/dev/null 2>&1; then
		END='(map(select(.type == "end")) | .[0])'
		(cd "$LIVE/exit_status" && "$DT2JSON" --epid 1 cap.dtsnap) |
		    "$JQ" -e -s "$END | .firings == 1 and .firings_skipped == 2
		    and .exit_status == 3" >/dev/null &&
		    ok "live exit_status: json end object of --epid 1" ||
		    not_ok "live exit_status: json end object of --epid 1"
	fi
	# no timestamps in DTrace v2 records: a time is refused
	"$DTCONSUME" --since +1s "$LIVE/exit_status/cap.dtsnap" >"$work/out" \
	    2>"$work/err"
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$work/out" ] && grep -qxF "dtconsume: $LIVE/exit_status/cap.dtsnap: cannot select by time (since, until): the records of this dtrace-v2 capture carry no timestamps (it has no pass clocks)" "$work/err"; then
		ok "live exit_status: --since refused (no timestamps)"
	else
		not_ok "live exit_status: --since refused" "exit $rc" \
		    "$(head -n 2 "$work/err")"
	fi
fi
if [ -f "$LIVE/flowindent/cap.dtsnap" ]; then
	# the header, the close() entry and return lines, the final newline:
	# flow indentation as in the whole output
	sed -n '1p;8,10p' "$LIVE/flowindent/expected.out" >"$work/want"
	live flowindent "$work/want" 0 --probe 'syscall::close:*'
fi
if [ -f "$LIVE/error_divzero/cap.dtsnap" ]; then
	# clause 1 faults (dtrace's second message), clause 2 prints done
	printf '\n' >"$work/want"
	live error_divzero "$work/want" 0 --epid 1
	sed -n '2p' "$LIVE/error_divzero/expected.err" >"$work/want.err"
	cmp -s "$work/err" "$work/want.err" &&
	    ok "live error_divzero: the fault of clause 1 alone" ||
	    not_ok "live error_divzero: the fault of clause 1 alone" \
	    "$(cat "$work/err")"
	live error_divzero "$LIVE/error_divzero/expected.out" 0 --epid 2
	[ ! -s "$work/err" ] && ok "live error_divzero: no fault of clause 2" ||
	    not_ok "live error_divzero: no fault of clause 2" "$(cat "$work/err")"
fi
finish
