/*
 * series.c - a capture written in parts (dtsnap(5), SERIES): the writer
 * side, dtc_series_writer.
 *
 * Every part is a capture on its own, so a part must repeat what the
 * parts before it described: writer.c hands each item it writes to the
 * keep (dtcp_wkeep_*), which holds a copy of every metadata item in
 * order (a later proc item of a pid, and a later ksyms item, in the
 * place of the earlier one: a reader keeps only the newest anyway) and
 * of the last aggsnap, the aggregation state a part starts from.  Stream
 * items (records, drops, faults, pass clocks) are never kept.  A new
 * part writes the header, a clock item that names the series and the
 * part and says how many items it repeats, then those items with new
 * seq numbers: the numbering of a part is its own, from 0, so that each
 * part checks as a whole capture does.
 *
 * Items are copied as bytes, not re-encoded from values: what a part
 * repeats is then byte for byte what was written, but for seq.  seq is
 * the second key of every item this library writes (writer.c), which is
 * what renumber() relies on; an item laid out otherwise is put as it is.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cbor.h>

#include "base.h"

enum kkind { K_NONE, K_META, K_CLOCK, K_PROC, K_KSYMS, K_SNAP };

struct kept {
	enum kkind kind;
	uint64_t pid;
	uint8_t *p;
	size_t n;
};

struct dtcp_wkeep {
	enum kkind cur;      /* the item being written, K_NONE: not kept */
	uint8_t *buf;        /* its bytes */
	size_t len, cap;
	bool nomem;          /* something could not be kept: parts fail */
	struct kept *v;      /* metadata, in the order written */
	size_t n, vcap;
	uint8_t *snap;       /* the last aggsnap */
	size_t snaplen;
};

struct dtc_series_writer {
	uint8_t *hdr;        /* the header item (seq 0) */
	size_t hdrlen;
	int v2, level;
	char id[64];
	struct dtcp_wkeep keep;
	dtc_writer *w;       /* the part open, or NULL */
	long index;          /* of the part open or last ended */
	uint8_t *scratch;    /* an item renumbered or encoded */
	size_t slen, scap;
};

/* ------------------------------------------------------------------ */
/* Item layout                                                         */
/* ------------------------------------------------------------------ */

/* A CBOR head at *at: its major type and argument; false if it is not
 * one of the definite heads this library writes. */
static bool
head(const uint8_t *p, size_t n, size_t *at, int *major, uint64_t *v)
{
	size_t i, extra;
	unsigned ai;

	if (*at >= n)
		return false;
	*major = p[*at] >> 5;
	ai = p[*at] & 31;
	(*at)++;
	if (ai < 24) {
		*v = ai;
		return true;
	}
	if (ai > 27)
		return false;
	extra = (size_t)1 << (ai - 24);
	if (n - *at < extra)
		return false;
	for (*v = 0, i = 0; i < extra; i++)
		*v = *v << 8 | p[(*at)++];
	return true;
}

/* A text head and its bytes; *s, *len the text. */
static bool
text_at(const uint8_t *p, size_t n, size_t *at, const uint8_t **s,
    size_t *len)
{
	int major;
	uint64_t v;

	if (!head(p, n, at, &major, &v) || major != 3 || v > n - *at)
		return false;
	*s = p + *at;
	*len = (size_t)v;
	*at += (size_t)v;
	return true;
}

static bool
text_eq(const uint8_t *s, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(s, want, len) == 0;
}

/* An item's kind: map head, "t", kind. */
static bool
kind_of(const uint8_t *p, size_t n, const uint8_t **kind, size_t *klen)
{
	const uint8_t *s;
	size_t at = 0, len;
	int major;
	uint64_t v;

	return head(p, n, &at, &major, &v) && major == 5 &&
	    text_at(p, n, &at, &s, &len) && text_eq(s, len, "t") &&
	    text_at(p, n, &at, kind, klen);
}

/*
 * An item as this library writes it: map head, "t", kind, "seq", uint.
 * *kind its kind, [*seqat, *seqend) the seq value's bytes; what follows
 * is the rest of the item's pairs.
 */
