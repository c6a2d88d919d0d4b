/*
 * batch.c - the records of a capture as columns (dtc_batch_*).
 *
 * The per-event interface (dtc_next, dtc_consume) builds a dtc_event and
 * a dtc_value for every record and calls back for each: at least three
 * events per probe firing.  For small trace() records that contract, not
 * the decoding, is most of the cost (bench/RESULTS.md).  A batch reader
 * walks the same principal buffers and appends each record set to the
 * table of its enabled probe instead: a row (record-set index, timestamp,
 * CPU, pass) and one value per column.  Nothing is built per record but
 * the values themselves.
 *
 * What a row is, and in which order rows come, is the per-event reader's:
 * the items of each consume pass are gathered and its buffers walked in
 * libdtrace's order (the BEGIN CPU first, the END CPU last, or merged by
 * timestamp with option temporal; DTrace v2 records in file order).  The
 * code that decides this mirrors consume.c's read_pass(), plan_pass() and
 * next_record(), whose state is private to the reader; the tests compare
 * both readers on every capture of testdata/, so a change to one that the
 * other lacks fails there.  (A loop in consume.c that hands each record
 * set of a pass to a callback, as consume_record_sets() hands its events,
 * would let the two share that code.)
 *
 * Data records only: trace() values, printf() arguments and exit()
 * (library actions such as clear(), trunc() and setopt() show no value
 * and are passed over, as records of size 0 are).  A statement with any
 * other record (printa, stack, print(), tracemem ...) or the ERROR
 * enabling gets "other" rows: index, timestamp, CPU and pass only, so
 * that a caller knows which record sets to take from the per-event
 * reader.  The rule is decided once per enabled probe.
 *
 * Aggregations, drops and notices are not records: the per-event reader
 * has them.  Damage is reported as dtc_next reports it where it concerns
 * records (unknown EPIDs, overruns, bad descriptions, a capture cut
 * short); option items are applied without complaint (their problems
 * concern the printing, which a batch does not do).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dtc_private.h"
#include "select.h"

/* internal: the pass is read, walk it */
#define PASS_READY (DTC_WARN + 2)

/* One principal buffer of the current pass (consume.c's pbuf). */
typedef struct bbuf {
	int cpu;
	long long item;
	size_t file_offset;      /* of the data bytes, for messages */
	const uint8_t *data;
	size_t size;
	uint64_t oldest;
	uint8_t *owned;          /* copy when the container is not stable */
	size_t owned_cap;
	dtcp_walker w;
	int started, done;
	dtcp_walkrec cur;        /* temporal: the next record of this buffer */
} bbuf;

/* A walk of one buffer, maybe only its BEGIN (or non-BEGIN) records. */
enum filter { F_ALL, F_BEGIN_ONLY, F_NOT_BEGIN };
typedef struct bseg {
	int buf;
	enum filter filter;
} bseg;

/* An item read ahead: it belongs to the next pass, or must wait. */
enum pkind { P_NONE, P_STATUS, P_BUF, P_NOTE, P_OTHER };

enum state { S_HEADER, S_ITEMS, S_PASS_START, S_WALK, S_DONE };

/* A column while it is built. */
/* How a column's value is read from its record: by size, decided once. */
enum colcode { C_U8, C_U16, C_I32, C_I64, C_EXIT4, C_EXIT8, C_EXIT0, C_BYTES,
    C_V2STR };

typedef struct bcol {
	enum colcode code;
	uint32_t offset;         /* in the record */
	uint32_t rec;            /* recdesc index in the enabled probe */
	uint32_t size;           /* record size */
	uint16_t action;
	int kind;                /* DTC_COL_INT / DTC_COL_BYTES */
	const dtc_format *fmt;   /* printf argument: the printf's format */
	uint32_t argindex;
	int64_t *i;
	uint64_t *off;           /* BYTES: n + 1 offsets */
	uint8_t *isstr;
	uint8_t *bytes;
	size_t nbytes, capbytes;
} bcol;

/* What a record of an enabled probe becomes (decided at its first). */
enum tkind { T_ROW, T_BAD, T_ERRSHORT };

typedef struct btable {
	const dtc_eprobedesc *ep;
	enum tkind tkind;
	int data;                /* 1: columns; 0: "other" rows */
	size_t n, cap;           /* rows in this batch, room for */
	uint64_t *index, *ts;
	int32_t *cpu;
	uint32_t *pass;
	uint32_t ncols;
	bcol *cols;
	dtc_column *pubcols;
	dtc_table pub;
	int listed;              /* in this batch's list of tables */
} btable;

struct dtc_batch {
	dtcp_container *cont;
	char *source;
	enum state state;
	int dead, last_rc;
	dtc_header hdr;
	int swap, illumos;
	dtcp_meta meta;
	dtcp_options opts;

	/* the pass being read and walked */
	uint32_t pass;
	int have_status;
	int began_on, ended_on, exiting;
	bbuf *bufs;
	size_t nbufs, capbufs;
	bseg *segs;
	size_t nsegs, capsegs, seg;
	int temporal;
	bbuf **heap;
	size_t nheap, capheap, heap_i;
	int heap_ready;
	bbuf *refill;
	int eof, saw_end, began_consumed;
	/* the record being added */
	bbuf *rb;
	dtcp_walkrec rec;

	/* the read-ahead item */
	int have_pending;
	enum pkind pkind;
	uint32_t ppass;
	bbuf pbuf;
	int pbegan_on, pended_on, pexiting;

	/* options items wait for the pass before them (name=value pairs) */
	char (*popts)[2][256];
	size_t npopts, cappopts;

	/* tables: every one made so far, and an index by enabled probe */
	btable **tabs;
	size_t ntabs, captabs;
	const dtc_eprobedesc **mapk;
	btable **mapv;
	size_t mapcap;
	/* the table of an enabled probe by EPID, direct-mapped: records of a
	 * few enabled probes alternate (entry, return), so one "last" entry
	 * misses at every record; the hash above is the fallback */
	struct { const dtc_eprobedesc *ep; btable *t; } tcache[256];
	/* this batch: the tables with rows, in the order of their first row */
	btable **list;
	size_t nlist, caplist;
	size_t nrows;
	uint64_t nsets;          /* record sets so far: the next index */
	uint64_t nbatches;       /* dtc_batch_next calls so far */

	/* record selection (dtc_batch_select); NULL: every record set */
	dtcp_select *sel;
	int sel_checked;         /* the capture can honour it (said once) */
};

/* ------------------------------------------------------------ open */

static dtc_batch *
batch_new(dtcp_container *c, unsigned flags, dtc_error *err)
{
	dtc_batch *b;

	if (c == NULL)
		return NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL ||
	    (b->source = strdup(dtcp_container_source(c))) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, dtcp_container_source(c), -1,
		    -1, -1, "out of memory");
		free(b);
		dtcp_container_close(c);
		return NULL;
	}
	b->cont = c;
	b->began_on = b->ended_on = -1;
	dtcp_options_init(&b->opts);
	if (flags & DTC_OPEN_TEMPORAL) {
		b->opts.v[DTCP_OPT_TEMPORAL] = 1;
		b->opts.pinned[DTCP_OPT_TEMPORAL] = 1;
	}
	return b;
}

dtc_batch *
dtc_batch_open_file(const char *path, unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);
	return batch_new(dtcp_container_open_file(path, err), flags, err);
}

dtc_batch *
dtc_batch_open_fd(int fd, const char *name, unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);
	return batch_new(dtcp_container_open_fd(fd, name, err), flags, err);
}

dtc_batch *
dtc_batch_open_memory(const void *buf, size_t len, const char *name,
    unsigned flags, dtc_error *err)
{
	dtc_error_clear(err);
	return batch_new(dtcp_container_open_memory(buf, len, name, err), flags,
	    err);
}

static void
free_table(btable *t)
{
	uint32_t k;

	free(t->index);
	free(t->ts);
	free(t->cpu);
	free(t->pass);
	for (k = 0; k < t->ncols; k++) {
		free(t->cols[k].i);
		free(t->cols[k].off);
		free(t->cols[k].isstr);
		free(t->cols[k].bytes);
	}
	free(t->cols);
	free(t->pubcols);
	free(t);
}

