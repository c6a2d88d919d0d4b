#!/bin/sh
# -f perfetto (dtconsume(1), PICTURES): Perfetto's protobuf trace.
#  1. formats/perfetto_trace.proto has upstream's field numbers and types:
#     every declaration against the table below, written by hand from
#     perfetto's protos/perfetto/trace/*.proto (github google/perfetto),
#     both ways (a field missing from either side fails);
#  2. the traces of three captures (those of pictures.sh) decode with
#     protoc --decode=perfetto.protos.Trace, and the decoded text equals
#     testdata/pictures/*.perfetto.txt;
#  3. they carry what -f trace-event writes (perfetto_compare.py: the same
#     tracks, events in the same order with the same names, times and
#     args, counters, headers), and the comparison fails on a changed
#     timestamp;
#  4. a cut capture: reported (file, item, offset), exit 1, and what was
#     written still decodes as a Trace.
# Perfetto's own trace_processor (python3 perfetto) is not in Debian:
# not used.  Skips without -f perfetto (built with protobuf-c only),
# protoc (protobuf-compiler) or python3.
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$top_builddir/cmd/dtconsume"
PY=${PYTHON3:-python3}
T="$top_srcdir/testdata/pictures"
PROTO="$top_srcdir/formats/perfetto_trace.proto"
: "${PROTOC:=$(command -v protoc)}"

if ! "$DTCONSUME" --help 2>&1 | grep -q '^ *perfetto '; then
	echo "# -f perfetto not built (configure found no libprotobuf-c/protoc-c: libprotobuf-c-dev, protobuf-c-compiler)"
	exit 77
fi
if [ -z "$PROTOC" ] || [ ! -x "$PROTOC" ]; then
	echo "# no protoc (protobuf-compiler): nothing to decode the traces with"
	exit 77
fi
if ! command -v "$PY" >/dev/null 2>&1; then
	echo "# no python3: cannot compare with -f trace-event"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-perfetto.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# 1. upstream's numbers: message.field type number (enum values: type
