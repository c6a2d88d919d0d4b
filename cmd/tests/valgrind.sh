#!/bin/sh
# make valgrind: dtconsume (text, json, cbor) and dt2json over every
# conformance fixture and hand-derived case under
# valgrind --error-exitcode=1 (memory errors and leaks).  Not part of
# make check (it takes minutes); CI runs the suite under ASan+UBSan.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found"; exit 77; }
DTSNAP="$top_builddir/cmd/dtsnap"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-vg.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
# the real binaries, not libtool's wrapper scripts (valgrind would check
# the shell); they find the uninstalled library through LD_LIBRARY_PATH
LD_LIBRARY_PATH="$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
bin() { if [ -x "$top_builddir/cmd/.libs/$1" ]; then
	echo "$top_builddir/cmd/.libs/$1"
	else echo "$top_builddir/cmd/$1"; fi; }
DTCONSUME=$(bin dtconsume)
DT2JSON=$(bin dt2json)
VG="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect"
n=0 fail=0
for desc in $(find "$top_srcdir/testdata/conformance" "$top_srcdir/testdata/valid" \
    -name '*.json' | sort); do
	s="$work/x.dtsnap"
	"$DTSNAP" synth "$desc" -o "$s" 2>/dev/null || continue
	n=$((n + 1))
	for run in "$DTCONSUME" "$DTCONSUME -f json" "$DTCONSUME -f cbor" \
	    "$DTCONSUME -f json-freebsd" "$DT2JSON"; do
		# shellcheck disable=SC2086
		if ! $VG $run "$s" >/dev/null 2>"$work/vg.err"; then
			if grep -q '^==' "$work/vg.err"; then
				fail=$((fail + 1))
				echo "FAIL $desc: $run"
				grep '^==' "$work/vg.err" | head -n 20
			fi
		fi
	done
done
echo "$n captures x 5 runs under valgrind: $fail with errors"
[ $fail -eq 0 ]