void
dtc_batch_close(dtc_batch *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->capbufs; i++) {
		free(b->bufs[i].owned);
		dtcp_walker_free(&b->bufs[i].w);
	}
	free(b->bufs);
	free(b->pbuf.owned);
	free(b->segs);
	free(b->heap);
	free(b->popts);
	for (i = 0; i < b->ntabs; i++)
		free_table(b->tabs[i]);
	free(b->tabs);
	free(b->mapk);
	free(b->mapv);
	free(b->list);
	dtcp_select_free(b->sel);
	free(b->sel);
	dtcp_meta_free(&b->meta);
	free((char *)b->hdr.os);
	free((char *)b->hdr.release);
	free((char *)b->hdr.host);
	free((char *)b->hdr.producer);
	dtcp_container_close(b->cont);
	free(b->source);
	free(b);
}

const dtc_header *
dtc_batch_header(const dtc_batch *b)
{
	return b->state == S_HEADER ? NULL : &b->hdr;
}

const char *
dtc_batch_source(const dtc_batch *b)
{
	return b->source;
}

size_t
dtc_batch_ntables(const dtc_batch *b)
{
	return b->nlist;
}

const dtc_table *
dtc_batch_table(const dtc_batch *b, size_t i)
{
	return i < b->nlist ? &b->list[i]->pub : NULL;
}

size_t
dtc_batch_nrows(const dtc_batch *b)
{
	return b->nrows;
}

/* ------------------------------------------------------------ items */

static char *
dup_text(const dtcp_container *c, const dtcp_item *it, const dtcp_node *map,
    const char *key, dtc_error *err)
{
	const char *s = "";
	size_t len = 0;

	if (dtcp_get_text(c, it, map, key, 0, &s, &len, err) != DTC_OK) {
		s = "";
		len = 0;
	}
	return strndup(s, len);
}

/* The header item, read as consume.c's read_header reads it. */
static int
read_header(dtc_batch *b, const dtcp_item *it, dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0], *v;
	const char *s;
	size_t len;
	uint64_t u;
	int rc;

	if (strcmp(it->kind, "dtsnap") != 0) {
		dtcp_error_set(err, DTC_E_BADHEADER, b->source, it->index,
		    (long long)it->offset, -1, "the first item is a \"%s\" "
		    "item, not the dtsnap header", it->kind);
		return DTC_FATAL;
	}
	if ((v = dtcp_map_get(map, "version")) != NULL &&
	    v->type == DTCP_N_ARRAY && v->count >= 2) {
		b->hdr.version_major = (int)dtcp_array_at(v, 0)->u;
		b->hdr.version_minor = (int)dtcp_array_at(v, 1)->u;
	}
	if (dtcp_get_text(b->cont, it, map, "byteorder", 0, &s, &len, err) ==
	    DTC_OK)
		b->hdr.big_endian = len == 3 && memcmp(s, "big", 3) == 0;
	if (dtcp_get_text(b->cont, it, map, "model", 0, &s, &len, err) ==
	    DTC_OK)
		b->hdr.ilp32 = len == 5 && memcmp(s, "ILP32", 5) == 0;
	b->hdr.os = dup_text(b->cont, it, map, "os", err);
	b->hdr.release = dup_text(b->cont, it, map, "release", err);
	b->hdr.host = dup_text(b->cont, it, map, "host", err);
	b->hdr.producer = dup_text(b->cont, it, map, "producer", err);
	if (b->hdr.os == NULL || b->hdr.release == NULL ||
	    b->hdr.host == NULL || b->hdr.producer == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, b->source, -1, -1, -1,
		    "out of memory");
		return DTC_FATAL;
	}
	b->hdr.os_illumos = strcasecmp(b->hdr.os, "illumos") == 0 ||
	    strcasecmp(b->hdr.os, "solaris") == 0 ||
	    strcasecmp(b->hdr.os, "sunos") == 0;
	b->illumos = b->hdr.os_illumos;
	b->hdr.flavor = "legacy";
	rc = dtcp_get_text(b->cont, it, map, "flavor", 0, &s, &len, err);
	if (rc == DTC_FAILED)
		return DTC_FATAL;
	if (rc == DTC_OK) {
		if (len == 9 && memcmp(s, "dtrace-v2", 9) == 0) {
			b->hdr.flavor = "dtrace-v2";
			b->hdr.v2 = 1;
		} else if (!(len == 6 && memcmp(s, "legacy", 6) == 0)) {
			dtcp_error_set(err, DTC_E_VERSION, b->source, it->index,
			    (long long)it->offset, -1, "capture flavor '%.*s' is "
			    "not one this reader knows (legacy, dtrace-v2)",
			    (int)(len > 40 ? 40 : len), s);
			return DTC_FATAL;
		}
	}
	if (b->hdr.v2 && b->hdr.version_major == 1 && b->hdr.version_minor < 1) {
		dtcp_error_set(err, DTC_E_VERSION, b->source, it->index,
		    (long long)it->offset, -1, "a dtrace-v2 capture needs "
		    "container version 1.1 or later, the header says %d.%d",
		    b->hdr.version_major, b->hdr.version_minor);
		return DTC_FATAL;
	}
	b->meta.v2 = b->hdr.v2;
	u = 0;
	if (dtcp_get_u64(b->cont, it, map, "ncpu", 0, &u, err) == DTC_OK)
		b->hdr.ncpu = u > 65536 ? 65536 : (uint32_t)u;
	u = b->illumos ? 49 : 55;
	if (dtcp_get_u64(b->cont, it, map, "dt_act_base", 0, &u, err) ==
	    DTC_FAILED)
		u = b->illumos ? 49 : 55;
	b->hdr.dt_act_base = (uint32_t)u;
	b->swap = b->hdr.big_endian != dtcp_host_big();
	return DTC_OK;
}

/*
 * An options item: its pairs wait in b->popts until the pass read so far
 * is walked (only temporal changes what a batch does: the order).
 * Returns 0, or -1 when consume.c's read_options would say something was
 * wrong (then the item does not end the pass there either).
 */
static int
read_options(dtc_batch *b, const dtcp_item *it)
{
	const dtcp_node *map, *k, *v;
	uint32_t i;
	int rc = 0;

	if (dtcp_get_node(b->cont, it, &it->nodes[0], "options", DTCP_N_MAP, 1,
	    &map, NULL) != DTC_OK)
		return -1;
	for (i = 0, k = dtcp_first_child(map); i < map->count;
	    i++, k = dtcp_next_sibling(v)) {
		char (*po)[256];

		v = dtcp_next_sibling(k);
		if (b->npopts == b->cappopts) {
			size_t cap = b->cappopts ? b->cappopts * 2 : 16;
			void *np;

			if (cap > 4096 || (np = realloc(b->popts,
			    cap * sizeof(*b->popts))) == NULL)
				return -1;
			b->popts = np;
			b->cappopts = cap;
		}
		if (k->type != DTCP_N_TEXT || k->len >= 64) {
			rc = -1;
			continue;
		}
		po = b->popts[b->npopts];
		memcpy(po[0], k->ptr, k->len);
		po[0][k->len] = '\0';
		if (v->type == DTCP_N_TEXT && v->len < 256) {
			memcpy(po[1], v->ptr, v->len);
			po[1][v->len] = '\0';
		} else if (v->type == DTCP_N_UINT) {
			snprintf(po[1], 256, "%" PRIu64, v->u);
		} else if (v->type == DTCP_N_NEGINT || (v->type == DTCP_N_BOOL &&
		    v->u == 0)) {
			po[1][0] = '\0';
		} else if (v->type == DTCP_N_BOOL) {
			snprintf(po[1], 256, "1");
		} else {
			rc = -1;
			continue;
		}
		b->npopts++;
	}
	return rc;
}

