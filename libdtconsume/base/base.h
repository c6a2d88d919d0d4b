/*
 * base.h - the library's base layer, shared by every file of it: bounds
 * on untrusted numbers, errors (error.c), the zstd frame layer
 * (zsource.c), byte order, the container (container.c), the writer's raw
 * items (writer.c) and options (options.c).  Never installed.  Helpers
 * shared between files are dtcp_*; everything else is static in its file.
 *
 * The layers (cmd/tests/layers.sh checks that no include or call runs
 * up): base.h; decoders.h (the capture and what decodes it); agg.h (the
 * aggregation engine); pass.h (the pass engine); reader.h (the readers).
 * Programs and bindings use dtconsume.h only.
 */
#ifndef DTCP_BASE_H
#define DTCP_BASE_H


#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "dtconsume.h"

/* Bounds on untrusted numbers: nothing is allocated past these. */
#define DTCP_MAX_ID        (1u << 24)   /* epid, probe id, aggid, format id */
#define DTCP_DENSE_EPIDS   4096         /* EPIDs below: looked up by index */
#define DTCP_MAX_RECS      65536        /* recdescs in one eprobe/agg */
#define DTCP_MAX_RECSIZE   (1u << 28)   /* one record / one buffer entry */
#define DTCP_MAX_NODES     (1u << 26)   /* CBOR nodes in one item */
#define DTCP_MAX_DEPTH     64           /* CBOR nesting decoded into nodes */
#define DTCP_MAX_SKIP_DEPTH 65536       /* CBOR nesting read past (deeper:
                                           the item is skipped) */
#define DTCP_MAX_ITEM      ((size_t)1 << 32) /* one container item */

/* ------------------------------------------------------------------ */
/* error.c                                                             */
/* ------------------------------------------------------------------ */

/* Set err (unless NULL or already set). item/offset/cpu -1 when unknown. */
void dtcp_error_set(dtc_error *err, int code, const char *source,
    long long item, long long offset, int cpu, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
void dtcp_error_vset(dtc_error *err, int code, const char *source,
    long long item, long long offset, int cpu, const char *fmt, va_list ap);

/* ------------------------------------------------------------------ */
/* buf.c                                                               */
/* ------------------------------------------------------------------ */

int dtcp_buf_grow(dtc_buf *b, size_t extra);

/* Room in b for extra more bytes and the terminating NUL: 0, or -1 when
 * out of memory.  Inline, so that a writer that knows how much a piece
 * can take checks once and then stores its bytes without further tests. */
static inline int
dtcp_buf_reserve(dtc_buf *b, size_t extra)
{
	return extra < b->cap - b->len ? 0 : dtcp_buf_grow(b, extra);
}

/* ------------------------------------------------------------------ */
/* zsource.c: the zstd frame layer (dtsnap(5), COMPRESSION)            */
/* ------------------------------------------------------------------ */

/* The largest window a reader accepts, and the window writers use. */
#define DTCP_ZSTD_WINDOWLOG_MAX 23
/* A writer ends its frame at the first item boundary past this. */
#define DTCP_ZSTD_FRAME_BYTES   ((size_t)1 << 20)

typedef struct dtcp_zsource dtcp_zsource;

enum { DTCP_ZS_DATA, DTCP_ZS_EOF, DTCP_ZS_DAMAGE, DTCP_ZS_IOERR,
    DTCP_ZS_NOMEM };

/* True when p[0, n) starts a zstd frame (the reader's sniffing). */
int dtcp_zsource_is_frame(const void *p, size_t n);
/* From fd (prefix: bytes already read from it), or, fd -1, from
 * mem[0, memlen) (not copied).  NULL: out of memory. */
dtcp_zsource *dtcp_zsource_new(int fd, const void *mem, size_t memlen,
    const void *prefix, size_t nprefix);
/* Up to want decompressed bytes; 0 at the end; -1 with *status:
 * DTCP_ZS_DAMAGE (take it with dtcp_zsource_damage, then read on),
 * DTCP_ZS_IOERR (dtcp_zsource_ioerror), DTCP_ZS_NOMEM. */
ssize_t dtcp_zsource_read(dtcp_zsource *z, void *buf, size_t want,
    int *status);
/* The damage last met: 1 and its text and compressed offset, else 0. */
int dtcp_zsource_damage(dtcp_zsource *z, char *msg, size_t len,
    long long *offset);
const char *dtcp_zsource_ioerror(const dtcp_zsource *z);
void dtcp_zsource_free(dtcp_zsource *z);

/* series.c (captures in parts, dtsnap(5) SERIES): writer.c hands every
 * item it writes to the part's keep (begin with its kind, its bytes,
 * end), which keeps what the next part must repeat. */
struct dtcp_wkeep;
void dtcp_wkeep_begin(struct dtcp_wkeep *k, const char *kind);
void dtcp_wkeep_bytes(struct dtcp_wkeep *k, const void *p, size_t n);
void dtcp_wkeep_end(struct dtcp_wkeep *k);
void dtcp_writer_set_keep(dtc_writer *w, struct dtcp_wkeep *keep, int v2);
long long dtcp_writer_nitems(const dtc_writer *w);
int dtcp_writer_flush_options(dtc_writer *w, dtc_error *err);

/* ------------------------------------------------------------------ */
/* Byte order                                                          */
/* ------------------------------------------------------------------ */

static inline uint16_t
dtcp_ld16(const uint8_t *p, int swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}
static inline uint32_t
dtcp_ld32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}
static inline uint64_t
dtcp_ld64(const uint8_t *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}
static inline void
dtcp_st64(uint8_t *p, uint64_t v, int swap)
{
	if (swap)
		v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}
