#!/bin/bash
# record_more.sh - what dtsnap record writes besides the records
# (issue 26 items 3, 14 and 15), each against an independent reference:
#
#   time     dtrace-v2 records get their pass's time (dtsnap(5) clock):
#            JSON "timestamp" is a number on every record, no earlier
#            than the D timestamp the record printed (it fired before it
#            was consumed) and less than 2 s after it; --until +DURATION
#            selects a proper, non-empty subset; json-freebsd's timestamp
#            is that number.
#   list     dtsnap record -l -n PROBE prints what dtrace -l -n PROBE
#            prints; --version names the recorder and libdtrace.
#   aggsnap  an aggregation-only run (@[execname] = count(), passes every
#            50 ms) writes at most one aggregation snapshot per 10 s plus
#            the last (not one a pass), and decodes to what dtrace printed.
#   escape   a message quoting a file name escapes its control bytes
#            as the decoder's messages do (\x1b, not ESC).
#   pipe     dtsnap record -o - | dtconsume -u -: the lines come out over
#            the run (first to last at least half as far apart as the
#            lines of dtrace's own output, the tee, of the same script),
#            not all at the end.
#
# Needs root, BPF, tracefs and a dtsnap built with libdtrace, and jq;
# skips (77) printing why otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
dtsnap_env=${DTSNAP-}
dtconsume_env=${DTCONSUME-}
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
. "$top_srcdir/cmd/tests/livelib.sh"
DTSNAP=${dtsnap_env:-$top_builddir/cmd/dtsnap}
DTCONSUME=${dtconsume_env:-$top_builddir/cmd/dtconsume}
: "${DTRACE:=/var/tmp/dtrace-utils/dtrace}"
: "${JQ:=jq}"

command -v "$JQ" >/dev/null 2>&1 || skip "no jq"
live_workdir record_more
live_prereqs

fail=0
nok() {
	echo "not ok $*"
	fail=1
}

# ---- time
"$DTSNAP" record -q -o "$work/t.dtsnap" -n '
tick-10ms { printf("%d\n", timestamp); }
tick-1500ms { exit(0); }' >/dev/null 2>"$work/t.err" ||
	nok "time: dtsnap record failed: $(head -n 1 "$work/t.err")"
"$DTCONSUME" -f json "$work/t.dtsnap" >"$work/t.json" 2>"$work/t.jerr"
bad=$("$JQ" -r 'select(.type == "probe") |
    select(.records[0].message != null) |
    (.records[0].message | rtrimstr("\n") | tonumber) as $fired |
    if (.timestamp | type) != "number" then "null timestamp"
    elif .timestamp < $fired then "timestamp \(.timestamp) before \($fired)"
    elif .timestamp - $fired >= 2000000000 then "timestamp \(.timestamp) 2 s after \($fired)"
    else empty end' "$work/t.json" | head -n 3)
n=$("$JQ" -s '[.[] | select(.type == "probe" and .records[0].message != null)] | length' "$work/t.json")
if [ -n "$bad" ] || [ "$n" -lt 10 ]; then
	nok "time: $n records; $bad"
else
	echo "ok time: $n records, each timestamp within 2 s after it fired"
fi
all=$("$DTCONSUME" "$work/t.dtsnap" | grep -c .)
sel=$("$DTCONSUME" --until +500ms "$work/t.dtsnap" 2>"$work/t.serr" | grep -c .)
if [ "$sel" -gt 0 ] && [ "$sel" -lt "$all" ]; then
	echo "ok time: --until +500ms selects $sel of $all lines"
else
	nok "time: --until +500ms gives $sel of $all lines: $(head -n 1 "$work/t.serr")"
fi
first=$("$JQ" -s '[.[] | select(.type == "probe")][0].timestamp' "$work/t.json")
fb=$("$DTCONSUME" -f json-freebsd "$work/t.dtsnap" 2>/dev/null |
    "$JQ" '[.. | objects | select(has("name") and .name == "tick-10ms")][0].timestamp')
if [ "$fb" = "$first" ]; then
	echo "ok time: json-freebsd timestamp $fb"
else
	nok "time: json-freebsd timestamp $fb, JSON $first"
fi

# the Python package (when built): records() and its columns carry the
# timestamps JSON gives
: "${PYTHON3:=python3}"
if [ -d "$top_builddir/python/dtconsume" ] &&
    PYTHONPATH="$top_builddir/python" "$PYTHON3" -c 'import dtconsume' \
    2>/dev/null; then
	"$JQ" -s -c '[.[] | select(.type == "probe") | .timestamp]' \
	    "$work/t.json" >"$work/t.ts"
	if PYTHONPATH="$top_builddir/python" "$PYTHON3" - "$work/t.dtsnap" \
	    "$work/t.ts" <<'EOF' 2>"$work/py.err"
import json, sys, dtconsume
want = json.load(open(sys.argv[2]))
got = [r.timestamp for r in dtconsume.open(sys.argv[1]).records()]
assert got == want, (got[:3], want[:3])
try:
    import numpy
except ImportError:
    sys.exit(0)          # columns need numpy; records() was checked
cols = sorted(int(t) for tab in dtconsume.open(sys.argv[1]).records(
    columns=True).values() for t in tab.timestamp)
assert cols == sorted(want), (cols[:3], sorted(want)[:3])
EOF
	then
		echo "ok time: Python records() (and columns with numpy) give them"
	else
		nok "time: Python: $(tail -n 1 "$work/py.err")"
	fi
else
	echo "# skip time in Python: the package is not built"
fi

# ---- list, version
if [ -x "$DTRACE" ]; then
	"$DTRACE" -l -n 'syscall::read*:entry' >"$work/l.exp" 2>/dev/null
	"$DTSNAP" record -l -n 'syscall::read*:entry' >"$work/l.out" 2>"$work/l.err"
	if [ -s "$work/l.exp" ] && cmp -s "$work/l.exp" "$work/l.out"; then
		echo "ok list: $(($(wc -l <"$work/l.out") - 1)) probes as dtrace -l"
	else
		nok "list: differs from dtrace -l"
		diff "$work/l.exp" "$work/l.out" | head -n 5 | sed 's/^/# /'
	fi
else
	echo "# skip list: no dtrace(1) at $DTRACE"
fi
v=$("$DTSNAP" record --version)
case $v in
"dtsnap record "*", dtrace-utils "*) echo "ok version: $v" ;;
*) nok "version: '$v'" ;;
esac

