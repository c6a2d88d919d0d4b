/*
 * container.c - the .dtsnap reader: a CBOR sequence (RFC 8742) of maps.
 *
 * libcbor's streaming decoder hands us one data item header at a time
 * (scalars and definite strings whole); we keep the open arrays and maps
 * on a fixed stack and append every header to one preorder node array
 * that is reused for every item.  Strings are never copied: their nodes
 * point into the caller's buffer (memory input) or into the read buffer
 * that holds the current item (files and pipes).
 *
 * Files are read, not mapped: a mapped file that another process
 * truncates kills the reader with SIGBUS at whatever access comes next,
 * in any file of the library or the caller's emitters, and a library
 * without globals cannot own a signal handler.  read() just returns less,
 * and that is reported ("capture truncated while reading at byte N").
 * A file is read up to the size it had when it was opened.
 *
 * One copy: the pass engine walks a pass's buffers only once every item
 * of the pass is read, and kept each in its read buffer, one per CPU,
 * filled with fresh pages (a principal buffer is 4 MiB by default).  For
 * a regular file it asks (dtcp_container_defer) that the data of a large
 * buf or recs item be left in the file: the item is decoded with the byte
 * string spliced out (leave(): the hole is in base_off, so that every
 * offset stays the input's) and its node has no bytes; the engine
 * pread()s them when it walks the buffer, into memory it reuses.  An item
 * that is not taken whole (damage, a cut) is decoded again with its bytes
 * read (unsplice()), so that damage reads exactly as it did.
 *
 * A capture that starts with a zstd frame is read through zsource.c as a
 * stream of its decompressed bytes: every offset below is then one in
 * that stream, and the frame layer's warnings give compressed offsets.
 *
 * Damage (dtsnap(5), DAMAGE AND RESYNCHRONIZATION): an item that cannot
 * be decoded is not the end of the capture.  The reader scans forward
 * from the byte after its start for what a writer writes at an item's
 * start (a map head, the key "t", the text of a known kind), takes the
 * first place that decodes as a whole item, and reports the bytes it
 * skipped.  A map inside an item that starts that way is the next item,
 * not part of this one: its head claimed more than it holds.  Values no
 * key of the format holds (tags, unassigned simple values, nesting past
 * the node tree's depth) are read past, not refused, and reported once
 * per item.  An item of a kind no capture of its version has is not the
 * format's: skipped, after a look inside it for an item it swallowed.
 *
 * Item numbers (key "seq", dtsnap(5) version 1.3) move on only with the
 * items taken: an item whose number cannot be read, or that is skipped,
 * unknown or of the other flavor, costs none, so damage never takes the
 * number of the intact item after it.  A repeat is a number an item taken
 * had; a jump ahead is checked against the next item's number (peek_seq)
 * before it is believed; a second header of another capture starts a
 * spliced capture, skipped while its items go on with its own numbers.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cbor.h>

#include "base.h"

#define READ_CHUNK  ((size_t)64 * 1024)
#define KIND_MAX    32
/* What plausible() may look at: a 9-byte map head, "t", a kind's text. */
#define LOOKAHEAD   40
/* Items up to this size are compared with the one before (copy check). */
#define DUP_MAX     ((size_t)1 << 20)
/* Decoding work a resynchronization may waste on candidates that turn
 * out not to be items, beyond the bytes it scans (a bound on adversarial
 * input, which could otherwise make every byte a long candidate). */
#define SCAN_BUDGET ((uint64_t)64 << 20)
#define NQUEUE      10
/* A read buffer this large is put on huge pages (bigbuf_alloc). */
#define HUGE_PAGE   ((size_t)2 * 1024 * 1024)
/* Gaps in the numbering remembered, to tell a late item from a repeat. */
#define NGAPS       8

enum cmode { MODE_MEMORY, MODE_FILE, MODE_STREAM };

/* What decoding the bytes at one place gave. */
enum { D_ITEM, D_BAD, D_SHORT, D_FATAL };

/* What the next calls return, in order (see queue_*). */
enum { Q_ITEM, Q_WARN, Q_FATAL };

/* An open array, map, tag or (refused) indefinite-length string. */
struct frame {
	size_t node;         /* index of its node */
	uint64_t remaining;  /* definite: children still expected */
	uint64_t nchildren;  /* children seen (indefinite maps need even) */
	bool indef;
	bool istring;        /* indefinite string: only chunks may follow */
};

/* The skip walker's view of an open container: no node, just counts. */
struct skframe {
	uint64_t remaining;  /* definite: children still expected */
	uint64_t seen;       /* indefinite: children seen */
	uint8_t indef;
	uint8_t ismap;
	uint8_t chunks;      /* indefinite string: the major type of chunks */
};

struct qev {
	int type;
	dtc_error err;
};

/* Items lo to hi - 1 were reported missing before byte off. */
struct gap {
	uint64_t lo, hi;
	size_t off;
};

struct dtcp_container {
	char *source;
	enum cmode mode;
	/*
	 * The bytes being decoded.  Memory: the whole input, base_off 0.
	 * File and stream: the read buffer, whose first byte is at input
	 * offset base_off (offsets count from where the fd stood at open).
	 */
	const uint8_t *data;
	size_t len;
	size_t base_off;
	size_t pos;          /* next item, relative to data */

	int fd;              /* MODE_FILE, MODE_STREAM */
	dtcp_zsource *z;     /* a compressed capture (MODE_STREAM) */
	bool ownfd, eof;
	size_t end_off;      /* MODE_FILE: where the capture ends (size at open) */
	off_t fd_start;      /* MODE_FILE: the fd's offset of input offset 0 */
	/*
	 * Left in the file (dtcp_container_defer): the data of a buf or recs
	 * item of at least defer_min bytes.  The item is decoded with its
	 * string spliced out of data: the hole's bytes (hole_len of them,
	 * after data[hole_rel], in node hole_node) were never read, and
	 * base_off counts them, so that every offset after the hole is the
	 * input's.  may_defer: the decode in progress may leave one.
	 */
	size_t defer_min;
	bool may_defer;
	size_t hole_rel, hole_len, hole_node;
	uint8_t *buf;
	size_t cap;

	long long index;     /* index of the next item */
	int state;           /* DTC_OK, or the sticky DTC_EOF / DTC_FATAL */
	dtc_error fatal;     /* repeated on every call after DTC_FATAL */

	/* answers waiting for the next calls: warnings and the item */
	struct qev q[NQUEUE];
	int qhead, qlen;
	dtcp_item item;

	/* the item before, for the copy check; prev_held: its bytes, when
	 * they went to the caller with the read buffer (hand_over) */
	bool have_prev;
	size_t prev_off, prev_size;
	const uint8_t *prev_held;
	/* the header: its version and flavor, and its bytes' hash (a copy
	 * of it is not another capture) */
	uint64_t minor;
	bool v2;
	uint64_t hdr_hash;
	size_t hdr_size;
	/*
	 * Item numbers (key "seq", version 1.3).  next_seq is one past the
	 * highest number of an item taken: only an item taken moves it, so
	 * an item whose number cannot be read, or that is not one of this
	 * capture's, costs the numbers nothing.
	 */
	bool have_seq;
	uint64_t next_seq;
	struct gap gaps[NGAPS];
	unsigned ngaps;
	/* a second header, not a copy of the first: the items that go on
	 * with its numbers are another capture's (a splice) */
	bool ins;
	uint64_t ins_next, ins_items;
	size_t ins_off;
	long long ins_index;
	bool quiet_skip;     /* take_item skipped one of them, said nothing */

	dtcp_node *nodes;
	size_t nnodes, ncap;

	/* decoding of the current item */
	struct frame stack[DTCP_MAX_DEPTH];
	int depth;
	bool done;
	size_t start;        /* where the item starts, in data */
	size_t end;          /* D_ITEM: just past it */
	size_t hdr;          /* offset of the header being decoded, in data */
	int derr;            /* a structural error found by a callback */
	size_t derr_off;     /* input offset it concerns */
	bool refused;        /* item holds an indefinite-length string */
	size_t refused_off;
	const char *refused_what;
	bool deep_pending;   /* a container opened past DTCP_MAX_DEPTH */
	size_t deep_node;
	/* the top-level pairs complete so far: where a cut item ends */
	size_t pair_nodes;
	uint32_t pairs;
	bool cut;            /* a map inside started like an item: cut there */
	bool cut_indef;      /* ... and the item's map had no count */
	uint32_t claimed;    /* ... else the pairs its head claimed */
	/* values no key of the format holds, reported once per item */
	unsigned nodd;
	size_t odd_off;
	char odd_what[96];
	/* why the bytes at start are not an item (D_BAD, D_SHORT) */
	int dcode;
	size_t doff;
	size_t reach;        /* how far decoding got (resync's budget) */
	char dmsg[200];

	struct skframe *sk;  /* the skip walker's stack, grown as needed */
	size_t skcap;

	char kind[KIND_MAX];
};

/*
 * The kinds of dtsnap(5) ITEMS and DTRACE V2 ITEMS: what resynchronization
 * looks for.  A kind added to the format is added here too, or damage
 * right before an item of it also loses that item.
 */
