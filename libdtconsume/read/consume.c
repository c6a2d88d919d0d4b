/*
 * consume.c - the reader: the consumer loop behind dtc_reader_next().
 *
 * It does what dtrace_work() does on a live system, from the capture.
 * The pass engine (pass.c) reads each consume pass and hands out its
 * records in libdtrace's order (the BEGIN CPU first and the END CPU last,
 * or merged by timestamp with option temporal), its drops and notices as
 * notes, and its aggregation snapshots; here the snapshots go into the
 * running aggregation state and records and notes become events.  At the
 * end it prints the aggregations no printa() printed.
 *
 * dtc_reader_next() is a generator: every call resumes the state machine and
 * returns one event, so a consumer can stop anywhere and nothing is
 * buffered beyond one pass of buffers (which libdtrace holds too).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "agg.h"
#include "reader.h"
#include "pass.h"

#define DTRACEFLT_BADADDR 1
#define DTRACEFLT_BADALIGN 2
#define DTRACEFLT_BADSTACK 9
#define DTRACEFLT_LIBRARY 1000

/* internal: "queued notes must be reported before going on" */
#define AGAIN DTCP_PASS_NOTES

enum state {
	S_HEADER, S_ITEMS, S_PASS_START, S_NEXT_RECORD, S_RECORDS,
	S_RECORD_END, S_EXIT_AGGS, S_END, S_DONE
};

/*
 * What the library decides differently for the two printers (legacy
 * illumos/FreeBSD libdtrace, and dtrace-utils for DTrace v2): one table
 * each, chosen by the capture's flavor.  Differences only in the text
 * are formats/text.c's table.
 */
struct librules {
	/* commit()/discard() records: dtrace-utils prints nothing for
	 * them (dt_consume_one_probe); legacy ones are size 0 anyway */
	int silent_spec_records;
	/* setopt() without a value: legacy sees a value record of at most
	 * 8 bytes, dtrace-utils one that is not 1-aligned (dt_setopt) */
	int toggle_by_alignment;
	/* dt_handle_liberr's text: ERROR enabling (legacy) or clause */
	const char *liberr_fmt;
	/* tracemem()'s dynamic size: legacy puts a TRACEMEM_DYNSIZE record
	 * before the data, dtrace-utils a TRACEMEM record after it */
	int tracemem_size_after;
	/* dt_flowindent: dtrace-utils starts every CPU buffer of a pass at
	 * indent 0, suppresses an entry only after another statement of the
	 * same probe, and always un-indents a return (no look-ahead) */
	int flow_v2;
};

static const struct librules librules_legacy = {
	0, 0,
	"error on enabled probe ID %u (ID %u: %s): couldn't set option "
	"\"%s\" to \"%s\": %s\n\n",
	0, 0
};
static const struct librules librules_v2 = {
	1, 1,
	"error in dt_clause_%u for probe ID %u (%s): couldn't set option "
	"\"%s\" to \"%s\": %s\n\n",
	1, 1
};

struct dtc_reader {
	dtcp_capture cap;        /* header, tables, options, byte order */
	dtcp_pass ps;            /* items, passes, records (pass.c) */
	unsigned flags;
	enum state state;
	int dead;                /* EOF or FATAL returned: sticky */
	int last_rc;

	const struct librules *rules;
	dtcp_aggstate *agg;

	/* the record being turned into events (ps.rec, in ps.rb) */
	uint32_t ri;             /* next recdesc index */
	uint64_t dynsize;        /* pending tracemem dynamic size */
	int ctf_noted;           /* said once that print() shows raw bytes */
	uint32_t last_epid;
	/* v2 flowindent: the last record set's probe and statement in this
	 * CPU buffer (0 and ~0: none) */
	uint32_t last_prid, last_stid;
	int indent;
	int flow;
	int rec_quiet, rec_flow;

	/* a header value of the wrong type, read past: the warning follows
	 * the BEGIN event (the header is decoded, and BEGIN must come) */
	dtc_error hdr_warn;

	/* exit printing */
	size_t exit_cursor;
	int borrowed_syms;       /* detached: symbol tables belong to another */

	/* scratch reused for every event */
	dtc_event ev;
	dtc_value val;
	dtc_value *args;
	size_t capargs;
	int64_t *varids;
	size_t capvarids;
	char msg[4096];
	char optval[2][512];
	uint64_t nrecords, ndrops, nerrors;
	uint64_t nskipped;       /* firings the selection left out */
};

/* ------------------------------------------------------------ accessors */

const dtc_capture *
dtc_reader_capture(const dtc_reader *r)
{
	return &r->cap;
}

dtcp_capture *
dtcp_reader_capture_rw(dtc_reader *r)
{
	return &r->cap;
}

static char *
strdup_or_empty(const char *s)
{
	return strdup(s != NULL ? s : "");
}

dtc_reader *
dtcp_reader_detached(const dtc_reader *like)
{
	dtc_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->cap.hdr = like->cap.hdr;
	r->cap.hdr.os = strdup_or_empty(like->cap.hdr.os);
	r->cap.hdr.release = strdup_or_empty(like->cap.hdr.release);
	r->cap.hdr.host = strdup_or_empty(like->cap.hdr.host);
	r->cap.hdr.producer = strdup_or_empty(like->cap.hdr.producer);
	r->cap.source = strdup("<merged>");
	r->cap.agg = dtcp_agg_new();
	if (r->cap.hdr.os == NULL || r->cap.hdr.release == NULL ||
	    r->cap.hdr.host == NULL || r->cap.hdr.producer == NULL ||
	    r->cap.source == NULL || r->cap.agg == NULL) {
		dtc_reader_close(r);
		return NULL;
	}
	r->cap.swap = like->cap.swap;
	r->cap.illumos = like->cap.illumos;
	r->cap.opts = like->cap.opts;
	r->ps.exit_status = -1;
	r->ps.last_item = -1;
	r->state = S_DONE;
	r->cap.meta.ksyms = like->cap.meta.ksyms;
	r->cap.meta.nksyms = like->cap.meta.nksyms;
	r->cap.meta.procs = like->cap.meta.procs;
	r->cap.meta.nprocs = like->cap.meta.nprocs;
	r->borrowed_syms = 1;
	return r;
}

const dtc_header *
dtc_reader_header(const dtc_reader *r)
{
	return &r->cap.hdr;
}

int
dtc_reader_walltime(const dtc_reader *r, uint64_t hrtime, uint64_t *wall)
{
	if (!r->cap.meta.have_clock)
		return 0;
	*wall = r->cap.meta.clock_walltime + (hrtime - r->cap.meta.clock_hrtime);
	return 1;
}

const char *
dtc_reader_source(const dtc_reader *r)
{
	return r->cap.source;
}

uint64_t
dtc_reader_position(const dtc_reader *r)
{
	return dtcp_pass_position(&r->ps);
}

int64_t
dtc_reader_get_option(const dtc_reader *r, const char *name)
{
	int id = dtcp_options_lookup(name);

	if (id < 0)
		return DTC_OPT_UNSET;
	return r->cap.opts.v[id];
}

int
dtc_reader_option_isset(const dtc_reader *r, const char *name)
{
	int id = dtcp_options_lookup(name);

	if (id < 0)
		return dtc_option_effective(name) < 0 ? -1 : 0;
	if (id == DTCP_OPT_ENCODING)
		return r->cap.opts.encoding[0] != '\0';
	return r->cap.opts.v[id] != DTC_OPT_UNSET;
}

const char *
dtc_reader_get_option_string(const dtc_reader *r, const char *name)
{
	if (strcmp(name, "encoding") == 0 && r->cap.opts.encoding[0] != '\0')
		return r->cap.opts.encoding;
	return NULL;
}

/* ------------------------------------------------------------ open/close */

/*
 * Where the reader is, for a message about rendering what it delivers
 * (the capture's where): the record being delivered; between record sets
 * rb is the last buffer read, not where the reader is (an aggregation
 * printed at the end).
 */
static void
reader_where(const void *arg, dtc_error *err)
{
	const dtc_reader *r = arg;

	if (err == NULL || r->ps.rb == NULL ||
	    (r->state != S_RECORDS && r->state != S_RECORD_END))
		return;
	err->item = r->ps.rb->item;
	err->cpu = r->ps.rb->cpu;
	err->offset = (long long)(r->ps.rb->file_offset + r->ps.rec.raw_offset);
}

