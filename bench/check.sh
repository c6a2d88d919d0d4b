#!/bin/sh
# bench/check.sh - the speed guard behind `make bench-check` (and CI).
#
# Times drift with the load of a shared VM; instruction counts do not.
# For each bench workload and sink (none, text, json, cbor) this counts the
# instructions `dtconsume -f SINK` executes (valgrind's callgrind, the
# "Collected" total) on two captures of the workload that differ only in
# size (bench/gen, same seed, the second 8 times the first), and splits
# the count into a cost per firing (the slope: extra instructions over
# extra firings; per aggregation entry for agg, which has no firings) and
# a fixed cost (what is left at zero firings: metadata, symbol tables,
# the end-of-run printing; less the process's start-up, the count of
# `dtconsume -V`, which is the dynamic loader's work and grows with the
# libraries a build links: about 640,000 more instructions in a build
# configured --with-libdtrace than in CI's plain one).  Both are compared with the baseline
# committed in bench/baseline.txt; a rise of more than 10% in either
# fails, naming the workload and the sink.  A deliberate rise updates the
# baseline (-u) in the same commit, which says why.
#
# Usage: bench/check.sh [-b BUILDDIR] [-B BASELINE] [-u] [-t PERCENT]
#                       [-w "WORKLOADS"] [-f "SINKS"] [-G GEN] [-o OUT]
#   -b  build directory holding cmd/dtconsume, bench/gen and libtool
#       (default: the current directory)
#   -G  the capture generator (default: BUILDDIR/bench/gen); another
#       build's, to count an older dtconsume on the same captures
#   -o  also copy the counts measured to OUT (bench/peers.sh's before
#       and after)
#   -B  baseline file (default: bench/baseline.txt beside this script)
#   -u  write the counts measured now as the new baseline
#   -t  tolerated rise in percent (default 10)
#   -w  workloads (default "printf trace stack agg")
#   -f  sinks (default "none text json cbor")
# Exit status: 0 within the tolerance, 1 a rise, 2 usage, 77 no valgrind.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=.
BASE="$here/baseline.txt"
UPDATE=0
TOL=10
WORKLOADS="printf trace stack agg"
SINKS="none text json cbor"
GEN=
OUT=
while getopts b:B:ut:w:f:G:o: ch; do
	case $ch in
	b) B=$OPTARG ;;
	G) GEN=$OPTARG ;;
	o) OUT=$OPTARG ;;
	B) BASE=$OPTARG ;;
	u) UPDATE=1 ;;
	t) TOL=$OPTARG ;;
	w) WORKLOADS=$OPTARG ;;
	f) SINKS=$OPTARG ;;
	*) sed -n '2,30p' "$0" >&2; exit 2 ;;
	esac
done
if ! command -v valgrind >/dev/null 2>&1; then
	echo "bench-check: SKIP: valgrind is not installed (Debian: apt-get" \
	    "install valgrind)" >&2
	exit 77
fi
: "${GEN:=$B/bench/gen}"
for p in "$B/cmd/dtconsume" "$GEN" "$B/libtool"; do
	[ -x "$p" ] || { echo "bench-check: $p not built (make bench-check)" >&2
	    exit 2; }
done
if [ $UPDATE -eq 0 ] && [ ! -f "$BASE" ]; then
	echo "bench-check: SKIP: no baseline $BASE (write one with -u)" >&2
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtc-bcheck.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# The two scales of each workload: small enough for callgrind (about 50
# times slower than the decoder), large enough that the per-firing cost
# is read over thousands of firings.  stack is smaller per firing than
# its 50,000-symbol table, hence its larger scales.
scales() {
	case $1 in
	printf) echo "1/2048 1/256" ;;
	trace) echo "1/16384 1/2048" ;;
	stack) echo "1/1024 1/128" ;;
	agg) echo "1/2048 1/256" ;;
	*) echo "bench-check: unknown workload $1" >&2; exit 2 ;;
	esac
}

