#!/bin/sh
# The C programs of the library's man pages, as a reader would use them:
# each EXAMPLES block of man/*.3 that is a whole program (it has main())
# is extracted, compiled against the public header and the built library
# with -Wall -Wextra -Werror, and run.  A program that writes a capture
# is decoded by dtconsume; one that reads a capture gets the README's
# sample.  A page whose example stops compiling or running fails here.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
DTCONSUME="$top_builddir/cmd/dtconsume"
lib="$top_builddir/.libs/libdtconsume.so"
[ -f "$lib" ] || { echo "# SKIP: no shared library ($lib)"; exit 77; }
CC=${CC:-cc}
# a build with --enable-sanitizers: the programs need their runtime too
san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-manex.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
sample="$top_builddir/testdata/samples/syscalls.dtsnap"
n=0
for page in "$top_srcdir"/man/*.3; do
	name=$(basename "$page" .3)
	# every literal display, mdoc escapes undone (\e is a backslash)
	awk '/^\.Bd -literal/ { f = 1; next } /^\.Ed/ { f = 0; print "@@" }
	    f' "$page" | sed 's/\\e/\\/g' >"$work/$name.blocks"
	k=0
	while [ -s "$work/$name.blocks" ]; do
		sed '/^@@$/q' "$work/$name.blocks" | sed '$d' >"$work/blk"
		sed '1,/^@@$/d' "$work/$name.blocks" >"$work/rest"
		mv "$work/rest" "$work/$name.blocks"
		grep -q '^main(' "$work/blk" || continue
		k=$((k + 1))
		n=$((n + 1))
		src="$work/$name-$k.c"
		cp "$work/blk" "$src"
		# shellcheck disable=SC2086
		if ! $CC $san -Wall -Wextra -Werror -I"$top_srcdir/libdtconsume" \
		    -o "$work/$name-$k" "$src" "$lib" \
		    -Wl,-rpath,"$(cd "$top_builddir/.libs" && pwd)" \
		    >"$work/cc.err" 2>&1; then
			not_ok "$name example $k compiles" "$(head -n 5 "$work/cc.err")"
			continue
		fi
		if grep -q 'dtc_writer_new' "$src"; then
			"$work/$name-$k" >"$work/cap.dtsnap" &&
			    "$DTCONSUME" "$work/cap.dtsnap" >"$work/out" 2>&1
		else
			"$work/$name-$k" "$sample" >"$work/out" 2>&1
		fi
		st=$?
		if [ $st -eq 0 ] && [ -s "$work/out" ]; then
			ok "$name example $k compiles and runs"
		else
			not_ok "$name example $k compiles and runs" \
			    "exit $st" "$(head -n 5 "$work/out")"
		fi
	done
done
[ $n -gt 0 ] || { echo "# no examples found"; exit 99; }
finish
