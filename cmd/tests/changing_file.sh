#!/bin/sh
# changing_file.sh - a capture file that another process truncates or
# appends to while dtconsume reads it (dtsnap(5), A file that changes
# while it is read).
#
# dtconsume writes its output to a pipe that nobody reads yet, so it
# blocks once the pipe is full, long before it has read the whole (1 MB)
# capture: /proc/PID/io says how much it has read (rchar) and written
# (wchar), and the test waits until it has stopped writing.  Then the
# file is changed, behind the reader, and the pipe drained.  No timing
# is guessed, and the check is exact:
#   - truncated at byte T: exit 1 (no SIGBUS, no other signal), the
#     message "capture truncated while reading at byte T", and stdout
#     exactly what decoding a copy cut at T prints (everything before);
#   - appended to: exit 0, no message, and stdout exactly what the
#     capture printed before (the file as it was at open).
# Exit 0 pass, 1 fail, 77 when /proc/PID/io or the tools are missing.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
DTSNAP="$(cd "$top_builddir" && pwd)/cmd/dtsnap"
DTCONSUME="$(cd "$top_builddir" && pwd)/cmd/dtconsume"
[ -x "$DTSNAP" ] && [ -x "$DTCONSUME" ] || { echo "SKIP: build first"; exit 77; }
[ -r /proc/self/io ] || { echo "SKIP: no /proc/PID/io"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-change.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export LC_ALL=C
unset _DTRACE_TESTING
nfail=0 ntest=0

# 200 passes of 2 CPUs, 100 printf records each: about 1 MB of capture
# and 600 kB of output.
awk 'BEGIN {
	printf "{\"header\": {\"ncpu\": 2}, \"options\": {\"quiet\": \"set\"},\n"
	printf " \"probes\": [{\"id\": 1, \"provider\": \"syscall\", "
	printf "\"function\": \"read\", \"name\": \"entry\"}],\n"
	printf " \"eprobes\": [{\"epid\": 1, \"probe\": 1, \"recs\": [{\"printf\": "
	printf "\"rec %%d %%d %%d\\n\", \"args\": [4, 4, 4]}]}],\n"
	printf " \"passes\": [\n"
	for (p = 1; p <= 200; p++) {
		printf "  {\"bufs\": ["
		for (c = 0; c < 2; c++) {
			printf "%s{\"cpu\": %d, \"records\": [", c ? ", " : "", c
			for (k = 0; k < 100; k++)
				printf "%s{\"epid\": 1, \"data\": [[%d, %d, %d]]}",
				    k ? ", " : "", p, c, k
			printf "]}"
		}
		printf "]}%s\n", p < 200 ? "," : ""
	}
	printf " ], \"end\": {\"exit_status\": 0}}\n"
}' >"$work/desc.json"
"$DTSNAP" synth "$work/desc.json" -o "$work/orig.dtsnap" || exit 1
size=$(wc -c <"$work/orig.dtsnap")
"$DTCONSUME" "$work/orig.dtsnap" >"$work/orig.out" 2>"$work/orig.err"
[ $? -eq 0 ] && [ ! -s "$work/orig.err" ] ||
    { echo "FAIL: the intact capture does not decode cleanly"; exit 1; }

# io FIELD PID: a counter of /proc/PID/io (empty once the process is gone)
io() {
	awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/io" 2>/dev/null
}

# change CAPTURE HOW: run dtconsume on CAPTURE with its output blocked in
# a pipe, run HOW (a shell command) once it has stopped writing, then
# drain the pipe into $work/out; its status goes to $work/status, its
# stderr to $work/err, how much it had read to $work/read.
change() {
	rm -f "$work/pid" "$work/status"
	{
		sh -c 'echo $$ >"$1/pid"; exec "$2" "$3" 2>"$1/err"' sh \
		    "$work" "$DTCONSUME" "$1"
		echo $? >"$work/status"
	} | {
		while [ ! -s "$work/pid" ]; do sleep 0.05; done
		pid=$(cat "$work/pid")
		# written at least a pipe's worth, and no more for a while
		last=-1 same=0
		while [ "$same" -lt 5 ]; do
			w=$(io wchar "$pid")
			[ -n "$w" ] || break
			if [ "$w" = "$last" ] && [ "$w" -ge 65536 ]; then
				same=$((same + 1))
			else
				same=0
			fi
			last=$w
			sleep 0.1
		done
		io rchar "$pid" >"$work/read"
		eval "$2"
		cat >"$work/out"
	}
	while [ ! -s "$work/status" ]; do sleep 0.05; done
}

check() {
	ntest=$((ntest + 1))
	if [ -n "$2" ]; then
		nfail=$((nfail + 1))
		echo "not ok $ntest - $1: $2"
	else
		echo "ok $ntest - $1"
	fi
}

# -- truncated behind the reader
cut=$((size * 6 / 10))
cp "$work/orig.dtsnap" "$work/cap.dtsnap"
change "$work/cap.dtsnap" "truncate -s $cut '$work/cap.dtsnap'"
st=$(cat "$work/status")
read=$(cat "$work/read")
why=""
# the reader must not have got there before the truncation (it read
# less than the pipe let it; else the test proves nothing)
[ -n "$read" ] && [ "$read" -lt "$cut" ] ||
    why="$why it had read ${read:-?} bytes of $size before the truncation at $cut;"
[ "$st" -eq 1 ] || why="$why exit status $st (a signal is 128 + its number);"
want="dtconsume: $work/cap.dtsnap: item [0-9]*, offset $cut: capture truncated while reading at byte $cut"
grep -qx "$want" "$work/err" ||
    why="$why stderr: $(head -c 300 "$work/err");"
head -c "$cut" "$work/orig.dtsnap" >"$work/static.dtsnap"
"$DTCONSUME" "$work/static.dtsnap" >"$work/static.out" 2>/dev/null
cmp -s "$work/out" "$work/static.out" ||
    why="$why stdout is not what the capture cut at $cut prints ($(wc -l <"$work/out") lines, want $(wc -l <"$work/static.out"));"
[ "$(wc -l <"$work/out")" -gt 1000 ] ||
    why="$why only $(wc -l <"$work/out") lines before the truncation;"
check "truncated at byte $cut of $size while read (read $read bytes by then): $(wc -l <"$work/out") lines, then the message" "$why"

# -- appended to behind the reader: another copy of the capture
cp "$work/orig.dtsnap" "$work/cap.dtsnap"
change "$work/cap.dtsnap" "cat '$work/orig.dtsnap' >>'$work/cap.dtsnap'"
st=$(cat "$work/status")
read=$(cat "$work/read")
why=""
[ -n "$read" ] && [ "$read" -lt "$size" ] ||
    why="$why it had read ${read:-?} bytes of $size before the append;"
[ "$st" -eq 0 ] || why="$why exit status $st;"
[ -s "$work/err" ] && why="$why stderr: $(head -c 300 "$work/err");"
cmp -s "$work/out" "$work/orig.out" ||
    why="$why stdout is not what the capture printed at open;"
check "appended to while read: what it held at open is decoded" "$why"

echo "# $((ntest - nfail))/$ntest passed"
[ "$nfail" -eq 0 ]
