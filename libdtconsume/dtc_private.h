/*
 * dtc_private.h - structures shared between the library's files.
 * Never installed.  Helpers shared between files are dtcp_*; everything
 * else is static in its file.
 *
 * Layering (one way): container -> meta -> walker/record -> agg, printf
 * -> order/consume.  formats/ and cmd/ see only dtconsume.h (cmd/dtsnap
 * also uses the container and writer through this header).
 */
#ifndef DTC_PRIVATE_H
#define DTC_PRIVATE_H

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

/* writer.c for dtsnap convert: a writer without a header item (level 0:
 * not compressed) and one already encoded item through it. */
dtc_writer *dtcp_writer_raw(FILE *out, int level, dtc_error *err);
int dtcp_writer_put_item(dtc_writer *w, const void *p, size_t n,
    dtc_error *err);

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
 * minor versions only add, so every 1.x is read.  writer.c writes 1.3. */
#define DTCP_FORMAT_MAJOR 1
/* The minor version whose item kinds this reader knows: in a capture of
 * it or an earlier one, an item of another kind is not the format's. */
#define DTCP_FORMAT_MINOR 3

enum dtcp_ntype {
	DTCP_N_UINT = 1,   /* u */
	DTCP_N_NEGINT,     /* value is -1 - u */
	DTCP_N_BYTES,      /* ptr, len (definite strings only; in place) */
	DTCP_N_TEXT,       /* ptr, len (not NUL-terminated) */
	DTCP_N_ARRAY,      /* count elements follow */
	DTCP_N_MAP,        /* count pairs (2*count subtrees) follow */
	DTCP_N_BOOL,       /* u = 0/1 */
	DTCP_N_NULL,
	DTCP_N_UNDEF,
	DTCP_N_FLOAT,      /* f */
	DTCP_N_TAG,        /* u = tag; one subtree follows */
	DTCP_N_SIMPLE,     /* u = an unassigned simple value (0-19, 32-255) */
	DTCP_N_SKIPPED     /* a value nested past DTCP_MAX_DEPTH, read past
	                      whole: len bytes at offset, no children */
};

/* One CBOR data item header, in preorder. */
typedef struct dtcp_node {
	uint8_t type;       /* enum dtcp_ntype */
	uint32_t count;     /* ARRAY: elements; MAP: pairs */
	uint32_t span;      /* nodes in this subtree, itself included */
	uint64_t u;
	double f;
	const uint8_t *ptr;
	size_t len;
	size_t offset;      /* byte offset of this node's header in the file */
} dtcp_node;

/* One container item (a top-level CBOR map). Valid until the next
 * dtcp_container_next(), unless the container is stable (memory). */
typedef struct dtcp_item {
	long long index;     /* 0 = the header */
	size_t offset;       /* byte offset of the item in the file */
	size_t size;         /* bytes */
	const dtcp_node *nodes; /* nodes[0] is the item's map */
	size_t nnodes;
	const char *kind;    /* the "t" value, NUL-terminated copy */
} dtcp_item;

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

/* ------------------------------------------------------------------ */
/* meta.c: metadata tables by id                                       */
/* ------------------------------------------------------------------ */

/* A map from a 32-bit id to a pointer (open addressing). */
typedef struct dtcp_idmap {
	uint32_t *keys;
	void **vals;
	size_t cap, n;
} dtcp_idmap;
void *dtcp_idmap_get(const dtcp_idmap *m, uint32_t id);
int dtcp_idmap_put(dtcp_idmap *m, uint32_t id, void *val); /* -1: nomem */
void dtcp_idmap_free(dtcp_idmap *m);

/* A simple bump arena for metadata that lives as long as the reader. */
typedef struct dtcp_arena {
	struct dtcp_arena_chunk *head;
} dtcp_arena;
void *dtcp_arena_alloc(dtcp_arena *a, size_t n);
char *dtcp_arena_strndup(dtcp_arena *a, const char *s, size_t n);
void dtcp_arena_free(dtcp_arena *a);

