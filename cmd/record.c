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
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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
	/* -o FILE: a temporary file renamed over FILE at the first item */
	cli *cli;
	cli_out *file;
	/* --max-size: 0 none; full once the capture reached it */
	uint64_t max_size;
	int full;
	/* the series the capture is written as (record_rotate.c) */
	rec_rotate *rot;
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
	s->w = s->rot != NULL ? rec_rotate_start(s->rot, s->out, h, s->zlevel,
	    &s->err) : dtc_writer_new_zstd(s->out, h, s->zlevel, &s->err);
	if (s->w == NULL) {
		s->failed = 1;
	} else if (s->file != NULL && cli_out_commit(s->cli, s->file) != 0) {
		/* the message is out already: "cannot replace FILE: ..." */
		snprintf(s->err.text, sizeof(s->err.text), "not recorded");
		s->failed = 1;
	} else {
		s->started = 1;
	}
	return s->failed ? -1 : 0;
}

void
rec_sink_discard(rec_sink *s)
{
	/* the previous file under the name stays as it was */
	if (s->file != NULL && s->file->tmp != NULL) {
		(void)cli_out_close(s->cli, s->file, 0, 0, 0);
		s->file = NULL;
	}
}

/* --max-size: the capture is full once its bytes (those still in the
 * stream's buffer included) reach the limit. */
static void
sink_measure(rec_sink *s)
{
	off_t pos;

	if (s->max_size == 0 || s->full)
		return;
	if ((pos = ftello(s->out)) >= 0 && (uint64_t)pos >= s->max_size)
		s->full = 1;
}

int
rec_sink_full(const rec_sink *s)
{
	return s->full;
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
	sink_measure(s);
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
	if (s->rot != NULL)
		rec_rotate_note_record(s->rot);
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
	sink_measure(s);
	if (fflush(s->out) == EOF) {
		snprintf(s->err.text, sizeof(s->err.text), "write: %s",
		    strerror(errno));
		s->failed = 1;
		return -1;
	}
	/* --switch-output: the next part begins with the next pass */
	if (s->rot != NULL && rec_rotate_due(s->rot, s->out) &&
	    (s->w = rec_rotate_switch(s->rot, &s->out, &s->err)) == NULL) {
		s->failed = 1;
		return -1;
	}
	return 0;
}

void
rec_sink_note_time(rec_sink *s, uint64_t hrtime)
{
	if (s->rot != NULL)
		rec_rotate_note_time(s->rot, hrtime);
}

void
rec_sink_note_drops(rec_sink *s, int cpu, uint64_t drops)
{
	if (s->rot != NULL)
		rec_rotate_note_drops(s->rot, cpu, drops);
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
	/* the series owns its part's writer */
	rc = s->rot != NULL ? rec_rotate_finish(s->rot, exit_status, &s->err) :
	    dtc_writer_end(w, exit_status, &s->err);
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
		if (s->rot != NULL)
			rec_rotate_abandon(s->rot);
		else
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
	if (s->w != NULL && s->rot == NULL)
		dtc_writer_free(s->w);
	rec_rotate_free(s->rot);
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
"           [--max-size SIZE] [-z[LEVEL]|--compression-level[=LEVEL]]\n"
"           [--switch-output[=signal|SIZE|TIME]] [--switch-max-files N]\n"
"           [--ring SIZE]\n"
"           [args ...]\n"
"       dtsnap record -l [-n probe]... [-P provider] [-s script]...\n"
"       dtsnap record --version\n"
"\n"
"Run a D program as dtrace(1) runs it (until exit(), the end of -c cmd,\n"
"SIGINT or SIGTERM) and write what the consumer received to a .dtsnap\n"
"capture.  --tee FILE also writes what dtrace(1) would have printed on\n"
"its standard output to FILE (\"-\": this program's), and its messages to\n"
"standard error as dtrace(1) writes them.  -l lists the probes the\n"
"program would enable (every probe without one), as dtrace -l does,\n"
"and records nothing.  -z compresses the capture with zstd at LEVEL (1-19,\n"
"default 1), in frames ended at least once a pass.\n"
"\n"
"  --max-size SIZE  stop recording (as SIGINT would: the END clause, the\n"
"                   aggregations and the end item are still written) once\n"
"                   the capture holds SIZE bytes (suffix K, M or G: powers\n"
"                   of 1024); the exit status is then 3\n"
"  --switch-output[=signal|SIZE|TIME]\n"
"                   cut the capture into parts OUT.000000.dtsnap,\n"
"                   OUT.000001.dtsnap, ... (-o OUT.dtsnap), each a capture\n"
"                   on its own: a new part at the end of the consume pass\n"
"                   in which SIGUSR2 came (signal, the default), the part\n"
"                   reached SIZE bytes (suffix B, K, M or G) or spans TIME\n"
"                   (suffix s, m, h or d); dtconsume OUT.*.dtsnap decodes\n"
"                   them as one capture\n"
"  --switch-max-files N\n"
"                   keep the newest N parts, removing older ones\n"
"  --ring SIZE      a flight recorder: keep in memory only the newest\n"
"                   records (about SIZE bytes of capture, suffix K, M or\n"
"                   G) with all metadata and the aggregation state, and\n"
"                   write them to -o FILE as one capture on SIGUSR2 and\n"
"                   at the end\n"
"\n"
"-o FILE is written as a temporary file beside FILE, renamed over it at\n"
"the first item: a run that records nothing leaves FILE as it was.  A\n"
"symbolic link named by -o or --tee is refused, never followed.  See\n"
"dtsnap(1), RECORDING IN PRODUCTION.\n";

/* dtrace(1)'s options that dtsnap record takes; -o is the capture. */
static const char record_optstr[] = "+:b:c:CD:f:FhHi:I:lL:m:n:o:p:P:qs:U:wx:X:z::Z";

/* Long options without a letter (record_rotate.c's) */
enum { OPT_SWITCH = 1001, OPT_MAXFILES, OPT_RING };

/* The exit status of a recording stopped by --max-size. */
#define REC_E_FULL 3

/* SIZE[K|M|G] (powers of 1024, as perf record --max-size); 0: bad. */
static uint64_t
parse_size(const char *arg)
{
	char *end;
	uint64_t v, mul = 1;

	errno = 0;
	if (arg[0] < '0' || arg[0] > '9')
		return 0;
	v = strtoull(arg, &end, 10);
	if (errno != 0)
		return 0;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v > UINT64_MAX / mul)
		return 0;
	return v * mul;
}

