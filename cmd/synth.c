/*
 * synth.c - dtsnap synth: the description format (testdata/SYNTH.md,
 * dtsnap(1)) read with jansson, and the driver that writes the capture
 * through the public writer API (dtc_writer_*).
 *
 * The layout work is elsewhere: principal records, buffers and rings in
 * synth_records.c, aggregation entries in synth_aggs.c.  This file owns
 * the JSON path shown in every error, the typed getters, and the order
 * in which items are written.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "synth_private.h"

/* ------------------------------------------------------------------ */
/* Paths and errors                                                    */
/* ------------------------------------------------------------------ */

/* A path too long for the buffer keeps its head and ends in "..." */
static size_t
path_add(synth *s, const char *piece)
{
	size_t mark = s->plen, n = strlen(piece);

	if (s->plen + n + 4 >= sizeof(s->path)) {
		if (s->plen + 4 < sizeof(s->path)) {
			memcpy(s->path + s->plen, "...", 4);
			s->plen += 3;
		}
		return mark;
	}
	memcpy(s->path + s->plen, piece, n + 1);
	s->plen += n;
	return mark;
}

size_t
sy_key(synth *s, const char *key)
{
	char piece[80];

	snprintf(piece, sizeof(piece), "%s%s", s->plen > 0 ? "." : "", key);
	return path_add(s, piece);
}

size_t
sy_idx(synth *s, size_t i)
{
	char piece[32];

	snprintf(piece, sizeof(piece), "[%zu]", i);
	return path_add(s, piece);
}

void
sy_pop(synth *s, size_t mark)
{
	if (mark <= s->plen) {
		s->plen = mark;
		s->path[mark] = '\0';
	}
}

int
sy_fail(synth *s, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!s->failed)
		dtc_error_set(s->err, DTC_E_BADVALUE, s->name, -1, -1, -1,
		    "%s: %s", s->plen > 0 ? s->path : "description", msg);
	s->failed = 1;
	return -1;
}

int
sy_nomem(synth *s)
{
	if (!s->failed)
		dtc_error_set(s->err, DTC_E_NOMEM, s->name, -1, -1, -1,
		    "out of memory");
	s->failed = 1;
	return -1;
}

static const char *
json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "something else";
}

int
sy_object(synth *s, json_t *v)
{
	if (v == NULL || !json_is_object(v))
		return sy_fail(s, "expected an object, not %s",
		    v ? json_kind(v) : "nothing");
	return 0;
}

int
sy_array(synth *s, json_t *v)
{
	if (v == NULL || !json_is_array(v))
		return sy_fail(s, "expected an array, not %s",
		    v ? json_kind(v) : "nothing");
	return 0;
}

/* Typos must not pass silently: every key is checked against a list. */
int
sy_keys(synth *s, json_t *obj, const char *const *allowed)
{
	const char *k;
	json_t *v;
	size_t i, mark;

	if (sy_object(s, obj) != 0)
		return -1;
	json_object_foreach(obj, k, v) {
		for (i = 0; allowed[i] != NULL; i++)
			if (strcmp(k, allowed[i]) == 0)
				break;
		if (allowed[i] == NULL) {
			mark = sy_key(s, k);
			sy_fail(s, "unknown key");
			sy_pop(s, mark);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Integers                                                            */
/* ------------------------------------------------------------------ */

/*
 * A JSON integer as sign and magnitude, so that the whole range from
 * -2^63 to 2^64-1 can be checked against what each field takes.
 */
static int
get_wide(synth *s, json_t *v, int *neg, uint64_t *mag)
{
	const char *p, *q;
	char *end;
	int base = 10;

	*neg = 0;
	if (v == NULL)
		return sy_fail(s, "expected an integer, not nothing");
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		*neg = i < 0;
		*mag = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
		return 0;
	}
	if (!json_is_string(v))
		return sy_fail(s, "expected an integer, not %s", json_kind(v));
	p = json_string_value(v);
	q = p;
	if (*q == '-') {
		*neg = 1;
		q++;
	}
	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		base = 16;
		q += 2;
	}
	if (*q == '\0' || strchr(" \t+-", *q) != NULL)
		return sy_fail(s, "\"%s\" is not an integer", p);
	errno = 0;
	*mag = strtoull(q, &end, base);
	if (*end != '\0')
		return sy_fail(s, "\"%s\" is not an integer", p);
	if (errno == ERANGE)
		return sy_fail(s, "%s does not fit in 64 bits", p);
	if (*mag == 0)
		*neg = 0;
	return 0;
}

int
sy_u64(synth *s, json_t *v, uint64_t max, uint64_t *out)
{
	int neg;
	uint64_t mag;

	if (get_wide(s, v, &neg, &mag) != 0)
		return -1;
	if (neg)
		return sy_fail(s, "expected a non-negative integer");
	if (mag > max)
		return sy_fail(s, "%" PRIu64 " is larger than %" PRIu64, mag,
		    max);
	*out = mag;
	return 0;
}

int
sy_i64(synth *s, json_t *v, int64_t min, int64_t max, int64_t *out)
{
	int neg;
	uint64_t mag;
	int64_t x;

	if (get_wide(s, v, &neg, &mag) != 0)
		return -1;
	if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)
		return sy_fail(s, "%s%" PRIu64 " does not fit in int64",
		    neg ? "-" : "", mag);
	x = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	if (x < min || x > max)
		return sy_fail(s, "%" PRId64 " is out of range [%" PRId64
		    ", %" PRId64 "]", x, min, max);
	*out = x;
	return 0;
}