typedef struct dtcp_ksym {
	uint64_t addr, size;
	const char *module, *name;
} dtcp_ksym;
typedef struct dtcp_umap {
	uint64_t start, end;
	const char *path;     /* full path; printed as its basename */
	size_t nsyms;
	dtcp_ksym *syms;      /* sorted by addr; module unused */
} dtcp_umap;
typedef struct dtcp_proc {
	uint64_t pid;
	const char *execname;
	size_t nmaps;
	dtcp_umap *maps;      /* sorted by start */
	long long item;       /* the proc item's index: it applies after it */
} dtcp_proc;

/*
 * An enabled probe as the tables keep it: the public description first
 * (every dtc_eprobedesc the tables hand out is the d of one of these),
 * then what decoding needs for each of its records without a table
 * lookup per record.
 */
typedef struct dtcp_eprobe {
	dtc_eprobedesc d;
	int bad;                 /* recdescs inconsistent: records skipped */
	/* per recdesc that names a format: the compiled format, filled in
	 * at first use (formats may be described after the eprobe); NULL
	 * when no recdesc names one */
	const dtc_format **fmts;
} dtcp_eprobe;

typedef struct dtcp_meta {
	dtcp_arena arena;
	dtcp_idmap probes;    /* id -> dtc_probedesc */
	dtcp_idmap eprobes;   /* epid -> dtcp_eprobe */
	/* the same for small EPIDs (kernels number them 1, 2, ...): an
	 * index instead of a hash probe for every record */
	dtcp_eprobe **dense;
	uint32_t ndense;
	dtcp_idmap aggs;      /* aggid -> dtc_aggdesc */
	dtcp_idmap formats;   /* id -> dtc_format (compiled) */
	uint32_t maxaggid;
	dtcp_ksym *ksyms;     /* sorted by addr */
	size_t nksyms;
	dtcp_proc *procs;
	size_t nprocs;
	/* the item of the record being decoded: only proc items before it
	 * describe the process as libdtrace saw it then; 0 (no record):
	 * all of them, as for the aggregations printed at the end */
	long long proc_horizon;
	int have_clock;
	uint64_t clock_hrtime, clock_walltime;
	/* DTrace v2: the newest clock items with a pass (when that pass was
	 * consumed), by item index; a pass is read ahead of its records'
	 * decoding by at most the next pass's clock */
	struct dtcp_pclock { long long item; uint64_t hrtime; } pclock[4];
	unsigned npclock;
	int pass_clocks;      /* the first clock item said they follow */
	/* DTrace v2 captures (v2.c) */
	int v2;
	dtcp_idmap stmts;     /* statement id -> dtcp_v2stmt */
	/* print()'s types: ctf items by module (ctf.c) */
	struct dtcp_ctftab *ctf;
} dtcp_meta;

/* ctf.c: the capture's CTF (ctf items) and print()'s types */
int dtcp_ctf_add_item(dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, dtc_error *err);
/* The type a print() record names: module and id as the record gives
 * them.  NULL when the capture has no such type or this build has no
 * libctf; *why then says which (a static string). */
const dtc_ctype *dtcp_ctf_type(dtcp_meta *m, const char *module,
    uint64_t id, const char **why);
/* The first time it is asked for a type of a dictionary that holds a
 * type no compiler writes: what that is (else NULL); it prints as
 * libdtrace prints it, and the reader says so once per ctf item. */
const char *dtcp_ctf_note(const dtc_ctype *t);
void dtcp_ctf_free(dtcp_meta *m);
/* For dtsnap info: the i-th ctf item in file order (-1 past the end):
 * its module, size in bytes and id pairs (ids NULL: the same ids; then
 * *npairs is 0). */
int dtcp_ctf_item_info(const dtcp_meta *m, size_t i, const char **module,
    size_t *bytes, const uint64_t **ids, size_t *npairs);

/*
 * A proc item describes the process from where it stands (dtsnap(5)):
 * the recorder writes one whenever libdtrace's answers changed, so a
 * record decodes with the newest item before it, not a later one read
 * ahead with the rest of its pass.
 */
