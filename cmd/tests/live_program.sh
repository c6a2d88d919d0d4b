#!/bin/bash
# live_program.sh - `dtsnap program -S` against the real `dtrace -S`
# (issue 23): for every script of testdata/live/scripts/ and of the
# conformance corpus (CONFORMANCE_DIR, when present), dtrace-utils'
# dtrace(1) compiles it with -S -e (the clause listing on its stderr,
# nothing run) and `dtsnap record` runs it with the same options into a
# capture; `dtsnap program -S` of the capture must be byte for byte that
# listing.  A script that does not compile here (dtrace -S -e fails) is
# counted apart, as is one the recorder could not start (no capture).
#
# A script run with a command (@@cmd: of the live scripts, @@trigger:
# of the corpus) names that process as $target, and the code generator
# compiles its pid into the clause (`mov %r7, PID` before the compare of
# `pid == $target`, and the provider of pid$target probes): dtrace -S
# and the recorder run with -c would compile two pids.  Both are given
# instead -p of ONE process the test starts for the case (liveprog
# lingering: it has the functions the pid$target probes name), so both
# compile the same $target; -c and -p differ only in how that process
# was obtained, which the compiler never sees.
#
# No difference is explained away: any DIFF fails the test.  The 49
# there were (all 18 live scripts and all 31 corpus cases run with a
# command, in the run of 241/290) were each that pid and nothing else:
# with -p all 49 are identical.
#
# Output: "ok NAME", "DIFF NAME" with at most 10 lines of diff, "SKIP
# NAME (why)", then "N/M byte-identical" (M: scripts that compiled and
# were recorded) and the differing names.  Exit 0 when all M are
# identical, 1 otherwise, 77 (printing why) without root, BPF, libdtrace
# or dtrace(1).
#
# Environment: DTSNAP, DTCONSUME (as live.sh), DTRACE (default
# /var/tmp/dtrace-utils/dtrace), CONFORMANCE_DIR, PROGRAM_KEEP=dir keeps
# each script's capture and both listings, PROGRAM_SUBSET=N runs the
# first N cases only.  Arguments run only the scripts whose name
# contains one of them.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

. "$(dirname "$0")/livelib.sh"
export TZ=${TZ:-UTC}

livedir="$top_srcdir/testdata/live"
corpus=${CONFORMANCE_DIR:-$top_srcdir/../shared/conformance}
only=("$@")

live_dtrace
live_workdir dtc-liveprog
live_prereqs
if ! "$DTSNAP" program --help >/dev/null 2>&1; then
	skip "$DTSNAP has no program command"
fi

progdir="$work/prog"
mkdir -p "$progdir"
for c in "$livedir"/prog/*.c; do
	[ -f "$c" ] || continue
	cc -O0 -fno-omit-frame-pointer -o "$progdir/$(basename "$c" .c)" \
	    "$c" 2>/dev/null || echo "# cannot build $c"
done

# tag SCRIPT NAME: "/* @@NAME: value */" of SCRIPT
tag() {
	sed -n "s,^/\\* @@$2: *\\(.*[^ ]\\) *\\*/\$,\\1,p" "$1" | head -n 1
}

