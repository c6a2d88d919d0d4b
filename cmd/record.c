/*
 * dtsnap record - run a D program like dtrace(1) and write what the
 * consumer received as a .dtsnap capture (dtsnap(1), RECORD).
 *
 * This file is the command and the capture sink; everything that talks
 * to libdtrace is in the backend (record_dtrace.c behind record.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* ------------------------------------------------------------------ */
/* The capture sink                                                    */
/* ------------------------------------------------------------------ */

struct rec_sink {
	FILE *out;
	const char *name;
	dtc_writer *w;
	dtc_error err;
	int failed;
	int started;
	int zlevel;          /* -z: zstd level, 0 not compressed */
	uint32_t pass;
	/* the pending run: consecutive records of one CPU */
	int run_cpu;
	uint8_t *run;
	size_t run_len, run_cap;
};

/* A run this long is written out even if the CPU does not change, so
 * that a busy CPU cannot hold an unbounded amount in memory. */
#define REC_RUN_MAX (4u << 20)

rec_sink *
rec_sink_new(FILE *out, const char *name)
{
	rec_sink *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->out = out;
	s->name = name;
	s->run_cpu = -1;
	dtc_error_clear(&s->err);
	return s;
}

int
rec_sink_check(rec_sink *s, int rc)
{
	if (rc != 0)
		s->failed = 1;
	return s->failed ? -1 : 0;
}

int
rec_sink_start(rec_sink *s, const dtc_writer_header *h)
{
	if (s->failed)
		return -1;
	s->w = dtc_writer_new_zstd(s->out, h, s->zlevel, &s->err);
	if (s->w == NULL)
		s->failed = 1;
	else
		s->started = 1;
	return s->failed ? -1 : 0;
}

void
rec_sink_set_zstd(rec_sink *s, int level)
{
	s->zlevel = level;
}

int
rec_sink_started(const rec_sink *s)
{
	return s->started;
}

dtc_error *
rec_sink_err(rec_sink *s)
{
	return &s->err;
}

static int
sink_flush_run(rec_sink *s)
{
	int rc;

	if (s->failed || s->w == NULL)
		return -1;
	if (s->run_len == 0)
		return 0;
	rc = dtc_writer_add_recs(s->w, s->pass, s->run_cpu, s->run,
	    s->run_len, &s->err);
	s->run_len = 0;
	return rec_sink_check(s, rc);
}

dtc_writer *
rec_sink_meta(rec_sink *s)
{
	return s->failed ? NULL : s->w;
}

dtc_writer *
rec_sink_writer(rec_sink *s)
{
	if (sink_flush_run(s) != 0)
		return NULL;
	return s->w;
}

uint32_t
rec_sink_pass(const rec_sink *s)
{
	return s->pass;
}

int
rec_sink_record(rec_sink *s, int cpu, const void *rec, size_t size)
{
	if (s->failed || s->w == NULL)
		return -1;
	if ((cpu != s->run_cpu || s->run_len + size > REC_RUN_MAX) &&
	    sink_flush_run(s) != 0)
		return -1;
	s->run_cpu = cpu;
	if (s->run_len + size > s->run_cap) {
		size_t cap = s->run_cap ? s->run_cap : 4096;
		uint8_t *p;

		while (cap < s->run_len + size)
			cap *= 2;
		if ((p = realloc(s->run, cap)) == NULL) {
			snprintf(s->err.text, sizeof(s->err.text),
			    "out of memory for a run of %zu bytes", cap);
			s->failed = 1;
			return -1;
		}
		s->run = p;
		s->run_cap = cap;
	}
	memcpy(s->run + s->run_len, rec, size);
	s->run_len += size;
	return 0;
}

int
rec_sink_end_pass(rec_sink *s)
{
	if (sink_flush_run(s) != 0)
		return -1;
	s->pass++;
	/* a recorder killed later leaves every complete item of this pass
	 * (compressed: in a frame that ends here) */
	if (dtc_writer_flush(s->w, &s->err) != DTC_OK) {
		s->failed = 1;
		return -1;
	}
	if (fflush(s->out) == EOF) {
		snprintf(s->err.text, sizeof(s->err.text), "write: %s",
		    strerror(errno));
		s->failed = 1;
		return -1;
	}
	return 0;
}

