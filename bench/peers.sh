#!/bin/sh
# bench/peers.sh - dtconsume against its peers in one run: babeltrace2 on
# the same events (a CTF trace written by bench/ctfgen.py from the
# capture), and, with -o, an older build of dtconsume on the same
# captures (the before/after of a change).  `make bench` runs it.
#
# Pairs, each measured on the same file in the same run, the members of
# every pair interleaved run by run (a, b, a, b, ...) so that a change of
# the machine's load falls on both:
#   dtconsume -f none     babeltrace2 -o dummy   (decode only)
#   dtconsume (text)      babeltrace2 (pretty)   (text to /dev/null)
#   Python: dtconsume.open() dicts, records(), records(columns=True)
#           against bt2.TraceCollectionMessageIterator (bench/peers.py)
# on the printf workload (-s scale) and the trace workload (-t scale);
# with -o, every sink (none text json cbor) of every workload at -s, the
# new build against the old, interleaved the same way.  Times are CPU
# seconds (user + sys, /usr/bin/time), medians of RUNS; the ratios are
# of medians.  With -c, instructions per event of the C pairs
# (callgrind, the slope between two scales as bench/check.sh counts
# them), which the load of a shared machine does not move; with -o too,
# instructions per firing of every workload and sink, old against new
# (bench/check.sh on both builds, the same captures).  With -R,
# peak RSS of -f none and text on printf and trace at each scale given
# (one run each, new and old).  Prints Markdown on stdout.
#
# Usage: bench/peers.sh [-b BUILDDIR] [-o OLDBUILDDIR] [-r RUNS]
#                       [-s SCALE] [-t SCALE] [-R "SCALES"] [-c] [-d DIR]
#   -b  build directory (cmd/dtconsume, bench/gen, the Python package)
#   -o  an older build directory: its cmd/dtconsume is measured too
#   -r  runs per member of a pair (default 5)
#   -s  scale of the printf capture and of the before/after (default 1/8)
#   -t  scale of the trace capture of the peer pairs (default 1/32)
#   -R  scales for the peak-RSS table (default: none)
#   -c  instruction counts (valgrind) of the C pairs
#   -d  work directory (default ${TMPDIR:-/tmp}/dtcpeers; deleted)
# Needs babeltrace2 and python3-bt2 (Debian), /usr/bin/time; a row
# says so when one is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=.
OLD=
RUNS=5
SCALE=1/8
TSCALE=1/32
RSCALES=
COUNT=0
DIR="${TMPDIR:-/tmp}/dtcpeers"
while getopts b:o:r:s:t:R:cd: ch; do
	case $ch in
	b) B=$OPTARG ;;
	o) OLD=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	s) SCALE=$OPTARG ;;
	t) TSCALE=$OPTARG ;;
	R) RSCALES=$OPTARG ;;
	c) COUNT=1 ;;
	d) DIR=$OPTARG ;;
	*) sed -n '2,35p' "$0" >&2; exit 2 ;;
	esac
done
GEN="$B/bench/gen"
TIME=/usr/bin/time
BT=$(command -v babeltrace2)
: "${PYTHON3:=/usr/bin/python3}"
for p in "$B/cmd/dtconsume" "$GEN" "$TIME"; do
	[ -x "$p" ] || { echo "peers.sh: $p not built (make bench)" >&2; exit 1; }
done
[ -z "$OLD" ] || [ -x "$OLD/cmd/dtconsume" ] ||
    { echo "peers.sh: $OLD/cmd/dtconsume not built" >&2; exit 1; }
# prog BUILDDIR: "LIBDIR PROGRAM" of its dtconsume: the program itself,
# not libtool's wrapper script (a shell's start-up, a few ms, would
# be counted with it), and the directory of the libdtconsume it needs
prog() {
	if [ -x "$1/cmd/.libs/dtconsume" ]; then
		echo "$1/.libs $1/cmd/.libs/dtconsume"
	else
		echo "- $1/cmd/dtconsume"
	fi
}
DTC=$(prog "$B")
mkdir -p "$DIR" || exit 1
trap 'rm -rf "$DIR"' EXIT INT TERM
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

