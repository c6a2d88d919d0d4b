#!/bin/sh
# dtc_reader_consume (push) runs the record sets of a pass in a loop of its own
# instead of going through dtc_reader_next (pull) for every event; both must
# decode every capture alike.  fuzz_replay_container decodes each file
# pulled from memory, pulled from a pipe and pushed, through the text and
# JSON emitters, and aborts unless the output and the messages are the
# same byte for byte.  The files: every conformance and hand-derived case
# (built here), the damaged inputs of testdata/bad and the sample.
. "$(dirname "$0")/lib.sh"
REPLAY="$top_builddir/libdtconsume/tests/fuzz_replay_container"
need_dtsnap
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-pushpull.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

i=0
for j in $(cd "$top_srcdir/testdata" &&
    find conformance valid -name '*.json' | sort); do
	i=$((i + 1))
	# cases that cannot be captured (a "skip" file) may not synthesize
	"$DTSNAP" synth "$top_srcdir/testdata/$j" -o "$work/$i.dtsnap" \
	    2>/dev/null || rm -f "$work/$i.dtsnap"
done
nsynth=$(find "$work" -name '*.dtsnap' | wc -l)
if [ "$nsynth" -ge 190 ]; then
	ok "$nsynth captures synthesized from testdata/conformance and valid"
else
	not_ok "only $nsynth captures synthesized (expected 190 or more)"
fi
for f in "$top_srcdir"/testdata/bad/*/input.dtsnap; do
	i=$((i + 1))
	cp "$f" "$work/$i.dtsnap"
done
if [ -f "$top_builddir/testdata/samples/syscalls.dtsnap" ]; then
	cp "$top_builddir/testdata/samples/syscalls.dtsnap" "$work/sample.dtsnap"
fi
nall=$(find "$work" -name '*.dtsnap' | wc -l)
if "$REPLAY" "$work" >"$work/log" 2>&1; then
	ok "dtc_reader_next and dtc_reader_consume agree on $nall captures"
else
	not_ok "dtc_reader_next and dtc_reader_consume differ" "$(tail -n 20 "$work/log")"
fi
finish
