#!/bin/sh
# The jq recipes of dt2json(1) EXAMPLES run on the bundled sample capture
# and print exactly what the man page shows.  Each literal block whose
# first line is "$ dt2json syscalls.dtsnap | ..." is a command; the lines
# after it are its expected output (man escapes \e and \& undone).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
: "${JQ:=jq}"
command -v "$JQ" >/dev/null 2>&1 || { echo "jq not found"; exit 77; }
DT2JSON="$top_builddir/cmd/dt2json"
SAMPLE="$top_builddir/testdata/samples/syscalls.dtsnap"
[ -f "$SAMPLE" ] || { echo "no sample capture at $SAMPLE"; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-recipes.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
# split the man page into one directory per recipe: cmd and expected
awk -v dir="$work" '
	/^\.Bd -literal/ { inb = 1; first = 1; next }
	/^\.Ed/ { inb = 0; next }
	inb {
		gsub(/\\e/, "\\"); gsub(/\\&/, "")
		if (first) {
			first = 0
			if ($0 !~ /^\$ dt2json syscalls\.dtsnap \| /) { inb = 0; next }
			n++
			sub(/^\$ dt2json syscalls\.dtsnap \| /, "")
			print > (dir "/" n ".cmd"); close(dir "/" n ".cmd")
			printf "" > (dir "/" n ".want")
			next
		}
		print >> (dir "/" n ".want")
	}' "$top_srcdir/man/dt2json.1"
n=0 fail=0
for cmd in "$work"/*.cmd; do
	[ -f "$cmd" ] || continue
	n=$((n + 1))
	want="${cmd%.cmd}.want"
	prog=$(cat "$cmd")
	JQ="$JQ" "$DT2JSON" "$SAMPLE" | eval "$prog" >"$work/got" 2>&1
	if cmp -s "$work/got" "$want"; then
		printf "PASS recipe %s: %s\n" "$n" "$prog"
	else
		fail=$((fail + 1))
		printf "FAIL recipe %s: %s\n" "$n" "$prog"
		diff -u "$want" "$work/got" | head -n 20
	fi
done
echo "$((n - fail))/$n dt2json(1) recipes print what the man page shows"
[ $n -gt 0 ] && [ $fail -eq 0 ]
