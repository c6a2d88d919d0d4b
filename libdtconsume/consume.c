/*
 * consume.c - the reader: the consumer loop behind dtc_next().
 *
 * It does what dtrace_work() does on a live system, from the capture:
 * for each consume pass, report status drops, add the aggregation
 * snapshots into the running state, then consume the pass's principal
 * buffers in libdtrace's order (the BEGIN CPU first and the END CPU last,
 * or merged by timestamp with option temporal), turning records into
 * events.  At the end it prints the aggregations no printa() printed.
 *
 * dtc_next() is a generator: every call resumes the state machine and
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

#include "dtc_private.h"
#include "select.h"

#define DTRACEFLT_BADADDR 1
#define DTRACEFLT_BADALIGN 2
#define DTRACEFLT_BADSTACK 9
#define DTRACEFLT_LIBRARY 1000

/* internal: "queued drops must be reported before going on" */
#define AGAIN (DTC_WARN + 1)

/* One principal buffer of the current pass. */
typedef struct pbuf {
	int cpu;
	long long item;
	size_t item_offset;      /* of the item, for messages */
	size_t file_offset;      /* of the data bytes, for messages */
	const uint8_t *data;
	size_t size;
	uint64_t drops, errors, oldest, timestamp;
	uint8_t *owned;          /* copy when the container is not stable */
	size_t owned_cap;
	dtcp_walker w;
	int started, done;
	dtcp_walkrec cur;        /* temporal: the next record of this buffer */
	int have_cur;
} pbuf;

/* A consume segment: one buffer, maybe only its BEGIN (or non-BEGIN)
 * records (dt_consume_begin's two-step walk of the BEGIN CPU). */
enum filter { F_ALL, F_BEGIN_ONLY, F_NOT_BEGIN };
typedef struct segment {
	int buf;
	enum filter filter;
	int reset_flow;
} segment;

enum state {
	S_HEADER, S_ITEMS, S_PASS_START, S_NEXT_RECORD, S_RECORDS,
	S_RECORD_END, S_EXIT_AGGS, S_END, S_DONE
};

typedef struct status {
	int have;
	int began_on, ended_on, exiting, exit_status;
	uint64_t c[10];          /* cumulative drop counters, DTC_DROP_* order */
} status;

/* A DTrace v2 fault item: the ERROR probe as libdtrace reported it. */
struct v2fault {
	uint32_t stid, probe;
	int64_t action, offset, fault;
	uint64_t addr;
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

/* A drop (or a v2 fault) to report between records. */
struct qdrop {
	int kind, cpu;
	uint64_t count;
	char *msg;               /* v2: libdtrace's message (owned) */
	struct v2fault *fault;   /* v2: a fault item (owned) */
	int interrupt;           /* an interrupt item */
};

struct dtc_reader {
	dtcp_container *cont;
	char *source;
	unsigned flags;
	enum state state;
	int dead;                /* EOF or FATAL returned: sticky */
	int last_rc;

	dtc_header hdr;
	const struct librules *rules;
	int swap, illumos;
	dtcp_meta meta;
	dtcp_options opts;
	dtcp_aggstate *agg;

	/* the pass being read / consumed */
	uint32_t pass;           /* current pass number (0 = none yet) */
	int npasses_consumed;
	status st, prev_st;
	pbuf *bufs;
	size_t nbufs, capbufs;
	segment *segs;
	size_t nsegs, capsegs, seg;
	int temporal;            /* this pass is merged by timestamp */
	pbuf **heap;             /* temporal: buffers by their next record */
	size_t nheap, capheap, heap_i;
	int heap_ready;
	pbuf *refill;            /* the buffer whose record was just taken */
	int saw_end, eof;
	int exit_status;
	int began_consumed;      /* the BEGIN CPU was put first once */

	/* a read-ahead item of the next pass, already parsed */
	int have_pending;
	struct pending {
		int kind;        /* 1 aggbuf, 2 buf, 3 status, 4 end,
		                  * 5 v2 drop/fault, 6 v2 aggsnap */
		struct qdrop note;
		pbuf b;
		status st;
		uint32_t pass;
		int exit_status;
	} pending;

	/* the record being turned into events */
	pbuf *rb;                /* its buffer */
	dtcp_walkrec rec;
	uint32_t ri;             /* next recdesc index */
	uint64_t dynsize;        /* pending tracemem dynamic size */
	int ctf_noted;           /* said once that print() shows raw bytes */
	uint32_t last_epid;
	/* v2 flowindent: the last record set's probe and statement in this
	 * CPU buffer (0 and ~0: none), and the buffer's pass and cpu */
	uint32_t last_prid, last_stid;
	uint32_t flow_pass;
	int flow_cpu;
	int indent;
	int flow;
	int rec_quiet, rec_flow;

	/* drop events queued between records (principal drops, status) */
	/* a header value of the wrong type, read past: the warning follows
	 * the BEGIN event (the header is decoded, and BEGIN must come) */
	dtc_error hdr_warn;
	struct qdrop dq[16];
	size_t ndq, dqi;
	/* DTrace v2: the aggsnap waiting for its pass, as legacy entries */
	uint8_t *snap;
	size_t snaplen, snapcap;

	/* options items wait until the pass before them is consumed */
	struct popt { char name[64]; char val[256]; long long item;
	    size_t offset; } *popts;
	size_t npopts, cappopts;

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

	/* record selection (dtc_select, select.c); NULL: every firing */
	dtcp_select *sel;
	int sel_checked;         /* the capture can honour it (said once) */
	uint64_t nskipped;       /* firings the selection left out */
	uint64_t position;       /* bytes read: the end of the last item */

	/* the header's ncpu as written (hdr.ncpu is capped at 65536);
	 * have_ncpu: it gave one, so a buffer's cpu can be checked */
	uint64_t ncpu;
	int have_ncpu;
	/* items after the end item: how many, and the first (reported
	 * once, before the aggregations printed at the end) */
	uint64_t nafter;
	long long end_item, after_item;
	size_t after_offset;
	char after_kind[24];
	int after_said;
	/* the last item read: where a stop outside a record set is */
	long long last_item;
	size_t last_offset;
};

/* ------------------------------------------------------------ accessors */

const dtcp_meta *
dtcp_reader_meta(const dtc_reader *r)
{
	return r != NULL ? &r->meta : NULL;
}

const dtcp_options *
dtcp_reader_options(const dtc_reader *r)
{
	return &r->opts;
}

int
dtcp_reader_swap(const dtc_reader *r)
{
	return r->swap;
}

int
dtcp_reader_illumos(const dtc_reader *r)
{
	return r->illumos;
}

dtcp_aggstate *
dtcp_reader_aggstate(const dtc_reader *r)
{
	return r->agg;
}

dtcp_meta *
dtcp_reader_meta_rw(dtc_reader *r)
{
	return &r->meta;
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
	r->hdr = like->hdr;
	r->hdr.os = strdup_or_empty(like->hdr.os);
	r->hdr.release = strdup_or_empty(like->hdr.release);
	r->hdr.host = strdup_or_empty(like->hdr.host);
	r->hdr.producer = strdup_or_empty(like->hdr.producer);
	r->source = strdup("<merged>");
	r->agg = dtcp_agg_new();
	if (r->hdr.os == NULL || r->hdr.release == NULL ||
	    r->hdr.host == NULL || r->hdr.producer == NULL ||
	    r->source == NULL || r->agg == NULL) {
		dtc_close(r);
		return NULL;
	}
	r->swap = like->swap;
	r->illumos = like->illumos;
	r->opts = like->opts;
	r->exit_status = -1;
	r->state = S_DONE;
	r->meta.ksyms = like->meta.ksyms;
	r->meta.nksyms = like->meta.nksyms;
	r->meta.procs = like->meta.procs;
	r->meta.nprocs = like->meta.nprocs;
	r->borrowed_syms = 1;
	return r;
}

const dtc_header *
dtc_reader_header(const dtc_reader *r)
{
	return &r->hdr;
}

int
dtc_reader_walltime(const dtc_reader *r, uint64_t hrtime, uint64_t *wall)
{
	if (!r->meta.have_clock)
		return 0;
	*wall = r->meta.clock_walltime + (hrtime - r->meta.clock_hrtime);
	return 1;
}

const char *
dtc_reader_source(const dtc_reader *r)
{
	return r->source;
}

/* The position is read by a caller's progress thread while the reader
 * runs (dtconsume's progress line): atomic, relaxed (a plain load and
 * store where 64-bit accesses are atomic anyway). */
static void
set_position(dtc_reader *r, uint64_t pos)
{
	__atomic_store_n(&r->position, pos, __ATOMIC_RELAXED);
}

uint64_t
dtc_reader_position(const dtc_reader *r)
{
	return __atomic_load_n(&r->position, __ATOMIC_RELAXED);
}

int64_t
dtc_get_option(const dtc_reader *r, const char *name)
{
	int id = dtcp_options_lookup(name);

	if (id < 0)
		return DTC_OPT_UNSET;
	return r->opts.v[id];
}

int
dtc_option_isset(const dtc_reader *r, const char *name)
{
	int id = dtcp_options_lookup(name);

	if (id < 0)
		return dtc_option_effective(name) < 0 ? -1 : 0;
	if (id == DTCP_OPT_ENCODING)
		return r->opts.encoding[0] != '\0';
	return r->opts.v[id] != DTC_OPT_UNSET;
}

const char *
dtc_get_option_string(const dtc_reader *r, const char *name)
{
	if (strcmp(name, "encoding") == 0 && r->opts.encoding[0] != '\0')
		return r->opts.encoding;
	return NULL;
}

/* ------------------------------------------------------------ open/close */

static dtc_reader *
reader_new(dtcp_container *c, unsigned flags, dtc_error *err)
{
	dtc_reader *r;

	if (c == NULL)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->source = strdup(dtcp_container_source(c))) == NULL ||
	    (r->agg = dtcp_agg_new()) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, dtcp_container_source(c), -1,
		    -1, -1, "out of memory");
		if (r != NULL) {
			free(r->source);
			free(r);
		}
		dtcp_container_close(c);
		return NULL;
	}
	r->cont = c;
	r->flags = flags;
	r->exit_status = -1;
	r->rules = &librules_legacy;
	r->flow_cpu = -1;
	r->last_stid = UINT32_MAX;
	r->last_item = -1;
	dtcp_options_init(&r->opts);
	if (flags & DTC_OPEN_TEMPORAL) {
		r->opts.v[DTCP_OPT_TEMPORAL] = 1;
		r->opts.pinned[DTCP_OPT_TEMPORAL] = 1;
	}
	return r;
}

