/*
 * decode.c - the driver shared by dtconsume and dt2json: options, one
 * reader per input file, events to the chosen emitter, warnings to
 * stderr as "prog: file: item N, offset M: message".
 *
 * Record selection (--probe, --cpu, --epid, --since, --until, -x cpu) is
 * the library's (dtc_reader_select): every reader gets it, and a bad value is a
 * bad command line.  A long decode on a terminal shows a progress line
 * (cli.c); options dtrace accepts that mean nothing offline are named in
 * one notice, not ignored in silence.
 *
 * The output (-o) is written to a temporary file and replaces the file
 * it names only when the run has decoded something and every write
 * succeeded (cli_out in cli.c): a failed run leaves the previous file as
 * it was.  A capture that is damaged still counts as decoded (exit 1):
 * its output is what dtrace would have printed up to the damage, as
 * dtrace writes as it consumes.  An output that is one of the inputs is
 * refused before anything is opened.
 *
 * Warnings are capped per capture: past DECODE_MAXWARN of one kind (one
 * dtc_error code) they are counted, not written, and one line at the end
 * of the capture says how many were left out.  A damaged capture can hold
 * a problem per byte; a million lines on stderr bury the first ones,
 * which say what happened, and cost more than the decode.  The library
 * reports every problem (its callers count and keep them as they like):
 * how many a terminal should see is this program's business.  The
 * environment's DTCONSUME_MAX_WARNINGS sets another cap (0: none), for
 * whoever needs every line (dtsnap validate -a is the other way).
 *
 * When the output format stops a capture (dtrace's "processing aborted",
 * which the emitter prints as dtrace does), one more line says where:
 * the file, item, CPU and offset of the record, as a warning says them.
 *
 * dtsnap validate decodes through the same code (decode_check): what it
 * reports is what dtconsume reports, word for word.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1        /* fopencookie */
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "decode.h"
#include "emitter.h"

static void
usage(const cli *c, const char *deffmt, FILE *fp)
{
	const dtc_emitter *const *e;

	fprintf(fp,
"Usage: %s [-qFEO] [-x opt[=val]]... [-o outfile] [-f format]\n"
"       [--probe GLOB]... [--cpu LIST]... [--epid LIST]... [--since T]\n"
"       [--until T] [--temporal] [--merge-aggs] [--folded-key N[,N]...]\n"
"       [--agg NAME] [--strip-offsets]\n"
"       [--libxo style] [--no-progress] FILE...\n"
"Decode DTrace captures (.dtsnap files) offline%s.\n"
"\n"
"  -q                  quiet (as dtrace -q): -x quiet\n"
"  -F                  flow indent (as dtrace -F): -x flowindent\n"
"  -x opt[=val]        set a consumer option, overriding the capture's;\n"
"                      -x oformat=json is FreeBSD dtrace's JSON (-f\n"
"                      json-freebsd without -O), oformat=text the text;\n"
"                      -x cpu=N is --cpu N; options that only shape\n"
"                      tracing (bufsize, strsize ...) are named in a notice;\n"
"                      -x maxmsgsize=SIZE caps one printed message (4m;\n"
"                      0: no cap), this program's own option\n"
"  -O                  with -x oformat=json: the aggregations left at the\n"
"                      end too (as FreeBSD dtrace -O)\n"
"  -o file             write the output to file, which is replaced only\n"
"                      when the run completes (stderr messages stay)\n"
"  -f format           output format (default %s):\n",
	    c->progname, strcmp(deffmt, "text") == 0 ?
	    " and print what dtrace(1) printed" : " as JSON Lines", deffmt);
	for (e = dtc_emitter_list(); *e != NULL; e++)
		fprintf(fp, "        %-12s %s\n", (*e)->name,
		    (*e)->description);
	fprintf(fp,
"  Selecting firings (each option narrows; repeated, any value matches):\n"
"      --probe GLOB    provider:module:function:name, fields matched from\n"
"                      the right as dtrace does (read:entry), * ? [...]\n"
"      --cpu LIST      CPUs: 0,2-3\n"
"      --epid LIST     enabled probe ids (DTrace v2: statement ids)\n"
"      --since T       records at or after T: ns of the record timestamps,\n"
"                      +1.5s after the first record, or a UTC time such as\n"
"                      2026-11-25T16:00:00Z (needs the capture's clock)\n"
"      --until T       records at or before T (the same forms)\n"
"                      Aggregations are not filtered.\n"
"      --no-progress   no progress line on a terminal (it shows after 2 s,\n"
"                      or at once for a capture over 256 MiB)\n"
"      --temporal      merge records across CPUs by timestamp (-x temporal)\n"
"      --merge-aggs    merge the aggregations of all files (same name,\n"
"                      function, parameters and keys) and print them once,\n"
"                      after the last file\n"
"      --folded-key N[,N]...\n"
"                      -f folded, flamegraph, speedscope: the aggregation\n"
"                      key components other than stacks to keep as\n"
"                      frames (1 is the first; default: all; stacks are\n"
"                      always kept)\n"
"      --agg NAME      -f folded, flamegraph, speedscope: the aggregation\n"
"                      @NAME alone (no records)\n"
"      --strip-offsets -f folded, flamegraph, speedscope: frames without\n"
"                      their +0x... offset\n"
"      --libxo style   as -x oformat=style (FreeBSD dtrace)\n"
"  -E, --exit-status   exit with the status the traced script gave exit()\n"
"  -u, --unbuffered    write each output line as soon as it is complete\n"
"                      (dtsnap record -o - | %s -u -: as it records)\n"
"  -h, --help          show this help\n"
"  -V, --version       show the version\n"
"\n"
"FILE may be - for standard input.  Several files are decoded one after\n"
"the other.  Exit status: 0 when every file decoded cleanly, 1 when\n"
"something was skipped or broken or the output could not be written\n"
"(each problem is reported on stderr; past 100 of one kind a line counts\n"
"the rest, DTCONSUME_MAX_WARNINGS=0 shows all), 2 for a bad command line\n"
"or a selection a capture cannot honour, 3 when the files decoded\n"
"cleanly and the selection matched no record in any of them.\n"
"system() and freopen() requests recorded in a capture are never\n"
"executed: they are reported on stderr.\n"
"See %s(1).\n", c->progname, c->progname);
}