static bool
layout(const uint8_t *p, size_t n, const uint8_t **kind, size_t *klen,
    size_t *seqat, size_t *seqend)
{
	const uint8_t *s;
	size_t at = 0, len;
	int major;
	uint64_t v;

	if (!head(p, n, &at, &major, &v) || major != 5 || v < 2 ||
	    !text_at(p, n, &at, &s, &len) || !text_eq(s, len, "t") ||
	    !text_at(p, n, &at, kind, klen) ||
	    !text_at(p, n, &at, &s, &len) || !text_eq(s, len, "seq"))
		return false;
	*seqat = at;
	if (!head(p, n, &at, &major, &v) || major != 0)
		return false;
	*seqend = at;
	return true;
}

/* ------------------------------------------------------------------ */
/* The keep (writer.c hands it every item)                             */
/* ------------------------------------------------------------------ */

void
dtcp_wkeep_begin(struct dtcp_wkeep *k, const char *kind)
{
	static const char *const meta[] = { "probe", "eprobe", "agg",
	    "format", "options", "ctf", "stmt", "aggdesc" };
	size_t i;

	k->len = 0;
	k->cur = K_NONE;
	for (i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
		if (strcmp(kind, meta[i]) == 0)
			k->cur = K_META;
	if (strcmp(kind, "clock") == 0)
		k->cur = K_CLOCK;
	else if (strcmp(kind, "proc") == 0)
		k->cur = K_PROC;
	else if (strcmp(kind, "ksyms") == 0)
		k->cur = K_KSYMS;
	else if (strcmp(kind, "aggsnap") == 0)
		k->cur = K_SNAP;
}

void
dtcp_wkeep_bytes(struct dtcp_wkeep *k, const void *p, size_t n)
{
	size_t cap;
	uint8_t *b;

	if (k->cur == K_NONE || k->nomem)
		return;
	if (k->cap - k->len < n) {
		for (cap = k->cap ? k->cap : 4096; cap - k->len < n; cap *= 2)
			;
		if ((b = realloc(k->buf, cap)) == NULL) {
			k->nomem = true;
			return;
		}
		k->buf = b;
		k->cap = cap;
	}
	memcpy(k->buf + k->len, p, n);
	k->len += n;
}

/* The key after seq: a pass clock ("pass") is a stream item, and a
 * proc item's pid says which earlier one it replaces. */
static bool
first_key(const uint8_t *p, size_t n, const char *want, uint64_t *v)
{
	const uint8_t *kind, *s;
	size_t klen, seqat, at, len;
	int major;

	if (!layout(p, n, &kind, &klen, &seqat, &at) ||
	    !text_at(p, n, &at, &s, &len) || !text_eq(s, len, want))
		return false;
	return v == NULL || (head(p, n, &at, &major, v) && major == 0);
}

void
dtcp_wkeep_end(struct dtcp_wkeep *k)
{
	enum kkind kind = k->cur;
	uint64_t pid = 0;
	struct kept *e = NULL;
	size_t i;
	uint8_t *copy;

	k->cur = K_NONE;
	if (kind == K_NONE || k->nomem)
		return;
	if (kind == K_SNAP) {
		/* the buffer becomes the snapshot: no copy */
		free(k->snap);
		k->snap = k->buf;
		k->snaplen = k->len;
		k->buf = NULL;
		k->len = k->cap = 0;
		return;
	}
	if (kind == K_CLOCK) {
		if (first_key(k->buf, k->len, "pass", NULL))
			return;
		kind = K_META;
	}
	if (kind == K_PROC && !first_key(k->buf, k->len, "pid", &pid))
		kind = K_META;
	if (kind == K_PROC || kind == K_KSYMS)
		for (i = 0; i < k->n && e == NULL; i++)
			if (k->v[i].kind == kind && k->v[i].pid == pid)
				e = &k->v[i];
	if ((copy = malloc(k->len)) == NULL) {
		k->nomem = true;
		return;
	}
	memcpy(copy, k->buf, k->len);
	if (e == NULL) {
		if (k->n == k->vcap) {
			size_t ncap = k->vcap ? 2 * k->vcap : 64;
			struct kept *nv = realloc(k->v, ncap * sizeof(*nv));

			if (nv == NULL) {
				free(copy);
				k->nomem = true;
				return;
			}
			k->v = nv;
			k->vcap = ncap;
		}
		e = &k->v[k->n++];
		e->p = NULL;
	}
	free(e->p);
	e->kind = kind;
	e->pid = pid;
	e->p = copy;
	e->n = k->len;
}

static void
wkeep_free(struct dtcp_wkeep *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->v[i].p);
	free(k->v);
	free(k->buf);
	free(k->snap);
}

