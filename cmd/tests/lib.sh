#!/bin/sh
# lib.sh - helpers shared by the shell tests (sourced, not run).
#
# Tests are automake tests: exit 0 pass, 1 fail, 77 skip.  They run with
# top_srcdir and top_builddir set by make check, and default to the
# source tree and the current directory when run by hand.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
DTSNAP="$top_builddir/cmd/dtsnap"
export LC_ALL=C

nfail=0
ntest=0

# ok NAME / not_ok NAME [DETAIL...]: count and report one check.
ok() {
	ntest=$((ntest + 1))
	echo "ok $ntest - $1"
}
not_ok() {
	ntest=$((ntest + 1))
	nfail=$((nfail + 1))
	echo "not ok $ntest - $1"
	shift
	for l in "$@"; do
		echo "#   $l"
	done
}

# finish: the exit status for automake.
finish() {
	echo "# $((ntest - nfail))/$ntest passed"
	[ "$nfail" -eq 0 ] && exit 0
	exit 1
}

need_dtsnap() {
	if [ ! -x "$DTSNAP" ]; then
		echo "# no $DTSNAP: build it first"
		exit 77
	fi
}

# snap_layout CAPTURE: what a capture holds, as the .expected files of
# testdata/synth write it by hand: the recdescs of every eprobe and agg,
# then every buf and aggbuf with its descriptor and its bytes as 16-byte
# lines "oooo: xx xx ...", lines of zeros left out.
snap_layout() {
	"$DTSNAP" convert -f json "$1" | awk '
	function num(key,    r) {
		if (match($0, "\"" key "\":-?[0-9]+") == 0)
			return "?"
		r = substr($0, RSTART, RLENGTH)
		sub(/^"[a-z_]*":/, "", r)
		return r
	}
	function recs(    s) {
		s = $0
		while (match(s, /\{"action":[^}]*\}/)) {
			print "  " substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
		}
	}
	function bytes(    h, n, off, line, i, zero) {
		if (match($0, /"data":\{"hex":"[0-9a-f]*"\}/) == 0)
			return
		h = substr($0, RSTART + 15, RLENGTH - 17)
		n = length(h) / 2
		print "  size " n
		for (off = 0; off < n; off += 16) {
			line = sprintf("  %04x:", off)
			zero = 1
			for (i = off; i < off + 16 && i < n; i++) {
				line = line " " substr(h, 2 * i + 1, 2)
				if (substr(h, 2 * i + 1, 2) != "00")
					zero = 0
			}
			if (!zero)
				print line
		}
	}
	/^\{"t":"dtsnap"/ {
		if (match($0, /"byteorder":"[a-z]*"/))
			print "byteorder " substr($0, RSTART + 13, RLENGTH - 14)
	}
	/^\{"t":"eprobe"/ {
		print "eprobe epid " num("epid") " size " num("size") \
		    " uarg " num("uarg")
		recs()
	}
	/^\{"t":"agg"/ {
		print "agg id " num("id") " varid " num("varid") " size " \
		    num("size")
		recs()
	}
	/^\{"t":"aggbuf"/ {
		print "aggbuf pass " num("pass") " cpu " num("cpu") " drops " \
		    num("drops")
		bytes()
	}
	/^\{"t":"buf"/ {
		print "buf pass " num("pass") " cpu " num("cpu") " oldest " \
		    num("oldest") " drops " num("drops") " timestamp " \
		    num("timestamp")
		bytes()
	}'
}

# uncomment FILE: an .expected file without its comments and blank lines.
uncomment() {
	sed -e 's/[[:space:]]*#.*$//' -e '/^[[:space:]]*$/d' "$1"
}
