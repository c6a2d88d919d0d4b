/*
 * agg.c - the aggregation engine: merge per-CPU aggregation snapshots into
 * one long-lived state, sort it, apply the library actions (clear,
 * normalize, denormalize, trunc) and build the printings of printa() and
 * of the end of the run.
 *
 * Everything here follows libdtrace's dt_aggregate.c (illumos 2016 and
 * FreeBSD), because the order and the merging of entries are visible in
 * dtrace(1)'s output:
 *
 *  - An entry is identified by the bytes of its records 0..nrecs-2 (the
 *    compiler's variable id record and the keys) plus the aggdesc's entry
 *    size.  The aggid is not part of the identity, so the entries of the
 *    different statements (aggids) of one variable merge.
 *  - The first sighting copies the whole entry; later ones are merged into
 *    the copy with the merge function of the first sighting, at the value
 *    offset of the new aggdesc (as libdtrace does).
 *  - Comparators reproduce DT_LESSTHAN/DT_GREATERTHAN (aggsortrev flips
 *    every one, the variable order included), keypos rotation, the
 *    weighted histogram sums in long double and their tie rules.
 *
 * Memory: entries live in one growable array (index = creation order, the
 * reverse of libdtrace's dtah_all list); their bytes come from a chunked
 * arena, so the merge loop never calls malloc per record, and an
 * open-addressing table of (hash, bytes) slots finds them.  trunc()
 * compacts the arena, so memory follows the live keys.  Results handed
 * out (rows, keys, values, zero-filled data) are owned here and reused by
 * the next call.
 *
 * Where libdtrace asserts, crashes or reads past its data on bad input, we
 * pick a defined result instead: entries equal under every comparator
 * keep creation order; an llquantize whose parameter word breaks its
 * rules sorts with sum 0; negative aggsortkeypos/aggsortpos count as 0;
 * INT64_MIN / -1 wraps; a joined printa with aggsortpos set looks up the
 * aggdesc of a variable without entries under its own varid (libdtrace
 * uses the variable at the opposite rotation).  mod() keys map to the
 * lowest symbol address of their module, the capture having no module
 * table.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture.h"
#include "agg.h"

/* lquantize / llquantize argument words (sys/dtrace.h) */
#define LQ_BASE(x)   ((int32_t)((uint64_t)(x) & 0xffffffffu))
#define LQ_LEVELS(x) ((uint16_t)(((uint64_t)(x) >> 32) & 0xffff))
#define LQ_STEP(x)   ((uint16_t)(((uint64_t)(x) >> 48) & 0xffff))
#define LLQ_FACTOR(x) ((uint16_t)(((uint64_t)(x) >> 48) & 0xffff))
#define LLQ_LOW(x)    ((uint16_t)(((uint64_t)(x) >> 32) & 0xffff))
#define LLQ_HIGH(x)   ((uint16_t)(((uint64_t)(x) >> 16) & 0xffff))
#define LLQ_NSTEP(x)  ((uint16_t)((uint64_t)(x) & 0xffff))
#define QUANT_NBUCKETS 127
#define QUANT_ZERO     63

/* Smallest arena chunk; bigger ones as the state grows. */
#define CHUNK_MIN  ((size_t)64 * 1024)
#define CHUNK_MAX  ((size_t)4 * 1024 * 1024)
#define HUGE_PAGE  ((size_t)2 * 1024 * 1024)

/* ------------------------------------------------------------------ */
/* Entries, arena, hash                                                */
/* ------------------------------------------------------------------ */

/* Sort keys computed once per sort instead of once per comparison. */
struct sortval {
	long double sum;   /* histograms: weighted sum */
	int64_t zero;      /* histograms: tie breaker (count at value 0) */
	int64_t i;         /* count/sum/min/max/avg */
	uint64_t u;        /* stddev */
};

struct agg_ent {
	uint8_t *data;              /* dtagd_size bytes, capture byte order */
	const dtc_aggdesc *desc;    /* desc of the first sighting */
	int64_t varid;
	uint64_t normal;
	uint64_t hash;
	uint32_t size;              /* dtagd_size of the copy */
	uint32_t idx;               /* creation order (tie breaker) */
	uint8_t dead;
	struct sortval sv;
};

/*
 * The arena copy of an entry is preceded by this header.  It repeats what
 * a merge needs of the entry it found, so that a hit reads the slot and
 * then only the cache line(s) of the bytes it compares and adds to, never
 * the agg_ent (a third unrelated line per lookup).
 */
struct ent_hdr {
	uint32_t size;              /* dtagd_size of the copy */
	uint16_t func;              /* merge function of the first sighting */
	uint8_t addall;             /* func adds every word (count, sum...) */
	uint8_t unused;
};
#define HDR_SIZE 8              /* keeps the data 8-aligned */

static inline struct ent_hdr *
ent_hdr(uint8_t *data)
{
	return (struct ent_hdr *)(void *)(data - HDR_SIZE);
}

/*
 * The lookup table: open addressing with linear probing over slots that
 * hold the full hash and the entry's data, so a lookup reads one slot
 * line and goes to the entry only when its hash matches.  Probing starts
 * at the first slot of a cache line, so that most probes never leave the
 * line they start in (the table is 64-aligned).  There is no deletion:
 * entries only die in trunc(), and compaction rebuilds the table.
 */
struct slot {
	uint64_t hash;
	uint8_t *data;              /* NULL: empty */
};
#define SLOT_LINE 4             /* slots per 64-byte line */
#define TAB_MIN 1024
/* grown past 5/8 full: short probes, and half the size of a 1/2 limit */
#define TAB_FULL(n, cap) ((n) * 8 > (cap) * 5)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	uint64_t mem[];             /* 8-aligned entry bytes */
};

/* A small set of aggids (those printed by printa). */
struct idset {
	uint32_t *keys;             /* 0 = empty (aggid 0 is never valid) */
	size_t cap, n;
};

struct modbase {
	const char *module;
	uint64_t base;
};

struct vdesc {
	int64_t varid;
	const dtc_aggdesc *desc;
};

struct dtcp_aggstate {
	struct agg_ent *ents;
	size_t nents, capents, ndead;
	struct slot *tab;           /* ntab slots, a power of two */
	size_t ntab;
	int dupes;                  /* two entries share hash and size */
	struct chunk *chunks;
	size_t arena_bytes, live_bytes;
	uint8_t *scratch;           /* one entry with rewritten symbol keys */
	size_t capscratch;
	struct idset printed;

	/* mod() rewriting: module -> lowest symbol address */
	struct modbase *mods;
	size_t nmods;
	const void *mods_src;
	size_t mods_nsrc;
	/* varid -> first aggdesc, for variables without entries */
	struct vdesc *vdescs;
	size_t nvdescs;
	uint32_t vd_maxaggid;
	size_t vd_naggs;
	int vd_built;

	/* result memory, reused by every printing */
	dtc_aggprint ap;
	dtc_aggvar *vars;
	size_t capvars;
	dtc_aggrow *rows;
	size_t caprows;
	dtc_value *keys;
	size_t capkeys;
	dtc_aggval *vals;
	size_t capvals;
	struct agg_ent **sorted;
	size_t capsorted;
	struct agg_ent **slots;     /* joined bundles, nvars + 1 per bundle */
	size_t capslots;
	struct agg_ent ***bundles;
	size_t capbundles;
	struct agg_ent *zents;      /* zero-filled entries, one per position */
	size_t capzents;
	uint8_t *zdata;
	size_t capzdata;
	struct vpos { int64_t varid; uint32_t pos; } *vpos;
	size_t capvpos;
	uint32_t *remap;
	size_t capremap;

	/* end-of-run walk */
	struct agg_ent **exitlist;
	size_t nexit, capexit;
};

/* Grow *p to hold need elements of size el (never shrinks). */
static int
grow(void *pp, size_t *cap, size_t need, size_t el)
{
	void **p = pp;
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / el)
			return -1;
		ncap *= 2;
	}
	if ((np = realloc(*p, ncap * el)) == NULL)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

/*
 * Large arrays that the merge reads at random: on huge pages, a lookup
 * does not also miss the TLB (and fault once per 4 KiB page first).
 * Only a hint; the interior of [p, p+n) that whole huge pages cover.
 */
static void
advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);

	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

