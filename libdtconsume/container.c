/*
 * container.c - the .dtsnap reader: a CBOR sequence (RFC 8742) of maps.
 *
 * libcbor's streaming decoder hands us one data item header at a time
 * (scalars and definite strings whole); we keep the open arrays and maps
 * on a fixed stack and append every header to one preorder node array
 * that is reused for every item.  Strings are never copied: their nodes
 * point into the mmap'd file, the caller's buffer, or (for a pipe) the
 * read buffer that holds the current item.
 *
 * Nothing here is sized from a number found in the input: each node costs
 * at least one input byte, so the node array grows only with real data,
 * and a pipe's buffer grows only with bytes actually read.  A header that
 * claims more than the input holds is simply a truncated item.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cbor.h>

#include "dtc_private.h"

/* The container format version this reader implements (see dtsnap(5)). */
#ifndef DTCP_FORMAT_MAJOR
#define DTCP_FORMAT_MAJOR 1
#define DTCP_FORMAT_MINOR 0
#endif

#define READ_CHUNK  ((size_t)64 * 1024)
#define KIND_MAX    32

enum cmode { MODE_MEMORY, MODE_MMAP, MODE_STREAM };

/* An open array, map, tag or (refused) indefinite-length string. */
struct frame {
	size_t node;         /* index of its node */
	uint64_t remaining;  /* definite: children still expected */
	uint64_t nchildren;  /* children seen (indefinite maps need even) */
	bool indef;
	bool istring;        /* indefinite string: only chunks may follow */
};

struct dtcp_container {
	char *source;
	enum cmode mode;
	/*
	 * The bytes being decoded.  Memory/mmap: the whole input, base_off 0.
	 * Stream: the read buffer, whose first byte is at file offset
	 * base_off; it is compacted to the current item on every call.
	 */
	const uint8_t *data;
	size_t len;
	size_t base_off;
	size_t pos;          /* next item, relative to data */

	void *map;           /* MODE_MMAP */
	size_t maplen;
	size_t last_off;     /* file offset of the last item returned */
	size_t released;     /* bytes of the map given back (page multiple) */
	int fd;              /* MODE_STREAM */
	bool ownfd, eof;
	uint8_t *buf;
	size_t cap;

	long long index;     /* index of the next item */
	int state;           /* DTC_OK, or the sticky DTC_EOF / DTC_FATAL */
	dtc_error fatal;     /* repeated on every call after DTC_FATAL */

	dtcp_node *nodes;
	size_t nnodes, ncap;

	/* decoding of the current item */
	struct frame stack[DTCP_MAX_DEPTH];
	int depth;
	bool done;
	size_t hdr;          /* offset of the header being decoded, in data */
	int derr;            /* a structural error found by a callback */
	size_t derr_off;     /* file offset it concerns */
	char dmsg[120];
	bool refused;        /* item holds an indefinite-length string */
	size_t refused_off;
	const char *refused_what;

	char kind[KIND_MAX];
};

/* ------------------------------------------------------------------ */
/* Building the node array from libcbor's callbacks                    */
/* ------------------------------------------------------------------ */

static void
derror(dtcp_container *c, int code, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Callbacks cannot stop libcbor: remember the first problem instead. */
static void
derror(dtcp_container *c, int code, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (c->derr != 0)
		return;
	c->derr = code;
	c->derr_off = off;
	va_start(ap, fmt);
	vsnprintf(c->dmsg, sizeof(c->dmsg), fmt, ap);
	va_end(ap);
}

/* Close every container whose last child has arrived. */
static void
close_done(dtcp_container *c)
{
	struct frame *top;

	while (c->depth > 0) {
		top = &c->stack[c->depth - 1];
		if (top->indef || top->remaining > 0)
			return;
		c->nodes[top->node].span = (uint32_t)(c->nnodes - top->node);
		c->depth--;
	}
	c->done = true;
}

static dtcp_node *
add_node(dtcp_container *c, int type)
{
	struct frame *top = c->depth > 0 ? &c->stack[c->depth - 1] : NULL;
	size_t off = c->base_off + c->hdr;
	dtcp_node *n;

	if (c->derr != 0)
		return NULL;
	if (top != NULL && top->istring &&
	    type != c->nodes[top->node].type) {
		derror(c, DTC_E_NOTCBOR, off, "not CBOR at byte %zu: "
		    "indefinite-length string chunk of the wrong type", off);
		return NULL;
	}
	if (c->nnodes == c->ncap) {
		size_t ncap = c->ncap ? c->ncap * 2 : 256;
		dtcp_node *nn;

		if (c->nnodes >= DTCP_MAX_NODES) {
			derror(c, DTC_E_LIMIT, off, "more than %u CBOR data "
			    "items in one item at byte %zu",
			    (unsigned)DTCP_MAX_NODES, off);
			return NULL;
		}
		if (ncap > DTCP_MAX_NODES)
			ncap = DTCP_MAX_NODES;
		if ((nn = realloc(c->nodes, ncap * sizeof(*nn))) == NULL) {
			derror(c, DTC_E_NOMEM, off, "out of memory at byte %zu",
			    off);
			return NULL;
		}
		c->nodes = nn;
		c->ncap = ncap;
	}
	n = &c->nodes[c->nnodes++];
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t)type;
	n->span = 1;
	n->offset = off;
	if (top != NULL) {
		top->nchildren++;
		if (!top->indef)
			top->remaining--;
	}
	return n;
}

