/*
 * test_agg.c - the aggregation engine against hand-built aggregation
 * buffers.
 *
 * Entries are laid out as the kernel lays them out (abi-facts 4.1): the
 * aggid at offset 0, stale bytes at 4..7, the compiler's int64 variable id
 * at 8, the keys at their natural alignment, the value 8-aligned.  The
 * expected orders come from the conformance .r files (aggs/tst.keysort,
 * tst.signedkeys, tst.negorder, tst.trunc, tst.negtrunc, tst.clear,
 * multiaggs/tst.sortpos, tst.zero) or, for llquantize, are derived from
 * the legacy rules (INDEX KD-11: those .r files are DTrace v2 output).
 *
 * The reader, the metadata lookups, the value decoder and the symbol
 * lookups are fakes defined here; only agg.c, error.c and buf.c are real.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"
#include "capture.h"

/* ------------------------------------------------------------------ */
/* Fakes of the other modules                                          */
/* ------------------------------------------------------------------ */

#define MAXAGG 32
#define MAXRECS 8

/* A capture (what the aggregation engine takes) with the tables the
 * fakes below answer from. */
typedef struct fake {
	struct dtc_capture cap;    /* meta, opts, swap, illumos, hdr (hdr.v2:
	                            * DTrace v2 value layouts) */
	dtc_aggdesc descs[MAXAGG + 1];
	dtc_recdesc recs[MAXAGG + 1][MAXRECS];
	int have[MAXAGG + 1];
	dtcp_ksym ksyms[8];
	dtcp_proc procs[1];
	dtcp_umap maps[2];
	dtcp_ksym usyms[2];
} fake;

const dtc_aggdesc *
dtcp_meta_agg(const dtcp_meta *m, uint32_t id)
{
	const fake *r = (const fake *)(const void *)((const char *)m -
	    offsetof(fake, cap.meta));

	if (id == 0 || id > MAXAGG || !r->have[id])
		return NULL;
	return &r->descs[id];
}

void
dtcp_decode_value(const dtc_recdesc *rd, const uint8_t *data, uint32_t size,
    int swap, dtc_value *v)
{
	memset(v, 0, sizeof(*v));
	v->action = rd->action;
	v->size = size;
	v->data = data;
	v->rd = rd;
	switch (size) {
	case 1: case 2: case 4: case 8:
		v->kind = DTC_V_INT;
		v->u = dtcp_ldsz(data, size, swap);
		v->i = size == 8 ? (int64_t)v->u :
		    (int64_t)(v->u << (64 - 8 * size)) >> (64 - 8 * size);
		break;
	default:
		v->kind = DTC_V_BYTES;
		break;
	}
}

static int
symfind(const dtcp_ksym *s, size_t n, uint64_t addr, dtc_symbol *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (addr >= s[i].addr && addr < s[i].addr + s[i].size) {
			out->module = s[i].module;
			out->name = s[i].name;
			out->start = s[i].addr;
			out->size = s[i].size;
			return 1;
		}
	}
	return 0;
}

int
dtc_capture_ksym_lookup(const dtc_capture *r, uint64_t addr, dtc_symbol *sym)
{
	return symfind(r->meta.ksyms, r->meta.nksyms, addr, sym);
}