/* ------------------------------------------------------------------ */
/* Encoding the items of the series' own                               */
/* ------------------------------------------------------------------ */

static bool
s_reserve(dtc_series_writer *s, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (s->scap - s->slen >= n)
		return true;
	for (cap = s->scap ? s->scap : 512; cap - s->slen < n; cap *= 2)
		;
	if ((p = realloc(s->scratch, cap)) == NULL)
		return false;
	s->scratch = p;
	s->scap = cap;
	return true;
}

/* uint, int (negative), text, map and array heads; false: no memory */
static bool
s_uint(dtc_series_writer *s, uint64_t v)
{
	if (!s_reserve(s, 9))
		return false;
	s->slen += cbor_encode_uint(v, s->scratch + s->slen, s->scap - s->slen);
	return true;
}

static bool
s_int(dtc_series_writer *s, int64_t v)
{
	if (v >= 0)
		return s_uint(s, (uint64_t)v);
	if (!s_reserve(s, 9))
		return false;
	s->slen += cbor_encode_negint((uint64_t)(-1 - v), s->scratch + s->slen,
	    s->scap - s->slen);
	return true;
}

static bool
s_text(dtc_series_writer *s, const char *t)
{
	size_t l = strlen(t);

	if (!s_reserve(s, 9 + l))
		return false;
	s->slen += cbor_encode_string_start(l, s->scratch + s->slen,
	    s->scap - s->slen);
	memcpy(s->scratch + s->slen, t, l);
	s->slen += l;
	return true;
}

static bool
s_head(dtc_series_writer *s, bool map, size_t n)
{
	if (!s_reserve(s, 9))
		return false;
	s->slen += (map ? cbor_encode_map_start : cbor_encode_array_start)(n,
	    s->scratch + s->slen, s->scap - s->slen);
	return true;
}

static bool
s_key_uint(dtc_series_writer *s, const char *k, uint64_t v)
{
	return s_text(s, k) && s_uint(s, v);
}

static bool
s_begin(dtc_series_writer *s, const char *kind, size_t nkeys)
{
	s->slen = 0;
	return s_head(s, true, nkeys + 2) && s_text(s, "t") &&
	    s_text(s, kind) && s_key_uint(s, "seq",
	    (uint64_t)dtcp_writer_nitems(s->w));
}

static int
nomem(dtc_error *err)
{
	dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1, "out of memory");
	return DTC_FATAL;
}

/*
 * An item without seq (a capture of version 1.2 or earlier, dtsnap
 * split): the key goes in after "t" and its kind, as writer.c puts it,
 * and the map's head counts it.  Anything else is put as it is.
 */
static int
put_numbered(dtc_series_writer *s, const uint8_t *p, size_t n,
    dtc_error *err)
{
	const uint8_t *t, *kind;
	size_t at = 0, len, klen;
	int major;
	uint64_t pairs;

	if (!head(p, n, &at, &major, &pairs) || major != 5 ||
	    pairs >= UINT32_MAX || !text_at(p, n, &at, &t, &len) ||
	    !text_eq(t, len, "t") || !text_at(p, n, &at, &kind, &klen))
		return dtc_writer_put_item(s->w, p, n, err);
	s->slen = 0;
	if (!s_reserve(s, n + 32) || !s_head(s, true, pairs + 1))
		return nomem(err);
	/* "t" and the kind as they were, then seq */
	memcpy(s->scratch + s->slen, t - 1, (size_t)(kind + klen - (t - 1)));
	s->slen += (size_t)(kind + klen - (t - 1));
	s_key_uint(s, "seq", (uint64_t)dtcp_writer_nitems(s->w));
	memcpy(s->scratch + s->slen, kind + klen, n - at);
	s->slen += n - at;
	return dtc_writer_put_item(s->w, s->scratch, s->slen, err);
}