static void
push(dtcp_container *c, uint64_t remaining, bool indef, bool istring)
{
	struct frame *f;

	if (c->derr != 0)
		return;
	if (c->depth == DTCP_MAX_DEPTH) {
		derror(c, DTC_E_LIMIT, c->base_off + c->hdr,
		    "nesting deeper than %d levels at byte %zu",
		    DTCP_MAX_DEPTH, c->base_off + c->hdr);
		return;
	}
	f = &c->stack[c->depth++];
	f->node = c->nnodes - 1;
	f->remaining = remaining;
	f->nchildren = 0;
	f->indef = indef;
	f->istring = istring;
	close_done(c);
}

static void
leaf_uint(void *ctx, int type, uint64_t v)
{
	dtcp_container *c = ctx;
	dtcp_node *n;

	if ((n = add_node(c, type)) == NULL)
		return;
	n->u = v;
	close_done(c);
}

static void cb_uint8(void *c, uint8_t v) { leaf_uint(c, DTCP_N_UINT, v); }
static void cb_uint16(void *c, uint16_t v) { leaf_uint(c, DTCP_N_UINT, v); }
static void cb_uint32(void *c, uint32_t v) { leaf_uint(c, DTCP_N_UINT, v); }
static void cb_uint64(void *c, uint64_t v) { leaf_uint(c, DTCP_N_UINT, v); }
static void cb_neg8(void *c, uint8_t v) { leaf_uint(c, DTCP_N_NEGINT, v); }
static void cb_neg16(void *c, uint16_t v) { leaf_uint(c, DTCP_N_NEGINT, v); }
static void cb_neg32(void *c, uint32_t v) { leaf_uint(c, DTCP_N_NEGINT, v); }
static void cb_neg64(void *c, uint64_t v) { leaf_uint(c, DTCP_N_NEGINT, v); }

/*
 * A pipe's buffer may move while an item is decoded, so string nodes
 * first hold their offset in data (in u); item_done() turns it into ptr.
 */
static void
leaf_string(void *ctx, int type, cbor_data p, size_t len)
{
	dtcp_container *c = ctx;
	dtcp_node *n;

	if ((n = add_node(c, type)) == NULL)
		return;
	n->u = (uint64_t)(p - c->data);
	n->len = len;
	close_done(c);
}

static void
cb_bytes(void *c, cbor_data p, size_t len)
{
	leaf_string(c, DTCP_N_BYTES, p, len);
}

static void
cb_text(void *c, cbor_data p, size_t len)
{
	leaf_string(c, DTCP_N_TEXT, p, len);
}

/*
 * Chunked strings would have to be copied to be used, and no dtsnap
 * writer needs them: the item is decoded to its end (so the next one is
 * found) and then refused.
 */
static void
indef_string(dtcp_container *c, int type, const char *what)
{
	if (c->depth > 0 && c->stack[c->depth - 1].istring) {
		derror(c, DTC_E_NOTCBOR, c->base_off + c->hdr, "not CBOR at "
		    "byte %zu: indefinite-length string inside another",
		    c->base_off + c->hdr);
		return;
	}
	if (add_node(c, type) == NULL)
		return;
	if (!c->refused) {
		c->refused = true;
		c->refused_off = c->base_off + c->hdr;
		c->refused_what = what;
	}
	push(c, 0, true, true);
}

static void
cb_bytes_start(void *c)
{
	indef_string(c, DTCP_N_BYTES, "byte string");
}

static void
cb_text_start(void *c)
{
	indef_string(c, DTCP_N_TEXT, "text string");
}

static const char *
type_name(int type)
{
	switch (type) {
	case DTCP_N_UINT: return "an unsigned integer";
	case DTCP_N_NEGINT: return "a negative integer";
	case DTCP_N_BYTES: return "a byte string";
	case DTCP_N_TEXT: return "text";
	case DTCP_N_ARRAY: return "an array";
	case DTCP_N_MAP: return "a map";
	case DTCP_N_BOOL: return "a boolean";
	case DTCP_N_NULL: return "null";
	case DTCP_N_UNDEF: return "undefined";
	case DTCP_N_FLOAT: return "a float";
	case DTCP_N_TAG: return "a tag";
	}
	return "unknown";
}