static void
apply_options(dtc_batch *b)
{
	char why[128];
	size_t i;

	for (i = 0; i < b->npopts; i++)
		(void)dtcp_options_set(&b->opts, b->popts[i][0], b->popts[i][1],
		    0, why, sizeof(why));
	b->npopts = 0;
}

static int
flavor_mismatch(const dtc_batch *b, const dtcp_item *it, dtc_error *err)
{
	static const char *const legacy[] = { "eprobe", "agg", "aggbuf",
	    "buf", "status" };
	static const char *const v2[] = { "stmt", "aggdesc", "recs",
	    "aggsnap", "fault", "drop" };
	const char *const *other = b->hdr.v2 ? legacy : v2;
	size_t i, n = b->hdr.v2 ? 5 : 6;

	for (i = 0; i < n; i++)
		if (strcmp(it->kind, other[i]) == 0) {
			dtcp_error_set(err, DTC_E_BADVALUE, b->source, it->index,
			    (long long)it->offset, -1, "%s item in a %s capture "
			    "(it belongs to %s captures); skipped", it->kind,
			    b->hdr.flavor, b->hdr.v2 ? "legacy" : "dtrace-v2");
			return 1;
		}
	return 0;
}

/* A buf or recs item into *pb (consume.c's read_buf, principal only). */
static int
read_buf(dtc_batch *b, const dtcp_item *it, bbuf *pb, uint32_t *pass,
    dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0], *dn;
	const uint8_t *data;
	size_t len;
	uint64_t u = 0, drops, errors, ts;
	int64_t cpu = 0;

	if (dtcp_get_u64(b->cont, it, map, "pass", 1, &u, err) != DTC_OK ||
	    dtcp_get_i64(b->cont, it, map, "cpu", 1, &cpu, err) != DTC_OK ||
	    dtcp_get_bytes(b->cont, it, map, "data", 1, &data, &len, err) !=
	    DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	if (cpu < 0 || cpu > 1000000) {
		dtcp_error_set(err, DTC_E_BADVALUE, b->source, it->index,
		    (long long)it->offset, -1, "%s item: cpu %lld is out of "
		    "range", it->kind, (long long)cpu);
		return DTC_WARN;
	}
	pb->cpu = (int)cpu;
	pb->item = it->index;
	dn = dtcp_map_get(map, "data");
	pb->file_offset = dn->offset + (len < 24 ? 1 : len < 256 ? 2 :
	    len < 65536 ? 3 : len <= UINT32_MAX ? 5 : 9);
	pb->oldest = 0;
	if (strcmp(it->kind, "buf") == 0 &&
	    (dtcp_get_u64(b->cont, it, map, "drops", 0, &drops, err) ==
	    DTC_FAILED ||
	    dtcp_get_u64(b->cont, it, map, "errors", 0, &errors, err) ==
	    DTC_FAILED ||
	    dtcp_get_u64(b->cont, it, map, "oldest", 0, &pb->oldest, err) ==
	    DTC_FAILED ||
	    dtcp_get_u64(b->cont, it, map, "timestamp", 0, &ts, err) ==
	    DTC_FAILED))
		return DTC_WARN;
	if (strcmp(it->kind, "recs") == 0 &&
	    dtcp_get_u64(b->cont, it, map, "drops", 0, &drops, err) ==
	    DTC_FAILED)
		return DTC_WARN;
	if (dtcp_container_stable(b->cont)) {
		pb->data = data;
	} else {
		if (pb->owned_cap < len) {
			uint8_t *p = realloc(pb->owned, len);

			if (p == NULL) {
				dtcp_error_set(err, DTC_E_NOMEM, b->source,
				    it->index, (long long)it->offset, -1,
				    "out of memory holding a %zu-byte buffer",
				    len);
				return DTC_FATAL;
			}
			pb->owned = p;
			pb->owned_cap = len;
		}
		if (len > 0)
			memcpy(pb->owned, data, len);
		pb->data = pb->owned;
	}
	pb->size = len;
	return DTC_OK;
}

