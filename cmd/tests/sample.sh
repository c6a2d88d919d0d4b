#!/bin/sh
# dtsnap info and dump on the bundled sample capture, against values
# worked out by hand from testdata/samples/syscalls.json and the kernel's
# layout rules:
#  - CPU 0's first buffer starts with the BEGIN record (epid 1: header 12
#    bytes + an 8-byte printf record at 16 = 24 bytes), then three
#    syscall-return records (epids 17, 17, 13) of 160 bytes each:
#    header 12, execname string (strsize 64, 8-aligned) at 16, pid
#    (4 bytes) at 80, probefunc string at 88 (84 rounded up to 8),
#    the uint64 delta at 152; 8-aligned starts need no EPIDNONE padding:
#    offsets 0, 24 (0x18), 184 (0xb8), 344 (0x158);
#  - the pid 2210 of the first one is a2 08 00 00 (little-endian);
#  - the timestamps are the description's "ts".
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
DTSNAP="$top_builddir/cmd/dtsnap"
SAMPLE="$top_builddir/testdata/samples/syscalls.dtsnap"
[ -f "$SAMPLE" ] || { echo "no sample capture"; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-sample.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail=0
check() {   # $1: what; $2: expected line (fixed string) in $work/out
	if grep -qxF -- "$2" "$work/out"; then
		echo "ok - $1"
	else
		echo "not ok - $1: no line '$2'"
		fail=$((fail + 1))
	fi
}
"$DTSNAP" dump "$SAMPLE" >"$work/out" || { echo "dump failed"; exit 1; }
check "BEGIN record at 0" "  cpu 0 offset 0x0000: epid 1, timestamp 1734912031932, size 24 (dtrace:::BEGIN)"
check "its printf record" "      rec 0 offset 16 size 8 PRINTF: 00 00 00 00 00 00 00 00"
check "ioctl record at 24" "  cpu 0 offset 0x0018: epid 17, timestamp 1734914031210, size 160 (syscall:freebsd:ioctl:return)"
check "pid record at 80" "      rec 2 offset 80 size 4 PRINTF: a2 08 00 00"
check "second ioctl at 184" "  cpu 0 offset 0x00b8: epid 17, timestamp 1734914677017, size 160 (syscall:freebsd:ioctl:return)"
check "write at 344" "  cpu 0 offset 0x0158: epid 13, timestamp 1734915754306, size 160 (syscall:freebsd:write:return)"
"$DTSNAP" info "$SAMPLE" >"$work/out" || { echo "info failed"; exit 1; }
check "info header" "host         web01.example.org (freebsd 14.1-RELEASE), little-endian LP64, 4 CPUs, dt_act_base 55"
check "info passes" "passes       5"
check "info ERROR probe" "    3     dtrace                                                     ERROR"
"$DTSNAP" validate "$SAMPLE" >"$work/out" 2>&1 || { echo "not ok - validate"; fail=$((fail + 1)); }
# -f none writes only its totals: the 3003 firings dtsnap info counts
# above (its own walk of the buffers), and 3005 records, what the
# "records" arrays of dt2json's probe lines add up to (BEGIN's printf,
# 3000 syscall returns' printf, tick-5s's exit, END's printf and two
# printa)
"$top_builddir/cmd/dtconsume" -f none "$SAMPLE" >"$work/out" 2>&1 ||
    { echo "not ok - dtconsume -f none"; fail=$((fail + 1)); }
check "none totals" "1 captures, 3003 probe firings, 3005 records, 0 aggregation printings (0 rows), 0 drops, 0 errors, 0 notices"
echo "$fail failed"
[ $fail -eq 0 ]
