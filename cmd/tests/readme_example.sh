#!/bin/sh
# The C program of the README ("Using the library") compiles without a
# warning against the build tree's libdtconsume and prints what dtconsume
# prints for the same capture: its firings and records as -f none counts
# them (and its firings as dtsnap info counts them in the buffers), whole
# and under a probe selection.
. "$(dirname "$0")/lib.sh"
need_dtsnap
: "${CC:=cc}"
B=$(cd "$top_builddir" && pwd)
DTCONSUME="$B/cmd/dtconsume"
SAMPLE="$B/testdata/samples/syscalls.dtsnap"
[ -f "$SAMPLE" ] || { echo "# no sample capture at $SAMPLE"; exit 99; }
[ -x "$B/libtool" ] && [ -f "$B/libdtconsume.la" ] ||
    { echo "# no libtool or libdtconsume.la in $B"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-readme.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# the indented block after the line that says how count.c is built, up
# to the first line that is not indented
awk '
	/^`cc count\.c .*libdtconsume\)`:$/ { on = 1; next }
	on && /^[^ ]/ { exit }
	on { sub(/^    /, ""); print }' "$top_srcdir/README" >"$work/count.c"
if grep -q 'dtc_reader_next' "$work/count.c"; then
	ok "README: count.c found ($(wc -l <"$work/count.c") lines)"
else
	not_ok "README: count.c found"
	finish
fi
# a build with --enable-sanitizers: the program needs their runtime too
san=$(sed -n 's/^SAN_CFLAGS = //p' "$B/Makefile" 2>/dev/null)
# shellcheck disable=SC2086
if (cd "$work" && "$B/libtool" --quiet --tag=CC --mode=link $CC $san \
    -Wall -Wextra -Werror -I"$top_srcdir/libdtconsume" -o count count.c \
    "$B/libdtconsume.la") >"$work/cc.out" 2>&1; then
	ok "README: count.c compiles with -Wall -Wextra -Werror"
else
	not_ok "README: count.c compiles" "$(head -n 5 "$work/cc.out")"
	finish
fi
count() {
	"$B/libtool" --mode=execute "$work/count" "$@" 2>"$work/err"
}

# what dtconsume -f none counts: "... N probe firings[ (...)], M records"
totals() {
	"$DTCONSUME" -f none "$@" "$SAMPLE" |
	    sed -n 's/^[0-9]* captures, \([0-9]*\) probe firings[^,]*, \([0-9]*\) records,.*/\1 firings, \2 records/p'
}
want=$(totals)
got=$(count "$SAMPLE")
[ -n "$want" ] && [ "$got" = "$want" ] && [ ! -s "$work/err" ] &&
    ok "count prints what dtconsume counts: $got" ||
    not_ok "count of the sample" "got '$got', want '$want'" "$(cat "$work/err")"
# and the firings dtsnap counts in the buffers ("records N; ...": one
# buffer record per firing)
info=$("$DTSNAP" info "$SAMPLE" | sed -n 's/^records  *\([0-9]*\);.*/\1/p')
case $got in
"$info firings,"*) ok "the firings dtsnap info counts: $info" ;;
*) not_ok "the firings dtsnap info counts" "info says '$info', count '$got'" ;;
esac
want=$(totals --probe 'syscall::read:*')
got=$(count "$SAMPLE" 'syscall::read:*')
[ -n "$want" ] && [ "$got" = "$want" ] &&
    ok "count with a selection: $got" ||
    not_ok "count with a selection" "got '$got', want '$want'"
# the read firings, counted from the whole JSON output
: "${JQ:=jq}"
if command -v "$JQ" >/dev/null 2>&1; then
	n=$("$B/cmd/dt2json" "$SAMPLE" | "$JQ" -s '[.[] | select(.type ==
	    "probe" and .provider == "syscall" and .function == "read")] |
	    length')
	case $got in
	"$n firings,"*) ok "the selection is the $n read firings" ;;
	*) not_ok "the selection is the read firings" "$n, count '$got'" ;;
	esac
fi
# A static link as users make one: the archive alone in its libdir (so
# that -ldtconsume finds no shared library) and what `pkg-config --static`
# says it needs beside it (the built libdtconsume.pc, pointed there).
: "${PKG_CONFIG:=pkg-config}"
if ! command -v "$PKG_CONFIG" >/dev/null 2>&1; then
	echo "# SKIP static link: no $PKG_CONFIG"
elif [ ! -f "$B/.libs/libdtconsume.a" ]; then
	echo "# SKIP static link: no libdtconsume.a (configure --disable-static?)"
elif [ -n "$san" ]; then
	echo "# SKIP static link: a sanitizer build"
else
	mkdir -p "$work/pc" "$work/lib"
	cp "$B/.libs/libdtconsume.a" "$work/lib/"
	sed -e "s|^libdir=.*|libdir=$work/lib|" \
	    -e "s|^includedir=.*|includedir=$top_srcdir/libdtconsume|" \
	    "$B/libdtconsume/libdtconsume.pc" >"$work/pc/libdtconsume.pc"
	flags=$(PKG_CONFIG_PATH="$work/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
	    "$PKG_CONFIG" --static --cflags --libs libdtconsume)
	# shellcheck disable=SC2086
	if (cd "$work" && $CC -o count-static count.c $flags) \
	    >"$work/cc.out" 2>&1; then
		got=$("$work/count-static" "$SAMPLE" 2>"$work/err")
		want=$(totals)
		[ "$got" = "$want" ] && ok "static link with pkg-config --static: $got" ||
		    not_ok "the static program counts" "got '$got', want '$want'"
	else
		not_ok "static link with pkg-config --static ($flags)" \
		    "$(grep -m 3 'undefined\|error' "$work/cc.out")"
	fi
fi
got=$(count "$SAMPLE" 'a:b:c:d:e')
rc=$?
grep -q "more than four fields" "$work/err" && [ $rc = 1 ] &&
    ok "count refuses a bad selection" ||
    not_ok "count refuses a bad selection" "exit $rc: $(cat "$work/err")"
finish
