#!/bin/bash
# dtsnap dof against dtrace-utils itself (make check-live): for each
# testdata/dof/usdt-*.d, the program built with its dtrace -G object is
# started (it waits in pause()), and what `dtrace -l -v` lists of its USDT
# probes is compared, probe by probe, with what `dtsnap dof -f json` read
# of the object: provider (the definition's name and the pid), function,
# name and the argument types (translated ones: what dtrace -l -v shows).
# DTrace for Linux registers a process's USDT probes through dtprobed
# (a CUSE device, /dev/dtrace/helper): without it, or without root or
# dtrace, the test skips saying which.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/livelib.sh"
live_root
live_built "$DTSNAP"
live_dtrace
command -v cc >/dev/null || skip "no C compiler"
command -v "${PYTHON3:-python3}" >/dev/null || skip "no python3"
[ -e /dev/dtrace/helper ] ||
	skip "no /dev/dtrace/helper: dtprobed (DTrace for Linux's USDT" \
	    "daemon, on CUSE) is not running, so no process can register" \
	    "USDT probes$(zcat /proc/config.gz 2>/dev/null | grep -qx '# CONFIG_CUSE is not set' && echo ': dtprobed needs CUSE, and this kernel has "# CONFIG_CUSE is not set" (/proc/config.gz)')"
[ -r "$(dirname "$DTRACE")/env" ] && . "$(dirname "$DTRACE")/env"
live_tmpdir dtc-livedof
# -no-pie: dtrace -G turns the probe calls into R_X86_64_NONE relocations
# against absolute symbols, which ld refuses in a position-independent
# executable
for t in "$top_srcdir"/testdata/dof/usdt-*.d; do
	name=$(basename "$t" .d)
	cp "$t" "$work/$name.d"
	if ! (cd "$work" && "$DTRACE" -h -s "$name.d" -o "$name.h" &&
	    cc -c -o "$name.o" -I. -x c "$top_srcdir/testdata/dof/$name.c" &&
	    "$DTRACE" -G -s "$name.d" -o "$name-dof.o" "$name.o" &&
	    cc -no-pie -o "$name" "$name.o" "$name-dof.o") >"$work/$name.log" 2>&1
	then
		not_ok "$name: build" "$(tail -n 3 "$work/$name.log")"
		continue
	fi
	"$work/$name" wait &
	pid=$!
	live_pids="$live_pids $pid"
	sleep 1
	provs=$(sed -n 's/^provider[[:space:]]*\([A-Za-z_0-9]*\).*/\1/p' "$t")
	: >"$work/$name.list"
	for p in $provs; do
		"$DTRACE" -l -v -n "$p$pid:::" >>"$work/$name.list" \
		    2>"$work/$name.lerr"
	done
	kill "$pid" 2>/dev/null
	"$DTSNAP" dof -f json "$work/$name-dof.o" >"$work/$name.json"
	if why=$("${PYTHON3:-python3}" - "$work/$name.list" "$work/$name.json" \
	    "$pid" 2>&1 <<'PY'
import json, re, sys
listed, cur = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"\s*\d+\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", line)
    if m and m.group(1) != "PROVIDER":
        cur = (m.group(1), m.group(3), m.group(4))
        listed[cur] = []
        continue
    m = re.match(r"\s+args\[(\d+)\]: (.*)$", line)
    if m and cur:
        listed[cur].append(re.sub(r"\s+", "", m.group(2)))
got = {}
for p in json.load(open(sys.argv[2]))["probes"]:
    key = (p["provider"] + sys.argv[3], p["function"], p["name"])
    got[key] = [re.sub(r"\s+", "", t) for t in p["translated_args"]]
if not listed:
    sys.exit("dtrace -l -v listed nothing")
if listed != got:
    sys.exit("dtrace: %r\ndtsnap: %r" % (sorted(listed.items()),
                                         sorted(got.items())))
print("%d probes" % len(got))
PY
	); then
		ok "$name: dtrace -l -v and dtsnap dof agree ($why)"
	else
		not_ok "$name: dtrace -l -v and dtsnap dof agree" "$why" \
		    "$(head -n 3 "$work/$name.lerr")"
	fi
done
finish