static dtc_reader *
reader_new(dtcp_container *c, unsigned flags, dtc_error *err)
{
	dtc_reader *r;

	if (c == NULL)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, dtcp_container_source(c), -1,
		    -1, -1, "out of memory");
		dtcp_container_close(c);
		return NULL;
	}
	if (dtcp_capture_init(&r->cap, c, flags, err) != 0) {
		free(r);
		return NULL;
	}
	if ((r->cap.agg = dtcp_agg_new()) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, r->cap.source, -1, -1, -1,
		    "out of memory");
		dtcp_capture_free(&r->cap);
		free(r);
		return NULL;
	}
	r->cap.where = reader_where;
	r->cap.where_arg = r;
	dtcp_pass_init(&r->ps, &r->cap);
	r->flags = flags;
	r->rules = &librules_legacy;
	r->last_stid = UINT32_MAX;
	return r;
}

dtc_reader *
dtc_reader_open_file(const char *path, unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);   /* a caller's stack garbage must not win */
	return reader_new(dtcp_container_open_file(path, err), flags, err);
}

dtc_reader *
dtc_reader_open_fd(int fd, const char *name, unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);
	return reader_new(dtcp_container_open_fd(fd, name, err), flags, err);
}

dtc_reader *
dtc_reader_open_memory(const void *buf, size_t len, const char *name,
    unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);
	return reader_new(dtcp_container_open_memory(buf, len, name, err),
	    flags, err);
}

void
dtc_reader_close(dtc_reader *r)
{
	if (r == NULL)
		return;
	dtcp_agg_free(r->cap.agg);
	if (r->borrowed_syms) {
		r->cap.meta.ksyms = NULL;
		r->cap.meta.nksyms = 0;
		r->cap.meta.procs = NULL;
		r->cap.meta.nprocs = 0;
	}
	dtcp_pass_free(&r->ps);
	dtcp_capture_free(&r->cap);
	free(r->args);
	free(r->varids);
	free(r);
}

int
dtc_reader_select(dtc_reader *r, const char *what, const char *value,
    dtc_error *err)
{
	dtc_error_clear(err);
	if (r->state != S_HEADER || r->dead) {
		dtcp_error_set(err, DTC_E_BADOPTION, r->cap.source, -1, -1, -1,
		    "a selection after the first event: too late, a "
		    "firing delivered cannot be taken back");
		return DTC_FAILED;
	}
	return dtcp_pass_select(&r->ps, what, value, err);
}

/*
 * dtrace -x cpu=N traces CPU N only; offline the option selects CPU N's
 * firings, as dtc_reader_select "cpu" does.  The value is read as libdtrace's
 * dt_opt_runtime reads it, the rule quiet is read by too: no value is
 * CPU 0, "" and "no" leave every CPU.
 */
static int
option_cpu(dtc_reader *r, const char *value, dtc_error *err)
{
	dtcp_options tmp;
	char why[128], num[24];
	int64_t v;

	dtcp_options_init(&tmp);
	if (dtcp_options_set(&tmp, "quiet", value, 1, why, sizeof(why)) !=
	    DTC_OK || (v = tmp.v[DTCP_OPT_QUIET]) > 1000000) {
		dtcp_error_set(err, DTC_E_BADOPTION, r->cap.source, -1, -1, -1,
		    "couldn't set option \"cpu\" to \"%s\": Invalid value for "
		    "specified option", value != NULL ? value : "");
		return DTC_FAILED;
	}
	if (v == DTC_OPT_UNSET)
		return DTC_OK;
	snprintf(num, sizeof(num), "%lld", (long long)v);
	return dtc_reader_select(r, "cpu", num, err);
}

int
dtc_reader_set_option(dtc_reader *r, const char *name, const char *value,
    dtc_error *err)
{
	char why[128];

	dtc_error_clear(err);
	if (strcmp(name, "cpu") == 0)
		return option_cpu(r, value, err);
	if (dtcp_options_set(&r->cap.opts, name, value, 1, why, sizeof(why)) !=
	    DTC_OK) {
		dtcp_error_set(err, DTC_E_BADOPTION, r->cap.source, -1, -1, -1,
		    "couldn't set option \"%s\" to \"%s\": %s", name,
		    value != NULL ? value : "", why);
		return DTC_FAILED;
	}
	return DTC_OK;
}

/* ------------------------------------------------------------ items */

/* ------------------------------------------------------------ drops */

static const char *const dropfmt[10] = {
	"%llu drop%s on CPU %d\n",
	"%llu aggregation drop%s on CPU %d\n",
	"%llu dynamic variable drop%s\n",
	"%llu dynamic variable drop%s with non-empty rinsing list\n",
	"%llu dynamic variable drop%s with non-empty dirty list\n",
	"%llu speculative drop%s\n",
	"%llu failed speculation%s (available buffer(s) still busy)\n",
	"%llu failed speculation%s (no speculative buffer available)\n",
	"%llu jstack()/ustack() string table overflow%s\n",
	"%llu error%s in ERROR probe enabling\n",
};
static const char *const droptag[10] = {
	"DTRACEDROP_PRINCIPAL", "DTRACEDROP_AGGREGATION",
	"DTRACEDROP_DYNAMIC", "DTRACEDROP_DYNRINSE", "DTRACEDROP_DYNDIRTY",
	"DTRACEDROP_SPEC", "DTRACEDROP_SPECBUSY", "DTRACEDROP_SPECUNAVAIL",
	"DTRACEDROP_STKSTROVERFLOW", "DTRACEDROP_DBLERROR",
};

static int
record_family(int type)
{
	return type == DTC_EV_PROBE || type == DTC_EV_RECORD ||
	    type == DTC_EV_PROBE_END;
}

static void
clear_event(dtc_reader *r, int type)
{
	/*
	 * The events of record sets come millions of times in a row and
	 * each sets the same fields (cpu, ep, probe, timestamp, quiet,
	 * flowindent, flow, indent), RECORD also value and recindex: from
	 * one to the next only those two need clearing.  A memset of the
	 * whole event per record was a third of the decoding time.
	 */
	if (record_family(r->ev.type) && record_family(type)) {
		r->ev.value = NULL;
		r->ev.recindex = 0;
	} else {
		memset(&r->ev, 0, sizeof(r->ev));
	}
	r->ev.type = type;
	r->ev.reader = r;
	r->ev.source = r->cap.source;
	r->ev.pass = r->ps.pass;
	r->ev.cpu = -1;
	r->ev.exit_status = -1;
}

/*
 * A RECORD or PROBE_END event of the record set in r->ps.rec.  After another
 * event of the same set (the usual case: PROBE, RECORD..., PROBE_END) only
 * type, value, recindex and the options that a setopt() of the set may
 * have changed are new; cpu, enabling, timestamp, flow and indent stand.
 */
static inline void __attribute__((always_inline))
record_event(dtc_reader *r, int type)
{
	if (!record_family(r->ev.type)) {
		/* after an event of another kind (a setopt() error) */
		clear_event(r, type);
		r->ev.cpu = r->ps.rb->cpu;
		r->ev.ep = r->ps.rec.ep;
		r->ev.probe = r->ps.rec.ep->probe;
		r->ev.timestamp = r->ps.rec.timestamp;
		r->ev.flow = r->flow;
		r->ev.indent = r->indent;
	}
	r->ev.type = type;
	r->ev.value = NULL;
	r->ev.recindex = 0;
	r->ev.quiet = dtcp_opt_isset(&r->cap.opts, DTCP_OPT_QUIET);
	r->ev.rawbytes = dtcp_opt_isset(&r->cap.opts, DTCP_OPT_RAWBYTES);
}

/*
 * A DTrace v2 drop or fault as an event.  libdtrace composed the message
 * on the traced host (dt_handle.c); the capture carries it, and dtrace(1)
 * prints it after "dtrace: ".
 */
static int
v2_note_event(dtc_reader *r, dtcp_note *d)
{
	dtcp_v2fault *f = d->fault;

	if (f != NULL) {
		const dtc_eprobedesc *ep;
		int nomem;

		clear_event(r, DTC_EV_ERROR);
		r->ev.cpu = d->cpu;
		r->ev.fault_epid = f->stid;
		r->ev.action = (uint64_t)f->action;
		r->ev.difoffset = f->offset;
		r->ev.fault = (uint64_t)f->fault;
		r->ev.fault_addr = f->addr;
		r->ev.fault_probe = dtcp_meta_probe(&r->cap.meta, f->probe);
		ep = dtcp_v2_eprobe(&r->cap.meta, f->probe, f->stid, &nomem);
		r->ev.fault_ep = ep;
		r->nerrors++;
	} else {
		clear_event(r, DTC_EV_DROP);
		r->ev.dropkind = d->kind;
		r->ev.cpu = d->cpu;
		r->ev.count = d->count;
		r->ndrops += d->count;
	}
	snprintf(r->msg, sizeof(r->msg), "%s", d->msg != NULL ? d->msg : "");
	r->ev.message = r->msg;
	free(d->msg);
	free(d->fault);
	d->msg = NULL;
	d->fault = NULL;
	return 1;
}

