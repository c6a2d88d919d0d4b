/*
 * cbor.c - the same data model as an RFC 8742 CBOR sequence: one map per
 * line of the JSON output, encoded with libcbor's streaming encoders into
 * a reused buffer (no allocation per line once it has grown).
 *
 * Differences from JSON are only those of the encodings: integers are
 * always native CBOR integers (no decimal-string fallback), addresses are
 * unsigned integers, byte data are byte strings, 128-bit integers are
 * bignums (tag 2).  Maps and arrays use indefinite lengths, so a line can
 * be encoded while it is built.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cbor.h>

#include "model.h"

/*
 * Keys and most other texts are short and the same every line (model.c's
 * literals, probe names, action names): libcbor's encoding of each (its
 * head and bytes) is kept by the text's address in a small direct-mapped
 * memo, and reused after a compare with the text's bytes.  The calls into
 * libcbor for a head are cheap to count but three deep, and a text is
 * two thirds of the items of a line: CBOR took longer than JSON with
 * fewer instructions.  A line holds some 25 keys and a probe's five
 * names, and a text that changes every line (a message, a walltime) sits
 * at one address: in 64 slots, keys that shared a slot with one of these
 * missed every line (7.0 misses a printf firing, of which 2.1 are the
 * changing texts; in 1,024 slots 2.1: 480 instructions less a firing).
 * 57 KiB a writer, touched only where texts fall.
 */
#define MEMO_BITS 10
#define MEMO_MAX 23              /* texts whose head is one byte */
typedef struct memo {
	const char *s;           /* NULL: empty */
	size_t n;                /* the text's length */
	size_t len;              /* of its encoding (head and bytes) */
	unsigned char b[32];     /* a fixed-size copy: no call */
} memo;

typedef struct cout {
	model_out base;
	unsigned char *buf;
	size_t len, cap;
	int nomem;
	int flush;               /* flush every line (see flush_lines) */
	memo memo[1 << MEMO_BITS];
} cout;

/*
 * A line goes out as soon as its event is decoded when someone may be
 * reading as it comes (a pipe to jq, a terminal, a socket).  Into a file
 * or /dev/null that costs a write(2) per line for nothing.
 */
static int
flush_lines(FILE *fp)
{
	struct stat st;
	int fd = fileno(fp);

	if (fd < 0 || fstat(fd, &st) != 0)
		return 1;
	if (S_ISREG(st.st_mode))
		return 0;
	return !(S_ISCHR(st.st_mode) && !isatty(fd));
}

static unsigned char *
grow(cout *c, size_t n)
{
	size_t cap = c->cap ? c->cap : 4096;
	unsigned char *p;

	while (cap - c->len < n)
		cap *= 2;
	if ((p = realloc(c->buf, cap)) == NULL) {
		c->nomem = 1;
		return NULL;
	}
	c->buf = p;
	c->cap = cap;
	return c->buf + c->len;
}

static inline unsigned char *
room(cout *c, size_t n)
{
	if (c->cap - c->len >= n)
		return c->buf + c->len;
	return grow(c, n);
}

/* Encode a head (at most 9 bytes) with one of libcbor's encoders. */
#define ENC(c, call) do { \
	unsigned char *p_ = room((c), 16); \
	if (p_ != NULL) \
		(c)->len += call; \
} while (0)
#define AT(c) ((c)->buf + (c)->len), ((c)->cap - (c)->len)

static void
map_begin(model_out *o)
{
	cout *c = (cout *)o;
	ENC(c, cbor_encode_indef_map_start(AT(c)));
}

static void
arr_begin(model_out *o)
{
	cout *c = (cout *)o;
	ENC(c, cbor_encode_indef_array_start(AT(c)));
}

static void
end(model_out *o)
{
	cout *c = (cout *)o;
	ENC(c, cbor_encode_break(AT(c)));
}

/* a == b for n <= 23 bytes, with overlapping loads inside both */
static inline int
same_short(const unsigned char *a, const char *b, size_t n)
{
	uint64_t a8, b8, c8, d8;
	uint32_t a4, b4, c4, d4;

	if (n >= 16) {
		return memcmp(a, b, n) == 0;
	} else if (n >= 8) {
		memcpy(&a8, a, 8);
		memcpy(&b8, b, 8);
		memcpy(&c8, a + n - 8, 8);
		memcpy(&d8, b + n - 8, 8);
		return ((a8 ^ b8) | (c8 ^ d8)) == 0;
	} else if (n >= 4) {
		memcpy(&a4, a, 4);
		memcpy(&b4, b, 4);
		memcpy(&c4, a + n - 4, 4);
		memcpy(&d4, b + n - 4, 4);
		return ((a4 ^ b4) | (c4 ^ d4)) == 0;
	}
	return n == 0 || (a[0] == (unsigned char)b[0] &&
	    a[n / 2] == (unsigned char)b[n / 2] &&
	    a[n - 1] == (unsigned char)b[n - 1]);
}