# count ARGS...: instructions of one run of dtconsume ARGS
count() {
	"$B/libtool" --mode=execute valgrind --tool=callgrind \
	    --callgrind-out-file=/dev/null "$B/cmd/dtconsume" "$@" \
	    >/dev/null 2>"$tmp/vg.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "bench-check: dtconsume $* exited $rc:" >&2
		tail -n 5 "$tmp/vg.err" >&2
		exit 2
	fi
	n=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/vg.err")
	[ -n "$n" ] || { echo "bench-check: no count from callgrind" >&2
	    tail -n 5 "$tmp/vg.err" >&2; exit 2; }
	echo "$n"
}

out="$tmp/now.txt"
: >"$out"
startup=$(count -V) || exit 2
for w in $WORKLOADS; do
	set -- $(scales "$w")
	i=0
	for s in "$@"; do
		i=$((i + 1))
		"$GEN" -w "$w" -s "$s" -i "$tmp/$w.$i.info" \
		    -o "$tmp/$w.$i.dtc" >/dev/null || exit 2
	done
	# firings, or aggregation entries (values) where there are none
	unit=firings
	[ "$w" = agg ] && unit=values
	n1=$(sed -n "s/^$unit=//p" "$tmp/$w.1.info")
	n2=$(sed -n "s/^$unit=//p" "$tmp/$w.2.info")
	for f in $SINKS; do
		c1=$(count -f "$f" "$tmp/$w.1.dtc") || exit 2
		c2=$(count -f "$f" "$tmp/$w.2.dtc") || exit 2
		awk -v w="$w" -v f="$f" -v u="$unit" -v n1="$n1" -v n2="$n2" \
		    -v c1="$c1" -v c2="$c2" -v s="$startup" 'BEGIN {
			per = (c2 - c1) / (n2 - n1); fix = c1 - per * n1 - s
			if (fix < 0) fix = 0
			printf "%s %s %s %.1f %.0f\n", w, f, u, per, fix
		}' >>"$out"
	done
	rm -f "$tmp/$w".*
done

[ -z "$OUT" ] || cp "$out" "$OUT" || exit 2
if [ $UPDATE -eq 1 ]; then
	{
		echo "# bench/check.sh baseline: workload sink unit" \
		    "instructions-per-unit fixed-instructions"
		echo "# measured with valgrind --tool=callgrind on a -O2 build;" \
		    "update with bench/check.sh -u"
		echo "# fixed: at zero firings, less the start-up (dtconsume -V:" \
		    "$startup here)"
		cat "$out"
	} >"$BASE"
	echo "bench-check: baseline written to $BASE"
	cat "$out"
	exit 0
fi

awk -v tol="$TOL" '
NR == FNR { if ($0 !~ /^#/ && NF >= 5) { bper[$1 " " $2] = $4
	bfix[$1 " " $2] = $5 }; next }
{
	k = $1 " " $2
	if (!(k in bper)) {
		printf "%-7s %-5s %10.1f/%s  %12.0f fixed  (no baseline)\n",
		    $1, $2, $4, substr($3, 1, length($3) - 1), $5
		next
	}
	dp = bper[k] > 0 ? 100 * ($4 - bper[k]) / bper[k] : 0
	df = bfix[k] > 0 ? 100 * ($5 - bfix[k]) / bfix[k] : 0
	verdict = "ok"
	if (dp > tol) { verdict = "RISE per " substr($3, 1, length($3) - 1)
		bad++ }
	if (df > tol) {
		if (verdict == "ok")
			verdict = "RISE fixed"
		else
			verdict = verdict ", fixed"
		if (dp <= tol)
			bad++
	}
	printf "%-7s %-5s %10.1f/%s (%+6.1f%%)  %12.0f fixed (%+6.1f%%)  %s\n",
	    $1, $2, $4, substr($3, 1, length($3) - 1), dp, $5, df, verdict
	# (what rose is chosen first: a ">" among the printf arguments would
	# be an output redirection)
	if (dp > tol)
		what = "instructions per " substr($3, 1, length($3) - 1)
	else
		what = "the fixed cost"
	if (verdict != "ok")
		printf("bench-check: FAIL: workload %s, sink %s: %s rose more than %s%% over the baseline\n", $1, $2, what, tol) > "/dev/stderr"
}
END { if (bad) exit 1 }' "$BASE" "$out"
rc=$?
[ $rc -eq 0 ] && echo "bench-check: every count within $TOL% of $BASE"
exit $rc
