#!/bin/sh
# The pictures in a real browser: headless Chromium (Debian's chromium,
# driven by playwright-core from npm) and speedscope (its npm package,
# served from the local install on 127.0.0.1; every other request is
# refused and fails the test).  browser.mjs does the checks:
#  - the flame graph of ustack_v2 and of flow (testdata/pictures) opens
#    without a script error, has the expected frames in its DOM and the
#    capture in its title; a click on a frame zooms it to the full width
#    with its ancestors faded and only its callees drawn; "Reset zoom"
#    brings every frame back; "Search" (the page's prompt, answered)
#    paints exactly the frames the expression matches and says the
#    share; screenshots of each state are taken;
#  - speedscope imports our speedscope file and our trace-event file of
#    each capture without an error and lists the expected frame names
#    (its Sandwich table, profile after profile); evented_v2's too
#    (entry/return with timestamps: the evented profile, and slices).  From a trace-event
#    file speedscope weighs each sample by the time to the next sample of
#    its thread, so the frames of a thread's last sample alone (flow's
#    zfs_read, last on CPU 0) get no weight and are not listed: they are
#    not expected there.
# Skips (77) with the reason when chromium, node or the npm packages are
# missing; DTC_BROWSER_REQUIRED=1 (make check-browser) makes that a
# failure.  Where the npm packages are: DTC_NODE_MODULES, else
# $top_builddir/browser/node_modules (.ci/run installs them there:
#   npm install --prefix BUILDDIR/browser playwright-core speedscope).
# DTC_SHOTS=dir keeps the screenshots (the README's picture is one).
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$top_builddir/cmd/dtconsume"
: "${DTC_NODE_MODULES:=$top_builddir/browser/node_modules}"
: "${DTC_CHROMIUM:=/usr/bin/chromium}"
export DTC_NODE_MODULES DTC_CHROMIUM

skip() {
	echo "# skipped: $1"
	[ "${DTC_BROWSER_REQUIRED:-0}" = 1 ] && exit 1
	exit 77
}
[ -x "$DTC_CHROMIUM" ] || skip "no $DTC_CHROMIUM (Debian: apt-get install chromium)"
command -v node >/dev/null 2>&1 || skip "no node (Debian: apt-get install nodejs)"
for m in playwright-core speedscope; do
	[ -d "$DTC_NODE_MODULES/$m" ] || skip "no $m in $DTC_NODE_MODULES (npm install --prefix $top_builddir/browser playwright-core speedscope)"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-browser.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
for c in ustack_v2 evented_v2; do
	cp "$top_srcdir/testdata/live/captures/$c/cap.dtsnap" \
	    "$work/$c.dtsnap" || exit 99
done
"$DTSNAP" synth "$top_srcdir/testdata/pictures/flow.json" \
    -o "$work/flow.dtsnap" || exit 99
cd "$work" || exit 99
for c in ustack_v2 flow evented_v2; do
	"$DTCONSUME" -f flamegraph $c.dtsnap >$c.svg 2>/dev/null &&
	"$DTCONSUME" -f speedscope $c.dtsnap >$c.speedscope.json 2>/dev/null &&
	"$DTCONSUME" -f trace-event $c.dtsnap >$c.trace.json 2>/dev/null ||
	    { echo "# dtconsume failed on $c"; exit 1; }
done
SS="$DTC_NODE_MODULES/speedscope/dist/release"
U='"liveprog`main+0xd7","liveprog`alpha+0x41","liveprog`beta+0x1d","libc.so.6`write+0x10"'
K='"kernel`sys_read+0x20","kernel`vn_read+0x10","zfs.ko`zfs_read+0x40"'
cat >ustack_v2.spec <<SPEC
{"svg":"ustack_v2.svg","shot":"$work/ustack_v2.png","titleHas":"ustack_v2.dtsnap",
 "frames":["all",$U],
 "zoom":"liveprog\`alpha+0x41","zoomKids":["liveprog\`beta+0x1d","libc.so.6\`write+0x10"],
 "search":"beta","matched":"Matched: 100.00% (2 frames)",
 "speedscope":"$SS",
 "imports":[{"file":"$work/ustack_v2.speedscope.json","frames":[$U]},
            {"file":"$work/ustack_v2.trace.json","frames":[$U]}]}
SPEC
# flow: zoom into vn_read (2 of 4 samples under it, zfs_read above it);
# search "zfs": one frame, 1 of 4 samples
cat >flow.spec <<SPEC
{"svg":"flow.svg","shot":"$work/flow.png","titleHas":"flow.dtsnap",
 "frames":["all",$K],
 "zoom":"kernel\`vn_read+0x10","zoomKids":["zfs.ko\`zfs_read+0x40"],
 "search":"zfs","matched":"Matched: 25.00% (1 frames)",
 "speedscope":"$SS",
 "imports":[{"file":"$work/flow.speedscope.json","frames":[$K,"vn_read","zfs_read"]},
            {"file":"$work/flow.trace.json","frames":["kernel\`sys_read+0x20","kernel\`vn_read+0x10"]}]}
SPEC
# evented_v2: entry/return only (no stacks): speedscope's evented
# profile, and the trace-event slices (speedscope builds its profile from
# B/E events when there are no samples)
cat >evented_v2.spec <<SPEC
{"shot":"$work/evented_v2.png","speedscope":"$SS",
 "imports":[{"file":"$work/evented_v2.speedscope.json","frames":["write","close"]},
            {"file":"$work/evented_v2.trace.json","frames":["write","close"]}]}
SPEC
rc=0
for c in ustack_v2 flow evented_v2; do
	echo "# $c"
	timeout 300 node "$top_srcdir/cmd/tests/browser.mjs" $c.spec >out 2>&1
	st=$?
	while IFS= read -r l; do
		case $l in
		"ok - "*) ok "$c: ${l#ok - }" ;;
		"not ok - "*) not_ok "$c: ${l#not ok - }" ;;
		*) echo "$l" ;;
		esac
	done <out
	[ $st -ne 0 ] && [ $nfail -eq 0 ] && not_ok "$c: browser.mjs exit $st"
	[ $st -ne 0 ] && rc=1
done
if [ -n "${DTC_SHOTS:-}" ]; then
	mkdir -p "$DTC_SHOTS" && cp ./*.png "$DTC_SHOTS"/ &&
	    echo "# screenshots in $DTC_SHOTS"
fi
finish