static inline const dtcp_proc *
dtcp_meta_proc(const dtcp_meta *m, uint64_t pid)
{
	size_t i;

	for (i = m->nprocs; i-- > 0;) {
		if (m->procs[i].pid != pid || (m->proc_horizon > 0 &&
		    m->procs[i].item >= m->proc_horizon))
			continue;
		return &m->procs[i];
	}
	return NULL;
}

/* The time of the v2 records of the buffer in item `item`: the newest
 * pass clock before it, 0 when none (a capture without them). */
static inline uint64_t
dtcp_meta_pass_time(const dtcp_meta *m, long long item)
{
	unsigned i;

	for (i = m->npclock; i-- > 0;)
		if (m->pclock[i].item < item)
			return m->pclock[i].hrtime;
	return 0;
}

/* Load one metadata item (probe, eprobe, agg, format, ksyms, proc, clock)
 * into the tables. DTC_OK; DTC_EOF when the kind is not metadata;
 * DTC_WARN/DTC_FAILED with err for a bad item (it is skipped). */
int dtcp_meta_add_item(dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, int illumos, dtc_error *err);
void dtcp_meta_free(dtcp_meta *m);
/* A recdesc array under key of an item's map (the checks of eprobe's). */
int dtcp_meta_load_recs(dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, const dtcp_node *map, const char *key,
    uint32_t *nrecs, dtc_recdesc **recs, dtc_error *err);
/* Add an eprobe to the tables (by id, and by index when small); -1: nomem */
int dtcp_meta_put_eprobe(dtcp_meta *m, dtcp_eprobe *e);
void dtcp_meta_mark_bad(dtcp_meta *m, uint32_t epid);
int dtcp_meta_is_bad(const dtcp_meta *m, uint32_t epid);
static inline int dtcp_eprobe_is_bad(const dtc_eprobedesc *ep)
{ return ((const dtcp_eprobe *)ep)->bad; }
const dtc_eprobedesc *dtcp_meta_eprobe_lookup(const dtcp_meta *m,
    uint32_t epid);
/* The eprobe of an EPID, or NULL; its probe is filled in when known. */
static inline const dtc_eprobedesc *
dtcp_meta_eprobe(const dtcp_meta *m, uint32_t epid)
{
	/* every record looks up its EPID: the dense index, inline */
	const dtcp_eprobe *e = epid < m->ndense ? m->dense[epid] : NULL;

	if (e != NULL && e->d.probe != NULL)
		return &e->d;
	return dtcp_meta_eprobe_lookup(m, epid);
}
const dtc_format *dtcp_meta_recformat_lookup(const dtcp_meta *m,
    const dtc_eprobedesc *ep, uint32_t i);
/* The compiled format of record i of ep (its recs[i].format), or NULL. */
static inline const dtc_format *
dtcp_meta_recformat(const dtcp_meta *m, const dtc_eprobedesc *ep, uint32_t i)
{
	const dtcp_eprobe *e = (const dtcp_eprobe *)ep;

	if (e->fmts != NULL && e->fmts[i] != NULL)
		return e->fmts[i];
	return dtcp_meta_recformat_lookup(m, ep, i);
}
const dtc_aggdesc *dtcp_meta_agg(const dtcp_meta *m, uint32_t aggid);
const dtc_format *dtcp_meta_format(const dtcp_meta *m, uint32_t id);
const dtc_probedesc *dtcp_meta_probe(const dtcp_meta *m, uint32_t id);

/* ------------------------------------------------------------------ */
/* v2.c: DTrace v2 (dtrace-utils) items                                */
/* ------------------------------------------------------------------ */

#define DTCP_V2_RECHDR 16    /* size word, specid, probe id, statement id */

/* Load a stmt or aggdesc item (DTC_EOF for other kinds), as
 * dtcp_meta_add_item does for the legacy ones. */
int dtcp_v2_add_item(dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, dtc_error *err);
/* The enabled probe that the records of statement stid fired by probe
 * prid decode as (made at first use), or NULL: unknown statement, or out
 * of memory (*nomem set). */
const dtc_eprobedesc *dtcp_v2_eprobe(dtcp_meta *m, uint32_t prid,
    uint32_t stid, int *nomem);
