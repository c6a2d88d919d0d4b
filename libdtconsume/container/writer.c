/*
 * writer.c - dtc_writer: writes a .dtsnap capture (see dtsnap(5)).
 *
 * Each item is encoded with libcbor's cbor_encode_* into one reusable
 * buffer and written with a single fwrite, except the byte strings of
 * buffer snapshots and the symbol table, which go straight to the stream
 * so that a large buffer is never copied.  Every map has a definite
 * length and "t" as its first key: a capture then starts with the same
 * few bytes, which file(1)-style sniffing can rely on.  "seq" (the
 * item's index, so that a reader sees an item cut out cleanly) comes
 * second: a resynchronizing reader finds items by a map head, "t" and a
 * kind, so "t" must stay first, and right after it the number is in an
 * item's first bytes even when the rest of the item is lost.
 *
 * Compression (dtc_writer_new_zstd; dtsnap(5), COMPRESSION): the same
 * bytes go through libzstd's streaming compressor, and a frame is ended
 * (ZSTD_e_end) only between items: once DTCP_ZSTD_FRAME_BYTES of items
 * went into it, at dtc_writer_flush and at the end.  Every frame then
 * decodes to whole items on its own, which is what lets a reader keep
 * everything but a damaged frame.
 *
 * Errors: misuse (a NULL description, a call out of order) gives
 * DTC_FAILED and writes nothing; a failed write or allocation gives
 * DTC_FATAL and every later call fails the same way, because the stream
 * may now end inside an item.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cbor.h>
#include <zstd.h>

#include "base.h"

/*
 * The minor container version written (the major one is the reader's,
 * DTCP_FORMAT_MAJOR), for both flavors: 1.3 is the version whose items
 * carry "seq", 1.4 the one with program and dof items, and every capture
 * written here is 1.4.  No reader of major version 1 refuses a higher
 * minor one, so this loses no reader: an older one ignores the keys and
 * skips the kinds it does not know silently, which it does only in a
 * capture newer than itself (in a 1.3 capture a program item would be
 * reported as no item of the format).
 */
#define WRITE_MINOR 4

/* byte strings up to this size are copied into the item buffer */
#define INLINE_BYTES 4096
/* the symbol table is written out whenever this much is encoded */
#define FLUSH_AT     (64 * 1024)

struct wopt {
	char *name;
	char *sval;          /* NULL: ival */
	int64_t ival;
};

struct dtc_writer {
	FILE *out;
	uint8_t *enc;        /* the item being encoded */
	size_t len, cap;
	long long nitems;    /* items written: the index of the next one */
	uint64_t off;        /* bytes written: the offset of the next one */
	bool dead;
	dtc_error fatal;     /* why it died, repeated by every later call */
	bool nomem;          /* the item buffer could not grow */
	struct wopt *opts;   /* options waiting for their one options item */
	size_t nopts, optcap;
	bool in_ksyms;
	size_t ksyms_want, ksyms_have;
	bool v2;             /* flavor "dtrace-v2" */
	bool in_aggsnap;
	size_t snap_want, snap_have;
	/* compression: the context, its output buffer, bytes in the frame */
	ZSTD_CCtx *zc;
	uint8_t *zout;
	size_t zcap;
	uint64_t zframe;
	/* series.c: what a next part repeats (NULL: nothing kept) */
	struct dtcp_wkeep *keep;
};

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

static int
die(dtc_writer *w, dtc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
die(dtc_writer *w, dtc_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!w->dead) {
		w->dead = true;
		dtc_error_clear(&w->fatal);
		va_start(ap, fmt);
		dtcp_error_vset(&w->fatal, code, NULL, w->nitems,
		    (long long)w->off, -1, fmt, ap);
		va_end(ap);
	}
	if (err != NULL && err->code == DTC_E_NONE)
		*err = w->fatal;
	return DTC_FATAL;
}

static int
misuse(dtc_writer *w, dtc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
misuse(dtc_writer *w, dtc_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, DTC_E_BADVALUE, NULL, w != NULL ? w->nitems : -1,
	    -1, -1, fmt, ap);
	va_end(ap);
	return DTC_FAILED;
}

/* ------------------------------------------------------------------ */
/* Encoding (libcbor) and output                                       */
/* ------------------------------------------------------------------ */

static bool
reserve(dtc_writer *w, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (w->nomem)
		return false;
	if (w->cap - w->len >= n)
		return true;
	for (cap = w->cap ? w->cap : 1024; cap - w->len < n; cap *= 2)
		;
	if ((p = realloc(w->enc, cap)) == NULL) {
		w->nomem = true;
		return false;
	}
	w->enc = p;
	w->cap = cap;
	return true;
}

/* Every cbor_encode_* head fits in 9 bytes. */
#define HEAD 9

static void
e_uint(dtc_writer *w, uint64_t v)
{
	if (reserve(w, HEAD))
		w->len += cbor_encode_uint(v, w->enc + w->len, w->cap - w->len);
}

static void
e_int(dtc_writer *w, int64_t v)
{
	if (v >= 0) {
		e_uint(w, (uint64_t)v);
		return;
	}
	/* CBOR stores -1 - v, which fits in 64 bits even for INT64_MIN */
	if (reserve(w, HEAD))
		w->len += cbor_encode_negint((uint64_t)(-1 - v),
		    w->enc + w->len, w->cap - w->len);
}

static void
e_text(dtc_writer *w, const char *s)
{
	size_t l;

	if (s == NULL)
		s = "";
	l = strlen(s);
	if (!reserve(w, HEAD + l))
		return;
	w->len += cbor_encode_string_start(l, w->enc + w->len, w->cap - w->len);
	memcpy(w->enc + w->len, s, l);
	w->len += l;
}