int
dtc_capture_usym_lookup(const dtc_capture *r, uint64_t pid, uint64_t addr,
    dtc_symbol *sym)
{
	size_t i;

	if (r->meta.nprocs == 0 || r->meta.procs[0].pid != pid)
		return 0;
	for (i = 0; i < r->meta.procs[0].nmaps; i++) {
		const dtcp_umap *m = &r->meta.procs[0].maps[i];

		if (addr >= m->start && addr < m->end) {
			if (symfind(m->syms, m->nsyms, addr, sym))
				sym->module = m->path;
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Building descs and buffers                                          */
/* ------------------------------------------------------------------ */

static fake *
reader_new(int swap, int illumos)
{
	fake *r = calloc(1, sizeof(*r));
	int i;

	ck_assert_ptr_nonnull(r);
	for (i = 0; i < DTCP_OPT_COUNT; i++)
		r->cap.opts.v[i] = DTC_OPT_UNSET;
	r->cap.swap = swap;
	r->cap.source = (char *)"test.dtsnap";
	r->cap.illumos = illumos;
	return r;
}

static void
setopt(fake *r, int opt, int64_t v)
{
	r->cap.opts.v[opt] = v;
}

/* A key as the D compiler emits it: action, size, alignment. */
struct tkey {
	uint16_t action;
	uint32_t size;
	uint16_t align;
};
#define KINT(n)   { DTC_ACT_DIFEXPR, (n), (n) }
#define KSTR(n)   { DTC_ACT_DIFEXPR, (n), 1 }
#define KSYM      { DTC_ACT_SYM, 8, 8 }
#define KMOD      { DTC_ACT_MOD, 8, 8 }
#define KUSYM     { DTC_ACT_USYM, 16, 8 }
#define KUMOD     { DTC_ACT_UMOD, 16, 8 }
#define KUADDR    { DTC_ACT_UADDR, 16, 8 }

static size_t
roundup(size_t x, size_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* Register aggid id of variable varid with the kernel's layout. */
static dtc_aggdesc *
mkdesc(fake *r, uint32_t id, int64_t varid, const char *name,
    uint32_t nkeys, const struct tkey *keys, uint16_t func, uint32_t valsize,
    uint64_t arg)
{
	dtc_aggdesc *d = &r->descs[id];
	dtc_recdesc *rec = r->recs[id];
	size_t off = 8;
	uint32_t k;

	ck_assert_uint_le(id, MAXAGG);
	ck_assert_uint_le(nkeys + 2, MAXRECS);
	memset(rec, 0, sizeof(r->recs[id]));
	rec[0].action = DTC_ACT_DIFEXPR;
	rec[0].size = 8;
	rec[0].alignment = 8;
	rec[0].offset = 8;
	off = 16;
	for (k = 0; k < nkeys; k++) {
		off = roundup(off, keys[k].align);
		rec[k + 1].action = keys[k].action;
		rec[k + 1].size = keys[k].size;
		rec[k + 1].alignment = keys[k].align;
		rec[k + 1].offset = (uint32_t)off;
		off += keys[k].size;
	}
	off = roundup(off, 8);
	rec[nkeys + 1].action = func;
	rec[nkeys + 1].size = valsize;
	rec[nkeys + 1].alignment = 8;
	rec[nkeys + 1].offset = (uint32_t)off;
	rec[nkeys + 1].arg = arg;
	memset(d, 0, sizeof(*d));
	d->id = id;
	d->epid = id;
	d->varid = varid;
	d->name = name;
	d->size = (uint32_t)(off + valsize);
	d->nrecs = nkeys + 2;
	d->recs = rec;
	r->have[id] = 1;
	if (id > r->cap.meta.maxaggid)
		r->cap.meta.maxaggid = id;
	r->cap.meta.aggs.n++;
	return d;
}

/* A growable aggregation buffer. */
struct tbuf {
	uint8_t *p;
	size_t len, cap;
};

static void
tbuf_free(struct tbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Entry under construction: a pointer into the buffer. */
static uint8_t *
ent_add(struct tbuf *b, const fake *r, const dtc_aggdesc *d)
{
	uint8_t *e;

	if (b->len + d->size > b->cap) {
		b->cap = (b->len + d->size) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	e = b->p + b->len;
	/* stale scratch bytes everywhere the records do not cover */
	memset(e, 0xa5, d->size);
	dtcp_st32(e, d->id, r->cap.swap);
	dtcp_st64(e + d->recs[0].offset, (uint64_t)d->varid, r->cap.swap);
	memset(e + d->recs[d->nrecs - 1].offset, 0, d->recs[d->nrecs - 1].size);
	b->len += d->size;
	return e;
}

static void
pad4(struct tbuf *b)
{
	if (b->len + 4 > b->cap) {
		b->cap = b->len * 2 + 4096;
		b->p = realloc(b->p, b->cap);
	}
	memset(b->p + b->len, 0, 4);   /* DTRACE_AGGIDNONE */
	b->len += 4;
}

static void
key_int(const fake *r, const dtc_aggdesc *d, uint8_t *e, uint32_t k,
    uint64_t v)
{
	const dtc_recdesc *rd = &d->recs[k + 1];
	uint8_t *p = e + rd->offset;

	switch (rd->size) {
	case 1: p[0] = (uint8_t)v; break;
	case 2: {
		uint16_t x = (uint16_t)v;

		if (r->cap.swap)
			x = __builtin_bswap16(x);
		memcpy(p, &x, 2);
		break;
	}
	case 4: dtcp_st32(p, (uint32_t)v, r->cap.swap); break;
	case 8: dtcp_st64(p, v, r->cap.swap); break;
	default: ck_abort_msg("bad int key size");
	}
}

static void
key_str(const dtc_aggdesc *d, uint8_t *e, uint32_t k, const char *s)
{
	const dtc_recdesc *rd = &d->recs[k + 1];

	/* strings are NUL-padded to strsize in an aggregation key */
	memset(e + rd->offset, 0, rd->size);
	memcpy(e + rd->offset, s, strlen(s));
}

static void
key_pair(const fake *r, const dtc_aggdesc *d, uint8_t *e, uint32_t k,
    uint64_t pid, uint64_t addr)
{
	const dtc_recdesc *rd = &d->recs[k + 1];

	dtcp_st64(e + rd->offset, pid, r->cap.swap);
	dtcp_st64(e + rd->offset + 8, addr, r->cap.swap);
}

static void
val_word(const fake *r, const dtc_aggdesc *d, uint8_t *e, uint32_t w,
    uint64_t v)
{
	const dtc_recdesc *rd = &d->recs[d->nrecs - 1];

	ck_assert_uint_lt(w * 8, rd->size);
	dtcp_st64(e + rd->offset + 8 * w, v, r->cap.swap);
}

static uint64_t
vw(const fake *r, const dtc_aggval *v, uint32_t w)
{
	ck_assert_uint_lt(w * 8, v->size);
	ck_assert_int_eq(v->swapped, r->cap.swap);
	return dtcp_ld64(v->data + 8 * w, v->swapped);
}

static int64_t
key_i(const dtc_aggrow *row, uint32_t k)
{
	return row->keys[k].i;
}

static void
snap_ok(dtcp_aggstate *a, fake *r, int cpu, const struct tbuf *b)
{
	dtc_error err;

	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_agg_snap(a, &r->cap, cpu, b->p, b->len, &err), DTC_OK);
	ck_assert_int_eq(err.code, DTC_E_NONE);
}

static const dtc_aggprint *
printa1(dtcp_aggstate *a, fake *r, int64_t varid)
{
	dtc_error err;
	const dtc_aggprint *ap;

	dtc_error_clear(&err);
	ap = dtcp_agg_printa(a, &r->cap, &varid, 1, NULL, &err);
	ck_assert_ptr_nonnull(ap);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	return ap;
}

#define LQ_ARG(base, levels, step) \
	(((uint64_t)(step) << 48) | ((uint64_t)(levels) << 32) | \
	((uint64_t)(uint32_t)(int32_t)(base)))
#define LLQ_ARG(f, lo, hi, n) \
	(((uint64_t)(f) << 48) | ((uint64_t)(lo) << 32) | \
	((uint64_t)(hi) << 16) | (uint64_t)(n))

/* ------------------------------------------------------------------ */
/* Merging                                                             */
/* ------------------------------------------------------------------ */

START_TEST(test_layout)
{
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KSTR(10), KINT(4), KINT(2) };
	dtc_aggdesc *d = mkdesc(r, 1, 1, "a", 3, k, DTC_AGG_SUM, 8, 0);

	/* varid at 8, string at 16, int at 28 (4-aligned), short at 32 */
	ck_assert_uint_eq(d->recs[0].offset, 8);
	ck_assert_uint_eq(d->recs[1].offset, 16);
	ck_assert_uint_eq(d->recs[2].offset, 28);
	ck_assert_uint_eq(d->recs[3].offset, 32);
	ck_assert_uint_eq(d->recs[4].offset, 40);
	ck_assert_uint_eq(d->size, 48);
	free(r);
}
END_TEST

START_TEST(test_merge_scalars)
{
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *dc = mkdesc(r, 1, 1, "c", 1, k, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *dmin = mkdesc(r, 2, 2, "mn", 1, k, DTC_AGG_MIN, 8, 0);
	dtc_aggdesc *dmax = mkdesc(r, 3, 3, "mx", 1, k, DTC_AGG_MAX, 8, 0);
	dtc_aggdesc *davg = mkdesc(r, 4, 4, "av", 1, k, DTC_AGG_AVG, 16, 0);
	/* a second statement of @c: a different aggid, same variable */
	dtc_aggdesc *dc2 = mkdesc(r, 5, 1, "c", 1, k, DTC_AGG_COUNT, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b[3];
	const dtc_aggprint *ap;
	uint8_t *e;
	int cpu;

	memset(b, 0, sizeof(b));
	for (cpu = 0; cpu < 3; cpu++) {
		int64_t mm[3] = { -5, 7, INT64_MIN + 1 };

		e = ent_add(&b[cpu], r, dc);
		key_int(r, dc, e, 0, 10);
		val_word(r, dc, e, 0, (uint64_t)cpu + 1);
		pad4(&b[cpu]);
		e = ent_add(&b[cpu], r, dmin);
		key_int(r, dmin, e, 0, 10);
		val_word(r, dmin, e, 0, (uint64_t)mm[cpu]);
		e = ent_add(&b[cpu], r, dmax);
		key_int(r, dmax, e, 0, 10);
		val_word(r, dmax, e, 0, (uint64_t)mm[cpu]);
		e = ent_add(&b[cpu], r, davg);
		key_int(r, davg, e, 0, 10);
		val_word(r, davg, e, 0, 2);
		val_word(r, davg, e, 1, (uint64_t)(int64_t)(-100 * (cpu + 1)));
		e = ent_add(&b[cpu], r, dc2);
		key_int(r, dc2, e, 0, 10);
		val_word(r, dc2, e, 0, 100);
		pad4(&b[cpu]);
		pad4(&b[cpu]);
	}
	for (cpu = 0; cpu < 3; cpu++)
		snap_ok(a, r, cpu, &b[cpu]);
	/* a second snapshot of cpu 0 adds again (buffers are deltas) */
	snap_ok(a, r, 0, &b[0]);

	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 1);
	/* 1+2+3+1 from aggid 1, 4 x 100 from aggid 5: merged, no aggid */
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 7 + 400);
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 10);
	ap = printa1(a, r, 2);
	ck_assert_int_eq((int64_t)vw(r, &ap->rows[0].vals[0], 0), INT64_MIN + 1);
	ap = printa1(a, r, 3);
	ck_assert_int_eq((int64_t)vw(r, &ap->rows[0].vals[0], 0), 7);
	ap = printa1(a, r, 4);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 8);
	ck_assert_int_eq((int64_t)vw(r, &ap->rows[0].vals[0], 1), -700);
	ck_assert_uint_eq(ap->rows[0].vals[0].normal, 1);
	ck_assert_uint_eq(ap->rows[0].vals[0].func, DTC_AGG_AVG);
	ck_assert_uint_eq(ap->rows[0].vals[0].size, 16);

	for (cpu = 0; cpu < 3; cpu++)
		tbuf_free(&b[cpu]);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_merge_stddev_nocarry)
{
	fake *r = reader_new(0, 1);
	dtc_aggdesc *d = mkdesc(r, 1, 1, "sd", 0, NULL, DTC_AGG_STDDEV, 32, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b0 = { 0 }, b1 = { 0 };
	const dtc_aggprint *ap;
	uint8_t *e;

	e = ent_add(&b0, r, d);
	val_word(r, d, e, 0, 1);
	val_word(r, d, e, 1, 5);
	val_word(r, d, e, 2, UINT64_MAX);   /* low word of sum of squares */
	val_word(r, d, e, 3, 7);
	e = ent_add(&b1, r, d);
	val_word(r, d, e, 0, 2);
	val_word(r, d, e, 1, (uint64_t)-3);
	val_word(r, d, e, 2, 2);
	val_word(r, d, e, 3, 1);
	snap_ok(a, r, 0, &b0);
	snap_ok(a, r, 1, &b1);
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 1);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 3);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 1), 2);
	/* UINT64_MAX + 2 wraps to 1 and the carry is lost: 7 + 1, not 9 */
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 2), 1);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 3), 8);
	tbuf_free(&b0);
	tbuf_free(&b1);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_merge_histograms)
{
	fake *r = reader_new(0, 1);
	uint64_t larg = LQ_ARG(-10, 20, 1), llarg = LLQ_ARG(10, 0, 2, 10);
	dtc_aggdesc *dq = mkdesc(r, 1, 1, "q", 0, NULL, DTC_AGG_QUANTIZE,
	    127 * 8, 0);
	dtc_aggdesc *dl = mkdesc(r, 2, 2, "l", 0, NULL, DTC_AGG_LQUANTIZE,
	    23 * 8, larg);
	/* (10,0,2,10): 2 + 9 + 9 + 9 = 29 buckets */
	dtc_aggdesc *dll = mkdesc(r, 3, 3, "ll", 0, NULL, DTC_AGG_LLQUANTIZE,
	    30 * 8, llarg);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	uint8_t *e;
	int i;

	for (i = 0; i < 2; i++) {
		e = ent_add(&b, r, dq);
		val_word(r, dq, e, 64, 3);
		val_word(r, dq, e, 10, (uint64_t)-1);
		e = ent_add(&b, r, dl);
		/* the buffer's arg word is ignored when merging */
		val_word(r, dl, e, 0, i == 0 ? larg : 0xdead);
		val_word(r, dl, e, 1, 2);
		val_word(r, dl, e, 22, 5);
		e = ent_add(&b, r, dll);
		val_word(r, dll, e, 0, i == 0 ? llarg : 0xbeef);
		val_word(r, dll, e, 1, 1);
		val_word(r, dll, e, 29, 4);
	}
	snap_ok(a, r, 0, &b);
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 64), 6);
	ck_assert_int_eq((int64_t)vw(r, &ap->rows[0].vals[0], 10), -2);
	ap = printa1(a, r, 2);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), larg);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 1), 4);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 22), 10);
	ap = printa1(a, r, 3);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), llarg);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 1), 2);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 29), 8);
	ck_assert_uint_eq(ap->vars[0].func, DTC_AGG_LLQUANTIZE);
	ck_assert_uint_eq(ap->vars[0].arg, llarg);
	ck_assert_str_eq(ap->vars[0].name, "ll");
	ck_assert_uint_eq(ap->vars[0].nkeys, 0);
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* A big-endian capture read on this host: every word swapped. */
START_TEST(test_merge_swapped)
{
	fake *r = reader_new(1, 0);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *d = mkdesc(r, 1, 1, "s", 1, k, DTC_AGG_SUM, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	uint8_t *e;

	e = ent_add(&b, r, d);
	key_int(r, d, e, 0, 256);
	val_word(r, d, e, 0, 255);
	e = ent_add(&b, r, d);
	key_int(r, d, e, 0, 1);
	val_word(r, d, e, 0, 300);
	e = ent_add(&b, r, d);
	key_int(r, d, e, 0, 256);
	val_word(r, d, e, 0, 1);
	snap_ok(a, r, 0, &b);
	setopt(r, DTCP_OPT_AGGSORTKEY, 1);
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 2);
	/* keys compare as numbers of the capture's byte order */
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 1);
	ck_assert_int_eq(key_i(&ap->rows[1], 0), 256);
	ck_assert_uint_eq(vw(r, &ap->rows[1].vals[0], 0), 256);
	ck_assert_uint_eq(ap->rows[1].vals[0].data[7], 0);
	ck_assert_uint_eq(ap->rows[1].vals[0].data[6], 1);
	setopt(r, DTCP_OPT_AGGSORTKEY, DTC_OPT_UNSET);
	ap = printa1(a, r, 1);
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 256);   /* 256 < 300 */
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_merge_symbols)
{
	fake *r = reader_new(0, 1);
	struct tkey ks[] = { KSYM }, km[] = { KMOD }, ku[] = { KUSYM },
	    kum[] = { KUMOD }, kua[] = { KUADDR };
	dtc_aggdesc *ds = mkdesc(r, 1, 1, "s", 1, ks, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *dm = mkdesc(r, 2, 2, "m", 1, km, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *du = mkdesc(r, 3, 3, "u", 1, ku, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *dum = mkdesc(r, 4, 4, "um", 1, kum, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *dua = mkdesc(r, 5, 5, "ua", 1, kua, DTC_AGG_COUNT, 8, 0);
	uint64_t saddr[] = { 0x1010, 0x10f0, 0x1100, 0x9000, 0x1000 };
	uint64_t maddr[] = { 0x1010, 0x1150, 0x2010, 0x9000 };
	uint64_t uaddr[] = { 0x400010, 0x400020, 0x400100, 0x500000 };
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	uint8_t *e;
	size_t i;

	r->ksyms[0] = (dtcp_ksym){ 0x1000, 0x100, "genunix", "funcA" };
	r->ksyms[1] = (dtcp_ksym){ 0x1100, 0x100, "genunix", "funcB" };
	r->ksyms[2] = (dtcp_ksym){ 0x2000, 0x80, "zfs", "funcC" };
	r->cap.meta.ksyms = r->ksyms;
	r->cap.meta.nksyms = 3;
	r->usyms[0] = (dtcp_ksym){ 0x400000, 0x80, NULL, "main" };
	r->maps[0] = (dtcp_umap){ 0x400000, 0x480000, "/bin/a", 1, r->usyms };
	r->maps[1] = (dtcp_umap){ 0x700000, 0x780000, "/lib/libc.so", 0,
	    NULL };
	r->procs[0] = (dtcp_proc){ 42, "a", 2, r->maps };
	r->cap.meta.procs = r->procs;
	r->cap.meta.nprocs = 1;

	for (i = 0; i < 5; i++) {
		e = ent_add(&b, r, ds);
		key_int(r, ds, e, 0, saddr[i]);
		val_word(r, ds, e, 0, 1);
	}
	for (i = 0; i < 4; i++) {
		e = ent_add(&b, r, dm);
		key_int(r, dm, e, 0, maddr[i]);
		val_word(r, dm, e, 0, 1);
	}
	for (i = 0; i < 4; i++) {
		e = ent_add(&b, r, du);
		key_pair(r, du, e, 0, 42, uaddr[i]);
		val_word(r, du, e, 0, 1);
		e = ent_add(&b, r, dum);
		key_pair(r, dum, e, 0, 42, i == 3 ? 0x700040 : uaddr[i]);
		val_word(r, dum, e, 0, 1);
		e = ent_add(&b, r, dua);
		key_pair(r, dua, e, 0, 42, uaddr[i]);
		val_word(r, dua, e, 0, 1);
	}
	snap_ok(a, r, 0, &b);
	setopt(r, DTCP_OPT_AGGSORTKEY, 0);

	/* sym(): funcA x3 (0x1000, 0x1010, 0x10f0), funcB, unresolved */
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 3);
	ck_assert_uint_eq(ap->rows[0].keys[0].u, 0x1000);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 3);
	ck_assert_uint_eq(ap->rows[1].keys[0].u, 0x1100);
	ck_assert_uint_eq(ap->rows[2].keys[0].u, 0x9000);
	/* mod(): genunix x2 at its lowest symbol, zfs, unresolved */
	ap = printa1(a, r, 2);
	ck_assert_uint_eq(ap->nrows, 3);
	ck_assert_uint_eq(ap->rows[0].keys[0].u, 0x1000);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 2);
	ck_assert_uint_eq(ap->rows[1].keys[0].u, 0x2000);
	ck_assert_uint_eq(ap->rows[2].keys[0].u, 0x9000);
	/* usym(): main x2, 0x400100 has no symbol, 0x500000 no mapping */
	ap = printa1(a, r, 3);
	ck_assert_uint_eq(ap->nrows, 3);
	ck_assert_uint_eq(dtcp_ld64(ap->rows[0].keys[0].data + 8, 0),
	    0x400000);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 2);
	/* umod(): the three a.out addresses merge, libc separately */
	ap = printa1(a, r, 4);
	ck_assert_uint_eq(ap->nrows, 2);
	ck_assert_uint_eq(dtcp_ld64(ap->rows[0].keys[0].data + 8, 0),
	    0x400000);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 3);
	ck_assert_uint_eq(dtcp_ld64(ap->rows[1].keys[0].data + 8, 0),
	    0x700000);
	/* uaddr() is never rewritten */
	ap = printa1(a, r, 5);
	ck_assert_uint_eq(ap->nrows, 4);
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad input                                                           */
/* ------------------------------------------------------------------ */