# gen W SCALE: a capture of workload W (its .info beside it); prints the path
gen() {
	f="$DIR/$1-$(echo "$2" | tr / _).dtsnap"
	[ -f "$f" ] || "$GEN" -w "$1" -s "$2" -i "$f.info" -o "$f" >/dev/null ||
	    exit 1
	cat "$f" >/dev/null
	echo "$f"
}
info() { sed -n "s/^$1=//p" "$2.info"; }

# ctf CAPTURE: its CTF trace (ctfgen.py), checked to hold every firing
ctf() {
	PYTHONPATH="$B/python" "$PYTHON3" "$here/ctfgen.py" "$1" "$1.ctf" \
	    >"$DIR/ctf.out" || exit 1
	[ "$(sed -n 's/^events=//p' "$DIR/ctf.out")" = "$(info firings "$1")" ] ||
	    { echo "peers.sh: ctfgen.py wrote $(cat "$DIR/ctf.out") for" \
	    "$(info firings "$1") firings" >&2; exit 1; }
}

# The jobs: "KEY LIBDIR CMD..." a line (LIBDIR: LD_LIBRARY_PATH, or -);
# every round runs each once, in order.
JOBS="$DIR/jobs"
RES="$DIR/res"          # KEY cpu-seconds peak-rss-KiB minor-faults, a line per run
: >"$JOBS"
: >"$RES"
job() { echo "$*" >>"$JOBS"; }

P=$(gen printf "$SCALE")
T=$(gen trace "$TSCALE")
HAVEBT=
if [ -n "$BT" ] && "$PYTHON3" -c 'import bt2' 2>/dev/null; then
	HAVEBT=yes
	ctf "$P"
	ctf "$T"
fi
for c in "$P" "$T"; do
	w=$(info workload "$c")
	job "$w:none:now $DTC -f none $c"
	[ -n "$HAVEBT" ] && job "$w:none:bt2 - $BT -o dummy $c.ctf"
	job "$w:text:now $DTC $c"
	[ -n "$HAVEBT" ] && job "$w:text:bt2 - $BT $c.ctf"
done
if [ -n "$OLD" ]; then
	for w in printf trace stack agg; do
		c=$(gen "$w" "$SCALE")
		for s in none text json cbor; do
			job "ba:$w:$s:now $DTC -f $s $c"
			job "ba:$w:$s:old $(prog "$OLD") -f $s $c"
		done
	done
fi

