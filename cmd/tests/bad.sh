#!/bin/sh
# Malformed-input corpus: every case under testdata/bad/ (made by
# testdata/bad/gen.py, which explains the layout) is decoded by dtconsume
# in its own directory, and stdout, stderr and the exit status must be
# exactly the expected ones: the right message at the right item, CPU and
# offset, and everything intact still decoded.  A case without an
# expected file for a stream does not check that stream (it must still
# not crash: any exit status above 2 fails).  Each case is decoded twice:
# as a file, and from a pipe (`dtconsume -`, the streaming reader, which
# must find the same damage at the same bytes; its messages name
# "<stdin>").
# Exit 0 when every case matches, 1 otherwise, 77 when dtconsume is missing.
# Usage: bad.sh [-v] [case-substring]
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
DTCONSUME="$(cd "$top_builddir" && pwd)/cmd/dtconsume"
root="$top_srcdir/testdata/bad"
verbose=0
[ "$1" = "-v" ] && { verbose=1; shift; }
only="$1"

[ -x "$DTCONSUME" ] || { echo "SKIP: no $DTCONSUME"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-bad.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export LC_ALL=C TZ=UTC
unset _DTRACE_TESTING

have_ctf=0
grep -q '^#define HAVE_LIBCTF 1' "$top_builddir/config.h" 2>/dev/null && have_ctf=1
total=0 pass=0
for d in "$root"/*/; do
	d=${d%/}
	name=${d##*/}
	[ -f "$d/input.dtsnap" ] || continue
	[ -n "$only" ] && case "$name" in *"$only"*) ;; *) continue ;; esac
	# print() by its types: a build without GNU libctf shows raw bytes
	if [ -f "$d/needs-ctf" ] && [ $have_ctf = 0 ]; then
		echo "SKIP $name: needs GNU libctf (this build has none)"
		continue
	fi
	total=$((total + 1))
	w="$work/$name"
	mkdir -p "$w"
	cp "$d/input.dtsnap" "$w/input.dtsnap"
	(cd "$w" && "$DTCONSUME" input.dtsnap >out 2>err)
	status=$?
	(cd "$w" && "$DTCONSUME" - <input.dtsnap >pout 2>perr.raw)
	pstatus=$?
	sed 's/^dtconsume: <stdin>:/dtconsume: input.dtsnap:/' \
	    "$w/perr.raw" >"$w/perr"
	echo "$status" >"$w/status"
	ok=1 why=""
	if [ "$status" -gt 2 ] || [ "$pstatus" -gt 2 ]; then
		ok=0 why="exit status $status, from a pipe $pstatus (crash?)"
	fi
	if [ -f "$d/exit" ] && [ "$(cat "$d/exit")" != "$status" ]; then
		ok=0 why="$why exit $status, want $(cat "$d/exit");"
	fi
	if [ -f "$d/stdout" ] && ! cmp -s "$d/stdout" "$w/out"; then
		ok=0 why="$why stdout differs;"
	fi
	if [ -f "$d/stderr" ] && ! cmp -s "$d/stderr" "$w/err"; then
		ok=0 why="$why stderr differs;"
	fi
	# from a pipe: what the file gave
	if [ "$pstatus" != "$status" ] || ! cmp -s "$w/out" "$w/pout" ||
	    ! cmp -s "$w/err" "$w/perr"; then
		ok=0 why="$why a pipe decodes it differently;"
		diff -u "$w/err" "$w/perr" | sed -n '3,12p' | sed 's/^/    /'
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
		[ $verbose = 1 ] && echo "PASS $name"
	else
		echo "FAIL $name:$why"
		for s in stdout stderr; do
			g=out
			[ $s = stderr ] && g=err
			[ -f "$d/$s" ] && ! cmp -s "$d/$s" "$w/$g" &&
			    diff -u "$d/$s" "$w/$g" | sed -n '3,40p' | sed 's/^/    /'
		done
	fi
done
echo "$pass/$total bad-input cases pass"
[ "$total" -gt 0 ] && [ "$pass" = "$total" ]
