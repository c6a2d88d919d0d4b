#!/bin/sh
# Bash completion (cmd/completion/): each file is read by bash, COMP_WORDS,
# COMP_CWORD, COMP_LINE and COMP_POINT are set as bash sets them for a
# command line, the completion function is called and COMPREPLY checked.
# Besides a few lines by hand, the completion must offer every option
# each program's --help shows (so that it cannot fall behind the help),
# every format of -f, every -x name libdtconsume/base/options.c accepts, and
# every command of dtsnap.  The files must also work alone as installed
# (dt2json's and dtsnap's read dtconsume's beside them): `make
# install-dist_bashcompletionDATA DESTDIR=...` (the part of make install
# that installs them; the whole of make install would build and install
# the library and the Python package too) must put the three in
# share/bash-completion/completions.  Without the bash-completion package
# the files use plain compgen; with it (DTC_BASH_COMPLETION, default
# /usr/share/bash-completion/bash_completion) its _init_completion, and
# the lines by hand are tried that way too.
. "$(dirname "$0")/lib.sh"
need_dtsnap
if ! command -v bash >/dev/null 2>&1; then
	echo "# no bash: the completion files are bash's"
	exit 77
fi
compdir="$(cd "$top_srcdir/cmd/completion" && pwd)"
bindir="$(cd "$top_builddir/cmd" && pwd)"
work=$(mktemp -d "${TMPDIR:-/tmp}/dtc-completion.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
: "${DTC_BASH_COMPLETION:=/usr/share/bash-completion/bash_completion}"

# A directory to complete file names in: captures, a JSON Lines capture,
# a description, a D script, something else, a directory, a blank.
mkdir "$work/files" "$work/files/sub" || exit 99
for f in a.dtsnap "c d.dtsnap" y.jsonl z.json x.d b.txt; do
	: >"$work/files/$f"
done

# The harness: comp LINE prints COMPREPLY, one a line, for LINE with the
# cursor at its end.  COMP_WORDS as bash splits the line with its default
# COMP_WORDBREAKS: at blanks, and a run of '=' or ':' is a word of its own.
cat >"$work/harness.bash" <<'EOF'
comp() {
	local line=$1 rest w t f
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMP_WORDS=()
	rest=$line
	while :; do
		rest=${rest#"${rest%%[! ]*}"}
		[[ -z $rest ]] && break
		w=${rest%% *}
		rest=${rest#"$w"}
		while [[ -n $w ]]; do
			if [[ $w =~ ^[=:]+ ]]; then
				t=${BASH_REMATCH[0]}
			else
				t=${w%%[=:]*}
			fi
			COMP_WORDS+=("$t")
			w=${w#"$t"}
		done
	done
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	f=$(complete -p "${COMP_WORDS[0]##*/}" 2>/dev/null |
	    sed -n 's/.*-F \([^ ]*\) .*/\1/p')
	[[ -n $f ]] || { echo "no completion for ${COMP_WORDS[0]}"; return; }
	"$f" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
	    "${COMP_WORDS[COMP_CWORD - 1]}"
	((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
}
EOF

# run SETUP LINE: the replies for LINE, sorted, after SETUP (bash code:
# the files to read), in the directory of files, the programs of this
# build first in PATH
run() {
	(cd "$work/files" && PATH="$bindir:$PATH" bash --norc --noprofile -c \
	    ". '$work/harness.bash'; $1; comp \"\$1\"" bash "$2") 2>&1 |
	    LC_ALL=C sort
}
ALL=". '$compdir/dtconsume'; . '$compdir/dt2json'; . '$compdir/dtsnap'"
WITH_BC=". '$DTC_BASH_COMPLETION'; $ALL"

# want SETUP LINE REPLY...: exactly these replies
want() {
	setup=$1 line=$2
	shift 2
	got=$(run "$setup" "$line")
	exp=$(for r in "$@"; do echo "$r"; done | LC_ALL=C sort)
	if [ "$got" = "$exp" ]; then
		ok "'$line' -> $(echo "$exp" | tr '\n' ' ')"
	else
		not_ok "'$line'" "got:  $(echo "$got" | tr '\n' ' ')" \
		    "want: $(echo "$exp" | tr '\n' ' ')"
	fi
}

# offers NAME SETUP LINE WORDS: every word of WORDS is a reply
offers() {
	name=$1 got=$(run "$2" "$3") missing=""
	for w in $4; do
		printf '%s\n' "$got" | grep -qxF -- "$w" ||
		    missing="$missing $w"
	done
	if [ -z "$missing" ] && [ -n "$4" ]; then
		ok "$name"
	else
		not_ok "$name" "not offered:${missing:- (nothing to look for)}"
	fi
}

# same NAME SETUP LINE WORDS: the replies are WORDS, no more, no fewer
same() {
	got=$(run "$2" "$3" | tr '\n' ' ')
	exp=$(for w in $4; do echo "$w"; done | LC_ALL=C sort -u | tr '\n' ' ')
	if [ -n "$exp" ] && [ "$got" = "$exp" ]; then
		ok "$1"
	else
		not_ok "$1" "got:  $got" "want: $exp"
	fi
}

# hand LABEL SETUP: the lines by hand, with SETUP
hand() {
	echo "# $1"
	s=$2
	want "$s" "dtconsume -f j" json json-freebsd
	want "$s" "dtconsume --no-p" --no-progress
	want "$s" "dtconsume " a.dtsnap "c d.dtsnap" sub
	want "$s" "dtconsume -q a" a.dtsnap
	want "$s" "dtconsume -o " a.dtsnap "c d.dtsnap" sub y.jsonl z.json \
	    x.d b.txt
	want "$s" "dtconsume -- " a.dtsnap "c d.dtsnap" sub
	want "$s" "dtconsume -x quie" quiet quietresize
	want "$s" "dtconsume -x oformat=" json text
	want "$s" "dtconsume -x bufpolicy=f" fill
	want "$s" "dtconsume --libxo=" json text
	want "$s" "dtconsume --libxo " json text
	want "$s" "dt2json -f c" cbor
	want "$s" "dtsnap v" validate
	want "$s" "dtsnap " convert dof dump info program record split synth validate
	want "$s" "dtsnap dof -f " json text
	want "$s" "dtsnap dof -" -f --format -h --help
	want "$s" "dtsnap info " a.dtsnap "c d.dtsnap" sub
	want "$s" "dtsnap dump -" -x -h --help
	want "$s" "dtsnap convert -f " cbor json
	want "$s" "dtsnap convert " a.dtsnap "c d.dtsnap" sub y.jsonl z.json
	want "$s" "dtsnap synth " sub z.json
	want "$s" "dtsnap synth -o z" z.json
	want "$s" "dtsnap record -X " a c s t
	want "$s" "dtsnap record -s " sub x.d
}
hand "plain compgen (no bash-completion)" "$ALL"
if [ -f "$DTC_BASH_COMPLETION" ]; then
	if [ "$(run "$WITH_BC" "dtconsume -f j")" = "$(printf 'json\njson-freebsd')" ]
	then
		hand "with $DTC_BASH_COMPLETION" "$WITH_BC"
	else
		not_ok "$DTC_BASH_COMPLETION reads" "$(run "$WITH_BC" "dtconsume -f j")"
	fi
else
	echo "# no $DTC_BASH_COMPLETION: the bash-completion path is not tried"
fi

# --- nothing in the help that the completion does not offer -----------

# options FILE: the options a --help text shows: long ones anywhere,
# short ones at the start of a line or in the usage ("[-x", " -o", and
# the letters of "[-qFEO]")
options() {
	{
		grep -o -- '--[a-z][a-z-]*' "$1"
		grep -oE -- '^ +-[a-zA-Z]\b' "$1" | tr -d ' '
		sed -n '/sage:/,/^$/p' "$1" |
		    grep -oE -- '(^|[[ ])-[a-zA-Z]+' | tr -d '[ ' |
		    sed 's/^-//' | fold -w1 | sed 's/^/-/'
	} | sort -u
}

for p in dtconsume dt2json; do
	"$bindir/$p" --help >"$work/help"
	offers "$p: every option of --help" "$ALL" "$p -" \
	    "$(options "$work/help")"
	# the -f formats: the indented names after "-f format"
	fmts=$("$bindir/$p" --help | awk '/^  -f format/ { on = 1; next }
	    on && /^        [a-z]/ { print $1; next } { on = 0 }')
	same "$p: -f offers the formats of --help" "$ALL" "$p -f " "$fmts"
	# the list for a program that cannot be asked
	same "$p: -f without the program, the same formats" "$ALL" \
	    "$work/nonexistent/$p -f " "$fmts"
done

# the commands: the indented words of "Commands:"
cmds=$("$bindir/dtsnap" --help | awk '/^Commands:/ { on = 1; next }
    on && /^  [a-z]/ { print $1; next } { on = 0 }')
same "dtsnap: the commands of --help" "$ALL" "dtsnap " "$cmds"
# dtsnap's own options: those of its usage lines (the rest of its help
# names the commands' options), and --help
"$bindir/dtsnap" --help | sed -n '/sage:/,/^$/p' >"$work/help"
offers "dtsnap: the options of its usage, and --help" "$ALL" "dtsnap -" \
    "$(options "$work/help") --help"
for c in $cmds; do
	if [ "$c" = record ] && ! "$bindir/dtsnap" record --help >/dev/null \
	    2>&1; then
		# a build without libdtrace: the usage text of cmd/record.c
		sed -n '/^static const char record_usage/,/;$/p' \
		    "$top_srcdir/cmd/record.c" |
		    sed -e 's/^"//' -e 's/\\n"*;*$//' >"$work/help"
	else
		"$bindir/dtsnap" "$c" --help >"$work/help"
	fi
	o=$(options "$work/help")
	# every command takes --help
	offers "dtsnap $c: every option of its --help" "$ALL" "dtsnap $c -" \
	    "$o --help"
done

# -x: the names of libdtconsume/base/options.c's table ({ "name", KIND, one or
# two to a line): dtconsume takes them all, and oformat (decode.c);
# dtsnap record hands -x to libdtrace, so dtrace's classes only (CT, RT,
# DRT), not the library's own
table=$(grep -oE '\{ "[a-z0-9]+", [A-Z]+,' \
    "$top_srcdir/libdtconsume/base/options.c")
xnames=$(echo "$table" | cut -d'"' -f2)
dnames=$(echo "$table" | grep -E ', (CT|RT|DRT),$' | cut -d'"' -f2)
if [ "$(echo "$dnames" | wc -l)" -lt 50 ]; then
	not_ok "options.c read" "$(echo "$dnames" | wc -l) names only"
fi
same "dtconsume -x: every name of options.c, and oformat" "$ALL" \
    "dtconsume -x " "$xnames oformat"
same "dtsnap record -x: dtrace's names of options.c" "$ALL" \
    "dtsnap record -x " "$dnames"

# --- installed ---------------------------------------------------------
if command -v make >/dev/null 2>&1; then
	dest="$work/dest"
	(cd "$top_builddir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    make -s install-dist_bashcompletionDATA DESTDIR="$dest") \
	    >"$work/make.out" 2>&1
	dir=$(find "$dest" -type d -path '*/share/bash-completion/completions' |
	    head -n 1)
	if [ -n "$dir" ] && [ -f "$dir/dtconsume" ] && [ -f "$dir/dt2json" ] &&
	    [ -f "$dir/dtsnap" ]; then
		ok "make install puts the three in share/bash-completion/completions"
		# each alone, as bash-completion loads them
		want ". '$dir/dt2json'" "dt2json -f c" cbor
		want ". '$dir/dtsnap'" "dtsnap s" split synth
		want ". '$dir/dtconsume'" "dtconsume --merge" --merge-aggs
	else
		not_ok "make install puts the three in share/bash-completion/completions" \
		    "$(find "$dest" -type f 2>/dev/null | head -n 5)" \
		    "$(tail -n 5 "$work/make.out")"
	fi
else
	echo "# no make: make install is not tried"
fi

finish