load0=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while [ $i -lt "$RUNS" ]; do
	while read -r key lib cmd; do
		[ "$lib" = - ] && lib=
		# shellcheck disable=SC2086
		LD_LIBRARY_PATH=$lib "$TIME" -f '%U %S %M %R' -o "$DIR/t" $cmd \
		    >/dev/null 2>"$DIR/err" ||
		    { echo "peers.sh: $cmd failed: $(head -n 2 "$DIR/err")" >&2
		    exit 1; }
		awk -v k="$key" '{ printf "%s %.2f %d %d\n", k, $1 + $2, $3, $4 }' \
		    "$DIR/t" >>"$RES"
	done <"$JOBS"
	i=$((i + 1))
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# med KEY: median CPU seconds of KEY's runs (empty if none)
med() {
	awk -v k="$1" '$1 == k { print $2 }' "$RES" | sort -g | awk '
	{ v[NR] = $1 } END { if (NR == 0) exit
	    if (NR % 2) print v[(NR + 1) / 2]
	    else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
rss() { awk -v k="$1" '$1 == k { if ($3 > m) m = $3 } END {
    printf "%.1f", m / 1024 }' "$RES"; }
# flt KEY: median minor page faults of KEY's runs
flt() { awk -v k="$1" '$1 == k { print $4 }' "$RES" | sort -n | awk '
    { v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
# ratio A B: A / B to two places, "-" when either is missing or zero
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN {
    if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }'; }
rate() { awk -v n="$1" -v t="${2:-0}" 'BEGIN {
    if (t > 0) printf "%.2fM", n / t / 1e6; else print "-" }'; }

echo "## Peers: babeltrace2 on the same events"
echo
echo "- $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r); dtconsume" \
    "$("$B/cmd/dtconsume" -V | awk '{ print $2 }'); $("$BT" --version 2>/dev/null |
    head -n 1 || echo 'no babeltrace2')"
echo "- load average $load0 at the start, $load1 at the end"
echo "- CPU s: user + sys, median of $RUNS runs, pairs interleaved"
echo
echo "| workload | events | pair | dtconsume CPU s | babeltrace2 CPU s | dtconsume events/s | babeltrace2 events/s | ratio |"
echo "|---|---:|---|---:|---:|---:|---:|---:|"
for c in "$P" "$T"; do
	w=$(info workload "$c")
	n=$(info firings "$c")
	for p in "none:-f none vs dummy" "text:text vs pretty"; do
		s=${p%%:*}
		a=$(med "$w:$s:now")
		b=$(med "$w:$s:bt2")
		echo "| $w $(basename "$c" .dtsnap | sed 's/.*-//; s/_/\//') | $n |" \
		    "${p#*:} | $a | ${b:--} | $(rate "$n" "$a") | $(rate "$n" "$b") |" \
		    "**$(ratio "$b" "$a")** |"
	done
done
echo
[ -n "$HAVEBT" ] || echo "(no babeltrace2 rows: install babeltrace2 and python3-bt2)"

if [ -n "$HAVEBT" ]; then
	echo "### Python: the dtconsume package against bt2's iteration"
	echo
	for c in "$P" "$T"; do
		PYTHONPATH="$B/python" "$PYTHON3" "$here/peers.py" -b "$B" \
		    -r "$RUNS" "$c" "$c.ctf" || exit 1
		echo
	done
fi

if [ $COUNT = 1 ] && command -v valgrind >/dev/null 2>&1; then
	# count LIBDIR CMD...: callgrind's total of one run
	count() {
		lib=$1; shift
		[ "$lib" = - ] && lib=
		LD_LIBRARY_PATH=$lib valgrind --tool=callgrind \
		    --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$DIR/vg"
		sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$DIR/vg"
	}
	echo "### Instructions per event (callgrind; the slope between two scales)"
	echo
	echo "| workload | pair | dtconsume | babeltrace2 | ratio |"
	echo "|---|---|---:|---:|---:|"
	for w in printf trace; do
		case $w in
		printf) set -- 1/2048 1/256 ;;
		*) set -- 1/16384 1/2048 ;;
		esac
		c1=$(gen $w "$1"); c2=$(gen $w "$2")
		[ -n "$HAVEBT" ] && { ctf "$c1"; ctf "$c2"; }
		n1=$(info firings "$c1"); n2=$(info firings "$c2")
		for p in "none:-f none vs dummy:-o dummy" "text:text vs pretty:"; do
			s=${p%%:*}; r=${p#*:}; label=${r%%:*}; bo=${r#*:}
			# shellcheck disable=SC2086
			d1=$(count $DTC -f "$s" "$c1")
			# shellcheck disable=SC2086
			d2=$(count $DTC -f "$s" "$c2")
			b1=; b2=
			if [ -n "$HAVEBT" ]; then
				# shellcheck disable=SC2086
				b1=$(count - "$BT" $bo "$c1.ctf")
				# shellcheck disable=SC2086
				b2=$(count - "$BT" $bo "$c2.ctf")
			fi
			awk -v w="$w" -v l="$label" -v n1="$n1" -v n2="$n2" \
			    -v d1="$d1" -v d2="$d2" -v b1="${b1:-0}" -v b2="${b2:-0}" \
			    'BEGIN { d = (d2 - d1) / (n2 - n1); b = (b2 - b1) / (n2 - n1)
			    # (mawk: no ">" among printf arguments, a redirection)
			    bs = "-"; rs = "-"
			    if (b > 0) { bs = sprintf("%.0f", b)
				rs = sprintf("**%.2f**", b / d) }
			    printf "| %s | %s | %.0f | %s | %s |\n", w, l, d, bs, rs }'
		done
		rm -rf "$c1" "$c1".* "$c2" "$c2".*
	done
	echo
fi

if [ -n "$OLD" ]; then
	echo "## Before and after: $OLD against $B"
	echo
	echo "- same captures (bench/gen -s $SCALE, seed 1), every run of the"
	echo "  two builds interleaved; CPU s medians of $RUNS"
	echo
	echo "| workload | sink | old CPU s | new CPU s | new / old | old peak RSS MiB | new peak RSS MiB | old minor faults | new minor faults |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	for w in printf trace stack agg; do
		for s in none text json cbor; do
			a=$(med "ba:$w:$s:old"); b=$(med "ba:$w:$s:now")
			echo "| $w | $s | $a | $b | **$(ratio "$b" "$a")** |" \
			    "$(rss "ba:$w:$s:old") | $(rss "ba:$w:$s:now") |" \
			    "$(flt "ba:$w:$s:old") | $(flt "ba:$w:$s:now") |"
		done
	done
	echo
	if [ $COUNT = 1 ] && command -v valgrind >/dev/null 2>&1; then
		# the guard's counts of both builds on the same captures
		# (this build's generator for both)
		sh "$here/check.sh" -b "$OLD" -G "$GEN" -u -B "$DIR/ic.old" \
		    >/dev/null || exit 1
		sh "$here/check.sh" -b "$B" -u -B "$DIR/ic.now" >/dev/null ||
		    exit 1
		echo "### Instructions per firing, old against new (callgrind; per aggregation entry for agg)"
		echo
		echo "| workload | sink | old | new | new / old |"
		echo "|---|---|---:|---:|---:|"
		# (mawk: no ">" among printf arguments, a redirection)
		awk 'FNR == NR { if ($0 !~ /^#/) o[$1 " " $2] = $4; next }
		    $0 !~ /^#/ { k = $1 " " $2; d = 0
			if (o[k] > 0) d = 100 * ($4 - o[k]) / o[k]
			printf "| %s | %s | %.1f | %.1f | %+.0f%% |\n", $1, $2,
			    o[k], $4, d }' \
		    "$DIR/ic.old" "$DIR/ic.now"
		echo
	fi
fi

if [ -n "$RSCALES" ]; then
	echo "## Peak RSS by capture size (one run each)"
	echo
	echo "| workload | scale | MB | sink | new MiB | old MiB |"
	echo "|---|---|---:|---|---:|---:|"
	for w in printf trace; do
		for sc in $RSCALES; do
			c=$(gen "$w" "$sc")
			for s in none text; do
				o=-
				for b in "$B" ${OLD:+"$OLD"}; do
					set -- $(prog "$b")
					[ "$1" = - ] && set -- "" "$2"
					LD_LIBRARY_PATH=$1 "$TIME" -f '%M' -o "$DIR/t" \
					    "$2" -f "$s" "$c" >/dev/null 2>&1
					m=$(awk '{ printf "%.1f", $1 / 1024 }' "$DIR/t")
					[ "$b" = "$B" ] && n=$m || o=$m
				done
				echo "| $w | $sc | $(awk -v s="$(stat -c %s "$c")" \
				    'BEGIN { printf "%.0f", s / 1e6 }') | $s | $n | $o |"
			done
			rm -f "$c" "$c.info"
		done
	done
	echo
fi
exit 0
