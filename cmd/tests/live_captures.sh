#!/bin/sh
# live_captures.sh - captures that a real DTrace (DTrace for Linux,
# dtrace-utils, recorded with `dtsnap record --tee -`) wrote, decoded on
# any machine: the bytes came from the kernel's BPF programs, the
# expected output is what libdtrace printed for the same run.
#
# testdata/live/captures/NAME/ holds:
#   cap.dtsnap     the capture
#   expected.out   dtrace's stdout (the tee)
#   expected.err   dtrace's "dtrace: " stderr lines of the run (may be
#                  empty), compared as a set: libdtrace reports drops and
#                  errors from another place in its loop than stdout
#   script.d       the script, for reference, when it is not
#                  testdata/live/scripts/NAME.d (the live suite's)
#   needs-ctf      print() records: a build without GNU libctf checks that
#                  they decode as raw bytes with one notice instead
# For each: dtconsume's stdout must equal expected.out byte for byte, its
# "dtrace: " lines expected.err, `dtsnap validate` must find it clean (a
# real run's capture is), and dt2json's lines must all parse.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
DTCONSUME="$top_builddir/cmd/dtconsume"
DT2JSON="$top_builddir/cmd/dt2json"
dir="$top_srcdir/testdata/live/captures"
[ -d "$dir" ] || { echo "# no $dir"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-livecap.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
n=0
same=0
have_ctf=0
grep -q '^#define HAVE_LIBCTF 1' "$top_builddir/config.h" 2>/dev/null && have_ctf=1
for d in "$dir"/*/; do
	name=$(basename "$d")
	[ -f "$d/cap.dtsnap" ] || continue
	if [ -f "$d/needs-ctf" ] && [ $have_ctf = 0 ]; then
		# without libctf: the records as raw bytes, one notice, exit 0
		"$DTCONSUME" "$d/cap.dtsnap" >"$work/out" 2>"$work/err"
		st=$?
		notes=$(grep -c 'print() records are shown as raw bytes$' \
		    "$work/err")
		others=$(grep -vc 'print() records are shown as raw bytes$' \
		    "$work/err")
		if [ $st = 0 ] && [ "$notes" = 1 ] && [ "$others" = 0 ]; then
			ok "$name: without libctf, raw bytes and one notice"
		else
			not_ok "$name: without libctf, raw bytes and one notice" \
			    "exit $st, $notes notices, $others other lines" \
			    "$(head -n 3 "$work/err")"
		fi
		# print_struct.d's point {3, -4, "pt"} in the hex dump
		if [ "$name" = print_struct ]; then
			if grep -q ' 0: 03 00 00 00 fc ff ff ff 70 74 00 00 ' \
			    "$work/out"; then
				ok "$name: the struct's bytes are shown"
			else
				not_ok "$name: the struct's bytes are shown" \
				    "$(head -n 4 "$work/out")"
			fi
		fi
		continue
	fi
	n=$((n + 1))
	"$DTCONSUME" "$d/cap.dtsnap" >"$work/out" 2>"$work/err"
	grep '^dtrace: ' "$work/err" | sort >"$work/msgs"
	sort "$d/expected.err" >"$work/want"
	if cmp -s "$work/out" "$d/expected.out" &&
	    cmp -s "$work/msgs" "$work/want"; then
		same=$((same + 1))
		ok "$name: dtconsume prints what dtrace printed"
	else
		not_ok "$name: dtconsume differs from dtrace" \
		    "$(diff "$d/expected.out" "$work/out" | head -n 10)" \
		    "$(diff "$work/want" "$work/msgs" | head -n 4)"
	fi
	if "$DTSNAP" validate "$d/cap.dtsnap" >"$work/v" 2>&1; then
		ok "$name: dtsnap validate finds it clean"
	else
		not_ok "$name: dtsnap validate complains" "$(head -n 3 "$work/v")"
	fi
	if [ -n "${JQ:-}" ] || command -v jq >/dev/null 2>&1; then
		if "$DT2JSON" "$d/cap.dtsnap" 2>/dev/null |
		    jq -e -c . >/dev/null 2>&1; then
			ok "$name: every dt2json line parses"
		else
			not_ok "$name: dt2json output does not parse"
		fi
	fi
done
echo "# $same/$n recorded captures byte-exact"
[ "$n" -gt 0 ] || { echo "# no captures in $dir"; exit 99; }
finish