/* 1 the first time it is asked about ep (one of dtcp_v2_eprobe's),
 * whose probe no probe item describes: the walker reports it once. */
int dtcp_v2_tell_noprobe(dtcp_meta *m, const dtc_eprobedesc *ep);
/* An aggsnap item as the legacy entries the aggregation engine reads,
 * oldest first, into *buf (grown as needed; the caller frees it). */
int dtcp_v2_aggsnap(const dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, int swap, uint8_t **buf, size_t *len, size_t *cap,
    dtc_error *err);
void dtcp_v2_free(dtcp_meta *m);

/* ------------------------------------------------------------------ */
/* walker.c: one principal buffer, record by record                    */
/* ------------------------------------------------------------------ */

typedef struct dtcp_walkrec {
	size_t offset;          /* in the buffer as the consumer sees it (unringed) */
	size_t raw_offset;      /* in the captured bytes */
	uint32_t epid;
	uint64_t timestamp;
	const dtc_eprobedesc *ep;
	const uint8_t *data;    /* the record (EPID word first), ep->size bytes */
} dtcp_walkrec;

typedef struct dtcp_walker {
	dtcp_meta *meta;        /* v2 records make their enabled probes */
	int swap, cpu;
	int v2;                 /* records of a DTrace v2 recs item */
	const char *source;     /* for errors */
	long long item;         /* container item index, for errors */
	size_t file_offset;     /* file offset of the buffer's first byte */
	const uint8_t *data;    /* the bytes walked (unringed copy when wrapped) */
	size_t size, pos;
	uint64_t oldest;
	size_t misalign;        /* zero bytes added in front by unringing */
	uint8_t *scratch;       /* unring copy, reused between buffers */
	size_t scratch_cap;
	/* the last EPID looked up: records of one enabling come in runs */
	uint32_t last_epid;
	const dtc_eprobedesc *last_ep;
} dtcp_walker;

/* Start a buffer. DTC_WARN with err for oldest beyond the data (the buffer
 * is then walked from 0). */
int dtcp_walker_start(dtcp_walker *w, const uint8_t *data, size_t size,
    uint64_t oldest, dtc_error *err);
/* Next record: DTC_OK, DTC_EOF at the end, DTC_WARN for an unknown EPID or
 * a record that overruns the buffer (the rest of the buffer is skipped and
 * the next call returns DTC_EOF). */
int dtcp_walker_next(dtcp_walker *w, dtcp_walkrec *rec, dtc_error *err);
/* The EPID of the next record after the current one (0 at the end). */
uint32_t dtcp_walker_peek_epid(const dtcp_walker *w);
void dtcp_walker_free(dtcp_walker *w);

/* ------------------------------------------------------------------ */
/* record.c: recdesc + bytes -> typed value                            */
/* ------------------------------------------------------------------ */

/*
 * Decode one record (not printf groups: the caller groups those).
 * data points at the record's bytes (rd->size of them, already bounds
 * checked). Sets every field of *v that applies.
 */
void dtcp_decode_value(const dtc_recdesc *rd, const uint8_t *data,
    uint32_t size, int swap, dtc_value *v);

/* A dtrace-v2 record dtrace-utils prints as a C string (by reference,
 * 1-aligned): dtc_record_string's rule, for batch.c's columns. */
int dtcp_v2_string(const dtc_recdesc *rd);

/* dtcp_value_init sets each field by name: a new last field of dtc_value
 * must be added there too. */
_Static_assert(offsetof(dtc_value, ctype) + sizeof(const dtc_ctype *) ==
    sizeof(dtc_value), "dtcp_value_init must set every dtc_value field");

/*
 * A value of the given kind, every other field zero.  One store per field:
 * this runs for every value, and a memset (a rep stos) or a compound
 * literal (zeroes, then the fields) cost twice as much.
 */