static void
e_map(dtc_writer *w, size_t n)
{
	if (reserve(w, HEAD))
		w->len += cbor_encode_map_start(n, w->enc + w->len,
		    w->cap - w->len);
}

static void
e_array(dtc_writer *w, size_t n)
{
	if (reserve(w, HEAD))
		w->len += cbor_encode_array_start(n, w->enc + w->len,
		    w->cap - w->len);
}

static void
raw_put(dtc_writer *w, const void *p, size_t n, uint64_t off,
    dtc_error *err)
{
	if (fwrite(p, 1, n, w->out) != n || ferror(w->out))
		die(w, err, DTC_E_IO, "write failed at byte %llu: %s",
		    (unsigned long long)off, strerror(errno));
}

/* Compress n bytes; mode ZSTD_e_end also ends the frame. */
static void
zput(dtc_writer *w, const void *p, size_t n, ZSTD_EndDirective mode,
    dtc_error *err)
{
	ZSTD_inBuffer ib = { p, n, 0 };
	ZSTD_outBuffer ob;
	size_t left;

	do {
		ob.dst = w->zout;
		ob.size = w->zcap;
		ob.pos = 0;
		left = ZSTD_compressStream2(w->zc, &ob, &ib, mode);
		if (ZSTD_isError(left)) {
			die(w, err, DTC_E_INTERNAL, "zstd: %s",
			    ZSTD_getErrorName(left));
			return;
		}
		if (ob.pos > 0)
			raw_put(w, w->zout, ob.pos, w->off, err);
		if (w->dead)
			return;
	} while (mode == ZSTD_e_end ? left != 0 : ib.pos < ib.size);
	w->zframe = mode == ZSTD_e_end ? 0 : w->zframe + n;
}

static void
put(dtc_writer *w, const void *p, size_t n, dtc_error *err)
{
	if (w->dead || n == 0)
		return;
	if (w->keep != NULL)
		dtcp_wkeep_bytes(w->keep, p, n);
	if (w->zc != NULL) {
		zput(w, p, n, ZSTD_e_continue, err);
		if (!w->dead)
			w->off += n;
		return;
	}
	if (fwrite(p, 1, n, w->out) != n || ferror(w->out)) {
		die(w, err, DTC_E_IO, "write failed at byte %llu: %s",
		    (unsigned long long)w->off, strerror(errno));
		return;
	}
	w->off += n;
}

/* Write what is encoded so far. */
static int
flush(dtc_writer *w, dtc_error *err)
{
	if (w->nomem) {
		w->nomem = false;
		w->len = 0;
		return die(w, err, DTC_E_NOMEM, "out of memory encoding item");
	}
	put(w, w->enc, w->len, err);
	w->len = 0;
	return w->dead ? DTC_FATAL : DTC_OK;
}

static void
e_bytes(dtc_writer *w, const void *p, size_t n, dtc_error *err)
{
	if (!reserve(w, HEAD))
		return;
	w->len += cbor_encode_bytestring_start(n, w->enc + w->len,
	    w->cap - w->len);
	if (n <= INLINE_BYTES) {
		if (n > 0 && reserve(w, n)) {
			memcpy(w->enc + w->len, p, n);
			w->len += n;
		}
		return;
	}
	if (flush(w, err) == DTC_OK)
		put(w, p, n, err);
}

static void
e_key_uint(dtc_writer *w, const char *k, uint64_t v)
{
	e_text(w, k);
	e_uint(w, v);
}

static void
e_key_int(dtc_writer *w, const char *k, int64_t v)
{
	e_text(w, k);
	e_int(w, v);
}

static void
e_key_text(dtc_writer *w, const char *k, const char *v)
{
	e_text(w, k);
	e_text(w, v);
}

/* ------------------------------------------------------------------ */
/* Items                                                               */
/* ------------------------------------------------------------------ */

static int write_options(dtc_writer *w, dtc_error *err);

/*
 * Start an item of nkeys keys besides "t" and "seq".  Options waiting
 * to be written go first, as one item, since they were set before this
 * one; they take its number, and it the next.
 */
static int
begin(dtc_writer *w, const char *kind, size_t nkeys, dtc_error *err)
{
	if (w == NULL)
		return misuse(w, err, "no writer");
	if (w->dead)
		return die(w, err, w->fatal.code, NULL);
	if (w->in_ksyms)
		return misuse(w, err, "%s item while the ksyms item is open "
		    "(%zu of %zu symbols written)", kind, w->ksyms_have,
		    w->ksyms_want);
	if (w->in_aggsnap)
		return misuse(w, err, "%s item while the aggsnap item is open "
		    "(%zu of %zu entries written)", kind, w->snap_have,
		    w->snap_want);
	if (w->nopts > 0 && strcmp(kind, "options") != 0 &&
	    write_options(w, err) != DTC_OK)
		return DTC_FATAL;
	w->len = 0;
	e_map(w, nkeys + 2);
	e_key_text(w, "t", kind);
	e_key_uint(w, "seq", (uint64_t)w->nitems);
	if (w->keep != NULL)
		dtcp_wkeep_begin(w->keep, kind);
	return DTC_OK;
}

/* Compression: end the frame (between items only). */
static int
end_frame(dtc_writer *w, dtc_error *err)
{
	if (w->zc != NULL && !w->dead && w->zframe > 0)
		zput(w, NULL, 0, ZSTD_e_end, err);
	return w->dead ? DTC_FATAL : DTC_OK;
}

