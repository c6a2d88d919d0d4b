#!/bin/bash
# bench/live.sh - the recorder against dtrace(1), and the decode of the
# captures it writes, on a real DTrace for Linux (dtrace-utils).
#
# For each workload: the same D program and the same load (a dd doing N
# one-byte reads and writes, run by -c) under
#   dtrace -q -s W.d -c LOAD >/dev/null          (libdtrace prints)
#   dtsnap record -q -s W.d -c LOAD -o cap      (libdtrace prints into
#                                                /dev/null, we record)
# reporting CPU seconds (user + system of the consumer and its child: the
# kernel-side probe cost is the same for both, so the difference is the
# recording) and the drops each reported; then dtconsume -f SINK on the
# capture for each sink: wall and CPU seconds, MB/s, records/s.  Median of
# RUNS runs.  Prints a Markdown report on stdout.
#
# Then, side by side on one syscall tracepoint (write(2) entry of the
# load) and on a profile (997 Hz on the load), the recorder against
# dtrace(1) printing the run and against `perf record` (Debian linux-perf,
# PERF) on the same event: events, events/s over the run's wall time,
# consumer CPU (with the load's: the kernel-side cost of each tracer
# lands in the traced process), drops (dtrace's drop lines, perf's lost
# samples) and bytes
# on disk per event (dtrace: the bytes it printed).  -z rows appear when
# the recorder has -z, --ring rows when it has --ring; perf record -z when
# perf has it.  Then the syscall capture against the same capture
# compressed (dtsnap convert --zstd=1): bytes per event, and dtconsume's
# CPU on each (-f none and text), the issue-20 goals of -z.
#
# Needs root, tracefs, a dtrace-utils build (DTRACE, default
# /var/tmp/dtrace-utils/dtrace) and a build dir with the recorder (-b).
# Usage: bench/live.sh [-b BUILDDIR] [-r RUNS] [-n SYSCALLS] [-S]
# (-S: the side-by-side table only)
set -u
B=.
RUNS=3
N=400000
SIDE_ONLY=0
while getopts b:r:n:S ch; do
	case $ch in
	b) B=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	n) N=$OPTARG ;;
	S) SIDE_ONLY=1 ;;
	*) sed -n '2,30p' "$0" >&2; exit 2 ;;
	esac
done
DTRACE=${DTRACE:-/var/tmp/dtrace-utils/dtrace}
DTSNAP="$B/cmd/dtsnap"
DTC="$B/cmd/dtconsume"
TIME=/usr/bin/time
for x in "$DTRACE" "$DTSNAP" "$DTC" "$TIME"; do
	[ -x "$x" ] || { echo "live bench: missing $x" >&2; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "live bench: needs root" >&2; exit 77; }
mountpoint -q /sys/kernel/tracing ||
    mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
w=$(mktemp -d "${TMPDIR:-/tmp}/dtclive.XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT
LOAD="dd if=/dev/zero of=/dev/null bs=1 count=$N status=none"

cat >"$w/printf.d" <<'EOF'
syscall::write:entry /pid == $target/ { printf("%d %d %s\n", arg0, arg2, execname); }
EOF
cat >"$w/trace.d" <<'EOF'
syscall::read:entry, syscall::write:entry /pid == $target/ { trace(arg0); trace(arg2); }
EOF
cat >"$w/agg.d" <<'EOF'
syscall:::entry /pid == $target/ { @c[probefunc] = count(); @q[probefunc] = quantize(arg2); }
syscall::write:entry /pid == $target/ { @k[arg0, arg1 & 0xfff] = sum(arg2); }
EOF

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# cpu seconds (user + sys, children included) of a command: prints "cpu wall"
timed() {
	"$TIME" -f '%U %S %e' -o "$w/t" "$@" >/dev/null 2>"$w/err"
	awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }' "$w/t"
}
drops() { grep -c 'drop' "$w/err" || true; }

