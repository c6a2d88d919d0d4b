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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cbor.h>

#include "model.h"

typedef struct cout {
	model_out base;
	unsigned char *buf;
	size_t len, cap;
	int nomem;
	int flush;               /* flush every line (see flush_lines) */
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

static void
text(cout *c, const char *s, size_t n)
{
	unsigned char *p;

	ENC(c, cbor_encode_string_start(n, AT(c)));
	if ((p = room(c, n)) != NULL) {
		memcpy(p, s, n);
		c->len += n;
	}
}

static void key(model_out *o, const char *k, size_t n) { text((cout *)o, k, n); }
static void str(model_out *o, const char *s, size_t n) { text((cout *)o, s, n); }

static void
i64(model_out *o, int64_t v)
{
	cout *c = (cout *)o;

	if (v >= 0)
		ENC(c, cbor_encode_uint((uint64_t)v, AT(c)));
	else
		ENC(c, cbor_encode_negint((uint64_t)(-1 - v), AT(c)));
}

static void
u64(model_out *o, uint64_t v)
{
	cout *c = (cout *)o;
	ENC(c, cbor_encode_uint(v, AT(c)));
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
	cout *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
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
