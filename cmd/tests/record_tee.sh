#!/bin/sh
# record_tee.sh - dtsnap record --tee prints what dtrace(1) prints.
#
# For deterministic D scripts (BEGIN/END only: trace, printf, printa,
# aggregations, exit), `dtrace -s x.d` and `dtsnap record --tee - -o
# x.dtsnap -s x.d` must write the same standard output + error and exit
# with the same status, and the capture must end with its end item.
# Both run with _DTRACE_TESTING set (no CPU column: BEGIN's CPU varies).
#
# Needs root, tracefs, the real dtrace(1) (DTRACE, default
# /var/tmp/dtrace-utils/dtrace) and a dtsnap built --with-libdtrace;
# skips (77) otherwise.  Scripts: a few of our own, plus a sample of the
# conformance corpus (DTRACE_CORPUS, default ../shared/conformance beside
# the source tree) or all of its BEGIN/END-only scripts with
# RECORD_TEE_ALL=1 (a few minutes).
. "$(dirname "$0")/lib.sh"

: "${DTRACE:=/var/tmp/dtrace-utils/dtrace}"
: "${DTRACE_CORPUS:=$top_srcdir/../shared/conformance}"

skip() {
	echo "# skip: $1"
	exit 77
}

need_dtsnap
[ "$(id -u)" = 0 ] || skip "not root"
[ -x "$DTRACE" ] || skip "no dtrace(1) at $DTRACE (set DTRACE)"
if ! grep -qs ' /sys/kernel/tracing tracefs ' /proc/mounts; then
	skip "tracefs not mounted on /sys/kernel/tracing"
fi
if "$DTSNAP" record --help 2>&1 | grep -q 'built without libdtrace'; then
	skip "dtsnap built without libdtrace"
fi
# dtrace-utils writes its uprobes (BEGIN, END) through debugfs's tracing
[ -e /sys/kernel/debug/tracing/uprobe_events ] ||
    mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
# when nothing can be traced, dtrace and the recorder fail alike and every
# comparison below would hold without showing anything: say so instead
if ! probe=$(timeout -k 10 -s INT 60 "$DTRACE" -q \
    -n 'BEGIN { trace("ok"); exit(0); }' 2>&1) || [ "$probe" != "ok" ]; then
	skip "dtrace(1) cannot trace here: $(printf '%s\n' "$probe" |
	    grep 'dtrace:' | tail -n 1)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_tee.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# dtsnap info lists every probe the script enabled, fired or not: the
# recorder writes a probe item for each at the start (BEGIN fires, the
# hourly tick and a predicate that is never true do not).
cat >"$tmp/enabled.d" <<'EOF'
#pragma D option quiet
BEGIN { printf("hi\n"); exit(0); }
profile:::tick-1h { trace(1); }
syscall::openat:entry /0/ { trace(2); }
EOF
if timeout -k 10 -s INT 60 "$DTSNAP" record -o "$tmp/en.dtsnap" \
    -s "$tmp/enabled.d" >/dev/null 2>"$tmp/en.err"; then
	"$DTSNAP" info "$tmp/en.dtsnap" | awk '
	    /^ +ID +PROVIDER/ { on = 1; next }
	    on && NF == 0 { on = 0 }
	    on && NF == 5 { print $2 ":" $3 ":" $4 ":" $5 }
	    on && NF == 3 { print $2 "::" $3 }' | sort >"$tmp/en.got"
	# (by name: the table is in probe id order, which varies by host)
	printf '%s\n' dtrace::BEGIN profile::tick-1h \
	    syscall:vmlinux:openat:entry >"$tmp/en.want"
	if cmp -s "$tmp/en.want" "$tmp/en.got"; then
		ok "dtsnap info lists the probes that never fired"
	else
		not_ok "dtsnap info lists every enabled probe" \
		    "$(diff "$tmp/en.want" "$tmp/en.got")"
	fi
else
	not_ok "record enabled.d" "$(cat "$tmp/en.err")"
fi

