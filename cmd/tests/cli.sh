#!/bin/sh
# The command lines of dtconsume and dt2json: a bad option is one line and
# the pointer to --help (exit 2), FreeBSD dtrace's -x oformat / --libxo /
# -O map to this toolkit's formats or are refused with the reason, and
# --help and the man pages list the same options.
. "$(dirname "$0")/lib.sh"
need_dtsnap
: "${JQ:=jq}"
DTCONSUME="$top_builddir/cmd/dtconsume"
DT2JSON="$top_builddir/cmd/dt2json"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-cli.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
CAP="$work/cap.dtsnap"
"$DTSNAP" synth "$top_srcdir/testdata/folded/kernel.json" -o "$CAP" || exit 99

# usage NAME PROG ARGS... -- LINE: exit 2, nothing on stdout, and on
# stderr exactly LINE and "Try 'PROG --help' for more information."
usage() {
	name=$1 prog=$2
	shift 2
	args=""
	while [ "$1" != "--" ]; do
		args="${args:+$args }$1"
		shift
	done
	line=$2
	# shellcheck disable=SC2086
	"$top_builddir/cmd/$prog" $args >"$work/out" 2>"$work/err"
	rc=$?
	printf '%s\n%s\n' "$line" \
	    "Try '$prog --help' for more information." >"$work/want"
	if [ $rc -eq 2 ] && [ ! -s "$work/out" ] &&
	    cmp -s "$work/want" "$work/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "$(cat "$work/err" | head -n 4)"
	fi
}
# same NAME PROG ARGS... -- PROG ARGS...: both exit 0 with the same,
# non-empty, output (the arguments have no blanks)
same() {
	name=$1
	shift
	a=""
	while [ "$1" != "--" ]; do
		a="${a:+$a }$1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	"$top_builddir/cmd/"$a >"$work/a" 2>"$work/a.err"
	ra=$?
	"$top_builddir/cmd/$@" >"$work/b" 2>"$work/b.err"
	rb=$?
	if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ -s "$work/a" ] &&
	    cmp -s "$work/a" "$work/b"; then
		ok "$name"
	else
		not_ok "$name" "exit $ra and $rb" "$(head -n 2 "$work/a.err")"
	fi
}

# --- bad options: one line, not the whole help
usage "unknown short option" dtconsume -z "$CAP" -- \
    "dtconsume: unknown option '-z'"
usage "unknown option in a group" dtconsume -qZ "$CAP" -- \
    "dtconsume: unknown option '-Z'"
usage "unknown long option" dtconsume --frobnicate "$CAP" -- \
    "dtconsume: unknown option '--frobnicate'"
usage "unknown long option with a value" dt2json --frob=1 "$CAP" -- \
    "dt2json: unknown option '--frob'"
usage "missing argument" dtconsume "$CAP" -o -- \
    "dtconsume: option '-o' needs an argument"
usage "missing argument of a long option" dt2json "$CAP" --folded-key -- \
    "dt2json: option '--folded-key' needs an argument"
usage "argument to a flag" dtconsume --merge-aggs=yes "$CAP" -- \
    "dtconsume: option '--merge-aggs' takes no argument"
usage "no file" dtconsume -q -- "dtconsume: no capture file given"
usage "unknown format" dtconsume -f svg "$CAP" -- \
    "dtconsume: unknown output format 'svg'"
usage "--folded-key without -f folded" dtconsume --folded-key 1 "$CAP" -- \
    "dtconsume: --folded-key goes with -f folded, flamegraph or speedscope"
usage "--folded-key 0" dtconsume -f folded --folded-key 0 "$CAP" -- \
    "dtconsume: --folded-key 0: key positions are numbers from 1 to 64, separated by commas"
usage "--folded-key 1,,2" dtconsume -f folded --folded-key 1,,2 "$CAP" -- \
    "dtconsume: --folded-key 1,,2: key positions are numbers from 1 to 64, separated by commas"

# --- FreeBSD dtrace: -x oformat, --libxo, -O
usage "oformat=xml refused" dtconsume -x oformat=xml "$CAP" -- \
    "dtconsume: -x oformat=xml: no XML output here; json (-f json-freebsd) is FreeBSD's structured output"
usage "oformat=html refused" dt2json -x oformat=html "$CAP" -- \
    "dt2json: -x oformat=html: no HTML output here; json (-f json-freebsd) is FreeBSD's structured output"
usage "--libxo xml refused" dtconsume --libxo xml "$CAP" -- \
    "dtconsume: --libxo xml: no XML output here; json (-f json-freebsd) is FreeBSD's structured output"
usage "libxo options refused" dtconsume -x oformat=json,pretty "$CAP" -- \
    "dtconsume: -x oformat=json,pretty: libxo options are not supported (text or json alone)"
usage "unknown style" dtconsume -x oformat=yaml "$CAP" -- \
    "dtconsume: -x oformat=yaml: unknown style (text, json, xml or html)"