static void
collection(dtcp_container *c, int type, size_t size, bool indef)
{
	dtcp_node *n;
	uint64_t want = size;

	if ((n = add_node(c, type)) == NULL)
		return;
	/*
	 * A count beyond the node limit can never complete: either the
	 * input ends first (a truncation) or the node limit trips.
	 */
	n->count = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	if (type == DTCP_N_MAP && !indef)
		want = want > UINT64_MAX / 2 ? UINT64_MAX : want * 2;
	/* a count no item may hold is named at once, in every mode */
	if (!indef && want > DTCP_MAX_NODES)
		derror(c, DTC_E_LIMIT, c->base_off + c->hdr, "%s of %zu %s at "
		    "byte %zu: more than the %u data items an item may hold",
		    type_name(type), size, type == DTCP_N_MAP ? "pairs" :
		    "elements", c->base_off + c->hdr, (unsigned)DTCP_MAX_NODES);
	push(c, indef ? 0 : want, indef, false);
}

static void
cb_array(void *c, size_t n)
{
	collection(c, DTCP_N_ARRAY, n, false);
}

static void
cb_indef_array(void *c)
{
	collection(c, DTCP_N_ARRAY, 0, true);
}

static void
cb_map(void *c, size_t n)
{
	collection(c, DTCP_N_MAP, n, false);
}

static void
cb_indef_map(void *c)
{
	collection(c, DTCP_N_MAP, 0, true);
}

static void
cb_tag(void *ctx, uint64_t v)
{
	dtcp_container *c = ctx;
	dtcp_node *n;

	if ((n = add_node(c, DTCP_N_TAG)) == NULL)
		return;
	n->u = v;
	push(c, 1, false, false);
}

static void
leaf_float(dtcp_container *c, double f)
{
	dtcp_node *n;

	if ((n = add_node(c, DTCP_N_FLOAT)) == NULL)
		return;
	n->f = f;
	close_done(c);
}

static void cb_float2(void *c, float f) { leaf_float(c, f); }
static void cb_float4(void *c, float f) { leaf_float(c, f); }
static void cb_float8(void *c, double f) { leaf_float(c, f); }

static void
cb_undef(void *ctx)
{
	if (add_node(ctx, DTCP_N_UNDEF) != NULL)
		close_done(ctx);
}

static void
cb_null(void *ctx)
{
	if (add_node(ctx, DTCP_N_NULL) != NULL)
		close_done(ctx);
}

static void
cb_bool(void *ctx, bool b)
{
	leaf_uint(ctx, DTCP_N_BOOL, b ? 1 : 0);
}

static void
cb_break(void *ctx)
{
	dtcp_container *c = ctx;
	struct frame *top;
	dtcp_node *n;

	if (c->derr != 0)
		return;
	top = c->depth > 0 ? &c->stack[c->depth - 1] : NULL;
	if (top == NULL || !top->indef) {
		derror(c, DTC_E_NOTCBOR, c->base_off + c->hdr,
		    "not CBOR at byte %zu: unexpected break",
		    c->base_off + c->hdr);
		return;
	}
	n = &c->nodes[top->node];
	if (n->type == DTCP_N_MAP && !top->istring) {
		if (top->nchildren % 2 != 0) {
			derror(c, DTC_E_NOTCBOR, n->offset, "not CBOR at byte "
			    "%zu: indefinite-length map with a key but no value",
			    n->offset);
			return;
		}
		n->count = (uint32_t)(top->nchildren / 2);
	} else if (n->type == DTCP_N_ARRAY) {
		n->count = (uint32_t)top->nchildren;
	}
	n->span = (uint32_t)(c->nnodes - top->node);
	c->depth--;
	close_done(c);
}

static const struct cbor_callbacks callbacks = {
	.uint8 = cb_uint8, .uint16 = cb_uint16, .uint32 = cb_uint32,
	.uint64 = cb_uint64,
	.negint8 = cb_neg8, .negint16 = cb_neg16, .negint32 = cb_neg32,
	.negint64 = cb_neg64,
	/* libcbor's naming: *_start is the indefinite-length form */
	.byte_string = cb_bytes, .byte_string_start = cb_bytes_start,
	.string = cb_text, .string_start = cb_text_start,
	.array_start = cb_array, .indef_array_start = cb_indef_array,
	.map_start = cb_map, .indef_map_start = cb_indef_map,
	.tag = cb_tag,
	.float2 = cb_float2, .float4 = cb_float4, .float8 = cb_float8,
	.undefined = cb_undef, .null = cb_null, .boolean = cb_bool,
	.indef_break = cb_break,
};

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