struct opt { const char *name, *value; };
/* a selection: dtc_reader_select's what and value */
struct sel { const char *what, *value; };

static int
dispatch(const dtc_handler *h, const dtc_event *ev, void *st,
    int *exit_status)
{
	switch (ev->type) {
	case DTC_EV_BEGIN: return h->begin ? h->begin(ev, st) : 0;
	case DTC_EV_PROBE: return h->probe ? h->probe(ev, st) : 0;
	case DTC_EV_RECORD: return h->record ? h->record(ev, st) : 0;
	case DTC_EV_PROBE_END: return h->probe_end ? h->probe_end(ev, st) : 0;
	case DTC_EV_AGG: return h->agg ? h->agg(ev, st) : 0;
	case DTC_EV_DROP: return h->drop ? h->drop(ev, st) : 0;
	case DTC_EV_ERROR: return h->error ? h->error(ev, st) : 0;
	case DTC_EV_NOTICE: return h->notice ? h->notice(ev, st) : 0;
	case DTC_EV_END:
		if (ev->exit_status >= 0)
			*exit_status = ev->exit_status;
		return h->end ? h->end(ev, st) : 0;
	}
	return 0;
}

/* The kinds warnings are counted by: dtc_error codes, the last slot for
 * codes this program does not know of (a later library). */
#define NKINDS 32

/*
 * The emitter's message stream, tapped: what the emitter writes goes on
 * to the stream it would have written to (nowhere for dtsnap validate),
 * and its last line is kept: the reason of a "processing aborted", for
 * the line that says where it happened.
 */
typedef struct tap {
	FILE *to;                /* NULL: nowhere */
	char last[256];          /* the last complete line (cut short) */
	char cur[256];           /* the line being written */
	size_t n;                /* bytes of it kept */
} tap;

/* What the files of one run share. */
typedef struct run {
	cli *c;
	unsigned flags;          /* dtc_open_* flags */
	const struct opt *opts;  /* -q, -F, -x in order */
	size_t nopts;
	const struct sel *sels;  /* --probe, --cpu, --epid, --since, --until */
	size_t nsels;
	uint64_t nrec;           /* records of the capture (progress) */
	const dtc_handler *h;    /* the emitter's */
	void *st;                /* its state */
	int exit_status;         /* of the traced script */
	dtc_aggmerge *merge;     /* --merge-aggs, or NULL */
	dtc_reader *keep;        /* the first reader added to merge */
	int nopened;             /* captures opened */
	tap tap;                 /* the emitter's messages */
	/* warnings of the capture being decoded, by kind: shown, and left
	 * out past maxwarn (0: no cap) */
	unsigned maxwarn;
	uint64_t shown[NKINDS], hidden[NKINDS];
	/* totals of the last capture (dtsnap validate's summary) */
	uint64_t nfirings, nrecords, naggs, nproblems;
	int complete;
	uint64_t nsets;          /* record sets of the run (probe and ERROR) */
	int check;               /* dtsnap validate: the emitter writes no
	                          * message, the decoder's notices are said */
} run;

static ssize_t
tap_write(void *cookie, const char *buf, size_t size)
{
	tap *t = cookie;
	size_t i;

	if (t->to != NULL && size > 0 &&
	    (fwrite(buf, 1, size, t->to) != size || fflush(t->to) != 0))
		return -1;
	for (i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			memcpy(t->last, t->cur, t->n);
			t->last[t->n] = '\0';
			t->n = 0;
		} else if (t->n < sizeof(t->cur) - 1) {
			t->cur[t->n++] = buf[i];
		}
	}
	return (ssize_t)size;
}

