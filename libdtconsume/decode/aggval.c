/*
 * aggval.c - how libdtrace prints the value of each aggregating function:
 * stddev (128-bit), avg, the normalization quirks and the histogram
 * blocks of quantize, lquantize and llquantize (legacy and dtrace-utils
 * parameter words), exported for the text emitter as
 * dtc_capture_hist_render() and the dtc_aggval_* helpers, and called by
 * the renderer (printf_render.c) for %@ and for avg/stddev/histogram
 * records.  Apart from the renderer because these rules are the
 * aggregation's, not the format's: default printa prints them with no
 * format at all.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "printf_private.h"

/* ------------------------------------------------------------------ */
/* Aggregation values                                                  */
/* ------------------------------------------------------------------ */

#define QNBUCKETS	127
#define QZERO		63

typedef unsigned __int128 u128;

/* Exact floor(sqrt(x)), as dt_sqrt_128's long-hand method computes it. */
static uint64_t
isqrt128(u128 x)
{
	u128 res = 0, one = (u128)1 << 126;

	while (one > x)
		one >>= 2;
	while (one != 0) {
		if (x >= res + one) {
			x -= res + one;
			res = (res >> 1) + one;
		} else {
			res >>= 1;
		}
		one >>= 2;
	}
	return (uint64_t)res;
}

/*
 * dt_stddev: sqrt(E[x^2] - E[x]^2) with the 128-bit sum of squares divided
 * by normal twice and by the count (unsigned), the mean in signed 64-bit
 * arithmetic, and a 128-bit subtraction that wraps when it goes negative.
 */
uint64_t
dtcp_stddev_words(const uint64_t w[4], uint64_t normal)
{
	u128 sq, avgsq, sqavg;
	int64_t mean;
	uint64_t amean;

	if (w[0] == 0)
		return 0;
	if (normal == 0)
		normal = 1;
	sq = ((u128)w[3] << 64) | w[2];
	avgsq = sq / normal / normal / w[0];
	mean = sdiv64(sdiv64((int64_t)w[1], (int64_t)normal), (int64_t)w[0]);
	amean = mean < 0 ? 0 - (uint64_t)mean : (uint64_t)mean;
	sqavg = (u128)amean * amean;
	return isqrt128(avgsq - sqavg);
}

int
dtcp_agg_words(const uint8_t *d, uint32_t size, int swap, uint64_t *w, int n)
{
	int i;

	if (d == NULL || size < (uint32_t)n * 8)
		return -1;
	for (i = 0; i < n; i++)
		w[i] = dtcp_ld64(d + 8 * i, swap);
	return 0;
}

static int64_t
word(const uint8_t *d, uint32_t i, int swap)
{
	return (int64_t)dtcp_ld64(d + (size_t)i * 8, swap);
}

/* The drawing options of a histogram (aggzoom, encoding=utf8). */
struct histopt {
	int zoom, utf8;
	/* dtrace-utils scans every bucket for data; legacy stops one
	 * short of the last (dt_print_quantize) */
	int qscan_all;
};

static void
hist_opts(const dtcp_capture *r, struct histopt *ho)
{
	const dtcp_options *o = r != NULL ? (&r->opts) : NULL;

	ho->zoom = o != NULL && dtcp_opt_isset(o, DTCP_OPT_AGGZOOM);
	ho->utf8 = o != NULL && strcmp(o->encoding, "utf8") == 0;
	ho->qscan_all = r != NULL &&
	    r->hdr.v2;
}

/* dt_quantize_total: the sum of |v|, or with aggzoom the largest |v|
 * scaled so that it fills 95% of the bar */
static void
qtotal(const struct histopt *ho, int64_t v, long double *total)
{
	long double x = v < 0 ? -(long double)v : (long double)v;

	if (!ho->zoom) {
		*total += x;
		return;
	}
	x *= 1 / 0.95;
	if (*total < x)
		*total = x;
}

static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
static const char spaces[] = "                                        ";