static int
fail(dtcp_container *c, dtc_error *err, int code, long long item,
    long long offset, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* A fatal error: remembered, so that every later call reports it again. */
static int
fail(dtcp_container *c, dtc_error *err, int code, long long item,
    long long offset, const char *fmt, ...)
{
	va_list ap;

	dtc_error_clear(&c->fatal);
	va_start(ap, fmt);
	dtcp_error_vset(&c->fatal, code, c->source, item, offset, -1, fmt, ap);
	va_end(ap);
	c->state = DTC_FATAL;
	if (err != NULL && err->code == DTC_E_NONE)
		*err = c->fatal;
	return DTC_FATAL;
}

/*
 * Stream input: read until data holds at least need bytes or the input
 * ends.  The buffer doubles only when it is full of real bytes, so a
 * header claiming 2^60 bytes costs what the pipe actually delivers.
 */
static int
fill(dtcp_container *c, size_t need, dtc_error *err)
{
	ssize_t n;

	while (c->len < need && !c->eof) {
		if (c->len == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : READ_CHUNK;
			uint8_t *nb;

			if (c->len - c->pos > DTCP_MAX_ITEM)
				return fail(c, err, DTC_E_LIMIT, c->index,
				    (long long)(c->base_off + c->pos),
				    "item at byte %zu is larger than %zu bytes",
				    c->base_off + c->pos, DTCP_MAX_ITEM);
			if ((nb = realloc(c->buf, ncap)) == NULL)
				return fail(c, err, DTC_E_NOMEM, c->index,
				    (long long)(c->base_off + c->len),
				    "out of memory reading item at byte %zu",
				    c->base_off + c->pos);
			c->buf = nb;
			c->cap = ncap;
			c->data = nb;
		}
		n = read(c->fd, c->buf + c->len, c->cap - c->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return fail(c, err, DTC_E_IO, c->index,
			    (long long)(c->base_off + c->len),
			    "read error at byte %zu: %s", c->base_off + c->len,
			    strerror(errno));
		}
		if (n == 0)
			c->eof = true;
		c->len += (size_t)n;
	}
	return DTC_OK;
}

/* Stream input: drop the bytes of items already returned. */
static void
compact(dtcp_container *c)
{
	if (c->mode != MODE_STREAM || c->pos == 0)
		return;
	memmove(c->buf, c->buf + c->pos, c->len - c->pos);
	c->len -= c->pos;
	c->base_off += c->pos;
	c->pos = 0;
	/* one huge item should not pin its buffer for the whole run */
	if (c->cap > 16 * READ_CHUNK && c->len < c->cap / 4) {
		size_t ncap = c->len > READ_CHUNK ? c->len : READ_CHUNK;
		uint8_t *nb = realloc(c->buf, ncap);

		if (nb != NULL) {
			c->buf = nb;
			c->cap = ncap;
			c->data = nb;
		}
	}
}

static dtcp_container *
container_new(const char *name, dtc_error *err)
{
	dtcp_container *c;

	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->source = strdup(name)) == NULL) {
		free(c);
		dtcp_error_set(err, DTC_E_NOMEM, name, -1, -1, -1,
		    "out of memory");
		return NULL;
	}
	c->fd = -1;
	c->state = DTC_OK;
	dtc_error_clear(&c->fatal);
	return c;
}

/*
 * A regular file is mapped (no copy, items stay valid until close);
 * anything else, or a file mmap refuses, is read as a stream.
 */
static dtcp_container *
from_fd(int fd, const char *name, bool own, dtc_error *err)
{
	dtcp_container *c;
	struct stat st;
	off_t start;

	if ((c = container_new(name, err)) == NULL) {
		if (own)
			close(fd);
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		dtcp_error_set(err, DTC_E_IO, name, -1, -1, -1, "cannot stat: %s",
		    strerror(errno));
		if (own)
			close(fd);
		dtcp_container_close(c);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size <= SIZE_MAX) {
		void *m;

		/* honour the position of an fd the caller has read from */
		if ((start = lseek(fd, 0, SEEK_CUR)) < 0)
			start = 0;
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		    fd, 0);
		if (m != MAP_FAILED) {
			c->mode = MODE_MMAP;
			c->map = m;
			c->maplen = (size_t)st.st_size;
			(void)posix_madvise(m, c->maplen, POSIX_MADV_SEQUENTIAL);
			if (start > st.st_size)
				start = st.st_size;
			c->data = (const uint8_t *)m + start;
			c->len = c->maplen - (size_t)start;
			if (own)
				close(fd);
			return c;
		}
	}
	c->mode = MODE_STREAM;
	c->fd = fd;
	c->ownfd = own;
	return c;
}