static int fault_selected(dtc_reader *r, const dtcp_note *d);

/* The next queued drop as an event; 0 when the queue is empty. */
static int
drop_event(dtc_reader *r)
{
	dtcp_note *d;
	int n = 0;

	if ((d = dtcp_pass_note(&r->ps)) == NULL)
		return 0;
	if (d->interrupt) {
		d->interrupt = 0;
		clear_event(r, DTC_EV_NOTICE);
		r->ev.notice = DTC_NOTICE_INTERRUPT;
		r->ev.message = "interrupted";
		return 1;
	}
	if (d->fault != NULL && r->ps.sel != NULL && !fault_selected(r, d)) {
		/* a fault of a firing the selection leaves out */
		free(d->msg);
		free(d->fault);
		d->msg = NULL;
		d->fault = NULL;
		r->nskipped++;
		return drop_event(r);
	}
	if (d->msg != NULL || d->fault != NULL)
		return v2_note_event(r, d);
	clear_event(r, DTC_EV_DROP);
	r->ev.dropkind = d->kind;
	r->ev.cpu = d->cpu;
	r->ev.count = d->count;
	if (dtcp_opt_isset(&r->cap.opts, DTCP_OPT_DROPTAGS))
		n = snprintf(r->msg, sizeof(r->msg), "[%s] ", droptag[d->kind]);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (d->kind <= DTC_DROP_AGGREGATION)
		snprintf(r->msg + n, sizeof(r->msg) - n, dropfmt[d->kind],
		    (unsigned long long)d->count, d->count > 1 ? "s" : "",
		    d->cpu);
	else
		snprintf(r->msg + n, sizeof(r->msg) - n, dropfmt[d->kind],
		    (unsigned long long)d->count, d->count > 1 ? "s" : "");
#pragma GCC diagnostic pop
	r->ev.message = r->msg;
	r->ndrops += d->count;
	return 1;
}

/* ------------------------------------------------------------ passes */

/* ------------------------------------------------------------ records */

static const char *
faultstr(uint64_t f)
{
	static const char *const s[] = { "unknown fault", "invalid address",
	    "invalid alignment", "illegal operation", "divide-by-zero",
	    "out of scratch space", "invalid kernel access",
	    "invalid user access", "tuple stack overflow", "bad stack" };

	if (f == DTRACEFLT_LIBRARY)
		return "library-level fault";
	if (f < sizeof(s) / sizeof(s[0]))
		return s[f];
	return "unknown fault";
}

static void
probe_text(const dtc_probedesc *p, char *buf, size_t len)
{
	if (p == NULL)
		snprintf(buf, len, ":::");
	else
		snprintf(buf, len, "%s:%s:%s:%s", p->provider, p->module,
		    p->function, p->name);
}

/* The library's ERROR enabling: five 8-byte records (dt_handle_err). */
static int
error_event(dtc_reader *r, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep, *fep;
	uint64_t w[5];
	char pdesc[512], details[64], where[64], offinfo[64];
	uint32_t i;

	if (ep->nrecs != 5) {
		dtcp_error_set(err, DTC_E_DMISMATCH, r->cap.source, r->ps.rb->item,
		    (long long)(r->ps.rb->file_offset + r->ps.rec.raw_offset),
		    r->ps.rb->cpu, "the ERROR enabling %u has %u records, not 5",
		    ep->epid, ep->nrecs);
		return DTC_WARN;
	}
	for (i = 0; i < 5; i++)
		w[i] = dtcp_ldsz(r->ps.rec.data + ep->recs[i].offset,
		    ep->recs[i].size <= 8 ? ep->recs[i].size : 8, r->cap.swap);
	clear_event(r, DTC_EV_ERROR);
	r->ev.cpu = r->ps.rb->cpu;
	r->ev.ep = ep;
	r->ev.probe = ep->probe;
	r->ev.timestamp = r->ps.rec.timestamp;
	r->ev.fault_epid = (uint32_t)w[0];
	r->ev.action = w[1];
	r->ev.difoffset = (int64_t)w[2];
	r->ev.fault = w[3];
	r->ev.fault_addr = w[4];
	fep = dtcp_meta_eprobe(&r->cap.meta, (uint32_t)w[0]);
	r->ev.fault_ep = fep;
	r->ev.fault_probe = fep != NULL ? fep->probe : NULL;
	probe_text(r->ev.fault_probe, pdesc, sizeof(pdesc));
	details[0] = '\0';
	if (w[3] == DTRACEFLT_BADADDR || w[3] == DTRACEFLT_BADALIGN ||
	    w[3] == DTRACEFLT_BADSTACK)
		snprintf(details, sizeof(details), " (0x%llx)",
		    (unsigned long long)w[4]);
	if (w[1] == 0)
		snprintf(where, sizeof(where), "predicate");
	else
		snprintf(where, sizeof(where), "action #%d", (int)w[1]);
	offinfo[0] = '\0';
	if ((int64_t)w[2] != -1)
		snprintf(offinfo, sizeof(offinfo), " at DIF offset %d",
		    (int)w[2]);
	snprintf(r->msg, sizeof(r->msg), "error on enabled probe ID %u (ID %u: "
	    "%s): %s%s in %s%s\n", (uint32_t)w[0],
	    fep != NULL ? fep->probeid : 0, pdesc, faultstr(w[3]), details,
	    where, offinfo);
	r->ev.message = r->msg;
	r->nerrors++;
	return DTC_OK;
}

static int
grow_args(dtc_reader *r, size_t n)
{
	if (n > r->capargs) {
		dtc_value *a = realloc(r->args, n * sizeof(*a));

		if (a == NULL)
			return -1;
		r->args = a;
		r->capargs = n;
	}
	return 0;
}

static int
rec_error(dtc_reader *r, dtc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int
rec_error(dtc_reader *r, dtc_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, r->cap.source, r->ps.rb->item,
	    (long long)(r->ps.rb->file_offset + r->ps.rec.raw_offset), r->ps.rb->cpu,
	    fmt, ap);
	va_end(ap);
	/* the rest of this record set cannot be trusted */
	r->ri = r->ps.rec.ep->nrecs;
	return DTC_WARN;
}

/* A string record's text (NUL-terminated copy, bounded). */
static const char *
rec_string(dtc_reader *r, const dtc_recdesc *rd, char *buf, size_t len)
{
	size_t n = rd->size < len - 1 ? rd->size : len - 1;

	memcpy(buf, r->ps.rec.data + rd->offset, n);
	buf[n] = '\0';
	return buf;
}

/* setopt(): failures are library-level errors (dt_handle_liberr). */
static int
do_setopt(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;
	const dtc_recdesc *nrd, *vrd;
	const char *name, *val;
	char why[128], pdesc[512];

	if (i + 1 >= ep->nrecs || ep->recs[i + 1].action != DTC_ACT_LIBACT ||
	    ep->recs[i + 1].arg != ep->recs[i].arg)
		return rec_error(r, err, DTC_E_DMISMATCH, "setopt() record "
		    "without its value record");
	nrd = &ep->recs[i];
	vrd = &ep->recs[i + 1];
	r->ri = i + 2;
	name = rec_string(r, nrd, r->optval[0], sizeof(r->optval[0]));
	if (r->rules->toggle_by_alignment ? vrd->alignment == 1 : vrd->size > 8)
		val = rec_string(r, vrd, r->optval[1], sizeof(r->optval[1]));
	else
		val = "1";
	if (dtcp_options_set_active(&r->cap.opts, name, val, 0, 1, why,
	    sizeof(why)) == DTC_OK)
		return DTC_OK;
	clear_event(r, DTC_EV_ERROR);
	r->ev.cpu = r->ps.rb->cpu;
	r->ev.ep = ep;
	r->ev.probe = ep->probe;
	r->ev.timestamp = r->ps.rec.timestamp;
	r->ev.fault_epid = ep->epid;
	r->ev.fault_ep = ep;
	r->ev.fault_probe = ep->probe;
	r->ev.fault = DTRACEFLT_LIBRARY;
	r->ev.difoffset = -1;
	probe_text(ep->probe, pdesc, sizeof(pdesc));
	/* dt_setopt's text ends in a newline and dt_handle_liberr adds one */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(r->msg, sizeof(r->msg), r->rules->liberr_fmt, ep->epid,
	    ep->probeid, pdesc, name, val, why);
#pragma GCC diagnostic pop
	r->ev.message = r->msg;
	r->nerrors++;
	return 1;     /* an event is ready */
}