/* A stream writing to t->to through the tap, line by line (a message
 * must reach stderr before the line that locates it); NULL when out of
 * memory. */
static FILE *
tap_open(tap *t, FILE *to)
{
	cookie_io_functions_t io = { .write = tap_write };
	FILE *fp;

	memset(t, 0, sizeof(*t));
	t->to = to;
	if ((fp = fopencookie(t, "w", io)) != NULL)
		setvbuf(fp, NULL, _IOLBF, 0);
	return fp;
}

static int
on_event(const dtc_event *ev, void *arg)
{
	run *x = arg;

	if (ev->type == DTC_EV_AGG)
		x->naggs++;
	else if (ev->type == DTC_EV_ERROR)
		x->nsets++;
	else if (ev->type == DTC_EV_END)
		x->complete = ev->complete;
	else if (x->check && ev->type == DTC_EV_NOTICE &&
	    ev->notice == DTC_NOTICE_WARNING && ev->message != NULL)
		/* a problem of the capture that dtconsume prints as a notice
		 * (located, exit status unchanged): validate says it too */
		cli_note(x->c, "%s", ev->message);
	return dispatch(x->h, ev, x->st, &x->exit_status);
}

/* the events of record sets, millions of them, without the switch (and
 * a tail call to the emitter: its value is returned as it is) */
static int
on_probe(const dtc_event *ev, void *arg)
{
	run *x = arg;

	x->nfirings++;
	x->nsets++;
	return x->h->probe != NULL ? x->h->probe(ev, x->st) : 0;
}

static int
on_record(const dtc_event *ev, void *arg)
{
	run *x = arg;

	x->nrecords++;
	return x->h->record != NULL ? x->h->record(ev, x->st) : 0;
}

/* the same, counting records for the progress line */
static int
on_record_counted(const dtc_event *ev, void *arg)
{
	run *x = arg;

	cli_progress_records(x->c->progress, ++x->nrec);
	x->nrecords++;
	return x->h->record != NULL ? x->h->record(ev, x->st) : 0;
}

static int
on_probe_end(const dtc_event *ev, void *arg)
{
	run *x = arg;

	return x->h->probe_end != NULL ? x->h->probe_end(ev, x->st) : 0;
}

static int
on_warn(const dtc_error *err, void *arg)
{
	run *x = arg;
	int k;

	/* the library refused the selection for this capture (a time it
	 * has no clock for): the request is at fault, as with a bad value */
	if (err->code == DTC_E_BADOPTION && err->item < 0) {
		cli_report_usage(x->c, err);
		return 0;
	}
	x->nproblems++;
	k = err->code >= 0 && err->code < NKINDS - 1 ? err->code : NKINDS - 1;
	if (x->maxwarn == 0 || x->shown[k] < x->maxwarn) {
		x->shown[k]++;
		cli_report(x->c, err);
	} else {
		/* the status is 1 already: the first of the kind said so */
		x->hidden[k]++;
	}
	return 0;     /* go on with what is intact */
}

/* A problem of the emitter's own that leaves its output short (a message
 * cut at maxmsgsize): a warning like the library's, counted and capped
 * with them, and dtsnap validate says it too. */
static void
on_emit_report(const dtc_error *err, void *arg)
{
	(void)on_warn(err, arg);
}

/* One line for each kind of warning left out of the capture just decoded
 * (the name dtc_error_string gives the kind), and the counts reset.  The same
 * words from dtconsume and dtsnap validate, which agree line for line. */
static void
warn_summary(run *x, const char *source)
{
	int k;

	for (k = 0; k < NKINDS; k++) {
		if (x->hidden[k] > 0)
			cli_warn(x->c, "%s: %llu more warning%s like '%s' not "
			    "shown (dtsnap validate -a shows them all)", source,
			    (unsigned long long)x->hidden[k],
			    x->hidden[k] == 1 ? "" : "s", dtc_error_string(k));
		x->shown[k] = x->hidden[k] = 0;
	}
}

/*
 * The emitter stopped the capture (it printed dtrace's "processing
 * aborted: WHY" on its stream, or stopped for a reason of its own): one
 * line saying where, from the place dtc_reader_consume gives in where.
 */
static void
report_stop(run *x, dtc_error *where)
{
	static const char *const lead[] = { "dtrace: processing aborted: ",
	    "dtrace: failed to print aggregations: " };
	const char *why = "the output format stopped the decoding";
	size_t i;

	for (i = 0; i < sizeof(lead) / sizeof(lead[0]); i++)
		if (strncmp(x->tap.last, lead[i], strlen(lead[i])) == 0)
			why = x->tap.last + strlen("dtrace: ");
	/* a record has a CPU; else the place is the last item read (an
	 * aggregation printed at the end stops after every item) */
	snprintf(where->text, sizeof(where->text), "%s; %s", why,
	    where->cpu >= 0 ? "nothing after this record is decoded" :
	    "the decoding stopped after this item");
	x->nproblems++;
	cli_report(x->c, where);
}

