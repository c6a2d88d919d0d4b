/*
 * modeltape.c - model.c's builder calls as a tape (modeltape.h).
 *
 * Each value is converted here once, as it is built, to what json.c's
 * text of it reads back as (the rules are json.c's, which says why they
 * are what they are); the ops and their text live in two arrays that
 * grow to the largest line and are reused, so a line costs no
 * allocation.  so_far gives nothing: model.c then builds every member
 * (its byte cache is for encoders that write bytes).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modeltape.h"

#define MAXDEPTH 64              /* json.c's: deeper containers empty */
#define SAFE_INT 9007199254740991LL  /* 2^53 - 1 */

typedef struct mtape {
	model_out base;
	mt_op *ops;
	size_t n, cap;
	size_t line;             /* where the line being built starts */
	dtc_buf text;
	size_t open[MAXDEPTH];   /* the open containers' ops */
	int depth, deep;
	const char *key;         /* the pending key (a literal of model.c) */
	size_t keylen;
	int bad;                 /* the line being built is lost */
	int nomem;               /* a line was lost */
} mtape;

/* The next op (with the pending key in a map), or NULL: not to be kept
 * (inside a container past the depth) or no memory. */
static mt_op *
add(mtape *t, int op)
{
	const char *k = t->key;
	size_t kn = t->keylen;
	mt_op *o;

	t->key = NULL;
	if (t->deep > 0 || t->bad)
		return NULL;
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 256;
		mt_op *no = realloc(t->ops, nc * sizeof(*no));

		if (no == NULL) {
			t->bad = 1;
			return NULL;
		}
		t->ops = no;
		t->cap = nc;
	}
	o = &t->ops[t->n];
	memset(o, 0, sizeof(*o));
	o->op = op;
	if (t->depth > 0 && t->ops[t->open[t->depth - 1]].op == MT_MAP &&
	    k != NULL && kn > 0) {
		o->key = t->text.len;
		o->klen = kn;
		/* NUL-ended: a name that is not interned is written inline */
		if (dtc_buf_append(&t->text, k, kn) != 0 ||
		    dtc_buf_append(&t->text, "", 1) != 0) {
			t->bad = 1;
			return NULL;
		}
	}
	if (t->depth > 0)
		t->ops[t->open[t->depth - 1]].nkids++;
	t->n++;
	return o;
}

static void
open_c(model_out *mo, int op)
{
	mtape *t = (mtape *)mo;
	mt_op *o;

	if (t->deep > 0 || t->bad) {
		t->key = NULL;
		t->deep++;
		return;
	}
	if (t->depth == 0)
		t->line = t->n;
	if ((o = add(t, op)) == NULL) {
		t->deep++;
		return;
	}
	if (t->depth == MAXDEPTH) {
		/* json.c writes it empty; its end is no value of the parent */
		if (add(t, MT_END) != NULL)
			t->ops[t->open[t->depth - 1]].nkids--;
		t->deep++;
		return;
	}
	t->open[t->depth++] = t->n - 1;
}

static void map_begin(model_out *o) { open_c(o, MT_MAP); }
static void arr_begin(model_out *o) { open_c(o, MT_ARR); }

static void
close_c(model_out *mo)
{
	mtape *t = (mtape *)mo;
	mt_op *o;

	if (t->deep > 0) {
		t->deep--;
		return;
	}
	if (t->depth == 0)
		return;
	t->depth--;
	/* the end is no value of the container */
	t->key = NULL;
	if ((o = add(t, MT_END)) != NULL && t->depth > 0)
		t->ops[t->open[t->depth - 1]].nkids--;
	(void)o;
}

static void
key(model_out *mo, const char *k, size_t n)
{
	mtape *t = (mtape *)mo;

	t->key = k;
	t->keylen = n;
}

