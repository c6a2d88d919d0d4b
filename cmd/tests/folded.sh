#!/bin/sh
# -f folded (dtconsume(1), FOLDED STACKS): captures made with dtsnap synth
# from testdata/folded/*.json and two real ones, against the outputs
# derived by hand in testdata/folded (README there says how); the sample
# capture again against a stackcollapse of its own text output; and, when
# FlameGraph's flamegraph.pl is installed, that it draws the output.
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$top_builddir/cmd/dtconsume"
DT2JSON="$top_builddir/cmd/dt2json"
T="$top_srcdir/testdata/folded"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-folded.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

for j in kernel user badpc; do
	"$DTSNAP" synth "$T/$j.json" -o "$work/$j.dtsnap" 2>"$work/err" || {
		echo "# synth $j.json: $(cat "$work/err")"
		exit 99
	}
done

# same NAME EXPECTED CMD...: stdout equals EXPECTED, nothing on stderr,
# exit status 0
same() {
	name=$1 want=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$work/err" ] && cmp -s "$want" "$work/out"
	then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "$(head -n 3 "$work/err")" \
		    "$(diff "$want" "$work/out" | head -n 10)"
	fi
}

K="$work/kernel.dtsnap" U="$work/user.dtsnap"
same "kernel stacks: records and aggregations" "$T/kernel.expected" \
    "$DTCONSUME" -f folded "$K"
same "dt2json -f folded is the same" "$T/kernel.expected" \
    "$DT2JSON" -f folded "$K"
same "two captures add up" "$T/kernel-twice.expected" \
    "$DTCONSUME" -f folded "$K" "$K"
same "--merge-aggs counts the merged state" "$T/kernel-merged.expected" \
    "$DTCONSUME" -f folded --merge-aggs "$K" "$K"
same "user stacks, jstack helper strings, keys" "$T/user.expected" \
    "$DTCONSUME" -f folded "$U"
same "--folded-key 2" "$T/user-key2.expected" \
    "$DTCONSUME" -f folded --folded-key 2 "$U"
same "--folded-key=3,1" "$T/user-key31.expected" \
    "$DTCONSUME" -f folded --folded-key=3,1 "$U"
same "--strip-offsets: frames without +0x..." "$T/kernel-strip.expected" \
    "$DTCONSUME" -f folded --strip-offsets "$K"
same "--agg k: @k alone, no records" "$T/kernel-agg-k.expected" \
    "$DTCONSUME" -f folded --agg k "$K"
same "--agg @s: @s alone, no records" "$T/kernel-agg-s.expected" \
    "$DTCONSUME" -f folded --agg @s "$K"
# an aggregation the captures do not print: said, and no line
"$DTCONSUME" -f folded --agg nosuch "$K" >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$work/out" ] &&
    [ "$(cat "$work/err")" = "dtconsume: no aggregation @nosuch was printed in the captures" ]
then
	ok "--agg nosuch: said on stderr, no line"
else
	not_ok "--agg nosuch" "exit $rc" "$(cat "$work/err")"
fi
"$DTCONSUME" --agg k "$K" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^dtconsume: --agg goes with -f folded" "$work/err" &&
    ok "--agg without -f folded: a usage error" ||
    not_ok "--agg without -f folded" "exit $rc" "$(cat "$work/err")"
same "real capture: ustack_v2" "$T/ustack_v2.expected" \
    "$DTCONSUME" -f folded "$top_srcdir/testdata/live/captures/ustack_v2/cap.dtsnap"

SAMPLE="$top_builddir/testdata/samples/syscalls.dtsnap"
if [ -f "$SAMPLE" ]; then
	same "sample capture" "$T/sample.expected" \
	    "$DTCONSUME" -f folded "$SAMPLE"
	# the stackcollapse.pl way over the text output: frames are the
	# lines indented 14 columns, a row ends with its count
	"$DTCONSUME" "$SAMPLE" | awk '
	/^ +[0-9]+$/ && n > 0 {
		s = f[n - 1]
		for (i = n - 2; i >= 0; i--)
			s = s ";" f[i]
		print s, $1
		n = 0
		next
	}
	# 14 spaces written out: mawk, the default awk of Debian, has no {n}
	/^              [^ ]/ { f[n++] = substr($0, 15); next }
	{ n = 0 }' | sort >"$work/collapsed"
	same "sample capture: its text output collapsed" "$work/collapsed" \
	    "$DTCONSUME" -f folded "$SAMPLE"
fi

# a stack record the library refuses: what the text output says, no line
"$DTCONSUME" "$work/badpc.dtsnap" >/dev/null 2>"$work/text.err"
"$DTCONSUME" -f folded "$work/badpc.dtsnap" >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$work/out" ] && [ -s "$work/err" ] &&
    cmp -s "$work/text.err" "$work/err"; then
	ok "bad stack record: exit 1, the text output's message"
else
	not_ok "bad stack record" "exit $rc" "$(cat "$work/err")"
fi

# FlameGraph is not packaged by Debian: this part runs where it is installed
if command -v flamegraph.pl >/dev/null 2>&1; then
	"$DTCONSUME" -f folded "$K" >"$work/k.folded"
	# flamegraph.pl's root frame: "all (N samples, 100%)", N with commas
	total=$(awk '{ t += $NF } END { print t }' "$work/k.folded" |
	    sed -e ':a' -e 's/^\([0-9][0-9]*\)\([0-9]\{3\}\)/\1,\2/' -e 'ta')
	if flamegraph.pl "$work/k.folded" >"$work/k.svg" 2>"$work/err" &&
	    grep -q "all ($total samples, 100%)" "$work/k.svg" &&
	    grep -q 'kernel`odd:name+0x8' "$work/k.svg"; then
		ok "flamegraph.pl draws it ($total samples)"
	else
		not_ok "flamegraph.pl" "$(head -n 3 "$work/err")"
	fi
else
	echo "# flamegraph.pl not installed: not drawn"
fi
finish