# "enum"), from protos/perfetto/trace/trace.proto, trace_packet.proto,
# track_event/{track_event,debug_annotation,track_descriptor,
# process_descriptor,thread_descriptor,counter_descriptor}.proto,
# interned_data/interned_data.proto, profiling/profile_common.proto
sort >"$work/upstream" <<'EOF'
Trace.packet TracePacket 1
TracePacket.timestamp uint64 8
TracePacket.trusted_packet_sequence_id uint32 10
TracePacket.track_event TrackEvent 11
TracePacket.interned_data InternedData 12
TracePacket.sequence_flags uint32 13
TracePacket.track_descriptor TrackDescriptor 60
TracePacket.SEQ_UNSPECIFIED enum 0
TracePacket.SEQ_INCREMENTAL_STATE_CLEARED enum 1
TracePacket.SEQ_NEEDS_INCREMENTAL_STATE enum 2
TrackEvent.category_iids uint64 3
TrackEvent.debug_annotations DebugAnnotation 4
TrackEvent.type Type 9
TrackEvent.name_iid uint64 10
TrackEvent.track_uuid uint64 11
TrackEvent.categories string 22
TrackEvent.name string 23
TrackEvent.counter_value int64 30
TrackEvent.TYPE_UNSPECIFIED enum 0
TrackEvent.TYPE_SLICE_BEGIN enum 1
TrackEvent.TYPE_SLICE_END enum 2
TrackEvent.TYPE_INSTANT enum 3
TrackEvent.TYPE_COUNTER enum 4
DebugAnnotation.name_iid uint64 1
DebugAnnotation.bool_value bool 2
DebugAnnotation.uint_value uint64 3
DebugAnnotation.int_value int64 4
DebugAnnotation.double_value double 5
DebugAnnotation.string_value string 6
DebugAnnotation.name string 10
DebugAnnotation.dictionary_entries DebugAnnotation 11
DebugAnnotation.array_values DebugAnnotation 12
DebugAnnotation.string_value_iid uint64 17
DebugAnnotationName.iid uint64 1
DebugAnnotationName.name string 2
EventName.iid uint64 1
EventName.name string 2
InternedString.iid uint64 1
InternedString.str bytes 2
InternedData.event_names EventName 2
InternedData.debug_annotation_names DebugAnnotationName 3
InternedData.debug_annotation_string_values InternedString 29
TrackDescriptor.uuid uint64 1
TrackDescriptor.name string 2
TrackDescriptor.process ProcessDescriptor 3
TrackDescriptor.thread ThreadDescriptor 4
TrackDescriptor.parent_uuid uint64 5
TrackDescriptor.counter CounterDescriptor 8
ProcessDescriptor.pid int32 1
ProcessDescriptor.process_name string 6
ThreadDescriptor.pid int32 1
ThreadDescriptor.tid int32 2
ThreadDescriptor.thread_name string 5
EOF
awk '
/^message [A-Za-z]+ \{/ { m = $2 }
/^  (optional|repeated) [A-Za-z0-9_.]+ [a-z_]+ = [0-9]+;/ {
	n = $5; sub(/;/, "", n); print m "." $3, $2, n
}
/^    [A-Z_]+ = [0-9]+;/ { n = $3; sub(/;/, "", n); print m "." $1, "enum", n }
' "$PROTO" | sort >"$work/ours"
if cmp -s "$work/upstream" "$work/ours"; then
	ok "perfetto_trace.proto: $(wc -l <"$work/ours") fields and enum values as upstream numbers them"
else
	not_ok "perfetto_trace.proto against upstream's numbers" \
	    "$(diff "$work/upstream" "$work/ours" | head -n 8)"
fi

for c in ustack_v2 evented_v2; do
	cp "$top_srcdir/testdata/live/captures/$c/cap.dtsnap" \
	    "$work/$c.dtsnap" || exit 99
done
"$DTSNAP" synth "$T/flow.json" -o "$work/flow.dtsnap" 2>"$work/err" || {
	echo "# synth flow.json: $(cat "$work/err")"
	exit 99
}
cd "$work" || exit 99

decode() {
	"$PROTOC" --decode=perfetto.protos.Trace \
	    -I"$top_srcdir/formats" "$PROTO" <"$1"
}

# 2, 3.
for c in ustack_v2 evented_v2 flow; do
	"$DTCONSUME" -f perfetto -o $c.pb $c.dtsnap 2>$c.err
	rc=$?
	if [ $rc -eq 0 ] && decode $c.pb >$c.txt 2>$c.derr &&
	    cmp -s "$T/$c.perfetto.txt" $c.txt; then
		ok "$c: decodes as a Trace, as $c.perfetto.txt ($(wc -c <$c.pb) bytes)"
	else
		not_ok "$c: perfetto" "exit $rc" "$(head -n 3 $c.err $c.derr)" \
		    "$(diff "$T/$c.perfetto.txt" $c.txt | head -n 10)"
	fi
	"$DTCONSUME" -f trace-event -o $c.json $c.dtsnap 2>/dev/null
	if "$PY" "$top_srcdir/cmd/tests/perfetto_compare.py" $c.txt $c.json \
	    >cmp 2>&1; then
		ok "$c: the trace-event file's timeline: $(cat cmp)"
	else
		not_ok "$c: as trace-event" "$(tail -n 4 cmp)"
	fi
done
# the comparison can fail: one timestamp changed by 1 ns
awk '!d && /timestamp: [1-9]/ { $2 = $2 + 1; d = 1 } { print }' \
    flow.txt >moved.txt
if ! "$PY" "$top_srcdir/cmd/tests/perfetto_compare.py" moved.txt flow.json \
    >cmp 2>&1 && grep -q differs cmp; then
	ok "the comparison sees a timestamp moved by 1 ns"
else
	not_ok "the comparison missed a moved timestamp" "$(head -n 3 cmp)"
fi

# 4. a cut capture (ustack_v2 cut at byte 1500, in item 8)
head -c 1500 ustack_v2.dtsnap >cut.dtsnap
"$DTCONSUME" -f perfetto cut.dtsnap >cut.pb 2>cut.err
rc=$?
if [ $rc -eq 1 ] &&
    grep -q '^dtconsume: cut.dtsnap: item 8, offset 1252: capture cut short' cut.err &&
    decode cut.pb >cut.txt 2>>cut.err && grep -q track_event cut.txt; then
	ok "a cut capture is reported (file, item, offset), the trace still decodes"
else
	not_ok "cut capture" "exit $rc" "$(head -n 3 cut.err)"
fi
finish