/* a text value of n bytes at s, kept in the tape's text */
static void
text_value(mtape *t, const char *s, size_t n)
{
	mt_op *o;
	size_t off;

	if ((o = add(t, MT_STR)) == NULL)
		return;
	off = t->text.len;
	/* NUL-ended too: a string value may go inline */
	if (dtc_buf_append(&t->text, s, n) != 0 ||
	    dtc_buf_append(&t->text, "", 1) != 0) {
		t->bad = 1;
		return;
	}
	o->v.s.off = off;
	o->v.s.len = n;
}

static void
int_value(mtape *t, int64_t v)
{
	mt_op *o;

	if ((o = add(t, MT_INT)) != NULL)
		o->v.i = v;
}

static void
i64(model_out *mo, int64_t v)
{
	char s[24];

	if (v >= -SAFE_INT && v <= SAFE_INT)
		int_value((mtape *)mo, v);
	else
		text_value((mtape *)mo, s, (size_t)snprintf(s, sizeof(s),
		    "%" PRId64, v));
}

static void
u64(model_out *mo, uint64_t v)
{
	char s[24];

	if (v <= (uint64_t)SAFE_INT)
		int_value((mtape *)mo, (int64_t)v);
	else
		text_value((mtape *)mo, s, (size_t)snprintf(s, sizeof(s),
		    "%" PRIu64, v));
}

static void
addr(model_out *mo, uint64_t v)
{
	char s[24];

	text_value((mtape *)mo, s, (size_t)snprintf(s, sizeof(s),
	    "0x%" PRIx64, v));
}

static void
u128(model_out *mo, uint64_t hi, uint64_t lo)
{
	unsigned __int128 v = (unsigned __int128)hi << 64 | lo;
	char s[48], *p = s + sizeof(s);

	if (hi == 0) {
		u64(mo, lo);
		return;
	}
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v != 0);
	text_value((mtape *)mo, p, (size_t)(s + sizeof(s) - p));
}

/* The length of the well-formed UTF-8 character at s (n bytes left), 0
 * when there is none: RFC 3629, as jansson checks it (no overlong
 * forms, no surrogates, nothing past U+10FFFF). */
static size_t
utf8_char(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	if (len == 0 || len > n)
		return 0;
	c = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return len;
}

static void
str(model_out *mo, const char *s, size_t len)
{
	mtape *t = (mtape *)mo;
	const unsigned char *b = (const unsigned char *)s;
	size_t i, k, off;
	mt_op *o;

	for (i = 0; i < len; i += k)
		if ((k = utf8_char(b + i, len - i)) == 0)
			break;
	if (i == len) {
		text_value(t, s, len);
		return;
	}
	/* not UTF-8: read as Latin-1, as json.c writes it */
	if ((o = add(t, MT_STR)) == NULL)
		return;
	off = t->text.len;
	for (i = 0; i < len; i++) {
		char two[2] = { (char)(0xc0 | b[i] >> 6),
		    (char)(0x80 | (b[i] & 0x3f)) };

		if (b[i] < 0x80 ? dtc_buf_append(&t->text, s + i, 1) != 0 :
		    dtc_buf_append(&t->text, two, 2) != 0) {
			t->bad = 1;
			return;
		}
	}
	o->v.s.off = off;
	o->v.s.len = t->text.len - off;
	if (dtc_buf_append(&t->text, "", 1) != 0)
		t->bad = 1;
}

static void
bytes(model_out *mo, const void *p, size_t len)
{
	static const char hexd[] = "0123456789abcdef";
	mtape *t = (mtape *)mo;
	const uint8_t *b = p;
	size_t i, off;
	mt_op *o;

	if ((o = add(t, MT_STR)) == NULL)
		return;
	off = t->text.len;
	for (i = 0; i < len; i++) {
		char h[2] = { hexd[b[i] >> 4], hexd[b[i] & 15] };

		if (dtc_buf_append(&t->text, h, 2) != 0) {
			t->bad = 1;
			return;
		}
	}
	o->v.s.off = off;
	o->v.s.len = 2 * len;
	if (dtc_buf_append(&t->text, "", 1) != 0)
		t->bad = 1;
}

