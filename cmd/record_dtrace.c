/*
 * record_dtrace.c - dtsnap record's backend for DTrace for Linux
 * (oracle/dtrace-utils, "DTrace v2"): the only file that calls libdtrace.
 *
 * main loop, handlers and printing mirror dtrace-utils' cmd/dtrace.c
 * (its function names are kept: chew, chewrec, go, exec_prog, ...), so
 * that --tee prints exactly what dtrace(1) prints; capture writing hooks
 * in where libdtrace hands the consumer something:
 *
 *   - the probe callback (chew) sees every record libdtrace delivers,
 *     committed speculations included, as the perf buffer held it
 *     (pdat->dtpda_data: size word, specid, prid, stid, data); records
 *     go to the sink's per-CPU runs, with their stmt/probe/format
 *     metadata written first;
 *   - on the first delivery of a pass (one dtrace_work()), the
 *     aggregation hash libdtrace just snapped is written as an aggsnap;
 *   - the drop and error handlers write drop and fault items;
 *   - what libdtrace answers for user addresses: record_uaddr.c.
 *
 * Nothing here changes what libdtrace prints or the order it prints it:
 * the same callbacks run with or without a tee (without one, libdtrace
 * prints into /dev/null).
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>

#include <alloca.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dtrace.h>

#include "cli.h"
#include "record.h"
#include "record_program.h"
#include "record_uaddr.h"

#define	DONE_SAW_END	1	/* If END is not enabled, we pretend */
#define	DONE_SAW_EXIT	2	/* exit() action processed */

#define	E_SUCCESS	REC_E_SUCCESS
#define	E_ERROR		REC_E_ERROR
#define	E_USAGE		REC_E_USAGE

/* tracefs's magic number (linux/magic.h TRACEFS_MAGIC) */
#define	REC_TRACEFS_MAGIC	0x74726163

typedef struct dtrace_cmd {
	void (*dc_func)(struct dtrace_cmd *);	/* function to compile arg */
	dtrace_probespec_t dc_spec;		/* probe specifier context */
	char *dc_arg;				/* argument from main argv */
	const char *dc_name;			/* name for error messages */
	const char *dc_desc;			/* desc for error messages */
	dtrace_prog_t *dc_prog;			/* program compiled from arg */
	int dc_opt;				/* its option letter */
} dtrace_cmd_t;

typedef struct rec_stmt {
	const dtrace_datadesc_t *ddesc;
	int written;
} rec_stmt;

typedef struct rec_fmt {
	const void *fmtdata;
	uint16_t id;
} rec_fmt;

/* a print() type already written to the capture */
typedef struct rec_ctype {
	char *module;
	uint64_t id;
} rec_ctype;

/*
 * The command's state (dtrace(1) keeps the same in its g_* globals);
 * the signal handler needs it static.
 */
static struct {
	const rec_config *cfg;
	rec_sink *sink;
	dtrace_hdl_t *dtp;
	FILE *ofp;			/* libdtrace's and chew's output */
	FILE *devnull;
	char **argv;			/* $0 and the macro arguments */
	int argc;
	dtrace_cmd_t *cmdv;
	int cmdc;
	struct dtrace_proc **psv;
	int psc;
	int pslive;
	int quiet, testing, flowindent, newline, total, cflags;
	int status;
	int heading;
	volatile sig_atomic_t intr, impatient;

	/* capture state */
	int started;			/* header written */
	int capture_failed;		/* reported once; tracing stops */
	uint8_t *probes;		/* by probe id: 1 = probe item written */
	size_t nprobes;
	rec_stmt *stmts;		/* by statement id */
	size_t nstmts;
	rec_fmt *fmts;
	size_t nfmts;
	rec_ctype *ctypes;
	size_t nctypes;
	uint8_t *aggs;			/* by aggregation id: aggdesc written */
	size_t naggs;
	int pass_snapped;		/* aggsnap of this pass written */
	int pass_clocked;		/* clock of this pass written */
	int recs_since_snap;		/* records delivered since the last aggsnap */
	int snap_written;
	int ksyms_written;
	size_t snap_n;
	uint64_t snap_digest;
	uint64_t snap_time;		/* CLOCK_MONOTONIC ns of the last aggsnap */
} g;

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/*
 * The recorder's own messages quote file names, probe names and what
 * libdtrace says: escaped as the decoder's are (cli.c), the final
 * newline kept.  What goes to a tee stays dtrace(1)'s bytes.
 */
static void
diag_vprint(FILE *fp, const char *fmt, va_list ap)
{
	char *s;
	int n = vasprintf(&s, fmt, ap);
	size_t len;

	if (n < 0)
		return;
	len = (size_t)n;
	if (fp == g.cfg->tee_err) {
		fwrite(s, 1, len, fp);
	} else {
		cli_escape(fp, s, len - (len > 0 && s[len - 1] == '\n'));
		if (len > 0 && s[len - 1] == '\n')
			putc('\n', fp);
	}
	free(s);
}

static void __attribute__((format(printf, 2, 3)))
diag_print(FILE *fp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vprint(fp, fmt, ap);
	va_end(ap);
}

/*
 * dtrace(1) writes its messages as "dtrace: ..." to stderr; with a tee
 * they go there verbatim.  Without one they go to our stderr as ours.
 */
static void
vmsg(int errnum, const char *fmt, va_list ap)
{
	FILE *fp = g.cfg->tee_err != NULL ? g.cfg->tee_err : g.cfg->diag;

	fprintf(fp, "%s: ", g.cfg->tee_err != NULL ? "dtrace" : "dtsnap record");
	diag_vprint(fp, fmt, ap);
	if (fmt[0] != '\0' && fmt[strlen(fmt) - 1] != '\n')
		diag_print(fp, ": %s\n", strerror(errnum));
}

static void __attribute__((format(printf, 1, 2)))
error(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(errnum, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 1, 2)))
notice(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	if (g.quiet)
		return; /* -q or quiet pragma suppresses notice()s */

	va_start(ap, fmt);
	vmsg(errnum, fmt, ap);
	va_end(ap);
}

/* A fatal error: to the tee as dtrace(1) prints it, and to our stderr. */
static void __attribute__((format(printf, 2, 3)))
fatal_msg(const char *detail, const char *fmt, ...)
{
	FILE *out[2];
	int n = 0, i;
	va_list ap;

	if (g.cfg->tee_err != NULL)
		out[n++] = g.cfg->tee_err;
	if (g.cfg->tee_err != stderr)
		out[n++] = g.cfg->diag;
	for (i = 0; i < n; i++) {
		fprintf(out[i], "%s: ",
		    out[i] == g.cfg->tee_err ? "dtrace" : "dtsnap record");
		if (fmt != NULL) {
			va_start(ap, fmt);
			diag_vprint(out[i], fmt, ap);
			va_end(ap);
		}
		if (fmt != NULL && fmt[strlen(fmt) - 1] != '\n')
			diag_print(out[i], ": %s\n", detail);
		else if (fmt == NULL)
			diag_print(out[i], "%s\n", detail);
	}
}

/*
 * The recorder's own warning: to our stderr, never to dtrace's (a tee),
 * and escaped even when that stderr is the tee's too (--tee -): it is
 * ours, not dtrace's.
 */
static void __attribute__((format(printf, 1, 2)))
rwarn(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	fputs("dtsnap record: ", g.cfg->diag);
	if (n >= 0) {
		cli_escape(g.cfg->diag, s, (size_t)n);
		free(s);
	}
	putc('\n', g.cfg->diag);
}

static void __attribute__((noreturn))
die(void)
{
	/* the capture keeps what was written, without an end item */
	if (g.started)
		rec_sink_abandon(g.sink);
	else
		rec_sink_discard(g.sink);
	if (g.ofp != NULL)
		fflush(g.ofp);
	/* close the handle so that controlled processes are continued */
	if (g.dtp != NULL)
		dtrace_close(g.dtp);
	exit(E_ERROR);
}

#define	fatal(...)	do { \
	fatal_msg(strerror(errno), __VA_ARGS__); die(); } while (0)
#define	dfatal(...)	do { \
	fatal_msg(dtrace_errmsg(g.dtp, dtrace_errno(g.dtp)), __VA_ARGS__); \
	die(); } while (0)