dtcp_container *
dtcp_container_open_file(const char *path, dtc_error *err)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		dtcp_error_set(err, DTC_E_IO, path, -1, -1, -1,
		    "cannot open: %s", strerror(errno));
		return NULL;
	}
	return from_fd(fd, path, true, err);
}

dtcp_container *
dtcp_container_open_fd(int fd, const char *name, dtc_error *err)
{
	char dflt[32];

	if (name == NULL) {
		if (fd == 0)
			name = "<stdin>";
		else {
			snprintf(dflt, sizeof(dflt), "<fd %d>", fd);
			name = dflt;
		}
	}
	return from_fd(fd, name, false, err);
}

dtcp_container *
dtcp_container_open_memory(const void *buf, size_t len, const char *name,
    dtc_error *err)
{
	dtcp_container *c;

	if ((c = container_new(name != NULL ? name : "<memory>", err)) == NULL)
		return NULL;
	c->mode = MODE_MEMORY;
	c->data = buf;
	c->len = buf != NULL ? len : 0;
	return c;
}

void
dtcp_container_close(dtcp_container *c)
{
	if (c == NULL)
		return;
	if (c->map != NULL)
		munmap(c->map, c->maplen);
	if (c->ownfd && c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c->nodes);
	free(c->source);
	free(c);
}

const char *
dtcp_container_source(const dtcp_container *c)
{
	return c->source;
}

int
dtcp_container_stable(const dtcp_container *c)
{
	return c->mode != MODE_STREAM;
}

/*
 * The caller keeps nothing of the items before the last one returned.
 * A mapped file gives their pages back: otherwise every page read stays
 * resident and a 1 GiB capture costs 1 GiB of RSS.  The pointers into
 * them stay valid (a private, never written file mapping reads a page
 * again from the file if it is touched again).
 */
void
dtcp_container_release(dtcp_container *c)
{
#ifdef MADV_DONTNEED
	size_t page = (size_t)sysconf(_SC_PAGESIZE), upto;

	if (c->mode != MODE_MMAP || page == 0 || (page & (page - 1)) != 0)
		return;
	upto = (size_t)(c->data + (c->last_off - c->base_off) -
	    (const uint8_t *)c->map) & ~(page - 1);
	if (upto <= c->released || upto > c->maplen)
		return;
	(void)madvise((uint8_t *)c->map + c->released, upto - c->released,
	    MADV_DONTNEED);
	c->released = upto;
#else
	(void)c;
#endif
}

/* ------------------------------------------------------------------ */
/* Items                                                               */
/* ------------------------------------------------------------------ */


static bool
text_is(const dtcp_node *n, const char *s)
{
	size_t l = strlen(s);

	return n != NULL && n->type == DTCP_N_TEXT && n->len == l &&
	    memcmp(n->ptr, s, l) == 0;
}

/* The head of a definite byte or text string at p: 0 if it is not one
 * (or not all there), else its size, with the length in *len. */
static size_t
string_head(const uint8_t *p, size_t avail, int *major, uint64_t *len)
{
	unsigned ai;
	size_t hs, i;

	if (avail == 0)
		return 0;
	*major = p[0] >> 5;
	ai = p[0] & 31;
	if (*major != 2 && *major != 3)
		return 0;
	if (ai < 24) {
		*len = ai;
		return 1;
	}
	if (ai > 27)
		return 0;               /* indefinite or reserved */
	hs = 1 + ((size_t)1 << (ai - 24));
	if (avail < hs)
		return 0;
	for (*len = 0, i = 1; i < hs; i++)
		*len = *len << 8 | p[i];
	return hs;
}

/* A string longer than an item may be: refused before waiting for it. */
static int
huge_string(dtcp_container *c, long long index, size_t rel, dtc_error *err)
{
	uint64_t len;
	int major;

	if (string_head(c->data + rel, c->len - rel, &major, &len) == 0 ||
	    len <= DTCP_MAX_ITEM)
		return DTC_OK;
	return fail(c, err, DTC_E_LIMIT, index,
	    (long long)(c->base_off + rel), "%s of %llu bytes at byte %zu is "
	    "larger than an item may be (%zu bytes)", major == 2 ?
	    "a byte string" : "a text string", (unsigned long long)len,
	    c->base_off + rel, DTCP_MAX_ITEM);
}

/*
 * The input ended inside the item at start, at the data item at rel.
 * What was declared says how much is missing: the outermost open array
 * or map whose count cannot fit in what is left (each element takes a
 * byte), else the string the end fell into.  A cut file misses a
 * little; a corrupt count shows itself.
 */
