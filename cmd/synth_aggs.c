/*
 * synth_aggs.c - aggregations as the kernel keeps them: the entry
 * layout of an aggregation buffer (dtrace_ecb_resize's tuple layout),
 * the value of each function and its kernel update rule
 * (dtrace_aggregate_*), and the snapshot of one CPU's buffer.
 *
 * Facts: ../shared/reference/libdtrace-abi-facts.md section 4.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "synth_private.h"

#define QUANTIZE_NBUCKETS   127
#define QUANTIZE_ZEROBUCKET 63

static const struct aggfunc {
	const char *name;
	uint16_t func;
} aggfuncs[] = {
	{ "count", DTC_AGG_COUNT }, { "min", DTC_AGG_MIN },
	{ "max", DTC_AGG_MAX }, { "avg", DTC_AGG_AVG },
	{ "sum", DTC_AGG_SUM }, { "stddev", DTC_AGG_STDDEV },
	{ "quantize", DTC_AGG_QUANTIZE }, { "lquantize", DTC_AGG_LQUANTIZE },
	{ "llquantize", DTC_AGG_LLQUANTIZE },
};

void
sy_agg_free(sy_agg *a)
{
	free(a->name);
	sy_rds_free(a->rds, a->nrds);
	a->name = NULL;
	a->rds = NULL;
}

/* ------------------------------------------------------------------ */
/* Function parameters and value sizes                                 */
/* ------------------------------------------------------------------ */

/*
 * lquantize(x, base, limit, step): the compiler's checks (dt_cc.c) and
 * its encoding step << 48 | levels << 32 | (uint32_t)base.
 */
static int
lquantize_arg(synth *s, json_t *v, uint64_t *arg, uint32_t *valsize)
{
	int64_t base, limit, step, levels;

	if (sy_get_i64(s, v, "base", 1, 0, INT32_MIN, INT32_MAX, &base) != 0 ||
	    sy_get_i64(s, v, "limit", 1, 0, INT32_MIN, INT32_MAX,
	    &limit) != 0 ||
	    sy_get_i64(s, v, "step", 0, 1, 1, UINT16_MAX, &step) != 0)
		return -1;
	if (limit <= base)
		return sy_fail(s, "lquantize limit %" PRId64 " is not above "
		    "base %" PRId64, limit, base);
	levels = (limit - base) / step;
	if (levels < 1 || levels > UINT16_MAX)
		return sy_fail(s, "lquantize has %" PRId64 " levels "
		    "((limit - base) / step must be 1 to 65535)", levels);
	*arg = (uint64_t)step << 48 | (uint64_t)levels << 32 |
	    (uint32_t)(int32_t)base;
	/* the arg word, underflow, the levels, overflow */
	*valsize = (uint32_t)(levels + 3) * 8;
	return 0;
}

/*
 * Buckets of llquantize (facts 4.5): 2 + the sum over orders low..high
 * of nb - nb / factor, nb = min(factor^(order + 1), nsteps).
 */
static uint32_t
llquantize_nbuckets(uint64_t factor, uint64_t low, uint64_t high,
    uint64_t nsteps)
{
	uint64_t this = 1, order, nb, n = 2;

	for (order = 0; order < low; order++)
		this *= factor;
	for (this *= factor, order = low; order <= high; order++) {
		nb = this > nsteps ? nsteps : this;
		n += nb - nb / factor;
		this *= factor;
	}
	return (uint32_t)n;
}