/*
 * A selection that matched no record set in any capture: said, since an
 * empty output looks like a capture with nothing in it, and exit 3 when
 * nothing else went wrong, so that a script can tell the two apart.
 * (Aggregations are not selected: they may still have been printed.)
 */
static void
nothing_matched(cli *c, const struct sel *sels, size_t nsels,
    int nopened)
{
	char buf[512];
	size_t i, n = 0;
	int k;

	buf[0] = '\0';
	for (i = 0; i < nsels && n < sizeof(buf); i++) {
		k = snprintf(buf + n, sizeof(buf) - n, "%s--%s '%s'",
		    i > 0 ? " " : "", sels[i].what, sels[i].value);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	cli_note(c, "the selection %s matched no record in %s", buf,
	    nopened == 1 ? "the capture" : "any of the captures");
	if (c->status == CLI_EXIT_OK)
		c->status = CLI_EXIT_NOMATCH;
}

/*
 * Open one capture and give it the options of the command line.  Returns
 * the reader, or NULL: it could not be opened (reported, status 1), or
 * the library refused an option (a bad command line: reported, status
 * 2).
 */
static dtc_reader *
open_capture(run *x, const decode_unit *u)
{
	const char *path = u->paths[0];
	dtc_reader *r;
	dtc_error err;
	size_t i;

	dtc_error_clear(&err);
	if (u->n > 1)
		r = dtc_reader_open_series((const char *const *)u->paths, u->n,
		    x->flags, &err);
	else if (strcmp(path, "-") == 0)
		r = dtc_reader_open_fd(0, "<stdin>", x->flags, &err);
	else
		r = dtc_reader_open_file(path, x->flags, &err);
	if (r == NULL) {
		cli_report(x->c, &err);
		return NULL;
	}
	for (i = 0; i < x->nopts; i++) {
		dtc_error_clear(&err);
		if (dtc_reader_set_option(r, x->opts[i].name, x->opts[i].value,
		    &err) != DTC_OK) {
			dtc_reader_close(r);
			cli_usage_warn(x->c, "%s", err.text);
			return NULL;
		}
	}
	for (i = 0; i < x->nsels; i++) {
		dtc_error_clear(&err);
		if (dtc_reader_select(r, x->sels[i].what, x->sels[i].value, &err) !=
		    DTC_OK) {
			dtc_reader_close(r);
			cli_usage_warn(x->c, "--%s: %s", x->sels[i].what,
			    err.text);
			return NULL;
		}
	}
	return r;
}

/* The bytes of a capture, for the progress line: 0 when not known. */
static uint64_t
capture_size(const char *path)
{
	struct stat sb;

	if ((strcmp(path, "-") == 0 ? fstat(0, &sb) : stat(path, &sb)) != 0 ||
	    !S_ISREG(sb.st_mode))
		return 0;
	return (uint64_t)sb.st_size;
}

/*
 * Decode one capture, opened by open_capture (NULL: it could not be).
 * Returns 0, or -1 when the emitter asked to stop or an option was
 * refused.  With merge, the reader's aggregations are added to it; the
 * first reader added is kept open in x->keep (the merge uses its
 * symbols).
 */
static int
decode_file(run *x, dtc_reader *r, const char *path)
{
	static const dtc_handler handler = {
		.begin = on_event, .probe = on_probe, .record = on_record,
		.probe_end = on_probe_end, .agg = on_event, .drop = on_event,
		.error = on_event, .notice = on_event, .end = on_event,
		.warn = on_warn
	};
	static const dtc_handler counted = {
		.begin = on_event, .probe = on_probe,
		.record = on_record_counted, .probe_end = on_probe_end,
		.agg = on_event, .drop = on_event,
		.error = on_event, .notice = on_event, .end = on_event,
		.warn = on_warn
	};
	dtc_error err, where;
	const char *source;
	int rc;

	if (r == NULL) {
		if (x->c->status == CLI_EXIT_USAGE)
			return -1;
		x->nproblems++;
		return 0;
	}
	x->nopened++;
	x->nrec = 0;
	source = dtc_reader_source(r);
	cli_progress_file(x->c->progress, r, strcmp(path, "-") == 0 ?
	    "<stdin>" : path, capture_size(path));
	/* DTC_WARN (something skipped, or no end item) needs nothing more
	 * here: on_warn reported each warning, the missing end item too,
	 * and raised the status */
	rc = dtc_reader_consume(r, x->c->progress != NULL ? &counted : &handler, x,
	    &where);
	cli_progress_file(x->c->progress, NULL, NULL, 0);
	/* an emitter stops with DTC_EMIT_ABORT or -1, never a DTC_ status */
	if (rc != DTC_OK && rc != DTC_WARN && rc != DTC_FATAL) {
		/* the emitter stopped (dtrace's "processing aborted") */
		report_stop(x, &where);
		warn_summary(x, source);
		dtc_reader_close(r);
		return -1;
	}
	warn_summary(x, source);
	if (x->merge != NULL) {
		dtc_error_clear(&err);
		if (dtc_aggmerge_add(x->merge, r, &err) != DTC_OK)
			cli_report(x->c, &err);
		if (x->keep == NULL) {
			x->keep = r;
			return 0;
		}
	}
	dtc_reader_close(r);
	return 0;
}

/*
 * FreeBSD dtrace's -x oformat=STYLE and --libxo STYLE (how names the
 * spelling for messages): the format of this toolkit that writes what
 * FreeBSD's would, or a usage error saying why there is none.
 */
static const char *
oformat(cli *c, const char *how, const char *style)
{
	if (style == NULL || style[0] == '\0')
		cli_usage_error(c, "%.*s needs a style: text or json",
		    (int)strlen(how) - 1, how);
	if (strcmp(style, "json") == 0)
		return "json-freebsd";
	if (strcmp(style, "text") == 0)
		return "text";
	if (strcmp(style, "xml") == 0 || strcmp(style, "html") == 0)
		cli_usage_error(c, "%s%s: no %s output here; json (-f "
		    "json-freebsd) is FreeBSD's structured output", how, style,
		    style[0] == 'x' ? "XML" : "HTML");
	if (strpbrk(style, ",:") != NULL)
		cli_usage_error(c, "%s%s: libxo options are not supported "
		    "(text or json alone)", how, style);
	cli_usage_error(c, "%s%s: unknown style (text, json, xml or html)",
	    how, style);
}

/* --folded-key N[,N]...: positions counted from 1, as a bit set. */
static uint64_t
folded_keys(cli *c, const char *arg)
{
	uint64_t mask = 0;
	const char *p = arg;
	char *end;
	long n;

	for (;;) {
		errno = 0;
		n = strtol(p, &end, 10);
		if (end == p || errno != 0 || n < 1 || n > 64 ||
		    (*end != ',' && *end != '\0'))
			cli_usage_error(c, "--folded-key %s: key positions are "
			    "numbers from 1 to 64, separated by commas", arg);
		mask |= (uint64_t)1 << (n - 1);
		if (*end == '\0')
			return mask;
		p = end + 1;
	}
}

/*
 * The one line of a getopt failure (opterr is off: getopt would name the
 * libtool binary), then the pointer to --help.  optopt tells the cases
 * apart: 0 for an unknown long option; a long option's value (long-only
 * ones count from 256; -E, -h and -V cannot fail in their short form)
 * when it lacks or has an argument it should not; else the short option.
 * A long option is always the whole of argv[optind - 1].
 */
static void
bad_option(cli *c, int ch, char **argv, const char *shortopts)
{
	const char *arg = argv[optind - 1];
	int n = (int)strcspn(arg, "=");
	int is_long = optopt == 0 || optopt >= 256 ||
	    (ch == '?' && strchr(shortopts, optopt) != NULL);

	if (!is_long && ch == ':')
		cli_usage_error(c, "option '-%c' needs an argument", optopt);
	if (!is_long)
		cli_usage_error(c, "unknown option '-%c'", optopt);
	if (ch == ':')
		cli_usage_error(c, "option '%.*s' needs an argument", n, arg);
	if (optopt != 0)
		cli_usage_error(c, "option '%.*s' takes no argument", n, arg);
	cli_usage_error(c, "unknown option '%.*s'", n, arg);
}

/*
 * One notice naming the -x options that mean nothing offline (they shape
 * the tracing: buffer sizes, rates, strsize ...), so that a user who
 * tries one learns it is ignored.  After the first capture accepted them.
 */
static void
note_ineffective(cli *c, const struct opt *opts, size_t nopts)
{
	char list[512];
	size_t i, j, n = 0;

	list[0] = '\0';
	for (i = 0; i < nopts; i++) {
		if (dtc_option_effective(opts[i].name) != 0)
			continue;
		for (j = 0; j < i; j++)
			if (strcmp(opts[j].name, opts[i].name) == 0)
				break;
		if (j < i)
			continue;   /* named already */
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n,
			    "%s-x %s", n > 0 ? ", " : "", opts[i].name);
	}
	if (n > 0)
		cli_note(c, "%s: no effect offline (%s only the tracing), "
		    "ignored", list, strchr(list, ',') != NULL ? "they shape" :
		    "it shapes");
}