/* A status item: what orders the pass (consume.c's read_status checks). */
static int
read_status(dtc_batch *b, const dtcp_item *it, uint32_t *pass,
    dtc_error *err)
{
	static const char *const counters[] = { "dynamic", "dynrinse",
	    "dyndirty", "spec", "specbusy", "specunavail", "stkstroverflow",
	    "dblerrors" };
	const dtcp_node *map = &it->nodes[0];
	int64_t i64;
	uint64_t u = 0;
	size_t i;

	if (dtcp_get_u64(b->cont, it, map, "pass", 1, &u, err) != DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	b->pbegan_on = b->pended_on = -1;
	b->pexiting = 0;
	if (dtcp_get_i64(b->cont, it, map, "began_on", 0, &i64, err) == DTC_OK)
		b->pbegan_on = (int)i64;
	if (dtcp_get_i64(b->cont, it, map, "ended_on", 0, &i64, err) == DTC_OK)
		b->pended_on = (int)i64;
	if (dtcp_get_u64(b->cont, it, map, "exiting", 0, &u, err) == DTC_OK)
		b->pexiting = u != 0;
	(void)dtcp_get_i64(b->cont, it, map, "exit_status", 0, &i64, err);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		if (dtcp_get_u64(b->cont, it, map, counters[i], 0, &u, err) ==
		    DTC_FAILED)
			return DTC_WARN;
	return DTC_OK;
}

/* An aggbuf item: only its pass matters here, if consume.c takes it. */
static int
check_aggbuf(dtc_batch *b, const dtcp_item *it, uint32_t *pass,
    dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0];
	const uint8_t *data;
	size_t len;
	uint64_t u = 0;
	int64_t cpu = 0;

	if (dtcp_get_u64(b->cont, it, map, "pass", 1, &u, err) != DTC_OK ||
	    dtcp_get_i64(b->cont, it, map, "cpu", 1, &cpu, err) != DTC_OK ||
	    dtcp_get_bytes(b->cont, it, map, "data", 1, &data, &len, err) !=
	    DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	if (cpu < 0 || cpu > 1000000) {
		dtcp_error_set(err, DTC_E_BADVALUE, b->source, it->index,
		    (long long)it->offset, -1, "%s item: cpu %lld is out of "
		    "range", it->kind, (long long)cpu);
		return DTC_WARN;
	}
	if (dtcp_get_u64(b->cont, it, map, "drops", 0, &u, err) == DTC_FAILED)
		return DTC_WARN;
	return DTC_OK;
}

/* An interrupt, fault or drop item (consume.c's read_note checks). */
static int
read_note(dtc_batch *b, const dtcp_item *it, uint32_t *pass, int *library,
    dtc_error *err)
{
	static const char *const fu64[] = { "stid", "probe", "addr" };
	static const char *const fi64[] = { "action", "offset", "fault" };
	const dtcp_node *map = &it->nodes[0];
	const char *s;
	size_t len, i;
	uint64_t u = 0;
	int64_t i64 = 0;

	if (dtcp_get_u64(b->cont, it, map, "pass", 1, &u, err) != DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	*library = 0;
	if (strcmp(it->kind, "interrupt") == 0)
		return DTC_OK;
	if (dtcp_get_i64(b->cont, it, map, "cpu", 0, &i64, err) == DTC_FAILED ||
	    dtcp_get_text(b->cont, it, map, "msg", 0, &s, &len, err) ==
	    DTC_FAILED)
		return DTC_WARN;
	if (it->kind[0] == 'f') {
		for (i = 0; i < 3; i++)
			if (dtcp_get_u64(b->cont, it, map, fu64[i], 0, &u,
			    err) == DTC_FAILED)
				return DTC_WARN;
		for (i = 0; i < 3; i++) {
			i64 = 0;
			if (dtcp_get_i64(b->cont, it, map, fi64[i], 0, &i64,
			    err) == DTC_FAILED)
				return DTC_WARN;
		}
		*library = i64 == 1000;     /* DTRACEFLT_LIBRARY */
		return DTC_OK;
	}
	if (dtcp_get_u64(b->cont, it, map, "kind", 0, &u, err) == DTC_FAILED ||
	    dtcp_get_u64(b->cont, it, map, "drops", 0, &u, err) == DTC_FAILED)
		return DTC_WARN;
	return DTC_OK;
}

static bbuf *
new_buf(dtc_batch *b)
{
	if (b->nbufs == b->capbufs) {
		size_t cap = b->capbufs ? b->capbufs * 2 : 8;
		bbuf *nb;

		if (cap > 65536 || (nb = realloc(b->bufs,
		    cap * sizeof(*nb))) == NULL)
			return NULL;
		memset(nb + b->capbufs, 0, (cap - b->capbufs) * sizeof(*nb));
		b->bufs = nb;
		b->capbufs = cap;
	}
	return &b->bufs[b->nbufs++];
}

/* The read-ahead buffer joins the pass (its bytes into the slot's own). */
static int
take_pending_buf(dtc_batch *b)
{
	bbuf *s = new_buf(b), save;

	if (s == NULL)
		return -1;
	save = *s;
	*s = b->pbuf;
	s->owned = save.owned;
	s->owned_cap = save.owned_cap;
	s->w = save.w;
	if (b->pbuf.data == b->pbuf.owned && b->pbuf.size > 0) {
		if (s->owned_cap < b->pbuf.size) {
			uint8_t *q = realloc(s->owned, b->pbuf.size);

			if (q == NULL)
				return -1;
			s->owned = q;
			s->owned_cap = b->pbuf.size;
		}
		memcpy(s->owned, b->pbuf.data, b->pbuf.size);
		s->data = s->owned;
	}
	s->started = 0;
	return 0;
}

/*
 * Read items until the current pass is complete: consume.c's read_pass,
 * keeping of each item only what decides the records and their order.
 * PASS_READY: a pass is ready (or the capture ended: b->eof). DTC_WARN:
 * err says what was skipped; call again. DTC_FATAL.
 */
static int
read_pass(dtc_batch *b, dtc_error *err)
{
	dtcp_item it;
	int rc;

	if (b->nbufs == 0 && b->npopts > 0)
		apply_options(b);
	for (;;) {
		uint32_t pass = 0;
		uint64_t u = 0;

		if (b->have_pending) {
			/* an item of a later pass, or a note (drop, fault,
			 * interrupt), completes the current pass */
			if (b->nbufs > 0 && (b->ppass != b->pass ||
			    b->pkind == P_NOTE))
				return PASS_READY;
			b->have_pending = 0;
			b->pass = b->ppass;
			if (b->pkind == P_STATUS) {
				b->have_status = 1;
				b->began_on = b->pbegan_on;
				b->ended_on = b->pended_on;
				b->exiting = b->pexiting;
			} else if (b->pkind == P_BUF) {
				if (take_pending_buf(b) != 0)
					goto nomem;
			}
			continue;
		}
		if (b->eof)
			return PASS_READY;
		rc = dtcp_container_next(b->cont, &it, err);
		if (rc == DTC_EOF) {
			b->eof = 1;
			return PASS_READY;
		}
		if (rc == DTC_FATAL) {
			b->eof = 1;
			return DTC_FATAL;
		}
		if (rc != DTC_OK)
			return rc;
		if (flavor_mismatch(b, &it, err))
			return DTC_WARN;
		rc = dtcp_meta_add_item(&b->meta, b->cont, &it, b->illumos, err);
		if (rc != DTC_EOF) {
			if (rc == DTC_OK)
				continue;
			/* a metadata item skipped: say so, and go on */
			return rc == DTC_FAILED ? DTC_WARN : rc;
		}
		if (strcmp(it.kind, "options") == 0) {
			int bad = read_options(b, &it) != 0;

			if (b->nbufs == 0)
				apply_options(b);
			else if (!bad)
				return PASS_READY;
			continue;
		}
		if (strcmp(it.kind, "end") == 0) {
			b->saw_end = 1;
			continue;
		}
		if (strcmp(it.kind, "status") == 0) {
			if ((rc = read_status(b, &it, &pass, err)) != DTC_OK)
				return rc;
			b->pkind = P_STATUS;
		} else if (strcmp(it.kind, "buf") == 0 ||
		    strcmp(it.kind, "recs") == 0) {
			rc = read_buf(b, &it, &b->pbuf, &pass, err);
			if (rc != DTC_OK)
				return rc;
			b->pkind = P_BUF;
		} else if (strcmp(it.kind, "aggbuf") == 0) {
			/* not records, but it marks its pass */
			if ((rc = check_aggbuf(b, &it, &pass, err)) != DTC_OK)
				return rc;
			b->pkind = P_OTHER;
		} else if (strcmp(it.kind, "aggsnap") == 0) {
			if (dtcp_get_u64(b->cont, &it, &it.nodes[0], "pass", 1,
			    &u, err) != DTC_OK)
				return DTC_WARN;
			pass = (uint32_t)u;
			b->pkind = P_OTHER;
		} else if (strcmp(it.kind, "interrupt") == 0 ||
		    strcmp(it.kind, "fault") == 0 ||
		    strcmp(it.kind, "drop") == 0) {
			int library = 0;

			if ((rc = read_note(b, &it, &pass, &library, err)) !=
			    DTC_OK)
				return rc;
			/* a library-level fault is decoded from its record
			 * (consume.c drops the item) */
			if (library)
				continue;
			b->pkind = P_NOTE;
			b->ppass = pass < b->pass ? b->pass : pass;
			b->have_pending = 1;
			if (b->nbufs > 0)
				return PASS_READY;
			continue;
		} else {
			continue;
		}
		if (pass < b->pass) {
			dtcp_error_set(err, DTC_E_BADVALUE, b->source, it.index,
			    (long long)it.offset, -1, "%s item of pass %u after "
			    "pass %u: pass numbers never decrease; read as pass "
			    "%u", it.kind, pass, b->pass, b->pass);
			b->ppass = b->pass;
			b->have_pending = 1;
			return DTC_WARN;
		}
		b->ppass = pass;
		b->have_pending = 1;
	}
nomem:
	dtcp_error_set(err, DTC_E_NOMEM, b->source, -1, -1, -1,
	    "out of memory");
	return DTC_FATAL;
}

/* ------------------------------------------------------------ passes */

static int
add_seg(dtc_batch *b, int buf, enum filter f)
{
	if (b->nsegs == b->capsegs) {
		size_t cap = b->capsegs ? b->capsegs * 2 : 16;
		bseg *ns = realloc(b->segs, cap * sizeof(*ns));

		if (ns == NULL)
			return -1;
		b->segs = ns;
		b->capsegs = cap;
	}
	b->segs[b->nsegs].buf = buf;
	b->segs[b->nsegs].filter = f;
	b->nsegs++;
	return 0;
}

static int
bufcmp(const void *x, const void *y)
{
	const bbuf *p = x, *q = y;

	/* two buffers of one CPU (damage consume.c reports): file order */
	if (p->cpu != q->cpu)
		return p->cpu < q->cpu ? -1 : 1;
	return p->item < q->item ? -1 : p->item > q->item;
}

/* consume.c's plan_pass: the order of the pass's buffers. */
static int
plan_pass(dtc_batch *b)
{
	int begin = -1, end = -1;
	size_t i;

	b->nsegs = b->seg = 0;
	if (b->hdr.v2) {
		b->temporal = 0;
		for (i = 0; i < b->nbufs; i++)
			if (add_seg(b, (int)i, F_ALL) != 0)
				return -1;
		return 0;
	}
	qsort(b->bufs, b->nbufs, sizeof(*b->bufs), bufcmp);
	b->temporal = dtcp_opt_isset(&b->opts, DTCP_OPT_TEMPORAL);
	if (b->temporal) {
		b->nheap = b->heap_i = 0;
		b->heap_ready = 0;
		b->refill = NULL;
		if (b->capheap < b->nbufs) {
			bbuf **h = realloc(b->heap, b->nbufs * sizeof(*h));

			if (h == NULL)
				return -1;
			b->heap = h;
			b->capheap = b->nbufs;
		}
		return 0;
	}
	for (i = 0; i < b->nbufs; i++) {
		/* of two buffers of one CPU, BEGIN's records are in the first */
		if (!b->began_consumed && b->have_status && begin < 0 &&
		    b->bufs[i].cpu == b->began_on)
			begin = (int)i;
		if (b->have_status && (b->exiting || b->ended_on >= 0) &&
		    b->bufs[i].cpu == b->ended_on)
			end = (int)i;
	}
	if (begin >= 0) {
		b->began_consumed = 1;
		if (add_seg(b, begin, begin == end ? F_BEGIN_ONLY : F_ALL))
			return -1;
	}
	for (i = 0; i < b->nbufs; i++)
		if ((int)i != begin && (int)i != end &&
		    add_seg(b, (int)i, F_ALL) != 0)
			return -1;
	if (end >= 0 && add_seg(b, end, end == begin ? F_NOT_BEGIN : F_ALL) !=
	    0)
		return -1;
	return 0;
}

static int
start_buffer(dtc_batch *b, bbuf *pb, dtc_error *err)
{
	pb->w.meta = &b->meta;
	pb->w.v2 = b->hdr.v2;
	pb->w.swap = b->swap;
	pb->w.cpu = pb->cpu;
	pb->w.source = b->source;
	pb->w.item = pb->item;
	pb->w.file_offset = pb->file_offset;
	pb->started = 1;
	pb->done = 0;
	return dtcp_walker_start(&pb->w, pb->data, pb->size, pb->oldest, err);
}

/* Oldest record first; equal timestamps by CPU (consume.c's older). */
static int
older(const bbuf *x, const bbuf *y)
{
	if (x->cur.timestamp != y->cur.timestamp)
		return x->cur.timestamp < y->cur.timestamp;
	return x->cpu < y->cpu;
}

static void
heap_push(dtc_batch *b, bbuf *pb)
{
	size_t i = b->nheap++, parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!older(pb, b->heap[parent]))
			break;
		b->heap[i] = b->heap[parent];
		i = parent;
	}
	b->heap[i] = pb;
}

