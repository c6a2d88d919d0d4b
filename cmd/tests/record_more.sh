#!/bin/bash
# record_more.sh - what dtsnap record writes besides the records
# (issue 26 items 3, 14 and 15), each against an independent reference:
#
#   time     dtrace-v2 records get their pass's time (dtsnap(5) clock):
#            JSON "timestamp" is a number on every record, no earlier
#            than the D timestamp the record printed (it fired before it
#            was consumed) and no later than the recorder's end;
#            --until +DURATION selects exactly the records of the passes
#            up to it; json-freebsd's timestamp is that number.
#   list     dtsnap record -l -n PROBE prints what dtrace -l -n PROBE
#            prints; --version names the recorder and libdtrace.
#   aggsnap  an aggregation-only run (@[execname] = count(), passes every
#            50 ms) writes at most one aggregation snapshot per 10 s of
#            the run plus the first, the exit's and the last (not one a
#            pass), and decodes to what dtrace printed.
#   escape   a message quoting a file name escapes its control bytes
#            as the decoder's messages do (\x1b, not ESC).
#   pipe     dtsnap record -o - | dtconsume -u -: lines come out while
#            the recording runs (its -c command waits for the first
#            one, and the run ends when that command exits), in order.
#
# Nothing here depends on how fast the machine is: under load (issue 23
# item 4) fixed bounds fail now and then: a record's pass can come more
# than 2 s after it fired, a "6 s" run here lasted 50 s (and a run over
# 10 s gets a fourth snapshot), and the pipe case compared the time
# spans of two different runs (10 s against 5.8 s for one "3 s" script).
#
# Needs root, BPF, tracefs and a dtsnap built with libdtrace, and jq;
# skips (77) printing why otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/livelib.sh"
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
# a pass's clock is read by the recorder, so it is no later than the
# CLOCK_MONOTONIC read after the recorder exited; /proc/uptime (boot
# time, 10 ms steps) is never behind CLOCK_MONOTONIC, so it bounds it.
# No fixed lag: on a loaded machine a pass comes seconds after firing.
"$DTSNAP" record -q -o "$work/t.dtsnap" -n '
tick-10ms { printf("%d\n", timestamp); }
tick-1500ms { exit(0); }' >/dev/null 2>"$work/t.err" ||
	nok "time: dtsnap record failed: $(head -n 1 "$work/t.err")"