static int
cut_short(dtcp_container *c, long long index, size_t start, size_t rel,
    dtc_error *err)
{
	size_t end = c->base_off + c->len, hs;
	uint64_t len;
	int d, major;

	for (d = 0; d < c->depth; d++) {
		const struct frame *f = &c->stack[d];
		const dtcp_node *n = &c->nodes[f->node];
		uint64_t want = n->count;

		if (f->indef || f->istring ||
		    (n->type != DTCP_N_ARRAY && n->type != DTCP_N_MAP))
			continue;
		if (n->type == DTCP_N_MAP)
			want *= 2;
		if (want > end - n->offset)
			return fail(c, err, DTC_E_TRUNCATED, index,
			    (long long)(c->base_off + start), "capture cut "
			    "short at byte %zu: %s of %u %s at byte %zu cannot "
			    "fit in the %zu bytes left", c->base_off + start,
			    type_name(n->type), n->count, n->type ==
			    DTCP_N_MAP ? "pairs" : "elements", n->offset,
			    end - n->offset);
	}
	hs = string_head(c->data + rel, c->len - rel, &major, &len);
	if (hs != 0 && len > c->len - rel - hs)
		return fail(c, err, DTC_E_TRUNCATED, index,
		    (long long)(c->base_off + start), "capture cut short at "
		    "byte %zu: %s of %llu bytes at byte %zu runs past the end "
		    "(%zu bytes left)", c->base_off + start,
		    major == 2 ? "a byte string" : "a text string",
		    (unsigned long long)len, c->base_off + rel,
		    c->len - rel - hs);
	return fail(c, err, DTC_E_TRUNCATED, index,
	    (long long)(c->base_off + start), "capture cut short at byte %zu",
	    c->base_off + start);
}

/* Decode one top-level data item starting at c->pos into c->nodes. */
static int
decode_item(dtcp_container *c, long long index, dtc_error *err)
{
	size_t start = c->pos, rel = c->pos, need;
	struct cbor_decoder_result res;

	c->nnodes = 0;
	c->depth = 0;
	c->done = false;
	c->derr = 0;
	c->refused = false;
	while (!c->done) {
		c->hdr = rel;
		res = cbor_stream_decode(c->data + rel, c->len - rel,
		    &callbacks, c);
		if (res.status == CBOR_DECODER_FINISHED) {
			if (c->derr != 0)
				return fail(c, err, c->derr, index,
				    (long long)c->derr_off, "%s", c->dmsg);
			rel += res.read;
			if (rel - start > DTCP_MAX_ITEM)
				return fail(c, err, DTC_E_LIMIT, index,
				    (long long)(c->base_off + start),
				    "item at byte %zu is larger than %zu bytes",
				    c->base_off + start, DTCP_MAX_ITEM);
			continue;
		}
		if (res.status == CBOR_DECODER_ERROR)
			return fail(c, err, DTC_E_NOTCBOR, index,
			    (long long)(c->base_off + rel),
			    "not CBOR at byte %zu", c->base_off + rel);
		/* NEDATA; libcbor's required can wrap for absurd lengths */
		if (huge_string(c, index, rel, err) != DTC_OK)
			return DTC_FATAL;
		if (c->mode == MODE_STREAM && !c->eof) {
			need = rel + res.required;
			if (res.required <= c->len - rel || need < rel)
				need = c->len + 1;
			if (fill(c, need, err) != DTC_OK)
				return DTC_FATAL;
			continue;
		}
		return cut_short(c, index, start, rel, err);
	}
	c->pos = rel;
	return DTC_OK;
}

/* A skipped item: a warning, not sticky; the next call goes on. */
static int
skip(dtcp_container *c, dtc_error *err, int code, long long index,
    size_t off, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int
skip(dtcp_container *c, dtc_error *err, int code, long long index,
    size_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, c->source, index, (long long)off, -1,
	    fmt, ap);
	va_end(ap);
	return DTC_WARN;
}

static int
check_header(dtcp_container *c, const dtcp_node *t, dtc_error *err,
    size_t off)
{
	const dtcp_node *v, *maj, *min;

	if (!text_is(t, "dtsnap"))
		return fail(c, err, DTC_E_BADHEADER, 0, (long long)off,
		    "not a dtsnap capture: its first item is of kind '%s', "
		    "not the dtsnap header", c->kind);
	v = dtcp_map_get(c->nodes, "version");
	if (v == NULL || v->type != DTCP_N_ARRAY || v->count < 2 ||
	    (maj = dtcp_array_at(v, 0))->type != DTCP_N_UINT ||
	    (min = dtcp_array_at(v, 1))->type != DTCP_N_UINT)
		return fail(c, err, DTC_E_BADHEADER, 0,
		    (long long)(v != NULL ? v->offset : off),
		    "dtsnap header has no version [major, minor]");
	if (maj->u != DTCP_FORMAT_MAJOR)
		return fail(c, err, DTC_E_VERSION, 0, (long long)v->offset,
		    "unsupported capture version %llu.%llu (this reader knows "
		    "%d.x)", (unsigned long long)maj->u,
		    (unsigned long long)min->u, DTCP_FORMAT_MAJOR);
	return DTC_OK;
}