dtc_reader *
dtc_open_file(const char *path, unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);   /* a caller's stack garbage must not win */
	return reader_new(dtcp_container_open_file(path, err), flags, err);
}

dtc_reader *
dtc_open_fd(int fd, const char *name, unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);
	return reader_new(dtcp_container_open_fd(fd, name, err), flags, err);
}

dtc_reader *
dtc_open_memory(const void *buf, size_t len, const char *name,
    unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);
	return reader_new(dtcp_container_open_memory(buf, len, name, err),
	    flags, err);
}

static void
free_bufs(dtc_reader *r)
{
	size_t i;

	for (i = 0; i < r->capbufs; i++) {
		free(r->bufs[i].owned);
		dtcp_walker_free(&r->bufs[i].w);
	}
	free(r->bufs);
	free(r->pending.b.owned);
	free(r->pending.note.msg);
	free(r->pending.note.fault);
	for (i = r->dqi; i < r->ndq; i++) {
		free(r->dq[i].msg);
		free(r->dq[i].fault);
	}
	free(r->snap);
}

void
dtc_close(dtc_reader *r)
{
	if (r == NULL)
		return;
	dtcp_agg_free(r->agg);
	dtcp_select_free(r->sel);
	free(r->sel);
	if (r->borrowed_syms) {
		r->meta.ksyms = NULL;
		r->meta.nksyms = 0;
		r->meta.procs = NULL;
		r->meta.nprocs = 0;
	}
	dtcp_meta_free(&r->meta);
	free_bufs(r);
	free(r->segs);
	free(r->heap);
	free(r->popts);
	free(r->args);
	free(r->varids);
	free((char *)r->hdr.os);
	free((char *)r->hdr.release);
	free((char *)r->hdr.host);
	free((char *)r->hdr.producer);
	dtcp_container_close(r->cont);
	free(r->source);
	free(r);
}

int
dtc_select(dtc_reader *r, const char *what, const char *value,
    dtc_error *err)
{
	char why[200];

	dtc_error_clear(err);
	if (r->state != S_HEADER || r->dead) {
		dtcp_error_set(err, DTC_E_BADOPTION, r->source, -1, -1, -1,
		    "a selection after the first event: too late, a "
		    "firing delivered cannot be taken back");
		return DTC_FAILED;
	}
	if (r->sel == NULL) {
		if ((r->sel = malloc(sizeof(*r->sel))) == NULL) {
			dtcp_error_set(err, DTC_E_NOMEM, r->source, -1, -1, -1,
			    "out of memory");
			return DTC_FAILED;
		}
		dtcp_select_init(r->sel);
	}
	if (dtcp_select_add(r->sel, what, value, why, sizeof(why)) != DTC_OK) {
		dtcp_error_set(err, DTC_E_BADOPTION, r->source, -1, -1, -1,
		    "%s", why);
		return DTC_FAILED;
	}
	return DTC_OK;
}

/*
 * dtrace -x cpu=N traces CPU N only; offline the option selects CPU N's
 * firings, as dtc_select "cpu" does.  The value is read as libdtrace's
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
		dtcp_error_set(err, DTC_E_BADOPTION, r->source, -1, -1, -1,
		    "couldn't set option \"cpu\" to \"%s\": Invalid value for "
		    "specified option", value != NULL ? value : "");
		return DTC_FAILED;
	}
	if (v == DTC_OPT_UNSET)
		return DTC_OK;
	snprintf(num, sizeof(num), "%lld", (long long)v);
	return dtc_select(r, "cpu", num, err);
}

int
dtc_set_option(dtc_reader *r, const char *name, const char *value,
    dtc_error *err)
{
	char why[128];

	dtc_error_clear(err);
	if (strcmp(name, "cpu") == 0)
		return option_cpu(r, value, err);
	if (dtcp_options_set(&r->opts, name, value, 1, why, sizeof(why)) !=
	    DTC_OK) {
		dtcp_error_set(err, DTC_E_BADOPTION, r->source, -1, -1, -1,
		    "couldn't set option \"%s\" to \"%s\": %s", name,
		    value != NULL ? value : "", why);
		return DTC_FAILED;
	}
	return DTC_OK;
}

/* ------------------------------------------------------------ items */

static char *
dup_text(const dtcp_container *c, const dtcp_item *it, const dtcp_node *map,
    const char *key, const char *dflt, dtc_error *err)
{
	const char *s = dflt;
	size_t len = strlen(dflt);
	char *p;

	if (dtcp_get_text(c, it, map, key, 0, &s, &len, err) == DTC_FAILED) {
		s = dflt;
		len = strlen(dflt);
	}
	if ((p = malloc(len + 1)) != NULL) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

static int
read_header(dtc_reader *r, const dtcp_item *it, dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0], *v;
	const char *s;
	size_t len;
	uint64_t u;
	int rc;

	if (strcmp(it->kind, "dtsnap") != 0) {
		dtcp_error_set(err, DTC_E_BADHEADER, r->source, it->index,
		    (long long)it->offset, -1, "the first item is a \"%s\" "
		    "item, not the dtsnap header", it->kind);
		return DTC_FATAL;
	}
	if ((v = dtcp_map_get(map, "version")) != NULL &&
	    v->type == DTCP_N_ARRAY && v->count >= 2) {
		r->hdr.version_major = (int)dtcp_array_at(v, 0)->u;
		r->hdr.version_minor = (int)dtcp_array_at(v, 1)->u;
	}
	if (dtcp_get_text(r->cont, it, map, "byteorder", 0, &s, &len, err) ==
	    DTC_OK)
		r->hdr.big_endian = len == 3 && memcmp(s, "big", 3) == 0;
	if (dtcp_get_text(r->cont, it, map, "model", 0, &s, &len, err) ==
	    DTC_OK)
		r->hdr.ilp32 = len == 5 && memcmp(s, "ILP32", 5) == 0;
	r->hdr.os = dup_text(r->cont, it, map, "os", "", err);
	r->hdr.release = dup_text(r->cont, it, map, "release", "", err);
	r->hdr.host = dup_text(r->cont, it, map, "host", "", err);
	r->hdr.producer = dup_text(r->cont, it, map, "producer", "", err);
	if (r->hdr.os == NULL || r->hdr.release == NULL ||
	    r->hdr.host == NULL || r->hdr.producer == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, r->source, -1, -1, -1,
		    "out of memory");
		return DTC_FATAL;
	}
	r->hdr.os_illumos = strcasecmp(r->hdr.os, "illumos") == 0 ||
	    strcasecmp(r->hdr.os, "solaris") == 0 ||
	    strcasecmp(r->hdr.os, "sunos") == 0;
	r->illumos = r->hdr.os_illumos;
	r->hdr.flavor = "legacy";
	rc = dtcp_get_text(r->cont, it, map, "flavor", 0, &s, &len, err);
	if (rc == DTC_FAILED)
		return DTC_FATAL;   /* read as legacy, every item would be lost */
	if (rc == DTC_OK) {
		if (len == 9 && memcmp(s, "dtrace-v2", 9) == 0) {
			r->hdr.flavor = "dtrace-v2";
			r->hdr.v2 = 1;
		} else if (!(len == 6 && memcmp(s, "legacy", 6) == 0)) {
			dtcp_error_set(err, DTC_E_VERSION, r->source, it->index,
			    (long long)it->offset, -1, "capture flavor '%.*s' is "
			    "not one this reader knows (legacy, dtrace-v2)",
			    (int)(len > 40 ? 40 : len), s);
			return DTC_FATAL;
		}
	}
	if (r->hdr.v2 && r->hdr.version_major == 1 && r->hdr.version_minor < 1) {
		dtcp_error_set(err, DTC_E_VERSION, r->source, it->index,
		    (long long)it->offset, -1, "a dtrace-v2 capture needs "
		    "container version 1.1 or later, the header says %d.%d",
		    r->hdr.version_major, r->hdr.version_minor);
		return DTC_FATAL;
	}
	r->meta.v2 = r->hdr.v2;
	r->rules = r->hdr.v2 ? &librules_v2 : &librules_legacy;
	u = 0;
	if (dtcp_get_u64(r->cont, it, map, "ncpu", 0, &u, err) == DTC_OK) {
		r->hdr.ncpu = u > 65536 ? 65536 : (uint32_t)u;
		r->ncpu = u;
		r->have_ncpu = 1;
	}
	u = r->illumos ? 49 : 55;
	if (dtcp_get_u64(r->cont, it, map, "dt_act_base", 0, &u, err) ==
	    DTC_FAILED)
		u = r->illumos ? 49 : 55;
	r->hdr.dt_act_base = (uint32_t)u;
	r->swap = r->hdr.big_endian != dtcp_host_big();
	if (r->hdr.ilp32) {
		/* pc_t and pointers would be 4 bytes: record sizes carry it
		 * (stack pcsize = size / depth), so nothing more to do here */
	}
	return DTC_OK;
}

