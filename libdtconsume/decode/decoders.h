/*
 * decoders.h - the capture and what decodes it (layer 1 of base.h's list):
 * metadata tables (meta.c, v2.c, ctf.c), the buffer walker (walker.c),
 * values (record.c), the printf engine (printf_compile.c, printf_render.c)
 * and the aggregation value rules (aggval.c), the capture's shared
 * state (capture.h) and its helpers.  Never installed.
 */
#ifndef DTCP_DECODERS_H
#define DTCP_DECODERS_H

#include "base.h"
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
/* program.c: a program item checked and dropped (dtsnap(5), program) */
int dtcp_program_check_item(const dtcp_container *c, const dtcp_item *it,
    dtc_error *err);
/* dofitem.c: a dof item checked and dropped (dtsnap(5), dof) */
int dtcp_dof_check_item(const dtcp_container *c, const dtcp_item *it,
    dtc_error *err);
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
 * 1-aligned): dtc_reader_record_string's rule, for batch.c's columns. */
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
/* printf_compile.c: a printf format compiled once                     */
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
/* Shared by aggval.c and agg.c (agg.h has the engine)               */
/* ------------------------------------------------------------------ */

typedef struct dtcp_aggstate dtcp_aggstate;
/* The state a capture's decoders share (capture.h): what the engines
 * below the reader take, never the reader itself. */
typedef struct dtc_capture dtcp_capture;

/*
 * DTrace v2 llquantize (aggval.c prints it, agg.c sorts it): its
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


/* ------------------------------------------------------------------ */
/* The capture's rendering helpers (printf_render.c, capture.c)        */
/* ------------------------------------------------------------------ */

/* The message cap in force (maxmsgsize; its default when unset), 0 for
 * none. */
size_t dtcp_msg_cap(const dtcp_capture *c);
/* Where the reader is, into err's item, cpu and offset: the record being
 * delivered (what a message about rendering it names); left alone
 * between record sets and for a capture no reader walks. */
void dtcp_capture_where(const dtcp_capture *c, dtc_error *err);

/* rseries.c: the reader of a series takes its items from the part being
 * read, moving *cont and *source on to the next part (pass.c). */
struct dtcp_rseries;
int dtcp_rseries_next(struct dtcp_rseries *s, dtcp_container **cont,
    char **source, dtcp_item *item, dtc_error *err);
void dtcp_rseries_free(struct dtcp_rseries *s);
/* The parts at paths (any order), checked to be one series, in part
 * order; NULL with err.  dtcp_rseries_first: the path of the first. */
struct dtcp_rseries *dtcp_rseries_new(const char *const *paths, size_t n,
    dtc_error *err);
const char *dtcp_rseries_first(const struct dtcp_rseries *s);

#endif /* DTCP_DECODERS_H */