int
rec_sink_finish(rec_sink *s, int exit_status)
{
	dtc_writer *w;
	int rc;

	if (sink_flush_run(s) != 0)
		return -1;
	w = s->w;
	s->w = NULL;
	rc = dtc_writer_end(w, exit_status, &s->err);
	if (rc != 0)
		s->failed = 1;
	if (fflush(s->out) == EOF && !s->failed) {
		snprintf(s->err.text, sizeof(s->err.text), "write: %s",
		    strerror(errno));
		s->failed = 1;
	}
	return s->failed ? -1 : 0;
}

void
rec_sink_abandon(rec_sink *s)
{
	if (s->w != NULL) {
		if (!s->failed)
			(void)sink_flush_run(s);
		dtc_writer_free(s->w);
		s->w = NULL;
	}
	(void)fflush(s->out);
}

const char *
rec_sink_error(rec_sink *s, char *buf, size_t len)
{
	if (s->err.code != DTC_E_NONE)
		dtc_error_format(&s->err, buf, len);
	else if (s->err.text[0] != '\0')
		snprintf(buf, len, "%s", s->err.text);
	else
		snprintf(buf, len, "capture write failed");
	return buf;
}

void
rec_sink_free(rec_sink *s)
{
	if (s == NULL)
		return;
	if (s->w != NULL)
		dtc_writer_free(s->w);
	free(s->run);
	free(s);
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

static const char record_usage[] =
"usage: dtsnap record [-qCwFZ] [-s script]... [-n probe]... [-P provider]\n"
"           [-m module] [-f function] [-i probe-id] [-x opt[=val]]...\n"
"           [-b bufsz] [-c cmd] [-p pid] [-D name[=def]] [-U name] [-I dir]\n"
"           [-L dir] [-X a|c|s|t] [-o capture.dtsnap|-] [--tee FILE|-]\n"
"           [-z[LEVEL]|--compression-level[=LEVEL]] [args ...]\n"
"\n"
"Run a D program as dtrace(1) runs it (until exit(), the end of -c cmd,\n"
"SIGINT or SIGTERM) and write what the consumer received to a .dtsnap\n"
"capture.  --tee FILE also writes what dtrace(1) would have printed on\n"
"its standard output to FILE (\"-\": this program's), and its messages to\n"
"standard error as dtrace(1) writes them.  -z compresses the capture with\n"
"zstd at LEVEL (1-19, default 1), in frames ended at least once a pass.\n"
"See dtsnap(1).\n";

/* dtrace(1)'s options that dtsnap record takes; -o is the capture. */
static const char record_optstr[] = "+:b:c:CD:f:FhHi:I:L:m:n:o:p:P:qs:U:wx:X:z::Z";

static void __attribute__((format(printf, 1, 2), noreturn))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("dtsnap record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(dtsnap record --help describes the options)\n", stderr);
	exit(REC_E_USAGE);
}

