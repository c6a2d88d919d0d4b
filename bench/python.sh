#!/bin/sh
# bench/python.sh - the Python figures of `make bench`: the event
# iterator, the light records and the numpy columns of the dtconsume
# package against the C decoders, cffi and babeltrace2's Python bindings
# on one trace capture, and the Dask fleet recipe with 1 and 2 workers
# (bench/python_bench.py says what each row is).  Prints Markdown.
#
# Usage: bench/python.sh [-b BUILDDIR] [-r RUNS] [-C SCALE] [-S SCALE]
#   -C  scale of the decode-only capture (default 1/8: 134 MB)
#   -S  scale of the capture the Python iterators and bt2 read
#       (default 1/32)
#   -F  scale of each of the 64 agg captures of the fleet (default 1/256)
# Needs the package built (configure found Python headers) and numpy;
# bt2, cffi and dask rows need python3-bt2, python3-cffi, python3-dask
# and python3-distributed (a row says so when they are missing).
set -u
B=.
RUNS=3
SCALE=1/32
CSCALE=1/8
FSCALE=1/256
while getopts b:r:C:S:F: ch; do
	case $ch in
	b) B=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	C) CSCALE=$OPTARG ;;
	S) SCALE=$OPTARG ;;
	F) FSCALE=$OPTARG ;;
	*) sed -n '2,17p' "$0" >&2; exit 2 ;;
	esac
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${PYTHON3:=/usr/bin/python3}"
if ! ls "$B"/python/dtconsume/_dtconsume*.so >/dev/null 2>&1; then
	echo "python.sh: the Python package is not built in $B" >&2
	exit 77
fi
if ! "$PYTHON3" -c 'import numpy' 2>/dev/null; then
	echo "python.sh: numpy is missing (apt-get install python3-numpy)" >&2
	exit 77
fi
# no __pycache__ in the source tree (bench/, python/tests)
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-pybench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
"$PYTHON3" "$SRC/bench/python_bench.py" -b "$B" -s "$SRC" -r "$RUNS" \
    -C "$CSCALE" -S "$SCALE" -F "$FSCALE" -d "$work"