# side_by_side: the table of the issue's goals (see the top of this file)
side_by_side() {
	local perf=${PERF:-perf} wl who r ev sz dl cpu wall zopt hasperf=
	"$perf" --version >/dev/null 2>&1 && hasperf=yes
	echo "## Side by side: recorder, dtrace(1), perf record"
	echo
	echo "- $(uname -r), $(nproc) CPUs; load: \`$LOAD\` (-c), median of" \
	    "$RUNS; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- perf: $("$perf" --version 2>/dev/null || echo none)"
	echo
	echo "| workload | consumer | events | events/s (run) | CPU s | drops | bytes/event |"
	echo "|---|---|---:|---:|---:|---:|---:|"
	# one line per event, so that dtrace's events can be counted
	echo 'syscall::write:entry /pid == $target/ { printf("%d %d\n", arg0, arg2); }' \
	    >"$w/sys.d"
	echo 'profile-997 /pid == $target/ { printf("%x\n", arg1); }' >"$w/prof.d"
	zopt=
	"$DTSNAP" record --help 2>&1 | grep -q -- ' -z' && zopt=yes
	ringopt=
	"$DTSNAP" record --help 2>&1 | grep -q -- '--ring' && ringopt=yes
	for wl in sys prof; do
		for who in dtrace record record-z record-ring perf perf-z; do
			case $who in
			record-z) [ -n "$zopt" ] || continue ;;
			record-ring) [ -n "$ringopt" ] || continue ;;
			perf) [ -n "$hasperf" ] || continue ;;
			perf-z) [ -n "$hasperf" ] && "$perf" record -z -q \
			    -o "$w/ztest" true >/dev/null 2>&1 || continue ;;
			esac
			: >"$w/cpus"; : >"$w/walls"; dl=0
			for _ in $(seq "$RUNS"); do
				rm -f "$w/out"
				case $who in
				dtrace)
					"$TIME" -f '%U %S %e' -o "$w/t" "$DTRACE" \
					    -q -s "$w/$wl.d" -c "$LOAD" \
					    >"$w/out" 2>"$w/err"
					r=$(awk '{ printf "%.2f %.2f\n", $1 + $2,
					    $3 }' "$w/t")
					dl=$(drops) ;;
				record)
					r=$(timed "$DTSNAP" record -q -s "$w/$wl.d" \
					    -c "$LOAD" -o "$w/out")
					dl=$(drops) ;;
				record-z)
					r=$(timed "$DTSNAP" record -z -q \
					    -s "$w/$wl.d" -c "$LOAD" -o "$w/out")
					dl=$(drops) ;;
				record-ring)
					r=$(timed "$DTSNAP" record --ring 64M -q \
					    -s "$w/$wl.d" -c "$LOAD" -o "$w/out")
					dl=$(drops) ;;
				perf*)
					if [ $wl = sys ]; then
						set -- -e syscalls:sys_enter_write
					else
						set -- -F 997 -e cpu-clock
					fi
					[ $who = perf-z ] && set -- -z "$@"
					r=$(timed "$perf" record -q -o "$w/out" \
					    "$@" -- $LOAD)
					dl=$("$perf" report -i "$w/out" --stats \
					    2>/dev/null | awk '/LOST_SAMPLES events:/ {
					    if ($3 > n) n = $3 } END { print n + 0 }') ;;
				esac
				echo "${r% *}" >>"$w/cpus"
				echo "${r#* }" >>"$w/walls"
			done
			case $who in
			dtrace) ev=$(grep -c . "$w/out") ;;
			record*) ev=$("$DTC" -f none "$w/out" 2>/dev/null | sed -n \
			    's/.* \([0-9][0-9]*\) probe firings.*/\1/p') ;;
			perf*) ev=$("$perf" script -i "$w/out" 2>/dev/null |
			    grep -c .) ;;
			esac
			sz=$(stat -c %s "$w/out")
			# the last run's captures, for the decode below
			case $who in
			record|record-z) cp "$w/out" "$w/$wl.$who" ;;
			esac
			cpu=$(median <"$w/cpus")
			wall=$(median <"$w/walls")
			echo "| $wl | $who | ${ev:-?} |" \
			    "$(awk -v n="${ev:-0}" -v t="$wall" 'BEGIN {
			    if (t > 0) printf "%.0f", n / t; else print "-" }') |" \
			    "$cpu | $dl |" \
			    "$(awk -v n="${ev:-0}" -v s="$sz" 'BEGIN {
			    if (n > 0) printf "%.1f", s / n; else print "-" }') |"
		done
	done
	echo
	[ -n "$ringopt" ] ||
	    echo "(no --ring in this recorder: its row is not measured)"
	[ -n "$zopt" ] || { echo "(no -z in this recorder)"; echo; return; }
	echo
	echo "### The syscall capture compressed and not: size and decode"
	echo
	echo "The uncompressed capture of the sys row above, and the same"
	echo "capture compressed by \`dtsnap convert --zstd=1\` (record -z's"
	echo "level), so both hold the same events; dtconsume on each, runs"
	echo "interleaved, CPU s medians of $((RUNS * 2 + 1))."
	echo
	echo "| capture | bytes | bytes/event | -f none CPU s | text CPU s |"
	echo "|---|---:|---:|---:|---:|"
	ev=$("$DTC" -f none "$w/sys.record" 2>/dev/null | sed -n \
	    's/.* \([0-9][0-9]*\) probe firings.*/\1/p')
	"$DTSNAP" convert --zstd=1 "$w/sys.record" -o "$w/sys.z" ||
	    { echo "live bench: dtsnap convert --zstd failed" >&2; return; }
	for f in record z; do : >"$w/none.$f"; : >"$w/text.$f"; done
	for _ in $(seq $((RUNS * 2 + 1))); do
		for f in record z; do
			for sink in none text; do
				r=$(timed "$DTC" -f $sink -o /dev/null "$w/sys.$f")
				echo "${r% *}" >>"$w/$sink.$f"
			done
		done
	done
	for f in record z; do
		sz=$(stat -c %s "$w/sys.$f")
		echo "| $( [ $f = z ] && echo 'zstd -1' || echo uncompressed ) |" \
		    "$sz | $(awk -v n="${ev:-0}" -v s="$sz" 'BEGIN {
		    if (n > 0) printf "%.1f", s / n; else print "-" }') |" \
		    "$(median <"$w/none.$f") | $(median <"$w/text.$f") |"
	done
	echo
	echo "- size: uncompressed / compressed = $(awk -v a="$(stat -c %s \
	    "$w/sys.record")" -v b="$(stat -c %s "$w/sys.z")" 'BEGIN {
	    printf "%.1f", a / b }')x (goal >= 4x); the recorder's own -z" \
	    "capture of its run: $(stat -c %s "$w/sys.record-z" 2>/dev/null ||
	    echo '?') bytes"
	for sink in none text; do
		echo "- decode speed, compressed / uncompressed, -f $sink:" \
		    "$(awk -v u="$(median <"$w/$sink.record")" \
		    -v z="$(median <"$w/$sink.z")" 'BEGIN { if (z > 0)
		    printf "%.0f%%", 100 * u / z; else print "-" }') (goal >= 70%)"
	done
	echo
}
if [ "$SIDE_ONLY" = 1 ]; then
	side_by_side
	exit 0
