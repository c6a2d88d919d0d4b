#!/bin/sh
# validate_agrees.sh - `dtsnap validate` finds what dtconsume would
# complain about, no more and no less: over every capture of the test
# data (testdata/bad, testdata/invalid, testdata/live, testdata/valid and
# the conformance descriptions), validate exits with dtconsume's status
# (0 or 1; 2 would be a usage error), and the located messages dtconsume
# prints ("dtconsume: input.dtsnap: item N, ...: message") are validate's,
# word for word and in the same order, under validate's own name.  Both
# run in the same directory on the same file name, so the messages must
# match exactly.
# Usage: validate_agrees.sh [case-substring]
. "$(dirname "$0")/lib.sh"
need_dtsnap
DTCONSUME="$top_builddir/cmd/dtconsume"
[ -x "$DTCONSUME" ] || { echo "# no $DTCONSUME: build it first"; exit 77; }
DTSNAP=$(cd "$(dirname "$DTSNAP")" && pwd)/dtsnap
DTCONSUME=$(cd "$(dirname "$DTCONSUME")" && pwd)/dtconsume
only="$1"

work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-agree.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export TZ=UTC
unset _DTRACE_TESTING
td="$top_srcdir/testdata"
nagree=0 ncase=0

# agree NAME: WORK/NAME/input.dtsnap decoded by both
agree() {
	w="$work/$1"
	(cd "$w" && "$DTCONSUME" input.dtsnap >/dev/null 2>d.err)
	ds=$?
	(cd "$w" && "$DTSNAP" validate input.dtsnap >v.out 2>v.err)
	vs=$?
	ncase=$((ncase + 1))
	sed -n 's/^dtconsume: input\.dtsnap: /dtsnap: input.dtsnap: /p' \
	    "$w/d.err" >"$w/d.loc"
	grep '^dtsnap: input\.dtsnap: ' "$w/v.err" >"$w/v.loc"
	why=""
	[ "$ds" = "$vs" ] || why="dtconsume exits $ds, dtsnap validate $vs"
	# the same located messages, in the same order: dtconsume's first
	# one among them (the one a user reads first)
	if ! cmp -s "$w/d.loc" "$w/v.loc"; then
		why="${why:+$why; }the located messages differ"
		if [ -s "$w/d.loc" ] &&
		    ! grep -Fxq -- "$(head -n 1 "$w/d.loc")" "$w/v.loc"; then
			why="$why (not even dtconsume's first)"
		fi
	fi
	if [ -z "$why" ]; then
		nagree=$((nagree + 1))
		ok "$1"
		return 0
	fi
	not_ok "$1: $why" "dtconsume: $(head -n 1 "$w/d.err")" \
	    "validate:  $(head -n 1 "$w/v.err")" "           $(cat "$w/v.out")"
	diff "$w/d.loc" "$w/v.loc" | sed -n '2,7s/^/#   /p'
	return 1
}

# case NAME FILE: copy FILE in and compare
case_file() {
	[ -n "$only" ] && case "$1" in *"$only"*) ;; *) return 0 ;; esac
	mkdir -p "$work/$1" && cp "$2" "$work/$1/input.dtsnap" && agree "$1"
}
# case NAME DESC.json: synthesize it first (a description synth cannot
# make is the conformance runner's business, not this test's)
case_desc() {
	[ -n "$only" ] && case "$1" in *"$only"*) ;; *) return 0 ;; esac
	mkdir -p "$work/$1"
	"$DTSNAP" synth "$2" -o "$work/$1/input.dtsnap" 2>/dev/null ||
	    return 0
	agree "$1"
}

for d in "$td"/bad/*/; do
	d=${d%/}
	[ -f "$d/input.dtsnap" ] && case_file "bad/${d##*/}" "$d/input.dtsnap"
done
for d in "$td"/invalid/*/; do
	d=${d%/}
	[ -f "$d/input" ] && case_file "invalid/${d##*/}" "$d/input"
done
for f in "$td"/live/captures/*/cap.dtsnap; do
	[ -f "$f" ] || continue
	d=${f%/cap.dtsnap}
	case_file "live/${d##*/}" "$f"
done
for j in "$td"/valid/*/*.json; do
	[ -f "$j" ] || continue
	d=${j%/*}
	case_desc "valid/${d##*/}-$(basename "$j" .json)" "$j"
done
for f in $(cd "$td/conformance" && find . -name desc.json -o \
    -name capture.dtsnap | sort); do
	d=${f%/*}
	d=${d#./}
	n="conformance/$(echo "$d" | tr / _)"
	case $f in
	*.dtsnap) case_file "$n" "$td/conformance/$f" ;;
	*) case_desc "$n" "$td/conformance/$f" ;;
	esac
done
echo "# dtsnap validate agrees with dtconsume on $nagree of $ncase captures"
[ "$ncase" -gt 0 ] || { echo "# no capture found"; exit 99; }
finish
