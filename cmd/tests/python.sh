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
# say up front what will be skipped, and why
for m in numpy pandas dask distributed; do
	"$PYTHON3" -c "import $m" 2>/dev/null ||
	    echo "python.sh: no $m (Debian: python3-$m): the tests that need it skip"
done
# -v: each test's name, and the reason of every skip, in the log
exec "$PYTHON3" -m unittest discover -v -s "$top_srcdir/python/tests" \
    -t "$top_srcdir/python/tests"
