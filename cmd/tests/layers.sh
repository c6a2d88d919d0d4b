#!/bin/sh
# The library's layers (HACKING, "Layers"): no include and no call inside
# libdtconsume runs back up a layer.  Every file of libdtconsume/ has its
# layer below; a file calls (and includes) only files of its own layer
# or lower ones.  The calls are found from the source itself: comments
# and strings dropped by the compiler's preprocessor (-fpreprocessed, so
# no header is expanded), a function defined where its name starts a line
# (the project's style: BSD, type on the line before), and a call is its
# name followed by '(' in another file.  A new file without a layer
# fails here, so the map stays whole, and so does a file outside its
# layer's folder (the folders are the layers: HACKING, "Layout").  Last,
# cmd/ and python/src must include no header of libdtconsume/ but the
# public dtconsume.h.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
CC=${CC:-cc}
lib="$top_srcdir/libdtconsume"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-layers.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# layer of each file: 0 the base (errors, strings, options, the container
# and writer), 1 the capture and what decodes it (tables, records,
# formats, types, symbols), 2 the aggregation engine, 3 the pass engine,
# 4 the two readers, 5 what is built on readers (merged aggregations)
layer() {
	# by file name (an include may name a folder: "../dtconsume.h")
	case ${1##*/} in
	dtconsume.h|writer.h|base.h|error.c|buf.c|options.c|zsource.c|\
	container.c|writer.c|series.c|items.c) echo 0 ;;
	# captures in parts: the part reader under the pass engine, the
	# reader on a series above it
	rseries.c) echo 1 ;;
	series_open.c) echo 4 ;;
	# DOF and DIF need only the base, but read as decoders do (layer 1:
	# nothing below them calls them)
	dof.c|dif.c|dofitem.c) echo 1 ;;
	decoders.h|capture.h|capture.c|meta.c|v2.c|select.h|select.c|walker.c|\
	tables.c|\
	record.c|printf_private.h|printf_compile.c|printf_render.c|aggval.c|\
	ctf_private.h|ctf.c|ctfopen.c|ctfprint_v2.c|\
	ctfprint_legacy.c|ctfwalk.c|symbols.c|program.c|writer_symbols.c) echo 1 ;;
	agg.h|agg.c) echo 2 ;;
	pass.h|pass.c) echo 3 ;;
	reader.h|consume.c|batch.c) echo 4 ;;
	aggmerge.c) echo 5 ;;
	# the 0.x names of renamed calls: readers, writers, errors
	compat.c) echo 4 ;;
	# every header at once, for tests only: nothing of the library may
	# include it
	dtc_private.h) echo 9 ;;
	*) echo "" ;;
	esac
}

# layer of each folder of libdtconsume/ (its files' layer, above): the
# folders in layer order, so the layout itself shows the layers; "." is
# libdtconsume/ itself (the public header and dtc_private.h)
folder_layer() {
	case $1 in
	.) echo "0 9" ;;
	# the public headers beside dtconsume.h (dtconsume/writer.h)
	dtconsume) echo 0 ;;
	base|container) echo 0 ;;
	decode|ctf) echo 1 ;;
	aggregate) echo 2 ;;
	pass) echo 3 ;;
	read) echo 4 ;;
	merge) echo 5 ;;
	*) echo "" ;;
	esac
}

# every source file of the library, tests/ aside, as libdtconsume/...
(cd "$lib" && find . -name '*.[ch]' ! -path './tests/*') |
    sed 's|^\./||' | LC_ALL=C sort >"$work/files"
status=0
: >"$work/defs"
while read -r rel; do
	f="$lib/$rel"
	name=$(basename "$f")
	dir=$(dirname "$rel")
	l=$(layer "$name")
	if [ -z "$l" ]; then
		echo "FAIL: libdtconsume/$rel has no layer in $0"
		status=1
		continue
	fi
	fl=$(folder_layer "$dir")
	case " $fl " in
	"  ") echo "FAIL: libdtconsume/$dir/ is no folder of a layer in $0"
	    status=1 ;;
	*" $l "*) ;;
	*) echo "FAIL: libdtconsume/$rel (layer $l) sits in $dir/ (layer $fl)"
	    status=1 ;;
	esac
	if [ -e "$work/$name" ]; then
		echo "FAIL: two files of libdtconsume/ are named $name"
		status=1
		continue
	fi
	$CC -fpreprocessed -dD -E -P "$f" >"$work/$name" 2>/dev/null || {
		echo "FAIL: $CC cannot read libdtconsume/$rel"
		exit 99
	}
	# definitions: "name<TAB>file"; compat.c defines only the 0.x
	# names of calls defined elsewhere (dtconsume.h maps each to its
	# new name), so a call of one is a call of the other file
	[ "$name" = compat.c ] && continue
	sed -n -e 's/^\(dtcp\{0,1\}_[A-Za-z0-9_]*\)(.*/\1/p' \
	    -e 's/^(\(dtc_[A-Za-z0-9_]*\))(.*/\1/p' "$work/$name" |
	    sed "s/\$/	$name/" >>"$work/defs"