START_TEST(test_bad_aggid)
{
	fake *r = reader_new(0, 1);
	dtc_aggdesc *d = mkdesc(r, 1, 1, "c", 0, NULL, DTC_AGG_COUNT, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	dtc_error err;
	uint8_t *e;

	e = ent_add(&b, r, d);
	val_word(r, d, e, 0, 5);
	pad4(&b);
	dtcp_st32(b.p + b.len - 4, 9, 0);   /* aggid 9: no desc */
	e = ent_add(&b, r, d);               /* never reached */
	val_word(r, d, e, 0, 100);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_agg_snap(a, &r->cap, 3, b.p, b.len, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_BADAGGID);
	ck_assert_int_eq(err.cpu, 3);
	ck_assert_int_eq(err.offset, 24);
	ck_assert_str_eq(err.source, "test.dtsnap");
	ck_assert_ptr_nonnull(strstr(err.text, "unknown aggregation id 9"));
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 1);
	ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 5);
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_bad_overrun)
{
	fake *r = reader_new(0, 1);
	dtc_aggdesc *d = mkdesc(r, 1, 1, "c", 0, NULL, DTC_AGG_COUNT, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	dtc_error err;
	uint8_t *e;

	e = ent_add(&b, r, d);
	val_word(r, d, e, 0, 5);
	e = ent_add(&b, r, d);
	val_word(r, d, e, 0, 5);
	/* the second entry is cut in its value */
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_agg_snap(a, &r->cap, 1, b.p, b.len - 4, &err),
	    DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_OVERRUN);
	ck_assert_int_eq(err.offset, 24);
	ck_assert_int_eq(err.cpu, 1);
	/* two bytes after a whole entry: not even an aggid */
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_agg_snap(a, &r->cap, 2, b.p, 26, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_OVERRUN);
	ck_assert_int_eq(err.offset, 24);
	ck_assert_uint_eq(vw(r, &printa1(a, r, 1)->rows[0].vals[0], 0), 10);
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_bad_recdesc)
{
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(8) };
	dtc_aggdesc *bad = mkdesc(r, 1, 1, "a", 1, k, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *func = mkdesc(r, 2, 2, "b", 0, NULL, 0x0799, 8, 0);
	dtc_aggdesc *good = mkdesc(r, 3, 3, "c", 0, NULL, DTC_AGG_SUM, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	dtc_error err;
	uint8_t *e;

	e = ent_add(&b, r, good);
	val_word(r, good, e, 0, 1);
	ent_add(&b, r, bad);
	/* its key now lies past the entry */
	r->recs[1][1].offset = bad->size - 4;
	ent_add(&b, r, func);
	e = ent_add(&b, r, good);
	val_word(r, good, e, 0, 2);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_agg_snap(a, &r->cap, 0, b.p, b.len, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_BADRECDESC);
	ck_assert_int_eq(err.offset, 24);
	/* the entries around the bad ones still merge */
	ck_assert_uint_eq(vw(r, &printa1(a, r, 3)->rows[0].vals[0], 0), 3);
	ck_assert_uint_eq(printa1(a, r, 1)->nrows, 0);

	/* the unknown aggregating function alone */
	tbuf_free(&b);
	ent_add(&b, r, func);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_agg_snap(a, &r->cap, 5, b.p, b.len, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_BADAGG);
	ck_assert_int_eq(err.offset, 0);
	ck_assert_int_eq(err.cpu, 5);
	ck_assert_uint_eq(printa1(a, r, 2)->nrows, 0);
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Sorting                                                             */
/* ------------------------------------------------------------------ */

/* aggs/tst.signedkeys.r: with aggsortkey, keys sort as unsigned. */
START_TEST(test_sort_signedkeys)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8 };
	static const uint64_t order[4][5] = {
		{ 0, 1, 2, 254, 255 },
		{ 0, 1, 2, 65534, 65535 },
		{ 0, 1, 2, 4294967294u, 4294967295u },
		{ 0, 1, 2, (uint64_t)-2, (uint64_t)-1 },
	};
	fake *r = reader_new(0, 1);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	size_t cursor = 0;
	int v, k, n = 0;

	for (v = 0; v < 4; v++) {
		struct tkey key = KINT(sizes[v]);
		dtc_aggdesc *d = mkdesc(r, (uint32_t)v + 1, v + 1, "i", 1, &key,
		    DTC_AGG_SUM, 8, 0);

		for (k = -2; k <= 2; k++) {
			uint8_t *e = ent_add(&b, r, d);

			key_int(r, d, e, 0, (uint64_t)(int64_t)k);
			val_word(r, d, e, 0, (uint64_t)(int64_t)k);
		}
	}
	snap_ok(a, r, 0, &b);
	setopt(r, DTCP_OPT_AGGSORTKEY, 0);   /* -x aggsortkey: 0 is set */
	while ((ap = dtcp_agg_exit_next(a, &r->cap, &cursor)) != NULL) {
		ck_assert_int_eq(ap->at_exit, 1);
		ck_assert_ptr_null(ap->fmt);
		ck_assert_int_eq(ap->vars[0].varid, n + 1);
		ck_assert_uint_eq(ap->nrows, 5);
		for (k = 0; k < 5; k++)
			ck_assert_uint_eq(ap->rows[k].keys[0].u, order[n][k]);
		n++;
	}
	ck_assert_int_eq(n, 4);
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

struct cityrow {
	const char *city;
	int i;
};

/* aggs/tst.keysort.r, the eight printings in order */
static const struct cityrow keysort_r[8][18] = {
	/* By value: */
	{ {"Amsterdam", 17}, {"Brisbane", 14}, {"Melbourne", 16},
	    {"Sydney", 15}, {"London", 13}, {"Prague", 12}, {"Calgary", 9},
	    {"Edmonton", 8}, {"Regina", 6}, {"Vancouver", 10},
	    {"Victoria", 11}, {"Winnipeg", 7}, {"Zurich", 5},
	    {"Shanghai", 4}, {"Dublin", 3}, {"London", 2}, {"Berlin", 1},
	    {"Ghent", 0} },
	/* By key, position 0: */
	{ {"Amsterdam", 17}, {"Berlin", 1}, {"Brisbane", 14},
	    {"Calgary", 9}, {"Dublin", 3}, {"Edmonton", 8}, {"Ghent", 0},
	    {"London", 2}, {"London", 13}, {"Melbourne", 16},
	    {"Prague", 12}, {"Regina", 6}, {"Shanghai", 4}, {"Sydney", 15},
	    {"Vancouver", 10}, {"Victoria", 11}, {"Winnipeg", 7},
	    {"Zurich", 5} },
	/* By key, position 1: */
	{ {"Ghent", 0}, {"Berlin", 1}, {"London", 2}, {"Dublin", 3},
	    {"Shanghai", 4}, {"Zurich", 5}, {"Regina", 6}, {"Winnipeg", 7},
	    {"Edmonton", 8}, {"Calgary", 9}, {"Vancouver", 10},
	    {"Victoria", 11}, {"Prague", 12}, {"London", 13},
	    {"Brisbane", 14}, {"Sydney", 15}, {"Melbourne", 16},
	    {"Amsterdam", 17} },
	/* By key, position 2: */
	{ {"Ghent", 0}, {"Berlin", 1}, {"Dublin", 3}, {"London", 2},
	    {"Shanghai", 4}, {"Zurich", 5}, {"Calgary", 9},
	    {"Edmonton", 8}, {"Regina", 6}, {"Vancouver", 10},
	    {"Victoria", 11}, {"Winnipeg", 7}, {"London", 13},
	    {"Prague", 12}, {"Brisbane", 14}, {"Melbourne", 16},
	    {"Sydney", 15}, {"Amsterdam", 17} },
	/* Reversed by value: */
	{ {"Ghent", 0}, {"Berlin", 1}, {"London", 2}, {"Dublin", 3},
	    {"Shanghai", 4}, {"Zurich", 5}, {"Winnipeg", 7},
	    {"Victoria", 11}, {"Vancouver", 10}, {"Regina", 6},
	    {"Edmonton", 8}, {"Calgary", 9}, {"Prague", 12},
	    {"London", 13}, {"Sydney", 15}, {"Melbourne", 16},
	    {"Brisbane", 14}, {"Amsterdam", 17} },
	/* Reversed by key, position 0: */
	{ {"Zurich", 5}, {"Winnipeg", 7}, {"Victoria", 11},
	    {"Vancouver", 10}, {"Sydney", 15}, {"Shanghai", 4},
	    {"Regina", 6}, {"Prague", 12}, {"Melbourne", 16},
	    {"London", 13}, {"London", 2}, {"Ghent", 0}, {"Edmonton", 8},
	    {"Dublin", 3}, {"Calgary", 9}, {"Brisbane", 14}, {"Berlin", 1},
	    {"Amsterdam", 17} },
	/* Reversed by key, position 1: */
	{ {"Amsterdam", 17}, {"Melbourne", 16}, {"Sydney", 15},
	    {"Brisbane", 14}, {"London", 13}, {"Prague", 12},
	    {"Victoria", 11}, {"Vancouver", 10}, {"Calgary", 9},
	    {"Edmonton", 8}, {"Winnipeg", 7}, {"Regina", 6}, {"Zurich", 5},
	    {"Shanghai", 4}, {"Dublin", 3}, {"London", 2}, {"Berlin", 1},
	    {"Ghent", 0} },
	/* Reversed by key, position 2: */
	{ {"Amsterdam", 17}, {"Sydney", 15}, {"Melbourne", 16},
	    {"Brisbane", 14}, {"Prague", 12}, {"London", 13},
	    {"Winnipeg", 7}, {"Victoria", 11}, {"Vancouver", 10},
	    {"Regina", 6}, {"Edmonton", 8}, {"Calgary", 9}, {"Zurich", 5},
	    {"Shanghai", 4}, {"London", 2}, {"Dublin", 3}, {"Berlin", 1},
	    {"Ghent", 0} },
};

/* aggs/tst.keysort.d: @tour[city, i++, j] = sum(5 - j) */
START_TEST(test_sort_keysort)
{
	static const char *const cities[] = { "Ghent", "Berlin", "London",
	    "Dublin", "Shanghai", "Zurich", "Regina", "Winnipeg", "Edmonton",
	    "Calgary", "Vancouver", "Victoria", "Prague", "London",
	    "Brisbane", "Sydney", "Melbourne", "Amsterdam" };
	static const int js[] = { 0, 1, 2, 2, 3, 4, 5, 5, 5, 5, 5, 5, 6, 6,
	    7, 7, 7, 8 };
	/* (aggsortkey, aggsortkeypos, aggsortrev) of the eight printas */
	static const int opts[8][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 },
	    { 1, 2, 0 }, { 0, 0, 1 }, { 1, 0, 1 }, { 1, 1, 1 }, { 1, 2, 1 } };
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KSTR(256), KINT(4), KINT(4) };
	dtc_aggdesc *d = mkdesc(r, 1, 1, "tour", 3, k, DTC_AGG_SUM, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	int i, p;

	for (i = 0; i < 18; i++) {
		uint8_t *e = ent_add(&b, r, d);

		key_str(d, e, 0, cities[i]);
		key_int(r, d, e, 1, (uint64_t)i);
		key_int(r, d, e, 2, (uint64_t)js[i]);
		val_word(r, d, e, 0, (uint64_t)(int64_t)(5 - js[i]));
	}
	snap_ok(a, r, 0, &b);
	for (p = 0; p < 8; p++) {
		/* "false" and "0" unset aggsortkey/keypos at run time */
		setopt(r, DTCP_OPT_AGGSORTKEY, opts[p][0] ? 0 : DTC_OPT_UNSET);
		setopt(r, DTCP_OPT_AGGSORTKEYPOS, opts[p][1]);
		setopt(r, DTCP_OPT_AGGSORTREV, opts[p][2] ? 0 : DTC_OPT_UNSET);
		ap = printa1(a, r, 1);
		ck_assert_uint_eq(ap->nrows, 18);
		for (i = 0; i < 18; i++) {
			const dtc_aggrow *row = &ap->rows[i];

			ck_assert_msg(strcmp((const char *)row->keys[0].data,
			    keysort_r[p][i].city) == 0 &&
			    row->keys[1].i == keysort_r[p][i].i,
			    "printing %d row %d: %s %lld, expected %s %d", p, i,
			    (const char *)row->keys[0].data,
			    (long long)row->keys[1].i, keysort_r[p][i].city,
			    keysort_r[p][i].i);
			ck_assert_int_eq((int64_t)vw(r, &row->vals[0], 0),
			    5 - row->keys[2].i);
		}
	}
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* aggs/tst.negorder: keyed quantize/lquantize/sum/max/min, weights -12..12 */
START_TEST(test_sort_negorder)
{
	static const int order[24] = { 2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11,
	    14, 16, 18, 20, 22, 24, 13, 15, 17, 19, 21, 23 };
	uint64_t larg = LQ_ARG(-10, 20, 1);
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *d[5];
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	int incr[25], i, v, val = -7 * 13 + 7, n = 0;

	d[0] = mkdesc(r, 1, 1, "quanty", 1, k, DTC_AGG_QUANTIZE, 1016, 0);
	d[1] = mkdesc(r, 2, 2, "lquanty", 1, k, DTC_AGG_LQUANTIZE, 23 * 8,
	    larg);
	d[2] = mkdesc(r, 3, 3, "summy", 1, k, DTC_AGG_SUM, 8, 0);
	d[3] = mkdesc(r, 4, 4, "maxxy", 1, k, DTC_AGG_MAX, 8, 0);
	d[4] = mkdesc(r, 5, 5, "minny", 1, k, DTC_AGG_MIN, 8, 0);
	/* the script's weights: incr = val % 13, val += 7, skipping 0 */
	for (;;) {
		int in = val % 13;

		val += 7;
		if (val == 0)
			val += 7;
		if (in == 0)
			break;
		incr[++n] = in;
	}
	ck_assert_int_eq(n, 24);
	for (i = 1; i <= 24; i++) {
		for (v = 0; v < 5; v++) {
			uint8_t *e = ent_add(&b, r, d[v]);

			key_int(r, d[v], e, 0, (uint64_t)i);
			if (v == 0)        /* quantize(1, incr): bucket of 1 */
				val_word(r, d[v], e, 64, (uint64_t)incr[i]);
			else if (v == 1) { /* lquantize(1,-10,10,1,incr) */
				val_word(r, d[v], e, 0, larg);
				val_word(r, d[v], e, 1 + 1 + 11,
				    (uint64_t)incr[i]);
			} else
				val_word(r, d[v], e, 0, (uint64_t)incr[i]);
		}
	}
	snap_ok(a, r, 0, &b);
	for (v = 0; v < 5; v++) {
		const dtc_aggprint *ap = printa1(a, r, v + 1);

		ck_assert_uint_eq(ap->nrows, 24);
		for (i = 0; i < 24; i++)
			ck_assert_int_eq(key_i(&ap->rows[i], 0), order[i]);
	}
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/*
 * aggs/tst.llquantize_sort.d with legacy llquantize (KD-11): values below
 * factor^low all fall in bucket 0 (weight factor^low - 1 = 0).
 *   normal (2,0,1,2): buckets <1, 1, 2..3, >=4 (weights 0, 1, 2, 4)
 *   tricky (2,0,1,4): buckets <1, 1, 2, 3, >=4 (weights 0, 1, 2, 3, 4)
 * Order: weighted sum, then bucket 0's count, then the key.
 */
START_TEST(test_sort_llquantize)
{
	static const char keys[] = "rzvxquytpws";
	static const int vals[] = { 2, -4, 0, -2, 3, 0, -3, 0, 4, -1, 1 };
	static const int wts[] = { 1, 1, 1, 1, 1, 2, 1, 2, 1, 1, 1 };
	static const char *const expect[2] = { "vwxyztusqrp", "vwxyztusrqp" };
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KSTR(8 + 1) };
	dtc_aggdesc *d[2];
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	int i, v;

	d[0] = mkdesc(r, 1, 1, "normal", 1, k, DTC_AGG_LLQUANTIZE, 5 * 8,
	    LLQ_ARG(2, 0, 1, 2));
	d[1] = mkdesc(r, 2, 2, "tricky", 1, k, DTC_AGG_LLQUANTIZE, 6 * 8,
	    LLQ_ARG(2, 0, 1, 4));
	for (v = 0; v < 2; v++) {
		for (i = 0; i < 11; i++) {
			uint8_t *e = ent_add(&b, r, d[v]);
			char key[2] = { keys[i], 0 };
			int bucket;

			if (vals[i] < 1)
				bucket = 0;
			else if (vals[i] >= 4)
				bucket = v == 0 ? 3 : 4;
			else
				bucket = v == 0 ? (vals[i] == 1 ? 1 : 2) :
				    vals[i];
			key_str(d[v], e, 0, key);
			val_word(r, d[v], e, 0, d[v]->recs[2].arg);
			val_word(r, d[v], e, 1 + (uint32_t)bucket,
			    (uint64_t)wts[i]);
		}
	}
	snap_ok(a, r, 0, &b);
	for (v = 0; v < 2; v++) {
		const dtc_aggprint *ap = printa1(a, r, v + 1);
		char got[12];

		ck_assert_uint_eq(ap->nrows, 11);
		for (i = 0; i < 11; i++)
			got[i] = (char)ap->rows[i].keys[0].data[0];
		got[11] = 0;
		ck_assert_str_eq(got, expect[v]);
	}
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_sort_avg_stddev)
{
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *da = mkdesc(r, 1, 1, "a", 1, k, DTC_AGG_AVG, 16, 0);
	dtc_aggdesc *ds = mkdesc(r, 2, 2, "s", 1, k, DTC_AGG_STDDEV, 32, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	uint8_t *e;

	/* avg: key 1 = -7/2 = -3 (signed), key 2 = 10/4 = 2, key 3 count 0 */
	e = ent_add(&b, r, da);
	key_int(r, da, e, 0, 1);
	val_word(r, da, e, 0, 2);
	val_word(r, da, e, 1, (uint64_t)-7);
	e = ent_add(&b, r, da);
	key_int(r, da, e, 0, 2);
	val_word(r, da, e, 0, 4);
	val_word(r, da, e, 1, 10);
	e = ent_add(&b, r, da);
	key_int(r, da, e, 0, 3);
	/* stddev of {2,4,4,4,5,5,7,9} is 2; of {10, 20} is 5; {1} is 0 */
	e = ent_add(&b, r, ds);
	key_int(r, ds, e, 0, 1);
	val_word(r, ds, e, 0, 8);
	val_word(r, ds, e, 1, 40);
	val_word(r, ds, e, 2, 232);
	e = ent_add(&b, r, ds);
	key_int(r, ds, e, 0, 2);
	val_word(r, ds, e, 0, 2);
	val_word(r, ds, e, 1, 30);
	val_word(r, ds, e, 2, 500);
	e = ent_add(&b, r, ds);
	key_int(r, ds, e, 0, 3);
	val_word(r, ds, e, 0, 1);
	val_word(r, ds, e, 1, 1000);
	val_word(r, ds, e, 2, 1000000);
	snap_ok(a, r, 0, &b);
	ap = printa1(a, r, 1);
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 1);
	ck_assert_int_eq(key_i(&ap->rows[1], 0), 3);
	ck_assert_int_eq(key_i(&ap->rows[2], 0), 2);
	ap = printa1(a, r, 2);
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 3);
	ck_assert_int_eq(key_i(&ap->rows[1], 0), 1);
	ck_assert_int_eq(key_i(&ap->rows[2], 0), 2);
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Joined printa                                                       */
/* ------------------------------------------------------------------ */

/* multiaggs/tst.sortpos: printa(@a, @b, @c, @a, @d, @a), aggsortpos 0..9 */
START_TEST(test_joined_sortpos)
{
	static const int start[10] = { 1, 75, 50, 1, 25, 1, 1, 1, 1, 1 };
	static const int off[4] = { 0, 25, 50, 75 };
	static const int64_t args[6] = { 1, 2, 3, 1, 4, 1 };
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *d[4];
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	int i, v, p, j, x;

	for (v = 0; v < 4; v++)
		d[v] = mkdesc(r, (uint32_t)v + 1, v + 1, "x", 1, k,
		    DTC_AGG_SUM, 8, 0);
	for (i = 1; i <= 100; i++) {
		for (v = 0; v < 4; v++) {
			uint8_t *e = ent_add(&b, r, d[v]);

			key_int(r, d[v], e, 0, (uint64_t)i);
			/* @a[i] = sum(i); the others (25 + i) % 100 ... */
			val_word(r, d[v], e, 0,
			    (uint64_t)(v == 0 ? i : (off[v] + i) % 100));
		}
	}
	for (i = 0; i < 4; i++)
		snap_ok(a, r, i, &b);
	for (p = 0; p < 10; p++) {
		const dtc_aggprint *ap;
		dtc_error err;

		setopt(r, DTCP_OPT_AGGSORTPOS, p);
		dtc_error_clear(&err);
		ap = dtcp_agg_printa(a, &r->cap, args, 6, NULL, &err);
		ck_assert_ptr_nonnull(ap);
		ck_assert_uint_eq(ap->nvars, 6);
		ck_assert_uint_eq(ap->nrows, 100);
		for (j = 0; j < 100; j++) {
			const dtc_aggrow *row = &ap->rows[j];
			int key = (start[p] - 1 + j) % 100 + 1;

			ck_assert_msg(key_i(row, 0) == key,
			    "aggsortpos %d row %d: key %lld, expected %d", p, j,
			    (long long)key_i(row, 0), key);
			/* values in printa order, whatever the rotation */
			for (x = 0; x < 6; x++) {
				int vv = (int)args[x] - 1;
				int64_t want = 4 * ((off[vv] + key) % 100);

				if (vv == 0)
					want = 4 * key;
				ck_assert_int_eq((int64_t)vw(r, &row->vals[x], 0),
				    want);
			}
			ck_assert_int_eq(row->var->varid, 1);
		}
		for (x = 0; x < 6; x++)
			ck_assert_int_eq(ap->vars[x].varid, args[x]);
	}
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* multiaggs/tst.zero: columns of variables lacking the key are zero */
START_TEST(test_joined_zero)
{
	/* ids in order of first appearance: bop, baz, foo, bar */
	uint64_t larg = LQ_ARG(-10, 20, 1);
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *dfoo, *dbar, *dfoo2, *dbar2;
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	static const int64_t v2[] = { 3, 4 }, v3[] = { 3, 4, 1 },
	    v4[] = { 3, 4, 1, 2 };
	static const int keys[3] = { 456, 123, 789 };
	static const uint64_t foo[3] = { 0, 123, 789 }, bar[3] = { 456, 0, 789 };
	const dtc_aggprint *ap;
	dtc_error err;
	uint8_t *e;
	size_t cursor = 0;
	int i;

	mkdesc(r, 1, 1, "bop", 1, k, DTC_AGG_QUANTIZE, 1016, 0);
	mkdesc(r, 2, 2, "baz", 1, k, DTC_AGG_LQUANTIZE, 23 * 8, larg);
	dfoo = mkdesc(r, 3, 3, "foo", 1, k, DTC_AGG_SUM, 8, 0);
	dbar = mkdesc(r, 4, 4, "bar", 1, k, DTC_AGG_SUM, 8, 0);
	dfoo2 = mkdesc(r, 5, 3, "foo", 1, k, DTC_AGG_SUM, 8, 0);
	dbar2 = mkdesc(r, 6, 4, "bar", 1, k, DTC_AGG_SUM, 8, 0);
	e = ent_add(&b, r, dfoo);
	key_int(r, dfoo, e, 0, 123);
	val_word(r, dfoo, e, 0, 123);
	e = ent_add(&b, r, dbar);
	key_int(r, dbar, e, 0, 456);
	val_word(r, dbar, e, 0, 456);
	e = ent_add(&b, r, dfoo2);
	key_int(r, dfoo2, e, 0, 789);
	val_word(r, dfoo2, e, 0, 789);
	e = ent_add(&b, r, dbar2);
	key_int(r, dbar2, e, 0, 789);
	val_word(r, dbar2, e, 0, 789);
	snap_ok(a, r, 0, &b);

	dtc_error_clear(&err);
	ap = dtcp_agg_printa(a, &r->cap, v2, 2, NULL, &err);
	ck_assert_uint_eq(ap->nrows, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(key_i(&ap->rows[i], 0), keys[i]);
		ck_assert_uint_eq(vw(r, &ap->rows[i].vals[0], 0), foo[i]);
		ck_assert_uint_eq(vw(r, &ap->rows[i].vals[1], 0), bar[i]);
	}
	ap = dtcp_agg_printa(a, &r->cap, v3, 3, NULL, &err);
	ck_assert_uint_eq(ap->nrows, 3);
	ck_assert_str_eq(ap->vars[2].name, "bop");
	ck_assert_uint_eq(ap->vars[2].func, DTC_AGG_QUANTIZE);
	for (i = 0; i < 3; i++) {
		const dtc_aggval *q = &ap->rows[i].vals[2];
		uint32_t w;

		ck_assert_int_eq(key_i(&ap->rows[i], 0), keys[i]);
		ck_assert_uint_eq(q->func, DTC_AGG_QUANTIZE);
		ck_assert_uint_eq(q->size, 1016);
		for (w = 0; w < 127; w++)
			ck_assert_uint_eq(vw(r, q, w), 0);
	}
	ap = dtcp_agg_printa(a, &r->cap, v4, 4, NULL, &err);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	ck_assert_uint_eq(ap->nrows, 3);
	for (i = 0; i < 3; i++) {
		const dtc_aggval *l = &ap->rows[i].vals[3];

		ck_assert_int_eq(key_i(&ap->rows[i], 0), keys[i]);
		ck_assert_uint_eq(l->func, DTC_AGG_LQUANTIZE);
		/* the parameters come from the aggdesc: no entry has any */
		ck_assert_uint_eq(vw(r, l, 0), larg);
		ck_assert_uint_eq(vw(r, l, 1), 0);
		ck_assert_uint_eq(l->normal, 1);
	}
	/* everything that had entries was printed: nothing at exit */
	ck_assert_ptr_null(dtcp_agg_exit_next(a, &r->cap, &cursor));
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* Zero fill keeps the histogram parameters of a real entry. */
START_TEST(test_joined_zero_params)
{
	uint64_t larg = LQ_ARG(0, 10, 2), llarg = LLQ_ARG(10, 0, 1, 10);
	int os;

	for (os = 0; os < 2; os++) {
		fake *r = reader_new(0, os);
		struct tkey k[] = { KINT(8) };
		dtc_aggdesc *dl = mkdesc(r, 1, 1, "l", 1, k, DTC_AGG_LQUANTIZE,
		    13 * 8, 0);
		dtc_aggdesc *dll = mkdesc(r, 2, 2, "ll", 1, k,
		    DTC_AGG_LLQUANTIZE, 20 * 8, 0);
		dtcp_aggstate *a = dtcp_agg_new();
		struct tbuf b = { 0 };
		static const int64_t vv[] = { 1, 2 };
		const dtc_aggprint *ap;
		dtc_error err;
		uint8_t *e;

		/* key 1 only in @l, key 2 only in @ll */
		e = ent_add(&b, r, dl);
		key_int(r, dl, e, 0, 1);
		val_word(r, dl, e, 0, larg);
		val_word(r, dl, e, 3, 1);
		e = ent_add(&b, r, dll);
		key_int(r, dll, e, 0, 2);
		val_word(r, dll, e, 0, llarg);
		val_word(r, dll, e, 3, 1);
		snap_ok(a, r, 0, &b);
		dtc_error_clear(&err);
		ap = dtcp_agg_printa(a, &r->cap, vv, 2, NULL, &err);
		ck_assert_uint_eq(ap->nrows, 2);
		/* key 2 first: its zero-filled @l sums to 0, key 1's to 2 */
		ck_assert_int_eq(key_i(&ap->rows[0], 0), 2);
		/* lquantize's word comes from the entry, on both OSes */
		ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), larg);
		ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 3), 0);
		/* llquantize's only on illumos */
		ck_assert_int_eq(key_i(&ap->rows[1], 0), 1);
		ck_assert_uint_eq(vw(r, &ap->rows[1].vals[1], 0),
		    os ? llarg : 0);
		tbuf_free(&b);
		dtcp_agg_free(a);
		free(r);
	}
}
END_TEST

