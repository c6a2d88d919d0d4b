#!/bin/sh
# series.sh - captures in parts (dtsnap(5) SERIES; issue 20 item 2),
# without a kernel: real captures (testdata/live/captures, what dtsnap
# record wrote on a live system, and the README's synth capture) cut
# into parts by dtsnap split, which writes parts through the same
# series writer as dtsnap record --switch-output.
#
# What is checked, each against output derived independently of the
# series code (the decode of the uncut capture):
#   - dtconsume of all the parts prints, to the byte, what dtconsume of
#     the uncut capture prints (text and JSON, stderr and exit status
#     too), for every live capture and the legacy README capture;
#   - in any order on the command line (a glob, reversed);
#   - every part is a capture on its own: dtsnap validate finds nothing;
#   - the seam: the last part alone prints the tail of the whole output
#     from its first record on, aggregations included (each part carries
#     the aggregation snapshot of its start);
#   - a part missing in the middle: one warning naming the next part,
#     item 1 and its offset, and the output is the whole output without
#     exactly the records of the missing part;
#   - the last part missing: a warning that the run goes on;
#   - a part cut short: reported, and the parts after it are read;
#   - parts compressed (split -z) decode the same.
. "${top_srcdir:-.}/cmd/tests/lib.sh"
need_dtsnap
DTCONSUME="$top_builddir/cmd/dtconsume"

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# CAPTURE NAME [split options]: the equality checks for one capture
same() {
	cap=$1 n=$2
	shift 2
	mkdir -p "$t/$n"
	if ! "$DTSNAP" split "$@" "$cap" -o "$t/$n/p.dtsnap" 2>"$t/err"; then
		not_ok "$n: split" "$(cat "$t/err")"
		return
	fi
	"$DTCONSUME" "$cap" >"$t/a.out" 2>"$t/a.err"
	ra=$?
	"$DTCONSUME" "$t/$n"/p.*.dtsnap >"$t/b.out" 2>"$t/b.err"
	rb=$?
	if cmp -s "$t/a.out" "$t/b.out" && cmp -s "$t/a.err" "$t/b.err" &&
	    [ "$ra" = "$rb" ]; then
		ok "$n: $(ls "$t/$n" | wc -l) parts decode as the capture"
	else
		not_ok "$n: parts decode as the capture" "exit $ra / $rb" \
		    "$(diff "$t/a.out" "$t/b.out" | head -5)" \
		    "$(diff "$t/a.err" "$t/b.err" | head -5)"
	fi
	# JSON: the header line names the file read
	"$DTCONSUME" -f json "$cap" 2>&1 | sed 1d >"$t/a.json"
	"$DTCONSUME" -f json "$t/$n"/p.*.dtsnap 2>&1 | sed 1d >"$t/b.json"
	cmp -s "$t/a.json" "$t/b.json" ||
	    not_ok "$n: JSON of the parts" "$(diff "$t/a.json" "$t/b.json" |
	    head -5)"
	bad=
	for p in "$t/$n"/p.*.dtsnap; do
		"$DTSNAP" validate "$p" >/dev/null 2>"$t/v.err" ||
		    bad="$bad $(basename "$p"): $(head -1 "$t/v.err")"
	done
	[ -z "$bad" ] || not_ok "$n: every part validates" "$bad"
}