/* Parse an options item into the queue; applied by apply_options(). */
static int
read_options(dtc_reader *r, const dtcp_item *it, dtc_error *err)
{
	const dtcp_node *map, *k, *v;
	struct popt *po;
	uint32_t i;
	int rc = DTC_OK;

	if (dtcp_get_node(r->cont, it, &it->nodes[0], "options", DTCP_N_MAP, 1,
	    &map, err) != DTC_OK)
		return DTC_WARN;
	for (i = 0, k = dtcp_first_child(map); i < map->count;
	    i++, k = dtcp_next_sibling(v)) {
		v = dtcp_next_sibling(k);
		if (r->npopts == r->cappopts) {
			size_t cap = r->cappopts ? r->cappopts * 2 : 16;
			struct popt *np;

			if (cap > 4096 || (np = realloc(r->popts,
			    cap * sizeof(*np))) == NULL) {
				dtcp_error_set(err, DTC_E_LIMIT, r->source,
				    it->index, (long long)k->offset, -1,
				    "options item: too many options");
				return DTC_WARN;
			}
			r->popts = np;
			r->cappopts = cap;
		}
		po = &r->popts[r->npopts];
		po->item = it->index;
		po->offset = k->offset;
		if (k->type != DTCP_N_TEXT || k->len >= sizeof(po->name)) {
			dtcp_error_set(err, DTC_E_KEYTYPE, r->source, it->index,
			    (long long)k->offset, -1, "options item: option "
			    "names must be text");
			rc = DTC_WARN;
			continue;
		}
		memcpy(po->name, k->ptr, k->len);
		po->name[k->len] = '\0';
		if (v->type == DTCP_N_TEXT && v->len < sizeof(po->val)) {
			memcpy(po->val, v->ptr, v->len);
			po->val[v->len] = '\0';
		} else if (v->type == DTCP_N_UINT) {
			snprintf(po->val, sizeof(po->val), "%" PRIu64, v->u);
		} else if (v->type == DTCP_N_NEGINT || (v->type == DTCP_N_BOOL &&
		    v->u == 0)) {
			/* DTRACEOPT_UNSET (-2) is how libdtrace says "unset" */
			po->val[0] = '\0';
		} else if (v->type == DTCP_N_BOOL) {
			snprintf(po->val, sizeof(po->val), "1");
		} else {
			dtcp_error_set(err, DTC_E_KEYTYPE, r->source, it->index,
			    (long long)v->offset, -1, "options item: option "
			    "\"%s\" has a value that is neither text nor an "
			    "integer", po->name);
			rc = DTC_WARN;
			continue;
		}
		r->npopts++;
	}
	return rc;
}

/* Options take effect between passes, in capture order. */
static int
apply_options(dtc_reader *r, dtc_error *err)
{
	char why[128];
	size_t i;
	int rc = DTC_OK;

	for (i = 0; i < r->npopts; i++) {
		struct popt *po = &r->popts[i];

		if (dtcp_options_set(&r->opts, po->name, po->val, 0, why,
		    sizeof(why)) != DTC_OK && rc == DTC_OK) {
			dtcp_error_set(err, DTC_E_BADOPTION, r->source, po->item,
			    (long long)po->offset, -1, "options item: couldn't "
			    "set option \"%s\" to \"%s\": %s", po->name, po->val,
			    why);
			rc = DTC_WARN;
		}
	}
	r->npopts = 0;
	return rc;
}

static int
read_status(dtc_reader *r, const dtcp_item *it, status *st, uint32_t *pass,
    dtc_error *err)
{
	static const char *const keys[10] = { NULL, NULL, "dynamic",
	    "dynrinse", "dyndirty", "spec", "specbusy", "specunavail",
	    "stkstroverflow", "dblerrors" };
	const dtcp_node *map = &it->nodes[0];
	int64_t i64;
	uint64_t u = 0;
	int i;

	memset(st, 0, sizeof(*st));
	st->have = 1;
	if (dtcp_get_u64(r->cont, it, map, "pass", 1, &u, err) != DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	st->began_on = st->ended_on = -1;
	if (dtcp_get_i64(r->cont, it, map, "began_on", 0, &i64, err) == DTC_OK)
		st->began_on = (int)i64;
	if (dtcp_get_i64(r->cont, it, map, "ended_on", 0, &i64, err) == DTC_OK)
		st->ended_on = (int)i64;
	if (dtcp_get_u64(r->cont, it, map, "exiting", 0, &u, err) == DTC_OK)
		st->exiting = u != 0;
	if (dtcp_get_i64(r->cont, it, map, "exit_status", 0, &i64, err) ==
	    DTC_OK)
		st->exit_status = (int)i64;
	for (i = 2; i < 10; i++) {
		u = 0;
		if (dtcp_get_u64(r->cont, it, map, keys[i], 0, &u, err) ==
		    DTC_FAILED)
			return DTC_WARN;
		st->c[i] = u;
	}
	return DTC_OK;
}

/* buf and aggbuf items: their bytes are the container's (memory input) or
 * the read buffer it handed over, copied only when that cannot be had. */
static int
read_buf(dtc_reader *r, const dtcp_item *it, pbuf *b, uint32_t *pass,
    int principal, dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0], *dn;
	const uint8_t *data;
	size_t len;
	uint64_t u;
	int64_t cpu = 0;

	u = 0;
	if (dtcp_get_u64(r->cont, it, map, "pass", 1, &u, err) != DTC_OK ||
	    dtcp_get_i64(r->cont, it, map, "cpu", 1, &cpu, err) != DTC_OK ||
	    dtcp_get_bytes(r->cont, it, map, "data", 1, &data, &len, err) !=
	    DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	if (cpu < 0 || cpu > 1000000) {
		dtcp_error_set(err, DTC_E_BADVALUE, r->source, it->index,
		    (long long)it->offset, -1, "%s item: cpu %lld is out of "
		    "range", it->kind, (long long)cpu);
		return DTC_WARN;
	}
	b->cpu = (int)cpu;
	b->item = it->index;
	b->item_offset = it->offset;
	/* the data bytes follow the byte string's CBOR head */
	dn = dtcp_map_get(map, "data");
	b->file_offset = dn->offset + (len < 24 ? 1 : len < 256 ? 2 :
	    len < 65536 ? 3 : len <= UINT32_MAX ? 5 : 9);
	b->drops = b->errors = b->oldest = b->timestamp = 0;
	/* a v2 recs item has none of a buffer descriptor's fields: records
	 * in delivery order, drops reported by drop items */
	if (strcmp(it->kind, "recs") == 0)
		principal = 0;
	else if (dtcp_get_u64(r->cont, it, map, "drops", 0, &b->drops, err) ==
	    DTC_FAILED)
		return DTC_WARN;
	if (principal &&
	    (dtcp_get_u64(r->cont, it, map, "errors", 0, &b->errors, err) ==
	    DTC_FAILED ||
	    dtcp_get_u64(r->cont, it, map, "oldest", 0, &b->oldest, err) ==
	    DTC_FAILED ||
	    dtcp_get_u64(r->cont, it, map, "timestamp", 0, &b->timestamp,
	    err) == DTC_FAILED))
		return DTC_WARN;
	if (dtcp_container_stable(r->cont)) {
		b->data = data;
	} else if (len > 0 && (b->owned = dtcp_container_hand_over(r->cont,
	    b->owned, b->owned_cap, &b->owned_cap)) != NULL) {
		/* decoded where read() put it, in the read buffer that is
		 * this slot's now; the slot's old one was its spare */
		b->data = data;
	} else {
		/* no memory for a new read buffer (the spare is gone too):
		 * a copy, if there is memory for that */
		if (b->owned == NULL)
			b->owned_cap = 0;
		if (b->owned_cap < len) {
			uint8_t *p = realloc(b->owned, len);

			if (p == NULL) {
				dtcp_error_set(err, DTC_E_NOMEM, r->source,
				    it->index, (long long)it->offset, -1,
				    "out of memory holding a %zu-byte buffer",
				    len);
				return DTC_FATAL;
			}
			b->owned = p;
			b->owned_cap = len;
		}
		if (len > 0)    /* owned may still be NULL */
			memcpy(b->owned, data, len);
		b->data = b->owned;
	}
	b->size = len;
	return DTC_OK;
}

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

static void
queue_drop(dtc_reader *r, int kind, int cpu, uint64_t count)
{
	if (count == 0 || r->ndq >= sizeof(r->dq) / sizeof(r->dq[0]))
		return;
	r->dq[r->ndq].kind = kind;
	r->dq[r->ndq].cpu = cpu;
	r->dq[r->ndq].count = count;
	r->dq[r->ndq].msg = NULL;
	r->dq[r->ndq].fault = NULL;
	r->dq[r->ndq].interrupt = 0;
	r->ndq++;
}

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
	r->ev.source = r->source;
	r->ev.pass = r->pass;
	r->ev.cpu = -1;
	r->ev.exit_status = -1;
}

/*
 * A RECORD or PROBE_END event of the record set in r->rec.  After another
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
		r->ev.cpu = r->rb->cpu;
		r->ev.ep = r->rec.ep;
		r->ev.probe = r->rec.ep->probe;
		r->ev.timestamp = r->rec.timestamp;
		r->ev.flow = r->flow;
		r->ev.indent = r->indent;
	}
	r->ev.type = type;
	r->ev.value = NULL;
	r->ev.recindex = 0;
	r->ev.quiet = dtcp_opt_isset(&r->opts, DTCP_OPT_QUIET);
	r->ev.rawbytes = dtcp_opt_isset(&r->opts, DTCP_OPT_RAWBYTES);
}

/*
 * A DTrace v2 drop or fault as an event.  libdtrace composed the message
 * on the traced host (dt_handle.c); the capture carries it, and dtrace(1)
 * prints it after "dtrace: ".
 */