static const struct {
	const char *name;
	char flavor;         /* 'b' both, 'l' legacy, '2' dtrace-v2 */
} item_kinds[] = {
	{ "dtsnap", 'b' }, { "probe", 'b' }, { "eprobe", 'l' },
	{ "agg", 'l' }, { "format", 'b' }, { "options", 'b' },
	{ "clock", 'b' }, { "ksyms", 'b' }, { "proc", 'b' },
	{ "status", 'l' }, { "aggbuf", 'l' }, { "buf", 'l' },
	{ "interrupt", 'b' }, { "ctf", 'b' }, { "end", 'b' },
	{ "stmt", '2' }, { "aggdesc", '2' }, { "recs", '2' },
	{ "aggsnap", '2' }, { "fault", '2' }, { "drop", '2' },
	{ "program", 'b' }, { "dof", 'b' },
};
#define NKINDS (sizeof(item_kinds) / sizeof(item_kinds[0]))

/* The flavor of a known kind ('b', 'l', '2'), 0 for an unknown one. */
static char
kind_flavor(const char *kind, size_t len)
{
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (strlen(item_kinds[i].name) == len &&
		    memcmp(kind, item_kinds[i].name, len) == 0)
			return item_kinds[i].flavor;
	return 0;
}

int
dtcp_kind_foreign(const char *kind, int v2)
{
	char f = kind_flavor(kind, strlen(kind));

	return f == (v2 ? 'l' : '2');
}

static int decode_at(dtcp_container *c, size_t start, dtc_error *err);

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