static void
dbl(model_out *mo, double v)
{
	mtape *t = (mtape *)mo;
	mt_op *o;

	if (!isfinite(v)) {
		/* jansson has no such real: json.c writes no member */
		t->key = NULL;
		return;
	}
	if ((o = add(t, MT_DBL)) != NULL)
		o->v.d = v;
}

static void
null(model_out *mo)
{
	mtape *t = (mtape *)mo;

	if (t->depth > 0 && t->deep == 0 &&
	    t->ops[t->open[t->depth - 1]].op == MT_MAP) {
		/* a member without a value: a reader leaves it out */
		t->key = NULL;
		return;
	}
	add(t, MT_NULL);
}

static void
boolean(model_out *mo, int v)
{
	mt_op *o;

	if ((o = add((mtape *)mo, MT_BOOL)) != NULL)
		o->v.b = v != 0;
}

static const void *
so_far(model_out *mo, size_t *n)
{
	(void)mo;
	*n = 0;
	return NULL;
}

static void
raw(model_out *mo, const void *p, size_t n)
{
	/* never called: so_far gave nothing to cache */
	(void)p;
	(void)n;
	((mtape *)mo)->bad = 1;
}

static int
line_end(model_out *mo)
{
	mtape *t = (mtape *)mo;
	int rc = 0;

	while (t->deep > 0 || t->depth > 0)
		close_c(mo);
	if (t->bad) {
		t->n = t->line;  /* the line is lost, as json.c loses it */
		t->nomem = 1;
		rc = -1;
	} else if (t->n > t->line) {
		t->key = NULL;
		if (add(t, MT_LINE) == NULL) {
			t->n = t->line;
			t->nomem = 1;
			rc = -1;
		}
	}
	t->line = t->n;
	t->bad = 0;
	t->key = NULL;
	return rc;
}

static void
mtfree(model_out *mo)
{
	mtape *t = (mtape *)mo;

	free(t->ops);
	dtc_buf_free(&t->text);
	free(t);
}

static const model_ops tape_ops = {
	map_begin, close_c, arr_begin, close_c, key, i64, u64, addr, u128,
	str, bytes, dbl, null, boolean, so_far, raw, line_end, mtfree,
};

model_out *
modeltape_new(void)
{
	mtape *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->base.ops = &tape_ops;
	dtc_buf_init(&t->text);
	return &t->base;
}

void
modeltape_drain(model_out *mo, void *arg,
    void (*fn)(void *arg, const mt_op *ops, size_t n, const char *text))
{
	mtape *t = (mtape *)mo;
	size_t i, start = 0;

	for (i = 0; i < t->line; i++) {
		if (t->ops[i].op != MT_LINE)
			continue;
		fn(arg, t->ops + start, i - start, t->text.s);
		start = i + 1;
	}
	/* a line still being built stays (its text too) */
	if (t->n > t->line) {
		memmove(t->ops, t->ops + t->line,
		    (t->n - t->line) * sizeof(*t->ops));
		for (i = 0; i < (size_t)t->depth; i++)
			t->open[i] -= t->line;
		t->n -= t->line;
		t->line = 0;
		return;
	}
	t->n = t->line = 0;
	dtc_buf_reset(&t->text);
}

int
modeltape_nomem(const model_out *mo)
{
	return ((const mtape *)mo)->nomem;
}

int
modeltape_starts(const mt_op *ops, size_t n, const char *text,
    const char *type)
{
	size_t tl = strlen(type);

	return n >= 2 && ops[0].op == MT_MAP && ops[1].op == MT_STR &&
	    ops[1].klen == 4 && memcmp(text + ops[1].key, "type", 4) == 0 &&
	    ops[1].v.s.len == tl && memcmp(text + ops[1].v.s.off, type,
	    tl) == 0;
}