static bbuf *
heap_pop(dtc_batch *b)
{
	bbuf *top = b->heap[0], *last = b->heap[--b->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < b->nheap) {
		if (c + 1 < b->nheap && older(b->heap[c + 1], b->heap[c]))
			c++;
		if (!older(b->heap[c], last))
			break;
		b->heap[i] = b->heap[c];
		i = c;
	}
	if (b->nheap > 0)
		b->heap[i] = last;
	return top;
}

static int
heap_fill(dtc_batch *b, bbuf *pb, dtc_error *err)
{
	int rc = dtcp_walker_next(&pb->w, &pb->cur, err);

	if (rc == DTC_OK) {
		heap_push(b, pb);
		return DTC_OK;
	}
	if (rc == DTC_EOF) {
		pb->done = 1;
		return DTC_OK;
	}
	return rc;
}

static int
temporal_record(dtc_batch *b, dtc_error *err)
{
	bbuf *pb;
	int rc;

	while (!b->heap_ready) {
		if (b->heap_i == b->nbufs) {
			b->heap_ready = 1;
			break;
		}
		pb = &b->bufs[b->heap_i];
		if (!pb->started && (rc = start_buffer(b, pb, err)) != DTC_OK)
			return rc;
		b->heap_i++;
		if ((rc = heap_fill(b, pb, err)) != DTC_OK) {
			b->refill = pb;
			return rc;
		}
	}
	if (b->refill != NULL) {
		pb = b->refill;
		b->refill = NULL;
		if (!pb->done && (rc = heap_fill(b, pb, err)) != DTC_OK) {
			b->refill = pb;
			return rc;
		}
	}
	if (b->nheap == 0)
		return DTC_EOF;
	pb = heap_pop(b);
	b->rb = pb;
	b->rec = pb->cur;
	b->refill = pb;
	return DTC_OK;
}

static int
is_begin_probe(const dtc_probedesc *p)
{
	return p != NULL && strcmp(p->provider, "dtrace") == 0 &&
	    strcmp(p->name, "BEGIN") == 0;
}

/* The next record of the pass (consume.c's next_record): DTC_OK, DTC_EOF
 * at the end of the pass, DTC_WARN (skip; call again). */
static int
next_record(dtc_batch *b, dtc_error *err)
{
	int rc;

	if (b->temporal)
		return temporal_record(b, err);
	while (b->seg < b->nsegs) {
		bseg *s = &b->segs[b->seg];
		bbuf *pb = &b->bufs[s->buf];

		if (!pb->started || (s->filter == F_NOT_BEGIN && pb->done)) {
			if ((rc = start_buffer(b, pb, err)) != DTC_OK)
				return rc;
		}
		for (;;) {
			const dtc_probedesc *p;

			rc = dtcp_walker_next(&pb->w, &b->rec, err);
			if (rc == DTC_EOF)
				break;
			if (rc != DTC_OK)
				return rc;
			if (s->filter != F_ALL) {
				const dtc_eprobedesc *ep = b->rec.ep;

				p = ep->probe;
				if (ep->uarg == 1 && ep->nrecs >= 1) {
					const dtc_eprobedesc *f = dtcp_meta_eprobe(
					    &b->meta, (uint32_t)dtcp_ldsz(
					    b->rec.data + ep->recs[0].offset,
					    ep->recs[0].size <= 8 ?
					    ep->recs[0].size : 8, b->swap));
					p = f != NULL ? f->probe : NULL;
				}
				if ((s->filter == F_BEGIN_ONLY) != is_begin_probe(p))
					continue;
			}
			b->rb = pb;
			return DTC_OK;
		}
		pb->done = 1;
		b->seg++;
	}
	return DTC_EOF;
}

/* ------------------------------------------------------------ tables */

/* A record of plain data: INT or BYTES, decoded by size alone. */
static int
plain_action(const dtc_recdesc *rd)
{
	return rd->action == DTC_ACT_DIFEXPR || rd->action == DTC_ACT_PRINTF;
}

static int
add_col(bcol **cols, uint32_t *n, uint32_t *cap, const dtc_recdesc *rd,
    uint32_t rec)
{
	bcol *c;

	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 4;
		bcol *p = realloc(*cols, nc * sizeof(*p));

		if (p == NULL)
			return -1;
		*cols = p;
		*cap = nc;
	}
	c = &(*cols)[(*n)++];
	memset(c, 0, sizeof(*c));
	c->rec = rec;
	c->offset = rd->offset;
	c->size = rd->size;
	c->action = rd->action;
	/* record.c's rule for data: an integer by size alone */
	switch (rd->size) {
	case 1: c->code = C_U8; break;
	case 2: c->code = C_U16; break;
	case 4: c->code = C_I32; break;
	case 8: c->code = C_I64; break;
	default: c->code = C_BYTES; break;
	}
	if (rd->action == DTC_ACT_EXIT)   /* record.c: 4 or 8+ bytes, an int */
		c->code = rd->size == 4 ? C_EXIT4 : rd->size >= 8 ? C_EXIT8 :
		    C_EXIT0;
	c->kind = c->code == C_BYTES ? DTC_COL_BYTES : DTC_COL_INT;
	return 0;
}

/*
 * Whether the records of ep are all plain data, and their columns if so:
 * the walk of consume.c's next_value over the recdescs, without data.
 * Returns 1 (data, *cols filled), 0 (other rows), -1 out of memory.
 */