/* Strict UTF-8 (RFC 3629: shortest forms, no surrogates, at most
 * U+10FFFF), which is what a CBOR text string must hold. */
static int
utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0, k, len;
	uint32_t cp, min;

	while (i < n) {
		unsigned char b = s[i];

		if (b < 0x80) {
			i++;
			continue;
		}
		if (b >= 0xc2 && b <= 0xdf) {
			len = 2;
			cp = b & 0x1f;
			min = 0x80;
		} else if (b >= 0xe0 && b <= 0xef) {
			len = 3;
			cp = b & 0x0f;
			min = 0x800;
		} else if (b >= 0xf0 && b <= 0xf4) {
			len = 4;
			cp = b & 0x07;
			min = 0x10000;
		} else {
			return 0;
		}
		if (n - i < len)
			return 0;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/*
 * Capture bytes are arbitrary (a kernel string with 0xff in it): a text
 * that is not UTF-8 goes out as JSON writes it (json.c), each byte as the
 * character of that number (Latin-1), so the two encodings carry the same
 * string and a CBOR decoder accepts it.
 */
static void
latin1(cout *c, const char *s, size_t n)
{
	size_t i, out = n;
	unsigned char *p;

	for (i = 0; i < n; i++)
		out += (unsigned char)s[i] >= 0x80;
	ENC(c, cbor_encode_string_start(out, AT(c)));
	if ((p = room(c, out)) == NULL)
		return;
	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b < 0x80) {
			*p++ = b;
		} else {
			*p++ = (unsigned char)(0xc0 | b >> 6);
			*p++ = (unsigned char)(0x80 | (b & 0x3f));
		}
	}
	c->len += out;
}

/*
 * Whether s is all ASCII (then UTF-8 with nothing to check), eight bytes
 * at a step with the last eight loaded overlapping, the bits OR-ed and
 * tested once: every text a memo does not hold is checked, seven a
 * printf firing.  A byte loop over the tail cost 216 instructions a
 * firing in -f cbor (fb8e012, which checked nothing: 6,078; with the
 * loop: 6,631).
 */
static int
ascii_only(const char *s, size_t n)
{
	uint64_t w, acc = 0;
	uint32_t h, t;
	size_t i;

	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			memcpy(&w, s + i, 8);
			acc |= w;
		}
		memcpy(&w, s + n - 8, 8);
		return ((acc | w) & 0x8080808080808080ULL) == 0;
	}
	if (n >= 4) {
		memcpy(&h, s, 4);
		memcpy(&t, s + n - 4, 4);
		return ((h | t) & 0x80808080U) == 0;
	}
	/* n <= 3: these three bytes are all of them */
	return n == 0 || ((s[0] | s[n / 2] | s[n - 1]) & 0x80) == 0;
}

/*
 * A text no memo holds: checked (a memo holds only checked text), encoded,
 * and kept in its memo m (NULL: too long for one).  Apart from text(),
 * whose memo hit is then a leaf that saves no registers: a hit is two
 * thirds of the texts, and the miss path's frame cost 18 instructions on
 * each of them.
 */
static __attribute__((noinline)) void
text_miss(cout *c, const char *s, size_t n, memo *m)
{
	unsigned char *p;
	size_t mark = c->len;

	if (!ascii_only(s, n) && !utf8_valid((const unsigned char *)s, n)) {
		latin1(c, s, n);
		return;
	}
	ENC(c, cbor_encode_string_start(n, AT(c)));
	if ((p = room(c, n)) != NULL) {
		memcpy(p, s, n);
		c->len += n;
	}
	if (m != NULL && !c->nomem && c->len - mark >= n &&
	    c->len - mark <= sizeof(m->b)) {
		memcpy(m->b, c->buf + mark, c->len - mark);
		m->len = c->len - mark;
		m->n = n;
		m->s = s;
	}
}

static inline void
text(cout *c, const char *s, size_t n)
{
	unsigned char *p;
	memo *m = NULL;

	if (n <= MEMO_MAX) {
		m = &c->memo[((uintptr_t)s * 0x9e3779b97f4a7c15ULL) >>
		    (64 - MEMO_BITS)];
		if (m->s == s && m->n == n &&
		    same_short(m->b + m->len - n, s, n) &&
		    c->cap - c->len >= sizeof(m->b)) {
			p = c->buf + c->len;
			memcpy(p, m->b, sizeof(m->b));
			c->len += m->len;
			return;
		}
	}
	text_miss(c, s, n, m);
}

static void key(model_out *o, const char *k, size_t n) { text((cout *)o, k, n); }
static void str(model_out *o, const char *s, size_t n) { text((cout *)o, s, n); }

/* cbor_encode_uint/negint pick the encoder of the value's width, one
 * call further down: picked here, as they pick it */
