#!/bin/sh
# The public functions of libdtconsume, checked against what the library
# exports and what its man pages say:
#  - exports: every exported symbol is dtc_*, and every function
#    dtconsume.h declares is exported (nothing declared is missing, and
#    nothing internal leaks);
#  - 0.x names: every "#define dtc_old dtc_new" alias of the header is
#    exported and listed in the COMPATIBILITY section of the page of its
#    new name;
#  - documentation: every function dtconsume.h declares is named (.Nm)
#    in the NAME section of a man/*.3 page and has its prototype in that
#    page's SYNOPSIS (.Ft and .Fn, or .Fo/.Fa/.Fc), exactly as the
#    header declares it (parameter names included, spacing aside); a
#    page's NAME and SYNOPSIS list the same functions, and a page names
#    no dtc_* function the header does not declare.  So a function added
#    to the header without its documentation fails here, as does a
#    prototype changed in one place only.
# The documentation part needs no build; the export part skips without
# a shared library or nm.
: "${top_srcdir:=.}" "${top_builddir:=.}"
export LC_ALL=C
mandir=${DTC_MANDIR:-$top_srcdir/man}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dtc-exports.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
# the public headers: dtconsume.h and those beside it (dtconsume/*.h)
hdr="$tmp/headers.h"
cat "$top_srcdir/libdtconsume/dtconsume.h" \
    "$top_srcdir"/libdtconsume/dtconsume/*.h >"$hdr"
status=0
: >"$tmp/exported"

# Spacing made canonical: one blank between words, none after '*' or
# '(' nor before ')', and a function name written (dtc_x)( read as
# dtc_x( (the header's way of declaring a function a macro also names).
canon() {
	sed -e 's/[[:space:]][[:space:]]*/ /g' -e 's/^ //' -e 's/ $//' \
	    -e 's/\* /*/g' -e 's/( /(/g' -e 's/ )/)/g' -e 's/ ,/,/g' \
	    -e 's/(\(dtc_[a-z0-9_]*\))(/\1(/'
}

# declared: "name<TAB>prototype" for every function of the header.
# Comments and preprocessor lines (with their continuations) go first,
# so that a name in a comment or a macro body cannot count; then each
# declaration (the text between two ';') whose first parenthesis opens
# the parameters of a dtc_* name is a function.  Struct members and
# typedefs of function pointers ((*name)) are not.
awk '
{
	line = $0
	out = ""
	while (line != "") {
		if (incomment) {
			if ((i = index(line, "*/")) == 0)
				break
			line = substr(line, i + 2)
			incomment = 0
			continue
		}
		if ((i = index(line, "/*")) == 0) {
			out = out line
			break
		}
		out = out substr(line, 1, i - 1) " "
		line = substr(line, i + 2)
		incomment = 1
	}
	print out
}' "$hdr" | awk '
	cont { cont = /\\$/; next }
	/^[ \t]*#/ { cont = /\\$/; next }
	{ print }' | tr '\n\t' '  ' | tr ';' '\n' | grep -v '^ *typedef ' |
    sed -n 's/^[^(]*[ *(]\(dtc_[a-z0-9_]*\))\{0,1\}(.*/\1	&/p' |
    sed -e 's/	.*{/	/' -e 's/__attribute__.*$//' |
    while IFS='	' read -r name proto; do
	printf '%s\t%s\n' "$name" "$(printf '%s\n' "$proto" | canon)"
    done | sort -u >"$tmp/declared"
cut -f1 "$tmp/declared" | sort -u >"$tmp/declared.names"
if [ "$(wc -l <"$tmp/declared.names")" -lt 50 ]; then
	echo "only $(wc -l <"$tmp/declared.names") functions found in $hdr:" \
	    "the extraction above is broken"
	exit 99
fi

# ---------------------------------------------------------------- exports
so=$(ls "$top_builddir"/.libs/libdtconsume.so 2>/dev/null)
if [ -z "$so" ] || ! command -v nm >/dev/null; then
	echo "no shared library built (or no nm): exports not checked"