static void __attribute__((format(printf, 1, 2)))
oprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (g.ofp == NULL)
		return;

	va_start(ap, fmt);
	n = vfprintf(g.ofp, fmt, ap);
	va_end(ap);

	if (n < 0) {
		if (errno != EINTR)
			fatal("failed to write to %s", "<stdout>");
		clearerr(g.ofp);
	}
}

/* The capture failed: say so once and stop tracing as SIGINT would. */
static void
capture_failed(void)
{
	char buf[400];

	if (g.capture_failed)
		return;
	g.capture_failed = 1;
	rwarn("%s: %s; stopping", strcmp(g.cfg->capture_name, "-") == 0 ?
	    "<stdout>" : g.cfg->capture_name,
	    rec_sink_error(g.sink, buf, sizeof(buf)));
	g.intr = 1;
}

/* ------------------------------------------------------------------ */
/* Capture metadata                                                    */
/* ------------------------------------------------------------------ */

int
rec_grow(void *pp, size_t *n, size_t need, size_t elsize)
{
	size_t nn = *n ? *n : 64;
	void *p;

	if (need < *n)
		return 0;
	while (nn <= need)
		nn *= 2;
	if ((p = realloc(*(void **)pp, nn * elsize)) == NULL)
		return -1;
	memset((char *)p + *n * elsize, 0, (nn - *n) * elsize);
	*(void **)pp = p;
	*n = nn;
	return 0;
}

static int
need_probe(const dtrace_probedesc_t *pd)
{
	dtc_probedesc p;
	dtc_writer *w;

	if (pd->id < g.nprobes && g.probes[pd->id])
		return 0;
	if (rec_grow(&g.probes, &g.nprobes, pd->id, 1) != 0)
		return -1;
	if ((w = rec_sink_meta(g.sink)) == NULL)
		return -1;
	memset(&p, 0, sizeof(p));
	p.id = pd->id;
	p.provider = pd->prv;
	p.module = pd->mod;
	p.function = pd->fun;
	p.name = pd->prb;
	if (rec_sink_check(g.sink,
	    dtc_writer_add_probe(w, &p, rec_sink_err(g.sink))) != 0)
		return -1;
	g.probes[pd->id] = 1;
	return 0;
}

static int write_ksyms(void);
static int write_clock(int64_t pass);

/* Kernel symbols are big (100k+ of them): written only once needed. */
static int
need_ksyms(void)
{
	if (g.ksyms_written)
		return 0;
	g.ksyms_written = 1;
	return write_ksyms();
}

/* Whether a format has %a (kernel symbol+offset) or %k (kernel stack). */
static int
format_has_kaddr(const char *s)
{
	for (; (s = strchr(s, '%')) != NULL; s++) {
		if (s[1] == '%') {
			s++;
			continue;
		}
		s += strspn(s + 1, "#0-+ *.'@?0123456789") + 1;
		if (*s == 'a' || *s == 'k')
			return 1;
		if (*s == '\0')
			break;
	}
	return 0;
}

/* Format ids: one per distinct libdtrace format (dtrd_format pointer). */
static int
format_id(const void *fmtdata, uint16_t *idp)
{
	dtc_writer *w;
	size_t i, len;
	char *s;
	rec_fmt *f;
	int rc;

	*idp = 0;
	if (fmtdata == NULL)
		return 0;
	for (i = 0; i < g.nfmts; i++) {
		if (g.fmts[i].fmtdata == fmtdata) {
			*idp = g.fmts[i].id;
			return 0;
		}
	}
	if (g.nfmts >= UINT16_MAX - 1)
		return -1;
	if ((f = realloc(g.fmts, (g.nfmts + 1) * sizeof(*f))) == NULL)
		return -1;
	g.fmts = f;
	len = dtrace_printf_format(g.dtp, (void *)fmtdata, NULL, 0);
	if ((s = malloc(len + 1)) == NULL)
		return -1;
	dtrace_printf_format(g.dtp, (void *)fmtdata, s, len + 1);
	s[len] = '\0';
	if (format_has_kaddr(s) && need_ksyms() != 0) {
		free(s);
		return -1;
	}
	if ((w = rec_sink_meta(g.sink)) == NULL) {
		free(s);
		return -1;
	}
	f[g.nfmts].fmtdata = fmtdata;
	f[g.nfmts].id = (uint16_t)(g.nfmts + 1);
	rc = dtc_writer_add_format(w, f[g.nfmts].id, s, rec_sink_err(g.sink));
	free(s);
	if (rec_sink_check(g.sink, rc) != 0)
		return -1;
	*idp = f[g.nfmts].id;
	g.nfmts++;
	return 0;
}

static int
convert_recs(const dtrace_recdesc_t *in, size_t n, dtc_recdesc *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if ((in[i].dtrd_action == DTRACEACT_STACK ||
		    in[i].dtrd_action == DTRACEACT_SYM ||
		    in[i].dtrd_action == DTRACEACT_MOD) && need_ksyms() != 0)
			return -1;
		memset(&out[i], 0, sizeof(out[i]));
		out[i].action = (uint16_t)in[i].dtrd_action;
		out[i].alignment = in[i].dtrd_alignment;
		out[i].size = in[i].dtrd_size;
		out[i].offset = in[i].dtrd_offset;
		out[i].arg = in[i].dtrd_arg;
		out[i].uarg = in[i].dtrd_uarg;
		if (format_id(in[i].dtrd_format, &out[i].format) != 0)
			return -1;
	}
	return 0;
}

/*
 * print()'s types.  A print() is two records; the first names, in its
 * format, the module whose CTF holds the type and, in its arg, the type's
 * id there (dtrace-utils dt_cg_act_print).  The type and what printing
 * it needs are copied out of libdtrace's own dictionary into one of
 * their own (record_ctf.c), written as a ctf item with the id pair,
 * before the statement's first record.  A type libdtrace cannot give back is
 * reported and left out: its records then decode as raw bytes.
 */
static int
ctype_written(const char *module, uint64_t id)
{
	size_t i;

	for (i = 0; i < g.nctypes; i++)
		if (g.ctypes[i].id == id &&
		    strcmp(g.ctypes[i].module, module) == 0)
			return 1;
	return 0;
}

static int
write_ctype(const char *module, uint64_t id)
{
	static const char *const known[] = { "int", "char", "long" };
	dtrace_typeinfo_t ti;
	unsigned long nid;
	unsigned char *data;
	const char *why;
	size_t size = 0, i;
	uint64_t pair[2];
	rec_ctype *grown;
	dtc_writer *w;
	int rc;

	/* the module's dictionary: a lookup of a type every C module has */
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (dtrace_lookup_by_type(g.dtp, module, known[i], &ti) == 0)
			break;
	if (i == sizeof(known) / sizeof(known[0])) {
		rwarn("print() type %llu of module %s: no CTF (%s); its records "
		    "will decode as raw bytes", (unsigned long long)id, module,
		    dtrace_errmsg(g.dtp, dtrace_errno(g.dtp)));
		return 0;
	}
	if ((data = rec_ctf_extract(ti.dtt_ctfp, id, &size, &nid, &why)) ==
	    NULL) {
		rwarn("print() type %llu of module %s: cannot copy it (%s); its "
		    "records will decode as raw bytes", (unsigned long long)id,
		    module, why);
		return 0;
	}
	pair[0] = id;
	pair[1] = (uint64_t)nid;
	if ((w = rec_sink_meta(g.sink)) == NULL) {
		free(data);
		return -1;
	}
	rc = dtc_writer_add_ctf(w, module, data, size, pair, 1,
	    rec_sink_err(g.sink));
	free(data);
	if (rec_sink_check(g.sink, rc) != 0)
		return -1;
	if ((grown = realloc(g.ctypes, (g.nctypes + 1) * sizeof(*grown))) ==
	    NULL)
		return -1;
	g.ctypes = grown;
	if ((g.ctypes[g.nctypes].module = strdup(module)) == NULL)
		return -1;
	g.ctypes[g.nctypes++].id = id;
	return 0;
}

static int
write_print_types(const dtrace_datadesc_t *dd)
{
	char module[256];
	int i;

	for (i = 0; i < dd->dtdd_nrecs; i++) {
		const dtrace_recdesc_t *rd = &dd->dtdd_recs[i];

		if (rd->dtrd_action != DTRACEACT_PRINT ||
		    rd->dtrd_format == NULL)
			continue;
		if (dtrace_printf_format(g.dtp, rd->dtrd_format, module,
		    sizeof(module)) >= sizeof(module))
			continue;
		if (ctype_written(module, rd->dtrd_arg))
			continue;
		if (write_ctype(module, rd->dtrd_arg) != 0)
			return -1;
	}
	return 0;
}