/*
 * The progress line: on a terminal (cli_progress_start checks standard
 * error), unless the output goes to that terminal as it is decoded (the
 * line would break into it): none, folded, flamegraph and speedscope
 * write only at the end.
 * DTCONSUME_PROGRESS_AFTER (milliseconds, default 2000) is when it shows;
 * the tests set 0.
 */
static void
start_progress(cli *c, const dtc_emitter *em, FILE *out)
{
	const char *e = getenv("DTCONSUME_PROGRESS_AFTER");
	unsigned long long after = 2000;
	char *end;

	if (isatty(fileno(out)) && em != &dtc_fmt_null &&
	    em != &dtc_fmt_folded && em != &dtc_fmt_flamegraph &&
	    em != &dtc_fmt_speedscope)
		return;
	if (e != NULL && e[0] != '\0') {
		errno = 0;
		after = strtoull(e, &end, 10);
		if (*end != '\0' || errno != 0)
			after = 2000;
	}
	cli_progress_start(c, after);
}

/* The cap on warnings of one kind: DTCONSUME_MAX_WARNINGS (0: none), else
 * DECODE_MAXWARN. */
unsigned
decode_maxwarn(void)
{
	const char *e = getenv("DTCONSUME_MAX_WARNINGS");
	unsigned long n;
	char *end;

	if (e == NULL || e[0] == '\0')
		return DECODE_MAXWARN;
	errno = 0;
	n = strtoul(e, &end, 10);
	if (*end != '\0' || errno != 0 || e[0] == '-' || n > UINT_MAX)
		return DECODE_MAXWARN;
	return (unsigned)n;
}

