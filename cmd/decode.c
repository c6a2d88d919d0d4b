/*
 * decode.c - the driver shared by dtconsume and dt2json: options, one
 * reader per input file, events to the chosen emitter, warnings to
 * stderr as "prog: file: item N, offset M: message".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode.h"
#include "emitter.h"

static void
usage(const cli *c, const char *deffmt, FILE *fp)
{
	const dtc_emitter *const *e;

	fprintf(fp,
"Usage: %s [-qFE] [-x opt[=val]]... [-o outfile] [-f format] [--temporal]\n"
"       [--merge-aggs] FILE...\n"
"Decode DTrace captures (.dtsnap files) offline%s.\n"
"\n"
"  -q                  quiet (as dtrace -q): -x quiet\n"
"  -F                  flow indent (as dtrace -F): -x flowindent\n"
"  -x opt[=val]        set a consumer option, overriding the capture's\n"
"  -o file             write the output to file (stderr messages stay)\n"
"  -f format           output format (default %s):\n",
	    c->progname, strcmp(deffmt, "text") == 0 ?
	    " and print what dtrace(1) printed" : " as JSON Lines", deffmt);
	for (e = dtc_emitter_list(); *e != NULL; e++)
		fprintf(fp, "                        %-6s %s\n", (*e)->name,
		    (*e)->description);
	fprintf(fp,
"      --temporal      merge records across CPUs by timestamp (-x temporal)\n"
"      --merge-aggs    merge the aggregations of all files (same name,\n"
"                      function, parameters and keys) and print them once,\n"
"                      after the last file\n"
"  -E, --exit-status   exit with the status the traced script gave exit()\n"
"  -h, --help          show this help\n"
"  -V, --version       show the version\n"
"\n"
"FILE may be - for standard input.  Several files are decoded one after\n"
"the other.  Exit status: 0 when every file decoded cleanly, 1 when\n"
"something was skipped or broken (each problem is reported on stderr),\n"
"2 for a bad command line.  system() and freopen() requests recorded in\n"
"a capture are never executed: they are reported on stderr.\n"
"See %s(1).\n", c->progname);
}

struct opt { const char *name, *value; };

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

/* One file's run: the events go to the emitter, the warnings to stderr. */
typedef struct run {
	cli *c;
	const dtc_handler *h;    /* the emitter's */
	void *st;                /* its state */
	int *exit_status;
} run;

static int
on_event(const dtc_event *ev, void *arg)
{
	run *x = arg;

	return dispatch(x->h, ev, x->st, x->exit_status);
}

/* the events of record sets, millions of them, without the switch */
static int
on_probe(const dtc_event *ev, void *arg)
{
	run *x = arg;

	return x->h->probe != NULL ? x->h->probe(ev, x->st) : 0;
}

static int
on_record(const dtc_event *ev, void *arg)
{
	run *x = arg;

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
	cli_report(((run *)arg)->c, err);
	return 0;     /* go on with what is intact */
}

/*
 * Decode one file; returns 0, or -1 when the emitter asked to stop.
 * With merge, the reader's aggregations are added to it; the first
 * reader added is kept open in *keep (the merge uses its symbols).
 */
static int
decode_file(cli *c, const char *path, unsigned flags, const struct opt *opts,
    size_t nopts, const dtc_emitter *em, void *st, int *exit_status,
    dtc_aggmerge *merge, dtc_reader **keep)
{
	static const dtc_handler handler = {
		.begin = on_event, .probe = on_probe, .record = on_record,
		.probe_end = on_probe_end, .agg = on_event, .drop = on_event,
		.error = on_event, .notice = on_event, .end = on_event,
		.warn = on_warn
	};
	run x = { c, &em->handler, st, exit_status };
	dtc_reader *r;
	dtc_error err;
	size_t i;
	int rc;

	dtc_error_clear(&err);
	if (strcmp(path, "-") == 0)
		r = dtc_open_fd(0, "<stdin>", flags, &err);
	else
		r = dtc_open_file(path, flags, &err);
	if (r == NULL) {
		cli_report(c, &err);
		return 0;
	}
	for (i = 0; i < nopts; i++) {
		dtc_error_clear(&err);
		if (dtc_set_option(r, opts[i].name, opts[i].value, &err) !=
		    DTC_OK) {
			dtc_close(r);
			cli_usage_error(c, "%s", err.text);
		}
	}
	rc = dtc_consume(r, &handler, &x, NULL);
	if (rc != DTC_OK && rc != DTC_FATAL) {
		/* the emitter stopped (dtrace's "processing aborted") */
		if (c->status < CLI_EXIT_WARN)
			c->status = CLI_EXIT_WARN;
		dtc_close(r);
		return -1;
	}
	if (merge != NULL) {
		dtc_error_clear(&err);
		if (dtc_aggmerge_add(merge, r, &err) != DTC_OK)
			cli_report(c, &err);
		if (*keep == NULL) {
			*keep = r;
			return 0;
		}
	}
	dtc_close(r);
	return 0;
}