int
record_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tee", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "compression-level", optional_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 }
	};
	const char *capname = NULL, *teename = NULL;
	rec_config cfg;
	rec_arg *args;
	char **dargv;
	int nargs = 0, dargc = 0, c, status, i, zlevel = 0;
	char *end;
	FILE *capture, *tee_out = NULL, *tee_err = NULL;
	char ebuf[400];

	if ((args = calloc(argc + 1, sizeof(*args))) == NULL ||
	    (dargv = calloc(argc + 2, sizeof(*dargv))) == NULL) {
		fputs("dtsnap record: out of memory\n", stderr);
		return REC_E_ERROR;
	}
	/* $0: dtrace(1) passes its own argv[0] */
	dargv[dargc++] = "dtrace";

	/*
	 * Options in order (dtrace(1) applies them in passes, each in
	 * command-line order); operands are the macro arguments.  The
	 * leading '+' keeps getopt from permuting, so walk the operands
	 * by hand as dtrace(1)'s permuting getopt would see them.
	 */
	optind = 1;
	opterr = 0;
	for (;;) {
		if (optind < argc && (argv[optind][0] != '-' ||
		    argv[optind][1] == '\0')) {
			dargv[dargc++] = argv[optind++];
			continue;
		}
		if (optind < argc && strcmp(argv[optind], "--") == 0) {
			for (optind++; optind < argc; optind++)
				dargv[dargc++] = argv[optind];
			break;
		}
		if ((c = getopt_long(argc, argv, record_optstr, longopts,
		    NULL)) == -1)
			break;
		switch (c) {
		case 'h':
			fputs(record_usage, stdout);
			return REC_E_SUCCESS;
		case 'o':
			capname = optarg;
			break;
		case 'T':
			teename = optarg;
			break;
		case 'z':
			/* as perf record's -z: level 1 unless given */
			zlevel = 1;
			if (optarg == NULL)
				break;
			errno = 0;
			zlevel = (int)strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    zlevel < 1 || zlevel > DTC_ZSTD_LEVEL_MAX)
				usage_error("-z takes a zstd level from 1 to "
				    "%d, not '%s'", DTC_ZSTD_LEVEL_MAX, optarg);
			break;
		case ':':
			usage_error("option -%c needs an argument", optopt);
		case '?':
			if (optopt != 0)
				usage_error("unknown option -%c", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		default:
			args[nargs].opt = c;
			args[nargs].arg = optarg;
			nargs++;
		}
	}
	dargv[dargc] = NULL;

	for (i = 0; i < nargs; i++)
		if (strchr("snPmfi", args[i].opt) != NULL)
			break;
	if (i == nargs)
		usage_error("no program: give -s script, -n probe, -P, -m, "
		    "-f or -i");
	if (capname == NULL) {
		if (isatty(STDOUT_FILENO))
			usage_error("no capture file: -o FILE (or -o - with "
			    "standard output not a terminal)");
		capname = "-";
	}
	if (strcmp(capname, "-") == 0 && teename != NULL &&
	    strcmp(teename, "-") == 0)
		usage_error("--tee - and -o - would both write to standard "
		    "output");

	if (strcmp(capname, "-") == 0) {
		capture = stdout;
	} else if ((capture = fopen(capname, "wb")) == NULL) {
		fprintf(stderr, "dtsnap record: %s: %s\n", capname,
		    strerror(errno));
		return REC_E_ERROR;
	}
	if (teename != NULL && strcmp(teename, "-") == 0) {
		tee_out = stdout;
		tee_err = stderr;
	} else if (teename != NULL) {
		/* dtrace(1)'s stdout to the file; its messages (drops, errors)
		 * to our stderr, as dtrace writes them */
		if ((tee_out = fopen(teename, "w")) == NULL) {
			fprintf(stderr, "dtsnap record: %s: %s\n", teename,
			    strerror(errno));
			return REC_E_ERROR;
		}
		tee_err = stderr;
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.args = args;
	cfg.nargs = nargs;
	cfg.dargv = dargv;
	cfg.dargc = dargc;
	cfg.tee_out = tee_out;
	cfg.tee_err = tee_err;
	cfg.diag = stderr;
	cfg.capture = capture;
	cfg.capture_name = capname;
	if ((cfg.sink = rec_sink_new(capture, capname)) == NULL) {
		fputs("dtsnap record: out of memory\n", stderr);
		return REC_E_ERROR;
	}
	rec_sink_set_zstd(cfg.sink, zlevel);

	status = rec_backend_run(&cfg);

	if (cfg.sink != NULL && rec_sink_check(cfg.sink, 0) != 0) {
		fprintf(stderr, "dtsnap record: %s: %s\n",
		    strcmp(capname, "-") == 0 ? "<stdout>" : capname,
		    rec_sink_error(cfg.sink, ebuf, sizeof(ebuf)));
		if (status == REC_E_SUCCESS)
			status = REC_E_ERROR;
	}
	if (capture != stdout && fclose(capture) != 0) {
		fprintf(stderr, "dtsnap record: %s: %s\n", capname,
		    strerror(errno));
		if (status == REC_E_SUCCESS)
			status = REC_E_ERROR;
	}
	/* nothing traced (the program did not compile, ...): no capture */
	if (capture != stdout && !rec_sink_started(cfg.sink))
		(void)unlink(capname);
	rec_sink_free(cfg.sink);
	if (tee_out != NULL && tee_out != stdout)
		fclose(tee_out);
	free(args);
	free(dargv);
	return status;
}