/* The output must not be one of the inputs: writing it would destroy the
 * capture being read.  Returns 0, or -1 after saying which. */
static int
output_is_input(cli *c, const char *outpath, char **files, int nfiles)
{
	struct stat os, is;
	int i, rc;

	if ((outpath != NULL ? stat(outpath, &os) : fstat(1, &os)) != 0 ||
	    !S_ISREG(os.st_mode))
		return 0;     /* a new file, a terminal, a pipe: nothing lost */
	for (i = 0; i < nfiles; i++) {
		int in_stdin = strcmp(files[i], "-") == 0;

		rc = in_stdin ? fstat(0, &is) : stat(files[i], &is);
		if (rc == 0 && is.st_dev == os.st_dev &&
		    is.st_ino == os.st_ino) {
			/* cli_note: file names are escaped as every message's
			 * capture text is; the caller exits 2 */
			cli_note(c, "cannot write %s: it is the input file %s",
			    outpath != NULL ? outpath : "standard output",
			    in_stdin ? "standard input" : files[i]);
			return -1;
		}
	}
	return 0;
}

int
decode_main(int argc, char **argv, const char *deffmt)
{
	enum { OPT_TEMPORAL = 256, OPT_MERGE, OPT_FOLDED_KEY, OPT_LIBXO,
		OPT_PROBE, OPT_CPU, OPT_EPID, OPT_SINCE, OPT_UNTIL,
		OPT_NO_PROGRESS, OPT_AGG, OPT_STRIP };
	static const struct option longopts[] = {
		{ "probe", required_argument, NULL, OPT_PROBE },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "epid", required_argument, NULL, OPT_EPID },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "temporal", no_argument, NULL, OPT_TEMPORAL },
		{ "exit-status", no_argument, NULL, 'E' },
		{ "unbuffered", no_argument, NULL, 'u' },
		{ "merge-aggs", no_argument, NULL, OPT_MERGE },
		{ "folded-key", required_argument, NULL, OPT_FOLDED_KEY },
		{ "agg", required_argument, NULL, OPT_AGG },
		{ "strip-offsets", no_argument, NULL, OPT_STRIP },
		{ "libxo", required_argument, NULL, OPT_LIBXO },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static const char shortopts[] = ":qFEOux:o:f:hV";
	cli c;
	const char *fmt = deffmt, *outpath = NULL;
	const dtc_emitter *em;
	dtc_emitter_opts eo;
	struct opt *opts;
	struct sel *sels;
	run x;
	cli_out out;
	int ch, i, want_exit = 0, werr, werrno = 0, merge_aggs = 0, nunits;
	decode_unit *units;
	int by_oformat = 0, dash_O = 0, have_fkeys = 0, progress = 1;
	int unbuffered = 0;
	int strip = 0;
	const char *aggname = NULL;
	uint64_t fkeys = 0;
	dtc_error merr;
	dtc_reader *first = NULL;
	FILE *errs;
	const char *testing;

	cli_init(&c, argv[0]);
	memset(&x, 0, sizeof(x));
	x.c = &c;
	x.maxwarn = decode_maxwarn();
	opts = calloc((size_t)argc + 1, sizeof(*opts));
	sels = calloc((size_t)argc + 1, sizeof(*sels));
	if (opts == NULL || sels == NULL) {
		cli_warn(&c, "out of memory");
		free(opts);
		free(sels);
		return CLI_EXIT_WARN;
	}
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shortopts, longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'q':
			opts[x.nopts].name = "quiet";
			opts[x.nopts++].value = NULL;
			break;
		case 'F':
			opts[x.nopts].name = "flowindent";
			opts[x.nopts++].value = NULL;
			break;
		case 'u':
			unbuffered = 1;
			break;
		case 'x': {
			char *eq = strchr(optarg, '=');

			if (eq != NULL)
				*eq++ = '\0';
			if (strcmp(optarg, "oformat") == 0) {
				fmt = oformat(&c, "-x oformat=", eq);
				by_oformat = strcmp(fmt, "text") != 0;
				break;
			}
			opts[x.nopts].name = optarg;
			opts[x.nopts++].value = eq;
			break;
		}
		case OPT_LIBXO:
			fmt = oformat(&c, "--libxo ", optarg);
			by_oformat = strcmp(fmt, "text") != 0;
			break;
		case 'O':
			dash_O = 1;
			break;
		case OPT_PROBE:
		case OPT_CPU:
		case OPT_EPID:
		case OPT_SINCE:
		case OPT_UNTIL:
			/* the long option's name is dtc_reader_select's what */
			sels[x.nsels].what = ch == OPT_PROBE ? "probe" :
			    ch == OPT_CPU ? "cpu" : ch == OPT_EPID ? "epid" :
			    ch == OPT_SINCE ? "since" : "until";
			sels[x.nsels++].value = optarg;
			break;
		case OPT_NO_PROGRESS:
			progress = 0;
			break;
		case OPT_TEMPORAL:
			x.flags |= DTC_OPEN_TEMPORAL;
			break;
		case 'E':
			want_exit = 1;
			break;
		case OPT_MERGE:
			merge_aggs = 1;
			break;
		case OPT_FOLDED_KEY:
			fkeys = folded_keys(&c, optarg);
			have_fkeys = 1;
			break;
		case OPT_AGG:
			/* @NAME or NAME; "@" alone is the anonymous one */
			aggname = optarg[0] == '@' ? optarg + 1 : optarg;
			break;
		case OPT_STRIP:
			strip = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'f':
			fmt = optarg;
			by_oformat = 0;
			break;
		case 'h':
			usage(&c, deffmt, stdout);
			free(opts);
			free(sels);
			return CLI_EXIT_OK;
		case 'V':
			printf("%s %s\n", c.progname, dtc_version_string());
			free(opts);
			free(sels);
			return CLI_EXIT_OK;
		default:
			bad_option(&c, ch, argv, shortopts);
		}
	}
	x.opts = opts;
	x.sels = sels;
	if (optind >= argc)
		cli_usage_error(&c, "no capture file given");
	if ((em = dtc_emitter_find(fmt)) == NULL)
		cli_usage_error(&c, "unknown output format '%s'", fmt);
	if (have_fkeys && em != &dtc_fmt_folded && em != &dtc_fmt_flamegraph &&
	    em != &dtc_fmt_speedscope)
		cli_usage_error(&c, "--folded-key goes with -f folded, "
		    "flamegraph or speedscope");
	if (aggname != NULL && em != &dtc_fmt_folded &&
	    em != &dtc_fmt_flamegraph && em != &dtc_fmt_speedscope)
		cli_usage_error(&c, "--agg goes with -f folded, flamegraph or "
		    "speedscope");
	if (strip && em != &dtc_fmt_folded && em != &dtc_fmt_flamegraph &&
	    em != &dtc_fmt_speedscope)
		cli_usage_error(&c, "--strip-offsets goes with -f folded, "
		    "flamegraph or speedscope");
	if (em == &dtc_fmt_cbor && outpath == NULL && isatty(1)) {
		/* binary on a terminal garbles it; one line, not the help */
		cli_note(&c, "not writing CBOR to a terminal: use -o FILE or "
		    "redirect standard output");
		free(opts);
		free(sels);
		return CLI_EXIT_USAGE;
	}
	if (output_is_input(&c, outpath, argv + optind, argc - optind) != 0) {
		free(opts);
		free(sels);
		return CLI_EXIT_USAGE;
	}
	/* FreeBSD's oformat prints the aggregations left at the end only
	 * with -O */
	if (by_oformat && !dash_O)
		x.flags |= DTC_OPEN_NOAGGEXIT;
	if (merge_aggs)
		x.flags |= DTC_OPEN_NOAGGEXIT;
	/* The first capture that opens is opened before the output: the
	 * options are checked there, and a bad one touches nothing. */
	/* the parts of a series named are read as one capture */
	if ((units = decode_units(argv + optind, argc - optind, &nunits)) ==
	    NULL) {
		cli_warn(&c, "out of memory");
		free(opts);
		free(sels);
		return c.status;
	}
	for (i = 0; i < nunits; i++)
		if ((first = open_capture(&x, &units[i])) != NULL ||
		    c.status == CLI_EXIT_USAGE)
			break;
	if (c.status == CLI_EXIT_USAGE ||
	    cli_out_open(&c, &out, outpath) != 0) {
		dtc_reader_close(first);
		free(units);
	free(opts);
		free(sels);
		return c.status;
	}
	/* a reader at the other end of a pipe sees each line as it is
	 * decoded (a pass is decoded once the next pass's first item came) */
	if (unbuffered)
		setvbuf(out.fp, NULL, _IOLBF, 0);
	note_ineffective(&c, opts, x.nopts);
	if (progress)
		start_progress(&c, em, out.fp);
	memset(&eo, 0, sizeof(eo));
	eo.out = out.fp;
	/* messages the emitter writes as it goes take the progress line
	 * off the screen first; the tap keeps the last one (report_stop) */
	errs = cli_progress_stream(&c);
	if ((eo.err = tap_open(&x.tap, errs)) == NULL)
		eo.err = errs;
	/* dtrace-utils' test harness mode: no CPU and ID columns */
	testing = getenv("_DTRACE_TESTING");
	eo.testing = testing != NULL && testing[0] != '\0';
	eo.merge_aggs = merge_aggs;
	eo.folded_keys = fkeys;
	eo.folded_agg = aggname;
	eo.folded_strip = strip;
	eo.report = on_emit_report;
	eo.report_arg = &x;
	x.h = &em->handler;
	if ((x.st = em->create(&eo)) == NULL) {
		cli_progress_end(&c);
		if (eo.err != errs)
			fclose(eo.err);
		if (errs != stderr)
			fclose(errs);
		cli_warn(&c, "cannot start the %s output", em->name);
		cli_out_close(&c, &out, 0, 0, 0);
		dtc_reader_close(first);
		free(units);
	free(opts);
		free(sels);
		return c.status;
	}
	if (merge_aggs) {
		dtc_error_clear(&merr);
		if ((x.merge = dtc_aggmerge_new(&merr)) == NULL)
			cli_report(&c, &merr);
	}
	/* from the first capture that opened (the ones before it could not
	 * be, and are reported) */
	for (; i < nunits; i++) {
		if (decode_file(&x, first != NULL ? first :
		    open_capture(&x, &units[i]), units[i].paths[0]) != 0)
			break;
		first = NULL;
	}
	if (x.merge != NULL && i == nunits && !(by_oformat && !dash_O)) {
		const dtc_event *ev;

		/* the merged aggregations, printed once after every file */
		while (dtc_aggmerge_next(x.merge, &ev) == DTC_OK)
			if (dispatch(x.h, ev, x.st, &x.exit_status) != 0)
				break;
	}
	dtc_aggmerge_free(x.merge);
	dtc_reader_close(x.keep);
	/* off the screen before an output that comes at the end (none,
	 * folded) is written to the terminal */
	cli_progress_end(&c);
	werr = em->destroy(x.st);
	if (werr != 0)
		werrno = errno;
	if (eo.err != errs)
		fclose(eo.err);
	if (errs != stderr)
		fclose(errs);
	/* the output replaces the file when something was decoded and the
	 * command line was good: a damaged capture's output is kept */
	if (x.nopened == 0 && c.status != CLI_EXIT_USAGE && out.tmp != NULL)
		cli_warn(&c, "%s not written: no capture could be read",
		    outpath);
	cli_out_close(&c, &out, x.nopened > 0 && c.status != CLI_EXIT_USAGE,
	    werr != 0, werrno);
	if (x.nsels > 0 && x.nsets == 0 && x.nopened > 0 && i == nunits &&
	    c.status != CLI_EXIT_USAGE)
		nothing_matched(&c, sels, x.nsels, x.nopened);
	free(units);
	free(opts);
	free(sels);
	if (want_exit && c.status == CLI_EXIT_OK)
		return x.exit_status;
	return c.status;
}