int
decode_main(int argc, char **argv, const char *deffmt)
{
	static const struct option longopts[] = {
		{ "temporal", no_argument, NULL, 'T' },
		{ "exit-status", no_argument, NULL, 'E' },
		{ "merge-aggs", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	cli c;
	const char *fmt = deffmt, *outpath = NULL;
	const dtc_emitter *em;
	dtc_emitter_opts eo;
	struct opt *opts;
	size_t nopts = 0;
	unsigned flags = 0;
	int ch, i, want_exit = 0, exit_status = 0, werr, merge_aggs = 0;
	dtc_aggmerge *merge = NULL;
	dtc_reader *keep = NULL;
	dtc_error merr;
	void *st;
	FILE *out = stdout;
	const char *testing;

	cli_init(&c, argv[0]);
	if ((opts = calloc((size_t)argc + 1, sizeof(*opts))) == NULL) {
		cli_warn(&c, "out of memory");
		return CLI_EXIT_WARN;
	}
	while ((ch = getopt_long(argc, argv, "qFEx:o:f:hV", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'q':
			opts[nopts].name = "quiet";
			opts[nopts++].value = NULL;
			break;
		case 'F':
			opts[nopts].name = "flowindent";
			opts[nopts++].value = NULL;
			break;
		case 'x': {
			char *eq = strchr(optarg, '=');

			if (eq != NULL)
				*eq++ = '\0';
			opts[nopts].name = optarg;
			opts[nopts++].value = eq;
			break;
		}
		case 'T':
			flags |= DTC_OPEN_TEMPORAL;
			break;
		case 'E':
			want_exit = 1;
			break;
		case 'M':
			merge_aggs = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'f':
			fmt = optarg;
			break;
		case 'h':
			usage(&c, deffmt, stdout);
			free(opts);
			return CLI_EXIT_OK;
		case 'V':
			printf("%s %s\n", c.progname, dtc_version_string());
			free(opts);
			return CLI_EXIT_OK;
		default:
			usage(&c, deffmt, stderr);
			free(opts);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		cli_usage_error(&c, "no capture file given");
	if ((em = dtc_emitter_find(fmt)) == NULL)
		cli_usage_error(&c, "unknown output format '%s'", fmt);
	if (outpath != NULL && (out = fopen(outpath, "w")) == NULL)
		cli_usage_error(&c, "%s: %s", outpath, strerror(errno));
	memset(&eo, 0, sizeof(eo));
	eo.out = out;
	eo.err = stderr;
	/* dtrace-utils' test harness mode: no CPU and ID columns */
	testing = getenv("_DTRACE_TESTING");
	eo.testing = testing != NULL && testing[0] != '\0';
	eo.merge_aggs = merge_aggs;
	if ((st = em->create(&eo)) == NULL) {
		cli_warn(&c, "cannot start the %s output", em->name);
		free(opts);
		return CLI_EXIT_WARN;
	}
	if (merge_aggs) {
		flags |= DTC_OPEN_NOAGGEXIT;
		dtc_error_clear(&merr);
		if ((merge = dtc_aggmerge_new(&merr)) == NULL)
			cli_report(&c, &merr);
	}
	for (i = optind; i < argc; i++)
		if (decode_file(&c, argv[i], flags, opts, nopts, em, st,
		    &exit_status, merge, &keep) != 0)
			break;
	if (merge != NULL && i == argc) {
		const dtc_event *ev;

		/* the merged aggregations, printed once after every file */
		while (dtc_aggmerge_next(merge, &ev) == DTC_OK)
			if (dispatch(&em->handler, ev, st, &exit_status) != 0)
				break;
	}
	dtc_aggmerge_free(merge);
	dtc_close(keep);
	werr = em->destroy(st);
	if (out != stdout && fclose(out) != 0)
		werr = -1;
	else if (out == stdout && fflush(stdout) != 0)
		werr = -1;
	if (werr != 0)
		cli_warn(&c, "error writing the output: %s", strerror(errno));
	free(opts);
	if (want_exit && c.status == CLI_EXIT_OK)
		return exit_status;
	return c.status;
}