static int
classify(dtc_batch *b, const dtc_eprobedesc *ep, bcol **cols, uint32_t *ncols)
{
	uint32_t i = 0, k, n, cap = 0;

	*cols = NULL;
	*ncols = 0;
	if (ep->uarg == 1)
		return 0;      /* the ERROR enabling */
	while (i < ep->nrecs) {
		const dtc_recdesc *rd = &ep->recs[i];
		const dtc_format *fmt;

		switch (rd->action) {
		case DTC_ACT_PRINTF:
			fmt = dtcp_meta_recformat(&b->meta, ep, i);
			if (fmt == NULL)
				goto other;
			n = dtcp_format_nrecs(fmt);
			if (n > ep->nrecs - i)
				goto other;
			for (k = 0; k < n; k++) {
				if (!plain_action(&ep->recs[i + k]))
					goto other;
				if (add_col(cols, ncols, &cap, &ep->recs[i + k],
				    i + k) != 0)
					goto nomem;
				(*cols)[*ncols - 1].fmt = fmt;
				(*cols)[*ncols - 1].argindex = k;
				(*cols)[*ncols - 1].action = DTC_ACT_PRINTF;
			}
			i += n;
			continue;
		case DTC_ACT_DIFEXPR:
			/* legacy print(): a DIFEXPR with a type */
			if (rd->format != 0 && !b->hdr.v2)
				goto other;
			break;
		case DTC_ACT_EXIT:
			break;
		case DTC_ACT_LIBACT:
			/* clear(), trunc(), normalize(), setopt() ...: they act
			 * on the aggregations and options, no value shows (a
			 * failed setopt() is an error event of its own) */
			i++;
			continue;
		case DTC_ACT_COMMIT:
		case DTC_ACT_DISCARD:
			if (b->hdr.v2) {
				i++;
				continue;
			}
			break;
		default:
			/* speculate(), stop() ... hold no data; anything else
			 * with data is not plain */
			if (rd->size == 0 && rd->action != DTC_ACT_PRINTA &&
			    rd->action != DTC_ACT_SYSTEM &&
			    rd->action != DTC_ACT_FREOPEN &&
			    rd->action != DTC_ACT_TRACEMEM_DYNSIZE &&
			    rd->action != DTC_ACT_TRACEMEM &&
			    rd->action != DTC_ACT_PRINTT) {
				i++;
				continue;
			}
			goto other;
		}
		if (rd->size == 0) {
			i++;
			continue;
		}
		if (rd->action == DTC_ACT_COMMIT || rd->action == DTC_ACT_DISCARD)
			goto other;
		if (add_col(cols, ncols, &cap, rd, i) != 0)
			goto nomem;
		i++;
	}
	/* dtrace-utils' strings: text up to the NUL (dtc_record_string) */
	for (k = 0; b->hdr.v2 && k < *ncols; k++)
		if ((*cols)[k].code == C_BYTES &&
		    dtcp_v2_string(&ep->recs[(*cols)[k].rec]))
			(*cols)[k].code = C_V2STR;
	return 1;
nomem:
	free(*cols);
	*cols = NULL;
	*ncols = 0;
	return -1;
other:
	free(*cols);
	*cols = NULL;
	*ncols = 0;
	return 0;
}