nbig=0
for d in "$top_srcdir"/testdata/live/captures/*/; do
	n=$(basename "$d")
	same "$d/cap.dtsnap" "$n"
	[ "$(ls "$t/$n" | wc -l)" -ge 3 ] && nbig=$((nbig + 1))
done
[ "$nbig" -ge 1 ] && ok "$nbig captures of 3 parts or more" ||
    not_ok "no capture cut into 3 parts or more"

# the legacy README capture (version 1.3: items renumbered, aggregation
# buffers that add to the state), two passes a part
"$DTSNAP" synth "$top_srcdir/testdata/samples/syscalls.json" -o "$t/sys.dtsnap"
same "$t/sys.dtsnap" sys --passes 2
# compressed parts
same "$top_srcdir/testdata/live/captures/passes_v2/cap.dtsnap" z -z3
"$DTSNAP" info "$t/z/p.000000.dtsnap" >/dev/null 2>&1 &&
    od -An -tx1 -N4 "$t/z/p.000000.dtsnap" | grep -q '28 b5 2f fd' &&
    ok "split -z writes compressed parts" ||
    not_ok "split -z writes compressed parts"
# a part split again (its items carry seq already): the same series
mkdir -p "$t/again"
"$DTSNAP" split --passes 100 "$t/z/p.000003.dtsnap" -o "$t/again/x.dtsnap" 2>/dev/null
"$DTSNAP" convert --no-zstd "$t/z/p.000003.dtsnap" -o "$t/p3.dtsnap"
"$DTSNAP" split --passes 100 "$t/p3.dtsnap" -o "$t/again/x.dtsnap" &&
    "$DTCONSUME" "$t/again/x.000000.dtsnap" >"$t/c.out" 2>&1 &&
    "$DTCONSUME" "$t/p3.dtsnap" >"$t/d.out" 2>&1 && cmp -s "$t/c.out" "$t/d.out" &&
    ok "a numbered part split again decodes the same" ||
    not_ok "a numbered part split again decodes the same"

P="$t/passes_v2"
"$DTCONSUME" "$P"/p.*.dtsnap >"$t/all.out" 2>&1

# any order on the command line
"$DTCONSUME" $(ls "$P"/p.*.dtsnap | sort -r) >"$t/rev.out" 2>&1
cmp -s "$t/all.out" "$t/rev.out" && ok "parts in reverse order" ||
    not_ok "parts in reverse order" "$(diff "$t/all.out" "$t/rev.out" | head)"

# the seam: the last part alone is the tail of the whole output, its
# drops included (drops_bufsize: records in every part)
S="$t/drops_bufsize"
"$DTCONSUME" "$S"/p.*.dtsnap >"$t/sall.out" 2>"$t/sall.err"
last=$(ls "$S"/p.*.dtsnap | tail -1)
"$DTCONSUME" "$last" >"$t/last.out" 2>"$t/last.err"
first=$(grep -m1 . "$t/last.out")
at=$(grep -n -x -F "$first" "$t/sall.out" | sed -n '1s/:.*//p')
sed -n "${at:-999999},\$p" "$t/sall.out" >"$t/tail.out"
if [ -n "$first" ] && [ -s "$t/tail.out" ] &&
    cmp -s "$t/last.out" "$t/tail.out" &&
    [ "$(cat "$t/last.err")" = "$(tail -1 "$t/sall.err")" ]; then
	ok "the last part alone prints the tail from line $at on, its drops too"
else
	not_ok "the last part alone prints the tail" "first: $first" \
	    "$(diff "$t/tail.out" "$t/last.out" | head)" "$(cat "$t/last.err")"
fi
# ... but a part read alone does not know what printa() printed in the
# parts before it: passes_v2 printa()s @c, then exits; its last part
# alone prints @c at the end, as a run whose printa() it never saw
last=$(ls "$P"/p.*.dtsnap | tail -1)
"$DTCONSUME" "$last" >"$t/plast.out" 2>&1
grep '^agg ' "$t/all.out" | awk '{ print $2, $3 }' >"$t/pwant.out"
awk 'NF { print $1, $2 }' "$t/plast.out" >"$t/pgot.out"
grep -q '^agg 3 10$' "$t/all.out" && cmp -s "$t/pgot.out" "$t/pwant.out" &&
    ok "a part alone prints at its end the aggregations printa() printed before it" ||
    not_ok "a part alone: aggregations at its end" "$(cat "$t/plast.out")"