done <"$work/files"
ndefs=$(wc -l <"$work/defs")
if [ "$ndefs" -lt 200 ]; then
	echo "FAIL: only $ndefs function definitions found: the scan is broken"
	exit 1
fi
nedges=0
while read -r rel; do
	name=$(basename "$rel")
	l=$(layer "$name")
	[ -n "$l" ] || continue
	# includes
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$work/$name"); do
		[ "$inc" = config.h ] && continue
		il=$(layer "$inc")
		if [ -z "$il" ]; then
			echo "FAIL: $name includes $inc, which has no layer"
			status=1
		elif [ "$il" -gt "$l" ]; then
			echo "FAIL: $name (layer $l) includes $inc (layer $il)"
			status=1
		fi
		nedges=$((nedges + 1))
	done
	# calls: names followed by '(' that another file defines; a header's
	# prototypes are not calls, its inline functions' bodies are
	case $name in
	*.h) sed -n '/^static inline/,/^}/p' "$work/$name" ;;
	*) cat "$work/$name" ;;
	esac | grep -o 'dtcp\{0,1\}_[A-Za-z0-9_]*[[:space:]]*(' |
	    sed 's/[[:space:]]*($//' | sort -u >"$work/calls"
	awk -F '	' -v self="$name" 'NR == FNR { want[$1] = 1; next }
	    ($1 in want) && $2 != self { print $1 "\t" $2 }' \
	    "$work/calls" "$work/defs" >"$work/edges"
	while IFS='	' read -r fn def; do
		dl=$(layer "$def")
		nedges=$((nedges + 1))
		if [ "$dl" -gt "$l" ]; then
			echo "FAIL: $name (layer $l) calls $fn of $def (layer $dl)"
			status=1
		fi
	done <"$work/edges"
done <"$work/files"
if [ "$nedges" -lt 200 ]; then
	echo "FAIL: only $nedges includes and calls found: the scan is broken"
	exit 1
fi
# Above the library: the programs (cmd/) and the binding (python/src)
# use only the public header, dtconsume.h; every other header of
# libdtconsume/ is private (never installed).  PENDING lists the files
# that still reach in: one leaving the list must stay clean, and no new
# file may join it.  It is empty since issue 25: what dtsnap's dump,
# convert, info and split read is public (dtc_container(3),
# dtc_tables(3)).
PENDING=""
nabove=0
for f in "$top_srcdir"/cmd/*.c "$top_srcdir"/cmd/*.h \
    "$top_srcdir"/python/src/*.c "$top_srcdir"/python/src/*.h; do
	[ -e "$f" ] || continue
	rel=${f#"$top_srcdir"/}
	nabove=$((nabove + 1))
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p' "$f"); do
		inc=$(basename "$inc")
		[ "$inc" = dtconsume.h ] && continue
		grep -q "^\(.*/\)\{0,1\}$inc\$" "$work/files" || continue
		case " $PENDING " in
		*" $rel "*) echo "$rel" >>"$work/pending"; continue ;;
		esac
		echo "FAIL: $rel includes $inc, a private header of libdtconsume"
		status=1
	done
done
for p in $PENDING; do
	grep -qx "$p" "$work/pending" 2>/dev/null || {
		echo "FAIL: $p includes no private header: drop it from PENDING"
		status=1
	}
done
if [ "$nabove" -lt 20 ]; then
	echo "FAIL: only $nabove files of cmd/ and python/src found"
	exit 1
fi
[ "$status" = 0 ] && echo "ok: $nedges includes and calls, none up a layer;" \
    "$nabove files of cmd/ and python/src, none${PENDING:+ but PENDING ($PENDING)} includes a private header"
exit $status