static inline void
dtcp_st32(uint8_t *p, uint32_t v, int swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}
/* An unsigned integer of size 1, 2, 4 or 8. */
static inline uint64_t
dtcp_ldsz(const uint8_t *p, uint32_t size, int swap)
{
	switch (size) {
	case 1: return p[0];
	case 2: return dtcp_ld16(p, swap);
	case 4: return dtcp_ld32(p, swap);
	case 8: return dtcp_ld64(p, swap);
	}
	return 0;
}
/* 1 when the host is big-endian */
static inline int
dtcp_host_big(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 0;
}

/* ------------------------------------------------------------------ */
/* container.c: the CBOR-sequence container                            */
/* ------------------------------------------------------------------ */

/* The container's major version (dtsnap(5)): a reader refuses any other;
 * minor versions only add, so every 1.x is read.  writer.c writes 1.4. */
#define DTCP_FORMAT_MAJOR 1
/* The minor version whose item kinds this reader knows: in a capture of
 * it or an earlier one, an item of another kind is not the format's
 * (1.4: program and dof). */
#define DTCP_FORMAT_MINOR 4

/* The container's nodes and items are the public ones (dtconsume.h,
 * dtc_container(3)): the library and dtsnap read the same structs. */
enum dtcp_ntype {
	DTCP_N_UINT = DTC_NODE_UINT,
	DTCP_N_NEGINT = DTC_NODE_NEGINT,
	DTCP_N_BYTES = DTC_NODE_BYTES,
	DTCP_N_TEXT = DTC_NODE_TEXT,
	DTCP_N_ARRAY = DTC_NODE_ARRAY,
	DTCP_N_MAP = DTC_NODE_MAP,
	DTCP_N_BOOL = DTC_NODE_BOOL,
	DTCP_N_NULL = DTC_NODE_NULL,
	DTCP_N_UNDEF = DTC_NODE_UNDEF,
	DTCP_N_FLOAT = DTC_NODE_FLOAT,
	DTCP_N_TAG = DTC_NODE_TAG,
	DTCP_N_SIMPLE = DTC_NODE_SIMPLE,
	DTCP_N_SKIPPED = DTC_NODE_SKIPPED  /* nested past DTCP_MAX_DEPTH */
};

/* One CBOR data item header, in preorder. */
typedef dtc_node dtcp_node;

/* One container item (a top-level CBOR map). Valid until the next
 * dtcp_container_next(), unless the container is stable (memory). */
typedef dtc_item dtcp_item;

typedef struct dtcp_container dtcp_container;

/* source: name for messages. The memory variant uses buf in place.
 * Files are read (never mapped) up to the size they have at open; a file
 * that shrinks meanwhile is "capture truncated while reading at byte N". */
dtcp_container *dtcp_container_open_file(const char *path, dtc_error *err);
dtcp_container *dtcp_container_open_fd(int fd, const char *name,
    dtc_error *err);
dtcp_container *dtcp_container_open_memory(const void *buf, size_t len,
    const char *name, dtc_error *err);
void dtcp_container_close(dtcp_container *c);
const char *dtcp_container_source(const dtcp_container *c);
/* 1 when item bytes stay valid until close (memory input only). */
int dtcp_container_stable(const dtcp_container *c);
/* File and stream input: the read buffer, holding the item just returned,
 * becomes the caller's (free()d by it; *cap its size), so that the item's
 * bytes are not copied; spare (the caller's, freed if unused) or a new
 * buffer takes its place.  NULL for memory input (stable) or no memory. */
uint8_t *dtcp_container_hand_over(dtcp_container *c, uint8_t *spare,
    size_t spare_cap, size_t *cap);
/*
 * Regular files: the data of a buf or recs item longer than min bytes
 * (and than the copy check's 1 MiB) is left in the file, not read: its
 * node has len but no ptr (NULL), and its input offset.  The pass engine
 * reads it with dtcp_container_pread when the buffer is walked, into
 * memory it reuses.  Damage in such an item reads it as before.  0 (the
 * default) reads everything; other input ignores it.
 */
void dtcp_container_defer(dtcp_container *c, size_t min);
/* len bytes at input offset off (of item, for messages) into dst: DTC_OK,
 * or DTC_FAILED with err ("capture truncated while reading at byte N"
 * when the file shrank since, or a read error).  Files only. */
int dtcp_container_pread(const dtcp_container *c, long long item,
    size_t off, uint8_t *dst, size_t len, dtc_error *err);
/* n bytes for a buffer filled whole again and again (free()d by the
 * caller): on huge pages where the system has them, so that it costs a
 * page fault per 2 MiB, once. */