static int
need_stmt(dtrace_stid_t stid, const dtrace_datadesc_t *dd)
{
	dtc_stmtdesc sd;
	dtc_recdesc *recs;
	dtc_writer *w;
	int rc;

	if (stid < g.nstmts && g.stmts[stid].written)
		return 0;
	if (rec_grow(&g.stmts, &g.nstmts, stid, sizeof(*g.stmts)) != 0)
		return -1;
	if (write_print_types(dd) != 0)
		return -1;
	if ((recs = calloc(dd->dtdd_nrecs + 1, sizeof(*recs))) == NULL ||
	    convert_recs(dd->dtdd_recs, dd->dtdd_nrecs, recs) != 0 ||
	    (w = rec_sink_meta(g.sink)) == NULL) {
		free(recs);
		return -1;
	}
	memset(&sd, 0, sizeof(sd));
	sd.id = stid;
	sd.uarg = dd->dtdd_uarg;
	sd.size = dd->dtdd_size;
	sd.nrecs = dd->dtdd_nrecs;
	sd.recs = recs;
	rc = dtc_writer_add_stmt(w, &sd, rec_sink_err(g.sink));
	free(recs);
	if (rec_sink_check(g.sink, rc) != 0)
		return -1;
	g.stmts[stid].ddesc = dd;
	g.stmts[stid].written = 1;
	return 0;
}

static int
need_aggdesc(uint32_t aggid, const dtrace_aggdesc_t *agd)
{
	dtc_aggdesc_v2 ad;
	dtc_recdesc *krecs, *drecs;
	dtc_writer *w;
	int rc = -1;

	if (aggid < g.naggs && g.aggs[aggid])
		return 0;
	if (rec_grow(&g.aggs, &g.naggs, aggid, 1) != 0)
		return -1;
	/* dtagd_drecs: the data generation counter, then the value */
	krecs = calloc(agd->dtagd_nkrecs + 1, sizeof(*krecs));
	drecs = calloc(2, sizeof(*drecs));
	if (krecs == NULL || drecs == NULL ||
	    convert_recs(agd->dtagd_krecs, agd->dtagd_nkrecs, krecs) != 0 ||
	    convert_recs(agd->dtagd_drecs, 2, drecs) != 0 ||
	    (w = rec_sink_meta(g.sink)) == NULL)
		goto out;
	memset(&ad, 0, sizeof(ad));
	ad.id = aggid;
	ad.varid = agd->dtagd_varid;
	ad.name = agd->dtagd_name != NULL ? agd->dtagd_name : "";
	if (ad.name[0] == '@')
		ad.name++;
	/* libdtrace names the anonymous aggregation "@_" */
	if (strcmp(ad.name, "_") == 0)
		ad.name = "";
	/* PRINTED is run-time state printa() sets; the decoder tracks it */
	ad.flags = (uint32_t)agd->dtagd_flags & ~(uint32_t)DTRACE_AGD_PRINTED;
	ad.sig = agd->dtagd_sig;
	ad.normal = agd->dtagd_normal;
	ad.ksize = agd->dtagd_ksize;
	ad.dsize = agd->dtagd_dsize;
	ad.nkrecs = agd->dtagd_nkrecs;
	ad.krecs = krecs;
	ad.ndrecs = 2;
	ad.drecs = drecs;
	rc = rec_sink_check(g.sink,
	    dtc_writer_add_aggdesc_v2(w, &ad, rec_sink_err(g.sink)));
	if (rc == 0)
		g.aggs[aggid] = 1;
out:
	free(krecs);
	free(drecs);
	return rc;
}

/*
 * The description of an aggregation without entries.  libdtrace keeps it
 * (dt_aggid_lookup) but has no public call for it, except that a joined
 * walk fills the column of a variable without entries with its
 * description, for printa() to print zeros in that function's layout:
 * walk [an aggregation with entries, aggid] and take the second column's.
 * With no entries anywhere printa() prints nothing, and nothing is lost.
 */
typedef struct descwalk {
	uint32_t want, have;
	int done;
} descwalk_t;

static int
any_entry(const dtrace_aggdata_t *agd, void *arg)
{
	descwalk_t *dw = arg;

	if (dw->have == 0)
		memcpy(&dw->have, agd->dtada_key, sizeof(dw->have));
	return DTRACE_AGGWALK_NEXT;
}

static int
joined_column(const dtrace_aggdata_t **ad, const int n, void *arg)
{
	descwalk_t *dw = arg;
	const dtrace_aggdesc_t *d;

	/* ad[0] holds the key; ad[1], ad[2] the two columns */
	if (dw->done || n < 3 || ad[2] == NULL)
		return DTRACE_AGGWALK_NEXT;
	dw->done = 1;
	d = ad[2]->dtada_desc;
	/* an aggid libdtrace does not know comes back as the first column */
	if (d != NULL && (uint32_t)d->dtagd_varid == dw->want)
		(void)need_aggdesc(dw->want, d);
	return DTRACE_AGGWALK_NEXT;
}

static void
describe_agg(uint32_t aggid);

/* Every aggregation a printa() at rec names: libdtrace calls the record
 * callback for its first record only and prints from all of them (the
 * records that follow with the same arg). */
static void
describe_printa(const dtrace_probedata_t *data, const dtrace_recdesc_t *rec)
{
	const dtrace_datadesc_t *dd = data->dtpda_ddesc;
	const uint8_t *base = (const uint8_t *)data->dtpda_data -
	    rec->dtrd_offset;
	int i = (int)(rec - dd->dtdd_recs);

	for (; i >= 0 && i < dd->dtdd_nrecs; i++) {
		const dtrace_recdesc_t *r = &dd->dtdd_recs[i];
		uint32_t id;

		if (r->dtrd_action != DTRACEACT_PRINTA ||
		    r->dtrd_arg != rec->dtrd_arg)
			break;
		if (r->dtrd_size != sizeof(id))
			continue;
		memcpy(&id, base + r->dtrd_offset, sizeof(id));
		describe_agg(id);
	}
}

static void
describe_agg(uint32_t aggid)
{
	descwalk_t dw = { aggid, 0, 0 };
	dtrace_aggid_t ids[2];

	if (aggid == 0 || (aggid < g.naggs && g.aggs[aggid]))
		return;
	(void)dtrace_aggregate_walk(g.dtp, any_entry, &dw);
	if (dw.have == 0 || dw.have == aggid)
		return;
	ids[0] = (dtrace_aggid_t)dw.have;
	ids[1] = (dtrace_aggid_t)aggid;
	(void)dtrace_aggregate_walk_joined(g.dtp, ids, 2, joined_column, &dw);
}

/* The first SIGINT/SIGTERM: dtrace(1) prints a newline where it notices
 * it; the capture says where, so that the decode prints it there too. */
static int
write_interrupt(void)
{
	dtc_writer *w = rec_sink_writer(g.sink);

	return w == NULL ? -1 : rec_sink_check(g.sink,
	    dtc_writer_add_interrupt(w, rec_sink_pass(g.sink),
	    rec_sink_err(g.sink)));
}

/* ------------------------------------------------------------------ */
/* Aggregation snapshots                                               */
/* ------------------------------------------------------------------ */

typedef struct snapwalk {
	size_t n;
	uint64_t digest;
	int failed;
} snapwalk_t;