/* A library action (never reaches the record callback).  This and
 * printa_value stay out of line: next_value runs for every record. */
/* An aggregation variable named in a record: its 8-byte variable id, or
 * in DTrace v2 its 4-byte aggregation id (the same number there). */
static uint32_t
varid_size(const dtc_reader *r, const dtc_recdesc *rd)
{
	return r->cap.hdr.v2 && rd->size == 4 ? 4 : 8;
}

static int __attribute__((noinline))
libact(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;
	const dtc_recdesc *rd = &ep->recs[i];
	uint64_t n;
	int64_t varid;
	int act = (int)(rd->arg - r->cap.hdr.dt_act_base);

	if (rd->arg < r->cap.hdr.dt_act_base)
		act = -1;
	switch (act) {
	case DTC_LIBACT_CLEAR:
	case DTC_LIBACT_DENORMALIZE:
		if (rd->size != varid_size(r, rd))
			return rec_error(r, err, DTC_E_DMISMATCH, "clear/"
			    "denormalize record of %u bytes", rd->size);
		varid = (int64_t)dtcp_ldsz(r->ps.rec.data + rd->offset, rd->size,
		    r->cap.swap);
		if (act == DTC_LIBACT_CLEAR)
			dtcp_agg_clear(r->cap.agg, &r->cap, varid);
		else
			dtcp_agg_denormalize(r->cap.agg, varid);
		r->ri = i + 1;
		return DTC_OK;
	case DTC_LIBACT_NORMALIZE:
	case DTC_LIBACT_TRUNC:
		if (rd->size != varid_size(r, rd) || i + 1 >= ep->nrecs ||
		    ep->recs[i + 1].action != DTC_ACT_LIBACT ||
		    ep->recs[i + 1].arg != rd->arg)
			return rec_error(r, err, DTC_E_DMISMATCH, "%s records "
			    "do not match the statement",
			    act == DTC_LIBACT_TRUNC ? "trunc()" : "normalize()");
		varid = (int64_t)dtcp_ldsz(r->ps.rec.data + rd->offset, rd->size,
		    r->cap.swap);
		rd = &ep->recs[i + 1];
		if (rd->size != 1 && rd->size != 2 && rd->size != 4 &&
		    rd->size != 8)
			return rec_error(r, err, DTC_E_DMISMATCH, "%s value "
			    "record of %u bytes",
			    act == DTC_LIBACT_TRUNC ? "trunc()" : "normalize()",
			    rd->size);
		n = dtcp_ldsz(r->ps.rec.data + rd->offset, rd->size, r->cap.swap);
		r->ri = i + 2;
		if (act == DTC_LIBACT_NORMALIZE) {
			dtcp_agg_normalize(r->cap.agg, varid, n);
		} else {
			int64_t sn;

			switch (rd->size) {   /* the count is signed */
			case 1: sn = (int8_t)n; break;
			case 2: sn = (int16_t)n; break;
			case 4: sn = (int32_t)n; break;
			default: sn = (int64_t)n; break;
			}
			dtcp_agg_trunc(r->cap.agg, &r->cap, varid, sn);
		}
		return DTC_OK;
	case DTC_LIBACT_SETOPT:
		return do_setopt(r, i, err);
	case DTC_LIBACT_FTRUNCATE:
		/* the output is the caller's; nothing to truncate here */
		r->ri = i + 1;
		return DTC_OK;
	default:
		r->ri = i + 1;
		return DTC_OK;
	}
}

/* printf/system/freopen: the format consumes a run of records. */
static int
printf_value(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;
	const dtc_recdesc *rd = &ep->recs[i];
	const dtc_format *fmt = dtcp_meta_recformat(&r->cap.meta, ep, i);
	uint32_t n, k;

	if (fmt == NULL)
		return rec_error(r, err, DTC_E_BADFORMAT, "enabled probe %u, "
		    "record %u: unknown format id %u", ep->epid, i, rd->format);
	n = dtcp_format_nrecs(fmt);
	if (i + n > ep->nrecs)
		return rec_error(r, err, DTC_E_DMISMATCH, "enabled probe %u: "
		    "format %u needs %u records, %u are left", ep->epid,
		    rd->format, n, ep->nrecs - i);
	if (grow_args(r, n) != 0)
		return rec_error(r, err, DTC_E_NOMEM, "out of memory");
	for (k = 0; k < n; k++)
		dtcp_decode_value_fast(&ep->recs[i + k],
		    r->ps.rec.data + ep->recs[i + k].offset, r->cap.swap, &r->args[k]);
	dtcp_value_init(&r->val, DTC_V_PRINTF, rd, r->ps.rec.data + rd->offset,
	    rd->size, r->cap.swap);
	r->val.fmt = fmt;
	r->val.nargs = n;
	r->val.args = r->args;
	r->ri = i + n;
	return DTC_OK;
}

/* dtrace-utils' tracemem arguments (DTRACE_TRACEMEM_*) */
#define V2_TRACEMEM_DYNAMIC 2
#define V2_TRACEMEM_SIZE 3
#define V2_TRACEMEM_SSIZE 4

/*
 * A v2 tracemem() with a dynamic size: the data record, then the size
 * record (dt_print_tracemem).  A size that counts as positive and is
 * below the data's cuts it, 0 included (then nothing prints).  Whether a
 * signed size is positive is decided as dtrace-utils' x86 build does:
 * `1 << (bits - 1)` is an int shift, so for 4- and 8-byte sizes the mask
 * is 0xffffffff80000000 (the shift count is taken mod 32 and the int
 * sign-extends).
 */
static int
v2_tracemem(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;
	const dtc_recdesc *rd = &ep->recs[i], *dr;
	uint64_t dsize, mask;
	int positive;

	if (i + 1 >= ep->nrecs || (dr = &ep->recs[i + 1])->action !=
	    DTC_ACT_TRACEMEM || (dr->arg != V2_TRACEMEM_SIZE &&
	    dr->arg != V2_TRACEMEM_SSIZE) || (dr->size != 1 && dr->size != 2 &&
	    dr->size != 4 && dr->size != 8))
		return rec_error(r, err, DTC_E_DMISMATCH, "tracemem() data "
		    "record without its size record");
	dsize = dtcp_ldsz(r->ps.rec.data + dr->offset, dr->size, r->cap.swap);
	mask = dr->size >= 4 ? 0xffffffff80000000ull :
	    1ull << (dr->size * 8 - 1);
	positive = dr->arg == V2_TRACEMEM_SIZE || (dsize & mask) == 0;
	dtcp_decode_value_fast(rd, r->ps.rec.data + rd->offset, r->cap.swap, &r->val);
	if (positive && dsize < rd->size)
		r->val.size = (uint32_t)dsize;
	r->ri = i + 2;
	return DTC_OK;
}

/* printa: the consecutive PRINTA records of one statement. */
static int __attribute__((noinline))
printa_value(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;
	const dtc_recdesc *rd = &ep->recs[i];
	const dtc_format *fmt = NULL;
	const dtc_aggprint *ap;
	uint32_t n = 0, k;
	dtc_error aerr;

	while (i + n < ep->nrecs && ep->recs[i + n].action == DTC_ACT_PRINTA &&
	    ep->recs[i + n].uarg == rd->uarg)
		n++;
	if (n > r->capvarids) {
		int64_t *v = realloc(r->varids, n * sizeof(*v));

		if (v == NULL)
			return rec_error(r, err, DTC_E_NOMEM, "out of memory");
		r->varids = v;
		r->capvarids = n;
	}
	for (k = 0; k < n; k++) {
		const dtc_recdesc *kr = &ep->recs[i + k];

		/* v2: the aggregation id, which is the variable's id */
		if (kr->size == 4 && r->cap.hdr.v2) {
			r->varids[k] = dtcp_ld32(r->ps.rec.data + kr->offset,
			    r->cap.swap);
			continue;
		}
		if (kr->size != 8)
			return rec_error(r, err, DTC_E_DMISMATCH, "printa() "
			    "record of %u bytes (an aggregation variable id "
			    "is 8)", kr->size);
		r->varids[k] = (int64_t)dtcp_ld64(r->ps.rec.data + kr->offset,
		    r->cap.swap);
	}
	if (rd->format != 0 &&
	    (fmt = dtcp_meta_recformat(&r->cap.meta, ep, i)) == NULL)
		return rec_error(r, err, DTC_E_BADFORMAT, "enabled probe %u, "
		    "record %u: unknown format id %u", ep->epid, i, rd->format);
	dtc_error_clear(&aerr);
	ap = dtcp_agg_printa(r->cap.agg, &r->cap, r->varids, n, fmt, &aerr);
	if (ap == NULL)
		return rec_error(r, err, aerr.code ? aerr.code : DTC_E_BADAGG,
		    "printa(): %s", aerr.text);
	dtcp_value_init(&r->val, DTC_V_PRINTA, rd, NULL, 0, r->cap.swap);
	r->val.fmt = fmt;
	r->val.agg = ap;
	r->ri = i + n;
	return DTC_OK;
}