static int
finish(dtc_writer *w, dtc_error *err)
{
	if (flush(w, err) != DTC_OK)
		return DTC_FATAL;
	if (w->keep != NULL)
		dtcp_wkeep_end(w->keep);
	w->nitems++;
	if (w->zframe >= DTCP_ZSTD_FRAME_BYTES)
		return end_frame(w, err);
	return DTC_OK;
}

static void
free_options(dtc_writer *w)
{
	size_t i;

	for (i = 0; i < w->nopts; i++) {
		free(w->opts[i].name);
		free(w->opts[i].sval);
	}
	w->nopts = 0;
}

static int
write_options(dtc_writer *w, dtc_error *err)
{
	size_t i;
	int rc;

	if (begin(w, "options", 1, err) != DTC_OK)
		return DTC_FATAL;
	e_text(w, "options");
	e_map(w, w->nopts);
	for (i = 0; i < w->nopts; i++) {
		e_text(w, w->opts[i].name);
		if (w->opts[i].sval != NULL)
			e_text(w, w->opts[i].sval);
		else
			e_int(w, w->opts[i].ival);
	}
	rc = finish(w, err);
	free_options(w);
	return rc;
}

/* A recdesc array under key (every recdesc key, always, in one order). */
static void
e_reclist(dtc_writer *w, const char *key, uint32_t nrecs,
    const dtc_recdesc *recs)
{
	uint32_t i;

	e_text(w, key);
	e_array(w, nrecs);
	for (i = 0; i < nrecs; i++) {
		const dtc_recdesc *r = &recs[i];

		e_map(w, 7);
		e_key_uint(w, "action", r->action);
		e_key_uint(w, "size", r->size);
		e_key_uint(w, "offset", r->offset);
		e_key_uint(w, "alignment", r->alignment);
		e_key_uint(w, "format", r->format);
		e_key_uint(w, "arg", r->arg);
		e_key_uint(w, "uarg", r->uarg);
	}
}

static void
e_recs(dtc_writer *w, uint32_t nrecs, const dtc_recdesc *recs)
{
	e_reclist(w, "recs", nrecs, recs);
}

/* ILLUMOS: DIF_SUBR_MAX + 1 is 49 there and 55 on current FreeBSD. */
static uint32_t
default_act_base(const char *os)
{
	if (os != NULL && (strcasecmp(os, "illumos") == 0 ||
	    strcasecmp(os, "solaris") == 0 || strcasecmp(os, "sunos") == 0))
		return 49;
	return 55;
}

dtc_writer *
dtc_writer_new(FILE *out, const dtc_writer_header *h, dtc_error *err)
{
	return dtc_writer_new_zstd(out, h, 0, err);
}

/*
 * Levels above DTC_ZSTD_LEVEL_MAX would ask for a window larger than a
 * reader accepts (DTCP_ZSTD_WINDOWLOG_MAX): with a frame of about 1 MiB
 * they would gain nothing anyway.
 */
static int
zstart(dtc_writer *w, int level, dtc_error *err)
{
	if (level < 0 || level > DTC_ZSTD_LEVEL_MAX) {
		misuse(NULL, err, "zstd compression level %d is not in 1..%d",
		    level, DTC_ZSTD_LEVEL_MAX);
		return -1;
	}
	if (level == 0)
		return 0;
	w->zcap = ZSTD_CStreamOutSize();
	if ((w->zc = ZSTD_createCCtx()) == NULL ||
	    (w->zout = malloc(w->zcap)) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory");
		return -1;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc,
	    ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag,
	    1))) {
		misuse(NULL, err, "zstd refused compression level %d", level);
		return -1;
	}
	return 0;
}

/* A writer on out at zstd level (0: not compressed), nothing written:
 * what the header path and the raw path share. */
static dtc_writer *
wnew(FILE *out, int level, dtc_error *err)
{
	dtc_writer *w;

	if ((w = calloc(1, sizeof(*w))) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory");
		return NULL;
	}
	w->out = out;
	if (zstart(w, level, err) != 0) {
		dtc_writer_free(w);
		return NULL;
	}
	return w;
}

dtc_writer *
dtc_writer_new_zstd(FILE *out, const dtc_writer_header *h, int level,
    dtc_error *err)
{
	dtc_writer *w;
	char producer[64];

	dtc_error_clear(err);
	if (out == NULL || h == NULL) {
		misuse(NULL, err, "dtc_writer_new needs an output stream and "
		    "a header");
		return NULL;
	}
	if ((w = wnew(out, level, err)) == NULL)
		return NULL;
	if (h->flavor != NULL && strcmp(h->flavor, "legacy") != 0) {
		if (strcmp(h->flavor, "dtrace-v2") != 0) {
			misuse(NULL, err, "unknown capture flavor '%s'",
			    h->flavor);
			dtc_writer_free(w);
			return NULL;
		}
		w->v2 = true;
	}
	snprintf(producer, sizeof(producer), "libdtconsume %s",
	    dtc_version_string());
	begin(w, "dtsnap", w->v2 ? 10 : 9, err);
	e_text(w, "version");
	e_array(w, 2);
	e_uint(w, DTCP_FORMAT_MAJOR);
	e_uint(w, WRITE_MINOR);
	if (w->v2)
		e_key_text(w, "flavor", "dtrace-v2");
	e_key_text(w, "byteorder", h->big_endian ? "big" : "little");
	e_key_text(w, "model", h->ilp32 ? "ILP32" : "LP64");
	e_key_text(w, "os", h->os);
	e_key_text(w, "release", h->release);
	e_key_text(w, "host", h->host);
	e_key_uint(w, "ncpu", h->ncpu);
	e_key_uint(w, "dt_act_base", h->dt_act_base != 0 ? h->dt_act_base :
	    default_act_base(h->os));
	e_key_text(w, "producer", h->producer != NULL ? h->producer :
	    producer);
	if (finish(w, err) != DTC_OK) {
		dtc_writer_free(w);
		return NULL;
	}
	return w;
}

