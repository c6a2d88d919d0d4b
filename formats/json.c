/*
 * json.c - JSON Lines: one compact object per line, written as soon as
 * its event is decoded.
 *
 * Encoding rules of the data model in JSON: integers within +-(2^53-1)
 * are numbers, larger ones decimal strings (so that every JSON reader
 * keeps them exact); addresses are "0x..." strings; byte data is lower
 * case hex; 128-bit integers are decimal strings.
 *
 * Why this writes the text itself rather than building jansson trees:
 * jansson has no streaming encoder, and a tree per line (an allocation
 * per value, a hash table per object, a loop-check table while dumping)
 * cost 9 us a line, thirty times what the decoding costs.  The builder
 * calls of model.c arrive in document order, so punctuation, keys (all
 * of them plain ASCII literals of model.c) and integers are written
 * straight into the line.  Every string that needs more than quoting
 * (escapes, non-ASCII, bytes that are not UTF-8) and every real number
 * is encoded by jansson, so its escaping and number rules stay the ones
 * JSON readers see; the output is byte for byte what json_dumpb() of the
 * equivalent tree gives.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "digits.h"
#include "model.h"

#define MAXDEPTH 64
#define SAFE_INT 9007199254740991LL  /* 2^53 - 1 */

typedef struct jout {
	model_out base;
	char *line;              /* the line's text, then one fwrite */
	size_t len, cap;
	int nomem;               /* the line is lost: out of memory */
	int depth;               /* open containers */
	int deep;                /* containers opened past MAXDEPTH: dropped */
	unsigned char isobj[MAXDEPTH];
	unsigned char nonempty[MAXDEPTH];
	const char *key;         /* the pending key (a literal of model.c) */
	size_t keylen;
	char *tmp;               /* hex and Latin-1 scratch */
	size_t tmpcap;
	/* jansson's escape of each ASCII byte that needs one (esclen 0:
	 * not asked yet); "\u001f" is the longest */
	char esc[128][6];
	unsigned char esclen[128];
	int flush;               /* flush every line (see flush_lines) */
} jout;

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

/* Grow the line for n more bytes; NULL (and the line is lost) if not. */
static char *
grow(jout *j, size_t n)
{
	size_t cap = j->cap ? j->cap : 4096;
	char *p;

	while (cap - j->len < n) {
		if (cap > SIZE_MAX / 2)
			goto nomem;
		cap *= 2;
	}
	if ((p = realloc(j->line, cap)) == NULL)
		goto nomem;
	j->line = p;
	j->cap = cap;
	return j->line + j->len;
nomem:
	j->nomem = 1;
	return NULL;
}

/* n more bytes of line, or NULL */
static inline char *
room(jout *j, size_t n)
{
	if (j->cap - j->len >= n)
		return j->line + j->len;
	return grow(j, n);
}

static inline void
append(jout *j, const char *s, size_t n)
{
	char *p = room(j, n);

	if (p != NULL) {
		memcpy(p, s, n);
		j->len += n;
	}
}

/*
 * Start a value: the comma and the key it needs where it goes.  Returns 0
 * when the value must not be written (inside a dropped container).
 * A value at the top level starts a new line, as a new root replaced the
 * old one in a tree.
 */
static inline int
begin_value(jout *j)
{
	const char *k = j->key;
	int d = j->depth;

	j->key = NULL;
	if (j->deep > 0)
		return 0;
	if (d == 0) {
		j->len = 0;
		j->nomem = 0;
		return 1;
	}
	if (j->nonempty[d - 1])
		append(j, ",", 1);
	j->nonempty[d - 1] = 1;
	if (j->isobj[d - 1]) {
		size_t n = k != NULL ? j->keylen : 0;
		char *p = room(j, n + 3);

		if (p != NULL) {
			p[0] = '"';
			memcpy(p + 1, k, n);
			p[n + 1] = '"';
			p[n + 2] = ':';
			j->len += n + 3;
		}
	}
	return 1;
}

/* memcpy for the short keys of model.c without a call: two moves that
 * overlap, neither outside [s, s + n) */
