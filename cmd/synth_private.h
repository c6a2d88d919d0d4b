/*
 * synth_private.h - what synth.c (description parsing and the driver),
 * synth_records.c (principal records, buffers, rings) and synth_aggs.c
 * (aggregation descriptions, entries, kernel update rules) share.
 *
 * Every parse function takes the synth context, whose path names the
 * JSON value being read, so that an error can say where it is
 * ("eprobes[2].recs[0].trace: expected 1, 2, 4, 8, ...").  Functions
 * return 0 or -1 with the context's error set; the first error wins.
 */
#ifndef DTC_SYNTH_PRIVATE_H
#define DTC_SYNTH_PRIVATE_H

#include <stdint.h>
#include <stddef.h>

#include <jansson.h>

#include "synth.h"

/* Bounds on what a description may ask for (nothing is allocated past). */
#define SY_MAX_BUF     ((size_t)1 << 28)   /* one ring or record */
#define SY_MAX_FRAMES  65536               /* stack()/ustack() frames */
#define SY_PATHLEN     160
/* recdescs in one eprobe or aggregation: past this a reader refuses it */
#define SY_MAX_RECS    65536

/* A growable byte string (buffers, aggregation snapshots). */
typedef struct sy_bytes {
	uint8_t *p;
	size_t len, cap;
} sy_bytes;

/* How the data item of one record is turned into bytes. */
enum sy_enc {
	SY_ENC_NONE = 0,  /* stores nothing (size 0): data must be null */
	SY_ENC_INT,       /* integer; sizes other than 1/2/4/8 take BYTES */
	SY_ENC_BYTES,     /* JSON string (NUL-terminated if it fits) or {"hex"} */
	SY_ENC_STACK,     /* [pc, ...] of pcsize bytes, zero-filled */
	SY_ENC_USTACK,    /* {"pid", "pcs", "strs"} */
	SY_ENC_PIDADDR,   /* [pid, address] as two 64-bit words */
	SY_ENC_FIXED      /* known from the description (fixed bytes) */
};

/* One recdesc as synth lays it out. */
typedef struct sy_rd {
	dtc_recdesc rd;       /* what the eprobe/agg item says */
	int enc;              /* enum sy_enc */
	int nullok;           /* null data means zero bytes (trunc(@a)) */
	uint32_t nframes;     /* STACK, USTACK */
	uint32_t pcsize;      /* STACK */
	uint32_t strsize;     /* USTACK string table */
	uint8_t *fixed;       /* SY_ENC_FIXED: rd.size bytes */
	int has_offset;       /* offset given in the description */
	int has_align;        /* alignment given in the description */
} sy_rd;

/* How the data item of one REC maps onto its records. */
enum sy_shape {
	SY_SHAPE_NONE = 0,  /* takes nothing: null or absent */
	SY_SHAPE_ONE,       /* the item goes to the one record taking data */
	SY_SHAPE_LIST       /* a list, one element per record taking data */
};

/* One REC of the description: records [first, first + n). */
typedef struct sy_rec {
	int shape;
	uint32_t first, n;
	char what[24];        /* "printf", "trace(string)": for messages */
} sy_rec;

/* One enabled probe. */
typedef struct sy_ep {
	uint32_t epid, probe;
	uint64_t uarg;
	uint32_t size;        /* dtepd_size: bytes of one record, header included */
	uint32_t align;       /* dte_alignment: EPIDNONE padding before records */
	uint32_t needed;      /* dte_needed: what a ring reserves */
	sy_rd *rds;
	uint32_t nrds;
	sy_rec *recs;
	uint32_t nrecs;
} sy_ep;

/* One aggregation. */
typedef struct sy_agg {
	uint32_t id, epid;
	int64_t varid;
	char *name;
	uint16_t func;        /* DTC_AGG_* */
	uint64_t arg;         /* encoded lquantize/llquantize parameters */
	uint32_t nkeys;
	sy_rd *rds;           /* rds[0] varid, keys, rds[nkeys + 1] the value */
	uint32_t nrds;        /* allocated and initialized in rds */
	uint32_t size;        /* entry bytes */
	uint32_t valoff, valsize;
} sy_agg;

/* A format string by id. */
typedef struct sy_fmt {
	uint32_t id;
	char *s;
	int written;
} sy_fmt;

typedef struct synth {
	dtc_error *err;
	const char *name;     /* the description's name, for err->source */
	char path[SY_PATHLEN];
	size_t plen;
	int failed;
	/* the capture */
	int big, ilp32, illumos;
	uint32_t ncpu, act_base;
	uint32_t strsize;     /* option strsize, 256 by default */
	uint32_t stackframes; /* option stackframes, 20 by default */
	/* metadata */
	sy_ep *eps;
	size_t neps;
	sy_agg *aggs;
	size_t naggs;
	sy_fmt *fmts;
	size_t nfmts, fmtcap;
	struct sy_ctfmod *ctf;   /* synth_ctf.c: print()'s types by module */
	size_t nctf;
	/* running state */
	uint64_t clock;       /* the last record timestamp given */
} synth;

