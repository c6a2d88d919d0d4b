#!/bin/sh
# bench/run.sh - decode throughput of dtconsume on large generated captures.
#
# For each capture (bench/gen workloads) and each sink (none text json
# cbor): the median of RUNS runs of `dtconsume -f SINK FILE >/dev/null`
# (wall and CPU time, peak RSS from /usr/bin/time -v) next to
# `cat FILE >/dev/null` measured the same way in the same run; then the
# growth from the smallest to the largest scale, and the aggregation merge
# alone (bench/aggmerge).  Prints a Markdown report on stdout.
#
# Usage: bench/run.sh [-b BUILDDIR] [-d DIR] [-r RUNS] [-s "SCALES"]
#                     [-w "WORKLOADS"] [-f "SINKS"] [-F "SINKS AT FULL"] [-k]
#   -b  build directory holding cmd/dtconsume, bench/gen, bench/aggmerge
#       (default: the current directory)
#   -d  where the captures go (default ${TMPDIR:-/tmp}/dtcbench); they are
#       deleted at the end unless -k
#   -r  runs per measurement (default 5; the median is reported)
#   -s  scales, smallest first (default "1/8 1")
#   -w  workloads (default "printf trace stack agg")
#   -f  sinks at the smallest scale (default "none text json cbor")
#   -F  sinks at the other scales (default: the same as -f)
# Environment: SEED (default 1).
set -u
B=.
DIR="${TMPDIR:-/tmp}/dtcbench"
RUNS=5
SCALES="1/8 1"
WORKLOADS="printf trace stack agg"
SINKS="none text json cbor"
BIGSINKS=
KEEP=0
while getopts b:d:r:s:w:f:F:k ch; do
	case $ch in
	b) B=$OPTARG ;;
	d) DIR=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	s) SCALES=$OPTARG ;;
	w) WORKLOADS=$OPTARG ;;
	f) SINKS=$OPTARG ;;
	F) BIGSINKS=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,24p' "$0" >&2; exit 2 ;;
	esac
done
: "${BIGSINKS:=$SINKS}"
SEED=${SEED:-1}
DTC="$B/cmd/dtconsume"
GEN="$B/bench/gen"
MERGE="$B/bench/aggmerge"
TIME=/usr/bin/time
for p in "$DTC" "$GEN" "$MERGE"; do
	[ -x "$p" ] || { echo "run.sh: $p not built (make bench)" >&2; exit 1; }