/*
 * aggsortpos with a variable that has no entry at all: its column is the
 * zero of its own first aggdesc (libdtrace would look up the variable at
 * the opposite rotation here; see agg.c).
 */
START_TEST(test_joined_sortpos_empty)
{
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *da = mkdesc(r, 1, 1, "a", 1, k, DTC_AGG_SUM, 8, 0);
	dtc_aggdesc *db = mkdesc(r, 2, 2, "b", 1, k, DTC_AGG_COUNT, 8, 0);
	static const int64_t vv[] = { 1, 2, 3 };
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	dtc_error err;
	uint8_t *e;
	int i, p;

	mkdesc(r, 3, 3, "c", 1, k, DTC_AGG_QUANTIZE, 1016, 0);
	for (i = 1; i <= 3; i++) {
		e = ent_add(&b, r, da);
		key_int(r, da, e, 0, (uint64_t)i);
		val_word(r, da, e, 0, (uint64_t)(10 - i));
		e = ent_add(&b, r, db);
		key_int(r, db, e, 0, (uint64_t)i);
		val_word(r, db, e, 0, (uint64_t)i);
	}
	snap_ok(a, r, 0, &b);
	for (p = 0; p < 3; p++) {
		setopt(r, DTCP_OPT_AGGSORTPOS, p);
		dtc_error_clear(&err);
		ap = dtcp_agg_printa(a, &r->cap, vv, 3, NULL, &err);
		ck_assert_ptr_nonnull(ap);
		ck_assert_uint_eq(ap->nrows, 3);
		for (i = 0; i < 3; i++) {
			const dtc_aggrow *row = &ap->rows[i];
			/*
			 * position 0 @a: 9, 8, 7 (key 3 first); 1 @b: key 1
			 * first; 2: the all-zero @c ties, then @a decides
			 */
			int want = p == 1 ? i + 1 : 3 - i;

			ck_assert_int_eq(key_i(row, 0), want);
			ck_assert_uint_eq(row->vals[0].func, DTC_AGG_SUM);
			ck_assert_uint_eq(row->vals[1].func, DTC_AGG_COUNT);
			ck_assert_uint_eq(row->vals[2].func, DTC_AGG_QUANTIZE);
			ck_assert_uint_eq(row->vals[2].size, 1016);
			ck_assert_uint_eq(vw(r, &row->vals[1], 0), (uint64_t)want);
		}
		ck_assert_str_eq(ap->vars[2].name, "c");
	}
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_joined_empty)
{
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	static const int64_t vv[] = { 1, 2 };
	dtcp_aggstate *a = dtcp_agg_new();
	const dtc_aggprint *ap;
	dtc_error err;

	/* multiaggs/tst.zero3: no entries at all, nothing printed */
	mkdesc(r, 1, 1, "bop", 1, k, DTC_AGG_QUANTIZE, 1016, 0);
	mkdesc(r, 2, 2, "baz", 1, k, DTC_AGG_LQUANTIZE, 23 * 8,
	    LQ_ARG(-10, 20, 1));
	dtc_error_clear(&err);
	ap = dtcp_agg_printa(a, &r->cap, vv, 2, NULL, &err);
	ck_assert_ptr_nonnull(ap);
	ck_assert_uint_eq(ap->nrows, 0);
	ck_assert_str_eq(ap->vars[1].name, "baz");
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 0);
	ck_assert_str_eq(ap->vars[0].name, "bop");
	ck_assert_uint_eq(ap->vars[0].nkeys, 1);
	/* a bad variable id */
	dtc_error_clear(&err);
	ck_assert_ptr_null(dtcp_agg_printa(a, &r->cap, (const int64_t[]){ 0 }, 1,
	    NULL, &err));
	ck_assert_int_eq(err.code, DTC_E_BADVALUE);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Library actions and the end of the run                             */