static inline void
copy_short(char *d, const char *s, size_t n)
{
	uint64_t a8, b8;
	uint32_t a4, b4;

	if (n >= 8 && n <= 16) {
		memcpy(&a8, s, 8);
		memcpy(&b8, s + n - 8, 8);
		memcpy(d, &a8, 8);
		memcpy(d + n - 8, &b8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&a4, s, 4);
		memcpy(&b4, s + n - 4, 4);
		memcpy(d, &a4, 4);
		memcpy(d + n - 4, &b4, 4);
	} else if (n > 16) {
		memcpy(d, s, n);
	} else if (n > 0) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

/*
 * begin_value for a scalar of at most n bytes, with room for them after
 * the comma and key: where to write it (then add its length to j->len),
 * or NULL when it is not to be written or there is no memory.  One
 * check of the room per value instead of one per part.
 */
static inline __attribute__((always_inline)) char *
value_at(jout *j, size_t n)
{
	const char *k = j->key;
	int d = j->depth;
	size_t kn;
	char *p;

	if (d == 0 || j->deep > 0) {
		if (!begin_value(j))
			return NULL;
		return room(j, n);
	}
	j->key = NULL;
	kn = j->isobj[d - 1] ? (k != NULL ? j->keylen : 0) : 0;
	if ((p = room(j, n + kn + 4)) == NULL)
		return NULL;
	if (j->nonempty[d - 1]) {
		*p++ = ',';
		j->len++;
	}
	j->nonempty[d - 1] = 1;
	if (j->isobj[d - 1]) {
		p[0] = '"';
		copy_short(p + 1, k, kn);
		p[kn + 1] = '"';
		p[kn + 2] = ':';
		p += kn + 3;
		j->len += kn + 3;
	}
	return p;
}

static void
open_c(jout *j, int obj)
{
	if (!begin_value(j)) {
		j->deep++;
		return;
	}
	if (j->depth == MAXDEPTH) {
		/* a tree would have kept the container and dropped its
		 * contents; nothing in the data model nests this deep */
		append(j, obj ? "{}" : "[]", 2);
		j->deep++;
		return;
	}
	append(j, obj ? "{" : "[", 1);
	j->isobj[j->depth] = (unsigned char)obj;
	j->nonempty[j->depth] = 0;
	j->depth++;
}

static void
close_c(model_out *o)
{
	jout *j = (jout *)o;

	if (j->deep > 0) {
		j->deep--;
		return;
	}
	if (j->depth > 0) {
		j->depth--;
		append(j, j->isobj[j->depth] ? "}" : "]", 1);
	}
}

static void map_begin(model_out *o) { open_c((jout *)o, 1); }
static void arr_begin(model_out *o) { open_c((jout *)o, 0); }
static void
key(model_out *o, const char *k, size_t n)
{
	jout *j = (jout *)o;

	j->key = k;
	j->keylen = n;
}

static void
number(jout *j, int neg, uint64_t mag, int quoted)
{
	size_t nd = digits_count(mag), n = nd + (size_t)neg + 2 * (size_t)quoted;
	char *p;

	if ((p = value_at(j, n)) == NULL)
		return;
	j->len += n;
	if (quoted) {
		*p++ = '"';
		p[nd + (size_t)neg] = '"';
	}
	if (neg)
		*p++ = '-';
	digits_u64(p + nd, mag);
}

static void
i64(model_out *o, int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	number((jout *)o, v < 0, mag, v < -SAFE_INT || v > SAFE_INT);
}

static void
u64(model_out *o, uint64_t v)
{
	number((jout *)o, 0, v, v > (uint64_t)SAFE_INT);
}

static void
addr(model_out *o, uint64_t v)
{
	static const char hexd[] = "0123456789abcdef";
	char s[24], *p = s + sizeof(s), *d;
	jout *j = (jout *)o;
	size_t n;

	*--p = '"';
	do {
		*--p = hexd[v & 15];
		v >>= 4;
	} while (v != 0);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	if ((d = value_at(j, sizeof(s))) != NULL) {
		n = (size_t)(s + sizeof(s) - p);
		memcpy(d, p, n);
		j->len += n;
	}
}

static void
u128(model_out *o, uint64_t hi, uint64_t lo)
{
	unsigned __int128 v = (unsigned __int128)hi << 64 | lo;
	char s[48], *p = s + sizeof(s);
	jout *j = (jout *)o;

	if (hi == 0) {
		u64(o, lo);
		return;
	}
	*--p = '"';
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v != 0);
	*--p = '"';
	if (begin_value(j))
		append(j, p, (size_t)(s + sizeof(s) - p));
}

