/*
 * json.c - JSON Lines through jansson: one compact object per line,
 * written and flushed as soon as its event is decoded.
 *
 * Encoding rules of the data model in JSON: integers within +-(2^53-1)
 * are numbers, larger ones decimal strings (so that every JSON reader
 * keeps them exact); addresses are "0x..." strings; byte data is lower
 * case hex; 128-bit integers are decimal strings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "model.h"

#define MAXDEPTH 64
#define SAFE_INT 9007199254740991LL  /* 2^53 - 1 */

typedef struct jout {
	model_out base;
	json_t *stack[MAXDEPTH];
	int depth;
	json_t *root;
	char key[128];
	int have_key;
	char *hex;
	size_t hexcap;
	char *line;              /* the line's text, then one fwrite */
	size_t linecap;
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

static void
put(jout *j, json_t *v)
{
	json_t *top;

	if (v == NULL)
		return;
	if (j->depth == 0) {
		if (j->root != NULL)
			json_decref(j->root);
		j->root = v;
		return;
	}
	top = j->stack[j->depth - 1];
	if (json_is_object(top))
		json_object_set_new(top, j->have_key ? j->key : "", v);
	else
		json_array_append_new(top, v);
	j->have_key = 0;
}

static void
open_c(model_out *o, json_t *c)
{
	jout *j = (jout *)o;

	if (c == NULL)
		return;
	json_incref(c);
	put(j, c);
	if (j->depth < MAXDEPTH)
		j->stack[j->depth++] = c;
	else
		json_decref(c);
}

static void
close_c(model_out *o)
{
	jout *j = (jout *)o;

	if (j->depth > 0) {
		json_decref(j->stack[j->depth - 1]);
		j->depth--;
	}
}

static void map_begin(model_out *o) { open_c(o, json_object()); }
static void arr_begin(model_out *o) { open_c(o, json_array()); }

static void
key(model_out *o, const char *k)
{
	jout *j = (jout *)o;
	size_t n = strnlen(k, sizeof(j->key) - 1);

	/* a copy, not snprintf: this runs for every value of every line */
	memcpy(j->key, k, n);
	j->key[n] = '\0';
	j->have_key = 1;
}

static void
i64(model_out *o, int64_t v)
{
	char s[32];

	if (v >= -SAFE_INT && v <= SAFE_INT) {
		put((jout *)o, json_integer(v));
		return;
	}
	snprintf(s, sizeof(s), "%" PRId64, v);
	put((jout *)o, json_string(s));
}

static void
u64(model_out *o, uint64_t v)
{
	char s[32];

	if (v <= (uint64_t)SAFE_INT) {
		put((jout *)o, json_integer((json_int_t)v));
		return;
	}
	snprintf(s, sizeof(s), "%" PRIu64, v);
	put((jout *)o, json_string(s));
}

static void
addr(model_out *o, uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%" PRIx64, v);
	put((jout *)o, json_string(s));
}

static void
u128(model_out *o, uint64_t hi, uint64_t lo)
{
	unsigned __int128 v = (unsigned __int128)hi << 64 | lo;
	char s[48], *p = s + sizeof(s) - 1;

	if (hi == 0) {
		u64(o, lo);
		return;
	}
	*p = '\0';
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v != 0);
	put((jout *)o, json_string(p));
}

static void
str(model_out *o, const char *s, size_t len)
{
	/* json_stringn checks UTF-8 and gives NULL when the bytes are not
	 * (capture bytes are arbitrary): keep them readable as Latin-1
	 * rather than lose them */
	json_t *v = json_stringn(s, len);

	if (v == NULL) {
		char *u = malloc(len * 2 + 1);
		size_t i, n = 0;

		if (u == NULL)
			return;
		for (i = 0; i < len; i++) {
			unsigned char c = (unsigned char)s[i];

			if (c < 0x80) {
				u[n++] = (char)c;
			} else {
				u[n++] = (char)(0xc0 | c >> 6);
				u[n++] = (char)(0x80 | (c & 0x3f));
			}
		}
		v = json_stringn(u, n);
		free(u);
	}
	put((jout *)o, v);
}

static void
bytes(model_out *o, const void *p, size_t len)
{
	static const char hexd[] = "0123456789abcdef";
	jout *j = (jout *)o;
	const uint8_t *b = p;
	size_t i;

	if (j->hexcap < len * 2 + 1) {
		char *h = realloc(j->hex, len * 2 + 1);

		if (h == NULL)
			return;
		j->hex = h;
		j->hexcap = len * 2 + 1;
	}
	for (i = 0; i < len; i++) {
		j->hex[2 * i] = hexd[b[i] >> 4];
		j->hex[2 * i + 1] = hexd[b[i] & 15];
	}
	put(j, json_stringn(j->hex, len * 2));
}

static void dbl(model_out *o, double v) { put((jout *)o, json_real(v)); }
static void null(model_out *o) { put((jout *)o, json_null()); }
static void boolean(model_out *o, int v) { put((jout *)o, json_boolean(v)); }

static int
line_end(model_out *o)
{
	jout *j = (jout *)o;
	int rc = 0;

	while (j->depth > 0)
		close_c(o);
	if (j->root != NULL) {
		/*
		 * Into memory, then one fwrite: json_dumpf calls fwrite for
		 * every token, a quarter of the JSON output's time.
		 */
		size_t n = json_dumpb(j->root, j->line, j->linecap,
		    JSON_COMPACT);

		if (n + 1 > j->linecap) {
			char *l = realloc(j->line, n + 1);

			if (l == NULL) {
				n = 0;
			} else {
				j->line = l;
				j->linecap = n + 1;
				n = json_dumpb(j->root, j->line, j->linecap,
				    JSON_COMPACT);
			}
		}
		if (n == 0 || n + 1 > j->linecap) {
			rc = -1;
		} else {
			j->line[n] = '\n';
			if (fwrite(j->line, 1, n + 1, o->fp) != n + 1)
				rc = -1;
		}
		json_decref(j->root);
		j->root = NULL;
	}
	/* a line is written as soon as its event is decoded (jq -c | ...) */
	if (j->flush && fflush(o->fp) != 0)
		rc = -1;
	return rc;
}

static void
jfree(model_out *o)
{
	jout *j = (jout *)o;

	while (j->depth > 0)
		close_c(o);
	if (j->root != NULL)
		json_decref(j->root);
	free(j->hex);
	free(j->line);
	free(j);
}

static const model_ops json_ops = {
	map_begin, close_c, arr_begin, close_c, key, i64, u64, addr, u128,
	str, bytes, dbl, null, boolean, line_end, jfree,
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