static uint64_t
fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n-- > 0) {
		h ^= *b++;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static int
snap_count(const dtrace_aggdata_t *agd, void *arg)
{
	snapwalk_t *sw = arg;
	const dtrace_aggdesc_t *desc = agd->dtada_desc;
	uint32_t aggid;

	memcpy(&aggid, agd->dtada_key, sizeof(aggid));
	if (need_aggdesc(aggid, desc) != 0)
		sw->failed = 1;
	sw->n++;
	sw->digest = fnv1a(sw->digest, &aggid, sizeof(aggid));
	sw->digest = fnv1a(sw->digest, agd->dtada_key, desc->dtagd_ksize);
	sw->digest = fnv1a(sw->digest, agd->dtada_data, desc->dtagd_dsize);
	return DTRACE_AGGWALK_NEXT;
}

static int
snap_entry(const dtrace_aggdata_t *agd, void *arg)
{
	snapwalk_t *sw = arg;
	const dtrace_aggdesc_t *desc = agd->dtada_desc;
	dtc_writer *w = rec_sink_meta(g.sink);
	uint32_t aggid;

	memcpy(&aggid, agd->dtada_key, sizeof(aggid));
	if (w == NULL || rec_sink_check(g.sink, dtc_writer_add_aggsnap_entry(w,
	    aggid, agd->dtada_key, desc->dtagd_ksize, agd->dtada_data,
	    desc->dtagd_dsize, rec_sink_err(g.sink))) != 0)
		sw->failed = 1;
	return DTRACE_AGGWALK_NEXT;
}

/*
 * Write libdtrace's aggregation hash as it stands.  An aggsnap that
 * would repeat the previous one while no record was delivered in
 * between (no clear(), trunc() or printa() to account for) is left out.
 */
static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
write_aggsnap(void)
{
	snapwalk_t sw = { 0, UINT64_C(0xcbf29ce484222325), 0 };
	dtc_writer *w;

	g.pass_snapped = 1;
	if (dtrace_aggregate_walk(g.dtp, snap_count, &sw) != 0 || sw.failed)
		return -1;
	if (sw.n == 0 && (!g.snap_written || g.snap_n == 0))
		return 0;
	if (g.snap_written && !g.recs_since_snap && sw.n == g.snap_n &&
	    sw.digest == g.snap_digest)
		return 0;
	if ((w = rec_sink_writer(g.sink)) == NULL ||
	    rec_sink_check(g.sink, dtc_writer_aggsnap_begin(w,
	    rec_sink_pass(g.sink), sw.n, rec_sink_err(g.sink))) != 0)
		return -1;
	if (dtrace_aggregate_walk(g.dtp, snap_entry, &sw) != 0 || sw.failed)
		return -1;
	if (rec_sink_check(g.sink,
	    dtc_writer_aggsnap_end(w, rec_sink_err(g.sink))) != 0)
		return -1;
	g.snap_written = 1;
	g.snap_n = sw.n;
	g.snap_digest = sw.digest;
	g.recs_since_snap = 0;
	g.snap_time = mono_ns();
	return 0;
}

/*
 * A pass without records prints nothing, so its aggregation state is
 * needed only as the newest state: for the final print, or where a
 * recording killed later stops.  It is written at the last pass, and
 * otherwise at most once per interval: -x aggrate when set (libdtrace
 * then snaps no more often either), else REC_SNAP_INTERVAL.  A pass
 * with records writes its state before its first record (capture_probe):
 * any record may print, clear or truncate an aggregation.  dtsnap(5).
 */
#define	REC_SNAP_INTERVAL	(UINT64_C(10) * 1000000000u)

static int
snap_due(int last)
{
	dtrace_optval_t rate;
	uint64_t interval = REC_SNAP_INTERVAL;

	if (last || !g.snap_written)
		return 1;
	if (dtrace_getopt(g.dtp, "aggrate", &rate) == 0 && rate > 0 &&
	    rate != DTRACEOPT_UNSET)
		interval = (uint64_t)rate;
	return mono_ns() - g.snap_time >= interval;
}

/* What the probe callback records before dtrace(1)'s chew() runs. */
static void
capture_probe(const dtrace_probedata_t *data)
{
	const uint8_t *rec = (const uint8_t *)data->dtpda_data;
	uint32_t size;

	if (g.capture_failed)
		return;
	if (rec_uaddr_flush() != 0)
		goto fail;
	if (!g.pass_snapped && write_aggsnap() != 0)
		goto fail;
	if (!g.pass_clocked) {
		if (write_clock((int64_t)rec_sink_pass(g.sink)) != 0)
			goto fail;
		g.pass_clocked = 1;
	}
	if (need_probe(data->dtpda_pdesc) != 0 ||
	    need_stmt(data->dtpda_stid, data->dtpda_ddesc) != 0)
		goto fail;
	memcpy(&size, rec, sizeof(size));
	/* the record too, once libdtrace has printed it */
	if (rec_uaddr_record(data->dtpda_ddesc, (int)data->dtpda_cpu, rec,
	    sizeof(size) + (size_t)size) != 0)
		goto fail;
	g.recs_since_snap = 1;
	return;
fail:
	capture_failed();
}

/* ------------------------------------------------------------------ */
/* Capture header and the metadata written after dtrace_go()           */
/* ------------------------------------------------------------------ */

/* The CPU ids the kernel may use: "0-7" or "0,2-3" in cpu/possible. */
static uint32_t
ncpu_possible(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	char buf[256], *p;
	unsigned long max = 0, v;
	long n;

	if (f != NULL) {
		if (fgets(buf, sizeof(buf), f) != NULL) {
			for (p = buf; *p != '\0' && *p != '\n';) {
				v = strtoul(p, &p, 10);
				if (v > max)
					max = v;
				if (*p == '-' || *p == ',')
					p++;
				else
					break;
			}
		}
		fclose(f);
		if (max > 0)
			return (uint32_t)max + 1;
	}
	n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (uint32_t)n : 1;
}

static int
write_header(void)
{
	dtc_writer_header h;
	struct utsname u;
	char producer[200];

	memset(&h, 0, sizeof(h));
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	snprintf(producer, sizeof(producer), "%s", rec_backend_producer());
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	h.big_endian = 1;
#endif
	h.ilp32 = sizeof(void *) == 4;
	h.os = "Linux";
	h.release = u.release;
	h.host = u.nodename;
	h.producer = producer;
	h.ncpu = ncpu_possible();
	/* libdtrace's DT_ACT_BASE: library actions are DT_ACT(n) */
	h.dt_act_base = DIF_SUBR_MAX + 1;
	h.flavor = "dtrace-v2";
	return rec_sink_start(g.sink, &h);
}

/* The options dtrace -x takes that dtrace_getopt() can read. */
static const char *const optnames[] = {
	"aggsize", "bpflog", "bpflogsize", "bufsize", "bufpolicy",
	"bufresize", "cleanrate", "cpu", "destructive", "dynvarsize",
	"grabanon", "jstackframes", "jstackstrsize", "lockmem", "maxframes",
	"nspec", "pcapsize", "scratchsize", "specsize", "stackframes",
	"statusrate", "strsize", "ustackframes", "noresolve",
	"aggrate", "aggsortkey", "aggsortkeypos", "aggsortpos", "aggsortrev",
	"flowindent", "quiet", "quietresize", "rawbytes", "stackindent",
	"switchrate", "printsize",
	/* legacy options libdtrace may learn; unknown ones are skipped */
	"aggpack", "agghist", "aggzoom", "temporal",
};

static int
write_options(void)
{
	dtc_writer *w = rec_sink_meta(g.sink);
	dtrace_optval_t v;
	size_t i;

	for (i = 0; i < sizeof(optnames) / sizeof(optnames[0]); i++) {
		if (dtrace_getopt(g.dtp, optnames[i], &v) != 0 ||
		    v == DTRACEOPT_UNSET)
			continue;
		if (w == NULL || rec_sink_check(g.sink, dtc_writer_add_option(w,
		    optnames[i], NULL, (int64_t)v, rec_sink_err(g.sink))) != 0)
			return -1;
	}
	return 0;
}

typedef struct ksym {
	uint64_t addr, size;
	char *name;
	char *mod;
	int weak;
} ksym_t;

/*
 * libdtrace's order (dt_symtab.c, dt_symrange_sort_cmp): by address,
 * larger size first, weak symbols after others, then by name.
 */
static int
ksym_cmp(const void *a, const void *b)
{
	const ksym_t *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->weak != y->weak)
		return x->weak ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * Kernel symbols as libdtrace reads them: /proc/kallmodsyms (with sizes
 * and built-in modules), else /proc/kallsyms, where symbols without a
 * [module] belong to "vmlinux" and a size runs to the next address.
 */
static int
write_ksyms(void)
{
	FILE *f;
	int kmod = 1, rc = -1;
	char *line = NULL, name[512], mod[256], type;
	size_t cap = 0, n = 0, nalloc = 0, nout, i;
	ksym_t *syms = NULL, *s;
	unsigned long long addr, size;
	dtc_writer *w;

	if ((f = fopen("/proc/kallmodsyms", "r")) == NULL) {
		kmod = 0;
		if ((f = fopen("/proc/kallsyms", "r")) == NULL)
			return 0;	/* no symbols: the decoder prints addresses */
	}
	while (getline(&line, &cap, f) > 0) {
		int m;

		mod[0] = '\0';
		size = 0;
		if (kmod)
			m = sscanf(line, "%llx %llx %c %511s [%255[^]]", &addr,
			    &size, &type, name, mod) - 1;
		else
			m = sscanf(line, "%llx %c %511s [%255[^]]", &addr,
			    &type, name, mod);
		if (m < 3 || addr == 0 || type == 'a' || type == 'A' ||
		    type == 'U')
			continue;
		if (n == nalloc) {
			nalloc = nalloc ? nalloc * 2 : 65536;
			if ((s = realloc(syms, nalloc * sizeof(*s))) == NULL)
				goto out;
			syms = s;
		}
		syms[n].addr = addr;
		/* kallsyms has no sizes: libdtrace takes 1 until sorted */
		syms[n].size = kmod ? size : 1;
		syms[n].weak = strchr("wWvV", type) != NULL;
		syms[n].name = strdup(name);
		syms[n].mod = strdup(mod[0] != '\0' ? mod : "vmlinux");
		if (syms[n].name == NULL || syms[n].mod == NULL)
			goto out;
		n++;
	}
	qsort(syms, n, sizeof(*syms), ksym_cmp);
	/*
	 * As libdtrace does with kallsyms: a symbol runs to the next one,
	 * so of aliases (one address) only the last in that order keeps a
	 * size and is the one dtrace(1) prints; the others are left out.
	 */
	nout = n;
	if (!kmod) {
		for (i = 0; i < n; i++) {
			syms[i].size = i + 1 < n ? syms[i + 1].addr - syms[i].addr : 1;
			if (syms[i].size == 0)
				nout--;
		}
	}
	if ((w = rec_sink_meta(g.sink)) == NULL ||
	    rec_sink_check(g.sink, dtc_writer_ksyms_begin(w, nout,
	    rec_sink_err(g.sink))) != 0)
		goto out;
	for (i = 0; i < n; i++)
		if (syms[i].size != 0 && rec_sink_check(g.sink,
		    dtc_writer_add_ksym(w, syms[i].addr, syms[i].size, syms[i].mod,
		    syms[i].name, rec_sink_err(g.sink))) != 0)
			goto out;
	rc = rec_sink_check(g.sink, dtc_writer_ksyms_end(w,
	    rec_sink_err(g.sink)));
out:
	for (i = 0; i < n; i++) {
		free(syms[i].name);
		free(syms[i].mod);
	}
	free(syms);
	free(line);
	fclose(f);
	return rc;
}

/*
 * D's timestamp is the BPF helper ktime_get_ns (CLOCK_MONOTONIC); the
 * pair lets a decoder turn timestamps into wall-clock time.  libdtrace
 * gives its consumer no record's time (dt_peb.c samples PERF_SAMPLE_RAW
 * only): a pass's records get the time libdtrace handed over the first
 * of them (a stream item just before it); the capture's own pair
 * (pass -1) says that pass clocks follow (dtsnap(5)).
 */
static int
write_clock(int64_t pass)
{
	struct timespec mono, real;
	dtc_writer *w = pass < 0 ? rec_sink_meta(g.sink) :
	    rec_sink_writer(g.sink);

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	if (w == NULL)
		return -1;
	if (pass >= 0)
		rec_sink_note_time(g.sink, (uint64_t)mono.tv_sec *
		    1000000000u + (uint64_t)mono.tv_nsec);
	return rec_sink_check(g.sink, dtc_writer_add_pass_clock(w, pass,
	    (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec,
	    (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec,
	    rec_sink_err(g.sink)));
}

/* Every probe the program enabled gets its probe item at the start, not
 * only those that fire: dtsnap info lists what was traced. */
static int
enabled_probe(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp, void *arg)
{
	(void)dtp;
	(void)arg;
	return need_probe(pdp) != 0 ? -1 : 0;
}

static int
enabled_stmt(dtrace_hdl_t *dtp, dtrace_prog_t *pgp, dtrace_stmtdesc_t *stp,
    void *arg)
{
	dtrace_ecbdesc_t **last = arg, *edp = stp->dtsd_ecbdesc;

	(void)pgp;
	if (edp == *last)
		return 0;
	*last = edp;
	/* a description that matches nothing (-Z) is no failure */
	(void)dtrace_probe_iter(dtp, &edp->dted_probe, enabled_probe, NULL);
	return 0;
}

static void
start_capture(void)
{
	dtrace_ecbdesc_t *last = NULL;
	int i;

	if (write_header() != 0) {
		capture_failed();
		return;
	}
	g.started = 1;
	if (write_options() != 0 || write_clock(-1) != 0 ||
	    rec_sink_check(g.sink, rec_program_write(rec_sink_meta(g.sink),
	    rec_sink_err(g.sink))) != 0) {
		capture_failed();
		return;
	}
	for (i = 0; i < g.cmdc && !g.capture_failed; i++)
		(void)dtrace_stmt_iter(g.dtp, g.cmdv[i].dc_prog, enabled_stmt,
		    &last);
	if (g.capture_failed || fflush(g.cfg->capture) == EOF)
		capture_failed();
}

/* ------------------------------------------------------------------ */
/* dtrace(1)                                                           */
/* ------------------------------------------------------------------ */

static char **
make_argv(char *s)
{
	const char *ws = "\f\n\r\t\v ";
	char **argv = malloc(sizeof(char *) * (strlen(s) / 2 + 1));
	int argc = 0;
	char *p = s;

	if (argv == NULL)
		return NULL;

	for (p = strtok(s, ws); p != NULL; p = strtok(NULL, ws))
		argv[argc++] = p;

	if (argc == 0)
		argv[argc++] = s;

	argv[argc] = NULL;
	return argv;
}

static int
tracefs_missing(void)
{
	struct statfs sf;

	return statfs("/sys/kernel/tracing", &sf) != 0 ||
	    (unsigned long)sf.f_type != REC_TRACEFS_MAGIC;
}

static void
exec_prog(const dtrace_cmd_t *dcp)
{
	dtrace_proginfo_t dpi;

	if (dtrace_program_exec(g.dtp, dcp->dc_prog, &dpi) == -1) {
		dfatal("failed to enable '%s'", dcp->dc_name);
	} else {
		notice("%s '%s' matched %u probe%s\n",
		    dcp->dc_desc, dcp->dc_name,
		    dpi.dpi_matches, dpi.dpi_matches == 1 ? "" : "s");
	}

	g.total += dpi.dpi_matches;
}

static void
compile_file(dtrace_cmd_t *dcp)
{
	char *arg0;
	FILE *fp;

	if ((fp = fopen(dcp->dc_arg, "re")) == NULL)
		fatal("failed to open %s", dcp->dc_arg);

	arg0 = g.argv[0];
	g.argv[0] = dcp->dc_arg;

	if ((dcp->dc_prog = dtrace_program_fcompile(g.dtp, fp,
	    g.cflags, g.argc, g.argv)) == NULL) {
		if (tracefs_missing())
			fatal_msg("", "hint: tracefs is not mounted on "
			    "/sys/kernel/tracing (mount -t tracefs nodev "
			    "/sys/kernel/tracing)\n");
		dfatal("failed to compile script %s", dcp->dc_arg);
	}
	if (rec_program_compiled(g.dtp, dcp->dc_prog, 's', dcp->dc_arg) != 0)
		fatal("failed to keep the program of %s", dcp->dc_arg);

	g.argv[0] = arg0;
	fclose(fp);

	dcp->dc_desc = "script";
	dcp->dc_name = dcp->dc_arg;
}

static void
compile_str(dtrace_cmd_t *dcp)
{
	char *p;

	if ((dcp->dc_prog = dtrace_program_strcompile(g.dtp, dcp->dc_arg,
	    dcp->dc_spec, g.cflags | DTRACE_C_PSPEC, g.argc, g.argv)) == NULL) {
		if (tracefs_missing())
			fatal_msg("", "hint: tracefs is not mounted on "
			    "/sys/kernel/tracing (mount -t tracefs nodev "
			    "/sys/kernel/tracing)\n");
		dfatal("invalid probe specifier %s", dcp->dc_arg);
	}
	if (rec_program_compiled(g.dtp, dcp->dc_prog, dcp->dc_opt,
	    dcp->dc_arg) != 0)
		fatal("failed to keep the program of %s", dcp->dc_arg);

	if ((p = strpbrk(dcp->dc_arg, "{/;")) != NULL)
		*p = '\0'; /* crop name for reporting */

	dcp->dc_desc = "description";
	dcp->dc_name = dcp->dc_arg;
}

static void
prochandler(pid_t pid, const char *msg, void *arg)
{
	(void)arg;
	if (pid < 0) {
		g.pslive--;
		return;
	}

	if (msg != NULL)
		notice("%s\n", msg);
}

/* The statement whose datadesc this is, if a record showed it to us. */
/* dtrace -l: one line a probe (dtrace(1)'s list_probe, list_stmt) */
static int
list_probe(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp, void *arg)
{
	(void)dtp;
	(void)arg;
	oprintf("%5d %10s %17s %33s %s\n",
	    pdp->id, pdp->prv, pdp->mod, pdp->fun, pdp->prb);
	return 0;
}

static int
list_stmt(dtrace_hdl_t *dtp, dtrace_prog_t *pgp, dtrace_stmtdesc_t *stp,
    dtrace_ecbdesc_t **last)
{
	dtrace_ecbdesc_t *edp = stp->dtsd_ecbdesc;

	(void)pgp;
	if (edp == *last)
		return 0;
	if (dtrace_probe_iter(dtp, &edp->dted_probe, list_probe, NULL) < 0)
		error("failed to match %s:%s:%s:%s: %s\n",
		    edp->dted_probe.prv, edp->dted_probe.mod,
		    edp->dted_probe.fun, edp->dted_probe.prb,
		    dtrace_errmsg(dtp, dtrace_errno(dtp)));
	*last = edp;
	return 0;
}

static int
stid_of(const dtrace_datadesc_t *dd, uint32_t *stid)
{
	size_t i;

	for (i = 0; i < g.nstmts; i++) {
		if (g.stmts[i].written && g.stmts[i].ddesc == dd) {
			*stid = (uint32_t)i;
			return 0;
		}
	}
	return -1;
}

static int
errhandler(const dtrace_errdata_t *data, void *arg)
{
	dtc_writer_fault f;
	dtc_writer *w;

	(void)arg;
	if (!g.capture_failed && rec_uaddr_flush() != 0)
		capture_failed();
	if (!g.capture_failed) {
		memset(&f, 0, sizeof(f));
		f.pass = rec_sink_pass(g.sink);
		f.cpu = (int)data->dteda_cpu;
		/*
		 * BPF faults (dt_handle_err) pass the statement id as the
		 * action; library faults (dt_handle_liberr) pass -1 and the
		 * datadesc of a record we were handed.
		 */
		if (data->dteda_ddesc != NULL && data->dteda_action >= 0) {
			f.stid = (uint32_t)data->dteda_action;
			if (need_stmt(f.stid, data->dteda_ddesc) != 0)
				capture_failed();
		} else if (data->dteda_ddesc == NULL ||
		    stid_of(data->dteda_ddesc, &f.stid) != 0) {
			f.stid = 0;
		}
		if (data->dteda_pdesc != NULL) {
			f.probe = data->dteda_pdesc->id;
			if (need_probe(data->dteda_pdesc) != 0)
				capture_failed();
		}
		f.action = data->dteda_action;
		f.offset = data->dteda_offset;
		f.fault = data->dteda_fault;
		f.addr = data->dteda_addr;
		f.msg = data->dteda_msg;
		if (!g.capture_failed && ((w = rec_sink_writer(g.sink)) == NULL ||
		    rec_sink_check(g.sink, dtc_writer_add_fault(w, &f,
		    rec_sink_err(g.sink))) != 0))
			capture_failed();
	}
	error("%s\n", data->dteda_msg);
	return DTRACE_HANDLE_OK;
}

static int
drophandler(const dtrace_dropdata_t *data, void *arg)
{
	dtc_writer *w;

	(void)arg;
	if (g.started && !g.capture_failed && rec_uaddr_flush() != 0)
		capture_failed();
	if (g.started && !g.capture_failed &&
	    ((w = rec_sink_writer(g.sink)) == NULL ||
	    rec_sink_check(g.sink, dtc_writer_add_drop(w, rec_sink_pass(g.sink),
	    (int)data->dtdda_cpu, (uint32_t)data->dtdda_kind,
	    data->dtdda_drops, data->dtdda_total, data->dtdda_msg,
	    rec_sink_err(g.sink))) != 0))
		capture_failed();
	rec_sink_note_drops(g.sink, (int)data->dtdda_cpu, data->dtdda_drops);
	error("%s\n", data->dtdda_msg);
	return DTRACE_HANDLE_OK;
}

static int
setopthandler(const dtrace_setoptdata_t *data, void *arg)
{
	(void)arg;
	if (strcmp(data->dtsda_option, "quiet") == 0)
		g.quiet = data->dtsda_newval != DTRACEOPT_UNSET;

	if (strcmp(data->dtsda_option, "flowindent") == 0)
		g.flowindent = data->dtsda_newval != DTRACEOPT_UNSET;

	return DTRACE_HANDLE_OK;
}

static int
chewrec(const dtrace_probedata_t *data, const dtrace_recdesc_t *rec, void *arg)
{
	dtrace_actkind_t act;
	uintptr_t addr;

	(void)arg;
	if (g.started && !g.capture_failed && rec_uaddr_chewrec(rec) != 0)
		capture_failed();
	if (rec == NULL) {
		/*
		 * We have processed the final record; output the newline if
		 * we're not in quiet mode.
		 */
		if (!g.quiet)
			oprintf("\n");

		return DTRACE_CONSUME_NEXT;
	}

	act = rec->dtrd_action;
	addr = (uintptr_t)data->dtpda_data;

	if (act == DTRACEACT_EXIT) {
		g.status = *((uint32_t *)addr);
		return DTRACE_CONSUME_NEXT;
	}

	/* libdtrace prints the aggregation next: the layout of a variable
	 * that has no entries yet (its user keys: capture_probe) */
	if (act == DTRACEACT_PRINTA && g.started && !g.capture_failed)
		describe_printa(data, rec);

	return DTRACE_CONSUME_THIS;
}

static int
chew(const dtrace_probedata_t *data, void *arg)
{
	dtrace_probedesc_t *pd = data->dtpda_pdesc;
	processorid_t cpu = data->dtpda_cpu;

	(void)arg;
	if (g.impatient) {
		g.newline = 0;
		return DTRACE_CONSUME_ABORT;
	}

	capture_probe(data);

	if (g.heading == 0) {
		if (!g.flowindent) {
			if (!g.quiet) {
				if (!g.testing) {
					oprintf("%3s %6s %32s\n",
					    "CPU", "ID", "FUNCTION:NAME");
				} else {
					oprintf("%32s\n", "FUNCTION:NAME");
				}
			}
		} else {
			if (!g.testing) {
				oprintf("%3s %-41s\n", "CPU", "FUNCTION");
			} else {
				oprintf("%-41s\n", "FUNCTION");
			}
		}
		g.heading = 1;
	}

	if (!g.flowindent) {
		if (!g.quiet) {
			size_t len = strlen(pd->fun) + strlen(pd->prb) + 2;
			char *name = alloca(len);

			snprintf(name, len, "%s:%s", pd->fun, pd->prb);

			if (!g.testing)
				oprintf("%3d %6d %32s ", cpu, pd->id, name);
			else
				oprintf("%32s ", name);
		}
	} else {
		int indent = data->dtpda_indent;
		char *name;
		size_t len;

		if (data->dtpda_flow == DTRACEFLOW_NONE) {
			len = indent + strlen(pd->fun) + strlen(pd->prb) + 5;
			name = alloca(len);
			snprintf(name, len, "%*s%s%s:%s", indent, "",
				 data->dtpda_prefix, pd->fun, pd->prb);
		} else {
			len = indent + strlen(pd->fun) + 5;
			name = alloca(len);
			snprintf(name, len, "%*s%s%s", indent, "",
				 data->dtpda_prefix, pd->fun);
		}

		if (!g.testing) {
			oprintf("%3d %-41s ", cpu, name);
		} else {
			oprintf("%-41s ", name);
		}
	}

	return DTRACE_CONSUME_THIS;
}

static void
go(void)
{
	int i;
	dtrace_optval_t quiet;

	struct {
		char *name;
		char *optname;
		dtrace_optval_t val;
	} bufs[] = {
		{ "buffer size", "bufsize", 0 },
		{ "aggregation size", "aggsize", 0 },
		{ "speculation size", "specsize", 0 },
		{ "dynamic variable size", "dynvarsize", 0 },
		{ NULL, NULL, 0 }
	}, rates[] = {
		{ "cleaning rate", "cleanrate", 0 },
		{ "status rate", "statusrate", 0 },
		{ NULL, NULL, 0 }
	};

	for (i = 0; bufs[i].name != NULL; i++) {
		if (dtrace_getopt(g.dtp, bufs[i].optname, &bufs[i].val) == -1)
			fatal("couldn't get option %s", bufs[i].optname);
	}

	for (i = 0; rates[i].name != NULL; i++) {
		if (dtrace_getopt(g.dtp, rates[i].optname, &rates[i].val) == -1)
			fatal("couldn't get option %s", rates[i].optname);
	}

	if (dtrace_go(g.dtp, g.cflags) == -1)
		dfatal("could not enable tracing");

	dtrace_getopt(g.dtp, "quietresize", &quiet);

	if (quiet != DTRACEOPT_UNSET)
		return;

	for (i = 0; bufs[i].name != NULL; i++) {
		dtrace_optval_t j = 0, mul = 10;
		dtrace_optval_t nsize;

		if (bufs[i].val == DTRACEOPT_UNSET)
			continue;

		dtrace_getopt(g.dtp, bufs[i].optname, &nsize);

		if (nsize == DTRACEOPT_UNSET || nsize == 0)
			continue;

		if (nsize >= bufs[i].val - (dtrace_optval_t)sizeof(uint64_t))
			continue;

		for (; (dtrace_optval_t)(INT64_C(1) << mul) <= nsize;
		    j++, mul += 10)
			continue;

		if (!(nsize & ((INT64_C(1) << (mul - 10)) - 1))) {
			error("%s lowered to %lld%c\n", bufs[i].name,
			    (long long)nsize >> (mul - 10), " kmgtpe"[j]);
		} else {
			error("%s lowered to %lld bytes\n", bufs[i].name,
			    (long long)nsize);
		}
	}

	for (i = 0; rates[i].name != NULL; i++) {
		dtrace_optval_t nval;
		char *dir;

		if (rates[i].val == DTRACEOPT_UNSET)
			continue;

		dtrace_getopt(g.dtp, rates[i].optname, &nval);

		if (nval == DTRACEOPT_UNSET || nval == 0)
			continue;

		if (rates[i].val == nval)
			continue;

		dir = nval > rates[i].val ? "reduced" : "increased";

		if (nval <= (dtrace_optval_t)NANOSEC && (NANOSEC % nval) == 0) {
			error("%s %s to %lld hz\n", rates[i].name, dir,
			    (long long)NANOSEC / (long long)nval);
			continue;
		}

		if ((nval % NANOSEC) == 0) {
			error("%s %s to once every %lld seconds\n",
			    rates[i].name, dir,
			    (long long)nval / (long long)NANOSEC);
			continue;
		}

		error("%s %s to once every %lld nanoseconds\n",
		    rates[i].name, dir, (long long)nval);
	}
}

static void
intr(int signo)
{
	(void)signo;
	if (!g.intr)
		g.newline = 1;

	if (g.intr++)
		g.impatient = 1;
}

const char *
rec_backend_producer(void)
{
	static char buf[160];

	snprintf(buf, sizeof(buf), "dtrace-utils %s (dtsnap record)",
	    _dtrace_version);
	return buf;
}

int
rec_backend_run(const rec_config *cfg)
{
	struct sigaction act, oact;
	dtrace_optval_t opt;
	dtrace_cmd_t *dcp;
	int done = 0, err, i, c;
	char *p, **v;
	pid_t pid;
	struct dtrace_proc *proc;

	memset(&g, 0, sizeof(g));
	g.cfg = cfg;
	/*
	 * BEGIN and END run in the consumer's own process (uprobes on
	 * libdtrace), so their execname is ours: be "dtrace" as the process
	 * we stand for is, or the run would differ from dtrace's.
	 */
	(void)prctl(PR_SET_NAME, "dtrace", 0, 0, 0);
	g.sink = cfg->sink;
	g.status = E_SUCCESS;
	g.argv = cfg->dargv;
	g.argc = cfg->dargc;

	/*
	 * Without a tee, libdtrace and chew() print into /dev/null: the
	 * same calls, so that recording sees what dtrace(1) would.
	 */
	if (cfg->list) {
		g.ofp = stdout;
	} else if (cfg->tee_out != NULL) {
		g.ofp = cfg->tee_out;
	} else if ((g.devnull = fopen("/dev/null", "we")) == NULL) {
		fatal("failed to open /dev/null");
	} else {
		g.ofp = g.devnull;
	}
	if (!cfg->list)
		g.ofp = rec_uaddr_stream(g.ofp);

	if (getuid() != 0) {
		fatal_msg("", "run as root for tracing and listing probes\n");
		return E_USAGE;
	}

	/* before the loop below splits -x arguments in place */
	if (rec_program_begin(cfg) != 0)
		fatal("failed to allocate memory for arguments");
	if ((g.cmdv = calloc(cfg->nargs + 1, sizeof(*g.cmdv))) == NULL ||
	    (g.psv = calloc(cfg->nargs + 1, sizeof(*g.psv))) == NULL)
		fatal("failed to allocate memory for arguments");

	g.dtp = dtrace_open(DTRACE_VERSION, 0, &err);
	if (g.dtp == NULL) {
		fatal_msg("", "failed to initialize dtrace: %s\n",
		    dtrace_errmsg(NULL, err));
		return E_ERROR;
	}
	rec_uaddr_init(g.dtp, g.sink);

	dtrace_setopt(g.dtp, "bufsize", "4m");
	dtrace_setopt(g.dtp, "aggsize", "4m");

#ifdef RECORD_SYSLIBDIR
	/* the D library of the dtrace-utils we were built against */
	if (getenv("DTRACE_OPT_SYSLIBDIR") == NULL)
		dtrace_setopt(g.dtp, "syslibdir", RECORD_SYSLIBDIR);
#endif
	dtrace_setoptenv(g.dtp, "DTRACE_OPT_");

	for (i = 0; i < cfg->nargs; i++) {
		char *optarg = cfg->args[i].arg;

		switch ((c = cfg->args[i].opt)) {
		case 'b':
			if (dtrace_setopt(g.dtp, "bufsize", optarg) != 0)
				dfatal("failed to set -b %s", optarg);
			break;
		case 'C':
			g.cflags |= DTRACE_C_CPP;
			break;
		case 'D':
			if (dtrace_setopt(g.dtp, "define", optarg) != 0)
				dfatal("failed to set -D %s", optarg);
			break;
		case 'f':
		case 'i':
		case 'm':
		case 'n':
		case 'P':
			dcp = &g.cmdv[g.cmdc++];
			dcp->dc_func = compile_str;
			dcp->dc_opt = c;
			dcp->dc_spec = c == 'f' ? DTRACE_PROBESPEC_FUNC :
			    c == 'm' ? DTRACE_PROBESPEC_MOD :
			    c == 'P' ? DTRACE_PROBESPEC_PROVIDER :
			    DTRACE_PROBESPEC_NAME;
			dcp->dc_arg = optarg;
			break;
		case 'F':
			if (dtrace_setopt(g.dtp, "flowindent", 0) != 0)
				dfatal("failed to set -F");
			break;
		case 'H':
			if (dtrace_setopt(g.dtp, "cpphdrs", 0) != 0)
				dfatal("failed to set -H");
			break;
		case 'I':
			if (dtrace_setopt(g.dtp, "incdir", optarg) != 0)
				dfatal("failed to set -I %s", optarg);
			break;
		case 'L':
			if (dtrace_setopt(g.dtp, "libdir", optarg) != 0)
				dfatal("failed to set -L %s", optarg);
			break;
		case 'q':
			if (dtrace_setopt(g.dtp, "quiet", 0) != 0)
				dfatal("failed to set -q");
			break;
		case 's':
			dcp = &g.cmdv[g.cmdc++];
			dcp->dc_func = compile_file;
			dcp->dc_spec = DTRACE_PROBESPEC_NONE;
			dcp->dc_arg = optarg;
			break;
		case 'U':
			if (dtrace_setopt(g.dtp, "undef", optarg) != 0)
				dfatal("failed to set -U %s", optarg);
			break;
		case 'w':
			if (dtrace_setopt(g.dtp, "destructive", 0) != 0)
				dfatal("failed to set -w");
			break;
		case 'x':
			if ((p = strchr(optarg, '=')) != NULL)
				*p++ = '\0';

			if (dtrace_setopt(g.dtp, optarg, p) != 0)
				dfatal("failed to set -x %s", optarg);
			break;
		case 'X':
			if (dtrace_setopt(g.dtp, "stdc", optarg) != 0)
				dfatal("failed to set -X %s", optarg);
			break;
		case 'Z':
			g.cflags |= DTRACE_C_ZDEFS;
			break;
		}
	}

	/*
	 * dtrace(1)'s testing mode drops the CPU and ID columns and other
	 * nondeterministic output; the upstream .r files were made with it.
	 */
	if (getenv("_DTRACE_TESTING") != NULL) {
		g.testing = 1;
		if (dtrace_setopt(g.dtp, "quietresize", 0) != 0)
			fatal_msg("", "cannot set quietresize for testing");
	}

	for (i = 0; i < cfg->nargs; i++) {
		char *optarg = cfg->args[i].arg;

		switch (cfg->args[i].opt) {
		case 'c':
			if ((v = make_argv(optarg)) == NULL)
				fatal("failed to allocate memory");

			proc = dtrace_proc_create(g.dtp, v[0], v, 0);
			if (proc == NULL) {
				free(v);
				dfatal(NULL); /* dtrace_errmsg() only */
			}

			g.psv[g.psc++] = proc;
			free(v);
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &p, 10);

			if (errno != 0 || p == optarg || p[0] != '\0')
				fatal("invalid pid: %s\n", optarg);

			proc = dtrace_proc_grab_pid(g.dtp, pid, 0);
			if (proc == NULL)
				dfatal(NULL); /* dtrace_errmsg() only */

			g.psv[g.psc++] = proc;
			break;
		}
	}

	if (dtrace_init(g.dtp) < 0)
		dfatal("failed to initialize libdtrace");

	if (cfg->list)
		g.cflags |= DTRACE_C_ZDEFS;	/* as dtrace -l */
	for (i = 0; i < g.cmdc; i++)
		g.cmdv[i].dc_func(&g.cmdv[i]);

	if (cfg->list) {
		dtrace_ecbdesc_t *last = NULL;

		oprintf("%5s %10s %17s %33s %s\n",
		    "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME");
		for (i = 0; i < g.cmdc; i++)
			dtrace_stmt_iter(g.dtp, g.cmdv[i].dc_prog,
			    (dtrace_stmt_f *)list_stmt, &last);
		if (g.cmdc == 0 &&
		    dtrace_probe_iter(g.dtp, NULL, list_probe, NULL) < 0)
			dfatal(NULL);
		if (fflush(stdout) == EOF)
			fatal("failed to write the probe list");
		dtrace_close(g.dtp);
		free(g.cmdv);
		free(g.psv);
		return g.status;
	}

	if (dtrace_handle_err(g.dtp, &errhandler, NULL) == -1)
		dfatal("failed to establish error handler");

	if (dtrace_handle_drop(g.dtp, &drophandler, NULL) == -1)
		dfatal("failed to establish drop handler");

	if (dtrace_handle_proc(g.dtp, &prochandler, NULL) == -1)
		dfatal("failed to establish proc handler");

	if (dtrace_handle_setopt(g.dtp, &setopthandler, NULL) == -1)
		dfatal("failed to establish setopt handler");

	dtrace_getopt(g.dtp, "flowindent", &opt);
	g.flowindent = opt != DTRACEOPT_UNSET;

	dtrace_getopt(g.dtp, "quiet", &opt);
	g.quiet = opt != DTRACEOPT_UNSET;

	sigemptyset(&act.sa_mask);
	act.sa_flags = 0;
	act.sa_handler = intr;
	if (sigaction(SIGINT, NULL, &oact) == 0 && oact.sa_handler != SIG_IGN)
		sigaction(SIGINT, &act, NULL);
	if (sigaction(SIGTERM, NULL, &oact) == 0 && oact.sa_handler != SIG_IGN)
		sigaction(SIGTERM, &act, NULL);

	for (i = 0; i < g.cmdc; i++)
		exec_prog(&g.cmdv[i]);

	if (g.intr) {
		dtrace_close(g.dtp);
		return g.status;
	}

	if (g.total == 0 && !(g.cflags & DTRACE_C_ZDEFS)) {
		if (g.cmdc != 0 && tracefs_missing())
			fatal_msg("", "hint: tracefs is not mounted on "
			    "/sys/kernel/tracing (mount -t tracefs nodev "
			    "/sys/kernel/tracing)\n");
		dfatal("no probes %s\n", g.cmdc ? "matched" : "specified");
	}

	go();

	/* the capture starts once tracing is on and the options settled */
	start_capture();

	dtrace_getopt(g.dtp, "flowindent", &opt);
	g.flowindent = opt != DTRACEOPT_UNSET;

	dtrace_getopt(g.dtp, "quiet", &opt);
	g.quiet = opt != DTRACEOPT_UNSET;

	dtrace_getopt(g.dtp, "destructive", &opt);
	if (opt != DTRACEOPT_UNSET)
		notice("allowing destructive actions\n");

	for (i = 0; i < g.psc; i++)
		dtrace_proc_continue(g.dtp, g.psv[i]);
	if (g.intr)
		goto release_procs;

	g.pslive = g.psc; /* count for prochandler() */

	do {
		if (g.newline && !g.testing) {
			oprintf("\n");
			g.newline = 0;
			if (g.started && !g.capture_failed &&
			    write_interrupt() != 0)
				capture_failed();
		}

		if (done == DONE_SAW_EXIT || g.intr || rec_sink_full(g.sink) ||
		    (g.psc != 0 && g.pslive <= 0)) {
			done = DONE_SAW_END;
			if (dtrace_stop(g.dtp) == -1)
				dfatal("couldn't stop tracing");
		}

		g.pass_snapped = 0;
		g.pass_clocked = 0;
		switch (dtrace_work(g.dtp, g.ofp, chew, chewrec, NULL)) {
		case DTRACE_WORKSTATUS_DONE:
			if (done != DONE_SAW_END)
				done = DONE_SAW_EXIT;
			break;
		case DTRACE_WORKSTATUS_OKAY:
			break;
		default:
			if (!g.impatient && dtrace_errno(g.dtp) != EINTR)
				dfatal("processing aborted");
		}

		if (g.started && !g.capture_failed && rec_uaddr_flush() != 0)
			capture_failed();
		/* a pass without records still snapped the aggregations:
		 * written when due (snap_due) */
		if (!g.capture_failed && ((!g.pass_snapped &&
		    snap_due(done == DONE_SAW_END) && write_aggsnap() != 0) ||
		    rec_sink_end_pass(g.sink) != 0))
			capture_failed();

		if (g.ofp != NULL && fflush(g.ofp) == EOF)
			clearerr(g.ofp);
	} while (done != DONE_SAW_END);

	oprintf("\n");

	if (!g.impatient) {
		if (g.started && !g.capture_failed && rec_uaddr_final() != 0)
			capture_failed();
		if (dtrace_aggregate_print(g.dtp, g.ofp, NULL) == -1 &&
		    dtrace_errno(g.dtp) != EINTR)
			dfatal("failed to print aggregations");
	}

release_procs:
	for (i = 0; i < g.psc; i++)
		dtrace_proc_release(g.dtp, g.psv[i]);

	if (g.ofp != NULL)
		fflush(g.ofp);
	if (g.started && !g.capture_failed &&
	    rec_sink_finish(g.sink, g.status) != 0)
		capture_failed();

	dtrace_close(g.dtp);
	if (g.devnull != NULL)
		fclose(g.devnull);

	free(g.cmdv);
	free(g.psv);
	rec_program_free();
	free(g.probes);
	free(g.stmts);
	free(g.fmts);
	free(g.aggs);
	rec_uaddr_free();

	return g.capture_failed && g.status == E_SUCCESS ? E_ERROR : g.status;
}