int
dtcp_container_next(dtcp_container *c, dtcp_item *item, dtc_error *err)
{
	long long index;
	size_t off, i, k;
	const dtcp_node *t;
	int rc;

	if (c->state == DTC_FATAL) {
		if (err != NULL && err->code == DTC_E_NONE)
			*err = c->fatal;
		return DTC_FATAL;
	}
	if (c->state == DTC_EOF)
		return DTC_EOF;
	compact(c);
	index = c->index;
	off = c->base_off + c->pos;
	if (c->mode == MODE_STREAM && fill(c, c->pos + 1, err) != DTC_OK)
		return DTC_FATAL;
	if (c->pos == c->len) {
		/* a capture without even its header was cut short too */
		if (index == 0)
			return fail(c, err, DTC_E_TRUNCATED, 0, 0,
			    "capture cut short at byte 0");
		c->state = DTC_EOF;
		return DTC_EOF;
	}
	/* say "not a capture" for other files, before any truncation */
	if (index == 0 && (c->data[c->pos] & 0xe0) != 0xa0)
		return fail(c, err, DTC_E_BADHEADER, 0, (long long)off,
		    "not a dtsnap capture: it does not start with a CBOR map");
	if ((rc = decode_item(c, index, err)) != DTC_OK)
		return rc;
	c->index++;

	for (i = 0; i < c->nnodes; i++) {
		dtcp_node *n = &c->nodes[i];

		if (n->type == DTCP_N_BYTES || n->type == DTCP_N_TEXT) {
			n->ptr = c->data + n->u;
			n->u = 0;
		}
	}
	if (c->refused) {
		if (index == 0)
			return fail(c, err, DTC_E_NOTCBOR, 0,
			    (long long)c->refused_off, "indefinite-length %s "
			    "at byte %zu is not supported", c->refused_what,
			    c->refused_off);
		return skip(c, err, DTC_E_NOTCBOR, index, c->refused_off,
		    "indefinite-length %s at byte %zu is not supported; "
		    "item skipped", c->refused_what, c->refused_off);
	}
	if (c->nodes[0].type != DTCP_N_MAP) {
		if (index == 0)
			return fail(c, err, DTC_E_BADHEADER, 0, (long long)off,
			    "not a dtsnap capture: the first item is %s, "
			    "not a map", type_name(c->nodes[0].type));
		return skip(c, err, DTC_E_NOTCBOR, index, off,
		    "item at byte %zu is %s, not a map; skipped", off,
		    type_name(c->nodes[0].type));
	}
	t = dtcp_map_get(c->nodes, "t");
	if (t == NULL || t->type != DTCP_N_TEXT) {
		if (index == 0)
			return fail(c, err, DTC_E_BADHEADER, 0, (long long)off,
			    "not a dtsnap capture: the first item has no "
			    "text key 't'");
		return skip(c, err, t == NULL ? DTC_E_MISSINGKEY :
		    DTC_E_KEYTYPE, index, off, "item at byte %zu has no text "
		    "key 't'; skipped", off);
	}
	/*
	 * A kind too long for the copy, or holding a NUL, must not match a
	 * known kind by a prefix: such kinds are simply unknown.
	 */
	i = t->len < KIND_MAX - 1 ? t->len : KIND_MAX - 1;
	memcpy(c->kind, t->ptr, i);
	c->kind[i] = '\0';
	for (k = 0; k < i; k++)
		if (c->kind[k] == '\0')
			c->kind[k] = '?';
	if (index == 0) {
		if (check_header(c, t, err, off) != DTC_OK)
			return DTC_FATAL;
	} else if (text_is(t, "dtsnap")) {
		return skip(c, err, DTC_E_DUPLICATE, index, off,
		    "second dtsnap header at byte %zu; skipped", off);
	}
	item->index = index;
	item->offset = off;
	c->last_off = off;
	item->size = c->pos - (off - c->base_off);
	item->nodes = c->nodes;
	item->nnodes = c->nnodes;
	item->kind = c->kind;
	return DTC_OK;
}

/* ------------------------------------------------------------------ */
/* Lookups and typed getters                                           */
/* ------------------------------------------------------------------ */