static inline void
dtcp_value_init(dtc_value *v, uint16_t kind, const dtc_recdesc *rd,
    const uint8_t *data, uint32_t size, int swap)
{
	v->kind = kind;
	v->action = rd->action;
	v->size = size;
	v->data = data;
	v->rd = rd;
	v->swapped = swap;
	v->u = 0;
	v->i = 0;
	v->pid = 0;
	v->addr = 0;
	v->nframes = 0;
	v->pcsize = 0;
	v->pcs = NULL;
	v->strtab = NULL;
	v->strsize = 0;
	v->fmt = NULL;
	v->nargs = 0;
	v->args = NULL;
	v->agg = NULL;
	v->ctype = NULL;
}

/* An integer value: a record of 1, 2, 4 or 8 bytes, sign-extended in i. */
static inline void
dtcp_value_int(dtc_value *v, const uint8_t *data, uint32_t size, int swap)
{
	v->kind = DTC_V_INT;
	v->u = dtcp_ldsz(data, size, swap);
	switch (size) {
	case 1: v->i = (int8_t)v->u; break;
	case 2: v->i = (int16_t)v->u; break;
	case 4: v->i = (int32_t)v->u; break;
	default: v->i = (int64_t)v->u; break;
	}
}

/*
 * dtcp_decode_value, with trace() and printf() data (most values)
 * decoded inline: the record loops call this once per value.
 */
static inline void __attribute__((always_inline))
dtcp_decode_value_fast(const dtc_recdesc *rd, const uint8_t *data,
    int swap, dtc_value *v)
{
	uint32_t size = rd->size;

	if (rd->action == DTC_ACT_DIFEXPR || rd->action == DTC_ACT_PRINTF) {
		/* record.c's rule for data: by size alone */
		int isint = size == 1 || size == 2 || size == 4 || size == 8;

		dtcp_value_init(v, isint ? DTC_V_INT : DTC_V_BYTES, rd, data,
		    size, swap);
		if (isint)
			dtcp_value_int(v, data, size, swap);
		return;
	}
	dtcp_decode_value(rd, data, size, swap, v);
}

/* ------------------------------------------------------------------ */
/* printf.c: the printf engine                                         */
/* ------------------------------------------------------------------ */

/* Parse a (pickled) format once. illumos selects illumos %d/%i rules. */
/* the printer rules dtcp_format_compile follows: 0 FreeBSD, 1 illumos, */
#define DTCP_PRINTF_V2 2    /* dtrace-utils */
dtc_format *dtcp_format_compile(const char *s, size_t len, int illumos,
    dtc_error *err);
void dtcp_format_free(dtc_format *f);
/* Records a printf of this format consumes (at least 1). */
uint32_t dtcp_format_nrecs(const dtc_format *f);

/* ------------------------------------------------------------------ */
/* agg.c: the aggregation engine                                       */
/* ------------------------------------------------------------------ */

typedef struct dtcp_aggstate dtcp_aggstate;

/*
 * DTrace v2 llquantize (printf.c prints it, agg.c sorts it): its
 * parameters (dtagd_sig, word 0 of a value) and symmetric bucket layout,
 * checked in one place.  nwords: the value's words, sig included.  Inline,
 * so that neither file drags the other into the unit tests.
 */
typedef struct dtcp_llq2 {
	uint16_t factor, lmag, hmag, steps;
	uint32_t sf;     /* steps / factor: low steps a range shares */
	uint32_t bin0;   /* the bucket of abs(v) < factor^lmag */
	uint32_t nbins;  /* 2 * bin0 + 1 */
} dtcp_llq2;
static inline int
dtcp_llq2_params(uint64_t sig, uint32_t nwords, dtcp_llq2 *p)
{
	uint64_t per, npos, lim = 1;
	uint32_t m;

	p->steps = (uint16_t)(sig >> 48);
	p->hmag = (uint16_t)(sig >> 32);
	p->lmag = (uint16_t)(sig >> 16);
	p->factor = (uint16_t)sig;
	/* what dt_cg_agg_llquantize lets through; factor^(hmag+1) fits */
	if (p->factor < 2 || p->steps == 0 || p->lmag > p->hmag)
		return -1;
	for (m = 0; m <= p->hmag; m++)
		if (__builtin_mul_overflow(lim, p->factor, &lim))
			return -1;
	p->sf = p->steps / p->factor;
	per = p->steps - p->sf;
	npos = ((uint64_t)p->hmag - p->lmag + 1) * per;
	/* the size check of dt_print_llquantize (word 0 is the sig here) */
	if (nwords == 0 || npos * 2 + 3 != (uint64_t)nwords - 1)
		return -1;
	p->bin0 = (uint32_t)npos + 1;
	p->nbins = (uint32_t)npos * 2 + 3;
	return 0;
}