static size_t
ptrhash(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static int
map_put(dtc_batch *b, const dtc_eprobedesc *ep, btable *t)
{
	size_t i;

	if ((b->ntabs + 1) * 2 > b->mapcap) {
		size_t cap = b->mapcap ? b->mapcap * 2 : 64, j;
		const dtc_eprobedesc **k = calloc(cap, sizeof(*k));
		btable **v = calloc(cap, sizeof(*v));

		if (k == NULL || v == NULL) {
			free(k);
			free(v);
			return -1;
		}
		for (j = 0; j < b->mapcap; j++) {
			if (b->mapk[j] == NULL)
				continue;
			for (i = ptrhash(b->mapk[j], cap); k[i] != NULL;
			    i = (i + 1) & (cap - 1))
				;
			k[i] = b->mapk[j];
			v[i] = b->mapv[j];
		}
		free(b->mapk);
		free(b->mapv);
		b->mapk = k;
		b->mapv = v;
		b->mapcap = cap;
	}
	for (i = ptrhash(ep, b->mapcap); b->mapk[i] != NULL;
	    i = (i + 1) & (b->mapcap - 1))
		;
	b->mapk[i] = ep;
	b->mapv[i] = t;
	return 0;
}

/* The table of ep, made (and its columns decided) at its first row. */
static btable *
table_for(dtc_batch *b, const dtc_eprobedesc *ep)
{
	btable *t;
	size_t i;
	int rc;

	if (b->mapcap > 0) {
		for (i = ptrhash(ep, b->mapcap); b->mapk[i] != NULL;
		    i = (i + 1) & (b->mapcap - 1))
			if (b->mapk[i] == ep)
				return b->mapv[i];
	}
	if (b->ntabs == b->captabs) {
		size_t cap = b->captabs ? b->captabs * 2 : 16;
		btable **p = realloc(b->tabs, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		b->tabs = p;
		b->captabs = cap;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->ep = ep;
	rc = classify(b, ep, &t->cols, &t->ncols);
	if (rc < 0 || (t->ncols > 0 &&
	    (t->pubcols = calloc(t->ncols, sizeof(*t->pubcols))) == NULL) ||
	    map_put(b, ep, t) != 0) {
		free_table(t);
		return NULL;
	}
	t->data = rc;
	/* records start_record_set refuses (consume.c) */
	if (dtcp_eprobe_is_bad(ep))
		t->tkind = T_BAD;
	else if (ep->uarg == 1 && ep->nrecs != 5)
		t->tkind = T_ERRSHORT;
	b->tabs[b->ntabs++] = t;
	return t;
}

/* Room for one more row in t (arrays doubled as needed). */
static int
grow_rows(btable *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	uint32_t k;
	void *p;

#define GROW(ptr, extra) \
	do { \
		if ((p = realloc((ptr), (cap + (extra)) * sizeof(*(ptr)))) == \
		    NULL) \
			return -1; \
		(ptr) = p; \
	} while (0)
	GROW(t->index, 0);
	GROW(t->ts, 0);
	GROW(t->cpu, 0);
	GROW(t->pass, 0);
	for (k = 0; k < t->ncols; k++) {
		bcol *c = &t->cols[k];

		if (c->kind == DTC_COL_INT) {
			GROW(c->i, 0);
		} else {
			GROW(c->off, 1);
			GROW(c->isstr, 0);
		}
	}
#undef GROW
	t->cap = cap;
	return 0;
}

/* bytes of a string libdtrace prints: 1 printable, 2 NUL, 0 neither
 * (formats/model.c's table: the same rule decides "string" or "bytes") */
static const unsigned char strclass[256] = {
	2, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
};

/* The length of the string the record holds, or SIZE_MAX when it is not
 * one (printable text, then only NULs; or printable text filling it). */
static size_t
string_len(const uint8_t *p, size_t n)
{
	size_t i, len;
	uint64_t w[4];

	for (i = 0; i < n && strclass[p[i]] == 1; i++)
		continue;
	len = i;
	if (i < n && p[i] != '\0')
		return SIZE_MAX;
	if (len == 0 && n > 0)
		return SIZE_MAX;
	for (; n - i >= sizeof(w); i += sizeof(w)) {
		memcpy(w, p + i, sizeof(w));
		if ((w[0] | w[1] | w[2] | w[3]) != 0)
			return SIZE_MAX;
	}
	for (; i < n; i++)
		if (p[i] != '\0')
			return SIZE_MAX;
	return len;
}

/* len: the string's length, or SIZE_MAX for bytes (n of them) */
static int
put_bytes(bcol *c, size_t row, const uint8_t *p, size_t n, size_t len)
{

	if (row == 0)
		c->off[0] = 0;
	c->isstr[row] = len != SIZE_MAX;
	if (len == SIZE_MAX)
		len = n;
	if (c->capbytes - c->nbytes < len) {
		size_t cap = c->capbytes ? c->capbytes : 4096;
		uint8_t *q;

		while (cap - c->nbytes < len)
			cap *= 2;
		if ((q = realloc(c->bytes, cap)) == NULL)
			return -1;
		c->bytes = q;
		c->capbytes = cap;
	}
	if (len > 0)     /* an empty string: c->bytes may still be NULL */
		memcpy(c->bytes + c->nbytes, p, len);
	c->nbytes += len;
	c->off[row + 1] = c->nbytes;
	return 0;
}

static int
list_table(dtc_batch *b, btable *t)
{
	uint32_t k;

	if (b->nlist == b->caplist) {
		size_t cap = b->caplist ? b->caplist * 2 : 16;
		btable **p = realloc(b->list, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		b->list = p;
		b->caplist = cap;
	}
	b->list[b->nlist++] = t;
	t->listed = 1;
	t->n = 0;
	for (k = 0; k < t->ncols; k++)
		t->cols[k].nbytes = 0;
	return 0;
}

/* A record refused as start_record_set refuses it: the warning. */
static int
refuse(dtc_batch *b, const btable *t, dtc_error *err)
{
	const dtc_eprobedesc *ep = b->rec.ep;
	long long off = (long long)(b->rb->file_offset + b->rec.raw_offset);

	if (t->tkind == T_BAD)
		dtcp_error_set(err, DTC_E_BADRECDESC, b->source, b->rb->item,
		    off, b->rb->cpu, "record of enabled probe %u skipped: its "
		    "description is inconsistent", b->rec.epid);
	else
		dtcp_error_set(err, DTC_E_DMISMATCH, b->source, b->rb->item,
		    off, b->rb->cpu, "the ERROR enabling %u has %u records, not "
		    "5", ep->epid, ep->nrecs);
	return DTC_WARN;
}

/* ------------------------------------------------------ selection */

int
dtc_batch_select(dtc_batch *b, const char *what, const char *value,
    dtc_error *err)
{
	char why[200];

	dtc_error_clear(err);
	if (b->nbatches > 0 || b->dead) {
		dtcp_error_set(err, DTC_E_BADOPTION, b->source, -1, -1, -1,
		    "a selection after the first batch: too late, rows "
		    "delivered cannot be taken back");
		return DTC_FAILED;
	}
	if (b->sel == NULL) {
		if ((b->sel = malloc(sizeof(*b->sel))) == NULL) {
			dtcp_error_set(err, DTC_E_NOMEM, b->source, -1, -1, -1,
			    "out of memory");
			return DTC_FAILED;
		}
		dtcp_select_init(b->sel);
	}
	if (dtcp_select_add(b->sel, what, value, why, sizeof(why)) != DTC_OK) {
		dtcp_error_set(err, DTC_E_BADOPTION, b->source, -1, -1, -1,
		    "%s", why);
		return DTC_FAILED;
	}
	return DTC_OK;
}

/*
 * consume.c's select_prepare, at the start of each pass until the times
 * are known: refuse a selection the capture cannot honour, and count
 * +DURATION bounds from the earliest first record of the pass's buffers
 * (each buffer is in time order, the CPUs are not).
 */
static int
select_prepare(dtc_batch *b, dtc_error *err)
{
	const dtcp_tbound *wall;
	dtcp_walker w;
	dtcp_walkrec rec;
	uint64_t first = 0;
	size_t i;
	int found = 0;

	if (b->sel->time_ready || !dtcp_select_has_time(b->sel))
		return DTC_OK;
	if (!b->sel_checked) {
		wall = dtcp_select_wall_bound(b->sel);
		if (wall != NULL && !b->meta.have_clock) {
			dtcp_error_set(err, DTC_E_BADOPTION, b->source, -1, -1,
			    -1, "cannot select %s %s: wall-clock times need the "
			    "capture's clock item, and it has none (give ns or "
			    "+DURATION)", wall == &b->sel->since ? "since" :
			    "until", wall->text);
			return DTC_FATAL;
		}
		/* dtrace-v2 records have their pass's time, in captures
		 * whose first clock item says so (dtsnap(5)) */
		if (b->hdr.v2 && !b->meta.pass_clocks) {
			dtcp_error_set(err, DTC_E_BADOPTION, b->source, -1, -1,
			    -1, "cannot select by time (since, until): the "
			    "records of this dtrace-v2 capture carry no "
			    "timestamps (it has no pass clocks)");
			return DTC_FATAL;
		}
		b->sel_checked = 1;
	}
	if (!dtcp_select_needs_first(b->sel)) {
		dtcp_select_resolve(b->sel, b->meta.clock_hrtime,
		    b->meta.clock_walltime, 0);
		return DTC_OK;
	}
	for (i = 0; i < b->nbufs; i++) {
		const bbuf *pb = &b->bufs[i];

		memset(&w, 0, sizeof(w));
		w.meta = &b->meta;
		w.swap = b->swap;
		w.cpu = pb->cpu;
		w.item = pb->item;
		w.source = b->source;
		/* damage is reported when the buffer is walked */
		if (dtcp_walker_start(&w, pb->data, pb->size, pb->oldest,
		    NULL) != DTC_FATAL && dtcp_walker_next(&w, &rec, NULL) ==
		    DTC_OK && (!found || rec.timestamp < first)) {
			first = rec.timestamp;
			found = 1;
		}
		dtcp_walker_free(&w);
	}
	if (found)
		dtcp_select_resolve(b->sel, b->meta.clock_hrtime,
		    b->meta.clock_walltime, first);
	return DTC_OK;
}

/*
 * The selection's verdict on the record set in b->rec (consume.c's
 * firing_selected): an ERROR record is in when dtrace:::ERROR is, or the
 * enabling that faulted (named by its first record).
 */
static int __attribute__((noinline))
batch_selected(dtc_batch *b)
{
	const dtc_eprobedesc *ep = b->rec.ep, *fep;
	const dtc_recdesc *rd;
	dtcp_select *s = b->sel;

	/* no first record was found before this one (a damaged buffer):
	 * it is the first */
	if (!s->time_ready && dtcp_select_has_time(s))
		dtcp_select_resolve(s, b->meta.clock_hrtime,
		    b->meta.clock_walltime, b->rec.timestamp);
	if (!dtcp_select_where(s, b->rb->cpu, b->rec.timestamp))
		return 0;
	if (dtcp_select_enabling(s, ep->epid, ep->probeid, ep->probe))
		return 1;
	if (ep->uarg != 1 || ep->nrecs < 1)
		return 0;
	rd = &ep->recs[0];
	if (rd->size == 0 || rd->offset >= ep->size ||
	    (rd->size <= 8 ? rd->size : 8) > ep->size - rd->offset)
		return 0;
	fep = dtcp_meta_eprobe(&b->meta, (uint32_t)dtcp_ldsz(b->rec.data +
	    rd->offset, rd->size <= 8 ? rd->size : 8, b->swap));
	return fep != NULL &&
	    dtcp_select_enabling(s, fep->epid, fep->probeid, fep->probe);
}

/*
 * The record in b->rec as a row of its table, or the warning dtc_next
 * gives for it.  Called for every record: the table comes from a small
 * direct-mapped cache, and each column's value is read by a code decided
 * when the table was made.
 */
static inline int __attribute__((always_inline))
take_record(dtc_batch *b, dtc_error *err)
{
	const dtc_eprobedesc *ep = b->rec.ep;
	const uint8_t *d = b->rec.data;
	unsigned slot = ep->epid & 255;
	int swap = b->swap;
	btable *t;
	bcol *c, *ce;
	size_t row;

	if (b->sel != NULL && !batch_selected(b))
		return DTC_OK;      /* left out: no row, no index */
	if (b->tcache[slot].ep == ep) {
		t = b->tcache[slot].t;
	} else {
		if ((t = table_for(b, ep)) == NULL)
			goto nomem;
		b->tcache[slot].ep = ep;
		b->tcache[slot].t = t;
	}
	if (t->tkind != T_ROW)
		return refuse(b, t, err);
	if (!t->listed && list_table(b, t) != 0)
		goto nomem;
	if (t->n == t->cap && grow_rows(t) != 0)
		goto nomem;
	row = t->n;
	t->index[row] = b->nsets;
	t->ts[row] = b->rec.timestamp;
	t->cpu[row] = b->rb->cpu;
	t->pass[row] = b->pass;
	/* (locals: the stores below could alias t for the compiler) */
	for (c = t->cols, ce = c + t->ncols; c < ce; c++) {
		const uint8_t *p = d + c->offset;

		/* as dtrace and dt2json show them: 1- and 2-byte values
		 * unsigned, 4 and 8 signed; exit() as its int status */
		switch (c->code) {
		case C_U8:
			c->i[row] = p[0];
			break;
		case C_U16:
			c->i[row] = dtcp_ld16(p, swap);
			break;
		case C_I32:
			c->i[row] = (int32_t)dtcp_ld32(p, swap);
			break;
		case C_I64:
			c->i[row] = (int64_t)dtcp_ld64(p, swap);
			break;
		case C_EXIT4:
			c->i[row] = (int32_t)dtcp_ld32(p, swap);
			break;
		case C_EXIT8:
			c->i[row] = (int32_t)dtcp_ld64(p, swap);
			break;
		case C_EXIT0:
			c->i[row] = 0;
			break;
		case C_BYTES:
			if (put_bytes(c, row, p, c->size,
			    string_len(p, c->size)) != 0)
				goto nomem;
			break;
		case C_V2STR:
			if (put_bytes(c, row, p, c->size,
			    strnlen((const char *)p, c->size)) != 0)
				goto nomem;
			break;
		}
	}
	t->n = row + 1;
	b->nrows++;
	b->nsets++;
	return DTC_OK;
nomem:
	dtcp_error_set(err, DTC_E_NOMEM, b->source, -1, -1, -1,
	    "out of memory");
	return DTC_FATAL;
}

/*
 * walker.c's walk of a legacy buffer, for the records it would take
 * without a word: EPIDNONE padding skipped, a known EPID whose record
 * lies inside the buffer.  Anything else (an unknown EPID, an overrun,
 * stray bytes, a wrapped buffer, DTrace v2 records) is left to
 * dtcp_walker_next itself, so that every message and every skip is the
 * walker's.  1: *rec is the next record; 0: call the walker.
 */
static inline int __attribute__((always_inline))
fast_next(dtcp_walker *w, dtcp_walkrec *rec)
{
	const dtc_eprobedesc *ep;
	uint32_t epid;
	size_t pos = w->pos;

	for (;;) {
		if (w->size - pos < 4)
			return 0;
		epid = dtcp_ld32(w->data + pos, w->swap);
		if (epid != 0)
			break;
		pos += 4;
		w->pos = pos;
	}
	ep = dtcp_meta_eprobe(w->meta, epid);
	if (ep == NULL || ep->size < 12 || ep->size > w->size - pos)
		return 0;
	rec->offset = pos;
	rec->raw_offset = pos;     /* not wrapped: the captured offset */
	rec->epid = epid;
	rec->ep = ep;
	rec->data = w->data + pos;
	rec->timestamp = (uint64_t)dtcp_ld32(rec->data + 4, w->swap) << 32 |
	    dtcp_ld32(rec->data + 8, w->swap);
	w->pos = pos + ep->size;
	return 1;
}

/*
 * The records of the pass into their tables until the pass ends
 * (DTC_EOF), max_rows rows are in this batch (DTC_OK) or a record gives
 * a warning.  The records of one buffer segment are taken in a loop of
 * their own: next_record's checks are per segment, not per record.
 */
static int
walk(dtc_batch *b, size_t max_rows, dtc_error *err)
{
	size_t limit = max_rows != 0 ? max_rows : SIZE_MAX;
	int rc;

	for (;;) {
		bseg *s;
		bbuf *pb;

		if (b->nrows >= limit)
			return DTC_OK;
		if ((rc = next_record(b, err)) != DTC_OK)
			return rc;
		if ((rc = take_record(b, err)) != DTC_OK)
			return rc;
		if (b->temporal || b->seg >= b->nsegs ||
		    b->segs[b->seg].filter != F_ALL)
			continue;
		/* the rest of this buffer, record after record */
		s = &b->segs[b->seg];
		pb = &b->bufs[s->buf];
		while (b->nrows < limit) {
			if (!pb->w.v2 && pb->w.oldest == 0 &&
			    fast_next(&pb->w, &b->rec)) {
				if ((rc = take_record(b, err)) != DTC_OK)
					return rc;
				continue;
			}
			rc = dtcp_walker_next(&pb->w, &b->rec, err);
			if (rc == DTC_EOF)
				break;      /* next_record ends the segment */
			if (rc != DTC_OK)
				return rc;
			if ((rc = take_record(b, err)) != DTC_OK)
				return rc;
		}
	}
}

/* The public view of the tables of this batch. */
static void
publish(dtc_batch *b)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < b->nlist; i++) {
		btable *t = b->list[i];
		dtc_table *p = &t->pub;

		p->ep = t->ep;
		p->probe = t->ep->probe;
		p->data = t->data;
		p->nrows = t->n;
		p->index = t->index;
		p->timestamp = t->ts;
		p->cpu = t->cpu;
		p->pass = t->pass;
		p->ncols = t->ncols;
		p->cols = t->pubcols;
		for (k = 0; k < t->ncols; k++) {
			bcol *c = &t->cols[k];
			dtc_column *q = &t->pubcols[k];

			q->kind = c->kind;
			q->recindex = c->rec;
			q->rd = &t->ep->recs[c->rec];
			q->action = c->action;
			q->size = c->size;
			q->fmt = c->fmt;
			q->argindex = c->argindex;
			q->i = c->kind == DTC_COL_INT ? c->i : NULL;
			q->off = c->kind == DTC_COL_BYTES ? c->off : NULL;
			q->isstr = c->kind == DTC_COL_BYTES ? c->isstr : NULL;
			q->bytes = c->kind == DTC_COL_BYTES ? c->bytes : NULL;
			q->nbytes = c->kind == DTC_COL_BYTES ? c->nbytes : 0;
		}
	}
}

static int
finish(dtc_batch *b, int rc)
{
	publish(b);
	b->last_rc = rc;
	if (rc == DTC_FATAL || (rc == DTC_EOF && b->nrows == 0))
		b->dead = 1;
	if (rc == DTC_EOF && b->nrows > 0)
		rc = DTC_OK;      /* the last rows; DTC_EOF comes next */
	return rc;
}

int
dtc_batch_next(dtc_batch *b, size_t max_rows, dtc_error *err)
{
	dtcp_item it;
	size_t i;
	int rc;

	for (i = 0; i < b->nlist; i++)
		b->list[i]->listed = 0;
	b->nlist = 0;
	b->nrows = 0;
	b->nbatches++;
	dtc_error_clear(err);
	if (b->dead)
		return b->last_rc;
	for (;;) {
		switch (b->state) {
		case S_HEADER:
			rc = dtcp_container_next(b->cont, &it, err);
			if (rc == DTC_EOF) {
				dtcp_error_set(err, DTC_E_BADHEADER, b->source,
				    -1, 0, -1, "empty input: no dtsnap header");
				return finish(b, DTC_FATAL);
			}
			if (rc != DTC_OK)
				return finish(b, DTC_FATAL);
			if ((rc = read_header(b, &it, err)) != DTC_OK)
				return finish(b, rc);
			b->state = S_ITEMS;
			continue;

		case S_ITEMS:
			rc = read_pass(b, err);
			if (rc == DTC_FATAL && b->eof) {
				/* cut short: walk what was read (as dtc_next) */
				b->state = b->nbufs > 0 ? S_PASS_START : S_DONE;
				return finish(b, DTC_WARN);
			}
			if (rc != PASS_READY)
				return finish(b, rc);
			if (b->nbufs == 0) {
				if (b->eof)
					b->state = S_DONE;
				continue;
			}
			b->state = S_PASS_START;
			continue;

		case S_PASS_START:
			if (b->sel != NULL &&
			    (rc = select_prepare(b, err)) != DTC_OK)
				return finish(b, rc);
			if (plan_pass(b) != 0) {
				dtcp_error_set(err, DTC_E_NOMEM, b->source, -1,
				    -1, -1, "out of memory");
				return finish(b, DTC_FATAL);
			}
			b->state = S_WALK;
			continue;

		case S_WALK:
			rc = walk(b, max_rows, err);
			if (rc == DTC_EOF) {
				b->nbufs = 0;
				b->began_consumed = 1;
				b->state = b->eof && !b->have_pending ? S_DONE :
				    S_ITEMS;
				continue;
			}
			return finish(b, rc);

		case S_DONE:
			return finish(b, DTC_EOF);
		}
	}
}
