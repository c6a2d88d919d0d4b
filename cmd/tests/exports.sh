#!/bin/sh
# libdtconsume exports exactly the functions dtconsume.h declares: every
# exported symbol is dtc_*, and every dtc_* function in the header is
# exported (so nothing declared is missing, and nothing internal leaks).
: "${top_srcdir:=.}" "${top_builddir:=.}"
so=$(ls "$top_builddir"/.libs/libdtconsume.so 2>/dev/null)
[ -n "$so" ] || { echo "no shared library built; skipping"; exit 77; }
command -v nm >/dev/null || exit 77
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u >"$tmp/exported"
grep -v '^dtc_' "$tmp/exported" >"$tmp/leaks"
tr '\n' ' ' <"$top_srcdir/libdtconsume/dtconsume.h" | tr ';' '\n' |
    grep -v typedef | grep -v '(\*' |
    sed -n 's/.*[ *]\(dtc_[a-z0-9_]*\)(.*/\1/p' | sort -u >"$tmp/declared"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
status=0
if [ -s "$tmp/leaks" ]; then
	echo "exported but not dtc_*:"; cat "$tmp/leaks"; status=1
fi
if [ -s "$tmp/missing" ]; then
	echo "declared in dtconsume.h but not exported:"; cat "$tmp/missing"; status=1
fi
echo "$(wc -l <"$tmp/declared") functions declared, $(wc -l <"$tmp/exported") exported"
exit $status