const dtcp_node *
dtcp_map_get(const dtcp_node *map, const char *key)
{
	const dtcp_node *k;
	uint32_t i;

	if (map == NULL || map->type != DTCP_N_MAP)
		return NULL;
	/* the first of duplicate keys wins; non-text keys are skipped */
	k = dtcp_first_child(map);
	for (i = 0; i < map->count; i++) {
		const dtcp_node *v = dtcp_next_sibling(k);

		if (text_is(k, key))
			return v;
		k = dtcp_next_sibling(v);
	}
	return NULL;
}

const dtcp_node *
dtcp_array_at(const dtcp_node *arr, uint32_t i)
{
	const dtcp_node *n;

	if (arr == NULL || arr->type != DTCP_N_ARRAY || i >= arr->count)
		return NULL;
	for (n = dtcp_first_child(arr); i > 0; i--)
		n = dtcp_next_sibling(n);
	return n;
}

/*
 * Find key in map for a getter: DTC_OK with *out, DTC_EOF when missing
 * and optional, DTC_FAILED (err set) when missing and required or when
 * the value has another type.
 */
static int
lookup(const dtcp_container *c, const dtcp_item *it, const dtcp_node *map,
    const char *key, int type, bool signed_ok, int required,
    const dtcp_node **out, dtc_error *err)
{
	const dtcp_node *n;
	const char *src = c != NULL ? c->source : NULL;

	if (map == NULL || map->type != DTCP_N_MAP) {
		dtcp_error_set(err, DTC_E_KEYTYPE, src, it->index,
		    map != NULL ? (long long)map->offset : (long long)it->offset,
		    -1, "looking up key '%s' of %s item %lld in %s, not a map",
		    key, it->kind, it->index,
		    map != NULL ? type_name(map->type) : "nothing");
		return DTC_FAILED;
	}
	if ((n = dtcp_map_get(map, key)) == NULL) {
		if (!required)
			return DTC_EOF;
		dtcp_error_set(err, DTC_E_MISSINGKEY, src, it->index,
		    (long long)it->offset, -1, "%s item %lld has no key '%s'",
		    it->kind, it->index, key);
		return DTC_FAILED;
	}
	if (n->type != type && !(signed_ok && n->type == DTCP_N_NEGINT)) {
		dtcp_error_set(err, DTC_E_KEYTYPE, src, it->index,
		    (long long)n->offset, -1, "key '%s' of %s item %lld is %s, "
		    "not %s", key, it->kind, it->index, type_name(n->type),
		    signed_ok ? "an integer" : type_name(type));
		return DTC_FAILED;
	}
	*out = n;
	return DTC_OK;
}

int
dtcp_get_u64(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required, uint64_t *out,
    dtc_error *err)
{
	const dtcp_node *n;
	int rc;

	rc = lookup(c, it, map, key, DTCP_N_UINT, false, required, &n, err);
	if (rc == DTC_OK)
		*out = n->u;
	return rc;
}

int
dtcp_get_i64(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required, int64_t *out,
    dtc_error *err)
{
	const dtcp_node *n;
	int rc;

	rc = lookup(c, it, map, key, DTCP_N_UINT, true, required, &n, err);
	if (rc != DTC_OK)
		return rc;
	if (n->u > INT64_MAX) {
		dtcp_error_set(err, DTC_E_BADVALUE, c != NULL ? c->source :
		    NULL, it->index, (long long)n->offset, -1, "key '%s' of %s "
		    "item %lld is out of the range of a signed 64-bit integer",
		    key, it->kind, it->index);
		return DTC_FAILED;
	}
	*out = n->type == DTCP_N_NEGINT ? -1 - (int64_t)n->u : (int64_t)n->u;
	return DTC_OK;
}

int
dtcp_get_text(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required, const char **s,
    size_t *len, dtc_error *err)
{
	const dtcp_node *n;
	int rc;

	rc = lookup(c, it, map, key, DTCP_N_TEXT, false, required, &n, err);
	if (rc == DTC_OK) {
		*s = (const char *)n->ptr;
		*len = n->len;
	}
	return rc;
}

int
dtcp_get_bytes(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required,
    const uint8_t **p, size_t *len, dtc_error *err)
{
	const dtcp_node *n;
	int rc;

	rc = lookup(c, it, map, key, DTCP_N_BYTES, false, required, &n, err);
	if (rc == DTC_OK) {
		*p = n->ptr;
		*len = n->len;
	}
	return rc;
}

int
dtcp_get_node(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int type, int required,
    const dtcp_node **out, dtc_error *err)
{
	return lookup(c, it, map, key, type, false, required, out, err);
}