dtcp_aggstate *dtcp_agg_new(void);
void dtcp_agg_free(dtcp_aggstate *a);
/*
 * Merge one CPU's aggregation snapshot into the running state (in file
 * order). Entries whose aggid is unknown, or which overrun the buffer,
 * give DTC_WARN with err set (cpu, buffer offset) and the walk goes on
 * with what is intact where it can (an unknown aggid: the rest of that
 * buffer is skipped, as its entry size is unknown).
 */
int dtcp_agg_snap(dtcp_aggstate *a, const dtc_reader *r, int cpu,
    const uint8_t *buf, size_t len, dtc_error *err);
/* Library actions (by variable id). n: trunc count (0 = all). */
/* DTrace v2: the whole state after a snapshot (legacy-layout entries,
 * oldest first) replaces the current one; see agg.c. */
int dtcp_agg_replace(dtcp_aggstate *a, const dtc_reader *r,
    const uint8_t *buf, size_t len, dtc_error *err);
void dtcp_agg_clear(dtcp_aggstate *a, const dtc_reader *r, int64_t varid);
void dtcp_agg_normalize(dtcp_aggstate *a, int64_t varid, uint64_t normal);
void dtcp_agg_denormalize(dtcp_aggstate *a, int64_t varid);
void dtcp_agg_trunc(dtcp_aggstate *a, const dtc_reader *r, int64_t varid,
    int64_t n);
/*
 * Build the printing of a printa() of nvars variables (joined when > 1),
 * sorted under the options in force. Marks the aggdescs printed.
 * The result is valid until the next call on a.
 */
const dtc_aggprint *dtcp_agg_printa(dtcp_aggstate *a, const dtc_reader *r,
    const int64_t *varids, uint32_t nvars, const dtc_format *fmt,
    dtc_error *err);
/*
 * End of run: the next variable (in varid order) with entries not yet
 * printed; NULL when none is left. *cursor starts at 0.
 */
const dtc_aggprint *dtcp_agg_exit_next(dtcp_aggstate *a, const dtc_reader *r,
    size_t *cursor);
/* Visit every live entry: its aggdesc (of the first sighting), the merged
 * bytes (desc->size of them, capture byte order) and normal. */
typedef void dtcp_agg_visit_f(const dtc_aggdesc *desc, const uint8_t *data,
    uint32_t size, uint64_t normal, void *arg);
void dtcp_agg_foreach(const dtcp_aggstate *a, dtcp_agg_visit_f *visit,
    void *arg);

/* ------------------------------------------------------------------ */
/* The reader (consume.c owns it)                                      */
/* ------------------------------------------------------------------ */

struct dtc_reader;
/* Accessors other library files use */
const dtcp_meta *dtcp_reader_meta(const dtc_reader *r);
/* Where the reader is, into err's item, cpu and offset: the record being
 * delivered (what a message about rendering it names); left alone
 * between record sets. */
void dtcp_reader_where(const dtc_reader *r, dtc_error *err);
/* The message cap in force (maxmsgsize; its default when unset), 0 for
 * none. */
size_t dtcp_msg_cap(const dtc_reader *r);
const dtcp_options *dtcp_reader_options(const dtc_reader *r);
int dtcp_reader_swap(const dtc_reader *r);     /* capture byte order != host */
int dtcp_reader_illumos(const dtc_reader *r);  /* illumos rules */
dtcp_aggstate *dtcp_reader_aggstate(const dtc_reader *r);
/* A reader with no input (for merged aggregations): byte order, OS rules,
 * options and symbol tables of `like`, which must outlive it. */
dtc_reader *dtcp_reader_detached(const dtc_reader *like);
dtcp_meta *dtcp_reader_meta_rw(dtc_reader *r);

#endif /* DTC_PRIVATE_H */
