/*
 * batch.c - the records of a capture as columns (dtc_batch_*).
 *
 * The per-event interface (dtc_reader_next, dtc_reader_consume) builds a dtc_event and
 * a dtc_value for every record and calls back for each: at least three
 * events per probe firing.  For small trace() records that contract, not
 * the decoding, is most of the cost (bench/RESULTS.md).  A batch reader
 * walks the same principal buffers and appends each record set to the
 * table of its enabled probe instead: a row (record-set index, timestamp,
 * CPU, pass) and one value per column.  Nothing is built per record but
 * the values themselves.
 *
 * What a row is, and in which order rows come, is the per-event reader's:
 * both take their records from the pass engine (pass.c), which reads the
 * items of each consume pass and walks its buffers in libdtrace's order
 * (the BEGIN CPU first, the END CPU last, or merged by timestamp with
 * option temporal; DTrace v2 records in file order), and gives the same
 * warnings about items, passes and records to both (tests/test_pass.c).
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
 * has them (the engine's snapshots and notes are let go here).  Damage
 * is reported as dtc_reader_next reports it (the header, items, passes, records);
 * option items are applied without complaint (their problems concern the
 * printing, which a batch does not do).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pass.h"

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
	dtcp_capture cap;        /* header, tables, options, byte order */
	dtcp_pass ps;            /* items, passes, records (pass.c) */
	enum state state;
	int dead, last_rc;
	dtc_error hdr_warn;      /* given by the first dtc_batch_next */

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

};

/* ------------------------------------------------------------ open */

static dtc_batch *
batch_new(dtcp_container *c, unsigned flags, dtc_error *err)
{
	dtc_batch *b;

	if (c == NULL)
		return NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, dtcp_container_source(c), -1,
		    -1, -1, "out of memory");
		dtcp_container_close(c);
		return NULL;
	}
	if (dtcp_capture_init(&b->cap, c, flags, err) != 0) {
		free(b);
		return NULL;
	}
	dtcp_pass_init(&b->ps, &b->cap);
	b->ps.quiet_options = 1;
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
	for (i = 0; i < b->ntabs; i++)
		free_table(b->tabs[i]);
	free(b->tabs);
	free(b->mapk);
	free(b->mapv);
	free(b->list);
	dtcp_pass_free(&b->ps);
	dtcp_capture_free(&b->cap);
	free(b);
}

const dtc_header *
dtc_batch_header(const dtc_batch *b)
{
	return b->state == S_HEADER ? NULL : &b->cap.hdr;
}

const dtc_capture *
dtc_batch_capture(const dtc_batch *b)
{
	return &b->cap;
}