/*
 * print(): a value shown by its C type.  DTrace v2 records it as two
 * records, the address (its format names the types' module, its arg the
 * type) and the bytes; legacy libdtrace as one DIFEXPR record whose
 * format string is "module`id".  Returns 1 with r->val filled and r->ri
 * past the records, 0 when the type cannot be had (the records then
 * print as they would without types: raw), or 2 the first time that
 * happens, with a notice event ready that says so (once per capture; the
 * record set goes on).
 */
static int __attribute__((noinline))
typed_value(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;
	const dtc_recdesc *rd = &ep->recs[i], *drd = rd;
	const dtc_format *fmt = dtcp_meta_recformat(&r->cap.meta, ep, i);
	const char *s = fmt != NULL ? dtc_format_string(fmt) : NULL, *why;
	const dtc_ctype *t;
	char module[128];
	uint64_t id;
	uint32_t next = i + 1;

	if (s == NULL)
		return 0;
	if (r->cap.hdr.v2) {
		if (i + 1 >= ep->nrecs || ep->recs[i + 1].action !=
		    DTC_ACT_PRINTT || rd->size != 8)
			return 0;
		drd = &ep->recs[i + 1];
		next = i + 2;
		id = rd->arg;
		snprintf(module, sizeof(module), "%s", s);
	} else {
		const char *bq = strrchr(s, '`');
		char *end;

		if (bq == NULL || bq == s || (size_t)(bq - s) >= sizeof(module))
			return 0;
		memcpy(module, s, (size_t)(bq - s));
		module[bq - s] = '\0';
		id = strtoull(bq + 1, &end, 10);
		if (end == bq + 1 || *end != '\0')
			return 0;
	}
	if ((t = dtcp_ctf_type(&r->cap.meta, module, id, &why)) == NULL) {
		if (r->ctf_noted)
			return 0;
		r->ctf_noted = 1;
		clear_event(r, DTC_EV_NOTICE);
		r->ev.notice = DTC_NOTICE_WARNING;
		snprintf(r->msg, sizeof(r->msg), "%s: item %lld, offset %llu: "
		    "print() of type %llu of module %s: %s; print() records "
		    "are shown as raw bytes", r->cap.source, r->ps.rb->item,
		    (unsigned long long)(r->ps.rb->file_offset +
		    r->ps.rec.raw_offset), (unsigned long long)id, module, why);
		r->ev.message = r->msg;
		return 2;
	}
	if ((why = dtcp_ctf_note(t)) != NULL) {
		/* once per ctf item, then (same record, next call) typed */
		clear_event(r, DTC_EV_NOTICE);
		r->ev.notice = DTC_NOTICE_WARNING;
		snprintf(r->msg, sizeof(r->msg), "%s: item %lld, offset %llu: "
		    "print() of type %llu of module %s: the capture's types "
		    "are damaged: %s; printed as dtrace prints it", r->cap.source,
		    r->ps.rb->item, (unsigned long long)(r->ps.rb->file_offset +
		    r->ps.rec.raw_offset), (unsigned long long)id, module, why);
		r->ev.message = r->msg;
		return 2;
	}
	dtcp_value_init(&r->val, DTC_V_TYPED, drd, r->ps.rec.data + drd->offset,
	    drd->size, r->cap.swap);
	r->val.ctype = t;
	if (r->cap.hdr.v2)
		r->val.addr = dtcp_ld64(r->ps.rec.data + rd->offset, r->cap.swap);
	r->ri = next;
	return 1;
}

/*
 * The next RECORD event of the current record set. Returns DTC_OK with an
 * event, DTC_EOF when the record set has no more records, DTC_WARN.
 */
static inline int __attribute__((always_inline))
next_value(dtc_reader *r, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;

	while (r->ri < ep->nrecs) {
		uint32_t i = r->ri;
		const dtc_recdesc *rd = &ep->recs[i];
		int rc;

		switch (rd->action) {
		case DTC_ACT_LIBACT:
			rc = libact(r, i, err);
			if (rc == 1)
				return DTC_OK;   /* a library error event */
			if (rc != DTC_OK)
				return rc;
			continue;
		case DTC_ACT_TRACEMEM_DYNSIZE:
			if (rd->size == 8)
				r->dynsize = dtcp_ld64(r->ps.rec.data + rd->offset,
				    r->cap.swap);
			r->ri = i + 1;
			continue;
		case DTC_ACT_PRINTF:
		case DTC_ACT_SYSTEM:
		case DTC_ACT_FREOPEN:
			if ((rc = printf_value(r, i, err)) != DTC_OK)
				return rc;
			break;
		case DTC_ACT_PRINTA:
			if ((rc = printa_value(r, i, err)) != DTC_OK)
				return rc;
			break;
		case DTC_ACT_TRACEMEM:
			if (r->rules->tracemem_size_after &&
			    rd->arg == V2_TRACEMEM_DYNAMIC) {
				if ((rc = v2_tracemem(r, i, err)) != DTC_OK)
					return rc;
				break;
			}
			goto plain;
		case DTC_ACT_PRINTT:
			if (rd->format == 0)
				goto plain;
			if ((rc = typed_value(r, i, err)) == 1)
				break;
			if (rc == 2)
				return DTC_OK;      /* the notice; then raw */
			goto plain;
		case DTC_ACT_COMMIT:
		case DTC_ACT_DISCARD:
			if (r->rules->silent_spec_records) {
				r->ri = i + 1;
				continue;
			}
			/* FALLTHROUGH */
		default:
		plain:
			if (rd->format != 0 && rd->action == DTC_ACT_DIFEXPR &&
			    !r->cap.hdr.v2) {
				/* legacy print(): a DIFEXPR with a type */
				if ((rc = typed_value(r, i, err)) == 1)
					break;
				if (rc == 2)
					return DTC_OK;  /* the notice */
			}
			r->ri = i + 1;
			if (rd->size == 0)
				continue;   /* speculate, commit, stop, ... */
			dtcp_decode_value_fast(rd, r->ps.rec.data + rd->offset,
			    r->cap.swap, &r->val);
			if (r->val.kind == DTC_V_MEMORY) {
				if (r->dynsize != 0 && r->dynsize <= rd->size)
					r->val.size = (uint32_t)r->dynsize;
				r->dynsize = 0;
			} else if (r->val.kind == DTC_V_EXIT) {
				r->ps.exit_status = (int)r->val.i;
			} else if (r->val.kind == DTC_V_STACK &&
			    r->val.nframes == 0 && rd->arg != 0) {
				return rec_error(r, err, DTC_E_DMISMATCH,
				    "Invalid stack program counter size");
			}
			break;
		}
		record_event(r, DTC_EV_RECORD);
		r->ev.recindex = i;
		r->ev.value = &r->val;
		r->ev.flowindent = dtcp_opt_isset(&r->cap.opts,
		    DTCP_OPT_FLOWINDENT);
		return DTC_OK;
	}
	return DTC_EOF;
}

static int
name_is(const char *name, const char *what)
{
	size_t n = strlen(name), w = strlen(what);

	if (strcmp(name, what) == 0)
		return 1;
	return n > w && name[n - w - 1] == '-' && strcmp(name + n - w, what) == 0;
}

