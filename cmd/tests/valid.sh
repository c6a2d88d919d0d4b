#!/bin/sh
# Hand-derived cases: each directory of testdata/valid holds one or more
# synth descriptions (*.json, decoded in name order), optional "args" for
# dtconsume, and the output derived by hand: expected.txt (stdout) and
# optionally expected.err (stderr) and expected.rc (exit status, 0 if
# absent).  README says how the expected output was derived.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
DTSNAP="$top_builddir/cmd/dtsnap"
DTCONSUME="$top_builddir/cmd/dtconsume"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-valid.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export TZ=UTC LC_ALL=C
n=0 fail=0
# print() by type needs GNU libctf in this build (a "needs-ctf" case)
have_ctf=0
grep -q '^#define HAVE_LIBCTF 1' "$top_builddir/config.h" 2>/dev/null && have_ctf=1
for dir in "$top_srcdir"/testdata/valid/*/; do
	name=$(basename "$dir")
	if [ -f "$dir/needs-ctf" ] && [ $have_ctf = 0 ]; then
		echo "SKIP $name: this build has no GNU libctf (print() types)"
		continue
	fi
	n=$((n + 1))
	snaps=""
	for j in "$dir"*.json; do
		s="$work/$name-$(basename "$j" .json).dtsnap"
		if ! "$DTSNAP" synth "$j" -o "$s" 2>"$work/err"; then
			echo "FAIL $name: synth $(basename "$j"): $(head -n 1 "$work/err")"
			fail=$((fail + 1))
			continue 2
		fi
		snaps="$snaps $s"
	done
	args=""
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	# shellcheck disable=SC2086
	"$DTCONSUME" $args $snaps >"$work/out" 2>"$work/err"
	rc=$?
	want_rc=0
	[ -f "$dir/expected.rc" ] && want_rc=$(cat "$dir/expected.rc")
	sed "s,$work/,,g" "$work/err" >"$work/err.m"
	ok=1
	cmp -s "$work/out" "$dir/expected.txt" || ok=0
	if [ -f "$dir/expected.err" ]; then
		cmp -s "$work/err.m" "$dir/expected.err" || ok=0
	elif [ -s "$work/err" ]; then
		ok=0
	fi
	[ "$rc" = "$want_rc" ] || ok=0
	if [ $ok = 1 ]; then
		echo "PASS $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name (exit $rc, want $want_rc)"
		diff -u "$dir/expected.txt" "$work/out" | head -n 30
		[ -f "$dir/expected.err" ] && diff -u "$dir/expected.err" "$work/err.m" | head -n 10
		[ -f "$dir/expected.err" ] || head -n 5 "$work/err"
	fi
done
echo "$((n - fail))/$n hand-derived cases pass"
[ $fail -eq 0 ]