/* dt_print_quantline: the bar and the count of one row */
static int
quantline(dtc_buf *out, const struct histopt *ho, int64_t val,
    uint64_t normal, long double total, int pos, int neg)
{
	unsigned len = 40, depth;
	long double f = 0;
	long long cnt = (long long)udiv64((uint64_t)val, normal);

	if (total != 0)
		f = ((val < 0 ? -(long double)val : (long double)val) * len) /
		    total;
	if (!neg) {
		if (pos && ho->utf8) {
			unsigned whole = (unsigned)f, part, i;

			part = (unsigned)((f - (long double)(unsigned)f) * 8);
			if (append(out, "|", 1) != 0)
				return -1;
			for (i = 0; i < whole && i < len; i++)
				if (append(out, "\xe2\x96\x88", 3) != 0)
					return -1;
			if (part != 0) {
				unsigned cp = 0x258f - (part - 1);
				char u[3];

				u[0] = (char)(0xe0 | (cp >> 12));
				u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[2] = (char)(0x80 | (cp & 0x3f));
				if (append(out, u, 3) != 0)
					return -1;
				i++;
			}
			if (i > len)
				i = len;
			return dtc_buf_printf(out, "%s %-9lld\n", spaces + i,
			    cnt) < 0 ? -1 : 0;
		}
		depth = pos ? (unsigned)(f + 0.5) : 0;
		if (depth > len)
			depth = len;
		return dtc_buf_printf(out, "|%s%s %-9lld\n", ats + len - depth,
		    spaces + depth, cnt) < 0 ? -1 : 0;
	}
	if (!pos) {
		depth = (unsigned)(f + 0.5);
		if (depth > len)
			depth = len;
		return dtc_buf_printf(out, "%s%s| %-9lld\n", spaces + depth,
		    ats + len - depth, cnt) < 0 ? -1 : 0;
	}
	/* both signs: half bars either side of the axis */
	len /= 2;
	f = ((val < 0 ? -(long double)val : (long double)val) * len) / total;
	depth = (unsigned)(f + 0.5);
	if (depth > len)
		depth = len;
	if (val <= 0)
		return dtc_buf_printf(out, "%s%s|%*s %-9lld\n",
		    spaces + 20 + depth, ats + 20 + len - depth, (int)len, "",
		    cnt) < 0 ? -1 : 0;
	return dtc_buf_printf(out, "%20s|%s%s %-9lld\n", "",
	    ats + 20 + len - depth, spaces + 20 + depth, cnt) < 0 ? -1 : 0;
}

static const char quanthdr[] = "------------- Distribution -------------";

static void
hist_rows_total(const struct histopt *ho, const uint8_t *d, int swap,
    int first, int last, long double *total, int *pos, int *neg)
{
	int i;

	*total = 0;
	*pos = *neg = 0;
	for (i = first; i <= last; i++) {
		int64_t v = word(d, (uint32_t)i, swap);

		*pos |= v > 0;
		*neg |= v < 0;
		qtotal(ho, v, total);
	}
}

/* The displayed range: first non-zero - 1 .. last non-zero + 1. */
static void
hist_range(const uint8_t *d, int swap, int nb, int *first, int *last)
{
	int f = 0, l = nb - 1;

	while (f < nb && word(d, (uint32_t)f, swap) == 0)
		f++;
	if (f == nb) {
		*first = -1;
		return;
	}
	if (f > 0)
		f--;
	while (l > 0 && word(d, (uint32_t)l, swap) == 0)
		l--;
	if (l < nb - 1)
		l++;
	*first = f;
	*last = l;
}

static int64_t
qbucketval(int i)
{
	if (i < QZERO)
		return -(int64_t)((uint64_t)1 << (QZERO - 1 - i));
	if (i == QZERO)
		return 0;
	return (int64_t)((uint64_t)1 << (i - QZERO - 1));
}

