#!/bin/bash
# live_corpus.sh - the DTrace conformance corpus captured live: each case of
# ${CONFORMANCE_DIR:-$top_srcdir/../shared/conformance} (200 scripts of
# dtrace-utils' test/unittest with the .r upstream checks; see its
# INDEX.md) is recorded with `dtsnap record` on this machine, decoded with
# dtconsume, and compared with its .r as upstream's runtest.sh compares:
#   - the case runs as runtest.sh runs it: `-s tst.NAME.d` plus the
#     script's @@runtest-opts, `-c <trigger>` for a @@trigger (the
#     upstream test/triggers programs, found in $TRIGGER_DIR), and
#     _DTRACE_TESTING=t in the environment of the recorder and of dtconsume
#     (testing mode: no CPU/ID columns in non-quiet output); a .sh case
#     runs the D program of its here-document, under the TZ it exports;
#     testdata/conformance/<case>/env (NAME=value lines) is applied too;
#   - the text compared is dtconsume's stdout, then "-- @@stderr --" and
#     its stderr when that is not empty; for a case with a trigger, the
#     recorder's stderr lines that are not dtrace's ("dtrace: ...") or the
#     recorder's ("dtsnap...") are the trigger's own, which upstream's
#     harness saw on the same stream: they are appended to the stderr part;
#   - the .r's compile-time "dtrace: script ... matched N probes" notice is
#     removed (a capture does not carry it), as cmd/tests/conformance.sh does;
#   - tst.NAME.r.p, if executable, filters the text; then 0x... becomes
#     {ptr} and "at BPF pc N" becomes "at BPF pc NNN" on both sides;
#   - both sides are sorted unless the script says @@nosort.
# Cases that cannot run here are skipped, with the reason, from the one
# table below (skip_reason) or the rules after it.
#
# Environment: DTSNAP, DTCONSUME (as live.sh), CONFORMANCE_DIR, TRIGGER_DIR
# (default $DTRACE_UTILS/src/test/triggers, else
# /var/tmp/dtrace-utils/src/test/triggers), LIVE_SUBSET=N (first N cases
# in name order), LIVE_KEEP=dir (keep captures and outputs),
# CORPUS_TIMEOUT (seconds per case, default 30).  An argument runs only the
# cases whose path contains it.
#
# Output: "ok case", "DIFF case" (with at most 10 lines of diff),
# "SKIP case (reason)", then "N/M corpus cases byte-exact from live
# captures" (M = cases attempted).  This suite reports a figure: it exits 0
# whatever the figure, 77 when it cannot run at all (one line "SKIP: why"),
# 99 when the harness itself breaks.
# make check-live runs it with $(SHELL): come back to bash.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

dtsnap_env=${DTSNAP-}
dtconsume_env=${DTCONSUME-}
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
. "$top_srcdir/cmd/tests/lib.sh"
. "$top_srcdir/cmd/tests/livelib.sh"
DTSNAP=${dtsnap_env:-$top_builddir/cmd/dtsnap}
DTCONSUME=${dtconsume_env:-$top_builddir/cmd/dtconsume}

corpus=${CONFORMANCE_DIR:-$top_srcdir/../shared/conformance}
cases_meta="$top_srcdir/testdata/conformance"
if [ -z "${TRIGGER_DIR:-}" ]; then
	TRIGGER_DIR=${DTRACE_UTILS:-/var/tmp/dtrace-utils}/src/test/triggers
fi
timeout_s=${CORPUS_TIMEOUT:-30}
only=${1-}

# skip_reason CASE: why CASE cannot be captured live here (empty: it can).
skip_reason() {
	case $1 in
	actions/system/tst.system-*)
		echo "system(): dtrace printed the command's own output; dtconsume never runs commands" ;;
	options/tst.aggrate-slow)
		echo "timing by design: the .r depends on when 4.5 s aggregation snapshots fall (INDEX.md)" ;;
	printf/tst.ints)
		echo "upstream @@xfail on DTrace v2: its .r is Linux DTrace 1.x output (INDEX.md KD-6)" ;;
	esac
}

[ -d "$corpus" ] && [ -f "$corpus/INDEX.md" ] ||
	skip "no conformance corpus at $corpus"
live_workdir dtc-livecorpus
live_prereqs

# opt SCRIPT NAME: the value of upstream's "/* @@NAME: value */" tag.
opt() {
	sed -n "s,^/\\* @@$2: *\\(.*[^ ]\\) *\\*/\$,\\1,p" "$1" | head -n 1
}

# expected RFILE: the .r without the compile-time "matched" notice (and
# without the stderr marker when nothing else is left after it).
expected() {
	awk '
		/^-- @@stderr --$/ { inerr = 1; hdr = $0; next }
		inerr && /^dtrace: (script|description) .* matched [0-9]+ probes?$/ { next }
		inerr { if (hdr != "") { print hdr; hdr = "" } print; next }
		{ print }
	' "$1"
}

normalize() {
	sed -e 's,0x[0-9a-f][0-9a-f]*,{ptr},g' -e 's,at BPF pc [1-9][0-9]*,at BPF pc NNN,'
}

cases=$(cd "$corpus" && find . \( -name 'tst.*.d' -o -name 'tst.*.sh' \) |
    sed -e 's,^\./,,' | sort)
if [ -n "$only" ]; then
	cases=$(echo "$cases" | grep -F -- "$only")
