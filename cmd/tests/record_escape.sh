#!/bin/bash
# record_escape.sh - dtsnap record's own messages escape what they quote
# as the decoder's do (cli.c: control bytes, C1 and bytes that are not
# UTF-8 as \xNN), issue 20 item 4:
#
#   usage    a usage error quoting an argument (-z LEVEL): no root needed
#   maxsize  the --max-size message quoting the capture's name
#   tee      the same with --tee -, where the recorder's stderr is also
#            dtrace's: dtrace's own lines stay its bytes, ours are escaped
#
# The expected text is written out here, byte by byte.  The last two need
# root, BPF and tracefs (printed as skipped otherwise); all need a dtsnap
# built with libdtrace (skips, 77, otherwise).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
dtsnap_env=${DTSNAP-}
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
DTSNAP=${dtsnap_env:-$top_builddir/cmd/dtsnap}

[ -x "$DTSNAP" ] || skip "no $DTSNAP: build it first"
"$DTSNAP" record --help >/dev/null 2>&1 ||
	skip "dtsnap built without libdtrace (no dtsnap record)"
work=$(mktemp -d "${TMPDIR:-/tmp}/record_escape.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail=0
esc=$(printf '\033')

# no raw control byte, C1 or invalid UTF-8 in what we say: ESC, CSI
# (0x9b), a lone 0xff
clean() {
	! LC_ALL=C grep -q "$esc\\|$(printf '\233')\\|$(printf '\377')" "$1"
}

# ---- usage: -z quotes its argument
"$DTSNAP" record -o "$work/u.dtsnap" -z"$(printf '1\033[2J\233\377')" \
    -n 'BEGIN { exit(0); }' >/dev/null 2>"$work/u.err"
rc=$?
want="dtsnap record: -z takes a zstd level from 1 to 19, not '1\\x1b[2J\\x9b\\xff'"
if [ "$rc" = 2 ] && [ "$(head -n 1 "$work/u.err")" = "$want" ] &&
    clean "$work/u.err"; then
	echo "ok usage: $(head -n 1 "$work/u.err")"
else
	echo "not ok usage: exit $rc"
	od -c "$work/u.err" | head -n 4 | sed 's/^/# /'
	fail=1
fi

if [ "$(id -u)" != 0 ]; then
	echo "# skip maxsize, tee: not root (live tracing needs root)"
	exit $fail
fi
if ! "$DTSNAP" record -o "$work/probe.dtsnap" -n 'BEGIN { exit(0); }' \
    >/dev/null 2>"$work/probe.err"; then
	echo "# skip maxsize, tee: dtsnap record cannot trace here:" \
	    "$(head -n 1 "$work/probe.err")"
	exit $fail
fi

# ---- maxsize: the capture's name, quoted by the --max-size message
name=$(printf 'm\033]0;title\007.dtsnap')
prog='profile-997 { @[cpu] = count(); printf("%d\n", timestamp); } tick-5s { exit(0); }'
"$DTSNAP" record -o "$work/$name" --max-size 16k -n "$prog" \
    >/dev/null 2>"$work/m.err"
rc=$?
want="dtsnap record: $work/m\\x1b]0;title\\x07.dtsnap: stopped at --max-size (16384 bytes)"
if grep -qxF "$want" "$work/m.err" && clean "$work/m.err"; then
	echo "ok maxsize: exit $rc: $want"
else
	echo "not ok maxsize: exit $rc"
	od -c "$work/m.err" | head -n 6 | sed 's/^/# /'
	fail=1
fi

# ---- tee: with --tee -, stderr is dtrace's too
"$DTSNAP" record --tee - -o "$work/$name" --max-size 16k -n "$prog" \
    >"$work/t.out" 2>"$work/t.err"
rc=$?
if grep -qxF "$want" "$work/t.err" && clean "$work/t.err" &&
    grep -q '^dtrace: description .* matched ' "$work/t.err"; then
	echo "ok tee: exit $rc: ours escaped, dtrace's line kept:" \
	    "$(grep '^dtrace: ' "$work/t.err" | head -n 1)"
else
	echo "not ok tee: exit $rc"
	od -c "$work/t.err" | head -n 6 | sed 's/^/# /'
	fail=1
fi
exit $fail
