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
# Needs root, tracefs, a dtrace-utils build (DTRACE, default
# /var/tmp/dtrace-utils/dtrace) and a build dir with the recorder (-b).
# Usage: bench/live.sh [-b BUILDDIR] [-r RUNS] [-n SYSCALLS]
set -u
B=.
RUNS=3
N=400000
while getopts b:r:n: ch; do
	case $ch in
	b) B=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	n) N=$OPTARG ;;
	*) sed -n '2,20p' "$0" >&2; exit 2 ;;
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
