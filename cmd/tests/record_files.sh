#!/bin/bash
# record_files.sh - what dtsnap record leaves on disk (dtsnap(1),
# RECORDING IN PRODUCTION), against the live kernel:
#  - the -c command inherits neither the capture nor the tee: a child that
#    writes to fd 3 and 4 cannot reach them (issue 26 item 7);
#  - a failed recording leaves an existing -o FILE byte for byte, and no
#    temporary file (item 8);
#  - -o and --tee never follow a symbolic link planted in a sticky
#    directory: refused, the link's target intact (item 10);
#  - --max-size stops cleanly: exit 3, a message, the end item written,
#    and the decode equals the tee (dtrace's own output of the run);
#  - SIGKILL and a full disk (a small tmpfs, mounted here) leave a capture
#    whose decode is a prefix of the run's numbered lines, with a located
#    warning that the end item is missing; ENOSPC names the file, exit 1.
# Each case prints its figure.  Needs root, BPF, tracefs and a dtsnap built
# --with-libdtrace; skips (77) saying why otherwise.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/livelib.sh"
: "${DTSNAP:=$top_builddir/cmd/dtsnap}"
: "${DTCONSUME:=$top_builddir/cmd/dtconsume}"

live_workdir record_files
live_prereqs
cd "$work" || exit 99
mnt=
cleanup_mnt() {
	[ -n "$mnt" ] && mountpoint -q "$mnt" && umount "$mnt"
}

# A numbered line every millisecond (tick-1ms fires on one CPU at a time,
# so the numbers are consecutive in what dtrace prints).
cat >seq.d <<'EOF'
#pragma D option quiet
#pragma D option switchrate=20hz
tick-1ms
{
	printf("%d the quick brown fox jumps over the lazy dog, again and again\n",
	    i++);
}
EOF

# numbered FILE: the count of lines, or "bad" unless they read 0, 1, ...
# (blank lines aside: dtrace ends its output with one)
numbered() {
	awk '/^$/ { next } $1 != n++ { bad = 1; exit }
	    END { print bad ? "bad" : n + 0 }' "$1"
}

# --- 1. the -c command cannot write into the capture or the tee
cat >child.sh <<'EOF'
#!/bin/sh
echo child-was-here >&3
echo child-was-here >&4
exit 0
EOF
chmod +x child.sh
timeout -s INT 60 "$DTSNAP" record -o fd.dtsnap --tee fd.tee -c ./child.sh \
    -n 'syscall::exit_group:entry /pid == $target/ { trace(pid > 0); }' \
    >fd.out 2>fd.err
rc=$?
"$DTCONSUME" fd.dtsnap >fd.dec 2>fd.decerr; drc=$?
if [ $rc = 0 ] && ! grep -q child-was-here fd.dtsnap fd.tee &&
    grep -q '3: Bad file descriptor' fd.err && [ $drc = 0 ] &&
    [ ! -s fd.decerr ] && cmp -s fd.dec fd.tee; then
	ok "-c child: fd 3 and 4 closed in it, capture decodes as the tee"
else
	not_ok "-c child inherits the capture or the tee" "record $rc, decode $drc" \
	    "$(cat fd.err fd.decerr)"
fi

# --- 2. a failed recording leaves FILE as it was
printf 'not a capture, but mine\n' >keep.dtsnap
cp keep.dtsnap keep.orig
"$DTSNAP" record -o keep.dtsnap -n 'nosuchprovider:::' >/dev/null 2>keep.err
rc=$?
left=$(ls -A | grep '^\.keep' | head -n 1)
if [ $rc = 1 ] && cmp -s keep.dtsnap keep.orig && [ -z "$left" ]; then
	ok "failed record: existing FILE intact, no temporary file"
else
	not_ok "failed record" "exit $rc, left '$left'" "$(cat keep.err)"
fi

# --- 3. planted symbolic links in a sticky directory
mkdir -m 1777 sticky
echo victim >victim
cp victim victim.orig
ln -s "$work/victim" sticky/cap.dtsnap
ln -s "$work/victim" sticky/tee.out
"$DTSNAP" record -o sticky/cap.dtsnap -n 'BEGIN { exit(0); }' 2>sl1.err
rc1=$?
"$DTSNAP" record -o sticky/ok.dtsnap --tee sticky/tee.out \
    -n 'BEGIN { exit(0); }' 2>sl2.err
