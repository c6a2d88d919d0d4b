#!/bin/sh
# Switch the tree's callers from the 0.x names of renamed calls to their
# names (HACKING, Conventions, "Public names"): every "#define dtc_old
# dtc_new" of dtconsume.h's last block, as a whole word, in the files
# git tracks, but for what must keep the old names: the alias block
# itself, compat.c (the exported 0.x functions), the COMPATIBILITY lists
# of the man pages (".It Fn old Ta Fn new"), cross references to a
# page named by an old name, and past results (*.md).
# Rerun it after merging a branch that still calls old names: it
# changes nothing the second time.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
hdr=libdtconsume/dtconsume.h
sedf=$(mktemp "${TMPDIR:-/tmp}/rename-0x.XXXXXX")
names=$(mktemp "${TMPDIR:-/tmp}/rename-0x.XXXXXX")
trap 'rm -f "$sedf" "$names"' EXIT
# the lines to leave alone, then one substitution per alias
printf '%s\n' '/^#define dtc_[a-z0-9_]*[[:space:]][[:space:]]*dtc_[a-z0-9_]*[[:space:]]*$/b' \
    '/^\.It Fn dtc_[a-z0-9_]* Ta Fn dtc_[a-z0-9_]*$/b' >"$sedf"
sed -n 's/^#define \(dtc_[a-z0-9_]*\)[[:space:]][[:space:]]*\(dtc_[a-z0-9_]*\)[[:space:]]*$/s\/\\<\1\\>\/\2\/g/p' \
    "$hdr" >>"$sedf"
sed -n 's/^#define \(dtc_[a-z0-9_]*\)[[:space:]][[:space:]]*dtc_[a-z0-9_]*[[:space:]]*$/\1/p' \
    "$hdr" >"$names"
# a page keeps its file name: a cross reference to it stays as it was
while read -r old; do
	[ -f "man/$old.3" ] || continue
	new=$(sed -n "s/^#define $old[[:space:]][[:space:]]*\\(dtc_[a-z0-9_]*\\)[[:space:]]*\$/\\1/p" "$hdr")
	echo "s/Xr $new 3/Xr $old 3/g" >>"$sedf"
done <"$names"
n=$(grep -c '^s/' "$sedf")
[ "$n" -gt 0 ] || { echo "no aliases found in $hdr" >&2; exit 1; }
git ls-files -z -- '*.c' '*.h' '*.py' '*.sh' '*.[1-9]' README HACKING \
    '*/README' ':!libdtconsume/read/compat.c' ':!libdtconsume/rename-0x.sh' |
    xargs -0 grep -lw -f "$names" |
    while read -r f; do
	sed -i -f "$sedf" "$f"
	echo "$f"
    done