static void
odd(dtcp_container *c, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A value the format never writes: read past, named in one warning. */
static void
odd(dtcp_container *c, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (c->nodd++ != 0)
		return;
	c->odd_off = off;
	va_start(ap, fmt);
	vsnprintf(c->odd_what, sizeof(c->odd_what), fmt, ap);
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

/*
 * Open a container.  Past the node tree's depth the value is not built
 * but read past whole (skip_deep, once libcbor has returned): no key of
 * the format nests that deep, and stopping there would lose the item.
 */
static void
push(dtcp_container *c, uint64_t remaining, bool indef, bool istring)
{
	struct frame *f;

	if (c->derr != 0)
		return;
	if (c->depth == DTCP_MAX_DEPTH) {
		c->deep_pending = true;
		c->deep_node = c->nnodes - 1;
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

/* A string that would make its item larger than an item may be. */
static void
string_limit(dtcp_container *c, size_t rel, int major, uint64_t len,
    size_t hs)
{
	size_t off = c->base_off + rel;
	const char *what = major == 2 ? "a byte string" : "a text string";

	/* the bytes before the head are at most DTCP_MAX_ITEM: no overflow */
	if (len <= DTCP_MAX_ITEM &&
	    (uint64_t)(rel - c->start) + hs + len <= DTCP_MAX_ITEM)
		return;
	if (len > DTCP_MAX_ITEM)
		derror(c, DTC_E_LIMIT, off, "%s of %llu bytes at byte %zu is "
		    "larger than an item may be (%zu bytes)", what,
		    (unsigned long long)len, off, DTCP_MAX_ITEM);
	else
		derror(c, DTC_E_LIMIT, off, "%s of %llu bytes at byte %zu "
		    "makes the item at byte %zu larger than an item may be "
		    "(%zu bytes)", what, (unsigned long long)len, off,
		    c->base_off + c->start, DTCP_MAX_ITEM);
}

/*
 * A pipe's buffer may move while an item is decoded, so string nodes
 * first hold their offset in data (in u); take_item() turns it into ptr.
 */
static void
leaf_string(void *ctx, int type, cbor_data p, size_t len)
{
	dtcp_container *c = ctx;
	dtcp_node *n;

	string_limit(c, c->hdr, type == DTCP_N_BYTES ? 2 : 3, len,
	    (size_t)(p - (c->data + c->hdr)));
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
	push(c, 0, true, true);
	if (!c->refused && !c->deep_pending) {
		c->refused = true;
		c->refused_off = c->base_off + c->hdr;
		c->refused_what = what;
	}
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
	case DTCP_N_SIMPLE: return "a simple value";
	case DTCP_N_SKIPPED: return "a value nested too deep";
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
	/* a count no item may hold is named at once, in every mode; one
	 * too deep for the tree is the skip walker's (it needs no nodes) */
	if (!indef && want > DTCP_MAX_NODES && c->depth < DTCP_MAX_DEPTH)
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
	odd(c, c->base_off + c->hdr, "a CBOR tag (%llu) at byte %zu",
	    (unsigned long long)v, c->base_off + c->hdr);
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

/*
 * Well-formed heads libcbor 0.8's streaming decoder refuses (it answers
 * CBOR_DECODER_ERROR): tags 6 to 20 in their one-byte form (0xc6-0xd4)
 * and the simple values other than false, true, null and undefined
 * (0xe0-0xf3; 0xf8 with a value of 32 or more).  Bytes consumed, 0 when
 * the head is not well formed either, -1 when its second byte is not
 * there yet.
 */
static int
own_head(dtcp_container *c, size_t rel)
{
	uint8_t b = c->data[rel];
	dtcp_node *n;
	unsigned v;

	if (b >= 0xc6 && b <= 0xd4) {
		cb_tag(c, b & 31);
		return 1;
	}
	if (b >= 0xe0 && b <= 0xf3)
		v = b & 31;
	else if (b == 0xf8) {
		if (c->len - rel < 2)
			return -1;
		/* simple values below 32 take the one-byte form only */
		if ((v = c->data[rel + 1]) < 32)
			return 0;
	} else
		return 0;
	if ((n = add_node(c, DTCP_N_SIMPLE)) != NULL) {
		n->u = v;
		odd(c, c->base_off + rel, "a CBOR simple value (%u) at byte %zu",
		    v, c->base_off + rel);
		close_done(c);
	}
	return b == 0xf8 ? 2 : 1;
}

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

/* The input offset just past the capture's last byte, as far as known:
 * a file's size at open, else what has been read. */
static size_t
input_end(const dtcp_container *c)
{
	return c->mode == MODE_FILE ? c->end_off : c->base_off + c->len;
}

/* True when more bytes than those in data may still come. */
static bool
can_read(const dtcp_container *c, size_t need)
{
	if (c->mode == MODE_MEMORY || c->eof)
		return false;
	/* a claim past a file's end is known short without reading to it */
	return c->mode != MODE_FILE || c->base_off + need <= c->end_off;
}

/*
 * A read buffer of n bytes.  One that holds a whole buffer item (a
 * principal buffer is 4 MiB by default) goes to the pass engine, which
 * keeps one per CPU and hands it back as the spare of the next
 * (dtcp_container_hand_over): these are the process's working set, read
 * into once a pass.  Aligned on huge pages, so that the reads that fill
 * them whole can have them (advise_huge).
 */
static uint8_t *
bigbuf_alloc(size_t n)
{
	void *p;

	if (n < HUGE_PAGE)
		return malloc(n);
	if (posix_memalign(&p, HUGE_PAGE, n) != 0)
		return NULL;
	return p;
}

/*
 * A new read buffer p for items of about n bytes (the one just read):
 * the huge pages such an item fills whole are advised as such.  On 4 KiB
 * pages the first filling of a read buffer costs a page fault and a
 * cleared page per 4 KiB (9,900 faults on a printf capture, a fifth of
 * its decode-only time: bench/RESULTS.md); on huge pages, one per 2 MiB.
 * Only pages filled whole: a huge page is resident whole once touched,
 * and advising a buffer to its end made 2 MiB resident for each small
 * item (stack captures: +9 to +16 MiB), to the next huge page a little
 * less (+2 MiB printf, +7 MiB stack at 1/8).  Only a hint: without
 * transparent huge pages it changes nothing.
 */
static void
advise_huge(uint8_t *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n >= HUGE_PAGE)
		(void)madvise(p, n & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

uint8_t *
dtcp_container_bigbuf(size_t n)
{
	uint8_t *p = bigbuf_alloc(n);

	if (p != NULL)
		advise_huge(p, n);
	return p;
}

/*
 * Give the read buffer ncap bytes, with data[from, len) at its start
 * (data offsets move by from).  -1: out of memory.
 */
static int
rebuffer(dtcp_container *c, size_t from, size_t ncap)
{
	size_t keep = c->len - from;
	uint8_t *nb;

	if (from > 0)
		memmove(c->buf, c->buf + from, keep);
	/* growing to a buffer item's size: a new, aligned one (no realloc
	 * keeps the alignment), which only the bytes kept are copied to */
	if (ncap > c->cap && ncap >= HUGE_PAGE) {
		if ((nb = bigbuf_alloc(ncap)) == NULL)
			return -1;
		memcpy(nb, c->buf, keep);
		free(c->buf);
		c->buf = nb;
		c->cap = ncap;
	/* a smaller buffer that cannot be had is no loss */
	} else if (ncap != c->cap && (nb = realloc(c->buf, ncap)) != NULL) {
		c->buf = nb;
		c->cap = ncap;
	} else if (ncap > c->cap) {
		return -1;
	}
	c->data = c->buf;
	c->len = keep;
	c->base_off += from;
	c->pos = c->pos > from ? c->pos - from : 0;
	return 0;
}

static void
queue(dtcp_container *c, int type, int code, long long item, size_t off,
    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/*
 * Read decompressed bytes into the buffer.  *n: bytes read, 0 at the end,
 * -1 after queueing a warning about damage (read again).
 */
static int
zread(dtcp_container *c, size_t want, ssize_t *n, dtc_error *err)
{
	char msg[200];
	long long zoff;
	int st;

	*n = dtcp_zsource_read(c->z, c->buf + c->len, want, &st);
	if (*n >= 0)
		return DTC_OK;
	switch (st) {
	case DTCP_ZS_DAMAGE:
		if (dtcp_zsource_damage(c->z, msg, sizeof(msg), &zoff))
			queue(c, Q_WARN, DTC_E_TRUNCATED, c->index,
			    (size_t)zoff, "%s", msg);
		return DTC_OK;
	case DTCP_ZS_NOMEM:
		return fail(c, err, DTC_E_NOMEM, c->index,
		    (long long)(c->base_off + c->len), "out of memory "
		    "decompressing at byte %zu", c->base_off + c->len);
	}
	return fail(c, err, DTC_E_IO, c->index, -1, "read error in the "
	    "compressed capture: %s", dtcp_zsource_ioerror(c->z));
}

/*
 * File and stream input: read until data holds at least need bytes or
 * the input ends.  The buffer doubles only when it is full of real bytes,
 * so a header claiming 2^60 bytes costs what the pipe actually delivers.
 * Each read asks for what is needed and READ_CHUNK more, not for the
 * whole free space: what is read ahead of the item is moved to the
 * buffer's start with it (compact()), and that should stay small.
 * A file that ends before the size it had at open was truncated by
 * someone else while we read it: everything before was returned, and
 * nothing after can be trusted.
 */
static int
fill(dtcp_container *c, size_t need, dtc_error *err)
{
	ssize_t n;
	size_t want, at;

	while (c->len < need && !c->eof) {
		if (c->len == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : READ_CHUNK;

			/* decode_at and the walkers stop an item at
			 * DTCP_MAX_ITEM; this only guards that promise */
			if (ncap > 4 * DTCP_MAX_ITEM)
				return fail(c, err, DTC_E_LIMIT, c->index,
				    (long long)(c->base_off + c->pos),
				    "item at byte %zu is larger than %zu bytes",
				    c->base_off + c->pos, DTCP_MAX_ITEM);
			if (rebuffer(c, 0, ncap) != 0)
				return fail(c, err, DTC_E_NOMEM, c->index,
				    (long long)(c->base_off + c->len),
				    "out of memory reading item at byte %zu",
				    c->base_off + c->pos);
		}
		want = c->cap - c->len;
		if (want > need - c->len + READ_CHUNK)
			want = need - c->len + READ_CHUNK;
		at = c->base_off + c->len;
		if (c->mode == MODE_FILE) {
			/* what was added after open is not read: the
			 * capture is what the file held then */
			if (at >= c->end_off) {
				c->eof = true;
				break;
			}
			if (want > c->end_off - at)
				want = c->end_off - at;
		}
		if (c->z != NULL) {
			if (zread(c, want, &n, err) != DTC_OK)
				return DTC_FATAL;
			if (n < 0)
				continue;
		} else if ((n = read(c->fd, c->buf + c->len, want)) < 0) {
			if (errno == EINTR)
				continue;
			return fail(c, err, DTC_E_IO, c->index, (long long)at,
			    "read error at byte %zu: %s", at, strerror(errno));
		}
		if (n == 0) {
			c->eof = true;
			if (c->mode == MODE_FILE)
				return fail(c, err, DTC_E_TRUNCATED, c->index,
				    (long long)at, "capture truncated while "
				    "reading at byte %zu", at);
			break;
		}
		c->len += (size_t)n;
	}
	return DTC_OK;
}

/* File and stream input: drop the bytes before rel (data offsets move). */
static void
discard(dtcp_container *c, size_t rel)
{
	size_t ncap = c->cap;

	if (c->mode == MODE_MEMORY || rel == 0)
		return;
	/* one huge item should not pin its buffer for the whole run, but
	 * items that size, one after another, must not make it shrink and
	 * grow (fresh pages) for each */
	if (c->cap > 16 * READ_CHUNK && c->len - rel < c->cap / 4 &&
	    c->prev_size < c->cap / 16)
		ncap = c->len - rel > READ_CHUNK ? c->len - rel : READ_CHUNK;
	(void)rebuffer(c, rel, ncap);     /* ncap never grows here */
}

/*
 * Before the next item: give back the bytes no one needs (the items
 * returned, but the one before the next if it is small enough for the
 * copy check), once they are half the buffer, so that what is moved is
 * never more than what is freed.
 */
static void
compact(dtcp_container *c)
{
	size_t keep = c->pos;

	if (c->mode == MODE_MEMORY)
		return;
	if (c->have_prev && c->prev_size <= DUP_MAX &&
	    c->prev_off >= c->base_off && c->prev_off - c->base_off < keep)
		keep = c->prev_off - c->base_off;
	if (keep > 0 && keep >= c->cap / 2)
		discard(c, keep);
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
 * Compressed or not: the first bytes say (a pipe cannot be read twice,
 * so they stay in the buffer, or go to the frame layer).  A compressed
 * capture is a stream of unknown length, whatever holds it.
 */
static int
sniff(dtcp_container *c, dtc_error *err)
{
	size_t want = 4;
	ssize_t n;

	if ((c->buf = malloc(READ_CHUNK)) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, c->source, -1, -1, -1,
		    "out of memory");
		return -1;
	}
	c->cap = READ_CHUNK;
	c->data = c->buf;
	if (c->mode == MODE_FILE && c->end_off < want)
		want = c->end_off;
	while (c->len < want) {
		n = read(c->fd, c->buf + c->len, want - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			dtcp_error_set(err, DTC_E_IO, c->source, -1,
			    (long long)c->len, -1, "read error at byte %zu: %s",
			    c->len, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		c->len += (size_t)n;
	}
	if (!dtcp_zsource_is_frame(c->buf, c->len))
		return 0;
	if ((c->z = dtcp_zsource_new(c->fd, NULL, 0, c->buf, c->len)) ==
	    NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, c->source, -1, -1, -1,
		    "out of memory");
		return -1;
	}
	c->mode = MODE_STREAM;
	c->len = 0;
	return 0;
}

/*
 * A regular file is read up to the size it has now (MODE_FILE), anything
 * else to its end (MODE_STREAM).  Neither is mapped: see the top of file.
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
	c->fd = fd;
	c->ownfd = own;
	if (fstat(fd, &st) != 0) {
		dtcp_error_set(err, DTC_E_IO, name, -1, -1, -1, "cannot stat: %s",
		    strerror(errno));
		dtcp_container_close(c);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		dtcp_error_set(err, DTC_E_IO, name, -1, -1, -1,
		    "is a directory");
		dtcp_container_close(c);
		return NULL;
	}
	c->mode = MODE_STREAM;
	/* a size of 0 may be a file that only says so (/proc): a stream */
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		c->mode = MODE_FILE;
		/* honour the position of an fd the caller has read from */
		if ((start = lseek(fd, 0, SEEK_CUR)) < 0)
			start = 0;
		c->fd_start = start;
		c->end_off = start < st.st_size ? (size_t)(st.st_size - start) :
		    0;
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	if (sniff(c, err) != 0) {
		dtcp_container_close(c);
		return NULL;
	}
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
	if (dtcp_zsource_is_frame(c->data, c->len)) {
		/* decompressed as a stream: the buffer is not the data */
		if ((c->z = dtcp_zsource_new(-1, buf, len, NULL, 0)) == NULL) {
			dtcp_error_set(err, DTC_E_NOMEM, c->source, -1, -1, -1,
			    "out of memory");
			dtcp_container_close(c);
			return NULL;
		}
		c->mode = MODE_STREAM;
		c->data = NULL;
		c->len = 0;
	}
	return c;
}

void
dtcp_container_close(dtcp_container *c)
{
	if (c == NULL)
		return;
	if (c->ownfd && c->fd >= 0)
		close(c->fd);
	dtcp_zsource_free(c->z);
	free(c->buf);
	free(c->nodes);
	free(c->sk);
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
	return c->mode == MODE_MEMORY;
}

/*
 * The read buffer, which holds the item just returned, goes to the caller
 * (who frees it): a buffer item's bytes are then decoded where read()
 * put them, not copied out first.  The container goes on in spare (its
 * own now, freed if too small) or a new buffer of the same size (sizes
 * settle, so no item is read into a buffer that must grow), holding only
 * the bytes read past the item.  Memory input: NULL, spare freed (the
 * bytes are the caller's already).  NULL too when no buffer can be had:
 * the caller copies as before.  The item just returned is the one the
 * next is compared with (the copy check): the caller keeps the buffer
 * until dtcp_container_next returns again.
 */
uint8_t *
dtcp_container_hand_over(dtcp_container *c, uint8_t *spare, size_t spare_cap,
    size_t *cap)
{
	size_t keep = c->len - c->pos, ncap = c->cap;
	uint8_t *old = c->buf;

	if (c->mode == MODE_MEMORY || old == NULL || c->pos > c->len) {
		free(spare);
		return NULL;
	}
	if (spare != NULL && spare_cap >= keep && spare_cap >= c->cap)
		ncap = spare_cap;
	else {
		free(spare);
		if ((spare = bigbuf_alloc(ncap)) == NULL)
			return NULL;
		/* the next items are read into it, as this one was */
		advise_huge(spare, c->pos);
	}
	if (keep > 0)
		memcpy(spare, c->data + c->pos, keep);
	if (c->have_prev && c->prev_off >= c->base_off)
		c->prev_held = c->data + (c->prev_off - c->base_off);
	*cap = c->cap;
	c->buf = spare;
	c->cap = ncap;
	c->data = spare;
	c->base_off += c->pos;
	c->len = keep;
	c->pos = 0;
	return old;
}

void
dtcp_container_defer(dtcp_container *c, size_t min)
{
	c->defer_min = c->mode == MODE_FILE && c->z == NULL ? min : 0;
}

int
dtcp_container_pread(const dtcp_container *c, long long item, size_t off,
    uint8_t *dst, size_t len, dtc_error *err)
{
	size_t got = 0, at;
	ssize_t n;

	while (got < len) {
		at = off + got;
		n = pread(c->fd, dst + got, len - got, c->fd_start + (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			dtcp_error_set(err, DTC_E_IO, c->source, item,
			    (long long)at, -1, "read error at byte %zu: %s", at,
			    strerror(errno));
			return DTC_FAILED;
		}
		if (n == 0) {
			dtcp_error_set(err, DTC_E_TRUNCATED, c->source, item,
			    (long long)at, -1, "capture truncated while "
			    "reading at byte %zu", at);
			return DTC_FAILED;
		}
		got += (size_t)n;
	}
	return DTC_OK;
}

/*
 * Nothing to give back: files and pipes are read into a buffer that holds
 * the current item and is compacted before the next (compact()), and
 * memory input is the caller's.  (A mapped file's pages went back here.)
 */
void
dtcp_container_release(dtcp_container *c)
{
	(void)c;
}

/* ------------------------------------------------------------------ */
/* Decoding one item                                                   */
/* ------------------------------------------------------------------ */

static bool
text_is(const dtcp_node *n, const char *s)
{
	size_t l = strlen(s);

	return n != NULL && n->type == DTCP_N_TEXT && n->len == l &&
	    memcmp(n->ptr, s, l) == 0;
}

/*
 * What a writer writes where an item starts: a map head, the text "t"
 * (writers put it first), then the text of a known kind.  Needs the
 * bytes to be there (lookahead()).
 */
static size_t
plausible_len(const uint8_t *p, size_t avail)
{
	size_t hs, klen;
	unsigned ai;

	if (avail < 4 || (p[0] & 0xe0) != 0xa0)
		return 0;
	ai = p[0] & 31;
	if (ai == 0 || (ai > 27 && ai != 31))
		return 0;
	hs = ai < 24 || ai == 31 ? 1 : 1 + ((size_t)1 << (ai - 24));
	if (avail < hs + 3 || p[hs] != 0x61 || p[hs + 1] != 0x74 ||
	    (p[hs + 2] & 0xe0) != 0x60)
		return 0;
	klen = p[hs + 2] & 31;
	if (klen == 0 || klen >= 24 || avail < hs + 3 + klen ||
	    kind_flavor((const char *)p + hs + 3, klen) == 0)
		return 0;
	return hs + 3 + klen;
}

static bool
plausible(const uint8_t *p, size_t avail)
{
	return plausible_len(p, avail) != 0;
}

/*
 * The number of the item at p where a writer writes it, right after the
 * kind (dtsnap(5)): false when the bytes there are not that (or not all
 * there yet).  A look at the next item, not a decode of it.
 */
static bool
peek_seq(const uint8_t *p, size_t avail, uint64_t *seq)
{
	size_t at = plausible_len(p, avail), n, i;
	unsigned ai;

	if (at == 0 || avail < at + 5 || memcmp(p + at, "\x63seq", 4) != 0 ||
	    (p[at + 4] & 0xe0) != 0)
		return false;
	at += 4;
	ai = p[at] & 31;
	if (ai < 24) {
		*seq = ai;
		return true;
	}
	if (ai > 27)
		return false;
	n = (size_t)1 << (ai - 24);
	if (avail < at + 1 + n)
		return false;
	for (*seq = 0, i = 1; i <= n; i++)
		*seq = *seq << 8 | p[at + i];
	return true;
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

static int
bad(dtcp_container *c, int code, size_t off, size_t reach, const char *fmt,
    ...) __attribute__((format(printf, 5, 6)));

/* The bytes at c->start are not an item: why, where, how far we got. */
static int
bad(dtcp_container *c, int code, size_t off, size_t reach, const char *fmt,
    ...)
{
	va_list ap;

	c->dcode = code;
	c->doff = off;
	c->reach = reach;
	va_start(ap, fmt);
	vsnprintf(c->dmsg, sizeof(c->dmsg), fmt, ap);
	va_end(ap);
	return D_BAD;
}

/* A problem a callback (or string_limit) found, as decode_at's reason. */
static int
bad_derr(dtcp_container *c, size_t reach)
{
	c->dcode = c->derr;
	c->doff = c->derr_off;
	c->reach = reach;
	return D_BAD;     /* the text is in dmsg already */
}

/*
 * The input ends inside the item at c->start, at the data item at rel.
 * What was declared says how much is missing: the outermost open array
 * or map whose count cannot fit in what is left (each element takes a
 * byte), else the string the end fell into.  A cut file misses a
 * little; a corrupt count shows itself.  The detail (maybe none) goes
 * to dmsg.
 */
static int
short_at(dtcp_container *c, size_t rel)
{
	size_t end = input_end(c), at = c->base_off + rel, hs;
	uint64_t len;
	int d, major;

	c->dcode = DTC_E_TRUNCATED;
	c->doff = c->base_off + c->start;
	c->reach = at;       /* a claim past the end is seen at its head */
	c->dmsg[0] = '\0';
	for (d = 0; d < c->depth; d++) {
		const struct frame *f = &c->stack[d];
		const dtcp_node *n = &c->nodes[f->node];
		uint64_t want = n->count;

		if (f->indef || f->istring ||
		    (n->type != DTCP_N_ARRAY && n->type != DTCP_N_MAP))
			continue;
		if (n->type == DTCP_N_MAP)
			want *= 2;
		if (want > end - n->offset) {
			snprintf(c->dmsg, sizeof(c->dmsg), "%s of %u %s at byte "
			    "%zu cannot fit in the %zu bytes left",
			    type_name(n->type), n->count, n->type == DTCP_N_MAP ?
			    "pairs" : "elements", n->offset, end - n->offset);
			return D_SHORT;
		}
	}
	hs = rel < c->len ? string_head(c->data + rel, c->len - rel, &major,
	    &len) : 0;
	if (hs != 0 && len > end - at - hs)
		snprintf(c->dmsg, sizeof(c->dmsg), "%s of %llu bytes at byte %zu "
		    "runs past the end (%zu bytes left)", major == 2 ?
		    "a byte string" : "a text string", (unsigned long long)len,
		    at, end - at - hs);
	return D_SHORT;
}

/* True while bytes past those in data may still be read. */
static bool
more_input(const dtcp_container *c)
{
	return c->mode != MODE_MEMORY && !c->eof &&
	    (c->mode != MODE_FILE || c->base_off + c->len < c->end_off);
}

/* Bytes up to need (in data) are wanted for the head at rel: D_ITEM when
 * they are there, read if need be; D_SHORT when the input ends first. */
static int
want_bytes(dtcp_container *c, size_t rel, size_t need, dtc_error *err)
{
	if (need <= c->len)
		return D_ITEM;
	if (!can_read(c, need))
		return short_at(c, rel);
	if (fill(c, need, err) != DTC_OK)
		return D_FATAL;
	return need <= c->len ? D_ITEM : short_at(c, rel);
}

/* File and stream input: make LOOKAHEAD bytes from rel available, or
 * what there is up to the end. */
static int
lookahead(dtcp_container *c, size_t rel, dtc_error *err)
{
	size_t need = rel + LOOKAHEAD;

	if (c->mode == MODE_MEMORY || c->eof || c->len >= need)
		return DTC_OK;
	if (c->mode == MODE_FILE && c->base_off + need > c->end_off)
		need = c->end_off - c->base_off;
	return fill(c, need, err);
}

/* One more level for the skip walker: its stack grows with the nesting
 * the input really has (each level costs a byte), up to the limit. */
static int
sk_push(dtcp_container *c, size_t d, size_t at, dtc_error *err)
{
	const size_t max = DTCP_MAX_SKIP_DEPTH - DTCP_MAX_DEPTH;
	struct skframe *ns;
	size_t ncap;

	if (d < c->skcap)
		return D_ITEM;
	if (d >= max)
		return bad(c, DTC_E_LIMIT, at, at, "nesting deeper than %d "
		    "levels at byte %zu", DTCP_MAX_SKIP_DEPTH, at);
	ncap = c->skcap ? c->skcap * 2 : 64;
	if (ncap > max)
		ncap = max;
	if ((ns = realloc(c->sk, ncap * sizeof(*ns))) == NULL) {
		fail(c, err, DTC_E_NOMEM, c->index, (long long)at,
		    "out of memory at byte %zu", at);
		return D_FATAL;
	}
	c->sk = ns;
	c->skcap = ncap;
	return D_ITEM;
}

/*
 * Read past one well-formed CBOR value at rel without building nodes
 * (RFC 8949 appendix C, iteratively): a value nested deeper than the
 * node tree.  *end: just past it.
 */
static int
skip_walk(dtcp_container *c, size_t rel, size_t *end, dtc_error *err)
{
	size_t d = 0, hs, i, at;
	uint64_t arg;
	unsigned major, ai;
	bool complete;
	uint8_t b;
	int r;

	for (;;) {
		at = c->base_off + rel;
		if (rel - c->start > DTCP_MAX_ITEM)
			return bad(c, DTC_E_LIMIT, c->base_off + c->start, at,
			    "item at byte %zu is larger than %zu bytes",
			    c->base_off + c->start, DTCP_MAX_ITEM);
		if ((r = want_bytes(c, rel, rel + 1, err)) != D_ITEM)
			return r;
		b = c->data[rel];
		major = b >> 5;
		ai = b & 31;
		if ((ai >= 28 && ai <= 30) ||
		    (ai == 31 && (major == 0 || major == 1 || major == 6)))
			return bad(c, DTC_E_NOTCBOR, at, at, "not CBOR at byte "
			    "%zu", at);
		hs = ai < 24 || ai == 31 ? 1 : 1 + ((size_t)1 << (ai - 24));
		if ((r = want_bytes(c, rel, rel + hs, err)) != D_ITEM)
			return r;
		arg = ai < 24 ? ai : 0;
		for (i = 1; i < hs; i++)
			arg = arg << 8 | c->data[rel + i];
		if (d > 0 && c->sk[d - 1].chunks != 0 && b != 0xff &&
		    (major != c->sk[d - 1].chunks || ai == 31))
			return bad(c, DTC_E_NOTCBOR, at, at, "not CBOR at byte "
			    "%zu: indefinite-length string chunk of the wrong "
			    "type", at);
		complete = false;
		switch (major) {
		case 0:
		case 1:
			rel += hs;
			complete = true;
			break;
		case 2:
		case 3:
			if (ai == 31) {
				if ((r = sk_push(c, d, at, err)) != D_ITEM)
					return r;
				c->sk[d++] = (struct skframe){ 0, 0, 1, 0,
				    (uint8_t)major };
				rel += hs;
				break;
			}
			string_limit(c, rel, (int)major, arg, hs);
			if (c->derr != 0)
				return bad_derr(c, at);
			if ((r = want_bytes(c, rel, rel + hs + arg, err)) !=
			    D_ITEM)
				return r;
			rel += hs + arg;
			complete = true;
			break;
		case 4:
		case 5:
		case 6:
			rel += hs;
			if (major == 6)
				arg = 1;         /* a tag: one value follows */
			else if (major == 5 && ai != 31)
				arg = arg > UINT64_MAX / 2 ? UINT64_MAX : 2 * arg;
			if (ai != 31 && arg == 0) {
				complete = true;
				break;
			}
			if ((r = sk_push(c, d, at, err)) != D_ITEM)
				return r;
			c->sk[d++] = (struct skframe){ arg, 0, ai == 31,
			    major == 5, 0 };
			break;
		default:
			if (ai == 31) {
				if (d == 0 || !c->sk[d - 1].indef)
					return bad(c, DTC_E_NOTCBOR, at, at, "not "
					    "CBOR at byte %zu: unexpected break",
					    at);
				if (c->sk[d - 1].ismap && c->sk[d - 1].seen % 2)
					return bad(c, DTC_E_NOTCBOR, at, at, "not "
					    "CBOR at byte %zu: indefinite-length map "
					    "with a key but no value", at);
				d--;
			} else if (ai == 24 && arg < 32) {
				return bad(c, DTC_E_NOTCBOR, at, at, "not CBOR "
				    "at byte %zu", at);
			}
			rel += hs;
			complete = true;
			break;
		}
		/* a value complete: it counts for the container around it */
		while (complete) {
			if (d == 0) {
				*end = rel;
				return D_ITEM;
			}
			if (c->sk[d - 1].indef) {
				c->sk[d - 1].seen++;
				break;
			}
			if (--c->sk[d - 1].remaining > 0)
				break;
			d--;
		}
	}
}

/* The container whose head libcbor just gave us lies deeper than the
 * node tree: its node becomes DTCP_N_SKIPPED, and the bytes are read past. */
static int
skip_deep(dtcp_container *c, size_t *rel, dtc_error *err)
{
	size_t head = c->hdr, end = head;
	dtcp_node *n;
	int r;

	c->deep_pending = false;
	if ((r = skip_walk(c, head, &end, err)) != D_ITEM)
		return r;
	n = &c->nodes[c->deep_node];
	n->type = DTCP_N_SKIPPED;
	n->count = 0;
	n->span = 1;
	n->u = 0;
	n->len = end - head;
	odd(c, c->base_off + head, "a value nested deeper than %d levels "
	    "(bytes %zu-%zu)", DTCP_MAX_DEPTH, c->base_off + head,
	    c->base_off + end - 1);
	*rel = end;
	close_done(c);
	return D_ITEM;
}

/*
 * A map inside the item starts the way an item does: it is the next
 * item, which this one's head (or a count inside it) claimed.  The item
 * keeps its pairs complete before it; the next one starts at rel.
 */
static void
cut_here(dtcp_container *c, size_t rel)
{
	dtcp_node *m = &c->nodes[0];

	c->cut = true;
	c->cut_indef = c->stack[0].indef;
	c->claimed = m->count;
	c->nnodes = c->pair_nodes;
	m->count = c->pairs;
	m->span = (uint32_t)c->pair_nodes;
	c->depth = 0;
	c->done = true;
	c->end = rel;
}

/*
 * May the byte string whose head (hs bytes) is at rel be left in the file?
 * Only a buf or recs item's ("t" first, as writers write it), a direct
 * value of its map, one per item, whose bytes the file held at open.
 * Larger than DUP_MAX: the copy check never compares such an item.
 */
static bool
may_leave(const dtcp_container *c, size_t rel, size_t hs, uint64_t len)
{
	const dtcp_node *n = c->nodes, *key;

	if (!c->may_defer || c->defer_min == 0 || len < c->defer_min ||
	    len <= DUP_MAX || c->hole_len != 0 || c->depth != 1 ||
	    c->stack[0].indef || c->stack[0].nchildren % 2 == 0 ||
	    c->nnodes < 4)
		return false;
	key = &n[c->nnodes - 1];
	if (key->type != DTCP_N_TEXT || key->len != 4 ||
	    memcmp(c->data + key->u, "data", 4) != 0 ||
	    n[1].type != DTCP_N_TEXT || n[1].len != 1 ||
	    c->data[n[1].u] != 't' || n[2].type != DTCP_N_TEXT ||
	    c->base_off + rel + hs > c->end_off ||
	    len > c->end_off - (c->base_off + rel + hs))
		return false;
	return (n[2].len == 3 && memcmp(c->data + n[2].u, "buf", 3) == 0) ||
	    (n[2].len == 4 && memcmp(c->data + n[2].u, "recs", 4) == 0);
}

/* The fd at the input offset of data[c->len] (D_ITEM), or D_FATAL. */
static int
seek_on(dtcp_container *c, dtc_error *err)
{
	size_t at = c->base_off + c->len;

	if (lseek(c->fd, c->fd_start + (off_t)at, SEEK_SET) < 0) {
		fail(c, err, DTC_E_IO, c->index, (long long)at, "read error "
		    "at byte %zu: %s", at, strerror(errno));
		return D_FATAL;
	}
	return D_ITEM;
}

/*
 * Leave the byte string at *rel in the file: its node has no bytes, the
 * ones read ahead of it are dropped, and reading goes on after it.
 */
static int
leave(dtcp_container *c, size_t *rel, size_t hs, uint64_t len,
    dtc_error *err)
{
	dtcp_node *n;

	c->hdr = *rel;
	if ((n = add_node(c, DTCP_N_BYTES)) == NULL) {
		if (c->derr == DTC_E_NOMEM) {
			fail(c, err, DTC_E_NOMEM, c->index,
			    (long long)c->derr_off, "%s", c->dmsg);
			return D_FATAL;
		}
		return bad_derr(c, c->base_off + *rel);
	}
	n->u = *rel + hs;
	n->len = (size_t)len;
	c->hole_node = (size_t)(n - c->nodes);
	c->hole_rel = *rel + hs;
	c->hole_len = (size_t)len;
	close_done(c);
	*rel += hs;
	c->len = *rel;
	c->base_off += c->hole_len;
	if (c->depth == 1 && c->stack[0].nchildren % 2 == 0) {
		c->pair_nodes = c->nnodes;
		c->pairs = (uint32_t)(c->stack[0].nchildren / 2);
	}
	return seek_on(c, err);
}

/*
 * The string left in the file is wanted after all (the item is damaged
 * or was not taken whole): data goes back to the input as it is, up to
 * the hole, and the next fill reads the string.  D_ITEM or D_FATAL.
 */
static int
unsplice(dtcp_container *c, dtc_error *err)
{
	if (c->hole_len == 0)
		return D_ITEM;
	c->len = c->hole_rel;
	c->base_off -= c->hole_len;
	c->hole_len = 0;
	c->eof = false;
	return seek_on(c, err);
}

/* decode_at for the next item: its buffer's bytes may be left in the
 * file; decoded again with them when it is not an item. */
static int
decode_next(dtcp_container *c, size_t start, dtc_error *err)
{
	int r;

	c->may_defer = true;
	r = decode_at(c, start, err);
	c->may_defer = false;
	if (r == D_ITEM || c->hole_len == 0)
		return r;
	if (unsplice(c, err) != D_ITEM)
		return D_FATAL;
	return decode_at(c, start, err);
}

/*
 * Decode the data item at start (a map head) into c->nodes.  D_ITEM with
 * c->end just past it (or, c->cut, where the next item was found in
 * it); D_BAD or D_SHORT with the reason in dcode, doff and dmsg;
 * D_FATAL (an I/O or memory error: c->fatal).
 */
static int
decode_at(dtcp_container *c, size_t start, dtc_error *err)
{
	size_t rel = start, need, hs;
	struct cbor_decoder_result res;
	uint64_t slen;
	int n, r, major;

	c->nnodes = 0;
	c->depth = 0;
	c->done = false;
	c->derr = 0;
	c->refused = false;
	c->deep_pending = false;
	c->cut = false;
	c->nodd = 0;
	c->pair_nodes = 0;
	c->pairs = 0;
	c->start = start;
	c->hole_len = 0;
	while (!c->done) {
		if (rel - start > DTCP_MAX_ITEM - c->hole_len)
			return bad(c, DTC_E_LIMIT, c->base_off + start,
			    c->base_off + rel, "item at byte %zu is larger than "
			    "%zu bytes", c->base_off + start, DTCP_MAX_ITEM);
		if ((r = want_bytes(c, rel, rel + 1, err)) != D_ITEM)
			return r;
		if (c->depth > 0 && (c->data[rel] & 0xe0) == 0xa0) {
			if (lookahead(c, rel, err) != DTC_OK)
				return D_FATAL;
			if (plausible(c->data + rel, c->len - rel)) {
				cut_here(c, rel);
				return D_ITEM;
			}
		}
		c->hdr = rel;
		res = cbor_stream_decode(c->data + rel, c->len - rel,
		    &callbacks, c);
		if (res.status == CBOR_DECODER_ERROR) {
			if ((n = own_head(c, rel)) > 0) {
				res.status = CBOR_DECODER_FINISHED;
				res.read = (size_t)n;
			} else if (n < 0) {
				res.status = CBOR_DECODER_NEDATA;
				res.required = 2;
			}
		}
		if (res.status == CBOR_DECODER_FINISHED) {
			if (c->derr == DTC_E_NOMEM) {
				fail(c, err, DTC_E_NOMEM, c->index,
				    (long long)c->derr_off, "%s", c->dmsg);
				return D_FATAL;
			}
			if (c->derr != 0)
				return bad_derr(c, c->base_off + rel);
			rel += res.read;
			if (c->deep_pending &&
			    (r = skip_deep(c, &rel, err)) != D_ITEM)
				return r;
			/* where the item would end if cut here */
			if (c->depth == 1 && c->stack[0].nchildren % 2 == 0) {
				c->pair_nodes = c->nnodes;
				c->pairs = (uint32_t)(c->stack[0].nchildren / 2);
			}
			continue;
		}
		if (res.status == CBOR_DECODER_ERROR)
			return bad(c, DTC_E_NOTCBOR, c->base_off + rel,
			    c->base_off + rel, "not CBOR at byte %zu",
			    c->base_off + rel);
		/* NEDATA: a string no item may hold is refused before it is
		 * waited for (libcbor's required wraps for absurd lengths) */
		hs = string_head(c->data + rel, c->len - rel, &major, &slen);
		if (hs != 0) {
			string_limit(c, rel, major, slen, hs);
			if (c->derr != 0)
				return bad_derr(c, c->base_off + rel);
			if (major == 2 && may_leave(c, rel, hs, slen)) {
				if ((r = leave(c, &rel, hs, slen, err)) !=
				    D_ITEM)
					return r;
				continue;
			}
		}
		need = rel + res.required;
		if (res.required <= c->len - rel || need < rel)
			need = c->len + 1;
		if ((r = want_bytes(c, rel, need, err)) != D_ITEM)
			return r;
	}
	c->end = rel;
	return D_ITEM;
}

/* ------------------------------------------------------------------ */
/* Items and what the caller is told                                   */
/* ------------------------------------------------------------------ */

static void
queue(dtcp_container *c, int type, int code, long long item, size_t off,
    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* One more answer for the next calls (at most NQUEUE wait at once: an
 * item with its six possible warnings, or a warning and a fatal). */
static void
queue(dtcp_container *c, int type, int code, long long item, size_t off,
    const char *fmt, ...)
{
	struct qev *e;
	va_list ap;

	if (c->qhead + c->qlen >= NQUEUE)
		return;
	e = &c->q[c->qhead + c->qlen++];
	e->type = type;
	dtc_error_clear(&e->err);
	if (fmt == NULL)
		return;
	va_start(ap, fmt);
	dtcp_error_vset(&e->err, code, c->source, item, (long long)off, -1,
	    fmt, ap);
	va_end(ap);
}

static int
pop(dtcp_container *c, dtcp_item *item, dtc_error *err)
{
	struct qev *e = &c->q[c->qhead++];

	if (--c->qlen == 0)
		c->qhead = 0;
	switch (e->type) {
	case Q_ITEM:
		*item = c->item;
		return DTC_OK;
	case Q_WARN:
		if (err != NULL && err->code == DTC_E_NONE)
			*err = e->err;
		return DTC_WARN;
	}
	c->fatal = e->err;
	c->state = DTC_FATAL;
	if (err != NULL && err->code == DTC_E_NONE)
		*err = c->fatal;
	return DTC_FATAL;
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
	c->minor = min->u;
	c->v2 = text_is(dtcp_map_get(c->nodes, "flavor"), "dtrace-v2");
	return DTC_OK;
}

/* FNV-1a: tells a copy of the header from another capture's header. */
static uint64_t
hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	while (n-- > 0)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

/* Kinds a correct capture never has twice in a row, byte for byte (one
 * per pass, or per CPU and pass, or once): an identical neighbour is a
 * duplicated item.  recs and fault items may repeat (runs of the same
 * records, the same fault again), and metadata may be repeated. */
static bool
never_repeated(const char *kind)
{
	static const char *const kinds[] = {
		"buf", "aggbuf", "status", "aggsnap", "interrupt", "end"
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kind, kinds[i]) == 0)
			return true;
	return false;
}

static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* The items of a capture inserted into this one end before byte off. */
static void
end_inserted(dtcp_container *c, size_t off)
{
	if (!c->ins)
		return;
	c->ins = false;
	queue(c, Q_WARN, DTC_E_DUPLICATE, c->ins_index, c->ins_off, "%llu "
	    "item%s of the capture inserted at byte %zu skipped, up to byte "
	    "%zu",
	    (unsigned long long)c->ins_items, plural(c->ins_items), c->ins_off,
	    off);
}

/*
 * A second dtsnap header at off.  A copy of the first one is skipped
 * alone.  Another capture's header starts a capture spliced into this
 * one: its items go on with its own numbers, and are skipped while they
 * do, however those numbers compare with this capture's.
 */
static void
second_header(dtcp_container *c, long long index, size_t off, size_t size,
    const dtcp_node *sq)
{
	if (size == c->hdr_size && hash_bytes(c->data + (off - c->base_off),
	    size) == c->hdr_hash) {
		queue(c, Q_WARN, DTC_E_DUPLICATE, index, off, "item at byte %zu "
		    "is a copy of the dtsnap header; skipped", off);
		return;
	}
	end_inserted(c, off);
	if (sq == NULL || sq->type != DTCP_N_UINT) {
		queue(c, Q_WARN, DTC_E_DUPLICATE, index, off, "second dtsnap "
		    "header at byte %zu; skipped", off);
		return;
	}
	c->ins = true;
	c->ins_next = sq->u + 1;
	c->ins_items = 0;
	c->ins_off = off;
	c->ins_index = index;
	queue(c, Q_WARN, DTC_E_DUPLICATE, index, off, "second dtsnap header "
	    "at byte %zu: another capture starts there; the items that go on "
	    "with its numbers (seq) are skipped", off);
}

/* An item numbered s was reported missing: it comes late, not again. */
static const struct gap *
in_gap(const dtcp_container *c, uint64_t s)
{
	unsigned i;

	for (i = 0; i < c->ngaps && i < NGAPS; i++)
		if (s >= c->gaps[i].lo && s < c->gaps[i].hi)
			return &c->gaps[i];
	return NULL;
}

/*
 * The item at off (its bytes end at rel end in data) says it is item s.
 * Queue what is said of its number; true when it is skipped.
 */
static bool
judge_seq(dtcp_container *c, long long index, size_t off, size_t end,
    uint64_t s)
{
	const struct gap *g;
	struct gap *ng;
	uint64_t p;

	if (c->have_seq && s < c->next_seq) {
		if ((g = in_gap(c, s)) != NULL)
			queue(c, Q_WARN, DTC_E_DUPLICATE, index, off, "item at "
			    "byte %zu is item %llu, reported missing before byte "
			    "%zu: it comes late, out of order; skipped", off,
			    (unsigned long long)s, g->off);
		else
			queue(c, Q_WARN, DTC_E_DUPLICATE, index, off, "item at "
			    "byte %zu repeats item %llu (its seq); skipped", off,
			    (unsigned long long)s);
		return true;
	}
	if (c->have_seq && s > c->next_seq) {
		/*
		 * Items lost, or this one out of place (a copy of a later
		 * item, one of two swapped): the next item tells, when it
		 * has a number this one passed over.
		 */
		if (peek_seq(c->data + end, c->len - end, &p) &&
		    p >= c->next_seq && p < s) {
			queue(c, Q_WARN, DTC_E_DUPLICATE, index, off, "item at "
			    "byte %zu says it is item %llu, but item %llu "
			    "follows it: out of place; skipped", off,
			    (unsigned long long)s, (unsigned long long)p);
			return true;
		}
		if (s == c->next_seq + 1)
			queue(c, Q_WARN, DTC_E_TRUNCATED, index, off, "item "
			    "%llu is missing before byte %zu (the item there "
			    "says it is item %llu)",
			    (unsigned long long)c->next_seq, off,
			    (unsigned long long)s);
		else
			queue(c, Q_WARN, DTC_E_TRUNCATED, index, off, "items "
			    "%llu to %llu are missing before byte %zu (the item "
			    "there says it is item %llu)",
			    (unsigned long long)c->next_seq,
			    (unsigned long long)s - 1, off,
			    (unsigned long long)s);
		ng = &c->gaps[c->ngaps++ % NGAPS];
		ng->lo = c->next_seq;
		ng->hi = s;
		ng->off = off;
	}
	c->have_seq = true;
	c->next_seq = s + 1;
	return false;
}

/*
 * A map was decoded whole at start (c->end just past it): queue what the
 * caller is told of it, the item itself and the warnings about it.
 * DTC_FATAL for a header that is not one.
 */
static int
take_item(dtcp_container *c, long long index, size_t start, dtc_error *err)
{
	/* a string left in the file (leave()) is in base_off, not data */
	size_t off = c->base_off - c->hole_len + start,
	    size = c->end - start + c->hole_len, i, k;
	const dtcp_node *t, *sq;
	bool copy;
	char f;

	for (i = 0; i < c->nnodes; i++) {
		dtcp_node *n = &c->nodes[i];

		if (n->type == DTCP_N_BYTES || n->type == DTCP_N_TEXT) {
			n->ptr = c->hole_len != 0 && i == c->hole_node ? NULL :
			    c->data + n->u;
			n->u = 0;
		}
	}
	c->pos = c->end;
	copy = c->have_prev && c->prev_size == size && size <= DUP_MAX &&
	    (c->prev_held != NULL ? memcmp(c->prev_held, c->data + start,
	    size) == 0 : c->prev_off >= c->base_off && memcmp(c->data +
	    (c->prev_off - c->base_off), c->data + start, size) == 0);
	c->prev_held = NULL;
	c->have_prev = true;
	c->prev_off = off;
	c->prev_size = size;
	if (c->refused) {
		if (index == 0)
			return fail(c, err, DTC_E_NOTCBOR, 0,
			    (long long)c->refused_off, "indefinite-length %s "
			    "at byte %zu is not supported", c->refused_what,
			    c->refused_off);
		queue(c, Q_WARN, DTC_E_NOTCBOR, index, c->refused_off,
		    "indefinite-length %s at byte %zu is not supported; item "
		    "skipped", c->refused_what, c->refused_off);
		return DTC_OK;
	}
	t = dtcp_map_get(c->nodes, "t");
	if (t == NULL || t->type != DTCP_N_TEXT) {
		if (index == 0)
			return fail(c, err, DTC_E_BADHEADER, 0, (long long)off,
			    "not a dtsnap capture: the first item has no "
			    "text key 't'");
		if (c->cut)     /* a stray map head, then an item */
			queue(c, Q_WARN, DTC_E_NOTCBOR, index, off, "item at "
			    "byte %zu has no text key 't'; sync lost at byte "
			    "%zu, found again at byte %zu", off, off,
			    off + size);
		else
			queue(c, Q_WARN, t == NULL ? DTC_E_MISSINGKEY :
			    DTC_E_KEYTYPE, index, off, "item at byte %zu has "
			    "no text key 't'; skipped", off);
		return DTC_OK;
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
	sq = dtcp_map_get(c->nodes, "seq");
	if (sq != NULL && sq->type != DTCP_N_UINT)
		sq = NULL;      /* unreadable: it costs no number */
	if (index == 0) {
		if (check_header(c, t, err, off) != DTC_OK)
			return DTC_FATAL;
		c->hdr_hash = hash_bytes(c->data + start, size);
		c->hdr_size = size;
	} else if (text_is(t, "dtsnap")) {
		second_header(c, index, off, size, sq);
		return DTC_OK;
	}
	if (c->ins) {
		if (sq != NULL && sq->u == c->ins_next) {
			c->ins_next++;
			c->ins_items++;
			c->quiet_skip = true;
			if (text_is(t, "end"))  /* its last item */
				end_inserted(c, off + size);
			return DTC_OK;
		}
		end_inserted(c, off);
	}
	f = kind_flavor(c->kind, t->len);
	if (f == 0 && c->minor <= DTCP_FORMAT_MINOR) {
		/* (the minor version grows when kinds are added) */
		queue(c, Q_WARN, DTC_E_BADVALUE, index, off, "item at byte %zu "
		    "is of kind '%s', which no capture of version %d.%llu "
		    "has; skipped", off, c->kind, DTCP_FORMAT_MAJOR,
		    (unsigned long long)c->minor);
		return DTC_OK;
	}
	if (copy && never_repeated(c->kind)) {
		queue(c, Q_WARN, DTC_E_DUPLICATE, index, off, "item at byte %zu "
		    "is a copy of the %s item before it; skipped", off, c->kind);
		return DTC_OK;
	}
	/*
	 * Items that say their number (version 1.3): lost, repeated and
	 * misplaced ones.  An item of the other flavor is refused by the
	 * reader (consume.c): it is not this capture's, and its number
	 * counts for nothing.
	 */
	if (sq != NULL && f != (c->v2 ? 'l' : '2') && index > 0 &&
	    judge_seq(c, index, off, c->end, sq->u))
		return DTC_OK;
	if (index == 0 && sq != NULL) {
		c->have_seq = true;
		c->next_seq = sq->u + 1;
	}
	c->item.index = index;
	c->item.offset = off;
	c->item.size = size;
	c->item.nodes = c->nodes;
	c->item.nnodes = c->nnodes;
	c->item.kind = c->kind;
	queue(c, Q_ITEM, 0, index, off, NULL);
	if (c->cut && c->cut_indef)
		queue(c, Q_WARN, DTC_E_NOTCBOR, index, off, "an "
		    "indefinite-length map at byte %zu runs into the item at "
		    "byte %zu: read as the %u pair%s before it", off,
		    off + size, c->nodes[0].count, plural(c->nodes[0].count));
	else if (c->cut)
		queue(c, Q_WARN, DTC_E_NOTCBOR, index, off, "a map of %u "
		    "pair%s at byte %zu runs into the item at byte %zu: read "
		    "as the %u pair%s before it", c->claimed,
		    plural(c->claimed), off, off + size, c->nodes[0].count,
		    plural(c->nodes[0].count));
	if (c->nodd == 1)
		queue(c, Q_WARN, DTC_E_NOTSUP, index, c->odd_off, "%s is not "
		    "a dtsnap value; read past it", c->odd_what);
	else if (c->nodd > 1)
		queue(c, Q_WARN, DTC_E_NOTSUP, index, c->odd_off, "%s and %u "
		    "more values in this item are not dtsnap values; read past "
		    "them", c->odd_what, c->nodd - 1);
	return DTC_OK;
}

/* The head at start is not a map: say what it is, as decode_at would. */
static void
not_a_map(dtcp_container *c, size_t start)
{
	static const char *const names[] = {
		"an unsigned integer", "a negative integer", "a byte string",
		"text", "an array", "a map", "a tag", NULL
	};
	uint8_t b = c->data[start];
	unsigned major = b >> 5, ai = b & 31;
	size_t off = c->base_off + start;
	const char *what = names[major];

	c->start = start;
	if (b == 0xff) {
		bad(c, DTC_E_NOTCBOR, off, off, "not CBOR at byte %zu: "
		    "unexpected break", off);
		return;
	}
	if ((ai >= 28 && ai <= 30) ||
	    (ai == 31 && (major == 0 || major == 1 || major == 6))) {
		bad(c, DTC_E_NOTCBOR, off, off, "not CBOR at byte %zu", off);
		return;
	}
	if (major == 7)
		what = b == 0xf4 || b == 0xf5 ? "a boolean" : b == 0xf6 ?
		    "null" : b == 0xf7 ? "undefined" : ai >= 25 ? "a float" :
		    "a simple value";
	bad(c, DTC_E_NOTCBOR, off, off, "item at byte %zu is %s, not a map",
	    off, what);
}

/* What follows the item that ends at rel starts an item, or is the end. */
static int
item_follows(dtcp_container *c, size_t rel, bool *yes, dtc_error *err)
{
	if (lookahead(c, rel, err) != DTC_OK)
		return DTC_FATAL;
	*yes = (rel == c->len && !more_input(c)) ||
	    plausible(c->data + rel, c->len - rel);
	return DTC_OK;
}

/*
 * Find in data [from, until) the first place that starts like an item and
 * decodes whole (c->nodes then hold it): D_ITEM with *at, D_BAD when there
 * is none (or looking cost more than the budget), D_FATAL.
 */
static int
find_inside(dtcp_container *c, size_t from, size_t until, size_t *at,
    dtc_error *err)
{
	uint64_t spent = 0;
	size_t p;
	int r;

	for (p = from; p < until; p++) {
		if ((c->data[p] & 0xe0) != 0xa0)
			continue;
		if (lookahead(c, p, err) != DTC_OK)
			return D_FATAL;
		if (!plausible(c->data + p, c->len - p))
			continue;
		if ((r = decode_at(c, p, err)) == D_ITEM) {
			*at = p;
			return D_ITEM;
		}
		if (r == D_FATAL)
			return D_FATAL;
		spent += c->reach - (c->base_off + p);
		if (spent > SCAN_BUDGET + (p - from))
			break;
	}
	return D_BAD;
}

/*
 * The item just decoded is of a kind that is not the format's (an
 * unknown kind in a capture of a version this reader knows), which will
 * be skipped whole: an item inserted cut short may have taken the start
 * of the next one into a string and its tail as pairs, so it is looked
 * into too.  ("t" first, as writers and plausible() have it; the nodes'
 * strings are still offsets into data.)
 */
static bool
not_the_formats(const dtcp_container *c)
{
	const dtcp_node *n = c->nodes;

	if (c->nnodes < 3 || n[0].type != DTCP_N_MAP || n[0].count == 0 ||
	    n[1].type != DTCP_N_TEXT || n[1].len != 1 ||
	    c->data[n[1].u] != 't' || n[2].type != DTCP_N_TEXT)
		return false;
	return c->minor <= DTCP_FORMAT_MINOR &&
	    kind_flavor((const char *)c->data + n[2].u, n[2].len) == 0;
}

/*
 * An item decoded whole at start.  When what follows it does not start
 * an item, the damage is either after it (stray bytes: resync() reports
 * them next) or in it: a length or count in it claimed bytes of the items
 * after it, and an item starts inside what it took.  In that case it is
 * skipped from its start to that item, which is read instead; its own
 * bytes cannot be told from the ones it took.
 */
static int
accept(dtcp_container *c, long long index, size_t start, dtc_error *err)
{
	size_t end = c->end, p, s, t;
	bool ok;
	int r;

	if (index == 0) {
		c->index = index + 1;
		return take_item(c, index, start, err);
	}
	/*
	 * An item cut where a map inside it starts like an item is damaged
	 * by definition (its head claimed more than it holds): a length in
	 * it may also have taken a whole item before that place (an item
	 * cut short, then the next ones), so it is looked into as well.
	 */
	if (!c->cut) {
		if (item_follows(c, end, &ok, err) != DTC_OK)
			return DTC_FATAL;
		if (ok && !not_the_formats(c)) {
			c->index = index + 1;
			return take_item(c, index, start, err);
		}
	}
	/* the bytes left in the file are looked into: read them */
	if (c->hole_len != 0) {
		if (unsplice(c, err) != D_ITEM)
			return DTC_FATAL;
		if (decode_at(c, start, err) != D_ITEM)
			return c->state == DTC_FATAL ? DTC_FATAL : fail(c, err,
			    DTC_E_INTERNAL, index, (long long)(c->base_off +
			    start), "container reader: item at byte %zu read "
			    "differently", c->base_off + start);
		end = c->end;
	}
	if ((r = find_inside(c, start + 1, end, &p, err)) == D_FATAL)
		return DTC_FATAL;
	if (r == D_ITEM) {
		s = c->base_off + start;
		t = c->base_off + p;
		queue(c, Q_WARN, DTC_E_NOTCBOR, index, s, "item at byte %zu "
		    "runs on over the item at byte %zu (to byte %zu); sync lost "
		    "at byte %zu, found again at byte %zu", s, t,
		    c->base_off + end, s, t);
		c->have_prev = false;
		c->index = index + 2;
		return take_item(c, index + 1, p, err);
	}
	/* the damage is after it: the item again, as it was */
	if (decode_at(c, start, err) != D_ITEM)
		return c->state == DTC_FATAL ? DTC_FATAL : fail(c, err,
		    DTC_E_INTERNAL, index, (long long)(c->base_off + start),
		    "container reader: item at byte %zu read differently",
		    c->base_off + start);
	c->index = index + 1;
	return take_item(c, index, start, err);
}

/*
 * The bytes at c->start are not an item (why: D_BAD or D_SHORT, the
 * reason in dcode, doff and dmsg).  Find the next one: the first place
 * after start where plausible() holds and decode_at reads a whole item.
 * One warning names the bytes skipped; the item found follows.  With
 * nothing found, a truncated item stays what it was ("capture cut
 * short"), and anything else was trailing damage.
 */
static int
resync(dtcp_container *c, long long index, int why, dtc_error *err)
{
	size_t s = c->base_off + c->start, doff = c->doff, p, at, end;
	size_t short_off = 0;
	char diag[320], cutmsg[320], smsg[320];
	int code = c->dcode, r;
	bool short_seen = false;
	uint64_t spent = 0;

	snprintf(cutmsg, sizeof(cutmsg), "capture cut short at byte %zu%s%s",
	    s, c->dmsg[0] != '\0' ? ": " : "", c->dmsg);
	/* (an error's text has room for 199 bytes: the detail says it) */
	if (why == D_SHORT && c->dmsg[0] == '\0')
		snprintf(diag, sizeof(diag), "item at byte %zu runs past the "
		    "end of the capture", s);
	else
		snprintf(diag, sizeof(diag), "%s", c->dmsg);
	c->have_prev = false;
	for (p = c->start + 1;; p++) {
		if (more_input(c) && c->len - p < LOOKAHEAD) {
			/* bounded memory over a long stretch of a pipe */
			discard(c, p);
			p = 0;
			if (lookahead(c, p, err) != DTC_OK)
				return DTC_FATAL;
		}
		if (p >= c->len)
			break;
		if ((c->data[p] & 0xe0) != 0xa0 ||
		    !plausible(c->data + p, c->len - p))
			continue;
		at = c->base_off + p;
		r = decode_at(c, p, err);
		if (r == D_FATAL)
			return DTC_FATAL;
		if (r == D_ITEM) {
			queue(c, Q_WARN, code, index, doff, "%s; sync lost at "
			    "byte %zu, found again at byte %zu", diag, s, at);
			return accept(c, index + 1, p, err);
		}
		if (r == D_SHORT && !short_seen) {
			short_seen = true;
			short_off = at;
			snprintf(smsg, sizeof(smsg), "capture cut short at byte "
			    "%zu%s%s", at, c->dmsg[0] != '\0' ? ": " : "",
			    c->dmsg);
		}
		spent += c->reach - at;
		if (spent > SCAN_BUDGET + (at - s))
			return fail(c, err, code, index, (long long)doff, "%s; "
			    "sync lost at byte %zu and not found again by byte "
			    "%zu", diag, s, at);
	}
	end = c->base_off + c->len;
	c->pos = c->len;
	if (why == D_SHORT) {
		queue(c, Q_FATAL, DTC_E_TRUNCATED, index, s, "%s", cutmsg);
	} else if (short_seen) {
		queue(c, Q_WARN, code, index, doff, "%s; sync lost at byte %zu, "
		    "found again at byte %zu", diag, s, short_off);
		queue(c, Q_FATAL, DTC_E_TRUNCATED, index + 1, short_off, "%s",
		    smsg);
	} else {
		queue(c, Q_WARN, code, index, doff, "%s; sync lost at byte %zu, "
		    "no item after it up to the end at byte %zu", diag, s, end);
	}
	c->index = index + 1;
	return DTC_OK;
}

int
dtcp_container_next(dtcp_container *c, dtcp_item *item, dtc_error *err)
{
	long long index;
	size_t start, off;
	int r;

	if (c->qlen > 0)
		return pop(c, item, err);
	if (c->state == DTC_FATAL) {
		if (err != NULL && err->code == DTC_E_NONE)
			*err = c->fatal;
		return DTC_FATAL;
	}
	if (c->state == DTC_EOF)
		return DTC_EOF;
again:
	compact(c);
	index = c->index;
	start = c->pos;
	off = c->base_off + start;
	if (c->mode != MODE_MEMORY && fill(c, start + 1, err) != DTC_OK)
		return DTC_FATAL;
	if (start == c->len) {
		/* (a pipe says so too: memory, file and pipe input must
		 * read alike) */
		if (index == 0)
			return fail(c, err, DTC_E_BADHEADER, 0, 0, "empty file "
			    "(0 bytes): not a capture");
		if (c->ins) {
			end_inserted(c, off);
			return pop(c, item, err);
		}
		c->state = DTC_EOF;
		return DTC_EOF;
	}
	if ((c->data[start] & 0xe0) != 0xa0) {
		/* say "not a capture" for other files, before any truncation */
		if (index == 0)
			return fail(c, err, DTC_E_BADHEADER, 0, (long long)off,
			    "not a dtsnap capture: it does not start with a "
			    "CBOR map");
		not_a_map(c, start);
		r = D_BAD;
	} else if ((r = decode_next(c, start, err)) == D_FATAL) {
		return DTC_FATAL;
	}
	if (r == D_ITEM) {
		if (accept(c, index, start, err) != DTC_OK)
			return DTC_FATAL;
	} else if (index == 0) {
		/* no resynchronization before a header has been read */
		if (r == D_SHORT)
			return fail(c, err, DTC_E_TRUNCATED, 0, (long long)off,
			    "capture cut short at byte %zu%s%s", off,
			    c->dmsg[0] != '\0' ? ": " : "", c->dmsg);
		return fail(c, err, c->dcode, 0, (long long)c->doff, "%s",
		    c->dmsg);
	} else if (resync(c, index, r, err) != DTC_OK) {
		return DTC_FATAL;
	}
	if (c->qlen == 0 && c->quiet_skip) {
		/* an item of an inserted capture: said at its end */
		c->quiet_skip = false;
		goto again;
	}
	c->quiet_skip = false;
	if (c->qlen == 0)       /* every path above queued an answer */
		return fail(c, err, DTC_E_INTERNAL, index, (long long)off,
		    "container reader: nothing to say at byte %zu", off);
	return pop(c, item, err);
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