/* Append jansson's encoding of v (consumed); quotes: keep them. */
static void
dump_json(jout *j, json_t *v, int quotes)
{
	size_t n, cap = 64;
	char *p;

	for (;;) {
		if ((p = room(j, cap)) == NULL)
			break;
		n = json_dumpb(v, p, cap, JSON_ENCODE_ANY | JSON_COMPACT);
		if (n == 0 || (!quotes && n < 2)) {
			j->nomem = 1;
			break;
		}
		if (n <= cap) {
			if (!quotes) {
				memmove(p, p + 1, n - 2);
				n -= 2;
			}
			j->len += n;
			break;
		}
		cap = n;
	}
	json_decref(v);
}

/* Write jansson's encoding of v (consumed) as the next value. */
static void
put_json(jout *j, json_t *v)
{
	if (v == NULL) {
		/* json_real of a NaN: a tree would have had no member */
		j->key = NULL;
		return;
	}
	if (begin_value(j))
		dump_json(j, v, 1);
	else
		json_decref(v);
}

static int
grow_tmp(jout *j, size_t n)
{
	char *t;

	if (j->tmpcap >= n)
		return 0;
	if ((t = realloc(j->tmp, n)) == NULL) {
		j->nomem = 1;
		return -1;
	}
	j->tmp = t;
	j->tmpcap = n;
	return 0;
}

/* bytes a JSON string holds as they are: printable ASCII but '"', '\\' */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* The body of jansson's encoding of the ASCII byte c, which is not
 * plain: asked of jansson once per byte value, then reused. */
static int
ascii_escape(jout *j, unsigned char c)
{
	char *p;
	json_t *v;
	size_t mark;

	if (j->esclen[c] == 0) {
		mark = j->len;
		if ((v = json_stringn((const char *)&c, 1)) == NULL) {
			j->nomem = 1;
			return -1;
		}
		dump_json(j, v, 0);
		if (j->nomem || j->len - mark == 0 ||
		    j->len - mark > sizeof(j->esc[c])) {
			j->nomem = 1;
			return -1;
		}
		memcpy(j->esc[c], j->line + mark, j->len - mark);
		j->esclen[c] = (unsigned char)(j->len - mark);
		return 0;
	}
	if ((p = room(j, j->esclen[c])) == NULL)
		return -1;
	memcpy(p, j->esc[c], j->esclen[c]);
	j->len += j->esclen[c];
	return 0;
}

/*
 * The quoted string s, in pieces: runs of plain bytes as they are, each
 * other ASCII byte as jansson escapes it, each run of bytes >= 0x80 as
 * jansson encodes it.  jansson escapes a character at a time and a
 * multibyte character never holds an ASCII byte, so the pieces make
 * exactly its encoding of the whole string; and the whole is valid
 * UTF-8 exactly when every run >= 0x80 is.  s[0..i) are plain (the
 * caller's scan found them so, and need no second one).  Returns 1 when
 * a run >= 0x80 is not UTF-8 (nothing sensible was written), 0 when
 * done, -1 when out of memory.
 */
static int
pieces(jout *j, const char *s, size_t len, size_t i)
{
	const unsigned char *b = (const unsigned char *)s;
	size_t k;
	json_t *v;
	char *p;

	if ((p = room(j, 1)) == NULL)
		return -1;
	*p = '"';
	j->len++;
	if (i > 0)
		append(j, s, i);
	while (i < len) {
		for (k = i; k < len && plain[b[k]]; k++)
			continue;
		if (k > i) {
			append(j, s + i, k - i);
			i = k;
			continue;
		}
		if (b[i] < 0x80) {
			if (ascii_escape(j, b[i]) != 0)
				return -1;
			i++;
			continue;
		}
		for (k = i; k < len && b[k] >= 0x80; k++)
			continue;
		if ((v = json_stringn(s + i, k - i)) == NULL)
			return 1;
		dump_json(j, v, 0);
		i = k;
	}
	append(j, "\"", 1);
	return j->nomem ? -1 : 0;
}