fi
if [ -n "${LIVE_SUBSET:-}" ]; then
	cases=$(echo "$cases" | head -n "$LIVE_SUBSET")
fi

total=0 same=0 nskip=0
for file in $cases; do
	c=${file%.*}
	src="$corpus/$file"
	r="$corpus/$c.r"
	w="$work/$(echo "$c" | tr / _)"
	mkdir -p "$w"

	why=$(skip_reason "$c")
	[ -z "$why" ] && [ ! -f "$r" ] && why="no .r"
	trigger=$(opt "$src" trigger)
	[ "$trigger" = none ] && trigger=""
	if [ -z "$why" ] && [ -n "$trigger" ] &&
	    [ ! -x "$TRIGGER_DIR/${trigger%% *}" ]; then
		why="needs the upstream trigger ${trigger%% *} (set TRIGGER_DIR)"
	fi
	if [ -z "$why" ] && [ -x "$r.p" ]; then
		interp=$(head -n 1 "$r.p" | sed -e 's,^#! *,,' -e 's, .*,,')
		[ -x "$interp" ] || why="its .r.p needs $interp"
	fi
	if [ -z "$why" ] && grep -q -E '(^|[^a-z])fbt:' "$src"; then
		why="fbt probes: no kprobes on this kernel"
	fi
	if [ -n "$why" ]; then
		nskip=$((nskip + 1))
		echo "SKIP $c ($why)"
		rm -rf "$w"
		continue
	fi

	# the environment: testing mode, TZ, the case's env file
	envs=(_DTRACE_TESTING=t TZ=${TZ:-UTC})
	if [ "${file##*.}" = sh ]; then
		# the D program of the here-document, and the TZ it exports
		sed -n '/<<EOF$/,/^EOF$/p' "$src" | sed -e '1d' -e '$d' >"$w/case.d"
		d="$w/case.d"
		tz=$(sed -n 's/^export TZ=\(.*\)$/\1/p' "$src" | head -n 1)
		[ -n "$tz" ] && envs+=("TZ=$tz")
	else
		d=$src
	fi
	if [ -f "$cases_meta/$c/env" ]; then
		while IFS= read -r l; do
			envs+=("$l")
		done < <(grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$cases_meta/$c/env")
	fi
	ropts=$(opt "$src" runtest-opts)
	cargs=()
	[ -n "$trigger" ] && cargs=(-c "$TRIGGER_DIR/$trigger")

	total=$((total + 1))
	# shellcheck disable=SC2086
	(cd "$w" && env "${envs[@]}" timeout -k 10 -s INT "$timeout_s" \
	    "$DTSNAP" record --tee - -o "$w/cap.dtsnap" \
	    -s "$d" $ropts ${cargs[@]+"${cargs[@]}"} \
	    >"$w/tee.out" 2>"$w/tee.err" </dev/null)
	rc=$?

	why=$(grep -m 1 -E 'failed to compile|does not match any probes|could not enable' "$w/tee.err")
	if [ ! -s "$w/cap.dtsnap" ] && [ -n "$why" ]; then
		# dtrace itself cannot run it on this kernel (a missing
		# symbol or probe): not a case the decoder can be judged on
		total=$((total - 1))
		nskip=$((nskip + 1))
		echo "SKIP $c (dtrace cannot run it here: ${why#dtrace: })"
		continue
	fi
	if [ ! -s "$w/cap.dtsnap" ]; then
		echo "DIFF $c"
		echo "    record failed (exit $rc): $(grep -v '^$' "$w/tee.err" | head -n 1)"
	else
		env "${envs[@]}" "$DTCONSUME" "$w/cap.dtsnap" >"$w/dec.out" 2>"$w/dec.err"
		cp "$w/dec.out" "$w/got"
		: >"$w/trig.err"
		if [ -n "$trigger" ]; then
			grep -v -E '^(dtrace: |dtsnap)' "$w/tee.err" >"$w/trig.err"
		fi
		if [ -s "$w/dec.err" ] || [ -s "$w/trig.err" ]; then
			echo "-- @@stderr --" >>"$w/got"
			cat "$w/dec.err" "$w/trig.err" >>"$w/got"
		fi
		if [ -x "$r.p" ]; then
			"$r.p" <"$w/got" >"$w/got.p" && mv "$w/got.p" "$w/got"
		fi
		normalize <"$w/got" >"$w/got.m"
		expected "$r" | normalize >"$w/want.m"
		if ! grep -q '@@nosort' "$d"; then
			sort "$w/got.m" >"$w/got.s" && mv "$w/got.s" "$w/got.m"
			sort "$w/want.m" >"$w/want.s" && mv "$w/want.s" "$w/want.m"
		fi
		if cmp -s "$w/got.m" "$w/want.m"; then
			same=$((same + 1))
			echo "ok $c"
		else
			echo "DIFF $c"
			diff -u --label "$c.r" --label dtconsume "$w/want.m" "$w/got.m" |
			    head -n 10 | sed -e 's/^/    /'
		fi
	fi
	if [ -n "${LIVE_KEEP:-}" ]; then
		mkdir -p "$LIVE_KEEP/corpus/$(dirname "$c")"
		rm -rf "$LIVE_KEEP/corpus/$c"
		cp -pr "$w" "$LIVE_KEEP/corpus/$c"
	fi
	rm -rf "$w"
done

echo "$same/$total corpus cases byte-exact from live captures"
exit 0