/* ------------------------------------------------------------------ */

static void
fill_sum100(fake *r, dtcp_aggstate *a)
{
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *d = mkdesc(r, 1, 1, "", 1, k, DTC_AGG_SUM, 8, 0);
	struct tbuf b = { 0 };
	int i;

	/* aggs/tst.trunc.d: @[i] = sum(i), i = 0..99 */
	for (i = 0; i < 100; i++) {
		uint8_t *e = ent_add(&b, r, d);

		key_int(r, d, e, 0, (uint64_t)i);
		val_word(r, d, e, 0, (uint64_t)i);
	}
	snap_ok(a, r, i % 4, &b);
	tbuf_free(&b);
}

START_TEST(test_trunc)
{
	static const int64_t n[] = { 10, -10, 0, 1000, -1000 };
	static const int first[] = { 90, 0, -1, 0, 0 };
	static const size_t count[] = { 10, 10, 0, 100, 100 };
	int t;

	for (t = 0; t < 5; t++) {
		fake *r = reader_new(0, 1);
		dtcp_aggstate *a = dtcp_agg_new();
		const dtc_aggprint *ap;
		size_t cursor = 0, i;

		fill_sum100(r, a);
		/* trunc ignores aggsortrev: it passes its own comparator */
		setopt(r, DTCP_OPT_AGGSORTREV, 0);
		dtcp_agg_trunc(a, &r->cap, 1, n[t]);
		setopt(r, DTCP_OPT_AGGSORTREV, DTC_OPT_UNSET);
		ap = dtcp_agg_exit_next(a, &r->cap, &cursor);
		if (count[t] == 0) {
			ck_assert_ptr_null(ap);
		} else {
			ck_assert_uint_eq(ap->nrows, count[t]);
			for (i = 0; i < count[t]; i++)
				ck_assert_int_eq(key_i(&ap->rows[i], 0),
				    first[t] + (int)i);
			ck_assert_ptr_null(dtcp_agg_exit_next(a, &r->cap, &cursor));
		}
		/* removed keys come back as new entries */
		fill_sum100(r, a);
		ap = printa1(a, r, 1);
		ck_assert_uint_eq(ap->nrows, 100);
		ck_assert_uint_eq(vw(r, &ap->rows[99].vals[0], 0),
		    (n[t] > 0 || n[t] < -99) ? 198 : 99);
		dtcp_agg_free(a);
		free(r);
	}
}
END_TEST

