#!/bin/sh
# The Python package (python/tests): the event iterator against dt2json on
# every capture of testdata, the batch columns against the same events,
# aggregations against dtconsume --merge-aggs, damaged captures, and the
# fleet recipe on a Dask cluster.  Runs with the build tree's package
# (PYTHONPATH=$top_builddir/python) and the interpreter configure found
# (PYTHON3, Debian's /usr/bin/python3 first).  Tests that need numpy,
# pandas or dask skip with the reason when those are missing; the whole
# script skips (77) when the extension was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
: "${PYTHON3:=/usr/bin/python3}"
top_builddir=$(cd "$top_builddir" && pwd)
if [ ! -x "$PYTHON3" ] && ! command -v "$PYTHON3" >/dev/null 2>&1; then
	echo "SKIP: no python3 ($PYTHON3)"
	exit 77
fi
if ! ls "$top_builddir"/python/dtconsume/_dtconsume*.so >/dev/null 2>&1; then
	echo "SKIP: the Python extension was not built (configure: no Python headers?)"
	exit 77
fi
PYTHONPATH="$top_builddir/python${PYTHONPATH:+:$PYTHONPATH}"
# no __pycache__ in the source tree (python/tests lives there)
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE top_srcdir top_builddir
export LC_ALL=C.UTF-8 TZ=UTC
unset _DTRACE_TESTING
# A --enable-sanitizers build: the extension carries ASan and UBSan,
# whose runtime must come first in an interpreter not built with them.
# Run that way (LD_PRELOAD of libasan and libubsan, detect_leaks=0, as
# HACKING says) the suite takes over 5 minutes on 2 CPUs, too long for
# make check: it is run by hand, and skipped here with that reason.
if [ -n "$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)" ] &&
    [ -z "${DTC_PYTHON_SAN:-}" ]; then
	echo "SKIP: a sanitizer build: the Python suite under ASan takes over"
	echo "      5 minutes; run it by hand with DTC_PYTHON_SAN=1 (HACKING)"
	exit 77
fi
if [ -n "${DTC_PYTHON_SAN:-}" ]; then
	LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:abort_on_error=1"
	export LD_PRELOAD ASAN_OPTIONS
fi
# say up front what will be skipped, and why
for m in numpy pandas dask distributed; do
	"$PYTHON3" -c "import $m" 2>/dev/null ||
	    echo "python.sh: no $m (Debian: python3-$m): the tests that need it skip"
done
# -v: each test's name, and the reason of every skip, in the log
exec "$PYTHON3" -m unittest discover -v -s "$top_srcdir/python/tests" \
    -t "$top_srcdir/python/tests"