else
	nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ { print $3 }' |
	    sort -u >"$tmp/exported"
	grep -v '^dtc_' "$tmp/exported" >"$tmp/leaks"
	comm -23 "$tmp/declared.names" "$tmp/exported" >"$tmp/missing"
	if [ -s "$tmp/leaks" ]; then
		echo "exported but not dtc_*:"; cat "$tmp/leaks"; status=1
	fi
	if [ -s "$tmp/missing" ]; then
		echo "declared in dtconsume.h but not exported:"
		cat "$tmp/missing"
		status=1
	fi
	echo "$(wc -l <"$tmp/declared.names") functions declared," \
	    "$(wc -l <"$tmp/exported") exported"
fi

# ---------------------------------------------------------- documentation
# From every man/*.3 page: named ("name<TAB>page", its .Nm lines in
# NAME) and synopsis ("name<TAB>prototype<TAB>page", its .Ft/.Fn and
# .Ft/.Fo/.Fa/.Fc in SYNOPSIS; .Fd lines, macros, are not functions).
: >"$tmp/named"
: >"$tmp/synopsis.raw"
for page in "$mandir"/*.3; do
	[ -f "$page" ] || continue
	base=$(basename "$page")
	awk -v page="$base" -v named="$tmp/named" '
	# the arguments of a macro line from field 2 on: "quoted" or words
	function args(s,    n, q) {
		n = 0
		sub(/^[^ \t]+[ \t]*/, "", s)
		while (s != "") {
			if (substr(s, 1, 1) == "\"") {
				s = substr(s, 2)
				q = index(s, "\"")
				if (q == 0)
					q = length(s) + 1
				a[++n] = substr(s, 1, q - 1)
				s = substr(s, q + 1)
			} else {
				match(s, /^[^ \t]+/)
				a[++n] = substr(s, 1, RLENGTH)
				s = substr(s, RLENGTH + 1)
			}
			sub(/^[ \t]+/, "", s)
		}
		return n
	}
	function emit(name, params) {
		gsub(/\\&/, "", params)
		printf "%s\t%s %s(%s)\t%s\n", name, ft, name, params, page
	}
	/^\.Sh / { sec = $2; next }
	sec == "NAME" && /^\.Nm / { print $2 "\t" page >>named; next }
	sec != "SYNOPSIS" { next }
	/^\.Ft / { n = args($0); ft = a[1]
		for (k = 2; k <= n; k++) ft = ft " " a[k]
		next }
	/^\.Fn / { n = args($0); p = ""
		for (k = 2; k <= n; k++) p = p (k > 2 ? ", " : "") a[k]
		emit(a[1], p); next }
	/^\.Fo / { args($0); fo = a[1]; p = ""; np = 0; next }
	/^\.Fa / && fo != "" { n = args($0)
		for (k = 1; k <= n; k++) p = p (np++ ? ", " : "") a[k]; next }
	/^\.Fc/ && fo != "" { emit(fo, p); fo = ""; next }
	' "$page" >>"$tmp/synopsis.raw"
done
while IFS='	' read -r name proto page; do
	printf '%s\t%s\t%s\n' "$name" "$(printf '%s\n' "$proto" | canon)" "$page"
done <"$tmp/synopsis.raw" | sort -u >"$tmp/synopsis"
cut -f1 "$tmp/named" | sort -u >"$tmp/named.names"
cut -f1 "$tmp/synopsis" | sort -u >"$tmp/synopsis.names"