static void
str(model_out *o, const char *s, size_t len)
{
	jout *j = (jout *)o;
	size_t i, n, mark;
	char *p;

	/* most strings (names) only need their quotes */
	for (i = 0; i < len && plain[(unsigned char)s[i]]; i++)
		continue;
	if (i == len) {
		if ((p = value_at(j, len + 2)) != NULL) {
			p[0] = '"';
			memcpy(p + 1, s, len);
			p[len + 1] = '"';
			j->len += len + 2;
		}
		return;
	}
	if (!begin_value(j))
		return;
	mark = j->len;
	if (pieces(j, s, len, i) != 1)
		return;
	/* not UTF-8 (capture bytes are arbitrary): keep them readable as
	 * Latin-1 rather than lose them */
	j->len = mark;
	if (len > (SIZE_MAX - 1) / 2 || grow_tmp(j, len * 2 + 1) != 0)
		return;
	for (i = n = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x80) {
			j->tmp[n++] = (char)c;
		} else {
			j->tmp[n++] = (char)(0xc0 | c >> 6);
			j->tmp[n++] = (char)(0x80 | (c & 0x3f));
		}
	}
	if (pieces(j, j->tmp, n, 0) == 1)
		j->nomem = 1;
}

static void
bytes(model_out *o, const void *p, size_t len)
{
	static const char hexd[] = "0123456789abcdef";
	jout *j = (jout *)o;
	const uint8_t *b = p;
	char *h;
	size_t i;

	if (!begin_value(j))
		return;
	if (len > (SIZE_MAX - 2) / 2 || (h = room(j, len * 2 + 2)) == NULL)
		return;
	*h++ = '"';
	for (i = 0; i < len; i++) {
		*h++ = hexd[b[i] >> 4];
		*h++ = hexd[b[i] & 15];
	}
	*h = '"';
	j->len += len * 2 + 2;
}

static void dbl(model_out *o, double v) { put_json((jout *)o, json_real(v)); }

static void
null(model_out *o)
{
	jout *j = (jout *)o;
	char *p;

	if ((p = value_at(j, 4)) != NULL) {
		memcpy(p, "null", 4);
		j->len += 4;
	}
}

static void
boolean(model_out *o, int v)
{
	jout *j = (jout *)o;

	if (begin_value(j))
		append(j, v ? "true" : "false", v ? 4 : 5);
}

static const void *
so_far(model_out *o, size_t *n)
{
	jout *j = (jout *)o;

	*n = j->len;
	return j->nomem || j->deep > 0 ? NULL : j->line;
}

/* bytes of a map's members, after its first one (they begin with ',') */
static void
raw(model_out *o, const void *p, size_t n)
{
	jout *j = (jout *)o;

	if (j->deep == 0)
		append(j, p, n);
}

static int
line_end(model_out *o)
{
	jout *j = (jout *)o;
	int rc = 0;

	while (j->deep > 0 || j->depth > 0)
		close_c(o);
	if (j->nomem) {
		rc = -1;
	} else if (j->len > 0) {
		append(j, "\n", 1);
		if (j->nomem || fwrite(j->line, 1, j->len, o->fp) != j->len)
			rc = -1;
	}
	j->len = 0;
	j->nomem = 0;
	j->key = NULL;
	/* a line is written as soon as its event is decoded (jq -c | ...) */
	if (j->flush && fflush(o->fp) != 0)
		rc = -1;
	return rc;
}

static void
jfree(model_out *o)
{
	jout *j = (jout *)o;

	free(j->tmp);
	free(j->line);
	free(j);
}

static const model_ops json_ops = {
	map_begin, close_c, arr_begin, close_c, key, i64, u64, addr, u128,
	str, bytes, dbl, null, boolean, so_far, raw, line_end, jfree,
};

model_out *
model_json_new(FILE *fp)
{
	jout *j = calloc(1, sizeof(*j));

	if (j == NULL)
		return NULL;
	j->base.ops = &json_ops;
	j->base.fp = fp;
	j->flush = flush_lines(fp);
	return &j->base;
}

static void *
create(const dtc_emitter_opts *o)
{
	return model_create(o, model_json_new(o->out), model_json_new(o->out));
}

const dtc_emitter dtc_fmt_json = {
	.name = "json",
	.description = "JSON Lines, one object per event (see dt2json(1))",
	.create = create,
	.destroy = model_destroy,
	.handler = MODEL_HANDLER,
};