fi

echo "## Live: dtsnap record against dtrace(1), then dtconsume on the capture"
echo
echo "- $(uname -r), $(nproc) CPUs; load: \`$LOAD\` (-c), median of $RUNS"
echo "- dtrace-utils: $("$DTRACE" -V 2>/dev/null | head -n 1)"
echo
echo "| workload | consumer | CPU s | wall s | drop lines | capture MB |"
echo "|---|---|---:|---:|---:|---:|"
for wl in printf trace agg; do
	for who in dtrace record; do
		: >"$w/cpus"; : >"$w/walls"; dl=0
		for _ in $(seq "$RUNS"); do
			if [ $who = dtrace ]; then
				r=$(timed "$DTRACE" -q -s "$w/$wl.d" -c "$LOAD")
			else
				r=$(timed "$DTSNAP" record -q -s "$w/$wl.d" \
				    -c "$LOAD" -o "$w/$wl.dtsnap")
			fi
			echo "${r% *}" >>"$w/cpus"
			echo "${r#* }" >>"$w/walls"
			dl=$(drops)
		done
		mb=-
		[ $who = record ] && mb=$(awk -v s="$(stat -c %s "$w/$wl.dtsnap")" \
		    'BEGIN { printf "%.1f", s / 1048576 }')
		echo "| $wl | $who | $(median <"$w/cpus") | $(median <"$w/walls") | $dl | $mb |"
	done
done
# startup alone: both consumers convert the kernel's BTF to CTF first
r=$(timed "$DTRACE" -q -n 'BEGIN { exit(0); }')
echo "| (startup only) | dtrace | ${r% *} | ${r#* } | | |"
echo
echo "| capture | sink | MB | records | CPU s | wall s | MB/s (CPU) | records/s (CPU) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for wl in printf trace agg; do
	f="$w/$wl.dtsnap"
	[ -f "$f" ] || continue
	mb=$(awk -v s="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", s / 1048576 }')
	recs=$("$DTC" -f none "$f" 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) probe firings.*/\1/p')
	for sink in none text json cbor; do
		: >"$w/cpus"; : >"$w/walls"
		for _ in $(seq "$RUNS"); do
			r=$(timed "$DTC" -f $sink -o /dev/null "$f")
			echo "${r% *}" >>"$w/cpus"
			echo "${r#* }" >>"$w/walls"
		done
		c=$(median <"$w/cpus")
		echo "| $wl | $sink | $mb | ${recs:-?} | $c | $(median <"$w/walls") | $(awk -v m="$mb" -v c="$c" 'BEGIN { if (c > 0) printf "%.0f", m / c; else print "-" }') | $(awk -v n="${recs:-0}" -v c="$c" 'BEGIN { if (c > 0) printf "%.2fM", n / c / 1e6; else print "-" }') |"
	done
done
side_by_side
