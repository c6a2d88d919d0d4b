#!/bin/sh
# dtsnap.sh - dtsnap synth against layouts computed by hand, and the
# other subcommands on what it writes.
#
# testdata/synth/NAME.json is a description; NAME.expected holds, worked
# out by hand from the kernel's rules (facts sheet sections 3, 4 and 7),
# the recdescs of its enablings and aggregations and the bytes of every
# buffer (lib.sh snap_layout prints the same from the capture).
. "$(dirname "$0")/lib.sh"
need_dtsnap

work=$(mktemp -d "${TMPDIR:-/tmp}/dtsnap-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
src="$top_srcdir/testdata/synth"

# ---- layouts ----
for exp in "$src"/*.expected; do
	name=$(basename "$exp" .expected)
	snap="$work/$name.dtsnap"
	if ! "$DTSNAP" synth "$src/$name.json" -o "$snap" 2>"$work/err"; then
		not_ok "synth $name" "$(cat "$work/err")"
		continue
	fi
	snap_layout "$snap" >"$work/$name.got"
	uncomment "$exp" >"$work/$name.want"
	if diff -u "$work/$name.want" "$work/$name.got" >"$work/$name.diff"
	then
		ok "layout of $name"
	else
		not_ok "layout of $name" "$(cat "$work/$name.diff")"
	fi
	# CBOR -> JSON Lines -> CBOR gives back the same bytes
	if "$DTSNAP" convert -f json "$snap" -o "$work/$name.jsonl" &&
	    "$DTSNAP" convert "$work/$name.jsonl" -o "$work/$name.back" &&
	    cmp -s "$snap" "$work/$name.back"; then
		ok "convert round trip of $name"
	else
		not_ok "convert round trip of $name"
	fi
	if "$DTSNAP" dump "$snap" >"$work/$name.dump" 2>"$work/err" &&
	    [ ! -s "$work/err" ]; then
		ok "dump $name"
	else
		not_ok "dump $name" "$(cat "$work/err")"
	fi
	if "$DTSNAP" validate "$snap" >"$work/$name.val" 2>"$work/err"; then
		ok "validate $name"
	else
		not_ok "validate $name" "$(cat "$work/err")"
	fi
	if "$DTSNAP" info "$snap" >"$work/$name.info" 2>"$work/err" &&
	    [ ! -s "$work/err" ]; then
		ok "info $name"
	else
		not_ok "info $name" "$(cat "$work/err")"
	fi
done

# ---- errors in descriptions name the JSON path ----
# synth_error NAME 'JSON' 'expected stderr'
synth_error() {
	printf '%s\n' "$2" >"$work/bad.json"
	"$DTSNAP" synth "$work/bad.json" -o "$work/bad.dtsnap" 2>"$work/err"
	st=$?
	want="dtsnap: $work/bad.json: $3"
	got=$(cat "$work/err")
	if [ "$st" -eq 1 ] && [ "$got" = "$want" ] && [ ! -e "$work/bad.dtsnap" ]
	then
		ok "error: $1"
	else
		not_ok "error: $1" "exit $st" "want: $want" "got:  $got"
	fi
}
P='"probes": [{"id": 1, "provider": "dtrace", "name": "BEGIN"}]'
E='"eprobes": [{"epid": 1, "probe": 1, "recs": [{"trace": 1}, {"trace": "string"}]}]'

synth_error "unknown key" "{\"header\": {\"ncpus\": 2}, $P, $E}" \
    'header.ncpus: unknown key'
synth_error "unknown REC" "{$P, \"eprobes\": [{\"epid\": 1, \"probe\": 1, \"recs\": [{\"tarce\": 4}]}]}" \
    'eprobes[0].recs[0]: no action key (trace, printf, printa, stack, exit, action, ...)'
synth_error "data type" "{$P, $E, \"passes\": [{\"bufs\": [{\"cpu\": 0, \"records\": [{\"epid\": 1, \"data\": [1, 2]}]}]}]}" \
    'passes[0].bufs[0].records[0].data[1]: expected a string or {"hex": ...}'
synth_error "integer range" "{$P, $E, \"passes\": [{\"bufs\": [{\"cpu\": 0, \"records\": [{\"epid\": 1, \"data\": [256, \"x\"]}]}]}]}" \
    'passes[0].bufs[0].records[0].data[0]: 256 does not fit in 1 byte'
synth_error "missing data" "{$P, $E, \"passes\": [{\"bufs\": [{\"cpu\": 0, \"records\": [{\"epid\": 1, \"data\": [1]}]}]}]}" \
    'passes[0].bufs[0].records[0].data[1]: missing data for trace(string)'
synth_error "cpu range" "{$P, $E, \"passes\": [{\"bufs\": [{\"cpu\": 1}]}]}" \
    'passes[0].bufs[0].cpu: 1 is larger than 0'
synth_error "unknown epid" "{$P, $E, \"passes\": [{\"bufs\": [{\"cpu\": 0, \"records\": [{\"epid\": 2}]}]}]}" \
    'passes[0].bufs[0].records[0].epid: no enabling with epid 2 in eprobes'
synth_error "aggregation-only record" "{$P, \"eprobes\": [{\"epid\": 1, \"probe\": 1, \"recs\": [], \"aggonly\": true}], \"passes\": [{\"bufs\": [{\"cpu\": 0, \"records\": [{\"epid\": 1}]}]}]}" \
    'passes[0].bufs[0].records[0].epid: enabling 1 stores no data (size 0): the kernel never writes a record for it'
synth_error "unknown aggregation" "{$P, \"eprobes\": [{\"epid\": 1, \"probe\": 1, \"recs\": [{\"printa\": null, \"aggs\": [\"a\"]}]}]}" \
    'eprobes[0].recs[0].aggs[0]: no aggregation named "a" in aggs'
synth_error "lquantize levels" "{$P, $E, \"aggs\": [{\"id\": 1, \"epid\": 1, \"func\": \"lquantize\", \"base\": 0, \"limit\": 10, \"step\": 20}]}" \
    'aggs[0]: lquantize has 0 levels ((limit - base) / step must be 1 to 65535)'
# jansson words syntax errors itself: only the place is checked
printf '{\n"header": }\n' >"$work/bad.json"
"$DTSNAP" synth "$work/bad.json" -o "$work/bad.dtsnap" 2>"$work/err"
st=$?
case $(cat "$work/err") in
"dtsnap: $work/bad.json: line 2, column "*)
	[ "$st" -eq 1 ] && ok "error: JSON syntax" ||
	    not_ok "error: JSON syntax" "exit $st" ;;
*)	not_ok "error: JSON syntax" "$(cat "$work/err")" ;;
esac

# ---- usage errors exit 2 ----
for args in "" "bogus" "synth" "synth a b" "dump" "dump -q x" "info" \
    "validate" "validate -q x" "validate -a" "convert" "convert -f xml x"; do
	# shellcheck disable=SC2086
	"$DTSNAP" $args >/dev/null 2>&1
	st=$?
	if [ "$st" -eq 2 ]; then
		ok "usage error: dtsnap $args"
	else
		not_ok "usage error: dtsnap $args" "exit $st, want 2"
	fi
done
# info shows capture text with its control characters escaped, and a clock
# pair at 2^63 (modulo 2^64 arithmetic: no signed overflow under UBSan)
cat >"$work/esc.json" <<'EOF'
{ "header": { "host": "h\u001b[31mred" },
  "probes": [ { "id": 1, "provider": "dtrace", "name": "BEGIN\u001b]0;pwned\u0007" } ],
  "eprobes": [ { "epid": 1, "probe": 1, "recs": [ { "trace": 4 } ] } ],
  "clock": { "hrtime": "9223372036854775808", "walltime": "9223372036854775808" },
  "passes": [ { "bufs": [ { "cpu": 0, "records": [ { "epid": 1, "data": [ 7 ] } ] } ] } ],
  "end": { "exit_status": 0 } }
EOF
if "$DTSNAP" synth "$work/esc.json" -o "$work/esc.dtsnap" &&
    "$DTSNAP" info "$work/esc.dtsnap" >"$work/esc.out" 2>&1; then
	esc=$(printf '\033')
	if grep -q 'h\\x1b\[31mred' "$work/esc.out" &&
	    grep -q 'BEGIN\\x1b\]0;pwned\\x07' "$work/esc.out" &&
	    ! grep -q "$esc" "$work/esc.out"; then
		ok "info escapes control characters of capture text"
	else
		not_ok "info escapes control characters of capture text" \
		    "$(cat -v "$work/esc.out" | head -n 12)"
	fi
else
	not_ok "info of a capture with control characters and a 2^63 clock" \
	    "$(head -n 3 "$work/esc.out")"
fi

# ---- validate is dtconsume's decode: its cap, -a, standard input ----
bad="$top_srcdir/testdata/bad"
# 150 warnings of one kind: 100 written and one line for the rest, as
# dtconsume writes them; -a writes all 150
"$DTSNAP" validate "$bad/diag-unknown-epid-150/input.dtsnap" >"$work/v.out" \
    2>"$work/v.err"
st=$?
n=$(grep -c 'unknown enabled probe id 99' "$work/v.err")
if [ "$st" -eq 1 ] && [ "$n" -eq 100 ] && [ "$(wc -l <"$work/v.err")" -eq 101 ] &&
    tail -n 1 "$work/v.err" | grep -q ": 50 more warnings like 'unknown enabled probe id' not shown (dtsnap validate -a shows them all)$" &&
    grep -q ': 150 problems$' "$work/v.out"; then
	ok "validate: 100 warnings of a kind, then one line for the rest"
else
	not_ok "validate: 100 warnings of a kind, then one line for the rest" \
	    "exit $st, $n warnings" "$(tail -n 1 "$work/v.err")" "$(cat "$work/v.out")"
fi
"$DTSNAP" validate -a "$bad/diag-unknown-epid-150/input.dtsnap" >/dev/null \
    2>"$work/v.err"
st=$?
n=$(grep -c 'unknown enabled probe id 99' "$work/v.err")
if [ "$st" -eq 1 ] && [ "$n" -eq 150 ] && ! grep -q 'not shown' "$work/v.err"
then
	ok "validate -a: every warning"
else
	not_ok "validate -a: every warning" "exit $st, $n warnings"
fi
# standard input: the same messages, naming <stdin>
"$DTSNAP" validate - <"$bad/cut-in-buf/input.dtsnap" >"$work/v.out" \
    2>"$work/v.err"
st=$?
want="dtsnap: <stdin>: $(sed -n '1s/^dtconsume: input\.dtsnap: //p' "$bad/cut-in-buf/stderr")"
if [ "$st" -eq 1 ] && [ "$(cat "$work/v.err")" = "$want" ]; then
	ok "validate -: the located message of a capture cut short"
else
	not_ok "validate -: the located message of a capture cut short" \
	    "exit $st" "want: $want" "got:  $(cat "$work/v.err")"
fi
# no end item, stopping after a complete item (a recorder killed):
# dtconsume decodes it whole and says where it stops, exit 1; validate
# reports the same problem
"$DTSNAP" validate "$bad/no-end-item/input.dtsnap" >"$work/v.out" \
    2>"$work/v.err"
st=$?
want="dtsnap: $bad/no-end-item/input.dtsnap: item 23, offset 2177: capture ends without its end item: output stops at byte 2177, after item 23"
if [ "$st" -eq 1 ] && [ "$(cat "$work/v.err")" = "$want" ] &&
    grep -q ': 1 problem$' "$work/v.out"
then
	ok "validate: no end item is a located problem"
else
	not_ok "validate: no end item is a located problem" "exit $st" \
	    "want: $want" "$(cat "$work/v.err" "$work/v.out")"
fi

# the version line dtconsume and dt2json print, for dtsnap too
want="dtsnap $("$top_builddir/cmd/dtconsume" --version | sed 's/^[^ ]* //')"
for v in --version -V; do
	got=$("$DTSNAP" $v 2>&1)
	if [ $? -eq 0 ] && [ "$got" = "$want" ]; then
		ok "dtsnap $v"
	else
		not_ok "dtsnap $v" "got '$got', want '$want'"
	fi
done
for cmd in synth dump info validate convert; do
	if "$DTSNAP" $cmd --help | grep -q "^usage: dtsnap $cmd"; then
		ok "$cmd --help"
	else
		not_ok "$cmd --help"
	fi
done

finish