uint8_t *dtcp_container_bigbuf(size_t n);
/* Nothing of the items before the last one returned is needed any more.
 * (Nothing to give back since files are read, not mapped.) */
void dtcp_container_release(dtcp_container *c);
/* 1 when kind is an item kind of the other flavor (dtsnap(5)). */
int dtcp_kind_foreign(const char *kind, int v2);
/*
 * Next item. DTC_OK with *item filled; DTC_EOF at a clean end; DTC_WARN
 * with err for damage, then call again: an item skipped (no "t", a copy,
 * ...), bytes skipped to the next item found (dtsnap(5) DAMAGE AND
 * RESYNCHRONIZATION: "...; sync lost at byte S, found again at byte T"),
 * or, right after the item it concerns, an item read despite damage (a
 * head that ran into the next item, values no key holds).  DTC_FATAL for
 * a truncated last item ("capture cut short at byte N"), a file that
 * shrank while read, a header that is not one, I/O and memory errors.
 */
int dtcp_container_next(dtcp_container *c, dtcp_item *item, dtc_error *err);

/* Lookups inside an item. */
const dtcp_node *dtcp_map_get(const dtcp_node *map, const char *key);
/* The i-th element of an array (NULL past the end). O(i). */
const dtcp_node *dtcp_array_at(const dtcp_node *arr, uint32_t i);
/* The first child of an array/map, then step with dtcp_next_sibling. */
static inline const dtcp_node *dtcp_first_child(const dtcp_node *n)
{ return n + 1; }
static inline const dtcp_node *dtcp_next_sibling(const dtcp_node *n)
{ return n + n->span; }

/*
 * Typed getters: DTC_OK, or (missing and !required) DTC_EOF leaving *out
 * alone, or DTC_FAILED with err naming the item, key and offset
 * (DTC_E_MISSINGKEY / DTC_E_KEYTYPE).
 */
int dtcp_get_u64(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required, uint64_t *out,
    dtc_error *err);
int dtcp_get_i64(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required, int64_t *out,
    dtc_error *err);
/* text: pointer into the input and its length (not NUL-terminated) */
int dtcp_get_text(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required, const char **s,
    size_t *len, dtc_error *err);
int dtcp_get_bytes(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int required,
    const uint8_t **p, size_t *len, dtc_error *err);
/* node of a given type (DTCP_N_ARRAY / DTCP_N_MAP) */
int dtcp_get_node(const dtcp_container *c, const dtcp_item *it,
    const dtcp_node *map, const char *key, int type, int required,
    const dtcp_node **out, dtc_error *err);


/* ------------------------------------------------------------------ */
/* options.c                                                           */
/* ------------------------------------------------------------------ */

enum dtcp_opt {
	DTCP_OPT_QUIET, DTCP_OPT_FLOWINDENT, DTCP_OPT_STRSIZE,
	DTCP_OPT_TEMPORAL, DTCP_OPT_AGGSORTKEY, DTCP_OPT_AGGSORTREV,
	DTCP_OPT_AGGSORTPOS, DTCP_OPT_AGGSORTKEYPOS, DTCP_OPT_STACKINDENT,
	DTCP_OPT_RAWBYTES, DTCP_OPT_AGGPACK, DTCP_OPT_AGGHIST,
	DTCP_OPT_AGGZOOM, DTCP_OPT_DROPTAGS, DTCP_OPT_BUFPOLICY,
	DTCP_OPT_STACKFRAMES, DTCP_OPT_USTACKFRAMES, DTCP_OPT_JSTACKFRAMES,
	DTCP_OPT_JSTACKSTRSIZE, DTCP_OPT_ENCODING, DTCP_OPT_DESTRUCTIVE,
	DTCP_OPT_TESTING, DTCP_OPT_PRINTSIZE,
	DTCP_OPT_MAXMSGSIZE,     /* this library's own: bytes of one message */
	DTCP_OPT_COUNT
};

/* Option values as libdtrace keeps them: int64, DTC_OPT_UNSET when unset. */
typedef struct dtcp_options {
	int64_t v[DTCP_OPT_COUNT];
	char encoding[16];       /* "", "ascii", "utf8" */
	unsigned char pinned[DTCP_OPT_COUNT]; /* set by the user: capture may not change */
} dtcp_options;

void dtcp_options_init(dtcp_options *o);
/* name as in dtrace -x; value NULL = set. Unknown but valid dtrace options
 * (bufsize, ...) are accepted and ignored; DTC_FAILED for a bad value. */
int dtcp_options_set(dtcp_options *o, const char *name, const char *value,
    int pin, char *why, size_t whylen);
/* The same while tracing is "active" (setopt() records): run-time options
 * are refused as libdtrace refuses them. why gets libdtrace's reason. */
int dtcp_options_set_active(dtcp_options *o, const char *name,
    const char *value, int pin, int active, char *why, size_t whylen);
int dtcp_options_lookup(const char *name); /* enum dtcp_opt or -1 */
static inline int dtcp_opt_isset(const dtcp_options *o, int opt)
{ return o->v[opt] != DTC_OPT_UNSET; }

#endif /* DTCP_BASE_H */