int
decode_check(cli *c, const char *path, unsigned maxwarn, decode_totals *t)
{
	run x;
	dtc_emitter_opts eo;
	FILE *out;

	memset(t, 0, sizeof(*t));
	memset(&x, 0, sizeof(x));
	x.c = c;
	x.maxwarn = maxwarn;
	x.check = 1;
	/*
	 * The text format, as dtconsume's default: some complaints come
	 * from rendering (a printf that does not match its records is
	 * dtrace's "processing aborted"), so the output is made, then
	 * thrown away.  The emitter's own lines (drops, faults in D,
	 * system() requests) are the trace's, not the capture's problems:
	 * the tap keeps the last, for an abort, and writes none.
	 */
	if ((out = fopen("/dev/null", "we")) == NULL) {
		cli_warn(c, "cannot open /dev/null: %s", strerror(errno));
		return c->status;
	}
	memset(&eo, 0, sizeof(eo));
	eo.out = out;
	if ((eo.err = tap_open(&x.tap, NULL)) == NULL)
		eo.err = out;
	eo.report = on_emit_report;
	eo.report_arg = &x;
	x.h = &dtc_fmt_text.handler;
	if ((x.st = dtc_fmt_text.create(&eo)) == NULL) {
		cli_warn(c, "out of memory");
	} else {
		char *one[1] = { (char *)path };
		decode_unit u = { one, 1 };

		(void)decode_file(&x, open_capture(&x, &u), path);
		/* writes to /dev/null do not fail */
		(void)dtc_fmt_text.destroy(x.st);
	}
	if (eo.err != out)
		fclose(eo.err);
	fclose(out);
	t->firings = x.nfirings;
	t->records = x.nrecords;
	t->aggs = x.naggs;
	t->problems = x.nproblems;
	t->complete = x.complete;
	return c->status;
}