# Our own scripts: one per kind of thing the tee must reproduce.
cat >"$tmp/trace.d" <<'EOF'
BEGIN { trace(1); trace("two"); exit(0) }
EOF
cat >"$tmp/printf.d" <<'EOF'
#pragma D option quiet
BEGIN { printf("%d %s %5d|%-4x|%c\n", 42, "str", -3, 255, 65); exit(3) }
EOF
cat >"$tmp/aggs.d" <<'EOF'
BEGIN
{
	@c["a"] = count(); @c["b"] = count(); @c["b"] = count();
	@s[1, "x"] = sum(10); @s[2, "y"] = sum(-4);
	@q = quantize(5); @q = quantize(100); @l = lquantize(3, 0, 10, 2);
	@m = max(7); @n = min(-7); @a = avg(9);
	printa(@c);
	printa("%s %@d\n", @c);
	exit(0);
}
END { @e = count(); }
EOF
cat >"$tmp/clear.d" <<'EOF'
#pragma D option quiet
BEGIN { @a["k"] = sum(5); @b["k"] = count(); }
BEGIN { printa(@a); clear(@a); }
BEGIN { trunc(@b); @a["z"] = sum(1); exit(0); }
EOF
cat >"$tmp/error.d" <<'EOF'
BEGIN { x = (int *)64; y = *x; trace(y); }
BEGIN { trace("after"); exit(0) }
ERROR { trace("in ERROR"); }
EOF
cat >"$tmp/bad.d" <<'EOF'
BEGIN { no_such_function(1); }
EOF
cat >"$tmp/multi.d" <<'EOF'
BEGIN { printf("begin\n"); }
END { printf("end %d\n", 7); }
BEGIN { exit(0); }
EOF

scripts="$tmp/trace.d $tmp/printf.d $tmp/aggs.d $tmp/clear.d $tmp/error.d
$tmp/multi.d $tmp/bad.d"

# Corpus scripts whose output cannot vary: no probes but BEGIN/END/ERROR,
# no timestamps, pids, stacks or print() (it shows a per-CPU address).
corpus_scripts() {
	find "$DTRACE_CORPUS" -name '*.d' | LC_ALL=C sort | while read -r f; do
		if grep -Ev '^[[:space:]]*(\*|/\*|//)' "$f" | grep -Eq \
		    '(syscall|profile|tick-|proc:::|sched:::|fbt:|pid\$|usdt|io:::|lockstat|rawtp|cpc|sdt:|\$target|system\(|freopen|ustack|stack\(|\<print\(|timestamp|rand\(|\<pid\>|\<tid\>|curthread|execname|\<uid\>|\<gid\>|ppid|\$[0-9])'; then
			continue
		fi
		echo "$f"
	done
}
SAMPLE='actions/trace/tst.str.d actions/printf/tst.conv_f_double.d
aggs/tst.count.d aggs/tst.stddev.d aggs/tst.llquantize_basic.d
aggs/tst.keysort.d aggs/tst.clear-one.d aggs/tst.trunc-one.d
multiaggs/tst.many.d printa/tst.basics.d end/tst.multiend.d
actions/exit/tst.end-exit.d'
if [ -d "$DTRACE_CORPUS" ]; then
	if [ -n "$RECORD_TEE_ALL" ]; then
		scripts="$scripts $(corpus_scripts)"
	else
		for s in $SAMPLE; do
			[ -f "$DTRACE_CORPUS/$s" ] && scripts="$scripts $DTRACE_CORPUS/$s"
		done
	fi
else
	echo "# no corpus at $DTRACE_CORPUS: our own scripts only"
fi

run_dtrace() {
	(cd "$(dirname "$1")" && _DTRACE_TESTING=1 timeout 60 "$DTRACE" \
	    -s "$(basename "$1")" >"$2" 2>&1; echo "exit $?" >>"$2")
}

nsame=0
nnondet=0
for s in $scripts; do
	name=${s#"$DTRACE_CORPUS"/}
	name=${name#"$tmp"/}
	run_dtrace "$s" "$tmp/want"
	rm -f "$tmp/cap.dtsnap"
	(cd "$(dirname "$s")" && _DTRACE_TESTING=1 timeout 60 "$DTSNAP" \
	    record --tee - -o "$tmp/cap.dtsnap" -s "$(basename "$s")" \
	    >"$tmp/got" 2>&1; echo "exit $?" >>"$tmp/got")
	if cmp -s "$tmp/want" "$tmp/got"; then
		if [ ! -e "$tmp/cap.dtsnap" ] && tail -n 1 "$tmp/got" |
		    grep -q '^exit 1$'; then
			ok "$name: fails as dtrace(1) fails, no capture left"
			nsame=$((nsame + 1))
		elif "$DTSNAP" convert -f json "$tmp/cap.dtsnap" 2>/dev/null |
		    tail -n 1 | grep -q '"t":"end"'; then
			ok "$name: tee identical to dtrace(1), capture ends cleanly"
			nsame=$((nsame + 1))
		else
			not_ok "$name: tee identical, but the capture has no end item"
		fi
		continue
	fi
	# A script whose output varies from run to run proves nothing.
	run_dtrace "$s" "$tmp/want2"
	if ! cmp -s "$tmp/want" "$tmp/want2"; then
		echo "# $name: dtrace(1)'s own output varies; not compared"
		nnondet=$((nnondet + 1))
		continue
	fi
	not_ok "$name: tee differs from dtrace(1)" \
	    "$(diff "$tmp/want" "$tmp/got" | head -n 20)"
done
echo "# $nsame identical to dtrace(1); $nnondet nondeterministic"
finish