static void __attribute__((format(printf, 1, 2), noreturn))
usage_error(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	/* the message quotes arguments: escaped as every message is */
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	fputs("dtsnap record: ", stderr);
	if (n >= 0)
		cli_escape(stderr, s, (size_t)n);
	fputs("\n(dtsnap record --help describes the options)\n", stderr);
	exit(REC_E_USAGE);
}

int
record_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tee", required_argument, NULL, 'T' },
		{ "max-size", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "compression-level", optional_argument, NULL, 'z' },
		{ "switch-output", optional_argument, NULL, OPT_SWITCH },
		{ "switch-max-files", required_argument, NULL, OPT_MAXFILES },
		{ "ring", required_argument, NULL, OPT_RING },
		{ NULL, 0, NULL, 0 }
	};
	const char *capname = NULL, *teename = NULL;
	uint64_t max_size = 0, sw_size = 0, sw_ns = 0, ring = 0;
	int sw_sig = 0, rotating = 0;
	long maxfiles = 0;
	const char *why = NULL;
	rec_rotate *rot;
	cli pc;
	cli_out capout, teeout;
	rec_config cfg;
	rec_arg *args;
	char **dargv;
	int nargs = 0, dargc = 0, c, status, i, list = 0, zlevel = 0;
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
		case 'V':
			printf("dtsnap record %s, %s\n", dtc_version_string(),
			    rec_backend_producer());
			return REC_E_SUCCESS;
		case 'l':
			list = 1;
			break;
		case 'o':
			capname = optarg;
			break;
		case 'T':
			teename = optarg;
			break;
		case 'M':
			if ((max_size = parse_size(optarg)) == 0)
				usage_error("--max-size takes a size in bytes "
				    "(suffix K, M or G), not '%s'", optarg);
			break;
		case OPT_SWITCH:
			if (rec_rotate_parse(optarg, &sw_size, &sw_ns, &sw_sig,
			    &why) != 0)
				usage_error("%s, not '%s'", why, optarg);
			rotating = 1;
			break;
		case OPT_RING:
			if ((ring = parse_size(optarg)) == 0)
				usage_error("--ring takes a size in bytes "
				    "(suffix K, M or G), not '%s'", optarg);
			break;
		case OPT_MAXFILES:
			errno = 0;
			maxfiles = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    maxfiles < 1)
				usage_error("--switch-max-files takes a number "
				    "of files from 1, not '%s'", optarg);
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

	if (list) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.args = args;
		cfg.nargs = nargs;
		cfg.dargv = dargv;
		cfg.dargc = dargc;
		cfg.diag = stderr;
		cfg.list = 1;
		status = rec_backend_run(&cfg);
		free(args);
		free(dargv);
		return status;
	}
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
	/* the size is the stream's offset: a pipe has none */
	if (max_size != 0 && strcmp(capname, "-") == 0 &&
	    lseek(STDOUT_FILENO, 0, SEEK_CUR) < 0)
		usage_error("--max-size needs a capture that is a file "
		    "(-o FILE), not a pipe");
	if (rotating && (strcmp(capname, "-") == 0 || max_size != 0))
		usage_error("--switch-output writes files named after -o FILE, "
		    "and bounds them itself (--switch-max-files): no -o - and "
		    "no --max-size with it");
	if (ring != 0 && (rotating || max_size != 0 ||
	    strcmp(capname, "-") == 0))
		usage_error("--ring writes its window to -o FILE on SIGUSR2 and "
		    "at the end: no -o -, --switch-output or --max-size with "
		    "it");
	if (maxfiles != 0 && !rotating)
		usage_error("--switch-max-files goes with --switch-output");
	if (strcmp(capname, "-") == 0 && teename != NULL &&
	    strcmp(teename, "-") == 0)
		usage_error("--tee - and -o - would both write to standard "
		    "output");

	/*
	 * Every file is close-on-exec (the -c command must not write into
	 * the capture), and none is opened through a symbolic link.
	 */
	cli_init(&pc, "dtsnap record");
	memset(&capout, 0, sizeof(capout));
	memset(&teeout, 0, sizeof(teeout));
	if ((rot = rec_rotate_new(&pc, &capout, rotating || ring != 0 ?
	    capname : NULL, sw_size, sw_ns, sw_sig, maxfiles, ring)) == NULL) {
		fputs("dtsnap record: out of memory\n", stderr);
		return REC_E_ERROR;
	}
	if (strcmp(capname, "-") == 0)
		capture = stdout;
	else if (cli_out_open(&pc, &capout, rotating ?
	    rec_rotate_first_name(rot) : capname) != 0) {
		rec_rotate_free(rot);
		return REC_E_ERROR;
	}
	else
		capture = capout.fp;
	if (teename != NULL && strcmp(teename, "-") == 0) {
		tee_out = stdout;
		tee_err = stderr;
	} else if (teename != NULL) {
		/* dtrace(1)'s stdout to the file, under its name at once (as
		 * a shell's > would: it can be followed); its messages
		 * (drops, errors) to our stderr, as dtrace writes them */
		if (cli_out_open(&pc, &teeout, teename) != 0 ||
		    cli_out_commit(&pc, &teeout) != 0) {
			if (capture != stdout)
				(void)cli_out_close(&pc, &capout, 0, 0, 0);
			rec_rotate_free(rot);
			return REC_E_ERROR;
		}
		tee_out = teeout.fp;
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
		rec_rotate_free(rot);
		return REC_E_ERROR;
	}
	cfg.sink->rot = rot;
	/* --ring: -o is written by the window, not at the start */
	if (capture != stdout && ring == 0) {
		cfg.sink->cli = &pc;
		cfg.sink->file = &capout;
	}
	cfg.sink->max_size = max_size;
	rec_sink_set_zstd(cfg.sink, zlevel);

	status = rec_backend_run(&cfg);

	if (cfg.sink != NULL && rec_sink_check(cfg.sink, 0) != 0) {
		cli_warn(&pc, "%s: %s",
		    strcmp(capname, "-") == 0 ? "<stdout>" : capname,
		    rec_sink_error(cfg.sink, ebuf, sizeof(ebuf)));
		if (status == REC_E_SUCCESS)
			status = REC_E_ERROR;
	}
	if (rec_sink_full(cfg.sink)) {
		cli_warn(&pc, "%s: stopped at --max-size "
		    "(%" PRIu64 " bytes)", strcmp(capname, "-") == 0 ?
		    "<stdout>" : capname, max_size);
		if (status == REC_E_SUCCESS)
			status = REC_E_FULL;
	}
	/* a write error was said above, with its reason */
	if (capture != stdout && rec_sink_check(cfg.sink, 0) != 0)
		clearerr(capout.fp);
	/* nothing traced (the program did not compile, ...): the temporary
	 * file goes, and what FILE held stays */
	if (capture != stdout && cli_out_close(&pc, &capout, 0, 0, 0) != 0 &&
	    status == REC_E_SUCCESS)
		status = REC_E_ERROR;
	rec_sink_free(cfg.sink);
	if (tee_out != NULL && tee_out != stdout &&
	    cli_out_close(&pc, &teeout, 1, 0, 0) != 0 && status == REC_E_SUCCESS)
		status = REC_E_ERROR;
	free(args);
	free(dargv);
	return status;
}