/* dt_flowindent: classify and indent the record set about to start. */
static void
flowindent(dtc_reader *r, const dtcp_walker *w)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep, *other;
	const dtc_probedesc *p = ep->probe;
	uint32_t next;

	r->flow = DTC_FLOW_NONE;
	if (p == NULL)
		return;
	if (r->rules->flow_v2) {
		if (name_is(p->name, "entry")) {
			r->flow = DTC_FLOW_ENTRY;
			if (ep->epid != r->last_stid &&
			    ep->probeid == r->last_prid)
				r->flow = DTC_FLOW_NONE;
		} else if (name_is(p->name, "return")) {
			r->flow = DTC_FLOW_RETURN;
		}
		if (r->flow == DTC_FLOW_RETURN && r->indent > 0)
			r->indent -= 2;
		return;
	}
	if (name_is(p->name, "entry")) {
		r->flow = DTC_FLOW_ENTRY;
		if (r->last_epid != 0 && r->last_epid != ep->epid &&
		    (other = dtcp_meta_eprobe(&r->cap.meta, r->last_epid)) != NULL &&
		    other->probeid == ep->probeid)
			r->flow = DTC_FLOW_NONE;
	} else if (name_is(p->name, "return")) {
		r->flow = DTC_FLOW_RETURN;
		next = dtcp_walker_peek_epid(w);
		if (next != 0 && next != ep->epid &&
		    (other = dtcp_meta_eprobe(&r->cap.meta, next)) != NULL &&
		    other->probeid == ep->probeid)
			r->flow = DTC_FLOW_NONE;
	}
	if (r->flow == DTC_FLOW_RETURN && r->indent > 0)
		r->indent -= 2;
}

static void
probe_event(dtc_reader *r)
{
	clear_event(r, DTC_EV_PROBE);
	r->ev.cpu = r->ps.rb->cpu;
	r->ev.ep = r->ps.rec.ep;
	r->ev.probe = r->ps.rec.ep->probe;
	r->ev.timestamp = r->ps.rec.timestamp;
	r->rec_quiet = dtcp_opt_isset(&r->cap.opts, DTCP_OPT_QUIET);
	r->rec_flow = dtcp_opt_isset(&r->cap.opts, DTCP_OPT_FLOWINDENT);
	r->ev.quiet = r->rec_quiet;
	r->ev.flowindent = r->rec_flow;
	r->ev.flow = r->flow;
	r->ev.indent = r->indent;
	r->nrecords++;
}

/* ------------------------------------------------------------ temporal */

/* ------------------------------------------------------------ items loop */

/* ------------------------------------------------------------ dtc_reader_next */

/* ------------------------------------------------------ selection */

/* libdtrace's ERROR probe, for DTrace v2 faults (they come as items, not
 * as records of an enabling) */
static const dtc_probedesc error_probe = {
	0, "dtrace", "", "", "ERROR", "dtrace:::ERROR"
};

/* The same for a DTrace v2 fault item (no timestamp: v2 refuses times). */
static int
fault_selected(dtc_reader *r, const dtcp_note *d)
{
	const dtcp_v2fault *f = d->fault;

	if (!dtcp_select_where(r->ps.sel, d->cpu, 0))
		return 0;
	return dtcp_select_enabling(r->ps.sel, UINT32_MAX, UINT32_MAX,
	    &error_probe) || dtcp_select_enabling(r->ps.sel, f->stid, f->probe,
	    dtcp_meta_probe(&r->cap.meta, f->probe));
}

/* ------------------------------------------------------ the pass */

/*
 * The pass engine's items up to a pass ready to consume, the snapshots
 * merged into the aggregation state on the way.  DTC_OK: a pass is ready
 * (or the capture ended); AGAIN: notes wait; DTC_WARN; DTC_FATAL.
 */
static int
read_pass(dtc_reader *r, dtc_error *err)
{
	const dtcp_pbuf *b;
	int rc;

	for (;;) {
		rc = dtcp_pass_read(&r->ps, err);
		if (rc == DTCP_PASS_AGGBUF) {
			b = r->ps.side;
			rc = dtcp_agg_snap(r->cap.agg, &r->cap, b->cpu, b->data, b->size,
			    err);
			if (rc != DTC_OK) {
				/* the engine knows buffer offsets only */
				if (err != NULL && err->item < 0) {
					err->item = b->item;
					if (err->offset >= 0)
						err->offset += (long long)
						    b->file_offset;
				}
				return rc == DTC_FATAL ? DTC_FATAL : DTC_WARN;
			}
			/* merged into the state (a copy): its pages can go,
			 * unless principal buffers of the pass are still to
			 * be consumed */
			if (r->ps.nbufs == 0)
				dtcp_container_release(r->cap.cont);
			if (r->ps.ndq > 0)
				return AGAIN;
			continue;
		}
		if (rc == DTCP_PASS_AGGSNAP) {
			rc = dtcp_agg_replace(r->cap.agg, &r->cap, r->ps.snap,
			    r->ps.snaplen, err);
			if (rc != DTC_OK)
				return rc == DTC_FATAL ? DTC_FATAL : DTC_WARN;
			continue;
		}
		return rc;
	}
}

/*
 * The next record of the pass (r->ps.rec, r->ps.rb): the engine's, with
 * flow state started anew where a CPU's records start.
 */
static inline int __attribute__((always_inline))
next_record(dtc_reader *r, dtc_error *err)
{
	int rc = dtcp_pass_next_record_fast(&r->ps, err);

	if (__builtin_expect(r->ps.flow_reset, 0)) {
		r->ps.flow_reset = 0;
		r->indent = 0;
		r->flow = DTC_FLOW_NONE;
		r->last_prid = 0;
		r->last_stid = UINT32_MAX;
	}
	return rc;
}

/* ------------------------------------------------------ record sets */

/* What a record set leaves to the next: flow indentation, and the
 * enabling dt_flowindent compares the next one with. */
static inline void
record_set_done(dtc_reader *r)
{
	if (r->flow == DTC_FLOW_ENTRY)
		r->indent += 2;
	r->last_epid = r->ps.rec.epid;
	r->last_prid = r->ps.rec.ep->probeid;
	r->last_stid = r->ps.rec.ep->epid;
}

/*
 * A firing the selection leaves out.  Nothing of it is delivered, but
 * what it changes for the firings that are delivered changes as if it
 * had been decoded (flow indentation, options set by setopt(),
 * aggregations cleared, truncated or normalized, the exit status): a
 * selection never changes how the selected firings print.  Its other
 * records are not decoded; a printa() in it prints nothing and marks
 * nothing printed, so the aggregation is printed at the end of the run.
 * DTC_OK, or DTC_WARN for a damaged library action (err).
 */
static int __attribute__((noinline))
skip_record_set(dtc_reader *r, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->ps.rec.ep;
	const dtc_recdesc *rd;
	uint32_t i;
	int rc = DTC_OK;

	r->nskipped++;
	if (ep->uarg == 1)
		return DTC_OK;     /* an ERROR record: a message only */
	if (dtcp_opt_isset(&r->cap.opts, DTCP_OPT_FLOWINDENT))
		flowindent(r, &r->ps.rb->w);
	else
		r->flow = DTC_FLOW_NONE;
	r->ri = 0;
	while (rc == DTC_OK && r->ri < ep->nrecs) {
		i = r->ri;
		rd = &ep->recs[i];
		r->ri = i + 1;
		if (rd->action == DTC_ACT_LIBACT) {
			if ((rc = libact(r, i, err)) == 1) {
				/* a setopt() refused: its message is this
				 * firing's output */
				r->nerrors--;
				rc = DTC_OK;
			}
		} else if (rd->action == DTC_ACT_EXIT && rd->size != 0) {
			dtcp_decode_value_fast(rd, r->ps.rec.data + rd->offset,
			    r->cap.swap, &r->val);
			if (r->val.kind == DTC_V_EXIT)
				r->ps.exit_status = (int)r->val.i;
		}
	}
	record_set_done(r);
	return rc;
}

/*
 * State S_NEXT_RECORD: the next record of the pass starts a record set
 * (a PROBE event, state S_RECORDS) or is an ERROR record (an ERROR event);
 * record sets the selection leaves out are passed over here.  DTC_OK with
 * r->ev ready; AGAIN when the pass is consumed (the state is S_ITEMS or
 * S_EXIT_AGGS then) or drops wait to be reported; DTC_WARN.
 */
static inline int __attribute__((always_inline))
start_record_set(dtc_reader *r, dtc_error *err)
{
	int rc;

	for (;;) {
		rc = next_record(r, err);
		if (rc == DTC_EOF) {
			dtcp_pass_done(&r->ps);
			r->state = r->ps.eof && !r->ps.have_pending ? S_EXIT_AGGS :
			    S_ITEMS;
			return AGAIN;
		}
		if (rc != DTC_OK)
			return rc;
		/* first: an ERROR record is read at its recdescs' offsets
		 * too */
		if (dtcp_eprobe_is_bad(r->ps.rec.ep)) {
			dtcp_error_set(err, DTC_E_BADRECDESC, r->cap.source,
			    r->ps.rb->item, (long long)(r->ps.rb->file_offset +
			    r->ps.rec.raw_offset), r->ps.rb->cpu, "record of enabled "
			    "probe %u skipped: its description is inconsistent",
			    r->ps.rec.epid);
			return DTC_WARN;
		}
		if (r->ps.sel == NULL || dtcp_pass_selected(&r->ps))
			break;
		if ((rc = skip_record_set(r, err)) != DTC_OK)
			return rc;
	}
	if (r->ps.rec.ep->uarg == 1)
		return error_event(r, err);
	if (dtcp_opt_isset(&r->cap.opts, DTCP_OPT_FLOWINDENT))
		flowindent(r, &r->ps.rb->w);
	else
		r->flow = DTC_FLOW_NONE;
	r->ri = 0;
	r->dynsize = 0;
	probe_event(r);
	r->state = S_RECORDS;
	return DTC_OK;
}