rc2=$?
if [ $rc1 = 1 ] && [ $rc2 = 1 ] && cmp -s victim victim.orig &&
    [ -L sticky/cap.dtsnap ] && [ -L sticky/tee.out ] &&
    grep -q 'cannot write sticky/cap.dtsnap: it is a symbolic link' sl1.err &&
    grep -q 'cannot write sticky/tee.out: it is a symbolic link' sl2.err &&
    [ ! -e sticky/ok.dtsnap ]; then
	ok "planted symlinks for -o and --tee: refused, target intact"
else
	not_ok "planted symlinks" "exit $rc1/$rc2" "$(cat sl1.err sl2.err)"
fi

# --- 4. --max-size: a clean stop
limit=262144
timeout -s INT 120 "$DTSNAP" record --max-size 256K -o max.dtsnap \
    --tee max.tee -s seq.d 2>max.err
rc=$?
size=$(stat -c %s max.dtsnap 2>/dev/null || echo 0)
"$DTCONSUME" max.dtsnap >max.dec 2>max.decerr; drc=$?
n=$(numbered max.dec)
if [ $rc = 3 ] &&
    grep -q "max.dtsnap: stopped at --max-size (262144 bytes)" max.err &&
    "$DTSNAP" info max.dtsnap | grep -q '^end  *exit status' &&
    [ $drc = 0 ] && [ ! -s max.decerr ] && cmp -s max.dec max.tee &&
    [ "$n" != bad ] && [ "$n" -gt 0 ] && [ "$size" -ge $limit ]; then
	ok "--max-size 256K: exit 3, end item, decode == tee"
else
	not_ok "--max-size" "exit $rc, decode $drc, $n lines" \
	    "$(cat max.err max.decerr)"
fi
echo "# figure: --max-size 262144: capture $size bytes" \
    "($((size - limit)) past the limit: the passes after it and the end)," \
    "$n records"

# --- 5. SIGKILL: the capture decodes up to its last flushed item
"$DTSNAP" record -o kill.dtsnap --tee kill.tee -s seq.d 2>kill.err &
pid=$!
# 4 s of recording once the capture has its name (its first item)
for _ in $(seq 120); do
	[ -e kill.dtsnap ] && break
	sleep 0.5
done
sleep 4
kill -KILL $pid
wait $pid 2>/dev/null
"$DTCONSUME" kill.dtsnap >kill.dec 2>kill.decerr; drc=$?
n=$(numbered kill.dec)
nt=$(numbered kill.tee)
if [ "$n" != bad ] && [ "$n" -gt 100 ] && [ "$nt" != bad ] &&
    grep -q 'end item' kill.decerr && grep -q 'kill.dtsnap' kill.decerr; then
	ok "SIGKILL: decode is the run's prefix, with a located warning"
else
	not_ok "SIGKILL" "decode exit $drc, $n lines (tee $nt)" \
	    "$(head -n 3 kill.decerr)"
fi
echo "# figure: SIGKILL after 4 s: $n records decoded, $nt in the tee," \
    "$(stat -c %s kill.dtsnap) bytes; decode exit $drc:" \
    "$(head -n 1 kill.decerr)"

# --- 6. a full disk: a 512 KiB tmpfs (the decoder says where the capture
# was cut: the disk filled inside an item)
mkdir small
if mount -t tmpfs -o size=512k tmpfs small 2>/dev/null; then
	mnt=$work/small
	trap 'cleanup_mnt; kill $spinners 2>/dev/null; rm -rf "$work"' EXIT
	timeout -s INT 120 "$DTSNAP" record -o small/full.dtsnap \
	    --tee full.tee -s seq.d 2>full.err
	rc=$?
	cp small/full.dtsnap full.dtsnap
	"$DTCONSUME" full.dtsnap >full.dec 2>full.decerr; drc=$?
	n=$(numbered full.dec)
	if [ $rc = 1 ] && [ $rc != 124 ] &&
	    grep -q 'small/full.dtsnap: .*No space left on device' full.err &&
	    [ "$n" != bad ] && [ "$n" -gt 0 ] &&
	    grep -Eq 'end item|cut short at byte' full.decerr; then
		ok "ENOSPC: exit 1 naming the file; decode is the run's prefix"
	else
		not_ok "ENOSPC" "record exit $rc, decode $drc, $n lines" \
		    "$(cat full.err; head -n 3 full.decerr)"
	fi
	echo "# figure: ENOSPC on 512 KiB: $(stat -c %s full.dtsnap) bytes," \
	    "$n records decoded; recorder said: $(grep -m1 space full.err)"
	umount small && mnt=
else
	echo "# ENOSPC case skipped: cannot mount a tmpfs here"
fi
finish