# ---- the recorder's own messages escape what they quote (cli.c)
bad=$(printf '%s/no\033[31mred.d' "$work")
"$DTSNAP" record -o "$work/e.dtsnap" -s "$bad" >/dev/null 2>"$work/e.err"
if grep -qF 'no\x1b[31mred.d' "$work/e.err" &&
    ! grep -q "$(printf '\033')" "$work/e.err"; then
	echo "ok escape: $(head -n 1 "$work/e.err")"
else
	nok "escape: $(head -n 1 "$work/e.err" | od -c | head -n 2)"
fi

# ---- aggsnap: 6 s of passes every 50 ms
"$DTSNAP" record --tee "$work/a.tee" -o "$work/a.dtsnap" -x switchrate=50ms \
    -n 'syscall:::entry { @[execname] = count(); } tick-6s { exit(0); }' \
    >/dev/null 2>"$work/a.err" || nok "aggsnap: record failed"
"$DTCONSUME" "$work/a.dtsnap" >"$work/a.dec" 2>/dev/null
snaps=$("$DTSNAP" dump "$work/a.dtsnap" | grep -c '^item [0-9]*, offset [0-9]*: aggsnap')
size=$(wc -c <"$work/a.dtsnap")
if [ "$snaps" -le 3 ] && [ "$snaps" -ge 1 ] && cmp -s "$work/a.tee" "$work/a.dec"; then
	echo "ok aggsnap: $snaps snapshots, $size bytes for 6 s, decode identical"
else
	nok "aggsnap: $snaps snapshots, $size bytes for 6 s" \
	    "(decode $(cmp -s "$work/a.tee" "$work/a.dec" && echo identical ||
	    echo differs))"
fi

# ---- pipe: a line out of dtconsume -u before the recording ends, i.e.
# before the recorder's own last line (its tee, timed the same way)
"$DTSNAP" record -q --tee - -o /dev/null -n 'tick-200ms { printf("%d\n", i++); }
tick-3s { exit(0); }' 2>/dev/null |
    while IFS= read -r line; do
	    echo "$(date +%s%N) $line"
    done >"$work/p.tee"
span=$(awk 'NR == 1 { a = $1 } END { print int(($1 - a) / 1000000) }' "$work/p.tee")
start=$(date +%s%N)
"$DTSNAP" record -q -o - -n 'tick-200ms { printf("%d\n", i++); }
tick-3s { exit(0); }' 2>/dev/null | "$DTCONSUME" -u - 2>/dev/null |
    while IFS= read -r line; do
	    echo "$(( ($(date +%s%N) - start) / 1000000 )) $line"
    done >"$work/p.out"
# the first line to the last: as long as the tee's, less a pass or two
# (a pass is decoded when the next one begins), not all at once
got=$(awk 'NR == 1 { a = $1 } END { print $1 - a }' "$work/p.out")
n=$(grep -c . "$work/p.out")
if [ "$n" -ge 10 ] && [ "$got" -ge $((span / 2)) ]; then
	echo "ok pipe: $n lines over $got ms (the tee's over $span ms)"
else
	nok "pipe: $n lines over ${got:-?} ms, the tee's over $span ms"
fi
exit $fail