/* aggs/tst.clear: printa, clear, printa of zeros, new data, printa */
START_TEST(test_clear)
{
	static const uint64_t v1[5] = { 500, 700, 900, 1100, 1300 };
	static const uint64_t v3[5] = { 1500, 2700, 2900, 3100, 3300 };
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *d = mkdesc(r, 1, 1, "func", 1, k, DTC_AGG_SUM, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	size_t cursor = 0;
	int i;

	for (i = 0; i < 10; i++) {
		uint8_t *e = ent_add(&b, r, d);

		key_int(r, d, e, 0, (uint64_t)(i % 5));
		val_word(r, d, e, 0, (uint64_t)i * 100);
	}
	snap_ok(a, r, 0, &b);
	ap = printa1(a, r, 1);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(key_i(&ap->rows[i], 0), i);
		ck_assert_uint_eq(vw(r, &ap->rows[i].vals[0], 0), v1[i]);
	}
	dtcp_agg_clear(a, &r->cap, 1);
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 5);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(key_i(&ap->rows[i], 0), i);
		ck_assert_uint_eq(vw(r, &ap->rows[i].vals[0], 0), 0);
	}
	tbuf_free(&b);
	for (i = 11; i < 20; i++) {
		uint8_t *e = ent_add(&b, r, d);

		key_int(r, d, e, 0, (uint64_t)(i % 5));
		val_word(r, d, e, 0, (uint64_t)i * 100);
	}
	snap_ok(a, r, 1, &b);
	ap = printa1(a, r, 1);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(key_i(&ap->rows[i], 0), i);
		ck_assert_uint_eq(vw(r, &ap->rows[i].vals[0], 0), v3[i]);
	}
	/* printa()ed: not printed again at exit */
	ck_assert_ptr_null(dtcp_agg_exit_next(a, &r->cap, &cursor));
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