# the cases: label, script path, flags and the command it is run with
# (only whether there is one matters here), separated by US (\037): a
# tab would not do, since read folds empty fields between tabs
list_cases() {
	local f s cmd
	for f in "$livedir"/scripts/*.d; do
		cmd=$(tag "$f" cmd)
		printf 'live/%s\037%s\037%s\037%s\n' "$(basename "$f" .d)" "$f" \
		    "$(tag "$f" flags)" "$cmd"
	done
	[ -d "$corpus" ] && [ -f "$corpus/INDEX.md" ] || {
		echo "# no conformance corpus at $corpus: live scripts only" >&2
		return 0
	}
	(cd "$corpus" && find . -name 'tst.*.d' | sed -e 's,^\./,,' | sort) |
	while read -r s; do
		cmd=$(tag "$corpus/$s" trigger)
		[ "$cmd" = none ] && cmd=
		printf 'corpus/%s\037%s\037%s\037%s\n' "${s%.d}" "$corpus/$s" \
		    "$(tag "$corpus/$s" runtest-opts)" "$cmd"
	done
}

# untarget: end the case's process, if it has one
untarget() {
	[ -n "$tpid" ] || return 0
	kill "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	tpid='' live_pids=''
}

total=0 same=0 nocomp=0 norec=0 ncase=0
differing=
while IFS=$'\037' read -r name script flags cmd; do
	if [ ${#only[@]} -gt 0 ]; then
		for o in "${only[@]}"; do
			[ "${name#*"$o"}" != "$name" ] && break
			o=
		done
		[ -n "$o" ] || continue
	fi
	ncase=$((ncase + 1))
	[ -n "${PROGRAM_SUBSET:-}" ] && [ $ncase -gt "$PROGRAM_SUBSET" ] && break
	w="$work/$(echo "$name" | tr / _)"
	mkdir -p "$w"
	cargs=()
	tpid=
	if [ -n "$cmd" ]; then
		if [ ! -x "$progdir/liveprog" ]; then
			echo "SKIP $name (it names a process, and liveprog, the one that stands for it, did not build)"
			rm -rf "$w"
			continue
		fi
		# lingers past both runs (each at most 60 s + 10 + 40)
		"$progdir/liveprog" linger 600000 &
		tpid=$!
		live_pids=$tpid
		cargs=(-p "$tpid")
	fi
	# shellcheck disable=SC2086
	(cd "$w" && _DTRACE_TESTING=t timeout -k 10 -s INT 60 "$DTRACE" \
	    -S -e $flags -s "$script" ${cargs[@]+"${cargs[@]}"} \
	    >/dev/null 2>"$w/dtrace.S" </dev/null)
	if [ $? -ne 0 ]; then
		untarget
		nocomp=$((nocomp + 1))
		echo "SKIP $name (does not compile here: $(grep -m 1 . "$w/dtrace.S" | cut -c 1-100))"
		rm -rf "$w"
		continue
	fi
	# only the program item is wanted: it is written as tracing starts,
	# and the run is interrupted (SIGINT, as ^C) as soon as `dtsnap
	# program` reads it from the growing capture, rather than after a
	# fixed time that a loaded machine may need just to start
	# shellcheck disable=SC2086
	(cd "$w" && _DTRACE_TESTING=t exec timeout -k 10 -s INT 60 \
	    "$DTSNAP" record -o "$w/cap.dtsnap" $flags -s "$script" \
	    ${cargs[@]+"${cargs[@]}"} >/dev/null 2>"$w/rec.err" </dev/null) &
	rpid=$!
	while kill -0 "$rpid" 2>/dev/null; do
		if "$DTSNAP" program "$w/cap.dtsnap" >/dev/null 2>&1; then
			kill -INT "$rpid" 2>/dev/null
			break
		fi
		sleep 0.3
	done
	wait "$rpid" 2>/dev/null
	untarget
	if [ ! -s "$w/cap.dtsnap" ]; then
		norec=$((norec + 1))
		echo "SKIP $name (compiles, but dtsnap record did not start: $(grep -m 1 . "$w/rec.err" | cut -c 1-100))"
		rm -rf "$w"
		continue
	fi
	total=$((total + 1))
	"$DTSNAP" program -S "$w/cap.dtsnap" >"$w/dtsnap.S" 2>"$w/program.err"
	if cmp -s "$w/dtrace.S" "$w/dtsnap.S"; then
		same=$((same + 1))
		echo "ok $name"
	else
		differing="$differing $name"
		echo "DIFF $name"
		diff -u --label 'dtrace -S' --label 'dtsnap program -S' \
		    "$w/dtrace.S" "$w/dtsnap.S" | head -n 10 | sed -e 's/^/    /'
		head -n 2 "$w/program.err" | sed -e 's/^/    /'
	fi
	if [ -n "${PROGRAM_KEEP:-}" ]; then
		mkdir -p "$PROGRAM_KEEP/$name"
		cp -p "$w"/* "$PROGRAM_KEEP/$name/" 2>/dev/null
	fi
	rm -rf "$w"
done < <(list_cases)

echo "$same/$total byte-identical (dtsnap program -S against dtrace -S;" \
    "$nocomp scripts do not compile here, $norec compiled but were not recorded)"
[ -n "$differing" ] && echo "differing:$differing"
[ "$total" -gt 0 ] || skip "no script compiled here"
[ "$same" -eq "$total" ] || exit 1
exit 0
