#!/bin/sh
# The manual pages, as a reader would use them:
#  - every page (man/*.[1-9]) is clean under `mandoc -Tlint -W warning`
#    and `groff -ww -mandoc` (each check skipped when the tool is not
#    installed);
#  - the C programs of the library's pages: each EXAMPLES block of
#    man/*.3 that is a whole program (it has main()) is extracted,
#    compiled against the public header and the built library with
#    -Wall -Wextra -Werror, and run.  A program that writes a capture is
#    decoded by dtconsume; one that reads a capture gets the README's
#    sample, one that reads DOF a DOF fixture.  A page whose example
#    stops compiling or running fails here, and so does a man/*.3 page
#    without an example program.
# Which functions have a page at all is checked by exports.sh.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
DTCONSUME="$top_builddir/cmd/dtconsume"
lib="$top_builddir/.libs/libdtconsume.so"
CC=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-manex.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# ------------------------------------------------------------------ lint
for page in "$top_srcdir"/man/*.[1-9]; do
	[ -f "$page" ] || continue
	name=$(basename "$page")
	if command -v mandoc >/dev/null; then
		mandoc -Tlint -W warning "$page" >"$work/lint" 2>&1
		if [ -s "$work/lint" ]; then
			not_ok "$name: mandoc -Tlint -W warning is clean" \
			    "$(head -n 5 "$work/lint")"
		else
			ok "$name: mandoc -Tlint -W warning is clean"
		fi
	fi
	if command -v groff >/dev/null; then
		groff -ww -mandoc -Tutf8 "$page" >/dev/null 2>"$work/lint"
		if [ -s "$work/lint" ]; then
			not_ok "$name: groff -ww -mandoc is clean" \
			    "$(head -n 5 "$work/lint")"
		else
			ok "$name: groff -ww -mandoc is clean"
		fi
	fi
done
command -v mandoc >/dev/null || echo "# no mandoc: pages not linted"
command -v groff >/dev/null || echo "# no groff: pages not checked by groff"

# -------------------------------------------------------------- examples
if [ ! -f "$lib" ]; then
	echo "# SKIP examples: no shared library ($lib)"
	[ "$ntest" -gt 0 ] || exit 77
	finish
fi
# a build with --enable-sanitizers: the programs need their runtime too
san=$(sed -n 's/^SAN_CFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)
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
		elif grep -q 'dtc_dof_open' "$src"; then
			# a DOF reader reads DOF: the legacy fixture
			"$work/$name-$k" \
			    "$top_srcdir/testdata/fuzz/dof/seed-legacy.dof" \
			    >"$work/out" 2>&1
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
	if [ $k -eq 0 ]; then
		not_ok "$name(3) has an example program" \
		    "no .Bd -literal block with main() in $page"
	fi
done
[ $n -gt 0 ] || { echo "# no examples found"; exit 99; }
finish