int
dtc_writer_add_probe(dtc_writer *w, const dtc_probedesc *p, dtc_error *err)
{
	int rc;

	if (p == NULL)
		return misuse(w, err, "no probe description");
	if ((rc = begin(w, "probe", 5, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "id", p->id);
	e_key_text(w, "provider", p->provider);
	e_key_text(w, "module", p->module);
	e_key_text(w, "function", p->function);
	e_key_text(w, "name", p->name);
	return finish(w, err);
}

int
dtc_writer_add_eprobe(dtc_writer *w, const dtc_eprobedesc *ep,
    dtc_error *err)
{
	int rc;

	if (ep == NULL || (ep->nrecs > 0 && ep->recs == NULL))
		return misuse(w, err, "no enabled probe description");
	if ((rc = begin(w, "eprobe", 5, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "epid", ep->epid);
	e_key_uint(w, "probe", ep->probeid);
	e_key_uint(w, "uarg", ep->uarg);
	e_key_uint(w, "size", ep->size);
	e_recs(w, ep->nrecs, ep->recs);
	return finish(w, err);
}

int
dtc_writer_add_agg(dtc_writer *w, const dtc_aggdesc *ad, dtc_error *err)
{
	int rc;

	if (ad == NULL || (ad->nrecs > 0 && ad->recs == NULL))
		return misuse(w, err, "no aggregation description");
	if ((rc = begin(w, "agg", 7, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "id", ad->id);
	e_key_uint(w, "epid", ad->epid);
	e_key_int(w, "varid", ad->varid);
	e_key_text(w, "name", ad->name);
	e_key_uint(w, "size", ad->size);
	e_key_uint(w, "flags", ad->flags);
	e_recs(w, ad->nrecs, ad->recs);
	return finish(w, err);
}

int
dtc_writer_add_format(dtc_writer *w, uint32_t id, const char *s,
    dtc_error *err)
{
	int rc;

	if (s == NULL)
		return misuse(w, err, "no string for format %u", id);
	if ((rc = begin(w, "format", 2, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "id", id);
	e_key_text(w, "string", s);
	return finish(w, err);
}

/*
 * Options are kept until another kind of item (or the end) comes, so
 * that options set together make one item.  A name set twice in one run
 * keeps its last value, as setting options in turn would.
 */
int
dtc_writer_add_option(dtc_writer *w, const char *name, const char *value,
    int64_t ival, dtc_error *err)
{
	struct wopt *o = NULL;
	char *sval = NULL;
	size_t i;

	if (w == NULL || name == NULL || name[0] == '\0')
		return misuse(w, err, "option without a name");
	if (w->dead)
		return die(w, err, w->fatal.code, NULL);
	if (w->in_ksyms)
		return misuse(w, err, "option '%s' while the ksyms item is "
		    "open", name);
	if (value != NULL && (sval = strdup(value)) == NULL)
		return die(w, err, DTC_E_NOMEM, "out of memory");
	for (i = 0; i < w->nopts; i++)
		if (strcmp(w->opts[i].name, name) == 0)
			o = &w->opts[i];
	if (o == NULL) {
		if (w->nopts == w->optcap) {
			size_t ncap = w->optcap ? w->optcap * 2 : 16;
			struct wopt *no = realloc(w->opts, ncap * sizeof(*no));

			if (no == NULL) {
				free(sval);
				return die(w, err, DTC_E_NOMEM, "out of memory");
			}
			w->opts = no;
			w->optcap = ncap;
		}
		o = &w->opts[w->nopts];
		if ((o->name = strdup(name)) == NULL) {
			free(sval);
			return die(w, err, DTC_E_NOMEM, "out of memory");
		}
		o->sval = NULL;
		w->nopts++;
	}
	free(o->sval);
	o->sval = sval;
	o->ival = ival;
	return DTC_OK;
}

int
dtc_writer_add_clock(dtc_writer *w, uint64_t hrtime, uint64_t walltime,
    dtc_error *err)
{
	int rc;

	if ((rc = begin(w, "clock", 2, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "hrtime", hrtime);
	e_key_uint(w, "walltime", walltime);
	return finish(w, err);
}

int
dtc_writer_add_pass_clock(dtc_writer *w, int64_t pass, uint64_t hrtime,
    uint64_t walltime, dtc_error *err)
{
	int rc;

	if ((rc = begin(w, "clock", 3, err)) != DTC_OK)
		return rc;
	if (pass >= 0)
		e_key_uint(w, "pass", (uint64_t)pass);
	else
		e_key_uint(w, "pass_clocks", 1);
	e_key_uint(w, "hrtime", hrtime);
	e_key_uint(w, "walltime", walltime);
	return finish(w, err);
}

/*
 * The symbol table can hold hundreds of thousands of entries: it is
 * streamed, so the caller never builds it in memory.  The count comes
 * first because CBOR arrays here have a definite length.
 */
int
dtc_writer_ksyms_begin(dtc_writer *w, size_t nsyms, dtc_error *err)
{
	int rc;

	if ((rc = begin(w, "ksyms", 1, err)) != DTC_OK)
		return rc;
	e_text(w, "symbols");
	e_array(w, nsyms);
	if (flush(w, err) != DTC_OK)
		return DTC_FATAL;
	w->in_ksyms = true;
	w->ksyms_want = nsyms;
	w->ksyms_have = 0;
	return DTC_OK;
}

int
dtc_writer_add_ksym(dtc_writer *w, uint64_t addr, uint64_t size,
    const char *module, const char *name, dtc_error *err)
{
	if (w == NULL || !w->in_ksyms)
		return misuse(w, err, "kernel symbol outside "
		    "dtc_writer_ksyms_begin/_end");
	if (w->dead)
		return die(w, err, w->fatal.code, NULL);
	if (w->ksyms_have == w->ksyms_want)
		return misuse(w, err, "more kernel symbols than the %zu "
		    "announced", w->ksyms_want);
	e_array(w, 4);
	e_uint(w, addr);
	e_uint(w, size);
	e_text(w, module);
	e_text(w, name);
	w->ksyms_have++;
	if ((w->len >= FLUSH_AT || w->nomem) && flush(w, err) != DTC_OK)
		return DTC_FATAL;
	return DTC_OK;
}

int
dtc_writer_ksyms_end(dtc_writer *w, dtc_error *err)
{
	if (w == NULL || !w->in_ksyms)
		return misuse(w, err, "dtc_writer_ksyms_end without "
		    "dtc_writer_ksyms_begin");
	if (w->dead)
		return die(w, err, w->fatal.code, NULL);
	w->in_ksyms = false;
	/* the array length is already written: the stream cannot be mended */
	if (w->ksyms_have != w->ksyms_want)
		return die(w, err, DTC_E_BADVALUE, "ksyms item ended after %zu "
		    "of the %zu symbols announced", w->ksyms_have,
		    w->ksyms_want);
	return finish(w, err);
}

int
dtc_writer_add_proc(dtc_writer *w, uint64_t pid, const char *execname,
    size_t nmaps, const dtc_writer_map *maps, dtc_error *err)
{
	size_t i, j;
	int rc;

	if (nmaps > 0 && maps == NULL)
		return misuse(w, err, "no mappings for process %llu",
		    (unsigned long long)pid);
	for (i = 0; i < nmaps; i++)
		if (maps[i].nsyms > 0 && maps[i].syms == NULL)
			return misuse(w, err, "no symbols for mapping %zu of "
			    "process %llu", i, (unsigned long long)pid);
	if ((rc = begin(w, "proc", 3, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pid", pid);
	e_key_text(w, "execname", execname);
	e_text(w, "maps");
	e_array(w, nmaps);
	for (i = 0; i < nmaps; i++) {
		const dtc_writer_map *m = &maps[i];

		e_map(w, 4);
		e_key_uint(w, "start", m->start);
		e_key_uint(w, "end", m->end);
		e_key_text(w, "path", m->path);
		e_text(w, "symbols");
		e_array(w, m->nsyms);
		for (j = 0; j < m->nsyms; j++) {
			e_array(w, 3);
			e_uint(w, m->syms[j].addr);
			e_uint(w, m->syms[j].size);
			e_text(w, m->syms[j].name);
		}
	}
	return finish(w, err);
}

int
dtc_writer_add_status(dtc_writer *w, const dtc_writer_status *st,
    dtc_error *err)
{
	int rc;

	if (st == NULL)
		return misuse(w, err, "no status");
	if ((rc = begin(w, "status", 14, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", st->pass);
	e_key_int(w, "began_on", st->began_on);
	e_key_int(w, "ended_on", st->ended_on);
	e_key_uint(w, "exiting", st->exiting != 0);
	e_key_int(w, "exit_status", st->exit_status);
	e_key_uint(w, "dynamic", st->dynamic);
	e_key_uint(w, "dynrinse", st->dynrinse);
	e_key_uint(w, "dyndirty", st->dyndirty);
	e_key_uint(w, "spec", st->spec);
	e_key_uint(w, "specbusy", st->specbusy);
	e_key_uint(w, "specunavail", st->specunavail);
	e_key_uint(w, "stkstroverflow", st->stkstroverflow);
	e_key_uint(w, "dblerrors", st->dblerrors);
	e_key_uint(w, "errors", st->errors);
	return finish(w, err);
}

static int
check_buf(dtc_writer *w, const dtc_writer_buf *b, const char *what,
    dtc_error *err)
{
	if (b == NULL || (b->size > 0 && b->data == NULL))
		return misuse(w, err, "no data for the %s item", what);
	if (b->cpu < 0)
		return misuse(w, err, "%s item for cpu %d", what, b->cpu);
	return DTC_OK;
}

int
dtc_writer_add_aggbuf(dtc_writer *w, const dtc_writer_buf *b,
    dtc_error *err)
{
	int rc;

	if ((rc = check_buf(w, b, "aggbuf", err)) != DTC_OK ||
	    (rc = begin(w, "aggbuf", 4, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", b->pass);
	e_key_int(w, "cpu", b->cpu);
	e_text(w, "data");
	e_bytes(w, b->data, b->size, err);
	e_key_uint(w, "drops", b->drops);
	return finish(w, err);
}

int
dtc_writer_add_buf(dtc_writer *w, const dtc_writer_buf *b, dtc_error *err)
{
	int rc;

	if ((rc = check_buf(w, b, "buf", err)) != DTC_OK ||
	    (rc = begin(w, "buf", 7, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", b->pass);
	e_key_int(w, "cpu", b->cpu);
	e_text(w, "data");
	e_bytes(w, b->data, b->size, err);
	e_key_uint(w, "drops", b->drops);
	e_key_uint(w, "errors", b->errors);
	e_key_uint(w, "oldest", b->oldest);
	e_key_uint(w, "timestamp", b->timestamp);
	return finish(w, err);
}

/* ------------------------------------------------------------------ */
/* DTrace v2 items                                                     */
/* ------------------------------------------------------------------ */

static int
need_flavor(dtc_writer *w, bool v2, const char *kind, dtc_error *err)
{
	if (w == NULL)
		return misuse(w, err, "no writer");
	if (w->v2 != v2)
		return misuse(w, err, "%s item in a %s capture", kind,
		    w->v2 ? "dtrace-v2" : "legacy");
	return DTC_OK;
}

int
dtc_writer_add_stmt(dtc_writer *w, const dtc_stmtdesc *sd, dtc_error *err)
{
	int rc;

	if ((rc = need_flavor(w, true, "stmt", err)) != DTC_OK)
		return rc;
	if (sd == NULL || (sd->nrecs > 0 && sd->recs == NULL))
		return misuse(w, err, "no statement description");
	if ((rc = begin(w, "stmt", 4, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "id", sd->id);
	e_key_uint(w, "uarg", sd->uarg);
	e_key_uint(w, "size", sd->size);
	e_recs(w, sd->nrecs, sd->recs);
	return finish(w, err);
}

int
dtc_writer_add_aggdesc_v2(dtc_writer *w, const dtc_aggdesc_v2 *ad,
    dtc_error *err)
{
	int rc;

	if ((rc = need_flavor(w, true, "aggdesc", err)) != DTC_OK)
		return rc;
	if (ad == NULL || (ad->nkrecs > 0 && ad->krecs == NULL) ||
	    (ad->ndrecs > 0 && ad->drecs == NULL))
		return misuse(w, err, "no aggregation description");
	if ((rc = begin(w, "aggdesc", 10, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "id", ad->id);
	e_key_int(w, "varid", ad->varid);
	e_key_text(w, "name", ad->name != NULL ? ad->name : "");
	e_key_uint(w, "flags", ad->flags);
	e_key_uint(w, "sig", ad->sig);
	e_key_uint(w, "normal", ad->normal);
	e_key_uint(w, "ksize", ad->ksize);
	e_key_uint(w, "dsize", ad->dsize);
	e_reclist(w, "krecs", ad->nkrecs, ad->krecs);
	e_reclist(w, "drecs", ad->ndrecs, ad->drecs);
	return finish(w, err);
}

int
dtc_writer_add_recs(dtc_writer *w, uint32_t pass, int cpu, const void *data,
    size_t size, dtc_error *err)
{
	int rc;

	if ((rc = need_flavor(w, true, "recs", err)) != DTC_OK)
		return rc;
	if ((size > 0 && data == NULL) || cpu < 0)
		return misuse(w, err, "no data or no cpu for the recs item");
	if ((rc = begin(w, "recs", 3, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", pass);
	e_key_int(w, "cpu", cpu);
	e_text(w, "data");
	e_bytes(w, data, size, err);
	return finish(w, err);
}

int
dtc_writer_aggsnap_begin(dtc_writer *w, uint32_t pass, size_t nentries,
    dtc_error *err)
{
	int rc;

	if ((rc = need_flavor(w, true, "aggsnap", err)) != DTC_OK)
		return rc;
	if ((rc = begin(w, "aggsnap", 2, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", pass);
	e_text(w, "entries");
	e_array(w, nentries);
	w->in_aggsnap = true;
	w->snap_want = nentries;
	w->snap_have = 0;
	return DTC_OK;
}

int
dtc_writer_add_aggsnap_entry(dtc_writer *w, uint32_t aggid, const void *key,
    size_t ksize, const void *data, size_t dsize, dtc_error *err)
{
	if (w == NULL || !w->in_aggsnap)
		return misuse(w, err, "aggsnap entry outside an aggsnap item");
	if (w->snap_have == w->snap_want)
		return misuse(w, err, "aggsnap entry %zu of %zu", w->snap_have + 1,
		    w->snap_want);
	if ((ksize > 0 && key == NULL) || (dsize > 0 && data == NULL))
		return misuse(w, err, "aggsnap entry without key or data");
	e_array(w, 3);
	e_uint(w, aggid);
	e_bytes(w, key, ksize, err);
	e_bytes(w, data, dsize, err);
	w->snap_have++;
	if (w->len >= FLUSH_AT && flush(w, err) != DTC_OK)
		return DTC_FATAL;
	return w->dead ? DTC_FATAL : DTC_OK;
}

int
dtc_writer_aggsnap_end(dtc_writer *w, dtc_error *err)
{
	if (w == NULL || !w->in_aggsnap)
		return misuse(w, err, "no aggsnap item is open");
	if (w->snap_have != w->snap_want)
		return misuse(w, err, "aggsnap item ended after %zu of %zu "
		    "entries", w->snap_have, w->snap_want);
	w->in_aggsnap = false;
	return finish(w, err);
}

int
dtc_writer_add_drop(dtc_writer *w, uint32_t pass, int cpu, uint32_t kind,
    uint64_t drops, uint64_t total, const char *msg, dtc_error *err)
{
	int rc;

	if ((rc = need_flavor(w, true, "drop", err)) != DTC_OK)
		return rc;
	if ((rc = begin(w, "drop", 6, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", pass);
	e_key_int(w, "cpu", cpu);
	e_key_uint(w, "kind", kind);
	e_key_uint(w, "drops", drops);
	e_key_uint(w, "total", total);
	e_key_text(w, "msg", msg != NULL ? msg : "");
	return finish(w, err);
}

int
dtc_writer_add_fault(dtc_writer *w, const dtc_writer_fault *f,
    dtc_error *err)
{
	int rc;

	if ((rc = need_flavor(w, true, "fault", err)) != DTC_OK)
		return rc;
	if (f == NULL)
		return misuse(w, err, "no fault");
	if ((rc = begin(w, "fault", 9, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", f->pass);
	e_key_int(w, "cpu", f->cpu);
	e_key_uint(w, "stid", f->stid);
	e_key_uint(w, "probe", f->probe);
	e_key_int(w, "action", f->action);
	e_key_int(w, "offset", f->offset);
	e_key_int(w, "fault", f->fault);
	e_key_uint(w, "addr", f->addr);
	e_key_text(w, "msg", f->msg != NULL ? f->msg : "");
	return finish(w, err);
}

int
dtc_writer_add_ctf(dtc_writer *w, const char *module, const void *data,
    size_t size, const uint64_t *ids, size_t npairs, dtc_error *err)
{
	size_t i;
	int rc;

	if (module == NULL || module[0] == '\0' || (data == NULL && size > 0))
		return misuse(w, err, "ctf item without a module or data");
	if ((rc = begin(w, "ctf", ids != NULL ? 3 : 2, err)) != DTC_OK)
		return rc;
	e_key_text(w, "module", module);
	e_text(w, "data");
	e_bytes(w, data, size, err);
	if (ids != NULL) {
		e_text(w, "ids");
		e_array(w, 2 * npairs);
		for (i = 0; i < 2 * npairs; i++)
			e_uint(w, ids[i]);
	}
	return finish(w, err);
}

/* ------------------------------------------------------------------ */
/* The program item (dtsnap(5), program)                               */
/* ------------------------------------------------------------------ */

static void
e_textn(dtc_writer *w, const char *s, size_t l)
{
	if (!reserve(w, HEAD + l))
		return;
	w->len += cbor_encode_string_start(l, w->enc + w->len, w->cap - w->len);
	if (l > 0)
		memcpy(w->enc + w->len, s, l);
	w->len += l;
}

static void
e_opt(dtc_writer *w, char opt)
{
	char s[2] = { opt, '\0' };

	e_text(w, s);
}

static void
e_relocs(dtc_writer *w, const char *key, const dtc_prog_reloc *r, size_t n)
{
	size_t i;

	e_text(w, key);
	e_array(w, n);
	for (i = 0; i < n; i++) {
		e_array(w, 4);
		e_uint(w, r[i].name);
		e_uint(w, r[i].type);
		e_uint(w, r[i].offset);
		e_uint(w, r[i].data);
	}
}

static void
e_clause(dtc_writer *w, const dtc_prog_clause *c, dtc_error *err)
{
	size_t i;

	e_map(w, 10 + (c->has_probe != 0));
	e_key_uint(w, "source", c->source);
	e_key_text(w, "name", c->name);
	if (c->has_probe) {
		e_text(w, "probe");
		e_array(w, 4);
		for (i = 0; i < 4; i++)
			e_text(w, c->probe[i]);
	}
	e_text(w, "insns");
	e_bytes(w, c->insns, c->ninsns * 8, err);
	e_text(w, "strtab");
	e_bytes(w, c->strtab, c->strlen, err);
	e_text(w, "vars");
	e_array(w, c->nvars);
	for (i = 0; i < c->nvars; i++) {
		const dtc_prog_var *v = &c->vars[i];

		e_array(w, 12);
		e_uint(w, v->name);
		e_uint(w, v->id);
		e_uint(w, v->offset);
		e_uint(w, v->kind);
		e_uint(w, v->scope);
		e_uint(w, v->from);
		e_uint(w, v->to);
		e_uint(w, v->flags);
		e_uint(w, v->tkind);
		e_uint(w, v->tckind);
		e_uint(w, v->tflags);
		e_uint(w, v->tsize);
	}
	e_relocs(w, "brel", c->brel, c->nbrel);
	e_relocs(w, "krel", c->krel, c->nkrel);
	e_relocs(w, "urel", c->urel, c->nurel);
	e_text(w, "xlate");
	e_array(w, c->nxlate);
	for (i = 0; i < c->nxlate; i++) {
		e_array(w, 4);
		e_uint(w, c->xlate[i].id);
		e_int(w, c->xlate[i].arg);
		e_text(w, c->xlate[i].member);
		e_text(w, c->xlate[i].type);
	}
	e_text(w, "helpers");
	e_array(w, c->nhelpers);
	for (i = 0; i < c->nhelpers; i++) {
		e_array(w, 2);
		e_uint(w, c->helpers[i].id);
		e_text(w, c->helpers[i].name);
	}
}

int
dtc_writer_add_program(dtc_writer *w, const dtc_program *p, dtc_error *err)
{
	size_t i;
	int rc;

	if (p == NULL)
		return misuse(w, err, "program item without a program");
	if ((rc = begin(w, "program", 5 + (p->has_abi != 0), err)) != DTC_OK)
		return rc;
	e_text(w, "sources");
	e_array(w, p->nsources);
	for (i = 0; i < p->nsources; i++) {
		const dtc_prog_source *s = &p->sources[i];

		e_map(w, 3);
		e_text(w, "opt");
		e_opt(w, s->opt);
		e_key_text(w, "arg", s->arg);
		e_text(w, "text");
		e_textn(w, s->text != NULL ? s->text : "", s->text != NULL ?
		    s->len : 0);
	}
	e_text(w, "options");
	e_array(w, p->noptions);
	for (i = 0; i < p->noptions; i++) {
		e_map(w, 1 + (p->options[i].arg != NULL));
		e_text(w, "opt");
		e_opt(w, p->options[i].opt);
		if (p->options[i].arg != NULL)
			e_key_text(w, "arg", p->options[i].arg);
	}
	e_text(w, "macros");
	e_array(w, p->nmacros);
	for (i = 0; i < p->nmacros; i++)
		e_text(w, p->macros[i]);
	e_key_uint(w, "listings", p->listings);
	if (p->has_abi) {
		e_text(w, "abi");
		e_map(w, 8);
		e_key_int(w, "stk_dctx", p->abi.stk_dctx);
		e_key_int(w, "stk_spill_base", p->abi.stk_spill_base);
		e_key_int(w, "stk_slot", p->abi.stk_slot);
		e_key_int(w, "stk_nregs", p->abi.stk_nregs);
		e_key_int(w, "dctx_strtab", p->abi.dctx_strtab);
		e_key_int(w, "dctx_gvars", p->abi.dctx_gvars);
		e_key_int(w, "dctx_lvars", p->abi.dctx_lvars);
		e_key_uint(w, "ident_undef", p->abi.ident_undef);
	}
	e_text(w, "clauses");
	e_array(w, p->nclauses);
	for (i = 0; i < p->nclauses; i++)
		e_clause(w, &p->clauses[i], err);
	return finish(w, err);
}

/* A dof item (dtsnap(5), dof): the bytes as given, DOF says its own
 * byte order; dofitem.c reads it back. */
int
dtc_writer_add_dof(dtc_writer *w, const char *name, const void *data,
    size_t size, dtc_error *err)
{
	int rc;

	if (data == NULL)
		return misuse(w, err, "dof item without data");
	if ((rc = begin(w, "dof", 1 + (name != NULL), err)) != DTC_OK)
		return rc;
	if (name != NULL)
		e_key_text(w, "name", name);
	e_text(w, "data");
	e_bytes(w, data, size, err);
	return finish(w, err);
}

int
dtc_writer_add_interrupt(dtc_writer *w, uint32_t pass, dtc_error *err)
{
	int rc;

	if ((rc = begin(w, "interrupt", 1, err)) != DTC_OK)
		return rc;
	e_key_uint(w, "pass", pass);
	return finish(w, err);
}

int
dtc_writer_end(dtc_writer *w, int exit_status, dtc_error *err)
{
	int rc;

	if (w == NULL)
		return misuse(w, err, "no writer");
	if ((rc = begin(w, "end", 1, err)) == DTC_OK) {
		e_key_int(w, "exit_status", exit_status);
		if ((rc = finish(w, err)) == DTC_OK)
			rc = end_frame(w, err);
	}
	/*
	 * A full disk often shows only when stdio's buffer goes out, and
	 * then which item was lost is unknown.
	 */
	if (rc == DTC_OK && (fflush(w->out) != 0 || ferror(w->out))) {
		dtcp_error_set(err, DTC_E_IO, NULL, -1, -1, -1,
		    "write failed flushing the capture: %s", strerror(errno));
		rc = DTC_FATAL;
	}
	dtc_writer_free(w);
	return rc;
}

void
dtc_writer_free(dtc_writer *w)
{
	if (w == NULL)
		return;
	/* options already added belong to the capture, even a cut one */
	if (w->nopts > 0 && !w->dead && !w->in_ksyms && !w->in_aggsnap)
		(void)write_options(w, NULL);
	/* a frame left open would lose every item in it */
	if (!w->in_ksyms && !w->in_aggsnap)
		(void)end_frame(w, NULL);
	free_options(w);
	ZSTD_freeCCtx(w->zc);
	free(w->zout);
	free(w->opts);
	free(w->enc);
	free(w);
}

int
dtc_writer_flush(dtc_writer *w, dtc_error *err)
{
	if (w == NULL)
		return misuse(w, err, "no writer");
	if (w->dead)
		return die(w, err, w->fatal.code, NULL);
	if (w->in_ksyms || w->in_aggsnap)
		return misuse(w, err, "flush inside the %s item",
		    w->in_ksyms ? "ksyms" : "aggsnap");
	if (end_frame(w, err) != DTC_OK)
		return DTC_FATAL;
	if (fflush(w->out) != 0 || ferror(w->out))
		return die(w, err, DTC_E_IO, "write failed flushing the "
		    "capture: %s", strerror(errno));
	return DTC_OK;
}

/*
 * Items already encoded (a capture's own bytes: dtsnap convert, split)
 * written as they are, through the same framing.  No header item is
 * written.
 */
dtc_writer *
dtc_writer_new_raw(FILE *out, int level, dtc_error *err)
{
	dtc_error_clear(err);
	if (out == NULL) {
		misuse(NULL, err, "dtc_writer_new_raw needs an output stream");
		return NULL;
	}
	return wnew(out, level, err);
}

int
dtc_writer_put_item(dtc_writer *w, const void *p, size_t n, dtc_error *err)
{
	if (w == NULL || (p == NULL && n > 0))
		return misuse(w, err, "no writer or no item");
	if (w->dead)
		return die(w, err, w->fatal.code, NULL);
	put(w, p, n, err);
	if (w->dead)
		return DTC_FATAL;
	w->nitems++;
	if (w->zframe >= DTCP_ZSTD_FRAME_BYTES)
		return end_frame(w, err);
	return DTC_OK;
}

/* series.c: the writer of a part keeps what the next part repeats
 * (keep: NULL for nothing); a raw writer takes the flavor's items. */
void
dtcp_writer_set_keep(dtc_writer *w, struct dtcp_wkeep *keep, int v2)
{
	w->keep = keep;
	w->v2 = v2 != 0;
}

long long
dtcp_writer_nitems(const dtc_writer *w)
{
	return w->nitems;
}

/* Options set so far written now (before an item put raw after them). */
int
dtcp_writer_flush_options(dtc_writer *w, dtc_error *err)
{
	if (w->dead)
		return die(w, err, w->fatal.code, NULL);
	if (w->nopts > 0 && !w->in_ksyms && !w->in_aggsnap)
		return write_options(w, err);
	return DTC_OK;
}