START_TEST(test_clear_histograms)
{
	uint64_t larg = LQ_ARG(0, 4, 1), llarg = LLQ_ARG(10, 0, 1, 10);
	int os;

	for (os = 0; os < 2; os++) {
		fake *r = reader_new(0, os);
		dtc_aggdesc *dl = mkdesc(r, 1, 1, "l", 0, NULL,
		    DTC_AGG_LQUANTIZE, 7 * 8, larg);
		dtc_aggdesc *dll = mkdesc(r, 2, 2, "ll", 0, NULL,
		    DTC_AGG_LLQUANTIZE, 20 * 8, llarg);
		dtc_aggdesc *dq = mkdesc(r, 3, 3, "q", 0, NULL,
		    DTC_AGG_QUANTIZE, 1016, 0);
		dtcp_aggstate *a = dtcp_agg_new();
		struct tbuf b = { 0 };
		const dtc_aggprint *ap;
		uint8_t *e;
		int v;

		e = ent_add(&b, r, dl);
		val_word(r, dl, e, 0, larg);
		val_word(r, dl, e, 2, 9);
		e = ent_add(&b, r, dll);
		val_word(r, dll, e, 0, llarg);
		val_word(r, dll, e, 2, 9);
		e = ent_add(&b, r, dq);
		val_word(r, dq, e, 0, 9);
		snap_ok(a, r, 0, &b);
		for (v = 1; v <= 3; v++)
			dtcp_agg_clear(a, &r->cap, v);
		ap = printa1(a, r, 1);
		ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), larg);
		ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 2), 0);
		ap = printa1(a, r, 2);
		/* FreeBSD's clear() zeroes llquantize's parameters too */
		ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0),
		    os ? llarg : 0);
		ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 2), 0);
		ap = printa1(a, r, 3);
		ck_assert_uint_eq(vw(r, &ap->rows[0].vals[0], 0), 0);
		tbuf_free(&b);
		dtcp_agg_free(a);
		free(r);
	}
}
END_TEST