static int
v2_note_event(dtc_reader *r, struct qdrop *d)
{
	struct v2fault *f = d->fault;

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
		r->ev.fault_probe = dtcp_meta_probe(&r->meta, f->probe);
		ep = dtcp_v2_eprobe(&r->meta, f->probe, f->stid, &nomem);
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

static int fault_selected(dtc_reader *r, const struct qdrop *d);

/* The next queued drop as an event; 0 when the queue is empty. */
static int
drop_event(dtc_reader *r)
{
	struct qdrop *d;
	int n = 0;

	if (r->dqi >= r->ndq) {
		r->ndq = r->dqi = 0;
		return 0;
	}
	d = &r->dq[r->dqi++];
	if (d->interrupt) {
		d->interrupt = 0;
		clear_event(r, DTC_EV_NOTICE);
		r->ev.notice = DTC_NOTICE_INTERRUPT;
		r->ev.message = "interrupted";
		return 1;
	}
	if (d->fault != NULL && r->sel != NULL && !fault_selected(r, d)) {
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
	if (dtcp_opt_isset(&r->opts, DTCP_OPT_DROPTAGS))
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

/* Status counters are cumulative: report what grew since last time. */
static void
status_drops(dtc_reader *r, const status *st)
{
	int i;

	for (i = 2; i < 10; i++)
		if (st->c[i] > r->prev_st.c[i])
			queue_drop(r, i, -1, st->c[i] - r->prev_st.c[i]);
	memcpy(r->prev_st.c, st->c, sizeof(st->c));
}

/* ------------------------------------------------------------ passes */

static pbuf *
new_buf(dtc_reader *r)
{
	if (r->nbufs == r->capbufs) {
		size_t cap = r->capbufs ? r->capbufs * 2 : 8;
		pbuf *nb;

		if (cap > 65536 || (nb = realloc(r->bufs,
		    cap * sizeof(*nb))) == NULL)
			return NULL;
		memset(nb + r->capbufs, 0, (cap - r->capbufs) * sizeof(*nb));
		r->bufs = nb;
		r->capbufs = cap;
	}
	return &r->bufs[r->nbufs++];
}

static int
add_seg(dtc_reader *r, int buf, enum filter f, int reset)
{
	if (r->nsegs == r->capsegs) {
		size_t cap = r->capsegs ? r->capsegs * 2 : 16;
		segment *ns = realloc(r->segs, cap * sizeof(*ns));

		if (ns == NULL)
			return -1;
		r->segs = ns;
		r->capsegs = cap;
	}
	r->segs[r->nsegs].buf = buf;
	r->segs[r->nsegs].filter = f;
	r->segs[r->nsegs].reset_flow = reset;
	r->nsegs++;
	return 0;
}

/* CPU order; two buffers of one CPU (damage: twice_in_pass) in file
 * order, whatever qsort does with equal keys */
static int
bufcmp(const void *a, const void *b)
{
	const pbuf *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

/*
 * Two buf items of one CPU in one pass of a legacy capture (the buffers
 * sorted by plan_pass): libdtrace snaps each CPU's buffer once a pass
 * (dtsnap(5), Order), so one of them is misplaced, or a copy with other
 * bytes (an exact copy the container skips).  Both are decoded, in file
 * order; the first such pair of the pass is reported.  DTrace v2 recs
 * items come in as many runs of a CPU as libdtrace had turns of CPUs.
 */
static int
twice_in_pass(dtc_reader *r, dtc_error *err)
{
	size_t i;

	if (r->hdr.v2)
		return DTC_OK;
	for (i = 1; i < r->nbufs; i++) {
		const pbuf *a = &r->bufs[i - 1], *b = &r->bufs[i];

		if (a->cpu != b->cpu)
			continue;
		dtcp_error_set(err, DTC_E_DUPLICATE, r->source, b->item,
		    (long long)b->item_offset, -1, "a second buf item for cpu "
		    "%d in pass %u (the first is item %lld): dtrace snaps a "
		    "cpu's buffer once a pass; both decoded, in file order",
		    b->cpu, r->pass, a->item);
		return DTC_WARN;
	}
	return DTC_OK;
}

/*
 * libdtrace's order without temporal: the CPU that ran BEGIN first (on
 * the first pass), the other CPUs in id order with flow state reset per
 * CPU, and once tracing stopped the CPU that ran END last.  When BEGIN and
 * END ran on the same CPU in one pass, that buffer is walked twice: its
 * BEGIN records first, the rest last (dt_consume_begin).
 */
static int
plan_pass(dtc_reader *r)
{
	int begin = -1, end = -1;
	size_t i;

	r->nsegs = r->seg = 0;
	if (r->hdr.v2) {
		/* the records as libdtrace delivered them: file order */
		r->temporal = 0;
		for (i = 0; i < r->nbufs; i++) {
			int reset = r->bufs[i].cpu != r->flow_cpu ||
			    r->pass != r->flow_pass;

			r->flow_cpu = r->bufs[i].cpu;
			r->flow_pass = r->pass;
			if (add_seg(r, (int)i, F_ALL, reset) != 0)
				return -1;
		}
		return 0;
	}
	qsort(r->bufs, r->nbufs, sizeof(*r->bufs), bufcmp);
	r->temporal = dtcp_opt_isset(&r->opts, DTCP_OPT_TEMPORAL);
	if (r->temporal) {
		r->nheap = r->heap_i = 0;
		r->heap_ready = 0;
		r->refill = NULL;
		if (r->capheap < r->nbufs) {
			pbuf **h = realloc(r->heap, r->nbufs * sizeof(*h));

			if (h == NULL)
				return -1;
			r->heap = h;
			r->capheap = r->nbufs;
		}
		return 0;
	}
	for (i = 0; i < r->nbufs; i++) {
		/* of two buffers of one CPU (twice_in_pass), BEGIN's records
		 * are in the first and END's in the last */
		if (!r->began_consumed && r->st.have && begin < 0 &&
		    r->bufs[i].cpu == r->st.began_on)
			begin = (int)i;
		/* END ran (ended_on known: tracing was stopped, by exit()
		 * or by the user): its CPU comes last */
		if (r->st.have && (r->st.exiting || r->st.ended_on >= 0) &&
		    r->bufs[i].cpu == r->st.ended_on)
			end = (int)i;
	}
	if (begin >= 0) {
		r->began_consumed = 1;
		if (add_seg(r, begin, begin == end ? F_BEGIN_ONLY : F_ALL, 0))
			return -1;
	}
	for (i = 0; i < r->nbufs; i++)
		if ((int)i != begin && (int)i != end &&
		    add_seg(r, (int)i, F_ALL, 1) != 0)
			return -1;
	if (end >= 0 && add_seg(r, end, end == begin ? F_NOT_BEGIN : F_ALL,
	    0) != 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------ records */

/* The enabling that faulted, named by an ERROR record's first record. */
static const dtc_eprobedesc *
fault_eprobe(const dtc_reader *r)
{
	const dtc_recdesc *rd = &r->rec.ep->recs[0];

	return dtcp_meta_eprobe(&r->meta, (uint32_t)dtcp_ldsz(r->rec.data +
	    rd->offset, rd->size <= 8 ? rd->size : 8, r->swap));
}

static int
is_begin_probe(const dtc_probedesc *p)
{
	return p != NULL && strcmp(p->provider, "dtrace") == 0 &&
	    strcmp(p->name, "BEGIN") == 0;
}

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
	const dtc_eprobedesc *ep = r->rec.ep, *fep;
	uint64_t w[5];
	char pdesc[512], details[64], where[64], offinfo[64];
	uint32_t i;

	if (ep->nrecs != 5) {
		dtcp_error_set(err, DTC_E_DMISMATCH, r->source, r->rb->item,
		    (long long)(r->rb->file_offset + r->rec.raw_offset),
		    r->rb->cpu, "the ERROR enabling %u has %u records, not 5",
		    ep->epid, ep->nrecs);
		return DTC_WARN;
	}
	for (i = 0; i < 5; i++)
		w[i] = dtcp_ldsz(r->rec.data + ep->recs[i].offset,
		    ep->recs[i].size <= 8 ? ep->recs[i].size : 8, r->swap);
	clear_event(r, DTC_EV_ERROR);
	r->ev.cpu = r->rb->cpu;
	r->ev.ep = ep;
	r->ev.probe = ep->probe;
	r->ev.timestamp = r->rec.timestamp;
	r->ev.fault_epid = (uint32_t)w[0];
	r->ev.action = w[1];
	r->ev.difoffset = (int64_t)w[2];
	r->ev.fault = w[3];
	r->ev.fault_addr = w[4];
	fep = dtcp_meta_eprobe(&r->meta, (uint32_t)w[0]);
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
	dtcp_error_vset(err, code, r->source, r->rb->item,
	    (long long)(r->rb->file_offset + r->rec.raw_offset), r->rb->cpu,
	    fmt, ap);
	va_end(ap);
	/* the rest of this record set cannot be trusted */
	r->ri = r->rec.ep->nrecs;
	return DTC_WARN;
}

/* A string record's text (NUL-terminated copy, bounded). */
static const char *
rec_string(dtc_reader *r, const dtc_recdesc *rd, char *buf, size_t len)
{
	size_t n = rd->size < len - 1 ? rd->size : len - 1;

	memcpy(buf, r->rec.data + rd->offset, n);
	buf[n] = '\0';
	return buf;
}

/* setopt(): failures are library-level errors (dt_handle_liberr). */
static int
do_setopt(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->rec.ep;
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
	if (dtcp_options_set_active(&r->opts, name, val, 0, 1, why,
	    sizeof(why)) == DTC_OK)
		return DTC_OK;
	clear_event(r, DTC_EV_ERROR);
	r->ev.cpu = r->rb->cpu;
	r->ev.ep = ep;
	r->ev.probe = ep->probe;
	r->ev.timestamp = r->rec.timestamp;
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
	return r->hdr.v2 && rd->size == 4 ? 4 : 8;
}

static int __attribute__((noinline))
libact(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->rec.ep;
	const dtc_recdesc *rd = &ep->recs[i];
	uint64_t n;
	int64_t varid;
	int act = (int)(rd->arg - r->hdr.dt_act_base);

	if (rd->arg < r->hdr.dt_act_base)
		act = -1;
	switch (act) {
	case DTC_LIBACT_CLEAR:
	case DTC_LIBACT_DENORMALIZE:
		if (rd->size != varid_size(r, rd))
			return rec_error(r, err, DTC_E_DMISMATCH, "clear/"
			    "denormalize record of %u bytes", rd->size);
		varid = (int64_t)dtcp_ldsz(r->rec.data + rd->offset, rd->size,
		    r->swap);
		if (act == DTC_LIBACT_CLEAR)
			dtcp_agg_clear(r->agg, r, varid);
		else
			dtcp_agg_denormalize(r->agg, varid);
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
		varid = (int64_t)dtcp_ldsz(r->rec.data + rd->offset, rd->size,
		    r->swap);
		rd = &ep->recs[i + 1];
		if (rd->size != 1 && rd->size != 2 && rd->size != 4 &&
		    rd->size != 8)
			return rec_error(r, err, DTC_E_DMISMATCH, "%s value "
			    "record of %u bytes",
			    act == DTC_LIBACT_TRUNC ? "trunc()" : "normalize()",
			    rd->size);
		n = dtcp_ldsz(r->rec.data + rd->offset, rd->size, r->swap);
		r->ri = i + 2;
		if (act == DTC_LIBACT_NORMALIZE) {
			dtcp_agg_normalize(r->agg, varid, n);
		} else {
			int64_t sn;

			switch (rd->size) {   /* the count is signed */
			case 1: sn = (int8_t)n; break;
			case 2: sn = (int16_t)n; break;
			case 4: sn = (int32_t)n; break;
			default: sn = (int64_t)n; break;
			}
			dtcp_agg_trunc(r->agg, r, varid, sn);
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
	const dtc_eprobedesc *ep = r->rec.ep;
	const dtc_recdesc *rd = &ep->recs[i];
	const dtc_format *fmt = dtcp_meta_recformat(&r->meta, ep, i);
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
		    r->rec.data + ep->recs[i + k].offset, r->swap, &r->args[k]);
	dtcp_value_init(&r->val, DTC_V_PRINTF, rd, r->rec.data + rd->offset,
	    rd->size, r->swap);
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
	const dtc_eprobedesc *ep = r->rec.ep;
	const dtc_recdesc *rd = &ep->recs[i], *dr;
	uint64_t dsize, mask;
	int positive;

	if (i + 1 >= ep->nrecs || (dr = &ep->recs[i + 1])->action !=
	    DTC_ACT_TRACEMEM || (dr->arg != V2_TRACEMEM_SIZE &&
	    dr->arg != V2_TRACEMEM_SSIZE) || (dr->size != 1 && dr->size != 2 &&
	    dr->size != 4 && dr->size != 8))
		return rec_error(r, err, DTC_E_DMISMATCH, "tracemem() data "
		    "record without its size record");
	dsize = dtcp_ldsz(r->rec.data + dr->offset, dr->size, r->swap);
	mask = dr->size >= 4 ? 0xffffffff80000000ull :
	    1ull << (dr->size * 8 - 1);
	positive = dr->arg == V2_TRACEMEM_SIZE || (dsize & mask) == 0;
	dtcp_decode_value_fast(rd, r->rec.data + rd->offset, r->swap, &r->val);
	if (positive && dsize < rd->size)
		r->val.size = (uint32_t)dsize;
	r->ri = i + 2;
	return DTC_OK;
}

/* printa: the consecutive PRINTA records of one statement. */
static int __attribute__((noinline))
printa_value(dtc_reader *r, uint32_t i, dtc_error *err)
{
	const dtc_eprobedesc *ep = r->rec.ep;
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
		if (kr->size == 4 && r->hdr.v2) {
			r->varids[k] = dtcp_ld32(r->rec.data + kr->offset,
			    r->swap);
			continue;
		}
		if (kr->size != 8)
			return rec_error(r, err, DTC_E_DMISMATCH, "printa() "
			    "record of %u bytes (an aggregation variable id "
			    "is 8)", kr->size);
		r->varids[k] = (int64_t)dtcp_ld64(r->rec.data + kr->offset,
		    r->swap);
	}
	if (rd->format != 0 &&
	    (fmt = dtcp_meta_recformat(&r->meta, ep, i)) == NULL)
		return rec_error(r, err, DTC_E_BADFORMAT, "enabled probe %u, "
		    "record %u: unknown format id %u", ep->epid, i, rd->format);
	dtc_error_clear(&aerr);
	ap = dtcp_agg_printa(r->agg, r, r->varids, n, fmt, &aerr);
	if (ap == NULL)
		return rec_error(r, err, aerr.code ? aerr.code : DTC_E_BADAGG,
		    "printa(): %s", aerr.text);
	dtcp_value_init(&r->val, DTC_V_PRINTA, rd, NULL, 0, r->swap);
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
	const dtc_eprobedesc *ep = r->rec.ep;
	const dtc_recdesc *rd = &ep->recs[i], *drd = rd;
	const dtc_format *fmt = dtcp_meta_recformat(&r->meta, ep, i);
	const char *s = fmt != NULL ? dtc_format_string(fmt) : NULL, *why;
	const dtc_ctype *t;
	char module[128];
	uint64_t id;
	uint32_t next = i + 1;

	if (s == NULL)
		return 0;
	if (r->hdr.v2) {
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
	if ((t = dtcp_ctf_type(&r->meta, module, id, &why)) == NULL) {
		if (r->ctf_noted)
			return 0;
		r->ctf_noted = 1;
		clear_event(r, DTC_EV_NOTICE);
		r->ev.notice = DTC_NOTICE_WARNING;
		snprintf(r->msg, sizeof(r->msg), "%s: item %lld, offset %llu: "
		    "print() of type %llu of module %s: %s; print() records "
		    "are shown as raw bytes", r->source, r->rb->item,
		    (unsigned long long)(r->rb->file_offset +
		    r->rec.raw_offset), (unsigned long long)id, module, why);
		r->ev.message = r->msg;
		return 2;
	}
	if ((why = dtcp_ctf_note(t)) != NULL) {
		/* once per ctf item, then (same record, next call) typed */
		clear_event(r, DTC_EV_NOTICE);
		r->ev.notice = DTC_NOTICE_WARNING;
		snprintf(r->msg, sizeof(r->msg), "%s: item %lld, offset %llu: "
		    "print() of type %llu of module %s: the capture's types "
		    "are damaged: %s; printed as dtrace prints it", r->source,
		    r->rb->item, (unsigned long long)(r->rb->file_offset +
		    r->rec.raw_offset), (unsigned long long)id, module, why);
		r->ev.message = r->msg;
		return 2;
	}
	dtcp_value_init(&r->val, DTC_V_TYPED, drd, r->rec.data + drd->offset,
	    drd->size, r->swap);
	r->val.ctype = t;
	if (r->hdr.v2)
		r->val.addr = dtcp_ld64(r->rec.data + rd->offset, r->swap);
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
	const dtc_eprobedesc *ep = r->rec.ep;

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
				r->dynsize = dtcp_ld64(r->rec.data + rd->offset,
				    r->swap);
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
			    !r->hdr.v2) {
				/* legacy print(): a DIFEXPR with a type */
				if ((rc = typed_value(r, i, err)) == 1)
					break;
				if (rc == 2)
					return DTC_OK;  /* the notice */
			}
			r->ri = i + 1;
			if (rd->size == 0)
				continue;   /* speculate, commit, stop, ... */
			dtcp_decode_value_fast(rd, r->rec.data + rd->offset,
			    r->swap, &r->val);
			if (r->val.kind == DTC_V_MEMORY) {
				if (r->dynsize != 0 && r->dynsize <= rd->size)
					r->val.size = (uint32_t)r->dynsize;
				r->dynsize = 0;
			} else if (r->val.kind == DTC_V_EXIT) {
				r->exit_status = (int)r->val.i;
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
		r->ev.flowindent = dtcp_opt_isset(&r->opts,
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
	const dtc_eprobedesc *ep = r->rec.ep, *other;
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
		    (other = dtcp_meta_eprobe(&r->meta, r->last_epid)) != NULL &&
		    other->probeid == ep->probeid)
			r->flow = DTC_FLOW_NONE;
	} else if (name_is(p->name, "return")) {
		r->flow = DTC_FLOW_RETURN;
		next = dtcp_walker_peek_epid(w);
		if (next != 0 && next != ep->epid &&
		    (other = dtcp_meta_eprobe(&r->meta, next)) != NULL &&
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
	r->ev.cpu = r->rb->cpu;
	r->ev.ep = r->rec.ep;
	r->ev.probe = r->rec.ep->probe;
	r->ev.timestamp = r->rec.timestamp;
	r->rec_quiet = dtcp_opt_isset(&r->opts, DTCP_OPT_QUIET);
	r->rec_flow = dtcp_opt_isset(&r->opts, DTCP_OPT_FLOWINDENT);
	r->ev.quiet = r->rec_quiet;
	r->ev.flowindent = r->rec_flow;
	r->ev.flow = r->flow;
	r->ev.indent = r->indent;
	r->nrecords++;
}

static int
start_buffer(dtc_reader *r, pbuf *b, dtc_error *err)
{
	b->w.meta = &r->meta;
	b->w.v2 = r->hdr.v2;
	b->w.swap = r->swap;
	b->w.cpu = b->cpu;
	b->w.source = r->source;
	b->w.item = b->item;
	b->w.file_offset = b->file_offset;
	b->started = 1;
	b->done = 0;
	b->have_cur = 0;
	return dtcp_walker_start(&b->w, b->data, b->size, b->oldest, err);
}

/* ------------------------------------------------------------ temporal */

/* Oldest record first; equal timestamps by CPU, so the order is stable. */
static int
older(const pbuf *a, const pbuf *b)
{
	if (a->cur.timestamp != b->cur.timestamp)
		return a->cur.timestamp < b->cur.timestamp;
	return a->cpu < b->cpu;
}

static void
heap_push(dtc_reader *r, pbuf *b)
{
	size_t i = r->nheap++, parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!older(b, r->heap[parent]))
			break;
		r->heap[i] = r->heap[parent];
		i = parent;
	}
	r->heap[i] = b;
}

static pbuf *
heap_pop(dtc_reader *r)
{
	pbuf *top = r->heap[0], *last = r->heap[--r->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < r->nheap) {
		if (c + 1 < r->nheap && older(r->heap[c + 1], r->heap[c]))
			c++;
		if (!older(r->heap[c], last))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (r->nheap > 0)
		r->heap[i] = last;
	return top;
}

/* Fetch b's next record into the heap; DTC_OK (pushed or done), DTC_WARN. */
static int
heap_fill(dtc_reader *r, pbuf *b, dtc_error *err)
{
	int rc = dtcp_walker_next(&b->w, &b->cur, err);

	if (rc == DTC_OK) {
		heap_push(r, b);
		return DTC_OK;
	}
	if (rc == DTC_EOF) {
		b->done = 1;
		queue_drop(r, DTC_DROP_PRINCIPAL, b->cpu, b->drops);
		return DTC_OK;
	}
	return rc;   /* the walker is at the end of b: EOF comes next */
}

/*
 * The next record of a temporal pass: a binary heap of the CPU buffers
 * keyed on their next record's timestamp, so memory is one entry per CPU
 * and each record costs O(log ncpu).  A buffer goes back into the heap
 * only when the caller asks for the following record, so that while a
 * record set is processed its walker still points just past it (the
 * flowindent return rule looks at the next EPID of that buffer).
 */
static int
temporal_record(dtc_reader *r, dtc_error *err)
{
	pbuf *b;
	int rc;

	while (!r->heap_ready) {
		if (r->heap_i == r->nbufs) {
			r->heap_ready = 1;
			break;
		}
		b = &r->bufs[r->heap_i];
		if (!b->started) {
			rc = start_buffer(r, b, err);
			if (rc != DTC_OK)
				return rc;     /* started: next time it is read */
		}
		r->heap_i++;
		if ((rc = heap_fill(r, b, err)) != DTC_OK) {
			r->refill = b;
			return rc;
		}
	}
	if (r->refill != NULL) {
		b = r->refill;
		r->refill = NULL;
		if (!b->done && (rc = heap_fill(r, b, err)) != DTC_OK) {
			r->refill = b;
			return rc;
		}
	}
	if (r->nheap == 0)
		return DTC_EOF;
	b = heap_pop(r);
	r->rb = b;
	r->meta.proc_horizon = b->item;
	r->rec = b->cur;
	r->refill = b;
	return DTC_OK;
}

/*
 * Find the next record of the pass (into r->rec, r->rb). DTC_OK, DTC_EOF
 * at the end of the pass, DTC_WARN (skip; call again).
 */
static int
next_record(dtc_reader *r, dtc_error *err)
{
	int rc;

	if (r->temporal)
		return temporal_record(r, err);
	while (r->seg < r->nsegs) {
		segment *s = &r->segs[r->seg];
		pbuf *b = &r->bufs[s->buf];

		if (!b->started || (s->filter == F_NOT_BEGIN && b->done)) {
			if (s->reset_flow) {
				r->indent = 0;
				r->flow = DTC_FLOW_NONE;
				r->last_prid = 0;
				r->last_stid = UINT32_MAX;
			}
			rc = start_buffer(r, b, err);
			if (rc != DTC_OK)
				return rc;
		}
		for (;;) {
			const dtc_probedesc *p;

			rc = dtcp_walker_next(&b->w, &r->rec, err);
			if (rc == DTC_EOF)
				break;
			if (rc != DTC_OK)
				return rc;
			if (s->filter != F_ALL) {
				/* an ERROR record counts as its faulting probe */
				p = r->rec.ep->probe;
				if (r->rec.ep->uarg == 1 && r->rec.ep->nrecs >= 1) {
					const dtc_eprobedesc *f = fault_eprobe(r);

					p = f != NULL ? f->probe : NULL;
				}
				if ((s->filter == F_BEGIN_ONLY) != is_begin_probe(p))
					continue;
			}
			r->rb = b;
			r->meta.proc_horizon = b->item;
			return DTC_OK;
		}
		b->done = 1;
		r->seg++;
		if (s->filter != F_BEGIN_ONLY)
			queue_drop(r, DTC_DROP_PRINCIPAL, b->cpu, b->drops);
		if (r->ndq > 0)
			return AGAIN;  /* drops to report first */
	}
	return DTC_EOF;
}

/* ------------------------------------------------------------ items loop */

/*
 * Items of the other flavor would be misdecoded (a legacy buf walked as v2
 * records, or the reverse): refused, and said so.
 */
static int
flavor_mismatch(dtc_reader *r, const dtcp_item *it, dtc_error *err)
{
	if (!dtcp_kind_foreign(it->kind, r->hdr.v2))
		return 0;
	dtcp_error_set(err, DTC_E_BADVALUE, r->source, it->index,
	    (long long)it->offset, -1, "%s item in a %s capture (it belongs "
	    "to %s captures); skipped", it->kind, r->hdr.flavor,
	    r->hdr.v2 ? "legacy" : "dtrace-v2");
	return 1;
}

/* A DTrace v2 fault or drop item. */
static int
read_note(dtc_reader *r, const dtcp_item *it, struct qdrop *q,
    uint32_t *pass, dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0];
	const char *s = "";
	size_t len = 0;
	uint64_t u = 0;
	int64_t cpu = -1;

	memset(q, 0, sizeof(*q));
	if (dtcp_get_u64(r->cont, it, map, "pass", 1, &u, err) != DTC_OK ||
	    dtcp_get_i64(r->cont, it, map, "cpu", 0, &cpu, err) == DTC_FAILED ||
	    dtcp_get_text(r->cont, it, map, "msg", 0, &s, &len, err) ==
	    DTC_FAILED)
		return DTC_WARN;
	*pass = (uint32_t)u;
	q->cpu = cpu < -1 || cpu > 1000000 ? -1 : (int)cpu;
	if (len > 4000)
		len = 4000;
	if ((q->msg = strndup(s, len)) == NULL)
		goto nomem;
	if (it->kind[0] == 'f') {
		struct v2fault *f = calloc(1, sizeof(*f));
		uint64_t v = 0;

		if ((q->fault = f) == NULL)
			goto nomem;
		if (dtcp_get_u64(r->cont, it, map, "stid", 0, &v, err) ==
		    DTC_FAILED)
			goto bad;
		f->stid = (uint32_t)v;
		v = 0;
		if (dtcp_get_u64(r->cont, it, map, "probe", 0, &v, err) ==
		    DTC_FAILED ||
		    dtcp_get_i64(r->cont, it, map, "action", 0, &f->action,
		    err) == DTC_FAILED ||
		    dtcp_get_i64(r->cont, it, map, "offset", 0, &f->offset,
		    err) == DTC_FAILED ||
		    dtcp_get_i64(r->cont, it, map, "fault", 0, &f->fault,
		    err) == DTC_FAILED ||
		    dtcp_get_u64(r->cont, it, map, "addr", 0, &f->addr,
		    err) == DTC_FAILED)
			goto bad;
		f->probe = (uint32_t)v;
	} else {
		uint64_t kind = 0;

		if (dtcp_get_u64(r->cont, it, map, "kind", 0, &kind, err) ==
		    DTC_FAILED ||
		    dtcp_get_u64(r->cont, it, map, "drops", 0, &q->count,
		    err) == DTC_FAILED)
			goto bad;
		q->kind = kind < 10 ? (int)kind : 0;
	}
	return DTC_OK;
bad:
	free(q->msg);
	free(q->fault);
	memset(q, 0, sizeof(*q));
	return DTC_WARN;
nomem:
	free(q->msg);
	free(q->fault);
	memset(q, 0, sizeof(*q));
	dtcp_error_set(err, DTC_E_NOMEM, r->source, it->index,
	    (long long)it->offset, -1, "out of memory");
	return DTC_FATAL;
}

/*
 * An item after the end item, which dtsnap(5) makes the last.  It is
 * decoded as any other (the end item may be the misplaced one, and a
 * decoder does not drop intact data in silence); the first is remembered
 * so that one warning can name it and count the rest (after_end_warn).
 */
static void
after_end(dtc_reader *r, const dtcp_item *it)
{
	if (r->nafter++ > 0)
		return;
	r->after_item = it->index;
	r->after_offset = it->offset;
	snprintf(r->after_kind, sizeof(r->after_kind), "%s", it->kind);
}

/* The one warning for the items after the end item: DTC_WARN, or DTC_OK
 * when there were none or it was given. */
static int
after_end_warn(dtc_reader *r, dtc_error *err)
{
	if (r->nafter == 0 || r->after_said)
		return DTC_OK;
	r->after_said = 1;
	if (r->nafter == 1)
		dtcp_error_set(err, DTC_E_BADVALUE, r->source, r->after_item,
		    (long long)r->after_offset, -1, "%s item after the end "
		    "item (item %lld), which must be the last; decoded all "
		    "the same", r->after_kind, r->end_item);
	else
		dtcp_error_set(err, DTC_E_BADVALUE, r->source, r->after_item,
		    (long long)r->after_offset, -1, "%s item after the end "
		    "item (item %lld), which must be the last, and %llu more "
		    "items after it; decoded all the same", r->after_kind,
		    r->end_item, (unsigned long long)(r->nafter - 1));
	return DTC_WARN;
}

/*
 * Read items until the current pass is complete. DTC_OK: a pass is ready
 * to consume (or the capture ended: r->eof). DTC_WARN: err says what was
 * skipped; call again. DTC_FATAL.
 */
static int
read_pass(dtc_reader *r, dtc_error *err)
{
	dtcp_item it;
	int rc;

	if (r->nbufs == 0 && r->npopts > 0 && apply_options(r, err) != DTC_OK)
		return DTC_WARN;
	for (;;) {
		uint32_t pass = 0;
		uint64_t u = 0;

		if (r->have_pending) {
			struct pending *p = &r->pending;

			/* an item of a later pass completes the current one */
			if (r->nbufs > 0 && (p->pass != r->pass || p->kind == 5))
				return DTC_OK;
			r->have_pending = 0;
			r->pass = p->pass;
			if (p->kind == 3) {
				r->st = p->st;
				status_drops(r, &p->st);
				if (r->ndq > 0)
					return AGAIN;
				continue;
			}
			if (p->kind == 1) {
				rc = dtcp_agg_snap(r->agg, r, p->b.cpu, p->b.data,
				    p->b.size, err);
				queue_drop(r, DTC_DROP_AGGREGATION, p->b.cpu,
				    p->b.drops);
				if (rc != DTC_OK) {
					/* the engine knows buffer offsets only */
					if (err != NULL && err->item < 0) {
						err->item = p->b.item;
						if (err->offset >= 0)
							err->offset += (long long)
							    p->b.file_offset;
					}
					return rc == DTC_FATAL ? DTC_FATAL :
					    DTC_WARN;
				}
				/* merged into the state (a copy): its pages can
				 * go, unless principal buffers of the pass are
				 * still to be consumed */
				if (r->nbufs == 0)
					dtcp_container_release(r->cont);
				if (r->ndq > 0)
					return AGAIN;
				continue;
			}
			if (p->kind == 2) {
				pbuf *b = new_buf(r), save;

				if (b == NULL)
					goto nomem;
				save = *b;
				*b = p->b;
				/* the slot keeps its walker and takes the
				 * pending buffer's storage; its old storage
				 * (a pass consumed) is the next spare */
				b->w = save.w;
				p->b.owned = save.owned;
				p->b.owned_cap = save.owned_cap;
				b->started = 0;
				continue;
			}
			if (p->kind == 5) {
				/* in its place among the records */
				if (r->ndq < sizeof(r->dq) / sizeof(r->dq[0]))
					r->dq[r->ndq++] = p->note;
				else {
					free(p->note.msg);
					free(p->note.fault);
				}
				memset(&p->note, 0, sizeof(p->note));
				return AGAIN;
			}
			if (p->kind == 6) {
				rc = dtcp_agg_replace(r->agg, r, r->snap,
				    r->snaplen, err);
				if (rc != DTC_OK)
					return rc == DTC_FATAL ? DTC_FATAL :
					    DTC_WARN;
				continue;
			}
		}
		if (r->eof)
			return DTC_OK;
		rc = dtcp_container_next(r->cont, &it, err);
		if (rc == DTC_OK) {
			set_position(r, it.offset + it.size);
			r->last_item = it.index;
			r->last_offset = it.offset;
			if (r->saw_end)
				after_end(r, &it);
		}
		if (rc == DTC_EOF) {
			r->eof = 1;
			/* a recorder killed, a copy cut at an item's end: the
			 * output is not the run's (dtsnap(5), end) */
			if (!r->saw_end) {
				dtcp_error_set(err, DTC_E_TRUNCATED, r->source,
				    r->last_item, (long long)dtc_reader_position(
				    r), -1, "capture ends without its end item: "
				    "output stops at byte %llu, after item %lld",
				    (unsigned long long)dtc_reader_position(r),
				    r->last_item);
				return DTC_WARN;
			}
			return DTC_OK;
		}
		if (rc == DTC_FATAL) {
			r->eof = 1;
			return DTC_FATAL;
		}
		if (rc != DTC_OK)
			return rc;
		if (flavor_mismatch(r, &it, err))
			return DTC_WARN;
		rc = dtcp_meta_add_item(&r->meta, r->cont, &it, r->illumos, err);
		if (rc != DTC_EOF) {
			if (rc == DTC_OK)
				continue;
			return rc;
		}
		if (strcmp(it.kind, "options") == 0) {
			rc = read_options(r, &it, err);
			/* they apply after the pass read so far */
			if (r->nbufs == 0 && apply_options(r, err) != DTC_OK)
				rc = DTC_WARN;
			if (rc != DTC_OK)
				return rc;
			if (r->nbufs > 0)
				return DTC_OK;
			continue;
		}
		if (strcmp(it.kind, "end") == 0) {
			int64_t es = 0;

			if (!r->saw_end)
				r->end_item = it.index;
			r->saw_end = 1;
			if (dtcp_get_i64(r->cont, &it, &it.nodes[0],
			    "exit_status", 0, &es, err) == DTC_OK &&
			    r->exit_status < 0)
				r->exit_status = (int)es;
			continue;
		}
		if (strcmp(it.kind, "status") == 0) {
			r->pending.kind = 3;
			if (read_status(r, &it, &r->pending.st, &pass, err) !=
			    DTC_OK)
				return DTC_WARN;
		} else if (strcmp(it.kind, "aggbuf") == 0 ||
		    strcmp(it.kind, "buf") == 0 || strcmp(it.kind, "recs") == 0) {
			int principal = it.kind[0] != 'a';

			r->pending.kind = principal ? 2 : 1;
			rc = read_buf(r, &it, &r->pending.b, &pass, principal,
			    err);
			if (rc != DTC_OK)
				return rc;
		} else if (strcmp(it.kind, "aggsnap") == 0) {
			if (dtcp_get_u64(r->cont, &it, &it.nodes[0], "pass", 1,
			    &u, err) != DTC_OK)
				return DTC_WARN;
			pass = (uint32_t)u;
			rc = dtcp_v2_aggsnap(&r->meta, r->cont, &it, r->swap,
			    &r->snap, &r->snaplen, &r->snapcap, err);
			if (rc == DTC_FATAL)
				return rc;
			r->pending.kind = 6;
			if (rc != DTC_OK) {
				/* what could be read of it still counts */
				r->pending.pass = pass < r->pass ? r->pass : pass;
				r->have_pending = 1;
				return DTC_WARN;
			}
		} else if (strcmp(it.kind, "interrupt") == 0) {
			/* in its place, after what was consumed before it */
			if (dtcp_get_u64(r->cont, &it, &it.nodes[0], "pass", 1,
			    &u, err) != DTC_OK)
				return DTC_WARN;
			memset(&r->pending.note, 0, sizeof(r->pending.note));
			r->pending.note.interrupt = 1;
			r->pending.note.cpu = -1;
			r->pending.kind = 5;
			pass = (uint32_t)u;
			r->pending.pass = pass < r->pass ? r->pass : pass;
			r->have_pending = 1;
			if (r->nbufs > 0)
				return DTC_OK;
			continue;
		} else if (strcmp(it.kind, "fault") == 0 ||
		    strcmp(it.kind, "drop") == 0) {
			rc = read_note(r, &it, &r->pending.note, &pass, err);
			if (rc != DTC_OK)
				return rc;
			/* a library-level fault (a failed setopt()) is decoded
			 * from its record, where it happened; libdtrace's report
			 * of it would print it twice */
			if (r->pending.note.fault != NULL &&
			    r->pending.note.fault->fault == DTRACEFLT_LIBRARY) {
				free(r->pending.note.msg);
				free(r->pending.note.fault);
				memset(&r->pending.note, 0, sizeof(r->pending.note));
				continue;
			}
			r->pending.kind = 5;
			/* it comes after the records read so far */
			if (pass < r->pass)
				pass = r->pass;
			r->pending.pass = pass;
			r->have_pending = 1;
			if (r->nbufs > 0)
				return DTC_OK;
			continue;
		} else {
			continue;  /* unknown kinds: the format may grow */
		}
		/* pass numbers never decrease (dtsnap(5)): a late item joins
		 * the pass being read instead of starting an old one again */
		if (pass < r->pass) {
			dtcp_error_set(err, DTC_E_BADVALUE, r->source, it.index,
			    (long long)it.offset, -1, "%s item of pass %u after "
			    "pass %u: pass numbers never decrease; read as pass "
			    "%u", it.kind, pass, r->pass, r->pass);
			r->pending.pass = r->pass;
			r->have_pending = 1;
			return DTC_WARN;
		}
		r->pending.pass = pass;
		r->have_pending = 1;
		/*
		 * A buffer of a CPU the header says the traced host does not
		 * have: dtrace never writes one (ncpu is the highest CPU id
		 * plus one), so the header or the item is wrong.  Its records
		 * are intact in themselves and nothing in decoding them needs
		 * the CPU to be below ncpu: they are decoded, with a warning,
		 * rather than lost on the word of a header that may be the
		 * part at fault.
		 */
		if ((r->pending.kind == 1 || r->pending.kind == 2) &&
		    r->have_ncpu && (uint64_t)r->pending.b.cpu >= r->ncpu) {
			dtcp_error_set(err, DTC_E_BADVALUE, r->source, it.index,
			    (long long)it.offset, -1, "%s item for cpu %d, but "
			    "the header says the host has %llu cpu%s: dtrace "
			    "writes no buffer for it; decoded all the same",
			    it.kind, r->pending.b.cpu, (unsigned long long)r->ncpu,
			    r->ncpu == 1 ? "" : "s");
			return DTC_WARN;
		}
	}
nomem:
	dtcp_error_set(err, DTC_E_NOMEM, r->source, -1, -1, -1,
	    "out of memory");
	return DTC_FATAL;
}

/* ------------------------------------------------------------ dtc_next */

/* ------------------------------------------------------ selection */

static void
resolve_times(dtc_reader *r, uint64_t first)
{
	dtcp_select_resolve(r->sel, r->meta.clock_hrtime,
	    r->meta.clock_walltime, first);
}

/*
 * The earliest of the first records of the pass's buffers, where a
 * +DURATION bound counts from: a CPU's buffer is in time order, the
 * consuming order of the CPUs is not.  0 when the pass has no record.
 */
static int
first_timestamp(dtc_reader *r, uint64_t *ts)
{
	dtcp_walker w;
	dtcp_walkrec rec;
	size_t i;
	int found = 0;

	for (i = 0; i < r->nbufs; i++) {
		const pbuf *b = &r->bufs[i];

		memset(&w, 0, sizeof(w));
		w.meta = &r->meta;
		w.v2 = r->hdr.v2;
		w.swap = r->swap;
		w.cpu = b->cpu;
		w.item = b->item;
		w.source = r->source;
		/* damage is reported when the buffer is consumed */
		if (dtcp_walker_start(&w, b->data, b->size, b->oldest, NULL) !=
		    DTC_FATAL && dtcp_walker_next(&w, &rec, NULL) == DTC_OK &&
		    (!found || rec.timestamp < *ts)) {
			*ts = rec.timestamp;
			found = 1;
		}
		dtcp_walker_free(&w);
	}
	return found;
}

/*
 * At the start of each pass, until done: refuse a selection the capture
 * cannot honour and turn its times into record timestamps.  A capture's
 * clock item comes before its first buffer (dtsnap(5)), so it is known
 * by the first pass.  DTC_OK, or DTC_FATAL with err (DTC_E_BADOPTION and
 * no item: the caller's request, not the capture, is at fault).
 */
static int
select_prepare(dtc_reader *r, dtc_error *err)
{
	const dtcp_tbound *wall;
	uint64_t first = 0;

	if (r->sel->time_ready || !dtcp_select_has_time(r->sel))
		return DTC_OK;
	if (!r->sel_checked) {
		wall = dtcp_select_wall_bound(r->sel);
		if (wall != NULL && !r->meta.have_clock) {
			dtcp_error_set(err, DTC_E_BADOPTION, r->source, -1, -1,
			    -1, "cannot select %s %s: wall-clock times need the "
			    "capture's clock item, and it has none (give ns or "
			    "+DURATION)", wall == &r->sel->since ? "since" :
			    "until", wall->text);
			return DTC_FATAL;
		}
		/* dtrace-v2 records have their pass's time, in captures
		 * whose first clock item says so (dtsnap(5)) */
		if (r->hdr.v2 && !r->meta.pass_clocks) {
			dtcp_error_set(err, DTC_E_BADOPTION, r->source, -1, -1,
			    -1, "cannot select by time (since, until): the "
			    "records of this dtrace-v2 capture carry no "
			    "timestamps (it has no pass clocks)");
			return DTC_FATAL;
		}
		r->sel_checked = 1;
	}
	if (!dtcp_select_needs_first(r->sel))
		resolve_times(r, 0);
	else if (r->nbufs > 0 && first_timestamp(r, &first))
		resolve_times(r, first);
	return DTC_OK;
}

/* libdtrace's ERROR probe, for DTrace v2 faults (they come as items, not
 * as records of an enabling) */
static const dtc_probedesc error_probe = {
	0, "dtrace", "", "", "ERROR", "dtrace:::ERROR"
};

/*
 * The selection's verdict on the record set in r->rec.  An ERROR record
 * is in when dtrace:::ERROR is, or the enabling that faulted.
 */
static int __attribute__((noinline))
firing_selected(dtc_reader *r)
{
	const dtc_eprobedesc *ep = r->rec.ep, *fep;
	dtcp_select *s = r->sel;

	/* no first record was found before this one (a damaged buffer):
	 * it is the first */
	if (!s->time_ready && dtcp_select_has_time(s))
		resolve_times(r, r->rec.timestamp);
	if (!dtcp_select_where(s, r->rb->cpu, r->rec.timestamp))
		return 0;
	if (dtcp_select_enabling(s, ep->epid, ep->probeid, ep->probe))
		return 1;
	return ep->uarg == 1 && ep->nrecs >= 1 &&
	    (fep = fault_eprobe(r)) != NULL &&
	    dtcp_select_enabling(s, fep->epid, fep->probeid, fep->probe);
}

/* The same for a DTrace v2 fault item (no timestamp: v2 refuses times). */
static int
fault_selected(dtc_reader *r, const struct qdrop *d)
{
	const struct v2fault *f = d->fault;

	if (!dtcp_select_where(r->sel, d->cpu, 0))
		return 0;
	return dtcp_select_enabling(r->sel, UINT32_MAX, UINT32_MAX,
	    &error_probe) || dtcp_select_enabling(r->sel, f->stid, f->probe,
	    dtcp_meta_probe(&r->meta, f->probe));
}

/* ------------------------------------------------------ record sets */

/* What a record set leaves to the next: flow indentation, and the
 * enabling dt_flowindent compares the next one with. */
static inline void
record_set_done(dtc_reader *r)
{
	if (r->flow == DTC_FLOW_ENTRY)
		r->indent += 2;
	r->last_epid = r->rec.epid;
	r->last_prid = r->rec.ep->probeid;
	r->last_stid = r->rec.ep->epid;
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
	const dtc_eprobedesc *ep = r->rec.ep;
	const dtc_recdesc *rd;
	uint32_t i;
	int rc = DTC_OK;

	r->nskipped++;
	if (ep->uarg == 1)
		return DTC_OK;     /* an ERROR record: a message only */
	if (dtcp_opt_isset(&r->opts, DTCP_OPT_FLOWINDENT))
		flowindent(r, &r->rb->w);
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
			dtcp_decode_value_fast(rd, r->rec.data + rd->offset,
			    r->swap, &r->val);
			if (r->val.kind == DTC_V_EXIT)
				r->exit_status = (int)r->val.i;
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
			r->nbufs = 0;
			r->began_consumed = 1;
			/* the pass is consumed: its buffers' pages can go */
			dtcp_container_release(r->cont);
			r->state = r->eof && !r->have_pending ? S_EXIT_AGGS :
			    S_ITEMS;
			return AGAIN;
		}
		if (rc != DTC_OK)
			return rc;
		/* first: an ERROR record is read at its recdescs' offsets
		 * too */
		if (dtcp_eprobe_is_bad(r->rec.ep)) {
			dtcp_error_set(err, DTC_E_BADRECDESC, r->source,
			    r->rb->item, (long long)(r->rb->file_offset +
			    r->rec.raw_offset), r->rb->cpu, "record of enabled "
			    "probe %u skipped: its description is inconsistent",
			    r->rec.epid);
			return DTC_WARN;
		}
		if (r->sel == NULL || firing_selected(r))
			break;
		if ((rc = skip_record_set(r, err)) != DTC_OK)
			return rc;
	}
	if (r->rec.ep->uarg == 1)
		return error_event(r, err);
	if (dtcp_opt_isset(&r->opts, DTCP_OPT_FLOWINDENT))
		flowindent(r, &r->rb->w);
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
dtc_next(dtc_reader *r, const dtc_event **evp, dtc_error *err)
{
	dtcp_item it;
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
		 * it hands out another buffer's record set; dtc_consume's
		 * loop delivers them at the set's end too */
		if (r->ndq != 0 && r->state != S_RECORDS &&
		    r->state != S_RECORD_END && drop_event(r)) {
			*evp = &r->ev;
			return DTC_OK;
		}
		switch (r->state) {
		case S_HEADER:
			rc = dtcp_container_next(r->cont, &it, err);
			if (rc == DTC_EOF) {
				dtcp_error_set(err, DTC_E_BADHEADER, r->source,
				    -1, 0, -1, "empty input: no dtsnap header");
				return finish(r, DTC_FATAL);
			}
			if (rc != DTC_OK)
				return finish(r, rc == DTC_WARN ? DTC_FATAL : rc);
			set_position(r, it.offset + it.size);
			r->last_item = it.index;
			r->last_offset = it.offset;
			if ((rc = read_header(r, &it, err)) != DTC_OK)
				return finish(r, rc);
			if (err != NULL && err->code != DTC_E_NONE) {
				r->hdr_warn = *err;
				dtc_error_clear(err);
			}
			r->state = S_ITEMS;
			clear_event(r, DTC_EV_BEGIN);
			r->ev.header = &r->hdr;
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
				r->state = r->nbufs > 0 ? S_PASS_START :
				    S_EXIT_AGGS;
				return DTC_WARN;
			}
			if (rc != DTC_OK)
				return rc;
			if (r->nbufs == 0 && r->eof) {
				r->state = S_EXIT_AGGS;
				continue;
			}
			if (r->nbufs == 0)
				continue;
			r->state = S_PASS_START;
			continue;

		case S_PASS_START:
			if (r->sel != NULL &&
			    (rc = select_prepare(r, err)) != DTC_OK)
				return finish(r, rc);
			if (plan_pass(r) != 0) {
				dtcp_error_set(err, DTC_E_NOMEM, r->source, -1,
				    -1, -1, "out of memory");
				return finish(r, DTC_FATAL);
			}
			r->state = S_NEXT_RECORD;
			if (twice_in_pass(r, err) != DTC_OK)
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
			if (r->sel != NULL && !r->sel_checked &&
			    (rc = select_prepare(r, err)) != DTC_OK)
				return finish(r, rc);
			/* every item has been read (to the end, or to the
			 * damage that ended the reading): the items after
			 * the end item are counted */
			if (after_end_warn(r, err) != DTC_OK)
				return DTC_WARN;
			r->meta.proc_horizon = 0;
			if (!(r->flags & DTC_OPEN_NOAGGEXIT))
				ap = dtcp_agg_exit_next(r->agg, r,
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
			r->ev.exit_status = r->exit_status;
			r->ev.complete = r->saw_end;
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
 * dtc_consume's inner loop: the record sets of a pass, straight to the
 * callbacks.  Three or more events come per probe firing, millions of
 * firings in a row; going back through dtc_next's state dispatch for each
 * of them was a third of the decoding cost.  Returns AGAIN when dtc_next
 * must take over (the pass is consumed, drops wait, an ERROR record), a
 * callback's non-zero return in *cb, or what dtc_next would return.
 */
static int
consume_record_sets(dtc_reader *r, const dtc_handler *h, void *arg,
    dtc_error *err, int *cb)
{
	int rc;

	while (r->state == S_NEXT_RECORD && r->ndq == 0) {
		if ((rc = start_record_set(r, err)) != DTC_OK)
			return rc;
		if (r->state != S_RECORDS)
			return DTC_OK;    /* an ERROR event: dtc_consume delivers it */
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
 * Where a callback stopped dtc_consume, in err: the record the event came
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
	if (ev != NULL && r->rb != NULL && (record_family(ev->type) ||
	    (ev->type == DTC_EV_ERROR && ev->ep != NULL)))
		dtcp_error_set(err, DTC_E_NONE, r->source, r->rb->item,
		    (long long)(r->rb->file_offset + r->rec.raw_offset),
		    r->rb->cpu, "stopped by the handler at this record");
	else
		dtcp_error_set(err, DTC_E_NONE, r->source, r->last_item,
		    r->last_item >= 0 ? (long long)r->last_offset : -1, -1,
		    "stopped by the handler after this item");
}

void
dtcp_reader_where(const dtc_reader *r, dtc_error *err)
{
	/* between record sets rb is the last buffer read, not where the
	 * reader is (an aggregation printed at the end) */
	if (err == NULL || r->rb == NULL ||
	    (r->state != S_RECORDS && r->state != S_RECORD_END))
		return;
	err->item = r->rb->item;
	err->cpu = r->rb->cpu;
	err->offset = (long long)(r->rb->file_offset + r->rec.raw_offset);
}

/*
 * The same events as dtc_next, pushed.  At the end, DTC_WARN when
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
				rc = dtc_next(r, &ev, &local);
		} else {
			rc = dtc_next(r, &ev, &local);
		}
		if (rc == DTC_EOF)
			return warned || !r->saw_end ? DTC_WARN : DTC_OK;
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

/* The size of the first dtc_handler: what (dtc_consume) was built for. */
#define HANDLER_SIZE_1 (10 * sizeof(int (*)(const dtc_event *, void *)))

/*
 * A handler of another size than this library's: a smaller one (a program
 * built against an older header) is copied into a whole one whose
 * callbacks it does not know of are NULL; a larger one (a newer header)
 * is read up to what this library knows.
 */
int
dtc_consume_sized(dtc_reader *r, const dtc_handler *h, size_t hsize,
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
(dtc_consume)(dtc_reader *r, const dtc_handler *h, void *arg,
    dtc_error *err)
{
	return dtc_consume_sized(r, h, HANDLER_SIZE_1, arg, err);
}