# a part missing in the middle: a part that has records
for p in "$P"/p.*.dtsnap; do
	"$DTCONSUME" "$p" 2>/dev/null | grep -q '^rec ' || continue
	case $p in "$P"/p.000000.dtsnap) continue ;; esac
	gone=$p
	break
done
idx=$(basename "$gone" .dtsnap | sed 's/^p\.0*//')
next=$(ls "$P"/p.*.dtsnap | grep -A1 "$gone" | tail -1)
"$DTCONSUME" "$gone" 2>/dev/null | grep '^rec ' >"$t/gone.rec"
grep -vxF -f "$t/gone.rec" "$t/all.out" >"$t/want.out"
"$DTCONSUME" $(ls "$P"/p.*.dtsnap | grep -v "$gone") >"$t/miss.out" 2>"$t/miss.err"
rc=$?
off=$("$DTSNAP" dump "$next" | sed -n 's/^item 1, offset \([0-9]*\):.*/\1/p')
want="dtconsume: $next: item 1, offset $off: part $idx of series '"
if [ "$rc" = 1 ] && [ -s "$t/gone.rec" ] &&
    grep -qF "$want" "$t/miss.err" &&
    grep -q "missing before this one (after part $((idx - 1)), " "$t/miss.err" &&
    [ "$(wc -l <"$t/miss.err")" = 1 ] && cmp -s "$t/want.out" "$t/miss.out"
then
	ok "part $idx missing: one located warning, its $(wc -l <"$t/gone.rec") records lost, the rest decoded"
else
	not_ok "a part missing in the middle" "exit $rc" "$(cat "$t/miss.err")" \
	    "$(diff "$t/want.out" "$t/miss.out" | head)"
fi

# the last parts missing: the run goes on
"$DTCONSUME" "$P"/p.000000.dtsnap "$P"/p.000001.dtsnap >/dev/null 2>"$t/more.err"
grep -q "p.000001.dtsnap: item [0-9]*, offset [0-9]*: the run goes on after this part (part 1 of series" "$t/more.err" &&
    ok "the parts after the last one given: said" ||
    not_ok "the parts after the last one given: said" "$(cat "$t/more.err")"

# a part cut short: the parts after it are read
mkdir -p "$t/cut"
cp "$P"/p.*.dtsnap "$t/cut/"
c="$t/cut/$(basename "$gone")"
sz=$(wc -c <"$c")
head -c $((sz - 5)) "$c" >"$t/x" && cat "$t/x" >"$c"
"$DTCONSUME" "$t"/cut/p.*.dtsnap >"$t/cut.out" 2>"$t/cut.err"
lastrec=$(grep '^rec ' "$t/all.out" | tail -1)
if grep -q "$(basename "$c"): .*capture cut short at byte" "$t/cut.err" &&
    grep -qx "$lastrec" "$t/cut.out" && grep -q '^agg ' "$t/cut.out"; then
	ok "a part cut short: said, and the parts after it decoded"
else
	not_ok "a part cut short" "$(cat "$t/cut.err")" "$(tail -3 "$t/cut.out")"
fi

# a file of another series among them is a capture of its own (a part
# alone is decoded as a capture of its own, without a warning)
"$DTCONSUME" "$P"/p.000000.dtsnap "$t/sys/p.000000.dtsnap" \
    "$P"/p.000001.dtsnap >"$t/two.out" 2>"$t/two.err"
"$DTCONSUME" "$t/sys/p.000000.dtsnap" >"$t/sys0.out" 2>&1
grep -q "p.000001.dtsnap: .*the run goes on after this part (part 1 " "$t/two.err" &&
    [ "$(wc -l <"$t/two.err")" = 1 ] && grep -qF "$(tail -1 "$t/sys0.out")" "$t/two.out" &&
    ok "parts of two series named together: each read on its own" ||
    not_ok "parts of two series named together" "$(cat "$t/two.err")"

finish