/* An item with the number the part gives it next. */
static int
put_renumbered(dtc_series_writer *s, const uint8_t *p, size_t n,
    dtc_error *err)
{
	const uint8_t *kind;
	size_t klen, seqat, seqend;

	if (!layout(p, n, &kind, &klen, &seqat, &seqend))
		return put_numbered(s, p, n, err);
	s->slen = 0;
	if (!s_reserve(s, n + 9))
		return nomem(err);
	memcpy(s->scratch, p, seqat);
	s->slen = seqat;
	s_uint(s, (uint64_t)dtcp_writer_nitems(s->w));
	memcpy(s->scratch + s->slen, p + seqend, n - seqend);
	s->slen += n - seqend;
	return dtc_writer_put_item(s->w, s->scratch, s->slen, err);
}

/* ------------------------------------------------------------------ */
/* The series                                                          */
/* ------------------------------------------------------------------ */

static dtc_series_writer *
series_new(const uint8_t *hdr, size_t n, int v2, int level, const char *id,
    dtc_error *err)
{
	dtc_series_writer *s;

	if (id == NULL || id[0] == '\0' || strlen(id) >= sizeof(s->id)) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "a series needs a name of 1 to %zu bytes",
		    sizeof(s->id) - 1);
		return NULL;
	}
	if (level < 0 || level > DTC_ZSTD_LEVEL_MAX) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "zstd compression level %d is not in 1..%d", level,
		    DTC_ZSTD_LEVEL_MAX);
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->hdr = malloc(n)) == NULL) {
		free(s);
		nomem(err);
		return NULL;
	}
	memcpy(s->hdr, hdr, n);
	s->hdrlen = n;
	s->v2 = v2;
	s->level = level;
	s->index = -1;
	snprintf(s->id, sizeof(s->id), "%s", id);
	return s;
}

dtc_series_writer *
dtc_series_writer_new(const dtc_writer_header *h, int level, const char *id,
    dtc_error *err)
{
	dtc_series_writer *s;
	dtc_writer *w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	dtc_error_clear(err);
	/* the header exactly as the writer encodes it */
	if ((f = open_memstream(&buf, &len)) == NULL) {
		nomem(err);
		return NULL;
	}
	if ((w = dtc_writer_new(f, h, err)) == NULL) {
		fclose(f);
		free(buf);
		return NULL;
	}
	dtc_writer_free(w);
	rc = fclose(f);
	if (rc != 0 || buf == NULL) {
		free(buf);
		nomem(err);
		return NULL;
	}
	s = series_new((const uint8_t *)buf, len, h->flavor != NULL &&
	    strcmp(h->flavor, "dtrace-v2") == 0, level, id, err);
	free(buf);
	return s;
}

dtc_series_writer *
dtc_series_writer_new_raw(const void *hdr, size_t n, int v2, int level,
    const char *id, dtc_error *err)
{
	dtc_error_clear(err);
	if (hdr == NULL || n == 0) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_series_writer_new_raw: no header item");
		return NULL;
	}
	return series_new(hdr, n, v2, level, id, err);
}

dtc_writer *
dtc_series_begin_part(dtc_series_writer *s, FILE *out, uint64_t hrtime,
    uint64_t walltime, dtc_error *err)
{
	size_t i, nrep;
	int rc;

	dtc_error_clear(err);
	if (s == NULL || out == NULL || s->w != NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_series_begin_part: %s", s != NULL && s->w != NULL ?
		    "the part before is still open" : "no series or stream");
		return NULL;
	}
	if (s->keep.nomem) {
		nomem(err);
		return NULL;
	}
	if ((s->w = dtc_writer_new_raw(out, s->level, err)) == NULL)
		return NULL;
	dtcp_writer_set_keep(s->w, NULL, s->v2);
	s->index++;
	nrep = s->keep.n + (s->keep.snap != NULL);
	rc = put_renumbered(s, s->hdr, s->hdrlen, err);
	if (rc == DTC_OK) {
		if (!s_begin(s, "clock", 5) ||
		    !s_key_uint(s, "hrtime", hrtime) ||
		    !s_key_uint(s, "walltime", walltime) ||
		    !s_text(s, "series") || !s_text(s, s->id) ||
		    !s_key_uint(s, "part", (uint64_t)s->index) ||
		    !s_key_uint(s, "replayed", nrep))
			rc = nomem(err);
		else
			rc = dtc_writer_put_item(s->w, s->scratch, s->slen,
			    err);
	}
	for (i = 0; rc == DTC_OK && i < s->keep.n; i++)
		rc = put_renumbered(s, s->keep.v[i].p, s->keep.v[i].n, err);
	if (rc == DTC_OK && s->keep.snap != NULL)
		rc = put_renumbered(s, s->keep.snap, s->keep.snaplen, err);
	if (rc != DTC_OK) {
		dtc_writer_free(s->w);
		s->w = NULL;
		return NULL;
	}
	dtcp_writer_set_keep(s->w, &s->keep, s->v2);
	return s->w;
}