int
sy_bits(synth *s, json_t *v, unsigned size, uint64_t *out)
{
	int neg;
	uint64_t mag, umax, nmax;

	if (get_wide(s, v, &neg, &mag) != 0)
		return -1;
	umax = size >= 8 ? UINT64_MAX : ((uint64_t)1 << (size * 8)) - 1;
	nmax = size >= 8 ? (uint64_t)1 << 63 : (uint64_t)1 << (size * 8 - 1);
	if (neg ? mag > nmax : mag > umax)
		return sy_fail(s, "%s%" PRIu64 " does not fit in %u byte%s",
		    neg ? "-" : "", mag, size, size == 1 ? "" : "s");
	*out = (neg ? 0 - mag : mag) & umax;
	return 0;
}

int
sy_get_u64(synth *s, json_t *obj, const char *key, int required,
    uint64_t def, uint64_t max, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	size_t mark;
	int rc;

	if (v == NULL) {
		if (required)
			return sy_fail(s, "missing key \"%s\"", key);
		*out = def;
		return 0;
	}
	mark = sy_key(s, key);
	rc = sy_u64(s, v, max, out);
	sy_pop(s, mark);
	return rc;
}

int
sy_get_u32(synth *s, json_t *obj, const char *key, int required,
    uint32_t def, uint32_t max, uint32_t *out)
{
	uint64_t x;

	if (sy_get_u64(s, obj, key, required, def, max, &x) != 0)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

int
sy_get_i64(synth *s, json_t *obj, const char *key, int required,
    int64_t def, int64_t min, int64_t max, int64_t *out)
{
	json_t *v = json_object_get(obj, key);
	size_t mark;
	int rc;

	if (v == NULL) {
		if (required)
			return sy_fail(s, "missing key \"%s\"", key);
		*out = def;
		return 0;
	}
	mark = sy_key(s, key);
	rc = sy_i64(s, v, min, max, out);
	sy_pop(s, mark);
	return rc;
}

int
sy_get_str(synth *s, json_t *obj, const char *key, int required,
    const char *def, const char **out)
{
	json_t *v = json_object_get(obj, key);
	size_t mark;

	if (v == NULL) {
		if (required)
			return sy_fail(s, "missing key \"%s\"", key);
		*out = def;
		return 0;
	}
	if (!json_is_string(v)) {
		mark = sy_key(s, key);
		sy_fail(s, "expected a string, not %s", json_kind(v));
		sy_pop(s, mark);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

/* Booleans also as 0/1, which hand-written descriptions tend to use. */
int
sy_get_bool(synth *s, json_t *obj, const char *key, int def, int *out)
{
	json_t *v = json_object_get(obj, key);
	size_t mark;

	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	if (json_is_integer(v) && (json_integer_value(v) == 0 ||
	    json_integer_value(v) == 1)) {
		*out = (int)json_integer_value(v);
		return 0;
	}
	mark = sy_key(s, key);
	sy_fail(s, "expected true or false, not %s", json_kind(v));
	sy_pop(s, mark);
	return -1;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Blanks between bytes are allowed: long dumps read better in groups. */
int
sy_hexstr(synth *s, json_t *h, uint8_t **out, size_t *n)
{
	const char *p, *p0;
	uint8_t *b;
	size_t k = 0;
	int hi, lo;

	*out = NULL;
	*n = 0;
	if (h == NULL || !json_is_string(h))
		return sy_fail(s, "expected a string of hex digits");
	p = p0 = json_string_value(h);
	if ((b = malloc(strlen(p) / 2 + 1)) == NULL)
		return sy_nomem(s);
	while (*p != '\0') {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == ':') {
			p++;
			continue;
		}
		if ((hi = hexval(p[0])) < 0 || (lo = hexval(p[1])) < 0) {
			free(b);
			return sy_fail(s, "bad hex digits at character %zu",
			    (size_t)(p - p0));
		}
		b[k++] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	*out = b;
	*n = k;
	return 0;
}

int
sy_hex(synth *s, json_t *v, uint8_t **out, size_t *n)
{
	static const char *const keys[] = { "hex", NULL };
	size_t mark;
	int rc;

	*out = NULL;
	*n = 0;
	if (sy_keys(s, v, keys) != 0)
		return -1;
	mark = sy_key(s, "hex");
	rc = sy_hexstr(s, json_object_get(v, "hex"), out, n);
	if (rc == 0)
		sy_pop(s, mark);
	return rc;
}

int
sy_bytes_reserve(synth *s, sy_bytes *b, size_t more)
{
	size_t ncap;
	uint8_t *np;

	if (more > SY_MAX_BUF || b->len + more > SY_MAX_BUF)
		return sy_fail(s, "more than %zu bytes in one buffer",
		    SY_MAX_BUF);
	if (b->len + more <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 4096;
	while (ncap < b->len + more)
		ncap *= 2;
	if ((np = realloc(b->p, ncap)) == NULL)
		return sy_nomem(s);
	b->p = np;
	b->cap = ncap;
	return 0;
}

int
sy_bytes_zero(synth *s, sy_bytes *b, size_t n)
{
	if (sy_bytes_reserve(s, b, n) != 0)
		return -1;
	memset(b->p + b->len, 0, n);
	b->len += n;
	return 0;
}

int
sy_bytes_put(synth *s, sy_bytes *b, const void *p, size_t n)
{
	if (sy_bytes_reserve(s, b, n) != 0)
		return -1;
	if (n > 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

void
sy_bytes_free(sy_bytes *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

uint64_t
sy_load(const synth *s, const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (s->big ? (size - 1 - i) * 8 : i * 8);
	return v;
}

void
sy_store(const synth *s, uint8_t *p, uint64_t v, unsigned size)
{
	unsigned i;

	/* byte by byte: the capture's order, whatever the host's */
	for (i = 0; i < size; i++) {
		unsigned shift = s->big ? (size - 1 - i) * 8 : i * 8;

		p[i] = (uint8_t)(v >> shift);
	}
}

/* ------------------------------------------------------------------ */
/* Lookups and the format table                                        */
/* ------------------------------------------------------------------ */

sy_agg *
sy_agg_lookup(synth *s, json_t *ref)
{
	size_t i;

	if (json_is_string(ref)) {
		const char *name = json_string_value(ref);

		/* "@a" is forgiven: D writes it that way */
		if (name[0] == '@')
			name++;
		for (i = 0; i < s->naggs; i++)
			if (strcmp(s->aggs[i].name, name) == 0)
				return &s->aggs[i];
		sy_fail(s, "no aggregation named \"%s\" in aggs", name);
		return NULL;
	}
	if (json_is_integer(ref)) {
		for (i = 0; i < s->naggs; i++)
			if ((json_int_t)s->aggs[i].id == json_integer_value(ref))
				return &s->aggs[i];
		sy_fail(s, "no aggregation with id %" JSON_INTEGER_FORMAT
		    " in aggs", json_integer_value(ref));
		return NULL;
	}
	sy_fail(s, "expected an aggregation name or id, not %s",
	    json_kind(ref));
	return NULL;
}

sy_ep *
sy_ep_lookup(synth *s, uint32_t epid)
{
	size_t i;

	for (i = 0; i < s->neps; i++)
		if (s->eps[i].epid == epid)
			return &s->eps[i];
	return NULL;
}

/*
 * The kernel gives every printf-like statement a new format id, even
 * for a string it already has (dtrace_format_add), so ids are never
 * shared unless the description asks for an id.
 */
int
sy_format_add(synth *s, const char *str, uint32_t *id)
{
	size_t i;
	uint32_t want = *id;

	if (want == 0) {
		want = 1;
		for (i = 0; i < s->nfmts; i++)
			if (s->fmts[i].id >= want)
				want = s->fmts[i].id + 1;
	} else {
		for (i = 0; i < s->nfmts; i++) {
			if (s->fmts[i].id != want)
				continue;
			if (strcmp(s->fmts[i].s, str) != 0)
				return sy_fail(s, "format id %u already names "
				    "\"%s\"", want, s->fmts[i].s);
			return 0;
		}
	}
	if (want > UINT16_MAX)
		return sy_fail(s, "format id %u does not fit in 16 bits", want);
	if (s->nfmts == s->fmtcap) {
		size_t ncap = s->fmtcap ? s->fmtcap * 2 : 16;
		sy_fmt *nf = realloc(s->fmts, ncap * sizeof(*nf));

		if (nf == NULL)
			return sy_nomem(s);
		s->fmts = nf;
		s->fmtcap = ncap;
	}
	if ((s->fmts[s->nfmts].s = strdup(str)) == NULL)
		return sy_nomem(s);
	s->fmts[s->nfmts].id = want;
	s->fmts[s->nfmts].written = 0;
	s->nfmts++;
	*id = want;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Header, options, probes                                             */
/* ------------------------------------------------------------------ */

static int
parse_header(synth *s, json_t *v, dtc_writer_header *h)
{
	static const char *const keys[] = { "os", "release", "host", "ncpu",
	    "byteorder", "model", "dt_act_base", NULL };
	const char *bo, *model;
	size_t mark = sy_key(s, "header");

	memset(h, 0, sizeof(*h));
	if (v == NULL)
		v = json_object();      /* every field has a default */
	else
		json_incref(v);
	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_str(s, v, "os", 0, "freebsd", &h->os) != 0 ||
	    sy_get_str(s, v, "release", 0, "", &h->release) != 0 ||
	    sy_get_str(s, v, "host", 0, "synth", &h->host) != 0 ||
	    sy_get_u32(s, v, "ncpu", 0, 1, 65536, &h->ncpu) != 0 ||
	    sy_get_str(s, v, "byteorder", 0, "little", &bo) != 0 ||
	    sy_get_str(s, v, "model", 0, "LP64", &model) != 0)
		goto fail;
	s->illumos = strcasecmp(h->os, "illumos") == 0 ||
	    strcasecmp(h->os, "solaris") == 0 ||
	    strcasecmp(h->os, "sunos") == 0;
	if (sy_get_u32(s, v, "dt_act_base", 0, s->illumos ? 49 : 55,
	    UINT16_MAX, &h->dt_act_base) != 0)
		goto fail;
	if (h->ncpu == 0) {
		sy_key(s, "ncpu");
		sy_fail(s, "at least one CPU");
		goto fail;
	}
	if (strcmp(bo, "little") != 0 && strcmp(bo, "big") != 0) {
		sy_key(s, "byteorder");
		sy_fail(s, "expected \"little\" or \"big\"");
		goto fail;
	}
	if (strcmp(model, "LP64") != 0 && strcmp(model, "ILP32") != 0) {
		sy_key(s, "model");
		sy_fail(s, "expected \"LP64\" or \"ILP32\"");
		goto fail;
	}
	h->big_endian = bo[0] == 'b';
	h->ilp32 = model[0] == 'I';
	s->big = h->big_endian;
	s->ilp32 = h->ilp32;
	s->ncpu = h->ncpu;
	s->act_base = h->dt_act_base;
	/* the strings stay valid: the root holds a reference too */
	json_decref(v);
	sy_pop(s, mark);
	return 0;
fail:
	json_decref(v);
	return -1;
}

/* An option that changes the layout: a count or a dtrace size ("1k"). */
static int
option_number(synth *s, json_t *v, uint64_t max, uint32_t *out)
{
	const char *p;
	char *end;
	uint64_t x, mul = 1;

	if (!json_is_string(v)) {
		if (sy_u64(s, v, max, &x) != 0)
			return -1;
		*out = (uint32_t)x;
		return 0;
	}
	p = json_string_value(v);
	x = strtoull(p, &end, 0);
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	}
	if (end == p || *end != '\0' || x > max / mul)
		return sy_fail(s, "\"%s\" is not a size up to %" PRIu64, p,
		    max);
	*out = (uint32_t)(x * mul);
	return 0;
}

/* Options are checked now (strsize shapes strings); written later. */
static int
parse_options(synth *s, json_t *v, int layout)
{
	const char *k;
	json_t *o;
	size_t mark;

	if (v == NULL)
		return 0;
	if (sy_object(s, v) != 0)
		return -1;
	json_object_foreach(v, k, o) {
		mark = sy_key(s, k);
		if (!json_is_integer(o) && !json_is_string(o))
			return sy_fail(s, "an option value is an integer or a "
			    "string, not %s", json_kind(o));
		if (layout && strcmp(k, "strsize") == 0 &&
		    option_number(s, o, SY_MAX_BUF, &s->strsize) != 0)
			return -1;
		if (layout && strcmp(k, "stackframes") == 0 &&
		    option_number(s, o, SY_MAX_FRAMES, &s->stackframes) != 0)
			return -1;
		sy_pop(s, mark);
	}
	return 0;
}

static int
write_options(synth *s, dtc_writer *w, json_t *v)
{
	const char *k;
	json_t *o;

	json_object_foreach(v, k, o) {
		if (dtc_writer_add_option(w, k, json_is_string(o) ?
		    json_string_value(o) : NULL, json_is_integer(o) ?
		    json_integer_value(o) : 0, s->err) != DTC_OK)
			return -1;
	}
	return 0;
}

static int
parse_probe(synth *s, json_t *v, dtc_probedesc *p)
{
	static const char *const keys[] = { "id", "provider", "module",
	    "function", "name", NULL };

	return sy_keys(s, v, keys) != 0 ||
	    sy_get_u32(s, v, "id", 1, 0, UINT32_MAX, &p->id) != 0 ||
	    sy_get_str(s, v, "provider", 1, NULL, &p->provider) != 0 ||
	    sy_get_str(s, v, "module", 0, "", &p->module) != 0 ||
	    sy_get_str(s, v, "function", 0, "", &p->function) != 0 ||
	    sy_get_str(s, v, "name", 1, NULL, &p->name) != 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Symbols and clock                                                   */
/* ------------------------------------------------------------------ */

/* [addr, size, module, name]; checked first, then written (write). */
static int
do_ksyms(synth *s, json_t *v, dtc_writer *w)
{
	json_t *e;
	size_t i, mark, m2;
	uint64_t addr, size;

	if (v == NULL)
		return 0;
	mark = sy_key(s, "ksyms");
	if (sy_array(s, v) != 0)
		return -1;
	if (w != NULL &&
	    dtc_writer_ksyms_begin(w, json_array_size(v), s->err) != DTC_OK)
		return -1;
	json_array_foreach(v, i, e) {
		m2 = sy_idx(s, i);
		if (!json_is_array(e) || json_array_size(e) != 4 ||
		    !json_is_string(json_array_get(e, 2)) ||
		    !json_is_string(json_array_get(e, 3)))
			return sy_fail(s, "expected [address, size, \"module\", "
			    "\"name\"]");
		if (sy_u64(s, json_array_get(e, 0), UINT64_MAX, &addr) != 0 ||
		    sy_u64(s, json_array_get(e, 1), UINT64_MAX, &size) != 0)
			return -1;
		if (w != NULL && dtc_writer_add_ksym(w, addr, size,
		    json_string_value(json_array_get(e, 2)),
		    json_string_value(json_array_get(e, 3)), s->err) != DTC_OK)
			return -1;
		sy_pop(s, m2);
	}
	if (w != NULL && dtc_writer_ksyms_end(w, s->err) != DTC_OK)
		return -1;
	sy_pop(s, mark);
	return 0;
}

static int
one_map(synth *s, json_t *v, dtc_writer_map *m)
{
	static const char *const keys[] = { "start", "end", "path", "symbols",
	    NULL };
	json_t *syms, *e;
	dtc_writer_usym *u;
	size_t i, mark;

	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u64(s, v, "start", 1, 0, UINT64_MAX, &m->start) != 0 ||
	    sy_get_u64(s, v, "end", 1, 0, UINT64_MAX, &m->end) != 0 ||
	    sy_get_str(s, v, "path", 1, NULL, &m->path) != 0)
		return -1;
	if (m->end < m->start)
		return sy_fail(s, "end is below start");
	syms = json_object_get(v, "symbols");
	mark = sy_key(s, "symbols");
	if (syms != NULL && sy_array(s, syms) != 0)
		return -1;
	m->nsyms = syms != NULL ? json_array_size(syms) : 0;
	if ((u = calloc(m->nsyms + 1, sizeof(*u))) == NULL)
		return sy_nomem(s);
	m->syms = u;
	json_array_foreach(syms, i, e) {
		size_t m2 = sy_idx(s, i);

		if (!json_is_array(e) || json_array_size(e) != 3 ||
		    !json_is_string(json_array_get(e, 2)))
			return sy_fail(s, "expected [address, size, \"name\"]");
		if (sy_u64(s, json_array_get(e, 0), UINT64_MAX,
		    &u[i].addr) != 0 ||
		    sy_u64(s, json_array_get(e, 1), UINT64_MAX,
		    &u[i].size) != 0)
			return -1;
		u[i].name = json_string_value(json_array_get(e, 2));
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

static int
one_proc(synth *s, json_t *v, dtc_writer *w)
{
	static const char *const keys[] = { "pid", "execname", "maps", NULL };
	dtc_writer_map *maps = NULL;
	const char *exec;
	uint64_t pid;
	json_t *mv, *m;
	size_t i, n = 0, mark;
	int rc = -1;

	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u64(s, v, "pid", 1, 0, UINT64_MAX, &pid) != 0 ||
	    sy_get_str(s, v, "execname", 0, "", &exec) != 0)
		return -1;
	mv = json_object_get(v, "maps");
	mark = sy_key(s, "maps");
	if (mv != NULL && sy_array(s, mv) != 0)
		return -1;
	if ((maps = calloc(json_array_size(mv) + 1, sizeof(*maps))) == NULL)
		return sy_nomem(s);
	json_array_foreach(mv, i, m) {
		size_t m2 = sy_idx(s, i);

		n = i + 1;
		if (one_map(s, m, &maps[i]) != 0)
			goto out;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	rc = 0;
	if (w != NULL && dtc_writer_add_proc(w, pid, exec, n, maps,
	    s->err) != DTC_OK)
		rc = -1;
out:
	for (i = 0; i < n; i++)
		free((void *)maps[i].syms);
	free(maps);
	return rc;
}

static int
do_procs(synth *s, json_t *v, dtc_writer *w)
{
	json_t *p;
	size_t i, mark;

	if (v == NULL)
		return 0;
	mark = sy_key(s, "procs");
	if (sy_array(s, v) != 0)
		return -1;
	json_array_foreach(v, i, p) {
		size_t m2 = sy_idx(s, i);

		if (one_proc(s, p, w) != 0)
			return -1;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

static int
do_clock(synth *s, json_t *v, dtc_writer *w)
{
	static const char *const keys[] = { "hrtime", "walltime", NULL };
	uint64_t hr, wall;
	size_t mark;

	if (v == NULL)
		return 0;
	mark = sy_key(s, "clock");
	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u64(s, v, "hrtime", 1, 0, UINT64_MAX, &hr) != 0 ||
	    sy_get_u64(s, v, "walltime", 1, 0, UINT64_MAX, &wall) != 0)
		return -1;
	sy_pop(s, mark);
	if (w != NULL && dtc_writer_add_clock(w, hr, wall, s->err) != DTC_OK)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Passes                                                              */
/* ------------------------------------------------------------------ */

static int
do_status(synth *s, json_t *v, uint32_t pass, dtc_writer *w)
{
	static const char *const keys[] = { "began_on", "ended_on",
	    "exiting", "exit_status", "dynamic", "dynrinse", "dyndirty",
	    "spec", "specbusy", "specunavail", "stkstroverflow", "dblerrors",
	    "errors", NULL };
	static const size_t offs[] = {
	    offsetof(dtc_writer_status, dynamic),
	    offsetof(dtc_writer_status, dynrinse),
	    offsetof(dtc_writer_status, dyndirty),
	    offsetof(dtc_writer_status, spec),
	    offsetof(dtc_writer_status, specbusy),
	    offsetof(dtc_writer_status, specunavail),
	    offsetof(dtc_writer_status, stkstroverflow),
	    offsetof(dtc_writer_status, dblerrors),
	    offsetof(dtc_writer_status, errors) };
	dtc_writer_status st;
	int64_t x;
	size_t i, mark = sy_key(s, "status");

	memset(&st, 0, sizeof(st));
	st.pass = pass;
	if (sy_keys(s, v, keys) != 0)
		return -1;
	/* -1: not known (END has not run yet) */
	if (sy_get_i64(s, v, "began_on", 0, -1, -1, INT32_MAX, &x) != 0)
		return -1;
	st.began_on = (int)x;
	if (sy_get_i64(s, v, "ended_on", 0, -1, -1, INT32_MAX, &x) != 0)
		return -1;
	st.ended_on = (int)x;
	if (sy_get_i64(s, v, "exiting", 0, 0, 0, 1, &x) != 0)
		return -1;
	st.exiting = (int)x;
	if (sy_get_i64(s, v, "exit_status", 0, 0, INT32_MIN, INT32_MAX,
	    &x) != 0)
		return -1;
	st.exit_status = (int)x;
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (sy_get_u64(s, v, keys[i + 4], 0, 0, UINT64_MAX,
		    (uint64_t *)((char *)&st + offs[i])) != 0)
			return -1;
	sy_pop(s, mark);
	return w != NULL && dtc_writer_add_status(w, &st, s->err) != DTC_OK ?
	    -1 : 0;
}

static int
do_pass(synth *s, json_t *v, uint32_t pass, dtc_writer *w, sy_bytes *b)
{
	static const char *const keys[] = { "status", "aggbufs", "bufs", NULL };
	dtc_writer_buf wb;
	json_t *list, *e;
	size_t i, mark;

	if (sy_keys(s, v, keys) != 0)
		return -1;
	if (json_object_get(v, "status") != NULL &&
	    do_status(s, json_object_get(v, "status"), pass, w) != 0)
		return -1;
	/* libdtrace snaps the aggregations before it consumes */
	list = json_object_get(v, "aggbufs");
	mark = sy_key(s, "aggbufs");
	if (list != NULL && sy_array(s, list) != 0)
		return -1;
	json_array_foreach(list, i, e) {
		size_t m2 = sy_idx(s, i);

		memset(&wb, 0, sizeof(wb));
		wb.pass = pass;
		if (sy_aggbuf_build(s, e, &wb, b) != 0 ||
		    dtc_writer_add_aggbuf(w, &wb, s->err) != DTC_OK)
			return -1;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	list = json_object_get(v, "bufs");
	mark = sy_key(s, "bufs");
	if (list != NULL && sy_array(s, list) != 0)
		return -1;
	json_array_foreach(list, i, e) {
		size_t m2 = sy_idx(s, i);

		memset(&wb, 0, sizeof(wb));
		wb.pass = pass;
		if (sy_buf_build(s, e, &wb, b) != 0 ||
		    dtc_writer_add_buf(w, &wb, s->err) != DTC_OK)
			return -1;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

/* options_later: [{"before_pass": N, "options": {...}}] */
static int
check_later(synth *s, json_t *v, size_t npasses)
{
	static const char *const keys[] = { "before_pass", "options", NULL };
	json_t *e;
	size_t i, mark;
	uint64_t p;

	if (v == NULL)
		return 0;
	mark = sy_key(s, "options_later");
	if (sy_array(s, v) != 0)
		return -1;
	json_array_foreach(v, i, e) {
		size_t m2 = sy_idx(s, i), m3;

		if (sy_keys(s, e, keys) != 0 ||
		    sy_get_u64(s, e, "before_pass", 1, 0, npasses + 1, &p) != 0)
			return -1;
		if (p == 0)
			return sy_fail(s, "passes count from 1");
		m3 = sy_key(s, "options");
		if (sy_object(s, json_object_get(e, "options")) != 0 ||
		    parse_options(s, json_object_get(e, "options"), 0) != 0)
			return -1;
		sy_pop(s, m3);
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

static int
write_later(synth *s, json_t *v, uint32_t pass, dtc_writer *w)
{
	json_t *e;
	size_t i;

	uint64_t p;

	json_array_foreach(v, i, e) {
		/* checked by check_later */
		if (sy_get_u64(s, e, "before_pass", 1, 0, UINT64_MAX, &p) != 0)
			return -1;
		if (p == pass &&
		    write_options(s, w, json_object_get(e, "options")) != 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Metadata tables                                                     */
/* ------------------------------------------------------------------ */

static int
parse_aggs(synth *s, json_t *v)
{
	json_t *e;
	size_t i, mark;

	if (v == NULL)
		return 0;
	mark = sy_key(s, "aggs");
	if (sy_array(s, v) != 0)
		return -1;
	if ((s->aggs = calloc(json_array_size(v) + 1, sizeof(*s->aggs))) ==
	    NULL)
		return sy_nomem(s);
	json_array_foreach(v, i, e) {
		size_t m2 = sy_idx(s, i);

		s->naggs++;
		if (sy_agg_parse(s, e, &s->aggs[i]) != 0)
			return -1;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

static const dtc_probedesc *
probe_find(const dtc_probedesc *p, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i].id == id)
			return &p[i];
	return NULL;
}

static int
parse_eprobes(synth *s, json_t *v, const dtc_probedesc *probes,
    size_t nprobes)
{
	const dtc_probedesc *p;
	json_t *e;
	size_t i, j, mark;

	mark = sy_key(s, "eprobes");
	if (v == NULL)
		return sy_fail(s, "missing: the enabled probes");
	if (sy_array(s, v) != 0)
		return -1;
	if ((s->eps = calloc(json_array_size(v) + 1, sizeof(*s->eps))) ==
	    NULL)
		return sy_nomem(s);
	json_array_foreach(v, i, e) {
		size_t m2 = sy_idx(s, i);
		sy_ep *ep = &s->eps[i];

		s->neps++;
		if (sy_ep_parse(s, e, ep) != 0)
			return -1;
		for (j = 0; j < i; j++)
			if (s->eps[j].epid == ep->epid)
				return sy_fail(s, "epid %" PRIu32 " is also "
				    "eprobes[%zu]", ep->epid, j);
		if ((p = probe_find(probes, nprobes, ep->probe)) == NULL)
			return sy_fail(s, "probe %" PRIu32 " is not in probes",
			    ep->probe);
		if (ep->uarg == 1 && (strcmp(p->provider, "dtrace") != 0 ||
		    strcmp(p->name, "ERROR") != 0))
			return sy_fail(s, "the ERROR enabling must be on "
			    "dtrace:::ERROR, not %s:%s:%s:%s", p->provider,
			    p->module, p->function, p->name);
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	/*
	 * An aggregation's epid need not name an eprobe: descriptions
	 * often leave out the aggregation-only clause, which records
	 * nothing and changes no layout.
	 */
	return 0;
}

static int
parse_probes(synth *s, json_t *v, dtc_probedesc **out, size_t *n)
{
	json_t *e;
	size_t i, j, mark;

	*n = 0;
	mark = sy_key(s, "probes");
	if (v == NULL)
		return sy_fail(s, "missing: the probes the enablings use");
	if (sy_array(s, v) != 0)
		return -1;
	if ((*out = calloc(json_array_size(v) + 1, sizeof(**out))) == NULL)
		return sy_nomem(s);
	json_array_foreach(v, i, e) {
		size_t m2 = sy_idx(s, i);

		if (parse_probe(s, e, &(*out)[i]) != 0)
			return -1;
		for (j = 0; j < i; j++)
			if ((*out)[j].id == (*out)[i].id)
				return sy_fail(s, "probe id %" PRIu32 " is "
				    "also probes[%zu]", (*out)[i].id, j);
		(*n)++;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The driver                                                          */
/* ------------------------------------------------------------------ */

static int
write_formats(synth *s, dtc_writer *w)
{
	size_t i;

	for (i = 0; i < s->nfmts; i++) {
		if (s->fmts[i].written)
			continue;
		if (dtc_writer_add_format(w, s->fmts[i].id, s->fmts[i].s,
		    s->err) != DTC_OK)
			return -1;
		s->fmts[i].written = 1;
	}
	return 0;
}

static int
write_rds(synth *s, const sy_rd *rds, uint32_t n, dtc_recdesc **out)
{
	uint32_t i;

	if ((*out = calloc(n + 1, sizeof(**out))) == NULL)
		return sy_nomem(s);
	for (i = 0; i < n; i++)
		(*out)[i] = rds[i].rd;
	return 0;
}

/* Metadata in the order a consumer needs it: each eprobe then the
 * formats its records name. */
static int
write_meta(synth *s, dtc_writer *w, const dtc_probedesc *probes,
    size_t nprobes)
{
	dtc_eprobedesc ed;
	dtc_aggdesc ad;
	dtc_recdesc *rd;
	size_t i;
	int rc;

	for (i = 0; i < nprobes; i++)
		if (dtc_writer_add_probe(w, &probes[i], s->err) != DTC_OK)
			return -1;
	for (i = 0; i < s->neps; i++) {
		const sy_ep *ep = &s->eps[i];

		if (write_rds(s, ep->rds, ep->nrds, &rd) != 0)
			return -1;
		memset(&ed, 0, sizeof(ed));
		ed.epid = ep->epid;
		ed.probeid = ep->probe;
		ed.uarg = ep->uarg;
		ed.size = ep->size;
		ed.nrecs = ep->nrds;
		ed.recs = rd;
		rc = dtc_writer_add_eprobe(w, &ed, s->err);
		free(rd);
		if (rc != DTC_OK || write_formats(s, w) != 0)
			return -1;
	}
	for (i = 0; i < s->naggs; i++) {
		const sy_agg *a = &s->aggs[i];

		if (write_rds(s, a->rds, a->nrds, &rd) != 0)
			return -1;
		memset(&ad, 0, sizeof(ad));
		ad.id = a->id;
		ad.epid = a->epid;
		ad.varid = a->varid;
		ad.name = a->name;
		ad.size = a->size;
		ad.nrecs = a->nrds;
		ad.recs = rd;
		rc = dtc_writer_add_agg(w, &ad, s->err);
		free(rd);
		if (rc != DTC_OK)
			return -1;
	}
	return write_formats(s, w);
}

static int
synth_json(synth *s, json_t *root, FILE *out)
{
	static const char *const keys[] = { "header", "options",
	    "options_later", "probes", "eprobes", "aggs", "ksyms", "procs",
	    "clock", "passes", "end", "ctf", "dof", NULL };
	static const char *const endkeys[] = { "exit_status", NULL };
	dtc_writer_header h;
	dtc_writer *w = NULL;
	dtc_probedesc *probes = NULL;
	json_t *passes, *endv, *p, *opts;
	sy_bytes b = { NULL, 0, 0 };
	size_t nprobes = 0, i, mark;
	int64_t status = 0;
	int rc = -1;

	if (sy_keys(s, root, keys) != 0 ||
	    parse_header(s, json_object_get(root, "header"), &h) != 0)
		goto out;
	opts = json_object_get(root, "options");
	mark = sy_key(s, "options");
	if (parse_options(s, opts, 1) != 0)
		goto out;
	sy_pop(s, mark);
	passes = json_object_get(root, "passes");
	mark = sy_key(s, "passes");
	if (passes != NULL && sy_array(s, passes) != 0)
		goto out;
	sy_pop(s, mark);
	if (check_later(s, json_object_get(root, "options_later"),
	    json_array_size(passes)) != 0 ||
	    sy_ctf_parse(s, json_object_get(root, "ctf")) != 0 ||
	    parse_probes(s, json_object_get(root, "probes"), &probes,
	    &nprobes) != 0 ||
	    parse_aggs(s, json_object_get(root, "aggs")) != 0 ||
	    parse_eprobes(s, json_object_get(root, "eprobes"), probes,
	    nprobes) != 0 ||
	    do_ksyms(s, json_object_get(root, "ksyms"), NULL) != 0 ||
	    do_procs(s, json_object_get(root, "procs"), NULL) != 0 ||
	    do_clock(s, json_object_get(root, "clock"), NULL) != 0 ||
	    sy_dof(s, json_object_get(root, "dof"), NULL) != 0)
		goto out;
	if ((endv = json_object_get(root, "end")) != NULL) {
		mark = sy_key(s, "end");
		if (sy_keys(s, endv, endkeys) != 0 ||
		    sy_get_i64(s, endv, "exit_status", 0, 0, INT32_MIN,
		    INT32_MAX, &status) != 0)
			goto out;
		sy_pop(s, mark);
	}

	if ((w = dtc_writer_new(out, &h, s->err)) == NULL ||
	    sy_ctf_write(s, w) != 0 ||
	    write_meta(s, w, probes, nprobes) != 0 ||
	    do_ksyms(s, json_object_get(root, "ksyms"), w) != 0 ||
	    do_procs(s, json_object_get(root, "procs"), w) != 0 ||
	    do_clock(s, json_object_get(root, "clock"), w) != 0 ||
	    (opts != NULL && write_options(s, w, opts) != 0) ||
	    sy_dof(s, json_object_get(root, "dof"), w) != 0)
		goto out;
	json_array_foreach(passes, i, p) {
		mark = sy_key(s, "passes");
		sy_idx(s, i);
		if (write_later(s, json_object_get(root, "options_later"),
		    (uint32_t)i + 1, w) != 0 ||
		    do_pass(s, p, (uint32_t)i + 1, w, &b) != 0)
			goto out;
		sy_pop(s, mark);
	}
	if (write_later(s, json_object_get(root, "options_later"),
	    (uint32_t)json_array_size(passes) + 1, w) != 0)
		goto out;
	if (endv != NULL) {
		rc = dtc_writer_end(w, (int)status, s->err) == DTC_OK ? 0 : -1;
		w = NULL;
		goto out;
	}
	rc = 0;
out:
	if (w != NULL)
		dtc_writer_free(w);
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
		dtc_error_set(s->err, DTC_E_IO, s->name, -1, -1, -1,
		    "write failed: %s", strerror(errno));
		rc = -1;
	}
	sy_bytes_free(&b);
	sy_ctf_free(s);
	free(probes);
	return rc;
}

static void
synth_free(synth *s)
{
	size_t i;

	for (i = 0; i < s->neps; i++) {
		sy_rds_free(s->eps[i].rds, s->eps[i].nrds);
		free(s->eps[i].recs);
	}
	free(s->eps);
	for (i = 0; i < s->naggs; i++)
		sy_agg_free(&s->aggs[i]);
	free(s->aggs);
	for (i = 0; i < s->nfmts; i++)
		free(s->fmts[i].s);
	free(s->fmts);
}

static int
synth_root(json_t *root, const json_error_t *jerr, const char *name,
    FILE *out, dtc_error *err)
{
	synth s;
	int rc;

	if (root == NULL) {
		/* jansson refuses integers past int64: say what to do */
		if (jerr->line <= 0)
			dtc_error_set(err, DTC_E_IO, name, -1, -1, -1, "%s",
			    jerr->text);
		else
			dtc_error_set(err, DTC_E_BADVALUE, name, -1, -1, -1,
			    "line %d, column %d: %s%s", jerr->line,
			    jerr->column, jerr->text,
			    strstr(jerr->text, "too big") != NULL ?
			    " (write integers past 2^63 as strings)" : "");
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.err = err;
	s.name = name;
	s.strsize = 256;
	s.stackframes = 20;
	s.clock = 999;          /* the first record defaults to 1000 */
	rc = synth_json(&s, root, out);
	if (rc != 0 && err != NULL && err->code == DTC_E_NONE)
		dtc_error_set(err, DTC_E_INTERNAL, name, -1, -1, -1,
		    "synth failed");
	synth_free(&s);
	json_decref(root);
	return rc;
}

int
synth_run(const char *descpath, FILE *out, dtc_error *err)
{
	json_error_t jerr;
	json_t *root;
	const char *name = descpath;

	if (strcmp(descpath, "-") == 0) {
		name = "<stdin>";
		root = json_loadf(stdin, JSON_REJECT_DUPLICATES, &jerr);
	} else {
		root = json_load_file(descpath, JSON_REJECT_DUPLICATES, &jerr);
	}
	return synth_root(root, &jerr, name, out, err);
}

int
synth_run_buffer(const char *buf, size_t len, const char *name, FILE *out,
    dtc_error *err)
{
	json_error_t jerr;

	return synth_root(json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr),
	    &jerr, name != NULL ? name : "<memory>", out, err);
}