/* State S_RECORD_END: the PROBE_END event; next, S_NEXT_RECORD. */
static void
end_record_set(dtc_reader *r)
{
	/* its quiet is the one in force now: setopt() in this record set
	 * changes the newline */
	record_event(r, DTC_EV_PROBE_END);
	r->ev.flowindent = r->rec_flow;
	record_set_done(r);
	r->state = S_NEXT_RECORD;
}

/* State S_RECORDS: the next RECORD event (DTC_OK), or AGAIN at the end
 * of the record set (state S_RECORD_END), or DTC_WARN. */
static int
record_value(dtc_reader *r, dtc_error *err)
{
	int rc = next_value(r, err);

	if (rc == DTC_OK)
		return DTC_OK;
	r->state = S_RECORD_END;
	return rc == DTC_EOF ? AGAIN : rc;
}

static int
finish(dtc_reader *r, int rc)
{
	r->last_rc = rc;
	if (rc == DTC_EOF || rc == DTC_FATAL)
		r->dead = 1;
	return rc;
}

int
dtc_reader_next(dtc_reader *r, const dtc_event **evp, dtc_error *err)
{
	int rc;

	/* each call says what it skipped: not what an earlier one did */
	dtc_error_clear(err);
	*evp = NULL;
	if (r->dead)
		return r->last_rc;
	for (;;) {
		if (r->hdr_warn.code != DTC_E_NONE && r->state != S_HEADER) {
			if (err != NULL)
				*err = r->hdr_warn;
			r->hdr_warn.code = DTC_E_NONE;
			return DTC_WARN;
		}
		/* drops between record sets, never inside one: a temporal
		 * pass learns of a buffer's end (and queues its drops) while
		 * it hands out another buffer's record set; dtc_reader_consume's
		 * loop delivers them at the set's end too */
		if (r->ps.ndq != 0 && r->state != S_RECORDS &&
		    r->state != S_RECORD_END && drop_event(r)) {
			*evp = &r->ev;
			return DTC_OK;
		}
		switch (r->state) {
		case S_HEADER:
			if ((rc = dtcp_pass_header(&r->ps, err)) != DTC_OK)
				return finish(r, rc);
			r->rules = r->cap.hdr.v2 ? &librules_v2 :
			    &librules_legacy;
			if (err != NULL && err->code != DTC_E_NONE) {
				r->hdr_warn = *err;
				dtc_error_clear(err);
			}
			r->state = S_ITEMS;
			clear_event(r, DTC_EV_BEGIN);
			r->ev.header = &r->cap.hdr;
			*evp = &r->ev;
			return DTC_OK;

		case S_ITEMS:
			rc = read_pass(r, err);
			if (rc == AGAIN)
				continue;
			if (rc == DTC_FATAL) {
				/* a capture cut short (or undecodable bytes):
				 * keep what decoded, consume the pass read so
				 * far and print the aggregations; the END
				 * event says the capture is incomplete */
				r->state = r->ps.nbufs > 0 ? S_PASS_START :
				    S_EXIT_AGGS;
				return DTC_WARN;
			}
			if (rc != DTC_OK)
				return rc;
			if (r->ps.nbufs == 0 && r->ps.eof) {
				r->state = S_EXIT_AGGS;
				continue;
			}
			if (r->ps.nbufs == 0)
				continue;
			r->state = S_PASS_START;
			continue;

		case S_PASS_START:
			if ((rc = dtcp_pass_select_prepare(&r->ps, err)) !=
			    DTC_OK)
				return finish(r, rc);
			r->state = S_NEXT_RECORD;
			if ((rc = dtcp_pass_plan(&r->ps, err)) == DTC_FATAL)
				return finish(r, rc);
			if (rc != DTC_OK)
				return DTC_WARN;
			continue;

		case S_NEXT_RECORD:
			rc = start_record_set(r, err);
			if (rc == AGAIN)
				continue;
			if (rc == DTC_OK)
				*evp = &r->ev;
			return rc;

		case S_RECORDS:
			rc = record_value(r, err);
			if (rc == AGAIN)
				continue;
			if (rc == DTC_OK)
				*evp = &r->ev;
			return rc;

		case S_RECORD_END:
			end_record_set(r);
			*evp = &r->ev;
			return DTC_OK;

		case S_EXIT_AGGS: {
			const dtc_aggprint *ap = NULL;

			/* a capture without records refuses what it cannot
			 * honour as well */
			if (!r->ps.sel_checked &&
			    (rc = dtcp_pass_select_prepare(&r->ps, err)) != DTC_OK)
				return finish(r, rc);
			/* every item has been read (to the end, or to the
			 * damage that ended the reading): the items after
			 * the end item are counted */
			if (dtcp_pass_after_end(&r->ps, err) != DTC_OK)
				return DTC_WARN;
			r->cap.meta.proc_horizon = 0;
			if (!(r->flags & DTC_OPEN_NOAGGEXIT))
				ap = dtcp_agg_exit_next(r->cap.agg, &r->cap,
				    &r->exit_cursor);
			if (ap == NULL) {
				r->state = S_END;
				continue;
			}
			clear_event(r, DTC_EV_AGG);
			r->ev.agg = ap;
			*evp = &r->ev;
			return DTC_OK;
		}

		case S_END:
			clear_event(r, DTC_EV_END);
			r->ev.exit_status = r->ps.exit_status;
			r->ev.complete = r->ps.saw_end;
			r->ev.nrecords = r->nrecords;
			r->ev.ndrops = r->ndrops;
			r->ev.nerrors = r->nerrors;
			r->ev.count = r->nskipped;
			r->state = S_DONE;
			*evp = &r->ev;
			return DTC_OK;

		case S_DONE:
			return finish(r, DTC_EOF);
		}
	}
}

static int
deliver(const dtc_handler *h, const dtc_event *ev, void *arg)
{
	switch (ev->type) {
	case DTC_EV_BEGIN: return h->begin ? h->begin(ev, arg) : 0;
	case DTC_EV_PROBE: return h->probe ? h->probe(ev, arg) : 0;
	case DTC_EV_RECORD: return h->record ? h->record(ev, arg) : 0;
	case DTC_EV_PROBE_END: return h->probe_end ? h->probe_end(ev, arg) : 0;
	case DTC_EV_AGG: return h->agg ? h->agg(ev, arg) : 0;
	case DTC_EV_DROP: return h->drop ? h->drop(ev, arg) : 0;
	case DTC_EV_ERROR: return h->error ? h->error(ev, arg) : 0;
	case DTC_EV_NOTICE: return h->notice ? h->notice(ev, arg) : 0;
	case DTC_EV_END: return h->end ? h->end(ev, arg) : 0;
	}
	return 0;
}

/*
 * dtc_reader_consume's inner loop: the record sets of a pass, straight to the
 * callbacks.  Three or more events come per probe firing, millions of
 * firings in a row; going back through dtc_reader_next's state dispatch for each
 * of them was a third of the decoding cost.  Returns AGAIN when dtc_reader_next
 * must take over (the pass is consumed, drops wait, an ERROR record), a
 * callback's non-zero return in *cb, or what dtc_reader_next would return.
 */
static int
consume_record_sets(dtc_reader *r, const dtc_handler *h, void *arg,
    dtc_error *err, int *cb)
{
	int rc;

	while (r->state == S_NEXT_RECORD && r->ps.ndq == 0) {
		if ((rc = start_record_set(r, err)) != DTC_OK)
			return rc;
		if (r->state != S_RECORDS)
			return DTC_OK;    /* an ERROR event: dtc_reader_consume delivers it */
		if (h->probe != NULL && (*cb = h->probe(&r->ev, arg)) != 0)
			return DTC_OK;
		while ((rc = next_value(r, err)) == DTC_OK) {
			/* a setopt() error is an ERROR event */
			*cb = r->ev.type == DTC_EV_RECORD ? (h->record != NULL ?
			    h->record(&r->ev, arg) : 0) : deliver(h, &r->ev, arg);
			if (*cb != 0)
				return DTC_OK;
		}
		r->state = S_RECORD_END;
		if (rc != DTC_EOF)
			return rc;
		end_record_set(r);
		if (h->probe_end != NULL &&
		    (*cb = h->probe_end(&r->ev, arg)) != 0)
			return DTC_OK;
	}
	return AGAIN;
}