static int
llquantize_arg(synth *s, json_t *v, uint64_t *arg, uint32_t *valsize)
{
	uint64_t factor, low, high, nsteps, p;
	unsigned i;

	if (sy_get_u64(s, v, "factor", 1, 0, UINT16_MAX, &factor) != 0 ||
	    sy_get_u64(s, v, "low", 1, 0, UINT16_MAX, &low) != 0 ||
	    sy_get_u64(s, v, "high", 1, 0, UINT16_MAX, &high) != 0 ||
	    sy_get_u64(s, v, "nsteps", 1, 0, UINT16_MAX, &nsteps) != 0)
		return -1;
	if (factor < 2)
		return sy_fail(s, "llquantize factor must be at least 2");
	if (low >= high)
		return sy_fail(s, "llquantize low must be below high");
	if (nsteps < factor || nsteps % factor != 0)
		return sy_fail(s, "llquantize nsteps must be a multiple of "
		    "factor");
	/* the kernel computes factor^(high + 2) without overflowing */
	for (p = 1, i = 0; i < high + 2; i++)
		if (__builtin_mul_overflow(p, factor, &p) || p > INT64_MAX)
			return sy_fail(s, "llquantize factor^(high + 2) does "
			    "not fit in 64 bits");
	for (p = factor; p < nsteps; p *= factor)
		;
	if (p % nsteps != 0)
		return sy_fail(s, "llquantize nsteps must divide a power of "
		    "factor");
	*arg = factor << 48 | low << 32 | high << 16 | nsteps;
	*valsize = (llquantize_nbuckets(factor, low, high, nsteps) + 1) * 8;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Descriptions                                                        */
/* ------------------------------------------------------------------ */

/*
 * The entry: aggid at 0, the varid record at 8 (the tuple's first
 * member, at offset 4 of an 8-byte block, rounded up to its own
 * alignment), the keys at their alignments, the value 8-aligned.
 */
static void
agg_layout(sy_agg *a)
{
	uint32_t offs = 8, i, al, size;
	sy_rd *rd;

	for (i = 0; i <= a->nkeys; i++) {
		rd = &a->rds[i];
		size = rd->rd.size;
		al = sy_natural_align(size);
		if (size != 0 && offs % al != 0)
			offs += al - offs % al;
		if (!rd->has_offset)
			rd->rd.offset = offs;
		if (!rd->has_align)
			rd->rd.alignment = (uint16_t)al;
		offs += size;
	}
	offs = (offs + 7) & ~7u;
	rd = &a->rds[a->nkeys + 1];
	rd->rd.offset = offs;
	a->valoff = offs;
	a->size = offs + a->valsize;
}

uint32_t
sy_agg_needed(const sy_agg *a, uint32_t offs)
{
	uint32_t diff = (offs + 4) & 7;

	if (diff != 0)
		offs += 8 - diff;
	return offs - 4 + a->size;
}

static int
agg_func(synth *s, json_t *v, sy_agg *a)
{
	static const char *const lq[] = { "base", "limit", "step" };
	static const char *const llq[] = { "factor", "low", "high", "nsteps" };
	const char *fn;
	size_t i, mark;

	if (sy_get_str(s, v, "func", 1, NULL, &fn) != 0)
		return -1;
	for (i = 0; i < sizeof(aggfuncs) / sizeof(aggfuncs[0]); i++)
		if (strcmp(fn, aggfuncs[i].name) == 0)
			break;
	mark = sy_key(s, "func");
	if (i == sizeof(aggfuncs) / sizeof(aggfuncs[0]))
		return sy_fail(s, "unknown function \"%s\" (count, sum, min, "
		    "max, avg, stddev, quantize, lquantize, llquantize)", fn);
	sy_pop(s, mark);
	a->func = aggfuncs[i].func;
	/* parameters of the other function are typos, not defaults */
	for (i = 0; i < 3; i++)
		if (a->func != DTC_AGG_LQUANTIZE &&
		    json_object_get(v, lq[i]) != NULL)
			return sy_fail(s, "\"%s\" is a parameter of lquantize",
			    lq[i]);
	for (i = 0; i < 4; i++)
		if (a->func != DTC_AGG_LLQUANTIZE &&
		    json_object_get(v, llq[i]) != NULL)
			return sy_fail(s, "\"%s\" is a parameter of llquantize",
			    llq[i]);
	switch (a->func) {
	case DTC_AGG_AVG:
		a->valsize = 16;
		return 0;
	case DTC_AGG_STDDEV:
		a->valsize = 32;
		return 0;
	case DTC_AGG_QUANTIZE:
		a->valsize = QUANTIZE_NBUCKETS * 8;
		return 0;
	case DTC_AGG_LQUANTIZE:
		return lquantize_arg(s, v, &a->arg, &a->valsize);
	case DTC_AGG_LLQUANTIZE:
		return llquantize_arg(s, v, &a->arg, &a->valsize);
	}
	a->valsize = 8;
	return 0;
}

int
sy_agg_parse(synth *s, json_t *v, sy_agg *a)
{
	static const char *const keys[] = { "id", "epid", "varid", "name",
	    "keys", "func", "base", "limit", "step", "factor", "low", "high",
	    "nsteps", "has_incr", NULL };
	const char *name;
	json_t *keyv, *k;
	int64_t maxvar = 0, defvar = 0;
	size_t i, mark;
	int incr;
	sy_rec rec;
	sy_rd *rd;
	uint8_t b[8];

	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u32(s, v, "id", 1, 0, UINT32_MAX, &a->id) != 0 ||
	    sy_get_u32(s, v, "epid", 1, 0, UINT32_MAX, &a->epid) != 0 ||
	    sy_get_str(s, v, "name", 0, "", &name) != 0 ||
	    sy_get_bool(s, v, "has_incr", 0, &incr) != 0)
		return -1;
	if (a->id == 0) {
		mark = sy_key(s, "id");
		return sy_fail(s, "aggid 0 is DTRACE_AGGIDNONE (padding)");
	}
	if (name[0] == '@')
		name++;
	/* variable ids count from 1 as the compiler first sees names */
	for (i = 0; i < s->naggs && &s->aggs[i] != a; i++) {
		if (s->aggs[i].varid > maxvar)
			maxvar = s->aggs[i].varid;
		if (defvar == 0 && strcmp(s->aggs[i].name, name) == 0)
			defvar = s->aggs[i].varid;
		if (s->aggs[i].id == a->id) {
			mark = sy_key(s, "id");
			return sy_fail(s, "aggid %" PRIu32 " is also aggs[%zu]",
			    a->id, i);
		}
	}
	if (sy_get_i64(s, v, "varid", 0, defvar ? defvar : maxvar + 1,
	    INT64_MIN, INT64_MAX, &a->varid) != 0)
		return -1;
	if ((a->name = strdup(name)) == NULL)
		return sy_nomem(s);
	if (agg_func(s, v, a) != 0)
		return -1;

	/* rds[0]: the varid, a DIFEXPR of 8 bytes holding the varid */
	if ((a->rds = calloc(1, sizeof(*a->rds))) == NULL)
		return sy_nomem(s);
	a->nrds = 1;
	rd = &a->rds[0];
	rd->rd.action = DTC_ACT_DIFEXPR;
	rd->rd.size = 8;
	rd->enc = SY_ENC_FIXED;
	if ((rd->fixed = malloc(8)) == NULL)
		return sy_nomem(s);
	sy_store(s, b, (uint64_t)a->varid, 8);
	memcpy(rd->fixed, b, 8);

	keyv = json_object_get(v, "keys");
	mark = sy_key(s, "keys");
	if (keyv != NULL && sy_array(s, keyv) != 0)
		return -1;
	json_array_foreach(keyv, i, k) {
		size_t m2 = sy_idx(s, i);

		if (sy_rec_parse(s, k, 1, 0, &a->rds, &a->nrds, &rec) != 0)
			return -1;
		if (rec.n != 1)
			return sy_fail(s, "a key is one record");
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	a->nkeys = a->nrds - 1;
	/* the value record */
	rd = realloc(a->rds, (a->nrds + 1) * sizeof(*rd));
	if (rd == NULL)
		return sy_nomem(s);
	a->rds = rd;
	rd = &a->rds[a->nrds++];
	memset(rd, 0, sizeof(*rd));
	rd->rd.action = a->func;
	rd->rd.size = a->valsize;
	rd->rd.alignment = 8;
	rd->rd.arg = a->arg;
	rd->enc = SY_ENC_NONE;
	agg_layout(a);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Kernel update rules (dtrace_aggregate_*)                            */
/* ------------------------------------------------------------------ */

/* DTRACE_QUANTIZE_BUCKETVAL */
static int64_t
quantize_bucketval(int b)
{
	if (b < QUANTIZE_ZEROBUCKET)
		return -((int64_t)1 << (QUANTIZE_ZEROBUCKET - 1 - b));
	if (b == QUANTIZE_ZEROBUCKET)
		return 0;
	return (int64_t)1 << (b - QUANTIZE_ZEROBUCKET - 1);
}

/*
 * Negative values go to the first bucket whose value is >= x (so
 * INT64_MIN lands in bucket 0); others to the last bucket whose value
 * is <= x.
 */
static int
quantize_bucket(int64_t x)
{
	int i;

	if (x < 0) {
		for (i = 0; i < QUANTIZE_ZEROBUCKET; i++)
			if (x <= quantize_bucketval(i))
				return i;
		return QUANTIZE_ZEROBUCKET - 1;    /* not reached */
	}
	for (i = QUANTIZE_ZEROBUCKET + 1; i < QUANTIZE_NBUCKETS; i++)
		if (x < quantize_bucketval(i))
			return i - 1;
	return QUANTIZE_NBUCKETS - 1;
}

/*
 * The kernel truncates x to int32; the difference to base is taken in
 * 64 bits here, where the kernel's int32 subtraction cannot overflow
 * for parameters its compiler accepts.
 */
static uint32_t
lquantize_bucket(uint64_t arg, int64_t nval)
{
	int32_t base = (int32_t)(uint32_t)arg;
	uint16_t step = (uint16_t)(arg >> 48);
	uint16_t levels = (uint16_t)(arg >> 32);
	int32_t val = (int32_t)(uint32_t)nval;
	int64_t level;

	if (val < base)
		return 0;
	level = ((int64_t)val - base) / step;
	if (level < levels)
		return (uint32_t)level + 1;
	return (uint32_t)levels + 1;
}

/* dtrace_aggregate_llquantize_bucket */
static uint32_t
llquantize_bucket(uint64_t arg, int64_t value)
{
	int64_t factor = (uint16_t)(arg >> 48), low = (uint16_t)(arg >> 32);
	int64_t high = (uint16_t)(arg >> 16), nsteps = (uint16_t)arg;
	int64_t this = 1, last, next, order, nbuckets;
	uint32_t base = 1;

	for (order = 0; order < low; order++)
		this *= factor;
	if (value < (last = this))
		return 0;
	for (this *= factor; order <= high; order++) {
		nbuckets = this > nsteps ? nsteps : this;
		/* the kernel clamps where the next power would overflow */
		if (__builtin_mul_overflow(this, factor, &next))
			value = this - 1;
		if (value < this)
			return base + (uint32_t)((value - last) /
			    (this / nbuckets));
		base += (uint32_t)(nbuckets - nbuckets / factor);
		last = this;
		this = next;
	}
	return base;
}

/* 128-bit x^2 of |x| added into words 2 (low) and 3 (high). */
static void
stddev_update(uint64_t *w, int64_t x)
{
	uint64_t ax = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
	unsigned __int128 sq = (unsigned __int128)ax * ax;
	unsigned __int128 sum = ((unsigned __int128)w[3] << 64 | w[2]) + sq;

	w[0]++;
	w[1] += (uint64_t)x;
	w[2] = (uint64_t)sum;
	w[3] = (uint64_t)(sum >> 64);
}

/* One data point into the value words (host order). */
static void
agg_update(const sy_agg *a, uint64_t *w, uint64_t nval, uint64_t incr)
{
	int64_t x = (int64_t)nval;

	switch (a->func) {
	case DTC_AGG_COUNT:
		w[0]++;
		break;
	case DTC_AGG_SUM:
		w[0] += nval;
		break;
	case DTC_AGG_MIN:
		if (x < (int64_t)w[0])
			w[0] = nval;
		break;
	case DTC_AGG_MAX:
		if (x > (int64_t)w[0])
			w[0] = nval;
		break;
	case DTC_AGG_AVG:
		w[0]++;
		w[1] += nval;
		break;
	case DTC_AGG_STDDEV:
		stddev_update(w, x);
		break;
	case DTC_AGG_QUANTIZE:
		w[quantize_bucket(x)] += incr;
		break;
	case DTC_AGG_LQUANTIZE:
		w[1 + lquantize_bucket(w[0], x)] += incr;
		break;
	case DTC_AGG_LLQUANTIZE:
		w[1 + llquantize_bucket(w[0], x)] += incr;
		break;
	}
}

/* The value of a new entry (dtrace_aggregate: dtag_initial, the arg). */
static void
agg_initial(const sy_agg *a, uint64_t *w)
{
	memset(w, 0, a->valsize);
	if (a->func == DTC_AGG_MIN)
		w[0] = (uint64_t)INT64_MAX;
	else if (a->func == DTC_AGG_MAX)
		w[0] = (uint64_t)INT64_MIN;
	else if (a->func == DTC_AGG_LQUANTIZE || a->func == DTC_AGG_LLQUANTIZE)
		w[0] = a->arg;
}

/* ------------------------------------------------------------------ */
/* Aggregation buffers                                                 */
/* ------------------------------------------------------------------ */

typedef struct sy_entry {
	const sy_agg *a;
	size_t off;          /* in the buffer */
	int raw;             /* given as "value": never combined */
} sy_entry;

/* aggid, varid and keys of an entry (the value is left zero). */
static int
entry_key(synth *s, const sy_agg *a, json_t *keys, uint8_t *e)
{
	json_t *k;
	size_t i, mark, nk = keys != NULL ? json_array_size(keys) : 0;

	sy_store(s, e, a->id, 4);
	mark = sy_key(s, "key");
	if (keys != NULL && sy_array(s, keys) != 0)
		return -1;
	if (nk != a->nkeys)
		return sy_fail(s, "%zu key%s for @%s, which has %" PRIu32, nk,
		    nk == 1 ? "" : "s", a->name, a->nkeys);
	if (sy_rd_encode(s, &a->rds[0], NULL, e, a->size) != 0)
		return -1;
	json_array_foreach(keys, i, k) {
		size_t m2 = sy_idx(s, i);

		if (sy_rd_encode(s, &a->rds[i + 1], k, e, a->size) != 0)
			return -1;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

/* "data": [x, [x, incr], ...] applied to the words w (host order). */
static int
entry_data(synth *s, const sy_agg *a, json_t *data, uint64_t *w)
{
	json_t *d, *xv, *iv;
	uint64_t x, incr;
	size_t i, mark, m2;

	mark = sy_key(s, "data");
	if (sy_array(s, data) != 0)
		return -1;
	json_array_foreach(data, i, d) {
		m2 = sy_idx(s, i);
		xv = d;
		iv = NULL;
		if (json_is_array(d)) {
			if (json_array_size(d) != 2)
				return sy_fail(s, "expected x or [x, increment]");
			xv = json_array_get(d, 0);
			iv = json_array_get(d, 1);
			if (a->func != DTC_AGG_QUANTIZE &&
			    a->func != DTC_AGG_LQUANTIZE &&
			    a->func != DTC_AGG_LLQUANTIZE)
				return sy_fail(s, "only the quantize functions "
				    "take an increment");
		}
		/* count() counts firings; its x is not used */
		if (a->func == DTC_AGG_COUNT && json_is_null(xv))
			x = 0;
		else if (sy_bits(s, xv, 8, &x) != 0)
			return -1;
		incr = 1;
		if (iv != NULL && sy_bits(s, iv, 8, &incr) != 0)
			return -1;
		agg_update(a, w, x, incr);
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

/* "value": [w0, w1, ...] raw words; missing words are 0. */
static int
entry_value(synth *s, const sy_agg *a, json_t *value, uint64_t *w)
{
	json_t *d;
	size_t i, mark, m2;

	memset(w, 0, a->valsize);
	mark = sy_key(s, "value");
	if (sy_array(s, value) != 0)
		return -1;
	if (json_array_size(value) > a->valsize / 8)
		return sy_fail(s, "%zu words for a value of %" PRIu32,
		    json_array_size(value), a->valsize / 8);
	json_array_foreach(value, i, d) {
		m2 = sy_idx(s, i);
		if (sy_bits(s, d, 8, &w[i]) != 0)
			return -1;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

static int
one_entry(synth *s, json_t *v, sy_bytes *out, sy_entry **ents, size_t *nents,
    uint64_t *w, uint8_t *tmp)
{
	static const char *const keys[] = { "agg", "key", "data", "value",
	    NULL };
	json_t *data, *value;
	const sy_agg *a;
	sy_entry *e = NULL;
	size_t i, mark;
	uint32_t j;
	uint8_t *p;

	if (sy_keys(s, v, keys) != 0)
		return -1;
	mark = sy_key(s, "agg");
	if (json_object_get(v, "agg") == NULL)
		return sy_fail(s, "missing: the aggregation's id or name");
	if ((a = sy_agg_lookup(s, json_object_get(v, "agg"))) == NULL)
		return -1;
	sy_pop(s, mark);
	data = json_object_get(v, "data");
	value = json_object_get(v, "value");
	if ((data == NULL) == (value == NULL))
		return sy_fail(s, "an entry has either \"data\" or \"value\"");
	memset(tmp, 0, a->size);
	if (entry_key(s, a, json_object_get(v, "key"), tmp) != 0)
		return -1;
	/* the kernel keeps one entry per aggid and key */
	for (i = 0; data != NULL && i < *nents; i++) {
		e = &(*ents)[i];
		if (!e->raw && e->a == a &&
		    memcmp(out->p + e->off + 8, tmp + 8, a->valoff - 8) == 0)
			break;
		e = NULL;
	}
	if (e == NULL) {
		sy_entry *ne = realloc(*ents, (*nents + 1) * sizeof(*ne));

		if (ne == NULL)
			return sy_nomem(s);
		*ents = ne;
		e = &ne[(*nents)++];
		e->a = a;
		e->off = out->len;
		e->raw = value != NULL;
		if (sy_bytes_put(s, out, tmp, a->size) != 0)
			return -1;
		agg_initial(a, w);
	} else {
		for (j = 0; j < a->valsize / 8; j++)
			w[j] = sy_load(s, out->p + e->off + a->valoff + j * 8,
			    8);
	}
	if (data != NULL ? entry_data(s, a, data, w) :
	    entry_value(s, a, value, w))
		return -1;
	p = out->p + e->off + a->valoff;
	for (j = 0; j < a->valsize / 8; j++)
		sy_store(s, p + j * 8, w[j], 8);
	return 0;
}

int
sy_aggbuf_build(synth *s, json_t *v, dtc_writer_buf *wb, sy_bytes *out)
{
	static const char *const keys[] = { "cpu", "drops", "entries", NULL };
	json_t *ents, *e;
	sy_entry *list = NULL;
	size_t i, n = 0, mark, maxsize = 8;
	uint64_t *w = NULL;
	uint8_t *tmp = NULL;
	uint32_t cpu;
	int rc = -1;

	out->len = 0;
	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u32(s, v, "cpu", 1, 0, s->ncpu - 1, &cpu) != 0 ||
	    sy_get_u64(s, v, "drops", 0, 0, UINT64_MAX, &wb->drops) != 0)
		return -1;
	wb->cpu = (int)cpu;
	for (i = 0; i < s->naggs; i++)
		if (s->aggs[i].size > maxsize)
			maxsize = s->aggs[i].size;
	if ((w = malloc(maxsize)) == NULL || (tmp = malloc(maxsize)) == NULL) {
		sy_nomem(s);
		goto out;
	}
	ents = json_object_get(v, "entries");
	mark = sy_key(s, "entries");
	if (ents != NULL && sy_array(s, ents) != 0)
		goto out;
	json_array_foreach(ents, i, e) {
		size_t m2 = sy_idx(s, i);

		if (one_entry(s, e, out, &list, &n, w, tmp) != 0)
			goto out;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	wb->data = out->p;
	wb->size = out->len;
	wb->oldest = 0;
	wb->errors = 0;
	rc = 0;
out:
	free(list);
	free(w);
	free(tmp);
	return rc;
}