int
dtc_series_put_item(dtc_series_writer *s, const void *p, size_t n,
    dtc_error *err)
{
	const uint8_t *kind;
	size_t klen;
	char k[16];
	int rc;

	if (s == NULL || s->w == NULL || p == NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_series_put_item: %s", s == NULL ? "no series" :
		    s->w == NULL ? "no part open" : "no item");
		return DTC_FAILED;
	}
	/* the keep sees the item as the part writes it, renumbered */
	if (kind_of(p, n, &kind, &klen) && klen < sizeof(k)) {
		memcpy(k, kind, klen);
		k[klen] = '\0';
		dtcp_wkeep_begin(&s->keep, k);
	}
	rc = put_renumbered(s, p, n, err);
	dtcp_wkeep_end(&s->keep);
	return rc;
}

/* A part that is the run's only one repeats nothing: keeping copies of
 * its items would only cost memory. */
int
dtc_series_keep_nothing(dtc_series_writer *s, dtc_error *err)
{
	if (s == NULL || s->w == NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_series_keep_nothing: %s", s == NULL ? "no series" :
		    "no part open");
		return DTC_FAILED;
	}
	dtcp_writer_set_keep(s->w, NULL, s->v2);
	return DTC_OK;
}

int
dtc_series_end_part(dtc_series_writer *s, const dtc_part_end *e,
    dtc_error *err)
{
	size_t nkeys;
	uint32_t i;
	int rc;

	if (s == NULL || s->w == NULL || e == NULL ||
	    (e->ncpu > 0 && e->drops == NULL)) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_series_end_part: no part open or no description");
		return DTC_FAILED;
	}
	/* options set last belong before the end item */
	if ((rc = dtcp_writer_flush_options(s->w, err)) != DTC_OK)
		goto out;
	nkeys = 5 + (e->window ? 3 : 0);
	if (!s_begin(s, "end", nkeys) ||
	    !s_text(s, "exit_status") || !s_int(s, e->exit_status) ||
	    !s_key_uint(s, "more", e->more != 0) ||
	    !s_key_uint(s, "first", e->first) ||
	    !s_key_uint(s, "last", e->last) ||
	    !s_text(s, "drops") || !s_head(s, false, e->ncpu)) {
		rc = nomem(err);
		goto out;
	}
	for (i = 0; i < e->ncpu; i++)
		if (!s_uint(s, e->drops[i])) {
			rc = nomem(err);
			goto out;
		}
	if (e->window && (!s_key_uint(s, "window", 1) ||
	    !s_key_uint(s, "let_go_records", e->let_go_records) ||
	    !s_key_uint(s, "let_go_bytes", e->let_go_bytes))) {
		rc = nomem(err);
		goto out;
	}
	if ((rc = dtc_writer_put_item(s->w, s->scratch, s->slen, err)) ==
	    DTC_OK)
		rc = dtc_writer_flush(s->w, err);
out:
	dtc_writer_free(s->w);
	s->w = NULL;
	return rc;
}

long
dtc_series_index(const dtc_series_writer *s)
{
	return s->index;
}

void
dtc_series_writer_free(dtc_series_writer *s)
{
	if (s == NULL)
		return;
	dtc_writer_free(s->w);
	wkeep_free(&s->keep);
	free(s->hdr);
	free(s->scratch);
	free(s);
}