/*
 * Where a callback stopped dtc_reader_consume, in err: the record the event came
 * from (its item, CPU and file offset, as the warnings about records say
 * it), or for an event of no record (a drop, an aggregation printed at the
 * end) the last item read.  Code DTC_E_NONE: nothing is wrong with the
 * capture there.  A program says where it stopped with it (dtconsume's
 * "processing aborted"), which it cannot find out otherwise.
 */
static void
stopped_at(const dtc_reader *r, const dtc_event *ev, dtc_error *err)
{
	if (err == NULL)
		return;
	dtc_error_clear(err);
	if (ev != NULL && r->ps.rb != NULL && (record_family(ev->type) ||
	    (ev->type == DTC_EV_ERROR && ev->ep != NULL)))
		dtcp_error_set(err, DTC_E_NONE, r->cap.source, r->ps.rb->item,
		    (long long)(r->ps.rb->file_offset + r->ps.rec.raw_offset),
		    r->ps.rb->cpu, "stopped by the handler at this record");
	else
		dtcp_error_set(err, DTC_E_NONE, r->cap.source, r->ps.last_item,
		    r->ps.last_item >= 0 ? (long long)r->ps.last_offset : -1, -1,
		    "stopped by the handler after this item");
}

/*
 * The same events as dtc_reader_next, pushed.  At the end, DTC_WARN when
 * anything was skipped (a warning was delivered) or the capture was cut
 * short (no end item): a caller that only looks at the return value must
 * not take a damaged capture for a whole one.  When a callback stops it,
 * err says where (stopped_at), in place of the first warning it held:
 * the warn callback, when there is one, had that.
 */
static int
consume(dtc_reader *r, const dtc_handler *h, void *arg, dtc_error *err)
{
	const dtc_event *ev;
	dtc_error local;
	int rc, cb, warned = 0;

	dtc_error_clear(err);
	dtc_error_clear(&local);
	for (;;) {
		if (local.code != DTC_E_NONE)
			dtc_error_clear(&local);
		ev = NULL;
		cb = 0;
		if (r->state == S_NEXT_RECORD && !r->dead) {
			rc = consume_record_sets(r, h, arg, &local, &cb);
			if (cb != 0) {
				stopped_at(r, &r->ev, err);
				return cb;
			}
			if (rc == DTC_OK)
				ev = &r->ev;
			else if (rc == AGAIN)
				rc = dtc_reader_next(r, &ev, &local);
		} else {
			rc = dtc_reader_next(r, &ev, &local);
		}
		if (rc == DTC_EOF)
			return warned || !r->ps.saw_end ? DTC_WARN : DTC_OK;
		if (rc == DTC_WARN || rc == DTC_FATAL) {
			warned = 1;
			if (h->warn != NULL && (cb = h->warn(&local, arg)) != 0) {
				/* it stopped at this warning */
				if (err != NULL)
					*err = local;
				return cb;
			}
			if (err != NULL && err->code == DTC_E_NONE)
				*err = local;
			if (rc == DTC_FATAL)
				return rc;
			continue;
		}
		if (ev == NULL)
			continue;
		if ((cb = deliver(h, ev, arg)) != 0) {
			stopped_at(r, ev, err);
			return cb;
		}
	}
}

/* The size of the first dtc_handler: what (dtc_reader_consume) was built for. */
#define HANDLER_SIZE_1 (10 * sizeof(int (*)(const dtc_event *, void *)))

/*
 * A handler of another size than this library's: a smaller one (a program
 * built against an older header) is copied into a whole one whose
 * callbacks it does not know of are NULL; a larger one (a newer header)
 * is read up to what this library knows.
 */
int
dtc_reader_consume_sized(dtc_reader *r, const dtc_handler *h, size_t hsize,
    void *arg, dtc_error *err)
{
	dtc_handler whole;

	if (h != NULL && hsize >= sizeof(whole))
		return consume(r, h, arg, err);
	memset(&whole, 0, sizeof(whole));
	/* whole callbacks only: a size between two is not a handler's, and
	 * half a pointer would be called */
	hsize -= hsize % sizeof(whole.begin);
	if (h != NULL)     /* NULL: no callbacks, decode for the status */
		memcpy(&whole, h, hsize);
	return consume(r, &whole, arg, err);
}

int
(dtc_reader_consume)(dtc_reader *r, const dtc_handler *h, void *arg,
    dtc_error *err)
{
	return dtc_reader_consume_sized(r, h, HANDLER_SIZE_1, arg, err);
}

/* ------------------------------------------------------------ helpers */

/*
 * The rendering and symbol helpers of 0.x, which take the reader: the
 * capture's (dtc_capture(3)), on the reader's capture.
 */
int
dtc_reader_record_string(const dtc_reader *r, const dtc_value *v, size_t *len)
{
	return dtc_capture_record_string(r != NULL ? &r->cap : NULL, v, len);
}

int
dtc_reader_typed_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err)
{
	return dtc_capture_typed_render(r != NULL ? &r->cap : NULL, v, out, err);
}

int
dtc_reader_typed_walk(const dtc_reader *r, const dtc_value *v,
    int (*fn)(const dtc_tnode *n, void *arg), void *arg, dtc_error *err)
{
	return dtc_capture_typed_walk(r != NULL ? &r->cap : NULL, v, fn, arg, err);
}

int
dtc_reader_hist_render(const dtc_reader *r, const dtc_aggval *v, dtc_buf *out)
{
	return dtc_capture_hist_render(r != NULL ? &r->cap : NULL, v, out);
}

int
dtc_reader_ksym_lookup(const dtc_reader *r, uint64_t addr, dtc_symbol *sym)
{
	return dtc_capture_ksym_lookup(r != NULL ? &r->cap : NULL, addr, sym);
}

int
dtc_reader_usym_lookup(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_symbol *sym)
{
	return dtc_capture_usym_lookup(r != NULL ? &r->cap : NULL, pid, addr, sym);
}

int
dtc_reader_proc_known(const dtc_reader *r, uint64_t pid)
{
	return dtc_capture_proc_known(r != NULL ? &r->cap : NULL, pid);
}

void
dtc_reader_addr_text(const dtc_reader *r, uint64_t addr, int exact_only,
    dtc_buf *out)
{
	dtc_capture_addr_text(r != NULL ? &r->cap : NULL, addr, exact_only, out);
}

void
dtc_reader_uaddr_text(const dtc_reader *r, uint64_t pid, uint64_t addr,
    int exact_only, dtc_buf *out)
{
	dtc_capture_uaddr_text(r != NULL ? &r->cap : NULL, pid, addr, exact_only, out);
}

void
dtc_reader_mod_text(const dtc_reader *r, uint64_t addr, dtc_buf *out)
{
	dtc_capture_mod_text(r != NULL ? &r->cap : NULL, addr, out);
}

void
dtc_reader_umod_text(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_buf *out)
{
	dtc_capture_umod_text(r != NULL ? &r->cap : NULL, pid, addr, out);
}

void
dtc_reader_frame_text(const dtc_reader *r, uint64_t pc, dtc_buf *out)
{
	dtc_capture_frame_text(r != NULL ? &r->cap : NULL, pc, out);
}

int
dtc_reader_printf_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err)
{
	return dtc_capture_printf_render(r != NULL ? &r->cap : NULL, v, out,
	    err);
}

int
dtc_reader_printa_render(const dtc_reader *r, const dtc_aggprint *ap,
    const dtc_aggrow *row, dtc_buf *out, dtc_error *err)
{
	return dtc_capture_printa_render(r != NULL ? &r->cap : NULL, ap, row,
	    out, err);
}

int
dtc_reader_text_cut(const dtc_reader *r, dtc_buf *out, size_t start,
    const char *what, dtc_error *err)
{
	return dtc_capture_text_cut(r != NULL ? &r->cap : NULL, out, start,
	    what, err);
}

/* rseries.c: the reader reads the parts of a series. */
void
dtcp_reader_set_series(dtc_reader *r, struct dtcp_rseries *s)
{
	r->cap.series = s;
}