START_TEST(test_normalize)
{
	fake *r = reader_new(0, 1);
	dtcp_aggstate *a = dtcp_agg_new();
	const dtc_aggprint *ap;
	size_t i;
	int newest = -1;

	fill_sum100(r, a);
	dtcp_agg_normalize(a, 1, 5);
	dtcp_agg_normalize(a, 2, 7);   /* another variable: no effect */
	ap = printa1(a, r, 1);
	for (i = 0; i < ap->nrows; i++)
		ck_assert_uint_eq(ap->rows[i].vals[0].normal, 5);
	/* normalize(@, 0): the newest entry gets 1, the walk stops there */
	dtcp_agg_normalize(a, 1, 0);
	ap = printa1(a, r, 1);
	for (i = 0; i < ap->nrows; i++) {
		if (ap->rows[i].vals[0].normal == 1) {
			ck_assert_int_eq(newest, -1);
			newest = (int)key_i(&ap->rows[i], 0);
		} else {
			ck_assert_uint_eq(ap->rows[i].vals[0].normal, 5);
		}
	}
	ck_assert_int_eq(newest, 99);
	/* normalization does not change the order */
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 0);
	dtcp_agg_denormalize(a, 1);
	ap = printa1(a, r, 1);
	for (i = 0; i < ap->nrows; i++)
		ck_assert_uint_eq(ap->rows[i].vals[0].normal, 1);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/*
 * The printed flag belongs to the aggdesc (aggid): an entry of another
 * statement of a printed variable still prints at exit.  aggsortrev
 * reverses the variable order of the exit walk too.
 */
START_TEST(test_exit_printed)
{
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(4) };
	dtc_aggdesc *a1 = mkdesc(r, 1, 1, "a", 1, k, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *b1 = mkdesc(r, 2, 2, "b", 1, k, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *c1 = mkdesc(r, 3, 3, "c", 1, k, DTC_AGG_COUNT, 8, 0);
	dtc_aggdesc *a2 = mkdesc(r, 4, 1, "a", 1, k, DTC_AGG_COUNT, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b = { 0 };
	const dtc_aggprint *ap;
	size_t cursor = 0;
	uint8_t *e;
	int i;

	for (i = 1; i <= 2; i++) {
		e = ent_add(&b, r, a1);
		key_int(r, a1, e, 0, (uint64_t)i);
		val_word(r, a1, e, 0, 1);
		e = ent_add(&b, r, b1);
		key_int(r, b1, e, 0, (uint64_t)i);
		val_word(r, b1, e, 0, (uint64_t)i);
		e = ent_add(&b, r, c1);
		key_int(r, c1, e, 0, (uint64_t)i);
		val_word(r, c1, e, 0, (uint64_t)i);
	}
	snap_ok(a, r, 0, &b);
	ck_assert_uint_eq(printa1(a, r, 1)->nrows, 2);
	tbuf_free(&b);
	/* after the printa, aggid 4 of @a adds key 1 (merges) and key 3 */
	e = ent_add(&b, r, a2);
	key_int(r, a2, e, 0, 1);
	val_word(r, a2, e, 0, 1);
	e = ent_add(&b, r, a2);
	key_int(r, a2, e, 0, 3);
	val_word(r, a2, e, 0, 1);
	snap_ok(a, r, 0, &b);

	setopt(r, DTCP_OPT_AGGSORTREV, 0);
	ap = dtcp_agg_exit_next(a, &r->cap, &cursor);
	ck_assert_int_eq(ap->vars[0].varid, 3);
	ck_assert_str_eq(ap->vars[0].name, "c");
	ck_assert_uint_eq(ap->nrows, 2);
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 2);
	ap = dtcp_agg_exit_next(a, &r->cap, &cursor);
	ck_assert_int_eq(ap->vars[0].varid, 2);
	ap = dtcp_agg_exit_next(a, &r->cap, &cursor);
	ck_assert_int_eq(ap->vars[0].varid, 1);
	ck_assert_uint_eq(ap->nrows, 1);
	ck_assert_int_eq(key_i(&ap->rows[0], 0), 3);
	ck_assert_ptr_null(dtcp_agg_exit_next(a, &r->cap, &cursor));
	tbuf_free(&b);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

/* 100k distinct keys on 4 CPUs, twice: merge and order, not timing. */
START_TEST(test_large)
{
	const uint32_t n = 100000;
	fake *r = reader_new(0, 1);
	struct tkey k[] = { KINT(8), KSTR(12) };
	dtc_aggdesc *d = mkdesc(r, 1, 1, "big", 2, k, DTC_AGG_SUM, 8, 0);
	dtcp_aggstate *a = dtcp_agg_new();
	struct tbuf b[4];
	const dtc_aggprint *ap;
	uint32_t i;
	int cpu, pass;

	memset(b, 0, sizeof(b));
	for (cpu = 0; cpu < 4; cpu++) {
		for (i = 0; i < n; i++) {
			/* a permutation of 0..n-1, different per CPU */
			uint32_t key = (i * 7919u + (uint32_t)cpu * 31u) % n;
			uint8_t *e = ent_add(&b[cpu], r, d);
			char s[12];

			snprintf(s, sizeof(s), "k%u", key % 1000);
			key_int(r, d, e, 0, key);
			key_str(d, e, 1, s);
			val_word(r, d, e, 0, (uint64_t)(cpu + 1) * key);
			if (i % 1000 == 0)
				pad4(&b[cpu]);
		}
	}
	for (pass = 0; pass < 2; pass++)
		for (cpu = 0; cpu < 4; cpu++)
			snap_ok(a, r, cpu, &b[cpu]);
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, n);
	for (i = 0; i < n; i++) {
		/* 2 x (1+2+3+4) x key, ascending by value */
		ck_assert_uint_eq(ap->rows[i].keys[0].u, i);
		ck_assert_uint_eq(vw(r, &ap->rows[i].vals[0], 0), 20ull * i);
	}
	dtcp_agg_trunc(a, &r->cap, 1, 5);
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, 5);
	ck_assert_uint_eq(ap->rows[0].keys[0].u, n - 5);
	/* the arena was compacted: the survivors still merge, the rest
	 * come back as new entries */
	snap_ok(a, r, 1, &b[1]);
	ap = printa1(a, r, 1);
	ck_assert_uint_eq(ap->nrows, n);
	/* new entries 2 x key first, then the survivors at 22 x key */
	ck_assert_uint_eq(ap->rows[n - 6].keys[0].u, n - 6);
	ck_assert_uint_eq(vw(r, &ap->rows[n - 6].vals[0], 0), 2ull * (n - 6));
	ck_assert_uint_eq(ap->rows[n - 5].keys[0].u, n - 5);
	ck_assert_uint_eq(vw(r, &ap->rows[n - 5].vals[0], 0), 22ull * (n - 5));
	ck_assert_uint_eq(ap->rows[n - 1].keys[0].u, n - 1);
	ck_assert_uint_eq(vw(r, &ap->rows[n - 1].vals[0], 0), 22ull * (n - 1));
	for (cpu = 0; cpu < 4; cpu++)
		tbuf_free(&b[cpu]);
	dtcp_agg_free(a);
	free(r);
}
END_TEST

static Suite *
agg_suite(void)
{
	Suite *s = suite_create("agg");
	TCase *tc;

	tc = tcase_create("merge");
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_merge_scalars);
	tcase_add_test(tc, test_merge_stddev_nocarry);
	tcase_add_test(tc, test_merge_histograms);
	tcase_add_test(tc, test_merge_swapped);
	tcase_add_test(tc, test_merge_symbols);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad");
	tcase_add_test(tc, test_bad_aggid);
	tcase_add_test(tc, test_bad_overrun);
	tcase_add_test(tc, test_bad_recdesc);
	suite_add_tcase(s, tc);

	tc = tcase_create("sort");
	tcase_add_test(tc, test_sort_signedkeys);
	tcase_add_test(tc, test_sort_keysort);
	tcase_add_test(tc, test_sort_negorder);
	tcase_add_test(tc, test_sort_llquantize);
	tcase_add_test(tc, test_sort_avg_stddev);
	suite_add_tcase(s, tc);

	tc = tcase_create("joined");
	tcase_add_test(tc, test_joined_sortpos);
	tcase_add_test(tc, test_joined_zero);
	tcase_add_test(tc, test_joined_zero_params);
	tcase_add_test(tc, test_joined_sortpos_empty);
	tcase_add_test(tc, test_joined_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("actions");
	tcase_add_test(tc, test_trunc);
	tcase_add_test(tc, test_clear);
	tcase_add_test(tc, test_clear_histograms);
	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_exit_printed);
	suite_add_tcase(s, tc);

	tc = tcase_create("large");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_large);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(agg_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