/* ---- synth_ctf.c: the "ctf" key (print()'s types, GNU libctf) ---- */
int sy_ctf_parse(synth *s, json_t *arr);
/* The size of the type "module`id" names (for a print() record). */
int sy_ctf_size(synth *s, const char *typeref, uint32_t *size);
int sy_ctf_write(synth *s, dtc_writer *w);
void sy_ctf_free(synth *s);

/* ---- synth_dof.c: the "dof" key (dof items); w NULL only checks ---- */
int sy_dof(synth *s, json_t *arr, dtc_writer *w);

/* ---- synth.c: paths, errors and JSON getters ---- */

/* Push ".key" / "[i]" on the path; returns the mark sy_pop restores. */
size_t sy_key(synth *s, const char *key);
size_t sy_idx(synth *s, size_t i);
void sy_pop(synth *s, size_t mark);
/* Set the error "path: message"; returns -1. */
int sy_fail(synth *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int sy_nomem(synth *s);
/* Fail on keys of obj not in the NULL-terminated list. */
int sy_keys(synth *s, json_t *obj, const char *const *allowed);
int sy_object(synth *s, json_t *v);   /* fail unless v is an object */
int sy_array(synth *s, json_t *v);    /* fail unless v is an array */

/*
 * Integers: JSON numbers, or decimal/hex strings beyond 2^53.  sy_bits
 * takes anything that fits size bytes as signed or unsigned and returns
 * its two's complement bits.
 */
int sy_u64(synth *s, json_t *v, uint64_t max, uint64_t *out);
int sy_i64(synth *s, json_t *v, int64_t min, int64_t max, int64_t *out);
int sy_bits(synth *s, json_t *v, unsigned size, uint64_t *out);
/* Members: absent (or, with nullok, null) gives def; required fails. */
int sy_get_u64(synth *s, json_t *obj, const char *key, int required,
    uint64_t def, uint64_t max, uint64_t *out);
int sy_get_i64(synth *s, json_t *obj, const char *key, int required,
    int64_t def, int64_t min, int64_t max, int64_t *out);
int sy_get_u32(synth *s, json_t *obj, const char *key, int required,
    uint32_t def, uint32_t max, uint32_t *out);
int sy_get_str(synth *s, json_t *obj, const char *key, int required,
    const char *def, const char **out);
int sy_get_bool(synth *s, json_t *obj, const char *key, int def, int *out);
/* {"hex": "..."} -> bytes; n gets the count.  Caller frees *out. */
int sy_hex(synth *s, json_t *v, uint8_t **out, size_t *n);
/* The same from the string value h itself. */
int sy_hexstr(synth *s, json_t *h, uint8_t **out, size_t *n);

int sy_bytes_reserve(synth *s, sy_bytes *b, size_t more);
int sy_bytes_zero(synth *s, sy_bytes *b, size_t n);
int sy_bytes_put(synth *s, sy_bytes *b, const void *p, size_t n);
void sy_bytes_free(sy_bytes *b);

/* Store v in size (1/2/4/8) bytes in the capture's byte order. */
void sy_store(const synth *s, uint8_t *p, uint64_t v, unsigned size);
/* the inverse of sy_store */
uint64_t sy_load(const synth *s, const uint8_t *p, unsigned size);

/* Find by name (first aggid of that name) or by aggid (a number). */
sy_agg *sy_agg_lookup(synth *s, json_t *ref);
sy_ep *sy_ep_lookup(synth *s, uint32_t epid);
/* Register a format string; *id 0 = next free id.  */
int sy_format_add(synth *s, const char *str, uint32_t *id);

/* ---- synth_records.c ---- */

/* Largest of 8/4/2 dividing size, else 1 (dtrace_ecb_action_add). */
uint16_t sy_natural_align(uint32_t size);
/*
 * Parse one REC (an eprobe action, or an aggregation key when key is
 * set) into records appended to *rds; *rec says how data maps on them.
 */
int sy_rec_parse(synth *s, json_t *v, int key, uint64_t stmt, sy_rd **rds,
    uint32_t *nrds, sy_rec *rec);
/* Encode one record's data item at base + rd->rd.offset (limit bytes). */
int sy_rd_encode(synth *s, const sy_rd *rd, json_t *v, uint8_t *base,
    uint32_t limit);
/* Parse eprobes[i] and lay it out as dtrace_ecb_resize does. */
int sy_ep_parse(synth *s, json_t *v, sy_ep *ep);
void sy_rds_free(sy_rd *rds, uint32_t n);
/* Build the bytes and descriptor of passes[].bufs[i]. */
int sy_buf_build(synth *s, json_t *v, dtc_writer_buf *wb, sy_bytes *out);

/* ---- synth_aggs.c ---- */

int sy_agg_parse(synth *s, json_t *v, sy_agg *a);
void sy_agg_free(sy_agg *a);
/* The part of an enabling's record that a tuple of agg a needs (the
 * tuple is laid out after the principal records, dte_needed). */
uint32_t sy_agg_needed(const sy_agg *a, uint32_t offs);
/* Build the bytes of passes[].aggbufs[i]. */
int sy_aggbuf_build(synth *s, json_t *v, dtc_writer_buf *wb, sy_bytes *out);

#endif /* DTC_SYNTH_PRIVATE_H */