docfail() {
	echo "$1"
	sed 's/^/  /' "$tmp/out"
	status=1
}
comm -23 "$tmp/declared.names" "$tmp/named.names" >"$tmp/out"
[ -s "$tmp/out" ] && docfail "declared in dtconsume.h but named (.Nm) in the NAME section of no man/*.3 page:"
comm -23 "$tmp/declared.names" "$tmp/synopsis.names" >"$tmp/out"
[ -s "$tmp/out" ] && docfail "declared in dtconsume.h but in the SYNOPSIS (.Fn or .Fo) of no man/*.3 page:"
# a prototype the header does not have (a declared function's)
cut -f1,2 "$tmp/synopsis" | sort -u | comm -23 - "$tmp/declared" |
    while IFS='	' read -r name proto; do
	grep -q "^$name	" "$tmp/declared" || continue
	grep "^$name	" "$tmp/synopsis" | awk -F '\t' -v p="$proto" \
	    '$2 == p { print $3 ": " $2 }'
	grep "^$name	" "$tmp/declared" | cut -f2 | sed 's/^/dtconsume.h: /'
    done >"$tmp/out"
[ -s "$tmp/out" ] && docfail "a SYNOPSIS prototype differs from the header's:"
# names the header does not declare
{ cut -f1 "$tmp/named.names"; cut -f1 "$tmp/synopsis.names"; } | grep '^dtc_' |
    sort -u | comm -23 - "$tmp/declared.names" >"$tmp/out"
[ -s "$tmp/out" ] && docfail "documented in man/*.3 but not declared in dtconsume.h:"
# each page: the dtc_* functions of its NAME are those of its SYNOPSIS
grep '	.*	' "$tmp/synopsis" | awk -F '\t' '{ print $1 "\t" $3 }' |
    sort -u >"$tmp/syn.pages"
grep '^dtc_' "$tmp/named" | sort -u >"$tmp/named.pages"
{
	comm -23 "$tmp/named.pages" "$tmp/syn.pages" |
	    awk -F '\t' '{ print $2 ": " $1 " in NAME, not in SYNOPSIS" }'
	comm -13 "$tmp/named.pages" "$tmp/syn.pages" |
	    awk -F '\t' '{ print $2 ": " $1 " in SYNOPSIS, not in NAME" }'
} >"$tmp/out"
[ -s "$tmp/out" ] && docfail "NAME and SYNOPSIS of a page disagree:"
# ---------------------------------------------------------------- aliases
# The 0.x names of renamed calls: "#define dtc_old dtc_new" in the
# header's last block.  Each new name is a declared function; each old
# one is exported (0.x binaries link it) and listed, with its new name,
# in the COMPATIBILITY section of the page that names the new one.
sed -n 's/^#define \(dtc_[a-z0-9_]*\)[[:space:]][[:space:]]*\(dtc_[a-z0-9_]*\)[[:space:]]*$/\1	\2/p' \
    "$hdr" | sort -u >"$tmp/aliases"
: >"$tmp/out"
while IFS='	' read -r old new; do
	grep -qx "$new" "$tmp/declared.names" ||
		echo "$old: its new name $new is not a declared function"
	if [ -s "$tmp/exported" ] && ! grep -qx "$old" "$tmp/exported"; then
		echo "$old: not exported (0.x binaries would not link)"
	fi
	page=$(awk -F '\t' -v n="$new" '$1 == n { print $2; exit }' \
	    "$tmp/named")
	if [ -z "$page" ]; then
		echo "$old: no page names $new"
		continue
	fi
	awk -v o="$old" -v n="$new" '
	    /^\.Sh / { sec = substr($0, 5) }
	    sec == "COMPATIBILITY" && $0 ~ "^\\.It Fn " o " Ta Fn " n "$" { found = 1 }
	    END { exit !found }' "$mandir/$page" ||
		echo "$page: COMPATIBILITY does not list $old as $new"
done <"$tmp/aliases" >>"$tmp/out"
[ -s "$tmp/out" ] && docfail "0.x names (aliases):"
echo "$(wc -l <"$tmp/aliases") 0.x names kept as aliases"
echo "$(wc -l <"$tmp/declared.names") functions declared," \
    "$(comm -12 "$tmp/declared.names" "$tmp/named.names" | wc -l) named in" \
    "man/*.3, $(comm -12 "$tmp/declared.names" "$tmp/synopsis.names" |
    wc -l) with a SYNOPSIS"
exit $status