static uint8_t *
arena_alloc(dtcp_aggstate *a, size_t n)
{
	struct chunk *c = a->chunks;
	size_t cap;

	n = (n + 7) & ~(size_t)7;
	if (c == NULL || c->cap - c->used < n) {
		/* Chunks grow with the state: few chunks, little waste. */
		cap = a->arena_bytes / 4;
		if (cap < CHUNK_MIN)
			cap = CHUNK_MIN;
		if (cap > CHUNK_MAX)
			cap = CHUNK_MAX;
		if (cap < n)
			cap = n;
		if (cap >= HUGE_PAGE) {
			/* whole huge pages: the merge reads them at random */
			void *p;
			size_t tot;

			if (cap > SIZE_MAX - 2 * HUGE_PAGE)
				return NULL;
			tot = (cap + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
			if (tot - sizeof(*c) < n)
				tot += HUGE_PAGE;
			if (posix_memalign(&p, HUGE_PAGE, tot) != 0)
				return NULL;
			advise_huge(p, tot);
			c = p;
			cap = tot - sizeof(*c);
		} else if ((c = malloc(sizeof(*c) + cap)) == NULL) {
			return NULL;
		}
		c->used = 0;
		c->cap = cap;
		c->next = a->chunks;
		a->chunks = c;
		a->arena_bytes += cap;
	}
	c->used += n;
	a->live_bytes += n;
	return (uint8_t *)c->mem + c->used - n;
}

static void
arena_free_chunks(struct chunk *c)
{
	struct chunk *next;

	for (; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
}

/*
 * 64-bit mix of the identity bytes (speed only; equality is bytewise).
 * hash_ent() computes the same value without the per-record loop, so
 * both go through these.
 */
#define HASH_SEED(size) (0xcbf29ce484222325ULL ^ (size))
#define HASH_FINAL(h)   ((h) ^ ((h) >> 31))

static inline uint64_t
hash_word(uint64_t h, const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static inline uint64_t
hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	for (; n >= 8; p += 8, n -= 8)
		h = hash_word(h, p);
	while (n-- > 0)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static uint64_t
hash_key(const dtc_aggdesc *d, const uint8_t *e)
{
	uint64_t h = HASH_SEED(d->size);
	uint32_t j;

	for (j = 0; j + 1 < d->nrecs; j++)
		h = hash_bytes(h, e + d->recs[j].offset, d->recs[j].size);
	return HASH_FINAL(h);
}

static inline size_t
tab_start(const dtcp_aggstate *a, uint64_t h)
{
	return (size_t)h & (a->ntab - 1) & ~(size_t)(SLOT_LINE - 1);
}

/* Place an entry known to be absent (no equal key) into the table. */
static void
tab_put(struct slot *t, size_t ntab, uint64_t h, uint8_t *data)
{
	size_t mask = ntab - 1, i;

	for (i = (size_t)h & mask & ~(size_t)(SLOT_LINE - 1); t[i].data != NULL;
	    i = (i + 1) & mask)
		;
	t[i].hash = h;
	t[i].data = data;
}

/*
 * Put every live entry into the current table, in creation order: then
 * entries of equal hash lie along their probe sequence oldest first,
 * which lookup() relies on.
 */
static void
relink(dtcp_aggstate *a)
{
	size_t i;

	memset(a->tab, 0, a->ntab * sizeof(*a->tab));
	for (i = 0; i < a->nents; i++) {
		if (!a->ents[i].dead)
			tab_put(a->tab, a->ntab, a->ents[i].hash,
			    a->ents[i].data);
	}
}

static int
rehash(dtcp_aggstate *a, size_t n)
{
	struct slot *t, *o = a->tab;
	size_t i, k, e0 = 0, on = a->ntab;
	void *p;

	if (n > SIZE_MAX / sizeof(*t) ||
	    posix_memalign(&p, n * sizeof(*t) >= HUGE_PAGE ? HUGE_PAGE : 64,
	    n * sizeof(*t)) != 0)
		return -1;
	t = p;
	advise_huge(t, n * sizeof(*t));
	memset(t, 0, n * sizeof(*t));
	/*
	 * Move the slots in table order, which is cache friendly (a slot
	 * goes to one of two places), from an empty slot on: then no run
	 * wraps around, and entries of one hash keep their order (oldest
	 * first, as relink() puts them).  The table is never full.
	 */
	while (on != 0 && o[e0].data != NULL)
		e0++;
	for (k = 0; k < on; k++) {
		i = (e0 + k) & (on - 1);
		if (o[i].data != NULL)
			tab_put(t, n, o[i].hash, o[i].data);
	}
	free(o);
	a->tab = t;
	a->ntab = n;
	return 0;
}

/* The variable an entry belongs to (dt_aggregate_aggvarid). */
static int64_t
ent_varid(const dtc_aggdesc *d, const uint8_t *data, int swap)
{
	if (d->varid != 0)
		return d->varid;
	return (int64_t)dtcp_ld64(data + d->recs[0].offset, swap);
}

static inline const dtc_recdesc *
valrec(const dtc_aggdesc *d)
{
	return &d->recs[d->nrecs - 1];
}

/* ------------------------------------------------------------------ */
/* Small aggid set                                                     */
/* ------------------------------------------------------------------ */

static int
idset_has(const struct idset *s, uint32_t id)
{
	size_t i;

	if (s->cap == 0 || id == 0)
		return 0;
	for (i = (id * 2654435761u) & (s->cap - 1); s->keys[i] != 0;
	    i = (i + 1) & (s->cap - 1))
		if (s->keys[i] == id)
			return 1;
	return 0;
}

static int
idset_add(struct idset *s, uint32_t id)
{
	size_t i;

	if (id == 0 || idset_has(s, id))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64, j;
		uint32_t *nk = calloc(ncap, sizeof(*nk));

		if (nk == NULL)
			return -1;
		for (j = 0; j < s->cap; j++) {
			if (s->keys[j] == 0)
				continue;
			for (i = (s->keys[j] * 2654435761u) & (ncap - 1);
			    nk[i] != 0; i = (i + 1) & (ncap - 1))
				;
			nk[i] = s->keys[j];
		}
		free(s->keys);
		s->keys = nk;
		s->cap = ncap;
	}
	for (i = (id * 2654435761u) & (s->cap - 1); s->keys[i] != 0;
	    i = (i + 1) & (s->cap - 1))
		;
	s->keys[i] = id;
	s->n++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */
/* ------------------------------------------------------------------ */

dtcp_aggstate *
dtcp_agg_new(void)
{
	return calloc(1, sizeof(dtcp_aggstate));
}

void
dtcp_agg_free(dtcp_aggstate *a)
{
	if (a == NULL)
		return;
	free(a->ents);
	free(a->tab);
	arena_free_chunks(a->chunks);
	free(a->scratch);
	free(a->printed.keys);
	free(a->mods);
	free(a->vdescs);
	free(a->vars);
	free(a->rows);
	free(a->keys);
	free(a->vals);
	free(a->sorted);
	free(a->slots);
	free(a->bundles);
	free(a->zents);
	free(a->zdata);
	free(a->vpos);
	free(a->remap);
	free(a->exitlist);
	free(a);
}

/* ------------------------------------------------------------------ */
/* Symbol rewriting of keys (dt_aggregate_sym/mod/usym/umod)           */
/* ------------------------------------------------------------------ */

static int
modcmp(const void *l, const void *r)
{
	const struct modbase *a = l, *b = r;
	int c = strcmp(a->module, b->module);

	if (c != 0)
		return c;
	return a->base < b->base ? -1 : a->base > b->base;
}

/*
 * libdtrace replaces a mod() key by the module's text base.  The capture
 * has no module table, only symbols tagged with their module, so the
 * lowest symbol address of the module stands in for the base: every
 * address of the module maps to the same value and it prints as the same
 * module name.
 */
static int
mods_build(dtcp_aggstate *a, const dtcp_meta *m)
{
	size_t i, n = 0;

	if (a->mods != NULL && a->mods_src == (const void *)m->ksyms &&
	    a->mods_nsrc == m->nksyms)
		return 0;
	free(a->mods);
	a->mods = NULL;
	a->nmods = 0;
	a->mods_src = m->ksyms;
	a->mods_nsrc = m->nksyms;
	if (m->nksyms == 0)
		return 0;
	if ((a->mods = calloc(m->nksyms, sizeof(*a->mods))) == NULL)
		return -1;
	for (i = 0; i < m->nksyms; i++) {
		if (m->ksyms[i].module == NULL)
			continue;
		a->mods[n].module = m->ksyms[i].module;
		a->mods[n].base = m->ksyms[i].addr;
		n++;
	}
	qsort(a->mods, n, sizeof(*a->mods), modcmp);
	/* keep the first (lowest) address of each module */
	a->nmods = 0;
	for (i = 0; i < n; i++) {
		if (a->nmods > 0 &&
		    strcmp(a->mods[a->nmods - 1].module, a->mods[i].module) == 0)
			continue;
		a->mods[a->nmods++] = a->mods[i];
	}
	return 0;
}

static int
mod_base(dtcp_aggstate *a, const dtcp_capture *r, uint64_t addr, uint64_t *base)
{
	dtc_symbol s;
	size_t lo, hi;

	memset(&s, 0, sizeof(s));
	if (!dtc_capture_ksym_lookup(r, addr, &s) || s.module == NULL ||
	    mods_build(a, (&r->meta)) != 0)
		return 0;
	lo = 0;
	hi = a->nmods;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(a->mods[mid].module, s.module);

		if (c == 0) {
			*base = a->mods[mid].base;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* umod(): the start of the mapping that holds the address. */
static int
umap_base(const dtcp_capture *r, uint64_t pid, uint64_t addr, uint64_t *base)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;
	const dtcp_proc *p;
	size_t lo, hi;

	/* as dtc_capture_usym_lookup: no pid 0, the description in force */
	if (pid == 0 || (p = dtcp_meta_proc(m, pid)) == NULL || p->nmaps == 0)
		return 0;
	/* the last map starting at or below addr */
	lo = 0;
	hi = p->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= p->maps[lo - 1].end)
		return 0;
	*base = p->maps[lo - 1].start;
	return 1;
}

static int
has_symkeys(const dtc_aggdesc *d)
{
	uint32_t j;

	for (j = 1; j + 1 < d->nrecs; j++) {
		switch (d->recs[j].action) {
		case DTC_ACT_SYM: case DTC_ACT_MOD:
		case DTC_ACT_USYM: case DTC_ACT_UMOD:
			return 1;
		}
	}
	return 0;
}

/* Rewrite the symbol keys of the entry copy e in place. */
static void
rewrite_symkeys(dtcp_aggstate *a, const dtcp_capture *r, const dtc_aggdesc *d,
    uint8_t *e, int swap)
{
	uint32_t j;
	dtc_symbol s;
	uint64_t v, pid;

	for (j = 1; j + 1 < d->nrecs; j++) {
		const dtc_recdesc *rd = &d->recs[j];
		uint8_t *p = e + rd->offset;

		memset(&s, 0, sizeof(s));
		switch (rd->action) {
		case DTC_ACT_SYM:
			if (rd->size < 8)
				break;
			v = dtcp_ld64(p, swap);
			if (dtc_capture_ksym_lookup(r, v, &s) && s.name != NULL)
				dtcp_st64(p, s.start, swap);
			break;
		case DTC_ACT_MOD:
			if (rd->size < 8)
				break;
			if (mod_base(a, r, dtcp_ld64(p, swap), &v))
				dtcp_st64(p, v, swap);
			break;
		case DTC_ACT_USYM:
			if (rd->size < 16)
				break;
			pid = dtcp_ld64(p, swap);
			v = dtcp_ld64(p + 8, swap);
			if (dtc_capture_usym_lookup(r, pid, v, &s) && s.name != NULL)
				dtcp_st64(p + 8, s.start, swap);
			break;
		case DTC_ACT_UMOD:
			if (rd->size < 16)
				break;
			pid = dtcp_ld64(p, swap);
			if (umap_base(r, pid, dtcp_ld64(p + 8, swap), &v))
				dtcp_st64(p + 8, v, swap);
			break;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Merging (dt_aggregate_snap_cpu)                                     */
/* ------------------------------------------------------------------ */

/* Which value sizes each function can have; 0: not an aggregation. */
static int
func_ok(uint16_t func, uint32_t size)
{
	if (size < 8 || size % 8 != 0)
		return 0;
	switch (func) {
	case DTC_AGG_COUNT: case DTC_AGG_SUM:
	case DTC_AGG_MIN: case DTC_AGG_MAX:
	case DTC_AGG_QUANTIZE: case DTC_AGG_LQUANTIZE:
	case DTC_AGG_LLQUANTIZE:
		return 1;
	case DTC_AGG_AVG:
		return size >= 16;
	case DTC_AGG_STDDEV:
		return size >= 32;
	}
	return 0;
}

static inline void
add_word(uint8_t *dst, const uint8_t *src, int swap)
{
	/* unsigned: wraps as the int64 adds of libdtrace do in practice */
	dtcp_st64(dst, dtcp_ld64(dst, swap) + dtcp_ld64(src, swap), swap);
}

/* add_word() of n words in host order, without a byte order test each */
static inline void
add_words(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint64_t u, v;
	uint32_t i;

	for (i = 0; i < n; i++) {
		memcpy(&u, dst + 8 * (size_t)i, 8);
		memcpy(&v, src + 8 * (size_t)i, 8);
		u += v;
		memcpy(dst + 8 * (size_t)i, &u, 8);
	}
}

static void
merge_value(uint16_t func, uint8_t *dst, const uint8_t *src, uint32_t size,
    int swap)
{
	uint32_t nw = size / 8, i, n;

	switch (func) {
	case DTC_AGG_MIN:
		if ((int64_t)dtcp_ld64(src, swap) < (int64_t)dtcp_ld64(dst, swap))
			memcpy(dst, src, 8);
		break;
	case DTC_AGG_MAX:
		if ((int64_t)dtcp_ld64(src, swap) > (int64_t)dtcp_ld64(dst, swap))
			memcpy(dst, src, 8);
		break;
	case DTC_AGG_LQUANTIZE:
		/* the arg word stays; levels + 2 buckets follow it */
		n = (uint32_t)LQ_LEVELS(dtcp_ld64(dst, swap)) + 2;
		for (i = 1; i <= n && i < nw; i++)
			add_word(dst + 8 * i, src + 8 * i, swap);
		break;
	case DTC_AGG_LLQUANTIZE:
		for (i = 1; i < nw; i++)
			add_word(dst + 8 * i, src + 8 * i, swap);
		break;
	default:
		/*
		 * count, sum, avg, quantize, and stddev: every word on its
		 * own, so stddev's 128-bit sum of squares gets no carry from
		 * its low word into its high word, exactly as libdtrace.
		 */
		if (swap) {
			for (i = 0; i < nw; i++)
				add_word(dst + 8 * i, src + 8 * i, swap);
		} else {
			add_words(dst, src, nw);
		}
		break;
	}
}

/* Check a desc once per entry: 0 ok, else an error code. */
static int
check_desc(const dtc_aggdesc *d, const char **why)
{
	uint32_t j;
	const dtc_recdesc *vr;

	if (d->size < 16 || d->nrecs < 2 || d->recs == NULL) {
		*why = "entry size or record count too small";
		return DTC_E_BADRECDESC;
	}
	for (j = 0; j < d->nrecs; j++) {
		const dtc_recdesc *rd = &d->recs[j];

		if ((uint64_t)rd->offset + rd->size > d->size) {
			*why = "record outside the entry";
			return DTC_E_BADRECDESC;
		}
	}
	if (d->recs[0].size != 8) {
		*why = "variable id record is not 8 bytes";
		return DTC_E_BADRECDESC;
	}
	vr = valrec(d);
	if (!func_ok(vr->action, vr->size)) {
		*why = "unknown aggregating action or bad value size";
		return DTC_E_BADAGG;
	}
	return 0;
}

/*
 * What the merge needs of an aggid.  The aggids of a buffer interleave,
 * so the merge keeps these per call in a small table instead of looking
 * the desc up and checking it for every entry (the metadata may change
 * between calls, never during one).
 */
struct dinfo {
	const dtc_aggdesc *d;       /* NULL: unused */
	uint32_t id;
	int code;                   /* check_desc's verdict, 0: usable */
	const char *why;
	int symkeys;
	int plain;                  /* usable, without symbol keys */
	uint32_t size;              /* the rest are d's, once usable */
	uint32_t voff, vsize;       /* the value record */
	/* identity records as kwords 8-byte words from koff; 0: they are not */
	uint32_t koff, kwords;
};
#define DCACHE 64                   /* a power of two */

static void
dinfo_fill(struct dinfo *x, const dtc_aggdesc *d, uint32_t id)
{
	uint32_t j, end;

	memset(x, 0, sizeof(*x));
	x->d = d;
	x->id = id;
	x->size = d->size;
	if ((x->code = check_desc(d, &x->why)) != 0)
		return;
	x->symkeys = has_symkeys(d);
	x->plain = !x->symkeys;
	x->voff = valrec(d)->offset;
	x->vsize = valrec(d)->size;
	end = x->koff = d->recs[0].offset;
	for (j = 0; j + 1 < d->nrecs; j++) {
		if (d->recs[j].offset != end || d->recs[j].size % 8 != 0)
			break;
		end += d->recs[j].size;
	}
	if (j + 1 == d->nrecs)
		x->kwords = (end - x->koff) / 8;
}

/* The aggid's dinfo, or NULL: unknown aggid, or the table is full. */
static const struct dinfo *
dinfo_add(struct dinfo *dc, const dtcp_meta *m, uint32_t id)
{
	const dtc_aggdesc *d;
	uint32_t i;

	for (i = 0; i < DCACHE; i++) {
		struct dinfo *x = &dc[(id + i) & (DCACHE - 1)];

		if (x->d != NULL && x->id == id)
			return x;
		if (x->d == NULL) {
			if ((d = dtcp_meta_agg(m, id)) == NULL)
				return NULL;
			dinfo_fill(x, d, id);
			return x;
		}
	}
	return NULL;
}

static inline const struct dinfo *
dinfo_get(struct dinfo *dc, const dtcp_meta *m, uint32_t id)
{
	const struct dinfo *x = &dc[id & (DCACHE - 1)];

	if (x->id == id && x->d != NULL)
		return x;
	return dinfo_add(dc, m, id);
}

/* hash_key() of an entry of a usable desc */
static inline uint64_t
hash_ent(const struct dinfo *di, const uint8_t *e)
{
	const uint8_t *p = e + di->koff;
	uint64_t h;
	uint32_t i;

	h = HASH_SEED(di->size);
	if (di->kwords == 2) {
		/* the variable id and one key of 8 bytes, unrolled */
		h = hash_word(hash_word(h, p), p + 8);
		return HASH_FINAL(h);
	}
	if (di->kwords == 0)
		return hash_key(di->d, e);
	for (i = 0; i < di->kwords; i++, p += 8)
		h = hash_word(h, p);
	return HASH_FINAL(h);
}

/* The identity records of two entries of desc di's size. */
static inline int
key_equal(const struct dinfo *di, const uint8_t *x, const uint8_t *e)
{
	const dtc_aggdesc *d = di->d;
	uint64_t u, v, diff = 0;
	uint32_t j;

	if (di->kwords != 0) {
		x += di->koff;
		e += di->koff;
		if (di->kwords == 2) {
			memcpy(&u, x, 8);
			memcpy(&v, e, 8);
			diff = u ^ v;
			memcpy(&u, x + 8, 8);
			memcpy(&v, e + 8, 8);
			return (diff | (u ^ v)) == 0;
		}
		for (j = 0; j < di->kwords; j++) {
			memcpy(&u, x + 8 * (size_t)j, 8);
			memcpy(&v, e + 8 * (size_t)j, 8);
			diff |= u ^ v;
		}
		return diff == 0;
	}
	for (j = 0; j + 1 < d->nrecs; j++) {
		const dtc_recdesc *rd = &d->recs[j];

		if (memcmp(x + rd->offset, e + rd->offset, rd->size) != 0)
			return 0;
	}
	return 1;
}

/*
 * The copy of the entry that e merges into, or NULL and *at, the empty
 * slot where e goes.  The table must not be empty.
 *
 * Entries of different descs (layouts) can all equal e under e's desc
 * while differing under their own; libdtrace then merges into the newest
 * (its hash chains put new entries first).  That needs two entries with
 * the same hash and size, which a miss notes in a->dupes; from then on
 * the whole probe sequence is searched for the last (newest) match.
 */
static __attribute__((noinline)) uint8_t *
lookup(dtcp_aggstate *a, const struct dinfo *di, const uint8_t *e,
    uint64_t h, size_t *at)
{
	size_t mask = a->ntab - 1, i;
	uint8_t *found = NULL;
	int same = 0;

	for (i = tab_start(a, h); a->tab[i].data != NULL; i = (i + 1) & mask) {
		uint8_t *x = a->tab[i].data;

		if (a->tab[i].hash != h || ent_hdr(x)->size != di->size)
			continue;
		if (!key_equal(di, x, e)) {
			same = 1;
		} else if (!a->dupes) {
			return x;
		} else {
			found = x;
		}
	}
	if (found == NULL && same)
		a->dupes = 1;
	*at = i;
	return found;
}

/* A new entry; at is its slot from lookup(), or SIZE_MAX. */
static __attribute__((noinline)) int
insert(dtcp_aggstate *a, const dtc_aggdesc *d, const uint8_t *e, uint64_t h,
    size_t at, int swap)
{
	struct agg_ent *x;
	struct ent_hdr *hd;
	uint8_t *copy;

	if (a->nents >= UINT32_MAX - 1)
		return -1;
	if (grow(&a->ents, &a->capents, a->nents + 1, sizeof(*a->ents)) != 0)
		return -1;
	if (a->ntab == 0 || TAB_FULL(a->nents + 1, a->ntab)) {
		if (a->ntab > SIZE_MAX / 2 ||
		    rehash(a, a->ntab ? a->ntab * 2 : TAB_MIN) != 0)
			return -1;
		at = SIZE_MAX;
	}
	if ((copy = arena_alloc(a, HDR_SIZE + (size_t)d->size)) == NULL)
		return -1;
	hd = (struct ent_hdr *)(void *)copy;
	hd->size = d->size;
	hd->func = valrec(d)->action;
	hd->addall = hd->func != DTC_AGG_MIN && hd->func != DTC_AGG_MAX &&
	    hd->func != DTC_AGG_LQUANTIZE && hd->func != DTC_AGG_LLQUANTIZE;
	hd->unused = 0;
	copy += HDR_SIZE;
	memcpy(copy, e, d->size);
	x = &a->ents[a->nents];
	memset(x, 0, sizeof(*x));
	x->data = copy;
	x->desc = d;
	x->varid = ent_varid(d, copy, swap);
	x->normal = 1;
	x->hash = h;
	x->size = d->size;
	x->idx = (uint32_t)a->nents;
	if (at == SIZE_MAX) {
		tab_put(a->tab, a->ntab, h, copy);
	} else {
		a->tab[at].hash = h;
		a->tab[at].data = copy;
	}
	a->nents++;
	return 0;
}

static int warn(dtc_error *err, const dtcp_capture *r, int code, int cpu,
    size_t offs, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* A skipped entry: where (cpu, buffer offset) and why. */
static int
warn(dtc_error *err, const dtcp_capture *r, int code, int cpu, size_t offs,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, r->source, -1, (long long)offs,
	    cpu, fmt, ap);
	va_end(ap);
	return DTC_WARN;
}

/*
 * The merge is a pipeline over a ring of entries.  With a million keys a
 * lookup misses the cache twice in a row (slot line, entry bytes), and
 * one entry at a time the merge would wait on memory most of the time:
 *
 *   parse  PF_AHEAD entries ahead: check the entry, hash it, prefetch
 *          its slot line;
 *   probe  PF_DATA entries ahead: that line has arrived; remember the
 *          copy whose hash matches and prefetch its bytes;
 *   merge  the entry, normally without waiting for either.
 *
 * The parse stops at anything but a plain entry of a usable desc (an
 * unknown aggid, a bad desc, an overrun, symbol keys to rewrite); once
 * the ring has drained, that entry goes through slow_one(), which keeps
 * every rule of dt_aggregate_snap_cpu, and the pipeline starts again
 * after it.
 */
#define PF_AHEAD 24
#define PF_DATA 10
#define PF_RING 32                  /* >= PF_AHEAD, a power of two */

struct pend {
	const uint8_t *e;
	const struct dinfo *di;     /* in the per-call table: not moved */
	uint64_t hash;
	uint8_t *x;                 /* a copy of the same hash, or NULL */
};

/* Merge e, hashed h, into the state: 0, or -1 out of memory. */
static __attribute__((noinline)) int
merge_ent(dtcp_aggstate *a, const struct dinfo *di, const uint8_t *e,
    uint64_t h, int swap)
{
	size_t at = SIZE_MAX;
	uint8_t *x = NULL;

	if (a->ntab != 0)
		x = lookup(a, di, e, h, &at);
	if (x == NULL)
		return insert(a, di->d, e, h, at, swap);
	merge_value(ent_hdr(x)->func, x + di->voff, e + di->voff, di->vsize,
	    swap);
	return 0;
}

/*
 * One entry (or filler) at *offs, which the pipeline does not take: 0 to
 * go on after it, -1 to return *rv.
 */
static int
slow_one(dtcp_aggstate *a, const dtcp_capture *r, int cpu, const uint8_t *buf,
    size_t len, size_t *offs, dtc_error *err, int *rv)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;
	int swap = r->swap;
	const dtc_aggdesc *d;
	const uint8_t *e;
	struct dinfo di;
	uint32_t id;

	if (len - *offs < 4) {
		*rv = warn(err, r, DTC_E_OVERRUN, cpu, *offs,
		    "aggregation buffer ends inside an aggregation id");
		return -1;
	}
	id = dtcp_ld32(buf + *offs, swap);
	if (id == 0) {
		/* DTRACE_AGGIDNONE: alignment filler */
		*offs += 4;
		return 0;
	}
	if ((d = dtcp_meta_agg(m, id)) == NULL) {
		/* its size is unknown: nothing after it can be found */
		*rv = warn(err, r, DTC_E_BADAGGID, cpu, *offs,
		    "unknown aggregation id %u; rest of the aggregation "
		    "buffer skipped", id);
		return -1;
	}
	dinfo_fill(&di, d, id);
	if (di.code != 0) {
		*rv = warn(err, r, di.code, cpu, *offs,
		    "aggregation id %u: %s", id, di.why);
		if (d->size == 0 || d->size > len - *offs)
			return -1;
		*offs += d->size;
		return 0;
	}
	if (d->size > len - *offs) {
		*rv = warn(err, r, DTC_E_OVERRUN, cpu, *offs,
		    "aggregation id %u: entry overruns the aggregation buffer",
		    id);
		return -1;
	}
	e = buf + *offs;
	if (di.symkeys) {
		if (grow(&a->scratch, &a->capscratch, d->size, 1) != 0)
			goto nomem;
		memcpy(a->scratch, e, d->size);
		rewrite_symkeys(a, r, d, a->scratch, swap);
		e = a->scratch;
	}
	if (merge_ent(a, &di, e, hash_ent(&di, e), swap) != 0)
		goto nomem;
	*offs += d->size;
	return 0;
nomem:
	dtcp_error_set(err, DTC_E_NOMEM, r->source, -1,
	    (long long)*offs, cpu, "out of memory merging aggregations");
	*rv = DTC_FAILED;
	return -1;
}

/*
 * The probe stage: the first slot of p's hash in its first line, without
 * a loop whose length the branch predictor cannot guess.  Nothing found
 * there leaves p->x NULL and the merge to look up; a full line that does
 * not hold it means the probe goes on in the next line, fetched now.
 */
static inline void
probe_line(const struct slot *tab, size_t mask, struct pend *p)
{
	const struct slot *s = &tab[p->hash & mask & ~(size_t)(SLOT_LINE - 1)];
	uint64_t h = p->hash;
	unsigned m;

	/* an empty slot that matches (hash 0) gives no copy: no hint */
	m = (unsigned)(s[0].hash == h) | (unsigned)(s[1].hash == h) << 1 |
	    (unsigned)(s[2].hash == h) << 2 | (unsigned)(s[3].hash == h) << 3;
	if (m != 0) {
		if ((p->x = s[__builtin_ctz(m)].data) != NULL) {
			__builtin_prefetch(p->x - HDR_SIZE, 1);
			__builtin_prefetch(p->x + p->di->size - 1, 1);
		}
	} else if (s[SLOT_LINE - 1].data != NULL) {
		/* a line fills from its start: full, and the probe goes on */
		__builtin_prefetch(&tab[(size_t)(s - tab + SLOT_LINE) & mask]);
	}
}

/*
 * The pipeline over buf from *offs up to an entry that it does not take,
 * or the end: 0, or -1 out of memory merging the entry at *offs.  Each
 * caller passes swap as a constant, for a copy without byte order tests.
 */
static inline __attribute__((always_inline)) int
pipeline(dtcp_aggstate *a, const dtcp_meta *m, struct dinfo *dc,
    const uint8_t *buf, size_t len, size_t *offsp, const int swap)
{
	struct pend ring[PF_RING];
	size_t offs = *offsp;
	uint64_t head = 0, mid = 0, tail = 0;  /* parsed, probed, merged */
	/* a's table in locals: the merge's byte stores could alias it */
	const struct slot *tab = a->tab;
	size_t mask = a->ntab - 1;
	int more = 1;

	for (;;) {
		while (more && head - tail < PF_AHEAD) {
			struct pend *p = &ring[head & (PF_RING - 1)];
			const struct dinfo *di;
			uint32_t id;

			if (len - offs < 4) {
				more = 0;
				break;
			}
			if ((id = dtcp_ld32(buf + offs, swap)) == 0) {
				offs += 4;
				continue;
			}
			di = dinfo_get(dc, m, id);
			if (di == NULL || !di->plain || di->size > len - offs) {
				more = 0;
				break;
			}
			p->e = buf + offs;
			p->di = di;
			p->hash = hash_ent(di, p->e);
			p->x = NULL;
			if (tab != NULL)
				__builtin_prefetch(&tab[p->hash & mask &
				    ~(size_t)(SLOT_LINE - 1)]);
			offs += di->size;
			head++;
		}
		for (; mid != head && mid - tail < PF_DATA; mid++) {
			if (tab != NULL)
				probe_line(tab, mask, &ring[mid & (PF_RING - 1)]);
		}
		if (tail == head)
			break;
		{
			struct pend *p = &ring[tail & (PF_RING - 1)];
			const struct dinfo *di = p->di;
			const struct ent_hdr *hd;
			uint8_t *x = p->x;

			if (x != NULL && !a->dupes &&
			    (hd = ent_hdr(x))->size == di->size &&
			    key_equal(di, x, p->e)) {
				/* without dupes, a copy of the same hash, size
				 * and key is the one lookup() would find */
				if (hd->addall && !swap)
					add_words(x + di->voff, p->e + di->voff,
					    di->vsize / 8);
				else
					merge_value(hd->func, x + di->voff,
					    p->e + di->voff, di->vsize, swap);
			} else {
				if (merge_ent(a, di, p->e, p->hash, swap) != 0) {
					*offsp = (size_t)(p->e - buf);
					return -1;
				}
				tab = a->tab;
				mask = a->ntab - 1;
			}
			tail++;
		}
	}
	*offsp = offs;
	return 0;
}

int
dtcp_agg_snap(dtcp_aggstate *a, const dtcp_capture *r, int cpu,
    const uint8_t *buf, size_t len, dtc_error *err)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;
	int swap = r->swap, rv = DTC_OK, rc;
	struct dinfo dc[DCACHE];
	size_t offs = 0;

	memset(dc, 0, sizeof(dc));
	while (offs < len) {
		if (swap)
			rc = pipeline(a, m, dc, buf, len, &offs, 1);
		else
			rc = pipeline(a, m, dc, buf, len, &offs, 0);
		if (rc != 0) {
			dtcp_error_set(err, DTC_E_NOMEM, r->source,
			    -1, (long long)offs, cpu,
			    "out of memory merging aggregations");
			return DTC_FAILED;
		}
		if (offs < len &&
		    slow_one(a, r, cpu, buf, len, &offs, err, &rv) != 0)
			return rv;
	}
	return rv;
}

static void compact(dtcp_aggstate *a);

/*
 * DTrace v2: libdtrace's whole aggregation state after a snapshot, as
 * entries in the legacy layout (v2.c translates them), oldest first.  A
 * v2 snapshot does not add to the state, it is the state: values are
 * copied, entries it lacks (trunc() removed them from libdtrace's hash)
 * die, and what the state carries besides values (normalize() factors,
 * creation order, printed marks) stays, as it does in the hash.
 */
int
dtcp_agg_replace(dtcp_aggstate *a, const dtcp_capture *r, const uint8_t *buf,
    size_t len, dtc_error *err)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;
	int swap = r->swap, rv = DTC_OK;
	size_t offs = 0, i;

	/* ent_hdr's spare byte marks the entries the snapshot holds */
	for (i = 0; i < a->nents; i++)
		ent_hdr(a->ents[i].data)->unused = 0;
	while (offs < len) {
		const dtc_aggdesc *d;
		const uint8_t *e;
		struct dinfo di;
		size_t at = SIZE_MAX;
		uint8_t *x = NULL;
		uint64_t h;
		uint32_t id;

		if (len - offs < 4)
			return warn(err, r, DTC_E_OVERRUN, -1, offs,
			    "aggregation snapshot ends inside an aggregation id");
		if ((id = dtcp_ld32(buf + offs, swap)) == 0) {
			offs += 4;
			continue;
		}
		if ((d = dtcp_meta_agg(m, id)) == NULL)
			return warn(err, r, DTC_E_BADAGGID, -1, offs,
			    "unknown aggregation id %u; rest of the aggregation "
			    "snapshot skipped", id);
		dinfo_fill(&di, d, id);
		if (di.code != 0 || d->size > len - offs) {
			rv = warn(err, r, di.code != 0 ? di.code :
			    DTC_E_OVERRUN, -1, offs, "aggregation id %u: %s",
			    id, di.code != 0 ? di.why : "entry overruns the "
			    "snapshot");
			if (d->size == 0 || d->size > len - offs)
				break;
			offs += d->size;
			continue;
		}
		/* symbol keys as they are: libdtrace reduced them to their
		 * symbol or module when it took the snapshot */
		e = buf + offs;
		h = hash_ent(&di, e);
		if (a->ntab != 0)
			x = lookup(a, &di, e, h, &at);
		if (x != NULL) {
			memcpy(x + di.voff, e + di.voff, di.vsize);
		} else {
			if (insert(a, d, e, h, at, swap) != 0)
				goto nomem;
			x = a->ents[a->nents - 1].data;
		}
		ent_hdr(x)->unused = 1;
		offs += d->size;
	}
	for (i = 0; i < a->nents; i++) {
		struct agg_ent *e = &a->ents[i];

		if (!e->dead && ent_hdr(e->data)->unused == 0) {
			e->dead = 1;
			a->ndead++;
		}
		ent_hdr(e->data)->unused = 0;
	}
	if (a->ndead > 0)
		compact(a);
	return rv;
nomem:
	dtcp_error_set(err, DTC_E_NOMEM, r->source, -1,
	    (long long)offs, -1, "out of memory replacing the aggregations");
	return DTC_FAILED;
}

/* ------------------------------------------------------------------ */
/* Values as libdtrace sorts them                                      */
/* ------------------------------------------------------------------ */

typedef unsigned __int128 u128;

static uint64_t
isqrt128(u128 x)
{
	/* floor(sqrt(x)), as dt_sqrt_128's long-hand method gives */
	u128 res = 0, bit = (u128)1 << 126;

	while (bit > x)
		bit >>= 2;
	while (bit != 0) {
		if (x >= res + bit) {
			x -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)res;
}

/* dt_stddev: 128-bit unsigned floor divisions, signed mean. */
static uint64_t
agg_stddev(const uint8_t *v, uint64_t normal, int swap)
{
	uint64_t cnt = dtcp_ld64(v, swap);
	int64_t sum = (int64_t)dtcp_ld64(v + 8, swap), mean;
	u128 sq = ((u128)dtcp_ld64(v + 24, swap) << 64) | dtcp_ld64(v + 16, swap);
	uint64_t am;

	if (cnt == 0 || normal == 0)
		return 0;
	sq = sq / normal / normal / cnt;
	/* INT64_MIN / -1 traps in C; libdtrace's operands never get there */
	if ((int64_t)normal == -1 || (int64_t)cnt == -1)
		mean = (int64_t)(0 - (uint64_t)sum);
	else
		mean = sum / (int64_t)normal / (int64_t)cnt;
	am = mean < 0 ? 0 - (uint64_t)mean : (uint64_t)mean;
	return isqrt128(sq - (u128)am * am);
}

static int64_t
qbucketval(int b)
{
	if (b < QUANT_ZERO)
		return -((int64_t)1 << (62 - b));
	if (b == QUANT_ZERO)
		return 0;
	return (int64_t)1 << (b - 64);
}

/*
 * Word i of a value (0 past its end: a short value sorts as if the missing
 * buckets were empty instead of reading past the copy).
 */
static inline int64_t
vword(const uint8_t *v, uint32_t nw, uint32_t i, int swap)
{
	return i < nw ? (int64_t)dtcp_ld64(v + 8 * (size_t)i, swap) : 0;
}

/* int32 arithmetic that wraps as the traced host's int would */
static inline int32_t
w32add(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a + (uint32_t)b);
}

static void
lquant_sv(const uint8_t *v, uint32_t nw, int swap, struct sortval *sv)
{
	int64_t arg = vword(v, nw, 0, swap);
	int32_t base = LQ_BASE(arg);
	uint16_t step = LQ_STEP(arg), levels = LQ_LEVELS(arg), i;
	long double total;
	int64_t zero = 0;
	int found = 0;

	/* bucket b is word b + 1 */
	total = (long double)vword(v, nw, 1, swap) *
	    (long double)w32add(base, -1);
	if (w32add(base, -1) == 0) {
		zero = vword(v, nw, 1, swap);
		found = 1;
	}
	for (i = 0; i < levels; base = w32add(base, step), i++) {
		total += (long double)vword(v, nw, (uint32_t)i + 2, swap) *
		    (long double)base;
		if (!found && base == 0) {
			zero = vword(v, nw, (uint32_t)i + 2, swap);
			found = 1;
		}
	}
	total += (long double)vword(v, nw, (uint32_t)levels + 2, swap) *
	    (long double)w32add(base, 1);
	if (!found && w32add(base, 1) == 0)
		zero = vword(v, nw, (uint32_t)levels + 2, swap);
	sv->sum = total;
	sv->zero = zero;
}

static void
llquant_sv(const uint8_t *v, uint32_t nw, int swap, struct sortval *sv)
{
	int64_t arg = vword(v, nw, 0, swap);
	uint16_t factor = LLQ_FACTOR(arg), low = LLQ_LOW(arg);
	uint16_t high = LLQ_HIGH(arg), nsteps = LLQ_NSTEP(arg);
	int64_t value = 1, next, step;
	uint32_t bin = 1;          /* word of bucket 0 */
	long double total;
	int order;

	sv->zero = vword(v, nw, 1, swap);
	sv->sum = 0;
	/*
	 * libdtrace asserts these; a value that breaks them (garbage, or a
	 * FreeBSD clear() that zeroed the arg word) sorts with sum 0 here
	 * rather than looping forever.
	 */
	if (factor < 2 || nsteps < factor || nsteps % factor != 0)
		return;
	for (order = 0; order < low; order++) {
		if (__builtin_mul_overflow(value, (int64_t)factor, &value))
			return;
	}
	total = (long double)vword(v, nw, bin++, swap) *
	    (long double)(value - 1);
	if (__builtin_mul_overflow(value, (int64_t)factor, &next))
		return;
	step = next > nsteps ? next / nsteps : 1;
	while (order <= high && bin < nw) {
		if (value >= next)
			return;
		total += (long double)vword(v, nw, bin++, swap) *
		    (long double)value;
		if ((value += step) != next)
			continue;
		if (__builtin_mul_overflow(value, (int64_t)factor, &next))
			break;
		step = next > nsteps ? next / nsteps : 1;
		order++;
	}
	sv->sum = total + (long double)vword(v, nw, bin, swap) *
	    (long double)value;
}

/* int64 arithmetic that wraps as libdtrace's would */
static inline int64_t
w64sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

/*
 * dt_aggregate_llquantizedsum / _llquantizedzero of dtrace-utils: each
 * positive bucket's lower bound (overflow included) weighs the bucket
 * minus its negative mirror; "zero" is bin0.  Word 0 is the sig.
 */
static void
llquant_sv_v2(const uint8_t *v, uint32_t nw, int swap, struct sortval *sv)
{
	dtcp_llq2 p;
	long double total, scale;
	int64_t d;
	uint32_t i, b0, step, mag, lmag;

	sv->sum = 0;
	sv->zero = 0;
	/* dtrace-utils trusts the sig; a value that breaks it sorts as 0 */
	if (dtcp_llq2_params((uint64_t)vword(v, nw, 0, swap), nw, &p) != 0)
		return;
	b0 = p.bin0 + 1;      /* bin0's word */
	sv->zero = vword(v, nw, b0, swap);
	d = w64sub(vword(v, nw, b0 + 1, swap), vword(v, nw, b0 - 1, swap));
	total = powl(p.factor, p.lmag) * (long double)d;
	i = 1;
	lmag = p.lmag;
	if (lmag == 0 && p.steps > p.factor) {
		for (step = 2; step <= p.factor; step++) {
			i += p.sf;
			d = w64sub(vword(v, nw, b0 + i, swap),
			    vword(v, nw, b0 - i, swap));
			/* int times int64 there: wraps */
			total += (long double)(int64_t)((uint64_t)step *
			    (uint64_t)d);
		}
		lmag = 1;
	}
	scale = powl(p.factor, lmag + 1) / p.steps;
	for (mag = lmag; mag <= p.hmag; mag++) {
		for (step = p.sf + 1; step <= p.steps; step++) {
			i++;
			d = w64sub(vword(v, nw, b0 + i, swap),
			    vword(v, nw, b0 - i, swap));
			total += step * scale * (long double)d;
		}
		scale *= p.factor;
	}
	sv->sum = total;
}

typedef void llq_sv_f(const uint8_t *, uint32_t, int, struct sortval *);

static void
prep_sortval(struct agg_ent *e, int swap, llq_sv_f *llq_sv)
{
	const dtc_recdesc *vr = valrec(e->desc);
	const uint8_t *v = e->data + vr->offset;
	uint32_t nw = vr->size / 8, i;
	struct sortval *sv = &e->sv;
	int64_t n, s;

	memset(sv, 0, sizeof(*sv));
	switch (vr->action) {
	case DTC_AGG_COUNT: case DTC_AGG_SUM:
	case DTC_AGG_MIN: case DTC_AGG_MAX:
		sv->i = vword(v, nw, 0, swap);
		break;
	case DTC_AGG_AVG:
		n = vword(v, nw, 0, swap);
		s = vword(v, nw, 1, swap);
		if (n == 0)
			sv->i = 0;
		else if (n == -1)
			sv->i = (int64_t)(0 - (uint64_t)s);
		else
			sv->i = s / n;
		break;
	case DTC_AGG_STDDEV:
		sv->u = nw >= 4 ? agg_stddev(v, 1, swap) : 0;
		break;
	case DTC_AGG_QUANTIZE:
		for (i = 0; i < QUANT_NBUCKETS; i++) {
			int64_t c = vword(v, nw, i, swap);

			if (i == QUANT_ZERO)
				sv->zero = c;
			sv->sum += (long double)qbucketval((int)i) *
			    (long double)c;
		}
		break;
	case DTC_AGG_LQUANTIZE:
		lquant_sv(v, nw, swap, sv);
		break;
	case DTC_AGG_LLQUANTIZE:
		llq_sv(v, nw, swap, sv);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Comparators (dt_aggregate_*cmp)                                     */
/* ------------------------------------------------------------------ */

struct sortctx {
	int swap;
	llq_sv_f *llq_sv;  /* the flavor's llquantize sort value */
	int lt, gt;        /* DT_LESSTHAN / DT_GREATERTHAN */
	int keysort;
	int keypos;
	uint32_t nvars;    /* bundles: values per bundle */
};

static void
ctx_plain(struct sortctx *c, const dtcp_capture *r)
{
	c->swap = r->swap;
	c->llq_sv = (&r->hdr)->v2 ? llquant_sv_v2 : llquant_sv;
	c->lt = -1;
	c->gt = 1;
	c->keysort = 0;
	c->keypos = 0;
	c->nvars = 0;
}

/* The options dt_aggregate_qsort reads. */
static void
ctx_options(struct sortctx *c, const dtcp_capture *r)
{
	const dtcp_options *o = (&r->opts);
	int64_t kp = o->v[DTCP_OPT_AGGSORTKEYPOS];

	ctx_plain(c, r);
	if (dtcp_opt_isset(o, DTCP_OPT_AGGSORTREV)) {
		c->lt = 1;
		c->gt = -1;
	}
	c->keysort = dtcp_opt_isset(o, DTCP_OPT_AGGSORTKEY);
	/* negative positions would index before the keys: treat as 0 */
	c->keypos = (kp != DTC_OPT_UNSET && kp >= 0 && kp <= INT_MAX) ?
	    (int)kp : 0;
}

static int
varcmp(const struct sortctx *c, const struct agg_ent *l,
    const struct agg_ent *r)
{
	if (l->varid < r->varid)
		return c->lt;
	if (l->varid > r->varid)
		return c->gt;
	return 0;
}

static int
keycmp(const struct sortctx *c, const struct agg_ent *l,
    const struct agg_ent *r)
{
	const dtc_aggdesc *ld = l->desc, *rd = r->desc;
	int nrecs, keypos, i, j;

	if (ld->nrecs < rd->nrecs)
		return c->lt;
	if (ld->nrecs > rd->nrecs)
		return c->gt;
	nrecs = (int)ld->nrecs - 1;
	keypos = c->keypos + 1 >= nrecs ? 0 : c->keypos;
	for (i = 1; i < nrecs; i++) {
		const dtc_recdesc *lr, *rr;
		const uint8_t *lp, *rp;
		uint64_t lv, rv;
		int ndx = i + keypos;

		if (ndx >= nrecs)
			ndx = ndx - nrecs + 1;
		lr = &ld->recs[ndx];
		rr = &rd->recs[ndx];
		lp = l->data + lr->offset;
		rp = r->data + rr->offset;
		if (lr->size < rr->size)
			return c->lt;
		if (lr->size > rr->size)
			return c->gt;
		switch (lr->size) {
		case 8: case 4: case 2: case 1:
			/* unsigned: negative keys sort after positive ones */
			lv = dtcp_ldsz(lp, lr->size, c->swap);
			rv = dtcp_ldsz(rp, lr->size, c->swap);
			if (lv < rv)
				return c->lt;
			if (lv > rv)
				return c->gt;
			continue;
		}
		if ((lr->action == DTC_ACT_UMOD || lr->action == DTC_ACT_UADDR ||
		    lr->action == DTC_ACT_USYM) && lr->size >= 16) {
			/* (pid, address) as numbers; the rest is not compared */
			for (j = 0; j < 2; j++) {
				lv = dtcp_ld64(lp + 8 * j, c->swap);
				rv = dtcp_ld64(rp + 8 * j, c->swap);
				if (lv < rv)
					return c->lt;
				if (lv > rv)
					return c->gt;
			}
			continue;
		}
		j = memcmp(lp, rp, lr->size);
		if (j < 0)
			return c->lt;
		if (j > 0)
			return c->gt;
	}
	return 0;
}

static int
valcmp(const struct sortctx *c, const struct agg_ent *l,
    const struct agg_ent *r)
{
	uint16_t lf = valrec(l->desc)->action, rf = valrec(r->desc)->action;

	if (lf != rf) {
		/* libdtrace asserts; keep the order total for bad input */
		return lf < rf ? c->lt : c->gt;
	}
	switch (lf) {
	case DTC_AGG_COUNT: case DTC_AGG_SUM:
	case DTC_AGG_MIN: case DTC_AGG_MAX:
	case DTC_AGG_AVG:
		if (l->sv.i < r->sv.i)
			return c->lt;
		if (l->sv.i > r->sv.i)
			return c->gt;
		return 0;
	case DTC_AGG_STDDEV:
		if (l->sv.u < r->sv.u)
			return c->lt;
		if (l->sv.u > r->sv.u)
			return c->gt;
		return 0;
	case DTC_AGG_QUANTIZE: case DTC_AGG_LQUANTIZE:
	case DTC_AGG_LLQUANTIZE:
		if (l->sv.sum < r->sv.sum)
			return c->lt;
		if (l->sv.sum > r->sv.sum)
			return c->gt;
		if (l->sv.zero < r->sv.zero)
			return c->lt;
		if (l->sv.zero > r->sv.zero)
			return c->gt;
		return 0;
	}
	return 0;
}

/*
 * Entries that compare equal under libdtrace's comparators are the same
 * key of differently sized descs (they did not merge): order them by
 * creation so that the result does not depend on qsort.
 */
static int
idxcmp(const struct agg_ent *l, const struct agg_ent *r)
{
	return l->idx < r->idx ? -1 : l->idx > r->idx;
}

static int
varvalcmp(const void *lp, const void *rp, void *arg)
{
	const struct sortctx *c = arg;
	const struct agg_ent *l = *(struct agg_ent *const *)lp;
	const struct agg_ent *r = *(struct agg_ent *const *)rp;
	int v;

	if ((v = varcmp(c, l, r)) != 0 || (v = valcmp(c, l, r)) != 0 ||
	    (v = keycmp(c, l, r)) != 0)
		return v;
	return idxcmp(l, r);
}

/* trunc()'s walk: varvalcmp with the operands swapped */
static int
varvalrevcmp(const void *lp, const void *rp, void *arg)
{
	return varvalcmp(rp, lp, arg);
}

static int
varkeycmp(const void *lp, const void *rp, void *arg)
{
	const struct sortctx *c = arg;
	const struct agg_ent *l = *(struct agg_ent *const *)lp;
	const struct agg_ent *r = *(struct agg_ent *const *)rp;
	int v;

	if ((v = varcmp(c, l, r)) != 0 || (v = keycmp(c, l, r)) != 0)
		return v;
	return idxcmp(l, r);
}

static int
keyvarcmp(const void *lp, const void *rp, void *arg)
{
	const struct sortctx *c = arg;
	const struct agg_ent *l = *(struct agg_ent *const *)lp;
	const struct agg_ent *r = *(struct agg_ent *const *)rp;
	int v;

	if ((v = keycmp(c, l, r)) != 0 || (v = varcmp(c, l, r)) != 0)
		return v;
	return idxcmp(l, r);
}

/* dt_aggregate_bundlecmp: slot n of a bundle is its representative. */
static int
bundlecmp(const void *lp, const void *rp, void *arg)
{
	const struct sortctx *c = arg;
	struct agg_ent *const *l = *(struct agg_ent **const *)lp;
	struct agg_ent *const *r = *(struct agg_ent **const *)rp;
	uint32_t i, n = c->nvars;
	int v;

	if (c->keysort && (v = keycmp(c, l[n], r[n])) != 0)
		return v;
	for (i = 0; i < n; i++) {
		if ((v = valcmp(c, l[i], r[i])) != 0)
			return v;
	}
	if (!c->keysort && (v = keycmp(c, l[n], r[n])) != 0)
		return v;
	return idxcmp(l[n], r[n]);
}

/*
 * What varvalcmp and varkeycmp read first, copied next to the entry: a
 * compare of two items reads one cache line a side, where the entries
 * cost three (the entry, its data, its desc), and a sort of a million
 * rows spent most of its time waiting for them.  Only a tie on these
 * reads the entries, through the comparators above, so the order is
 * theirs exactly.
 */
struct sortitem {
	int64_t varid;
	int64_t v;          /* count/sum/min/max/avg: sv.i */
	uint64_t k0;        /* the first key keycmp compares, 1 to 8 bytes */
	uint32_t nrecs;     /* the desc's */
	uint16_t func;      /* the value's action */
	uint16_t k0size;    /* the first key's size; 0: no key */
	struct agg_ent *e;
};

static int
scalar_func(uint16_t f)
{
	return f == DTC_AGG_COUNT || f == DTC_AGG_SUM || f == DTC_AGG_MIN ||
	    f == DTC_AGG_MAX || f == DTC_AGG_AVG;
}

static void
item_fill(struct sortitem *it, struct agg_ent *e, const struct sortctx *c)
{
	const dtc_aggdesc *d = e->desc;
	int nrecs = (int)d->nrecs - 1, keypos, ndx;

	it->varid = e->varid;
	it->func = valrec(d)->action;
	it->v = e->sv.i;
	it->nrecs = d->nrecs;
	it->k0size = 0;
	it->k0 = 0;
	it->e = e;
	if (nrecs <= 1)
		return;
	/* keycmp's first index */
	keypos = c->keypos + 1 >= nrecs ? 0 : c->keypos;
	ndx = 1 + keypos;
	if (ndx >= nrecs)
		ndx = ndx - nrecs + 1;
	it->k0size = (uint16_t)(d->recs[ndx].size > UINT16_MAX ? UINT16_MAX :
	    d->recs[ndx].size);
	switch (d->recs[ndx].size) {
	case 8: case 4: case 2: case 1:
		it->k0 = dtcp_ldsz(e->data + d->recs[ndx].offset,
		    d->recs[ndx].size, c->swap);
		break;
	}
}

/* keycmp, the first key from the items */
static int
item_keycmp(const struct sortctx *c, const struct sortitem *l,
    const struct sortitem *r)
{
	if (l->nrecs != r->nrecs)
		return l->nrecs < r->nrecs ? c->lt : c->gt;
	if (l->k0size != r->k0size)
		return l->k0size < r->k0size ? c->lt : c->gt;
	switch (l->k0size) {
	case 8: case 4: case 2: case 1:
		if (l->k0 != r->k0)
			return l->k0 < r->k0 ? c->lt : c->gt;
		break;
	}
	return keycmp(c, l->e, r->e);
}

/* qsort_r sorts pointers to the items: 8-byte elements are moved
 * cheaply, the 40-byte items stay where they are */
static int
item_varvalcmp(const void *lp, const void *rp, void *arg)
{
	const struct sortctx *c = arg;
	const struct sortitem *l = *(struct sortitem *const *)lp;
	const struct sortitem *r = *(struct sortitem *const *)rp;
	int v;

	if (l->varid != r->varid)
		return l->varid < r->varid ? c->lt : c->gt;
	if (l->func != r->func)
		return l->func < r->func ? c->lt : c->gt;
	if (scalar_func(l->func)) {
		if (l->v != r->v)
			return l->v < r->v ? c->lt : c->gt;
	} else if ((v = valcmp(c, l->e, r->e)) != 0) {
		return v;
	}
	if ((v = item_keycmp(c, l, r)) != 0)
		return v;
	return idxcmp(l->e, r->e);
}

static int
item_varkeycmp(const void *lp, const void *rp, void *arg)
{
	const struct sortctx *c = arg;
	const struct sortitem *l = *(struct sortitem *const *)lp;
	const struct sortitem *r = *(struct sortitem *const *)rp;
	int v;

	if (l->varid != r->varid)
		return l->varid < r->varid ? c->lt : c->gt;
	if ((v = item_keycmp(c, l, r)) != 0)
		return v;
	return idxcmp(l->e, r->e);
}

/* dt_aggregate_qsort with no comparator: the options decide. */
static void
sort_default(struct agg_ent **v, size_t n, const struct sortctx *c)
{
	struct sortitem *it, **p;
	size_t i;

	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		prep_sortval(v[i], c->swap, c->llq_sv);
	/* without memory for the items, the entries are sorted directly */
	if (n > SIZE_MAX / (sizeof(*it) + sizeof(*p)) ||
	    (it = malloc(n * (sizeof(*it) + sizeof(*p)))) == NULL) {
		qsort_r(v, n, sizeof(*v), c->keysort ? varkeycmp : varvalcmp,
		    (void *)c);
		return;
	}
	p = (struct sortitem **)(void *)(it + n);
	for (i = 0; i < n; i++) {
		item_fill(&it[i], v[i], c);
		p[i] = &it[i];
	}
	qsort_r(p, n, sizeof(*p), c->keysort ? item_varkeycmp :
	    item_varvalcmp, (void *)c);
	for (i = 0; i < n; i++)
		v[i] = p[i]->e;
	free(it);
}

/* ------------------------------------------------------------------ */
/* Library actions                                                     */
/* ------------------------------------------------------------------ */

/*
 * Whether a cleared or zero-filled llquantize keeps its parameter word:
 * illumos spares it, FreeBSD does not, and a v2 value's word 0 is the
 * aggdesc's sig, which no clear() touches in dtrace-utils.
 */
static int
llq_keeps_arg(const dtcp_capture *r)
{
	return r->illumos || (&r->hdr)->v2;
}

/* The library actions skip descs without records (dt_*_agg). */
static inline int
ent_is(const struct agg_ent *e, int64_t varid)
{
	return !e->dead && e->desc->nrecs != 0 && e->varid == varid;
}

void
dtcp_agg_clear(dtcp_aggstate *a, const dtcp_capture *r, int64_t varid)
{
	int llqarg = llq_keeps_arg(r);
	size_t i;

	for (i = 0; i < a->nents; i++) {
		struct agg_ent *e = &a->ents[i];
		const dtc_recdesc *vr;
		uint32_t skip = 0;

		if (!ent_is(e, varid))
			continue;
		vr = valrec(e->desc);
		/*
		 * The parameter word of lquantize survives; FreeBSD's copy
		 * does not spare llquantize's, so a cleared llquantize later
		 * fails to print there.
		 */
		if (vr->action == DTC_AGG_LQUANTIZE ||
		    (vr->action == DTC_AGG_LLQUANTIZE && llqarg))
			skip = 8;
		if (vr->size > skip)
			memset(e->data + vr->offset + skip, 0, vr->size - skip);
	}
}

void
dtcp_agg_normalize(dtcp_aggstate *a, int64_t varid, uint64_t normal)
{
	size_t i;

	/* libdtrace walks dtah_all: newest entry first */
	for (i = a->nents; i-- > 0;) {
		struct agg_ent *e = &a->ents[i];

		if (!ent_is(e, varid))
			continue;
		if (normal == 0) {
			/* EDT_BADRVAL: this entry gets 1 and the walk stops */
			e->normal = 1;
			return;
		}
		e->normal = normal;
	}
}

void
dtcp_agg_denormalize(dtcp_aggstate *a, int64_t varid)
{
	size_t i;

	for (i = 0; i < a->nents; i++) {
		if (ent_is(&a->ents[i], varid))
			a->ents[i].normal = 1;
	}
}

/*
 * Drop dead entries: the array keeps creation order, the arena is copied
 * when most of it is dead, and the hash is rebuilt.
 */
static void
compact(dtcp_aggstate *a)
{
	struct chunk *old = NULL;
	size_t i, n = 0, live = 0;
	int copy;

	for (i = 0; i < a->nents; i++) {
		if (!a->ents[i].dead)
			live += (HDR_SIZE + (size_t)a->ents[i].size + 7) &
			    ~(size_t)7;
	}
	copy = a->arena_bytes > CHUNK_MIN && live < a->arena_bytes / 2;
	if (copy) {
		old = a->chunks;
		a->chunks = NULL;
		a->arena_bytes = 0;
		a->live_bytes = 0;
	}
	for (i = 0; i < a->nents; i++) {
		struct agg_ent *e = &a->ents[i];

		if (e->dead)
			continue;
		if (copy) {
			uint8_t *p = arena_alloc(a, HDR_SIZE + (size_t)e->size);

			if (p == NULL) {
				/* keep the old arena alive: it still holds data */
				copy = 0;
			} else {
				memcpy(p, e->data - HDR_SIZE,
				    HDR_SIZE + (size_t)e->size);
				e->data = p + HDR_SIZE;
			}
		}
		e->idx = (uint32_t)n;
		a->ents[n++] = *e;
	}
	if (old != NULL) {
		if (copy) {
			arena_free_chunks(old);
		} else {
			/* out of memory half way: keep both arenas */
			struct chunk **t = &a->chunks;

			while (*t != NULL)
				t = &(*t)->next;
			*t = old;
		}
	}
	a->nents = n;
	a->ndead = 0;
	a->live_bytes = live;
	/* entries moved: refill in place (no allocation that could fail) */
	if (a->ntab != 0)
		relink(a);
}

void
dtcp_agg_trunc(dtcp_aggstate *a, const dtcp_capture *r, int64_t varid,
    int64_t n)
{
	struct sortctx c;
	size_t i, k = 0;
	uint64_t keep;

	for (i = 0; i < a->nents; i++) {
		if (ent_is(&a->ents[i], varid))
			k++;
	}
	if (k == 0 || grow(&a->sorted, &a->capsorted, k, sizeof(*a->sorted)))
		return;
	k = 0;
	for (i = 0; i < a->nents; i++) {
		if (ent_is(&a->ents[i], varid))
			a->sorted[k++] = &a->ents[i];
	}
	/*
	 * dtrace_aggregate_walk_valrevsorted / _valsorted pass their own
	 * comparator, so aggsortrev, aggsortkey and aggsortkeypos do not
	 * apply: plain value order, ties by key at position 0.
	 */
	ctx_plain(&c, r);
	for (i = 0; i < k; i++)
		prep_sortval(a->sorted[i], c.swap, c.llq_sv);
	if (n < 0) {
		keep = 0 - (uint64_t)n;
		qsort_r(a->sorted, k, sizeof(*a->sorted), varvalcmp, &c);
	} else {
		keep = (uint64_t)n;
		qsort_r(a->sorted, k, sizeof(*a->sorted), varvalrevcmp, &c);
	}
	if (keep >= k)
		return;
	for (i = (size_t)keep; i < k; i++) {
		a->sorted[i]->dead = 1;
		a->ndead++;
	}
	compact(a);
}

/* ------------------------------------------------------------------ */
/* Printings                                                           */
/* ------------------------------------------------------------------ */

static int
vdesccmp(const void *l, const void *r)
{
	const struct vdesc *a = l, *b = r;

	if (a->varid != b->varid)
		return a->varid < b->varid ? -1 : 1;
	return a->desc->id < b->desc->id ? -1 : a->desc->id > b->desc->id;
}

/*
 * The first aggdesc (lowest aggid) of a variable, as libdtrace finds it
 * by scanning aggids 1, 2, ... (errata O8).  Built once per metadata
 * change so that printa of a variable without entries stays cheap.
 */
static const dtc_aggdesc *
find_desc(dtcp_aggstate *a, const dtcp_capture *r, int64_t varid)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;
	size_t lo, hi, n = 0, cap = 0;
	uint32_t id;

	if (!a->vd_built || a->vd_maxaggid != m->maxaggid ||
	    a->vd_naggs != m->aggs.n) {
		free(a->vdescs);
		a->vdescs = NULL;
		a->nvdescs = 0;
		a->vd_built = 1;
		a->vd_maxaggid = m->maxaggid;
		a->vd_naggs = m->aggs.n;
		for (id = 1; id != 0 && id <= m->maxaggid; id++) {
			const dtc_aggdesc *d = dtcp_meta_agg(m, id);
			const char *why;

			if (d == NULL || d->varid == 0 || check_desc(d, &why))
				continue;
			if (grow(&a->vdescs, &cap, n + 1, sizeof(*a->vdescs))) {
				a->vd_built = 0;
				break;
			}
			a->vdescs[n].varid = d->varid;
			a->vdescs[n].desc = d;
			n++;
		}
		if (a->vd_built && n > 0) {
			qsort(a->vdescs, n, sizeof(*a->vdescs), vdesccmp);
			a->nvdescs = n;
		}
	}
	lo = 0;
	hi = a->nvdescs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->vdescs[mid].varid < varid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->nvdescs && a->vdescs[lo].varid == varid)
		return a->vdescs[lo].desc;
	return NULL;
}

static void
fill_var(dtc_aggvar *v, int64_t varid, const dtc_aggdesc *d)
{
	memset(v, 0, sizeof(*v));
	v->varid = varid;
	v->name = "";
	if (d == NULL)
		return;
	v->name = d->name != NULL ? d->name : "";
	v->func = valrec(d)->action;
	v->arg = valrec(d)->arg;
	v->nkeys = d->nrecs - 2;
	v->keys = v->nkeys != 0 ? &d->recs[1] : NULL;
}

/*
 * Whether a variable describes the key records of an entry's desc.  The
 * statements of one variable have the same keys in anything D compiles;
 * a capture that says otherwise gets a variable per odd row, so that a
 * row's var->nkeys always counts its own decoded keys.
 */
static int
var_fits(const dtc_aggvar *v, const dtc_aggdesc *d)
{
	uint32_t j;

	if (v->nkeys != d->nrecs - 2)
		return 0;
	for (j = 0; j < v->nkeys; j++)
		if (v->keys[j].action != d->recs[j + 1].action ||
		    v->keys[j].size != d->recs[j + 1].size ||
		    v->keys[j].arg != d->recs[j + 1].arg)
			return 0;
	return 1;
}

static void
fill_val(dtc_aggval *v, const struct agg_ent *e, int swap)
{
	const dtc_recdesc *vr = valrec(e->desc);

	memset(v, 0, sizeof(*v));
	v->func = vr->action;
	v->size = vr->size;
	v->data = e->data + vr->offset;   /* the capture's byte order */
	v->normal = e->normal;
	v->swapped = swap;
}

static void
decode_keys(dtc_value *out, const struct agg_ent *e, int swap)
{
	const dtc_aggdesc *d = e->desc;
	uint32_t k;

	for (k = 0; k + 2 < d->nrecs; k++) {
		const dtc_recdesc *rd = &d->recs[k + 1];

		memset(&out[k], 0, sizeof(out[k]));
		dtcp_decode_value(rd, e->data + rd->offset, rd->size, swap,
		    &out[k]);
	}
}

static void
mark_printed(dtcp_aggstate *a, const struct agg_ent *e)
{
	(void)idset_add(&a->printed, e->desc->id);
}

/* Rows of one variable from sorted entries v[0..n-1]. */
static const dtc_aggprint *
print_one(dtcp_aggstate *a, const dtcp_capture *r, struct agg_ent **v,
    size_t n, int64_t varid, const dtc_aggdesc *d, const dtc_format *fmt,
    int at_exit, dtc_error *err)
{
	int swap = r->swap;
	size_t i, nk = 0, kpos = 0;

	for (i = 0; i < n; i++)
		nk += v[i]->desc->nrecs - 2;
	if (grow(&a->vars, &a->capvars, n > 0 ? n : 1, sizeof(*a->vars)) ||
	    grow(&a->rows, &a->caprows, n, sizeof(*a->rows)) ||
	    grow(&a->keys, &a->capkeys, nk, sizeof(*a->keys)) ||
	    grow(&a->vals, &a->capvals, n, sizeof(*a->vals))) {
		dtcp_error_set(err, DTC_E_NOMEM, r->source, -1, -1,
		    -1, "out of memory printing aggregation");
		return NULL;
	}
	fill_var(&a->vars[0], varid, n > 0 ? v[0]->desc : d);
	for (i = 0; i < n; i++) {
		a->rows[i].var = &a->vars[0];
		if (!var_fits(&a->vars[0], v[i]->desc)) {
			fill_var(&a->vars[i], varid, v[i]->desc);
			a->rows[i].var = &a->vars[i];
		}
		a->rows[i].keys = a->keys != NULL ? &a->keys[kpos] : NULL;
		a->rows[i].vals = &a->vals[i];
		if (a->keys != NULL)    /* no key anywhere: no array */
			decode_keys(&a->keys[kpos], v[i], swap);
		kpos += v[i]->desc->nrecs - 2;
		fill_val(&a->vals[i], v[i], swap);
		if (!at_exit)
			mark_printed(a, v[i]);
	}
	a->ap.nvars = 1;
	a->ap.vars = a->vars;
	a->ap.fmt = fmt;
	a->ap.nrows = n;
	a->ap.rows = a->rows;
	a->ap.at_exit = at_exit;
	return &a->ap;
}

/* by varid, then slot: the first slot of a variable comes first */
static int
vposcmp(const void *l, const void *r)
{
	const struct vpos *a = l, *b = r;

	if (a->varid != b->varid)
		return a->varid < b->varid ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Slot of a variable in the rotated order, or -1 (the map of libdtrace). */
static int
vpos_find(const dtcp_aggstate *a, size_t n, int64_t varid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->vpos[mid].varid < varid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && a->vpos[lo].varid == varid)
		return (int)a->vpos[lo].pos;
	return -1;
}

/* dtrace_aggregate_walk_joined */
static const dtc_aggprint *
print_joined(dtcp_aggstate *a, const dtcp_capture *r, const int64_t *varids,
    uint32_t nv, const dtc_format *fmt, dtc_error *err)
{
	const dtcp_options *o = (&r->opts);
	int swap = r->swap;
	int64_t sp = o->v[DTCP_OPT_AGGSORTPOS];
	uint32_t sortpos, i, j, nvpos = 0;
	size_t k, nent = 0, nb = 0, nk = 0, zbytes = 0, start;
	struct sortctx c;
	struct agg_ent *e;

	/* sortpos: 0 when unset or past the variables (negative too) */
	sortpos = (sp == DTC_OPT_UNSET || sp < 0 || sp >= nv) ? 0 :
	    (uint32_t)sp;
	ctx_plain(&c, r);
	if (grow(&a->vpos, &a->capvpos, nv, sizeof(*a->vpos)) ||
	    grow(&a->remap, &a->capremap, nv, sizeof(*a->remap)) ||
	    grow(&a->zents, &a->capzents, nv, sizeof(*a->zents)) ||
	    grow(&a->vars, &a->capvars, nv, sizeof(*a->vars)))
		goto nomem;

	/*
	 * Slot i holds varids[(i + sortpos) % nv].  A variable named twice
	 * takes its later slots from its first one (remap); vpos keeps the
	 * first slot of each variable, sorted by varid.
	 */
	for (i = 0; i < nv; i++) {
		a->vpos[i].varid = varids[(i + sortpos) % nv];
		a->vpos[i].pos = i;
		a->remap[i] = 0;
		memset(&a->zents[i], 0, sizeof(a->zents[i]));
	}
	qsort(a->vpos, nv, sizeof(*a->vpos), vposcmp);
	for (i = 0; i < nv; i++) {
		if (nvpos > 0 && a->vpos[nvpos - 1].varid == a->vpos[i].varid) {
			a->remap[a->vpos[i].pos] = a->vpos[nvpos - 1].pos + 1;
			continue;
		}
		a->vpos[nvpos++] = a->vpos[i];
	}

	/* entries of the variables; the newest one is each prototype */
	for (k = a->nents; k-- > 0;) {
		int p;

		e = &a->ents[k];
		if (e->dead || (p = vpos_find(a, nvpos, e->varid)) < 0)
			continue;
		if (a->zents[p].desc == NULL) {
			a->zents[p].desc = e->desc;
			a->zents[p].normal = e->normal;
			a->zents[p].size = e->size;
			a->zents[p].data = e->data;   /* prototype, for now */
		}
		nent++;
	}

	/* variables with no entry at all: their first aggdesc */
	for (i = 0; i < nv; i++) {
		if (a->zents[i].desc != NULL || a->remap[i] != 0)
			continue;
		/*
		 * libdtrace looks up aggvars[(i - sortpos) mod n] here, which
		 * is another variable when sortpos != 0 and n > 2, and then
		 * mixes value types in its comparisons; use slot i's own.
		 */
		a->zents[i].desc = find_desc(a, r, varids[(i + sortpos) % nv]);
		a->zents[i].normal = 1;
		a->zents[i].data = NULL;
		if (a->zents[i].desc != NULL)
			a->zents[i].size = a->zents[i].desc->size;
	}
	/* a variable named twice: later slots describe it as the first */
	for (i = 0; i < nv; i++) {
		if (a->remap[i] != 0)
			a->zents[i] = a->zents[a->remap[i] - 1];
	}
	for (i = 0; i < nv; i++) {
		const dtc_aggdesc *d = a->zents[(i + nv - sortpos) % nv].desc;

		fill_var(&a->vars[i], varids[i], d);
	}
	if (nent == 0)
		goto done;
	/* no desc anywhere (anonymous): the first known format stands in */
	for (i = 0; i < nv; i++) {
		if (a->zents[i].desc != NULL)
			continue;
		for (j = 0; j < nv && a->zents[j].desc == NULL; j++)
			;
		a->zents[i] = a->zents[j];
	}

	/* zero-filled values: varid at rec 0, histogram parameters kept */
	for (i = 0; i < nv; i++)
		zbytes += (a->zents[i].size + 7) & ~(size_t)7;
	if (grow(&a->zdata, &a->capzdata, zbytes, 1))
		goto nomem;
	memset(a->zdata, 0, zbytes);
	zbytes = 0;
	for (i = 0; i < nv; i++) {
		struct agg_ent *z = &a->zents[i];
		const dtc_aggdesc *d = z->desc;
		const dtc_recdesc *vr = valrec(d);
		uint8_t *zd = a->zdata + zbytes;
		uint64_t larg;

		zbytes += (z->size + 7) & ~(size_t)7;
		dtcp_st64(zd + d->recs[0].offset,
		    (uint64_t)varids[(i + sortpos) % nv], swap);
		if (vr->action == DTC_AGG_LQUANTIZE ||
		    (vr->action == DTC_AGG_LLQUANTIZE && llq_keeps_arg(r))) {
			/* FreeBSD keeps only lquantize's parameters */
			if (z->data != NULL)
				larg = dtcp_ld64(z->data + vr->offset, swap);
			else
				larg = vr->arg;
			dtcp_st64(zd + vr->offset, larg, swap);
		}
		z->data = zd;
		z->varid = varids[(i + sortpos) % nv];
		z->idx = UINT32_MAX;
		prep_sortval(z, swap, c.llq_sv);
	}

	/* sort by key then variable, plain (no options), and bundle */
	if (grow(&a->sorted, &a->capsorted, nent, sizeof(*a->sorted)))
		goto nomem;
	nent = 0;
	for (k = a->nents; k-- > 0;) {
		e = &a->ents[k];
		if (!e->dead && vpos_find(a, nvpos, e->varid) >= 0) {
			prep_sortval(e, swap, c.llq_sv);
			a->sorted[nent++] = e;
		}
	}
	qsort_r(a->sorted, nent, sizeof(*a->sorted), keyvarcmp, &c);
	if (grow(&a->slots, &a->capslots, nent * ((size_t)nv + 1),
	    sizeof(*a->slots)) ||
	    grow(&a->bundles, &a->capbundles, nent, sizeof(*a->bundles)))
		goto nomem;
	for (k = 1, start = 0; k <= nent; k++) {
		struct agg_ent **b;

		if (k < nent && keycmp(&c, a->sorted[k], a->sorted[k - 1]) == 0)
			continue;
		b = &a->slots[nb * ((size_t)nv + 1)];
		memset(b, 0, ((size_t)nv + 1) * sizeof(*b));
		for (; start < k; start++) {
			e = a->sorted[start];
			b[vpos_find(a, nvpos, e->varid)] = e;
			if (b[nv] == NULL)
				b[nv] = e;   /* lowest varid: representative */
		}
		for (i = 0; i < nv; i++) {
			if (b[i] != NULL)
				continue;
			b[i] = a->remap[i] ? b[a->remap[i] - 1] : &a->zents[i];
		}
		a->bundles[nb++] = b;
	}

	/* the bundles in the options' order */
	ctx_options(&c, r);
	c.nvars = nv;
	qsort_r(a->bundles, nb, sizeof(*a->bundles), bundlecmp, &c);

	for (k = 0; k < nb; k++)
		nk += a->bundles[k][nv]->desc->nrecs - 2;
	if (grow(&a->rows, &a->caprows, nb, sizeof(*a->rows)) ||
	    grow(&a->keys, &a->capkeys, nk, sizeof(*a->keys)) ||
	    grow(&a->vals, &a->capvals, nb * (size_t)nv, sizeof(*a->vals)) ||
	    grow(&a->vars, &a->capvars, nv + nb, sizeof(*a->vars)))
		goto nomem;
	nk = 0;
	for (k = 0; k < nb; k++) {
		struct agg_ent **b = a->bundles[k];
		dtc_aggrow *row = &a->rows[k];

		row->keys = a->keys != NULL ? &a->keys[nk] : NULL;
		if (a->keys != NULL)
			decode_keys(&a->keys[nk], b[nv], swap);
		nk += b[nv]->desc->nrecs - 2;
		row->vals = &a->vals[k * nv];
		/* printa order undoes the rotation */
		for (j = 0; j < nv; j++) {
			e = b[(j + nv - sortpos) % nv];
			fill_val(&a->vals[k * nv + j], e, swap);
			mark_printed(a, e);
		}
		/* the variable whose entry gave the keys */
		row->var = &a->vars[((uint32_t)vpos_find(a, nvpos,
		    b[nv]->varid) + sortpos) % nv];
		if (!var_fits(row->var, b[nv]->desc)) {
			fill_var(&a->vars[nv + k], b[nv]->varid, b[nv]->desc);
			row->var = &a->vars[nv + k];
		}
	}
done:
	a->ap.nvars = nv;
	a->ap.vars = a->vars;
	a->ap.fmt = fmt;
	a->ap.nrows = nb;
	a->ap.rows = a->rows;
	a->ap.at_exit = 0;
	return &a->ap;
nomem:
	dtcp_error_set(err, DTC_E_NOMEM, r->source, -1, -1, -1,
	    "out of memory printing aggregations");
	return NULL;
}

const dtc_aggprint *
dtcp_agg_printa(dtcp_aggstate *a, const dtcp_capture *r,
    const int64_t *varids, uint32_t nvars, const dtc_format *fmt,
    dtc_error *err)
{
	struct sortctx c;
	size_t i, n = 0;
	uint32_t j;

	if (nvars == 0 || varids == NULL) {
		dtcp_error_set(err, DTC_E_BADAGG, r->source, -1, -1,
		    -1, "printa without an aggregation");
		return NULL;
	}
	for (j = 0; j < nvars; j++) {
		if (varids[j] <= 0) {
			/* EDT_BADAGGVAR */
			dtcp_error_set(err, DTC_E_BADVALUE, r->source,
			    -1, -1, -1, "printa of invalid aggregation "
			    "variable id %lld", (long long)varids[j]);
			return NULL;
		}
	}
	if (nvars > 1)
		return print_joined(a, r, varids, nvars, fmt, err);

	for (i = 0; i < a->nents; i++) {
		if (ent_is(&a->ents[i], varids[0]))
			n++;
	}
	if (grow(&a->sorted, &a->capsorted, n, sizeof(*a->sorted))) {
		dtcp_error_set(err, DTC_E_NOMEM, r->source, -1, -1,
		    -1, "out of memory printing aggregation");
		return NULL;
	}
	n = 0;
	for (i = 0; i < a->nents; i++) {
		if (ent_is(&a->ents[i], varids[0]))
			a->sorted[n++] = &a->ents[i];
	}
	ctx_options(&c, r);
	sort_default(a->sorted, n, &c);
	return print_one(a, r, a->sorted, n, varids[0],
	    n == 0 ? find_desc(a, r, varids[0]) : NULL, fmt, 0, err);
}

/*
 * The walk is sorted once, when *cursor is 0, and then handed out one
 * variable per call; the state must not change (snap, trunc) until it
 * has returned NULL.  Nothing is marked printed: dtrace(1) prints at exit
 * with "all unprinted" set, which never sets the flag.
 */
const dtc_aggprint *
dtcp_agg_exit_next(dtcp_aggstate *a, const dtcp_capture *r, size_t *cursor)
{
	struct sortctx c;
	size_t i, n, start;

	if (*cursor == 0) {
		/* one sorted walk over every entry not printed by printa */
		a->nexit = 0;
		for (i = 0, n = 0; i < a->nents; i++) {
			if (!a->ents[i].dead &&
			    !idset_has(&a->printed, a->ents[i].desc->id))
				n++;
		}
		if (grow(&a->exitlist, &a->capexit, n, sizeof(*a->exitlist)))
			return NULL;
		for (i = 0; i < a->nents; i++) {
			if (!a->ents[i].dead &&
			    !idset_has(&a->printed, a->ents[i].desc->id))
				a->exitlist[a->nexit++] = &a->ents[i];
		}
		ctx_options(&c, r);
		sort_default(a->exitlist, a->nexit, &c);
	}
	start = *cursor;
	if (start >= a->nexit)
		return NULL;
	/* the walk is sorted by variable first: take one run */
	for (n = start + 1; n < a->nexit &&
	    a->exitlist[n]->varid == a->exitlist[start]->varid; n++)
		;
	*cursor = n;
	return print_one(a, r, &a->exitlist[start], n - start,
	    a->exitlist[start]->varid, NULL, NULL, 1, NULL);
}

/* Every live entry, in creation order (for --merge-aggs). */
void
dtcp_agg_foreach(const dtcp_aggstate *a, dtcp_agg_visit_f *visit, void *arg)
{
	size_t i;

	for (i = 0; i < a->nents; i++) {
		const struct agg_ent *e = &a->ents[i];

		if (!e->dead)
			visit(e->desc, e->data, e->size, e->normal, arg);
	}
}