static inline size_t
enc_int(uint64_t v, int neg, unsigned char *p, size_t n)
{
	if (v <= UINT8_MAX)
		return neg ? cbor_encode_negint8((uint8_t)v, p, n) :
		    cbor_encode_uint8((uint8_t)v, p, n);
	if (v <= UINT16_MAX)
		return neg ? cbor_encode_negint16((uint16_t)v, p, n) :
		    cbor_encode_uint16((uint16_t)v, p, n);
	if (v <= UINT32_MAX)
		return neg ? cbor_encode_negint32((uint32_t)v, p, n) :
		    cbor_encode_uint32((uint32_t)v, p, n);
	return neg ? cbor_encode_negint64(v, p, n) :
	    cbor_encode_uint64(v, p, n);
}

static void
i64(model_out *o, int64_t v)
{
	cout *c = (cout *)o;

	if (v >= 0)
		ENC(c, enc_int((uint64_t)v, 0, AT(c)));
	else
		ENC(c, enc_int((uint64_t)(-1 - v), 1, AT(c)));
}

static void
u64(model_out *o, uint64_t v)
{
	cout *c = (cout *)o;
	ENC(c, enc_int(v, 0, AT(c)));
}

static void
bytes(model_out *o, const void *b, size_t n)
{
	cout *c = (cout *)o;
	unsigned char *p;

	ENC(c, cbor_encode_bytestring_start(n, AT(c)));
	if ((p = room(c, n)) != NULL) {
		memcpy(p, b, n);
		c->len += n;
	}
}

static void
u128(model_out *o, uint64_t hi, uint64_t lo)
{
	cout *c = (cout *)o;
	unsigned char mag[16];
	int i, skip = 0;

	if (hi == 0) {
		u64(o, lo);
		return;
	}
	for (i = 0; i < 8; i++) {
		mag[i] = (unsigned char)(hi >> (56 - 8 * i));
		mag[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
	}
	while (skip < 15 && mag[skip] == 0)
		skip++;
	ENC(c, cbor_encode_tag(2, AT(c)));   /* RFC 8949 unsigned bignum */
	bytes(o, mag + skip, (size_t)(16 - skip));
}

static void
dbl(model_out *o, double v)
{
	cout *c = (cout *)o;
	ENC(c, cbor_encode_double(v, AT(c)));
}

static void
null(model_out *o)
{
	cout *c = (cout *)o;
	ENC(c, cbor_encode_null(AT(c)));
}

static void
boolean(model_out *o, int v)
{
	cout *c = (cout *)o;
	ENC(c, cbor_encode_bool(v != 0, AT(c)));
}

static const void *
so_far(model_out *o, size_t *n)
{
	cout *c = (cout *)o;

	*n = c->len;
	return c->nomem ? NULL : c->buf;
}

static void
raw(model_out *o, const void *p, size_t n)
{
	cout *c = (cout *)o;
	unsigned char *q;

	if ((q = room(c, n)) != NULL) {
		memcpy(q, p, n);
		c->len += n;
	}
}

static int
line_end(model_out *o)
{
	cout *c = (cout *)o;
	int rc = 0;

	if (c->nomem)
		rc = -1;
	else if (c->len > 0 && fwrite(c->buf, 1, c->len, o->fp) != c->len)
		rc = -1;
	c->len = 0;
	c->nomem = 0;
	if (c->flush && fflush(o->fp) != 0)
		rc = -1;
	return rc;
}

static void
cfree(model_out *o)
{
	cout *c = (cout *)o;

	free(c->buf);
	free(c);
}

static const model_ops cbor_ops = {
	map_begin, end, arr_begin, end, key, i64, u64, u64, u128, str,
	bytes, dbl, null, boolean, so_far, raw, line_end, cfree,
};

model_out *
model_cbor_new(FILE *fp)
{
	cout *c = malloc(sizeof(*c));
	size_t i;

	if (c == NULL)
		return NULL;
	/* a memo slot is empty by its text pointer alone (its other fields
	 * are read only when that matches): zeroing all 57 KiB cost 50,000
	 * instructions a writer */
	memset(c, 0, offsetof(cout, memo));
	for (i = 0; i < sizeof(c->memo) / sizeof(c->memo[0]); i++)
		c->memo[i].s = NULL;
	c->base.ops = &cbor_ops;
	c->base.fp = fp;
	c->flush = flush_lines(fp);
	return &c->base;
}

static void *
create(const dtc_emitter_opts *o)
{
	return model_create(o, model_cbor_new(o->out), model_cbor_new(o->out));
}

const dtc_emitter dtc_fmt_cbor = {
	.name = "cbor",
	.description = "the JSON data model as an RFC 8742 CBOR sequence",
	.create = create,
	.destroy = model_destroy,
	.handler = MODEL_HANDLER,
};