/* dt_print_quantize */
static int
hist_quantize(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	int first = 0, last = QNBUCKETS - 1, i, pos, neg;
	long double total;

	if (size != QNBUCKETS * 8 || d == NULL)
		return mismatch(err);
	/*
	 * libdtrace stops its scan for the first non-zero bucket one short
	 * of the end, so data in the last bucket alone reads as "no data"
	 * and the rows around zero are printed.
	 */
	while (first < QNBUCKETS - 1 + ho->qscan_all &&
	    word(d, (uint32_t)first, swap) == 0)
		first++;
	if (first == QNBUCKETS - 1 + ho->qscan_all) {
		first = QZERO - 1;
		last = QZERO + 1;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && word(d, (uint32_t)last, swap) == 0)
			last--;
		if (last < QNBUCKETS - 1)
			last++;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	for (i = first; i <= last; i++) {
		if (dtc_buf_printf(out, "%16lld ",
		    (long long)qbucketval(i)) < 0 ||
		    quantline(out, ho, word(d, (uint32_t)i, swap), normal,
		    total,
		    pos, neg) != 0)
			return nomem(err);
	}
	return DTC_OK;
}

/* The lquantize parameters packed in word 0. */
static int
lq_params(const uint8_t *d, uint32_t size, int swap, int32_t *base,
    uint16_t *step, uint16_t *levels)
{
	uint64_t arg;

	if (d == NULL || size < 8)
		return -1;
	arg = dtcp_ld64(d, swap);
	*base = (int32_t)(uint32_t)(arg & 0xffffffffu);
	*step = (uint16_t)(arg >> 48);
	*levels = (uint16_t)(arg >> 32);
	if (size - 8 != (uint32_t)(*levels + 2) * 8)
		return -1;
	return 0;
}