usage "oformat without a style" dtconsume -x oformat "$CAP" -- \
    "dtconsume: -x oformat needs a style: text or json"
same "-x oformat=json -O is -f json-freebsd" \
    dtconsume -x oformat=json -O "$CAP" -- dtconsume -f json-freebsd "$CAP"
same "--libxo json -O is -f json-freebsd" \
    dt2json --libxo json -O "$CAP" -- dtconsume -f json-freebsd "$CAP"
same "-x oformat=text is the text output (dt2json too)" \
    dt2json -x oformat=text "$CAP" -- dtconsume "$CAP"
same "-O alone changes nothing" dtconsume -O "$CAP" -- dtconsume "$CAP"
same "the last of -x oformat and -f wins (-f)" \
    dtconsume -x oformat=json -f text "$CAP" -- dtconsume "$CAP"
same "the last of -f and -x oformat wins (oformat)" \
    dtconsume -f text -x oformat=json -O "$CAP" -- \
    dtconsume -f json-freebsd "$CAP"
# without -O FreeBSD writes no end-of-run aggregations: the capture has
# seven, @k printed by printa(), so six at the end
if command -v "$JQ" >/dev/null 2>&1; then
	a=$("$DTCONSUME" -f json-freebsd "$CAP" |
	    "$JQ" '.dtrace.aggregations | length')
	b=$("$DTCONSUME" -x oformat=json "$CAP" |
	    "$JQ" -c '[(.dtrace | keys), (.dtrace.probes | length)]')
	c=$("$DTCONSUME" -f json-freebsd "$CAP" |
	    "$JQ" -c '.dtrace.probes | length')
	if [ "$a" = 6 ] && [ "$b" = "[[\"probes\"],$c]" ]; then
		ok "-x oformat=json without -O: the probes, no aggregations"
	else
		not_ok "-x oformat=json without -O" "$a" "$b" "$c"
	fi
else
	echo "# jq not found: the oformat document is not inspected"
fi

# --- --help, the man pages and the formats agree
# options of --help: the lines indented 2 or 6 columns
help_opts() {
	"$top_builddir/cmd/$1" --help |
	    grep -E '^(  |      )-' | sed 's/^ *//' |
	    awk '{ print $1; if ($1 ~ /,$/) print $2 }' | sed 's/,$//' | sort -u
}
# options of a man page: the Fl of each .It of its OPTIONS list
man_opts() {
	sed -n '/^\.Sh OPTIONS/,/^\.Sh /p' "$1" | grep '^\.It Fl' |
	    awk '{ for (i = 1; i < NF; i++) if ($i == "Fl") print "-" $(i + 1) }' |
	    sed 's/,$//' | sort -u
}
for prog in dtconsume dt2json; do
	help_opts $prog >"$work/help.opts"
	man_opts "$top_srcdir/man/$prog.1" >"$work/man.opts"
	if [ -s "$work/help.opts" ] && cmp -s "$work/help.opts" "$work/man.opts"
	then
		ok "$prog: --help and $prog(1) list the same options ($(wc -l <"$work/help.opts"))"
	else
		not_ok "$prog: --help and $prog(1) differ" \
		    "$(diff "$work/help.opts" "$work/man.opts" | tr '\n' ' ')"
	fi
	# every synopsis option is described
	syn=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$top_srcdir/man/$prog.1" |
	    grep '^\.Op Fl' | awk '{ print "-" $3 }' | sort -u)
	miss=""
	for o in $syn; do
		case $o in
		-qFEO) for f in -q -F -E -O; do
			grep -qx -- "$f" "$work/man.opts" || miss="$miss $f"
		       done ;;
		*) grep -qx -- "$o" "$work/man.opts" || miss="$miss $o" ;;
		esac
	done
	[ -z "$miss" ] && ok "$prog(1): every synopsis option described" ||
	    not_ok "$prog(1): synopsis options not described:$miss"
done
# every format of --help is in dtconsume(1) and dt2json(1)
fmts=$("$DTCONSUME" --help | awk '/^  -f format/ { on = 1; next }
    on && /^        [a-z]/ { print $1; next } { on = 0 }')
miss=""
for f in $fmts; do
	for m in dtconsume dt2json; do
		grep -q "^\.Cm $f\( \|$\)" "$top_srcdir/man/$m.1" ||
		    miss="$miss $m:$f"
	done
done
[ -n "$fmts" ] && [ -z "$miss" ] && ok "formats $(echo $fmts) in both man pages" ||
    not_ok "formats missing from the man pages:$miss"
# the README's option list names the new ones
for o in "-f folded" "--folded-key" "-o out.txt" "-x oformat=json"; do
	grep -q -- "$o" "$top_srcdir/README" || miss="$miss README:$o"
done
[ -z "$miss" ] && ok "README names -f folded, --folded-key, -o, -x oformat" ||
    not_ok "README:$miss"
finish
