#!/bin/sh
# Conformance runner: every case under testdata/conformance/ is a synth
# description of what the kernel recorded for one script of the shared
# corpus, and the output dtrace(1) printed for it.  We build the capture,
# decode it, and compare as upstream's harness does (INDEX.md):
#   - stdout, then "-- @@stderr --" and stderr when stderr is not empty;
#   - the "matched N probes" notice is compile-time, not in a capture:
#     it is removed from the expected stderr;
#   - 0x... hex numbers become {ptr} on both sides;
#   - both sides sorted unless the script says @@nosort.
# A case directory holds: desc.json (or capture.dtsnap, a capture that
# `dtsnap record` made of the script on DTrace for Linux, for what synth
# cannot describe: print()'s CTF types), expected.r, case.d (the script, for
# @@nosort and reference), optional "args" (extra dtconsume arguments),
# optional "env" (NAME=value lines for dtconsume's environment, e.g. the
# TZ the script ran under) and optional "skip" (why the case cannot be
# represented by a capture).
# Prints one line per case and "N/M cases byte-exact"; fails when a case
# listed in testdata/conformance/PASSING no longer passes.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
DTSNAP="$top_builddir/cmd/dtsnap"
DTCONSUME="$top_builddir/cmd/dtconsume"
root="$top_srcdir/testdata/conformance"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-conf.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export TZ=UTC LC_ALL=C
total=0 pass=0 skip=0 regress=0
only="$1"

# print() needs GNU libctf in this build
have_ctf=0
grep -q '^#define HAVE_LIBCTF 1' "$top_builddir/config.h" 2>/dev/null && have_ctf=1

for desc in $(cd "$root" && find . -name desc.json -o -name capture.dtsnap |
    sort); do
	dir=${desc%/*}
	dir=${dir#./}
	[ -n "$only" ] && case "$dir" in *"$only"*) ;; *) continue ;; esac
	d="$root/$dir"
	if [ -f "$d/skip" ]; then
		skip=$((skip + 1))
		echo "SKIP $dir: $(head -n 1 "$d/skip")"
		continue
	fi
	if [ -f "$d/needs-ctf" ] && [ $have_ctf = 0 ]; then
		skip=$((skip + 1))
		echo "SKIP $dir: this build has no GNU libctf (print() types)"
		continue
	fi
	total=$((total + 1))
	w="$work/$(echo "$dir" | tr / _)"
	mkdir -p "$w"
	ok=1
	if [ -f "$d/capture.dtsnap" ]; then
		cp "$d/capture.dtsnap" "$w/snap.dtsnap"
	fi
	if [ ! -f "$d/capture.dtsnap" ] &&
	    ! "$DTSNAP" synth "$d/desc.json" -o "$w/snap.dtsnap" 2>"$w/synth.err"; then
		ok=0
		echo "FAIL $dir: synth failed: $(head -n 1 "$w/synth.err")"
	else
		args=""
		[ -f "$d/args" ] && args=$(cat "$d/args")
		envs=""
		[ -f "$d/env" ] && envs=$(grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$d/env")
		# shellcheck disable=SC2086
		env $envs _DTRACE_TESTING=t "$DTCONSUME" $args "$w/snap.dtsnap" \
		    >"$w/out" 2>"$w/err"
		cp "$w/out" "$w/got"
		if [ -s "$w/err" ]; then
			echo "-- @@stderr --" >>"$w/got"
			cat "$w/err" >>"$w/got"
		fi
		# the expected side: drop the compile-time "matched" notice
		awk '
			/^-- @@stderr --$/ { inerr = 1; hdr = $0; next }
			inerr && /^dtrace: (script|description) .* matched [0-9]+ probes?$/ { next }
			inerr { if (hdr != "") { print hdr; hdr = "" } print; next }
			{ print }
		' "$d/expected.r" >"$w/want"
		# an expected.r ending in a lone stderr marker has an empty stderr
		sed -e 's,0x[0-9a-f][0-9a-f]*,{ptr},g' "$w/got" >"$w/got.m"
		cp "$w/want" "$w/want.m"
		if ! grep -q '@@nosort' "$d/case.d" 2>/dev/null; then
			sort "$w/got.m" >"$w/got.s" && mv "$w/got.s" "$w/got.m"
			sort "$w/want.m" >"$w/want.s" && mv "$w/want.s" "$w/want.m"
		fi
		if cmp -s "$w/got.m" "$w/want.m"; then
			pass=$((pass + 1))
			echo "PASS $dir"
		else
			ok=0
			echo "FAIL $dir"
			if [ -n "$VERBOSE" ] || [ -n "$only" ]; then
				diff -u "$w/want.m" "$w/got.m" | head -n 40
			fi
		fi
	fi
	if [ $ok = 0 ] && grep -qx "$dir" "$root/PASSING" 2>/dev/null; then
		regress=$((regress + 1))
		echo "REGRESSION $dir (listed in testdata/conformance/PASSING)"
	fi
done

echo "$pass/$total cases byte-exact ($skip skipped)"
[ $regress -eq 0 ] || { echo "$regress regressions"; exit 1; }
exit 0