/* dt_print_lquantize */
static int
hist_lquantize(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	int32_t base;
	uint16_t step, levels;
	int first, last, i, pos, neg;
	long double total;

	if (lq_params(d, size, swap, &base, &step, &levels) != 0)
		return mismatch(err);
	d += 8;
	hist_range(d, swap, levels + 2, &first, &last);
	if (first < 0) {
		first = 0;
		last = 2 < levels + 1 ? 2 : levels + 1;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	for (i = first; i <= last; i++) {
		char c[32];
		int n;

		/* int arithmetic as in libdtrace; wraps like it */
		if (i == 0) {
			snprintf(c, sizeof(c), "< %d", base);
			n = dtc_buf_printf(out, "%16s ", c);
		} else if (i == levels + 1) {
			snprintf(c, sizeof(c), ">= %d", (int32_t)(uint32_t)
			    ((int64_t)base + (int64_t)levels * step));
			n = dtc_buf_printf(out, "%16s ", c);
		} else {
			n = dtc_buf_printf(out, "%16d ", (int32_t)(uint32_t)
			    ((int64_t)base + (int64_t)(i - 1) * step));
		}
		if (n < 0 || quantline(out, ho, word(d, (uint32_t)i, swap),
		    normal, total, pos, neg) != 0)
			return nomem(err);
	}
	return DTC_OK;
}

/* The llquantize parameters packed in word 0, checked as libdtrace does. */
static int
llq_params(const uint8_t *d, uint32_t size, int swap, uint16_t *factor,
    uint16_t *low, uint16_t *high, uint16_t *nsteps)
{
	uint64_t arg;

	if (d == NULL || size < 8 || size % 8 != 0)
		return -1;
	arg = dtcp_ld64(d, swap);
	*factor = (uint16_t)(arg >> 48);
	*low = (uint16_t)(arg >> 32);
	*high = (uint16_t)(arg >> 16);
	*nsteps = (uint16_t)arg;
	if (size - 8 > INT32_MAX || *factor < 2 || *low >= *high ||
	    *nsteps == 0 || *factor > *nsteps)
		return -1;
	return 0;
}

/*
 * Walks the llquantize labels: bucket 0 is "< factor^low", then each order
 * from low to high in steps of factor^(order+1)/nsteps (at least 1), then
 * the overflow bucket.  libdtrace assumes the steps land on each power of
 * the factor; parameters for which they do not (or that overflow) would
 * loop for ever there, and are refused here.
 */
struct llqwalk {
	int64_t value, next, step;
	int order, high;
	int factor, nsteps;
};

static int
llq_start(struct llqwalk *w, uint16_t factor, uint16_t low, uint16_t high,
    uint16_t nsteps)
{
	int o;

	w->value = 1;
	for (o = 0; o < low; o++)
		if (__builtin_mul_overflow(w->value, (int64_t)factor,
		    &w->value))
			return -1;
	w->order = low;
	w->high = high;
	w->factor = factor;
	w->nsteps = nsteps;
	if (__builtin_mul_overflow(w->value, (int64_t)factor, &w->next))
		return -1;
	w->step = w->next > nsteps ? w->next / nsteps : 1;
	return 0;
}

/* Advance past one bucket; -1 when the walk cannot go on. */
static int
llq_step(struct llqwalk *w)
{
	if (__builtin_add_overflow(w->value, w->step, &w->value) ||
	    w->value > w->next)
		return -1;
	if (w->value != w->next)
		return 0;
	w->order++;
	if (w->order > w->high)
		return 0;
	if (__builtin_mul_overflow(w->value, (int64_t)w->factor, &w->next))
		return -1;
	w->step = w->next > w->nsteps ? w->next / w->nsteps : 1;
	return 0;
}

/* dt_print_llquantize */
static int
hist_llquantize(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	uint16_t factor, low, high, nsteps;
	struct llqwalk w;
	int levels, first, last, bin = 1, pos, neg;
	long double total;
	char c[32];

	if (llq_params(d, size, swap, &factor, &low, &high, &nsteps) != 0 ||
	    llq_start(&w, factor, low, high, nsteps) != 0)
		return mismatch(err);
	d += 8;
	levels = (int)((size - 8) / 8);
	if (levels == 0)
		return mismatch(err);
	hist_range(d, swap, levels, &first, &last);
	if (first < 0) {
		first = 0;
		last = levels > 1 ? 1 : 0;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	if (first == 0) {
		snprintf(c, sizeof(c), "< %lld", (long long)w.value);
		if (dtc_buf_printf(out, "%16s ", c) < 0 ||
		    quantline(out, ho, word(d, 0, swap), normal, total, pos,
		    neg) != 0)
			return nomem(err);
	}
	while (w.order <= w.high) {
		if (bin >= first && bin <= last) {
			if (dtc_buf_printf(out, "%16lld ",
			    (long long)w.value) < 0 ||
			    quantline(out, ho, word(d, (uint32_t)bin, swap),
			    normal, total, pos, neg) != 0)
				return nomem(err);
		}
		bin++;
		if (llq_step(&w) != 0)
			return mismatch(err);
	}
	if (last < bin)
		return DTC_OK;
	snprintf(c, sizeof(c), ">= %lld", (long long)w.value);
	if (dtc_buf_printf(out, "%16s ", c) < 0 ||
	    quantline(out, ho, word(d, (uint32_t)bin, swap), normal, total,
	    pos, neg) != 0)
		return nomem(err);
	return DTC_OK;
}

/*
 * DTrace v2 (dtrace-utils) llquantize.  Its value is symmetric around
 * zero: bucket 0 takes v <= -factor^(hmag+1), then the negative ranges
 * (largest magnitude first), bin0 takes abs(v) < factor^lmag, then the
 * positive ranges and the overflow bucket.  Each range has steps - sf
 * buckets, sf = steps/factor of its steps falling in the range below.
 * With lmag 0 and steps > factor, the buckets of range 0 that no integer
 * reaches ("ghost bins") have no label and are not printed.
 */
static uint64_t
upow(uint64_t f, uint32_t n)
{
	uint64_t v = 1;

	while (n-- > 0)
		v *= f;
	return v;
}

/*
 * The lower bound of positive bucket bin0 + i (1 <= i <= bin0, bin0 + bin0
 * being the overflow bucket), as dt_print_llquantize labels it: -1 for a
 * ghost bin.  Every label is exact, the compiler's divisibility rules
 * making factor^(m+1)/steps an integer wherever it is used.
 */
static int
llq2_lower(const dtcp_llq2 *p, uint32_t i, uint64_t *lo)
{
	uint32_t per = p->steps - p->sf, r = (i - 1) / per, j = (i - 1) % per;
	uint32_t m = p->lmag + r;

	if (p->lmag == 0 && p->steps > p->factor && r == 0) {
		/* range 0 counts 1, 2, .. factor-1, one label every sf */
		if (j % p->sf != 0)
			return -1;
		*lo = j / p->sf + 1;
		return 0;
	}
	if (j == 0)
		*lo = upow(p->factor, m);
	else
		*lo = (p->sf + j) * (upow(p->factor, m + 1) / p->steps);
	return 0;
}

/* The label of bucket b (dt_print_llquantize's CPRINTs); "" for none. */
static void
llq2_label(const dtcp_llq2 *p, int b, int first, char *c, size_t len)
{
	uint64_t scale = upow(p->factor, p->lmag), lo;
	uint32_t i;

	c[0] = '\0';
	if (b < 0 || (uint32_t)b >= p->nbins)
		return;
	if ((uint32_t)b == 0)
		snprintf(c, len, "<= -%llu",
		    (unsigned long long)upow(p->factor, p->hmag + 1u));
	else if ((uint32_t)b == p->nbins - 1)
		snprintf(c, len, ">= %llu",
		    (unsigned long long)upow(p->factor, p->hmag + 1u));
	else if ((uint32_t)b == p->bin0) {
		/* no data below bin0 shown: "abs()" would say nothing */
		if (scale == 1)
			snprintf(c, len, "%d", 0);
		else if (first >= (int)p->bin0)
			snprintf(c, len, "< %llu", (unsigned long long)scale);
		else
			snprintf(c, len, "abs() < %llu",
			    (unsigned long long)scale);
	} else {
		i = (uint32_t)b > p->bin0 ? (uint32_t)b - p->bin0 :
		    p->bin0 - (uint32_t)b;
		if (llq2_lower(p, i, &lo) != 0)
			return;
		snprintf(c, len, (uint32_t)b < p->bin0 ? "-%llu" : "%llu",
		    (unsigned long long)lo);
	}
}

/* dt_print_llquantize of dtrace-utils */
static int
hist_llquantize_v2(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	/* dtrace-utils writes each label into 16 bytes: 15 chars at most */
	enum { CWIDTH = 16 };
	dtcp_llq2 p;
	int first, last, nb, pad = 0, i, j, pos, neg;
	long double total;
	char c[CWIDTH];

	if (d == NULL || size < 8 || size % 8 != 0 ||
	    dtcp_llq2_params(dtcp_ld64(d, swap), size / 8, &p) != 0)
		return mismatch(err);
	d += 8;
	nb = (int)p.nbins;
	/* no data: the rows around bin0 + 1, broadened as data would be */
	hist_range(d, swap, nb, &first, &last);
	if (first < 0) {
		first = (int)p.bin0;
		last = (int)p.bin0 + 2;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	if (p.lmag == 0 && p.steps > p.factor)
		pad = (int)p.sf;
	for (i = first; i <= last; i++) {
		llq2_label(&p, i, first, c, sizeof(c));
		/*
		 * A ghost bin at either end of the range borrows the label of
		 * its nearest labelled neighbour outside the range, as
		 * dtrace-utils patches its label array.
		 */
		if (c[0] == '\0' && pad > 0 && (i == first || i == last)) {
			for (j = 1; j < pad; j++) {
				llq2_label(&p, i == first ? i - j : i + j,
				    first, c, sizeof(c));
				if (c[0] != '\0')
					break;
			}
		}
		if (c[0] == '\0')
			continue;
		if (dtc_buf_printf(out, "%16s ", c) < 0 ||
		    quantline(out, ho, word(d, (uint32_t)i, swap), normal,
		    total, pos, neg) != 0)
			return nomem(err);
	}
	return DTC_OK;
}

/*
 * The two llquantize flavors differ in their parameter packing and bucket
 * layout: everything that reads an llquantize value goes through one of
 * these, chosen once per value.
 */
typedef int llq_render_f(dtc_buf *, const struct histopt *,
    const uint8_t *, uint32_t, int, uint64_t, dtc_error *);
typedef uint32_t llq_nbuckets_f(const uint8_t *, uint32_t, int);
typedef int llq_bucket_f(const uint8_t *, uint32_t, int, uint32_t,
    dtc_bucket *);

struct llqops {
	llq_render_f *render;
	llq_nbuckets_f *nbuckets;
	llq_bucket_f *bucket;
};

static llq_nbuckets_f llq_nbuckets_legacy, llq_nbuckets_v2;
static llq_bucket_f llq_bucket_legacy, llq_bucket_v2;

static const struct llqops llq_legacy = {
	hist_llquantize, llq_nbuckets_legacy, llq_bucket_legacy
};
static const struct llqops llq_v2 = {
	hist_llquantize_v2, llq_nbuckets_v2, llq_bucket_v2
};

static const struct llqops *
llq_ops(const dtcp_capture *r)
{
	return r != NULL && (&r->hdr)->v2 ? &llq_v2 : &llq_legacy;
}

static uint32_t
llq_nbuckets_legacy(const uint8_t *d, uint32_t size, int swap)
{
	uint16_t factor, low, high, nsteps;

	if (llq_params(d, size, swap, &factor, &low, &high, &nsteps) != 0)
		return 0;
	return (size - 8) / 8;
}

/* Bucket 0 is "< factor^low", then the linear steps, then the overflow. */
static int
llq_bucket_legacy(const uint8_t *d, uint32_t size, int swap, uint32_t i,
    dtc_bucket *b)
{
	uint16_t factor = 0, low = 0, high = 0, nsteps = 0;
	struct llqwalk w;
	uint32_t bin = 1;

	if (llq_params(d, size, swap, &factor, &low, &high, &nsteps) != 0 ||
	    llq_start(&w, factor, low, high, nsteps) != 0)
		return DTC_FAILED;
	b->count = word(d, i + 1, swap);
	if (i == 0) {
		b->has_min = 0;
		b->max = w.value - 1;
		return DTC_OK;
	}
	while (w.order <= w.high) {
		if (bin == i) {
			b->min = w.value;
			b->max = w.value + w.step - 1;
			return DTC_OK;
		}
		bin++;
		if (llq_step(&w) != 0)
			return DTC_FAILED;
	}
	if (bin != i)
		return DTC_FAILED;
	b->min = w.value;
	b->has_max = 0;
	return DTC_OK;
}

static uint32_t
llq_nbuckets_v2(const uint8_t *d, uint32_t size, int swap)
{
	dtcp_llq2 p;

	if (d == NULL || size < 8 || size % 8 != 0 ||
	    dtcp_llq2_params(dtcp_ld64(d, swap), size / 8, &p) != 0)
		return 0;
	return p.nbins;
}

/* A bound beyond int64 (factor^(hmag+1) may be 2^63 or more) clamps. */
static int64_t
llq2_pos(uint64_t x)
{
	return x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x;
}

static int64_t
llq2_neg(uint64_t x)
{
	return x > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)x;
}

/*
 * Bucket bin0 + k holds [lower(k), lower(next labelled) - 1]; bin0 - k is
 * its mirror image.  A ghost bin holds no integer and has no bucket
 * (DTC_FAILED), as it has no row in dtrace's text.
 */
static int
llq_bucket_v2(const uint8_t *d, uint32_t size, int swap, uint32_t i,
    dtc_bucket *b)
{
	dtcp_llq2 p;
	uint64_t lo, hi, scale;
	uint32_t k, n;

	if (d == NULL || size < 8 || size % 8 != 0 ||
	    dtcp_llq2_params(dtcp_ld64(d, swap), size / 8, &p) != 0 ||
	    i >= p.nbins)
		return DTC_FAILED;
	b->count = word(d, i + 1, swap);
	scale = upow(p.factor, p.lmag);
	if (i == p.bin0) {
		b->min = -(int64_t)(scale - 1);
		b->max = (int64_t)(scale - 1);
		return DTC_OK;
	}
	k = i > p.bin0 ? i - p.bin0 : p.bin0 - i;
	if (k == p.bin0) {
		/* the overflow buckets: abs(v) >= factor^(hmag+1) */
		lo = upow(p.factor, p.hmag + 1u);
		if (i == 0) {
			b->has_min = 0;
			b->max = llq2_neg(lo);
		} else {
			b->min = llq2_pos(lo);
			b->has_max = 0;
		}
		return DTC_OK;
	}
	if (llq2_lower(&p, k, &lo) != 0)
		return DTC_FAILED;
	for (n = k + 1; llq2_lower(&p, n, &hi) != 0; n++)
		;
	hi--;
	if (i > p.bin0) {
		b->min = llq2_pos(lo);
		b->max = llq2_pos(hi);
	} else {
		b->min = llq2_neg(hi);
		b->max = llq2_neg(lo);
	}
	return DTC_OK;
}

/*
 * The public bucket functions have no reader to ask for the flavor, so
 * they go by the parameter word: no word passes both checks, legacy
 * needing bits 32-47 < bits 16-31 (low < high) and v2 bits 16-31 <=
 * bits 32-47 (lmag <= hmag), and v2 pinning the size as well.
 */
static const struct llqops *
llq_ops_of(const dtc_aggval *v)
{
	dtcp_llq2 p;

	if (v->data != NULL && v->size >= 8 && v->size % 8 == 0 &&
	    dtcp_llq2_params(dtcp_ld64(v->data, v->swapped), v->size / 8,
	    &p) == 0)
		return &llq_v2;
	return &llq_legacy;
}

int
dtcp_hist_render(const dtcp_capture *r, uint16_t func, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_buf *out, dtc_error *err)
{
	struct histopt ho;

	hist_opts(r, &ho);
	switch (func) {
	case DTC_AGG_QUANTIZE:
		return hist_quantize(out, &ho, d, size, swap, normal, err);
	case DTC_AGG_LQUANTIZE:
		return hist_lquantize(out, &ho, d, size, swap, normal, err);
	case DTC_AGG_LLQUANTIZE:
		return llq_ops(r)->render(out, &ho, d, size, swap, normal,
		    err);
	}
	return mismatch(err);
}

int
dtc_capture_hist_render(const dtcp_capture *r, const dtc_aggval *v,
    dtc_buf *out)
{
	if (v == NULL || out == NULL)
		return DTC_FAILED;
	return dtcp_hist_render(r, v->func, v->data, v->size, v->swapped,
	    v->normal, out, NULL);
}

int64_t
dtc_aggval_scalar(const dtc_aggval *v)
{
	uint64_t w[4];

	if (v == NULL)
		return 0;
	switch (v->func) {
	case DTC_AGG_COUNT:
	case DTC_AGG_SUM:
	case DTC_AGG_MIN:
	case DTC_AGG_MAX:
		/* (long long)v / normal: normal is unsigned, so is the
		 * division */
		if (dtcp_agg_words(v->data, v->size, v->swapped, w, 1) != 0)
			return 0;
		return (int64_t)udiv64(w[0], v->normal);
	case DTC_AGG_AVG:
		if (dtcp_agg_words(v->data, v->size, v->swapped, w, 2) != 0 ||
		    w[0] == 0)
			return 0;
		return sdiv64(sdiv64((int64_t)w[1], (int64_t)v->normal),
		    (int64_t)w[0]);
	case DTC_AGG_STDDEV:
		if (dtcp_agg_words(v->data, v->size, v->swapped, w, 4) != 0)
			return 0;
		return (int64_t)dtcp_stddev_words(w, v->normal);
	}
	return 0;
}

uint64_t
dtc_aggval_stddev(const dtc_aggval *v)
{
	uint64_t w[4];

	if (v == NULL || v->func != DTC_AGG_STDDEV ||
	    dtcp_agg_words(v->data, v->size, v->swapped, w, 4) != 0)
		return 0;
	return dtcp_stddev_words(w, v->normal);
}

uint64_t
dtc_aggval_avg_unsigned(const dtc_aggval *v)
{
	uint64_t w[2];

	if (v == NULL || v->func != DTC_AGG_AVG ||
	    dtcp_agg_words(v->data, v->size, v->swapped, w, 2) != 0 || w[0] == 0)
		return 0;
	return udiv64(udiv64(w[1], v->normal), w[0]);
}

/* An llquantize value's buckets: apart, so that the quantize path below
 * stays a leaf without the frame of the flavor's checks. */
static __attribute__((noinline)) uint32_t
llq_nbuckets(const dtc_aggval *v)
{
	return llq_ops_of(v)->nbuckets(v->data, v->size, v->swapped);
}

/* dtc_aggval_nbuckets of a value with data, inline in dtc_aggval_bucket:
 * every bucket of a value asks (the exported call went through the PLT,
 * 25 instructions a quantize value's bucket where fb8e012 took 17). */
static inline uint32_t
nbuckets(const dtc_aggval *v)
{
	int32_t base;
	uint16_t a, b;

	switch (v->func) {
	case DTC_AGG_QUANTIZE:
		return v->size == QNBUCKETS * 8 ? QNBUCKETS : 0;
	case DTC_AGG_LQUANTIZE:
		if (lq_params(v->data, v->size, v->swapped, &base, &a, &b) != 0)
			return 0;
		return (uint32_t)b + 2;
	case DTC_AGG_LLQUANTIZE:
		return llq_nbuckets(v);
	}
	return 0;
}

uint32_t
dtc_aggval_nbuckets(const dtc_aggval *v)
{
	if (v == NULL || v->data == NULL)
		return 0;
	return nbuckets(v);
}

int
dtc_aggval_bucket(const dtc_aggval *v, uint32_t i, dtc_bucket *b)
{
	if (v == NULL || v->data == NULL || b == NULL || i >= nbuckets(v))
		return DTC_FAILED;
	memset(b, 0, sizeof(*b));
	b->has_min = b->has_max = 1;
	switch (v->func) {
	case DTC_AGG_QUANTIZE:
		b->count = word(v->data, i, v->swapped);
		if (i < QZERO) {
			/* value -2^k holds -2^(k+1) < x <= -2^k; the lowest
			 * bucket also takes INT64_MIN */
			int k = QZERO - 1 - (int)i;

			b->max = -(int64_t)((uint64_t)1 << k);
			b->min = i == 0 ? INT64_MIN :
			    -(int64_t)((uint64_t)1 << (k + 1)) + 1;
		} else if (i == QZERO) {
			b->min = b->max = 0;
		} else {
			int k = (int)i - QZERO - 1;

			b->min = (int64_t)((uint64_t)1 << k);
			b->max = i == QNBUCKETS - 1 ? INT64_MAX :
			    (int64_t)((uint64_t)1 << (k + 1)) - 1;
		}
		return DTC_OK;
	case DTC_AGG_LQUANTIZE: {
		int32_t base = 0;
		uint16_t step = 0, levels = 0;

		if (lq_params(v->data, v->size, v->swapped, &base, &step,
		    &levels) != 0)
			return DTC_FAILED;
		b->count = word(v->data, i + 1, v->swapped);
		if (i == 0) {
			b->has_min = 0;
			b->max = (int64_t)base - 1;
		} else if (i == (uint32_t)levels + 1) {
			b->min = (int64_t)base + (int64_t)levels * step;
			b->has_max = 0;
		} else {
			b->min = (int64_t)base + (int64_t)(i - 1) * step;
			b->max = b->min + step - 1;
		}
		return DTC_OK;
	}
	case DTC_AGG_LLQUANTIZE:
		return llq_ops_of(v)->bucket(v->data, v->size, v->swapped, i,
		    b);
	}
	return DTC_FAILED;
}