tend=$(awk '{ printf "%.0f\n", ($1 + 0.01) * 1e9 }' /proc/uptime)
"$DTCONSUME" -f json "$work/t.dtsnap" >"$work/t.json" 2>"$work/t.jerr"
bad=$("$JQ" -r --argjson tend "$tend" 'select(.type == "probe") |
    select(.records[0].message != null) |
    (.records[0].message | rtrimstr("\n") | tonumber) as $fired |
    if (.timestamp | type) != "number" then "null timestamp"
    elif .timestamp < $fired then "timestamp \(.timestamp) before \($fired)"
    elif .timestamp > $tend then "timestamp \(.timestamp) after the recorder ended (\($tend))"
    else empty end' "$work/t.json" | head -n 3)
# the distinct pass times of the printing records, in order
"$JQ" -r 'select(.type == "probe" and .records[0].message != null) |
    .timestamp' "$work/t.json" | sort -n >"$work/t.pass"
n=$(grep -c . "$work/t.pass")
passes=$(uniq "$work/t.pass" | grep -c .)
if [ -n "$bad" ] || [ "$n" -lt 10 ]; then
	nok "time: $n records; $bad"
else
	echo "ok time: $n records in $passes passes, each timestamp after it fired, before the recorder ended"
fi
# --until +D, D from the first record to the middle pass: exactly the
# records of the passes up to it, a proper subset when there are two
all=$("$DTCONSUME" "$work/t.dtsnap" | grep -c .)
if [ "$passes" -lt 2 ]; then
	echo "# skip time --until: the run had one pass (loaded machine)"
else
	t0=$(head -n 1 "$work/t.pass")
	cut=$(uniq "$work/t.pass" | sed -n "$(((passes + 1) / 2))p")
	want=$(awk -v c="$cut" '$1 <= c' "$work/t.pass" | grep -c .)
	sel=$("$DTCONSUME" --until "+$((cut - t0))ns" "$work/t.dtsnap" \
	    2>"$work/t.serr" | grep -c .)
	if [ "$sel" -eq "$want" ] && [ "$sel" -gt 0 ] && [ "$sel" -lt "$all" ]; then
		echo "ok time: --until +$((cut - t0))ns selects $sel of $all lines"
	else
		nok "time: --until +$((cut - t0))ns gives $sel of $all lines," \
		    "$want expected: $(head -n 1 "$work/t.serr")"
	fi
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
	# Probe ids are numbered by each libdtrace as it enumerates the
	# providers, so another tracing session that adds or removes probes
	# (uprobes, USDT) between the two listings shifts them: list back to
	# back, and again (at most three times) while the lists differ.
	for try in 1 2 3; do
		"$DTRACE" -l -n 'syscall::read*:entry' >"$work/l.exp" 2>/dev/null
		"$DTSNAP" record -l -n 'syscall::read*:entry' >"$work/l.out" 2>"$work/l.err"
		cmp -s "$work/l.exp" "$work/l.out" && break
	done
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

# ---- aggsnap: 6 s of passes every 50 ms (about 120).  Snapshots: the
# first pass's, one per 10 s after it, the one before the exit record
# (a pass with records) and the last; 10 s counted on the whole run,
# which a loaded machine stretches well past 6 s.
t=$(date +%s%N)
"$DTSNAP" record --tee "$work/a.tee" -o "$work/a.dtsnap" -x switchrate=50ms \
    -n 'syscall:::entry { @[execname] = count(); } tick-6s { exit(0); }' \
    >/dev/null 2>"$work/a.err" || nok "aggsnap: record failed"
secs=$((($(date +%s%N) - t) / 1000000000))
max=$((3 + secs / 10))
"$DTCONSUME" "$work/a.dtsnap" >"$work/a.dec" 2>/dev/null
snaps=$("$DTSNAP" dump "$work/a.dtsnap" | grep -c '^item [0-9]*, offset [0-9]*: aggsnap')
size=$(wc -c <"$work/a.dtsnap")
if [ "$snaps" -le "$max" ] && [ "$snaps" -ge 1 ] && cmp -s "$work/a.tee" "$work/a.dec"; then
	echo "ok aggsnap: $snaps snapshots (at most $max in $secs s), $size bytes, decode identical"
else
	nok "aggsnap: $snaps snapshots (at most $max in $secs s), $size bytes" \
	    "(decode $(cmp -s "$work/a.tee" "$work/a.dec" && echo identical ||
	    echo differs))"
fi

# ---- pipe: dtsnap record -o - | dtconsume -u -: lines come out while
# the recording runs.  Shown causally, not by timing two runs (a loaded
# machine stretches one and not the other): the recording cannot end
# before a line is out, since its -c command waits for the first line
# the pipeline printed and the run ends when that command exits.  A
# decoder that printed only at the end of its input would hold the run
# until the timeout (status 124).
printf '#!/bin/sh\nwhile [ ! -s "%s" ]; do sleep 0.1; done\n' \
    "$work/p.first" >"$work/waiter"
chmod +x "$work/waiter"
: >"$work/p.out"
{
	timeout -s INT 60 "$DTSNAP" record -q -o - -c "$work/waiter" \
	    -n 'tick-200ms { printf("%d\n", i++); }' 2>"$work/p.err"
	echo $? >"$work/p.rc"
} | "$DTCONSUME" -u - 2>/dev/null |
    while IFS= read -r line; do
	    [ -n "$line" ] || continue
	    echo "$line" >>"$work/p.out"
	    [ -s "$work/p.first" ] || echo "$line" >"$work/p.first"
    done
rc=$(cat "$work/p.rc")
n=$(grep -c . "$work/p.out")
if [ "$rc" != 124 ] && [ "$n" -ge 1 ] &&
    [ "$(cat "$work/p.out")" = "$(seq 0 $((n - 1)))" ]; then
	echo "ok pipe: the run ended on its first decoded line (status $rc, $n lines 0..$((n - 1)))"
else
	nok "pipe: status $rc, $n lines ($(head -c 60 "$work/p.out" | tr '\n' ' '))" \
	    "$(head -n 1 "$work/p.err")"
fi
exit $fail