const char *
dtc_batch_source(const dtc_batch *b)
{
	return b->cap.source;
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
			fmt = dtcp_meta_recformat(&b->cap.meta, ep, i);
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
			if (rd->format != 0 && !b->cap.hdr.v2)
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
			if (b->cap.hdr.v2) {
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
	/* dtrace-utils' strings: text up to the NUL (dtc_reader_record_string) */
	for (k = 0; b->cap.hdr.v2 && k < *ncols; k++)
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

/* 1 when every byte of p[0..n) is printable (strclass 1).  Eight bytes
 * at a time: a word whose bytes are all 0x20..0x7e (nearly every string)
 * needs no look-up; from the first other word on, the table decides. */
static int
printable(const uint8_t *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t highs = 0x8080808080808080ULL;
	size_t i = 0;
	uint64_t w;

	/* a byte below 0x20 borrows into its high bit, 0x7f carries into
	 * it, 0x80 and above have it: each sets some high bit */
	for (; n - i >= sizeof(w); i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		if (((w - 0x20 * ones) | (w + ones) | w) & highs)
			break;
	}
	for (; i < n; i++)
		if (strclass[p[i]] != 1)
			return 0;
	return 1;
}

/*
 * The length of the string the record holds, or SIZE_MAX when it is not
 * one: printable text, then only NULs; or printable text filling it (the
 * rule dtrace prints a record by).  Run for every string record of every
 * row, and a record is mostly its zero tail (strsize 256, an execname of
 * a few bytes): memchr finds the NUL, and the tail is all zero exactly
 * when every byte equals the next (memcmp of the tail with itself one
 * byte on), both at the speed of libc's vector loops.
 */
static size_t
string_len(const uint8_t *p, size_t n)
{
	const uint8_t *z;
	size_t len;

	if (n == 0)
		return 0;
	z = memchr(p, '\0', n);
	len = z != NULL ? (size_t)(z - p) : n;
	if (len == 0 || !printable(p, len))
		return SIZE_MAX;
	if (z != NULL && n - len > 1 && memcmp(z, z + 1, n - len - 1) != 0)
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
	const dtc_eprobedesc *ep = b->ps.rec.ep;
	long long off = (long long)(b->ps.rb->file_offset + b->ps.rec.raw_offset);

	if (t->tkind == T_BAD)
		dtcp_error_set(err, DTC_E_BADRECDESC, b->cap.source, b->ps.rb->item,
		    off, b->ps.rb->cpu, "record of enabled probe %u skipped: its "
		    "description is inconsistent", b->ps.rec.epid);
	else
		dtcp_error_set(err, DTC_E_DMISMATCH, b->cap.source, b->ps.rb->item,
		    off, b->ps.rb->cpu, "the ERROR enabling %u has %u records, not "
		    "5", ep->epid, ep->nrecs);
	return DTC_WARN;
}

/* ------------------------------------------------------ selection */

int
dtc_batch_select(dtc_batch *b, const char *what, const char *value,
    dtc_error *err)
{
	dtc_error_clear(err);
	if (b->nbatches > 0 || b->dead) {
		dtcp_error_set(err, DTC_E_BADOPTION, b->cap.source, -1, -1, -1,
		    "a selection after the first batch: too late, rows "
		    "delivered cannot be taken back");
		return DTC_FAILED;
	}
	return dtcp_pass_select(&b->ps, what, value, err);
}

/*
 * The record in b->ps.rec as a row of its table, or the warning dtc_reader_next
 * gives for it.  Called for every record: the table comes from a small
 * direct-mapped cache, and each column's value is read by a code decided
 * when the table was made.
 */
static inline int __attribute__((always_inline))
take_record(dtc_batch *b, dtc_error *err)
{
	const dtc_eprobedesc *ep = b->ps.rec.ep;
	const uint8_t *d = b->ps.rec.data;
	unsigned slot = ep->epid & 255;
	int swap = b->cap.swap;
	btable *t;
	bcol *c, *ce;
	size_t row;

	/* a record of a bad description is refused (below) whether the
	 * selection takes it or not, as dtc_reader_next refuses it */
	if (b->ps.sel != NULL && !dtcp_eprobe_is_bad(ep) &&
	    !dtcp_pass_selected(&b->ps))
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
	t->ts[row] = b->ps.rec.timestamp;
	t->cpu[row] = b->ps.rb->cpu;
	t->pass[row] = b->ps.pass;
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
	dtcp_error_set(err, DTC_E_NOMEM, b->cap.source, -1, -1, -1,
	    "out of memory");
	return DTC_FATAL;
}

/*
 * The engine's items up to a pass ready to walk: its notes and snapshots
 * are not a batch's (the per-event reader has them).
 */
static int
read_pass(dtc_batch *b, dtc_error *err)
{
	int rc;

	for (;;) {
		rc = dtcp_pass_read(&b->ps, err);
		if (rc != DTCP_PASS_NOTES && rc != DTCP_PASS_AGGBUF &&
		    rc != DTCP_PASS_AGGSNAP)
			return rc;
		dtcp_pass_drop_notes(&b->ps);
	}
}

/* The engine's next record: DTC_OK, DTC_EOF at the end of the pass,
 * DTC_WARN (skip; call again). */
static int
next_record(dtc_batch *b, dtc_error *err)
{
	int rc;

	while ((rc = dtcp_pass_next_record_fast(&b->ps, err)) == DTCP_PASS_NOTES)
		dtcp_pass_drop_notes(&b->ps);
	return rc;
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
		dtcp_segment *s;
		dtcp_pbuf *pb;

		if (b->nrows >= limit)
			return DTC_OK;
		if ((rc = next_record(b, err)) != DTC_OK)
			return rc;
		if ((rc = take_record(b, err)) != DTC_OK)
			return rc;
		if (b->ps.temporal || b->ps.seg >= b->ps.nsegs ||
		    b->ps.segs[b->ps.seg].filter != DTCP_F_ALL)
			continue;
		/* the rest of this buffer, record after record */
		s = &b->ps.segs[b->ps.seg];
		pb = &b->ps.bufs[s->buf];
		while (b->nrows < limit) {
			if (!pb->w.v2 && pb->w.oldest == 0 &&
			    fast_next(&pb->w, &b->ps.rec)) {
				if ((rc = take_record(b, err)) != DTC_OK)
					return rc;
				continue;
			}
			rc = dtcp_walker_next(&pb->w, &b->ps.rec, err);
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
			if ((rc = dtcp_pass_header(&b->ps, err)) != DTC_OK)
				return finish(b, rc);
			b->state = S_ITEMS;
			/* a header value of the wrong type, read past */
			if (err != NULL && err->code != DTC_E_NONE)
				return finish(b, DTC_WARN);
			continue;

		case S_ITEMS:
			rc = read_pass(b, err);
			if (rc == DTC_FATAL && b->ps.eof) {
				/* cut short: walk what was read (as dtc_reader_next) */
				b->state = b->ps.nbufs > 0 ? S_PASS_START : S_DONE;
				return finish(b, DTC_WARN);
			}
			if (rc != DTC_OK)
				return finish(b, rc);
			if (b->ps.nbufs == 0) {
				if (b->ps.eof)
					b->state = S_DONE;
				continue;
			}
			b->state = S_PASS_START;
			continue;

		case S_PASS_START:
			if ((rc = dtcp_pass_select_prepare(&b->ps, err)) !=
			    DTC_OK)
				return finish(b, rc);
			b->state = S_WALK;
			if ((rc = dtcp_pass_plan(&b->ps, err)) != DTC_OK)
				return finish(b, rc);
			continue;

		case S_WALK:
			rc = walk(b, max_rows, err);
			if (rc == DTC_EOF) {
				dtcp_pass_done(&b->ps);
				dtcp_pass_drop_notes(&b->ps);
				b->state = b->ps.eof && !b->ps.have_pending ? S_DONE :
				    S_ITEMS;
				continue;
			}
			return finish(b, rc);

		case S_DONE:
			/* a capture without records refuses what it cannot
			 * honour as well; then what was after the end item */
			if (!b->ps.sel_checked &&
			    (rc = dtcp_pass_select_prepare(&b->ps, err)) != DTC_OK)
				return finish(b, rc);
			if (dtcp_pass_after_end(&b->ps, err) != DTC_OK)
				return finish(b, DTC_WARN);
			return finish(b, DTC_EOF);
		}
	}
}