done
[ -x "$TIME" ] || { echo "run.sh: $TIME missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$DIR" || exit 1
T="$DIR/time.out"

# Disk: the largest capture set is about 3.2 GB at scale 1.
avail=$(df -Pk "$DIR" | awk 'NR == 2 { print $4 }')
if [ "${avail:-0}" -lt 5000000 ]; then
	echo "run.sh: less than 5 GB free in $DIR" >&2
	exit 1
fi

now_ns() { date +%s%N; }

# measure CMD...: appends "wall cpu rssKB" of one run to $M
measure() {
	t0=$(now_ns)
	"$TIME" -v -o "$T" "$@" >/dev/null 2>"$DIR/stderr.out"
	rc=$?
	t1=$(now_ns)
	if [ $rc -ne 0 ]; then
		echo "run.sh: '$*' exited $rc: $(head -n 3 "$DIR/stderr.out")" >&2
	fi
	awk -v w="$(( t1 - t0 ))" '
	/User time/ { u = $NF } /System time/ { s = $NF }
	/Maximum resident set size/ { m = $NF }
	END { printf "%.4f %.4f %d\n", w / 1e9, u + s, m }' "$T" >>"$M"
}

# median of column $1 of $M
median() {
	sort -g -k"$1","$1" "$M" | awk -v c="$1" '
	{ v[NR] = $c } END { if (NR % 2) print v[(NR + 1) / 2];
	    else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# one measurement of RUNS runs -> "wall cpu rss" medians
bench() {
	M="$DIR/m.out"
	: >"$M"
	i=0
	while [ $i -lt "$RUNS" ]; do
		measure "$@"
		i=$((i + 1))
	done
	echo "$(median 1) $(median 2) $(median 3)"
}

echo "# dtconsume benchmark"
echo
echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- dtconsume $("$DTC" -V | awk '{ print $2 }'), $(date -u +%Y-%m-%dT%H:%MZ), seed $SEED, median of $RUNS runs"
echo "- captures warm in the page cache (each is read once before timing)"
echo

RES="$DIR/results.txt"   # workload scale sink wall cpu rss bytes firings values
: >"$RES"
first=$(echo "$SCALES" | awk '{ print $1 }')
for scale in $SCALES; do
	tag=$(echo "$scale" | tr / _)
	for w in $WORKLOADS; do
		f="$DIR/$w-$tag.dtsnap"
		# no capture is near 2 GiB: cap the file size (the unit of
		# ulimit -f is 512 or 1024 bytes) so that no bug fills the disk
		( ulimit -f 4194304 &&
		    "$GEN" -w "$w" -s "$scale" -S "$SEED" -i "$f.info" -o "$f" ) ||
		    { rm -f "$f"; exit 1; }
		firings=$(sed -n 's/^firings=//p' "$f.info")
		values=$(sed -n 's/^values=//p' "$f.info")
		bytes=$(stat -c %s "$f")
		cat "$f" >/dev/null
		sinks=$BIGSINKS
		[ "$scale" = "$first" ] && sinks=$SINKS
		echo "$w $scale cat $(bench cat "$f") $bytes $firings $values" >>"$RES"
		for s in $sinks; do
			echo "$w $scale $s $(bench "$DTC" -f "$s" "$f") $bytes $firings $values" >>"$RES"
		done
		# the decode-only sink must have decoded every firing written
		if [ "$w" != agg ]; then
			got=$("$DTC" -f none "$f" | sed -n 's/.* \([0-9]*\) probe firings.*/\1/p')
			[ "$got" = "$firings" ] ||
			    echo "run.sh: $w $scale: -f none decoded ${got:-no} firings of $firings" >&2
		fi
		if [ "$w" = agg ]; then
			M="$DIR/merge.out"
			: >"$M"
			i=0
			while [ $i -lt "$RUNS" ]; do
				"$MERGE" "$f" | awk '/^merge / {
				    split($2, a, "="); split($3, b, "=");
				    print a[2], b[2] }' >>"$M"
				i=$((i + 1))
			done
			echo "$w $scale merge $(median 1) $(median 2) 0 $bytes $firings $values" >>"$RES"
		fi
		[ $KEEP = 1 ] || rm -f "$f"
	done
done

echo "## Throughput"
echo
echo "MB/s = capture bytes / time (10^6 bytes); firings = records in the"
echo "principal buffers (one per probe firing; for agg: aggregation entries),"
echo "values = data records (trace() values, printf arguments, stacks,"
echo "aggregation entries).  \"x cat\" = throughput / cat's throughput."
echo "Wall is what a user waits; CPU (user+sys) is what the decoder costs"
echo "on this shared machine, where other jobs compete for the 2 CPUs."
echo
echo "| capture | scale | sink | MB | wall s | MB/s wall | x cat wall | CPU s | MB/s CPU | x cat CPU | firings/s (CPU) | values/s (CPU) | peak RSS MiB |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk '
$3 == "cat" { cw[$1 " " $2] = $4; cc[$1 " " $2] = $5 }
$3 == "merge" { next }
{
	k = $1 " " $2; mb = $7 / 1e6
	wall = $4 > 0 ? $4 : 0.0001; cpu = $5 > 0 ? $5 : 0.0001
	xw = $3 == "cat" ? "1" : sprintf("%.2f", cw[k] / wall)
	xc = $3 == "cat" ? "1" : sprintf("%.2f", (cc[k] > 0 ? cc[k] : 0.0001) / cpu)
	fr = $3 == "cat" ? "" : sprintf("%.2fM", $8 / cpu / 1e6)
	vr = $3 == "cat" ? "" : sprintf("%.2fM", $9 / cpu / 1e6)
	printf "| %s | %s | %s | %.0f | %.3f | %.0f | %s | %.3f | %.0f | %s | %s | %s | %.1f |\n",
	    $1, $2, $3, mb, $4, mb / wall, xw, $5, mb / cpu, xc, fr, vr, $6 / 1024
}' "$RES"
echo

if grep -q ' merge ' "$RES"; then
	echo "## Aggregation merge alone (bench/aggmerge: no end-of-run printing)"
	echo
	echo "| capture | scale | entries | wall s | CPU s | entries/s (CPU) |"
	echo "|---|---|---:|---:|---:|---:|"
	awk '$3 == "merge" { printf "| %s | %s | %d | %.3f | %.3f | %.2fM |\n",
	    $1, $2, $9, $4, $5, $9 / ($5 > 0 ? $5 : 0.0001) / 1e6 }' "$RES"
	echo
fi

nsc=$(echo "$SCALES" | wc -w)
if [ "$nsc" -gt 1 ]; then
	last=$(echo "$SCALES" | awk '{ print $NF }')
	echo "## Growth from scale $first to $last"
	echo
	echo "Linear time means the CPU-time ratio equals the size ratio."
	echo
	echo "| capture | sink | size ratio | CPU-time ratio | RSS $first MiB | RSS $last MiB |"
	echo "|---|---|---:|---:|---:|---:|"
	awk -v a="$first" -v b="$last" '
	{ k = $1 " " $3 }
	$2 == a { c1[k] = $5; r1[k] = $6; s1[k] = $7; o[++n] = k }
	$2 == b { c2[k] = $5; r2[k] = $6; s2[k] = $7 }
	END { for (i = 1; i <= n; i++) { k = o[i]; if (!(k in c2)) continue
		split(k, p, " ")
		# CPU times of 10 ms and less (cat) have no useful ratio
		ratio = c1[k] >= 0.05 ? sprintf("%.2f", c2[k] / c1[k]) : "-"
		printf "| %s | %s | %.2f | %s | %.1f | %.1f |\n", p[1], p[2],
		    s2[k] / s1[k], ratio, r1[k] / 1024, r2[k] / 1024 } }' "$RES"
	echo
fi
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $KEEP = 1 ] || rm -f "$DIR"/*.info "$T" "$DIR/m.out" "$DIR/merge.out" "$DIR/stderr.out"
exit 0
