/*
 * v2.c - DTrace v2 (DTrace for Linux, dtrace-utils) captures: statement,
 * aggregation and snapshot items turned into the tables and buffers the
 * rest of the library decodes (see dtsnap(5), DTRACE V2 ITEMS).
 *
 * A v2 record names its probe and its statement separately (one clause
 * can fire under several probes), so the enabled probe that the walker
 * and the record decoder work with is made per (probe, statement) pair
 * at its first record.  Its EPID is the statement id: the one number a
 * v2 record set has for "which clause".
 *
 * v2 aggregation entries are a key (the aggregation id first, then the
 * key records) and a data block (a generation counter, then the value);
 * the engine reads the legacy entry (id, keys, value), so each snapshot
 * entry is laid out again that way: key bytes as they are, then the
 * value, with lquantize/llquantize parameters in front of their buckets
 * as the legacy kernel keeps them.  Function codes are renumbered to the
 * legacy ones (dtrace-utils sorts its DT_AGG_* by name).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "decoders.h"

/* dtrace-utils' action codes that differ from legacy ones */
#define V2_ACT_PCAP  7
#define V2_ACT_PRINT 8
#define V2_AGG_BASE  0x0700   /* DT_AGG_AVG; then by name */
#define KEYBASE      16       /* where the v2 key goes in a legacy entry */

typedef struct v2probe {
	uint32_t prid;
	dtcp_eprobe *ep;
	int told;               /* "no probe item" reported */
} v2probe;

typedef struct dtcp_v2stmt {
	uint32_t id;
	uint64_t uarg;
	uint32_t size;          /* what its recdescs need, header included */
	uint32_t nrecs;
	dtc_recdesc *recs;      /* actions in legacy numbering */
	int bad;
	v2probe *eps;           /* the probes it fired under so far */
	size_t neps, capeps;
} dtcp_v2stmt;

typedef struct dtcp_v2agg {
	dtc_aggdesc d;          /* the legacy layout (first: the meta's
	                         * aggs table hands out &d) */
	uint32_t ksize, dsize;
	uint32_t voff, vsize;   /* the value inside the v2 data block */
	uint32_t pre;           /* 8: the parameter word goes in front */
	uint64_t sig;
} dtcp_v2agg;

/* ------------------------------------------------------------ items */

static int
bad(const dtcp_container *c, const dtcp_item *it, const dtcp_node *n,
    dtc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int
bad(const dtcp_container *c, const dtcp_item *it, const dtcp_node *n,
    dtc_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, dtcp_container_source(c), it->index,
	    (long long)(n != NULL ? n->offset : it->offset), -1, fmt, ap);
	va_end(ap);
	return DTC_WARN;
}

static int
nomem(const dtcp_container *c, const dtcp_item *it, dtc_error *err)
{
	dtcp_error_set(err, DTC_E_NOMEM, dtcp_container_source(c), it->index,
	    (long long)it->offset, -1, "out of memory");
	return DTC_FATAL;
}

static int
get_u32(const dtcp_container *c, const dtcp_item *it, const dtcp_node *map,
    const char *key, int required, uint32_t *out, uint64_t max,
    dtc_error *err)
{
	uint64_t v = 0;
	int rc = dtcp_get_u64(c, it, map, key, required, &v, err);

	if (rc == DTC_EOF)
		return DTC_OK;
	if (rc != DTC_OK)
		return DTC_WARN;
	if (v > max)
		return bad(c, it, dtcp_map_get(map, key), err, DTC_E_LIMIT,
		    "%s item: %s %llu is out of range (at most %llu)", it->kind,
		    key, (unsigned long long)v, (unsigned long long)max);
	*out = (uint32_t)v;
	return DTC_OK;
}

/*
 * Whether dtrace-utils defines action a (include/dtrace/actions_defines.h:
 * 0-8, then the classes 0x01-0x07 by their members).  An action it does
 * not define is printed by dt_consume_one_probe's fallback,
 * dt_print_trace, as trace() data; the decoder does the same (record.c
 * takes it as data by its size), and says so, since no real statement
 * has one.
 */
static int
v2_known_action(uint16_t a)
{
	switch (a & 0xff00) {
	case 0x0000: return a <= V2_ACT_PRINT;
	case 0x0100: return a >= 0x0101 && a <= 0x0105;
	case 0x0200: return a >= 0x0201 && a <= 0x0204;
	case 0x0400: return a >= 0x0401 && a <= 0x0403;
	case 0x0500: return a >= 0x0501 && a <= 0x0503;
	case 0x0600: return a >= 0x0601 && a <= 0x0603;
	case 0x0700: return 1;
	default: return 0;
	}
}

static uint16_t
map_action(uint16_t a)
{
	if (a == V2_ACT_PCAP)
		return 0xfe07;          /* no legacy meaning: raw bytes */
	if (a == V2_ACT_PRINT)
		return DTC_ACT_PRINTT;  /* typed print(): raw until CTF */
	return a;
}

static uint16_t
map_aggfunc(uint16_t f)
{
	static const uint16_t legacy[] = {
		DTC_AGG_AVG, DTC_AGG_COUNT, DTC_AGG_LLQUANTIZE,
		DTC_AGG_LQUANTIZE, DTC_AGG_MAX, DTC_AGG_MIN, DTC_AGG_QUANTIZE,
		DTC_AGG_STDDEV, DTC_AGG_SUM
	};

	if (f >= V2_AGG_BASE && f - V2_AGG_BASE < 9)
		return legacy[f - V2_AGG_BASE];
	return 0xfe00 | (f & 0xff);     /* unknown: the engine refuses it */
}

static int
load_stmt(dtcp_meta *m, const dtcp_container *c, const dtcp_item *it,
    dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0];
	dtcp_v2stmt *s, *old;
	uint64_t uarg = 0;
	uint32_t i, end;
	int rc;

	if ((s = dtcp_arena_alloc(&m->arena, sizeof(*s))) == NULL)
		return nomem(c, it, err);
	memset(s, 0, sizeof(*s));
	if ((rc = get_u32(c, it, map, "id", 1, &s->id, DTCP_MAX_ID, err)) !=
	    DTC_OK)
		return rc;
	rc = dtcp_get_u64(c, it, map, "uarg", 0, &uarg, err);
	if (rc != DTC_OK && rc != DTC_EOF)
		return DTC_WARN;
	s->uarg = uarg;
	if ((rc = dtcp_meta_load_recs(m, c, it, map, "recs", &s->nrecs,
	    &s->recs, err)) != DTC_OK)
		return rc;
	if ((old = dtcp_idmap_get(&m->stmts, s->id)) != NULL) {
		if (old->nrecs == s->nrecs && (s->nrecs == 0 ||
		    memcmp(old->recs, s->recs, s->nrecs * sizeof(*s->recs)) ==
		    0))
			return DTC_OK;
		return bad(c, it, map, err, DTC_E_DUPLICATE, "statement %u "
		    "described twice; the first is kept", s->id);
	}
	end = DTCP_V2_RECHDR;
	for (i = 0; i < s->nrecs; i++) {
		dtc_recdesc *r = &s->recs[i];

		if (!v2_known_action(r->action) && rc == DTC_OK)
			rc = bad(c, it, map, err, DTC_E_BADRECDESC, "statement "
			    "%u: record %u has action %u, which DTrace v2 does "
			    "not define; shown as trace() data, as dtrace "
			    "prints it", s->id, i, r->action);
		r->action = map_action(r->action);
		/* the records of one printa() share their arg (legacy: uarg) */
		if (r->action == DTC_ACT_PRINTA)
			r->uarg = r->arg;
		if (r->size != 0 && r->offset < DTCP_V2_RECHDR) {
			s->bad = 1;
			rc = bad(c, it, map, err, DTC_E_BADRECDESC, "statement "
			    "%u: record %u (offset %u) lies inside the %d-byte "
			    "record header", s->id, i, r->offset,
			    DTCP_V2_RECHDR);
		}
		if (r->offset + r->size > end)
			end = r->offset + r->size;
	}
	s->size = end;
	if (dtcp_idmap_put(&m->stmts, s->id, s) != 0)
		return nomem(c, it, err);
	return rc;
}

static int
load_aggdesc(dtcp_meta *m, const dtcp_container *c, const dtcp_item *it,
    dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0];
	const dtcp_v2agg *old;
	dtcp_v2agg *a;
	dtc_aggdesc *d;
	dtc_recdesc *krecs, *drecs, *recs, *vr;
	uint32_t nk, nd, i, fn, k0;
	int64_t varid = 0;
	int rc;

	if ((a = dtcp_arena_alloc(&m->arena, sizeof(*a))) == NULL)
		return nomem(c, it, err);
	memset(a, 0, sizeof(*a));
	d = &a->d;
	if ((rc = get_u32(c, it, map, "id", 1, &d->id, DTCP_MAX_ID, err)) !=
	    DTC_OK ||
	    (rc = get_u32(c, it, map, "flags", 0, &d->flags, UINT32_MAX,
	    err)) != DTC_OK ||
	    (rc = get_u32(c, it, map, "ksize", 1, &a->ksize, DTCP_MAX_RECSIZE,
	    err)) != DTC_OK ||
	    (rc = get_u32(c, it, map, "dsize", 1, &a->dsize, DTCP_MAX_RECSIZE,
	    err)) != DTC_OK)
		return rc;
	if (dtcp_get_i64(c, it, map, "varid", 1, &varid, err) != DTC_OK)
		return DTC_WARN;
	d->varid = varid;
	if (dtcp_get_u64(c, it, map, "sig", 0, &a->sig, err) == DTC_FAILED)
		return DTC_WARN;
	{
		const char *s = "";
		size_t len = 0;

		rc = dtcp_get_text(c, it, map, "name", 0, &s, &len, err);
		if (rc != DTC_OK && rc != DTC_EOF)
			return DTC_WARN;
		if ((d->name = dtcp_arena_strndup(&m->arena, s, len)) == NULL)
			return nomem(c, it, err);
	}
	if (d->id == 0)
		return bad(c, it, map, err, DTC_E_BADVALUE, "aggdesc item: id 0 "
		    "is DTRACE_AGGIDNONE");
	if ((rc = dtcp_meta_load_recs(m, c, it, map, "krecs", &nk, &krecs,
	    err)) != DTC_OK ||
	    (rc = dtcp_meta_load_recs(m, c, it, map, "drecs", &nd, &drecs,
	    err)) != DTC_OK)
		return rc;
	/* drecs[0] the generation counter, drecs[1] the value */
	if (nd < 2)
		return bad(c, it, map, err, DTC_E_BADVALUE, "aggregation %u has "
		    "%u data records; it needs the counter and a value", d->id,
		    nd);
	if (a->ksize < 4 || a->ksize > DTCP_MAX_RECSIZE / 2 ||
	    a->dsize > DTCP_MAX_RECSIZE / 2)
		return bad(c, it, map, err, DTC_E_BADVALUE, "aggregation %u: "
		    "key size %u / data size %u out of range", d->id, a->ksize,
		    a->dsize);
	for (i = 0; i < nk; i++)
		if ((uint64_t)krecs[i].offset + krecs[i].size > a->ksize)
			return bad(c, it, map, err, DTC_E_BADRECDESC,
			    "aggregation %u: key record %u lies outside the "
			    "%u-byte key", d->id, i, a->ksize);
	for (i = 0; i < nd; i++)
		if ((uint64_t)drecs[i].offset + drecs[i].size > a->dsize)
			return bad(c, it, map, err, DTC_E_BADRECDESC,
			    "aggregation %u: data record %u lies outside the "
			    "%u-byte data", d->id, i, a->dsize);
	fn = map_aggfunc(drecs[1].action);
	a->voff = drecs[1].offset;
	a->vsize = drecs[1].size;
	a->pre = fn == DTC_AGG_LQUANTIZE || fn == DTC_AGG_LLQUANTIZE ? 8 : 0;
	/*
	 * The legacy layout: the aggregation id word, an 8-byte variable id
	 * record (the engine's identity starts with it), the v2 key from
	 * its first tuple record on at KEYBASE + its offset, the value 8-
	 * aligned after it.  krecs[0] is the v2 key's own variable id word.
	 */
	k0 = nk > 0 && krecs[0].offset == 0 && krecs[0].size == 4 ? 1 : 0;
	d->nrecs = nk - k0 + 2;
	if ((recs = dtcp_arena_alloc(&m->arena, d->nrecs * sizeof(*recs))) ==
	    NULL)
		return nomem(c, it, err);
	memset(recs, 0, d->nrecs * sizeof(*recs));
	recs[0].action = DTC_ACT_DIFEXPR;
	recs[0].size = 8;
	recs[0].offset = 8;
	recs[0].alignment = 8;
	for (i = k0; i < nk; i++) {
		dtc_recdesc *r = &recs[i - k0 + 1];

		*r = krecs[i];
		r->action = map_action(krecs[i].action);
		r->offset = KEYBASE + krecs[i].offset;
	}
	vr = &recs[d->nrecs - 1];
	*vr = drecs[1];
	vr->action = (uint16_t)fn;
	vr->offset = (KEYBASE + a->ksize + 7) & ~7u;
	vr->size = a->vsize + a->pre;
	vr->arg = a->sig;
	d->size = vr->offset + vr->size;
	d->recs = recs;
	if ((old = (const dtcp_v2agg *)dtcp_meta_agg(m, d->id)) != NULL) {
		/* one description per id: the first; a repeat is no news */
		if (old->ksize == a->ksize && old->dsize == a->dsize &&
		    old->sig == a->sig && old->d.varid == d->varid &&
		    old->d.nrecs == d->nrecs && memcmp(old->d.recs, d->recs,
		    d->nrecs * sizeof(*d->recs)) == 0)
			return DTC_OK;
		return bad(c, it, map, err, DTC_E_DUPLICATE, "aggregation %u "
		    "described twice; the first is kept", d->id);
	}
	if (dtcp_idmap_put(&m->aggs, d->id, d) != 0)
		return nomem(c, it, err);
	if (d->id > m->maxaggid)
		m->maxaggid = d->id;
	return DTC_OK;
}

int
dtcp_v2_add_item(dtcp_meta *m, const dtcp_container *c, const dtcp_item *it,
    dtc_error *err)
{
	if (strcmp(it->kind, "stmt") == 0)
		return load_stmt(m, c, it, err);
	if (strcmp(it->kind, "aggdesc") == 0)
		return load_aggdesc(m, c, it, err);
	return DTC_EOF;
}

/* ------------------------------------------------------------ records */

const dtc_eprobedesc *
dtcp_v2_eprobe(dtcp_meta *m, uint32_t prid, uint32_t stid, int *nomem_p)
{
	dtcp_v2stmt *s = dtcp_idmap_get(&m->stmts, stid);
	dtcp_eprobe *e;
	size_t i;

	*nomem_p = 0;
	if (s == NULL)
		return NULL;
	for (i = 0; i < s->neps; i++)
		if (s->eps[i].prid == prid) {
			e = s->eps[i].ep;
			if (e->d.probe == NULL)
				e->d.probe = dtcp_meta_probe(m, prid);
			return &e->d;
		}
	if (s->neps == s->capeps) {
		size_t cap = s->capeps ? s->capeps * 2 : 4;
		v2probe *p = realloc(s->eps, cap * sizeof(*p));

		if (p == NULL)
			goto nomem;
		s->eps = p;
		s->capeps = cap;
	}
	if ((e = dtcp_arena_alloc(&m->arena, sizeof(*e))) == NULL)
		goto nomem;
	memset(e, 0, sizeof(*e));
	e->d.epid = stid;
	e->d.probeid = prid;
	e->d.uarg = 0;          /* ERROR records come as fault items */
	e->d.size = s->size;
	e->d.nrecs = s->nrecs;
	e->d.recs = s->recs;
	e->d.probe = dtcp_meta_probe(m, prid);
	e->bad = s->bad;
	for (i = 0; i < s->nrecs && s->recs[i].format == 0; i++)
		;
	if (i < s->nrecs) {
		e->fmts = dtcp_arena_alloc(&m->arena, s->nrecs * sizeof(*e->fmts));
		if (e->fmts == NULL)
			goto nomem;
		memset(e->fmts, 0, s->nrecs * sizeof(*e->fmts));
	}
	s->eps[s->neps].prid = prid;
	s->eps[s->neps].ep = e;
	s->eps[s->neps].told = 0;
	s->neps++;
	return &e->d;
nomem:
	*nomem_p = 1;
	return NULL;
}

int
dtcp_v2_tell_noprobe(dtcp_meta *m, const dtc_eprobedesc *ep)
{
	dtcp_v2stmt *s = dtcp_idmap_get(&m->stmts, ep->epid);
	size_t i;

	for (i = 0; s != NULL && i < s->neps; i++)
		if (&s->eps[i].ep->d == ep) {
			if (s->eps[i].told)
				return 0;
			s->eps[i].told = 1;
			return 1;
		}
	return 0;
}

/* ------------------------------------------------------------ aggsnap */

/* Why entry e of an aggsnap cannot be used, or NULL; *ap its aggdesc. */
static const char *
bad_entry(const dtcp_meta *m, const dtcp_node *e, int swap,
    const dtcp_v2agg **ap, int *code)
{
	const dtcp_node *id, *k, *d;
	const dtcp_v2agg *a;

	*code = DTC_E_KEYTYPE;
	if (e->type != DTCP_N_ARRAY || e->count != 3 ||
	    (id = dtcp_first_child(e))->type != DTCP_N_UINT ||
	    (k = dtcp_next_sibling(id))->type != DTCP_N_BYTES ||
	    (d = dtcp_next_sibling(k))->type != DTCP_N_BYTES)
		return "is not [aggid, key bytes, data bytes]";
	*code = DTC_E_BADAGGID;
	if (id->u > UINT32_MAX || id->u == 0 ||
	    (a = (const dtcp_v2agg *)dtcp_meta_agg(m, (uint32_t)id->u)) ==
	    NULL)
		return "names an unknown aggregation";
	*code = DTC_E_BADAGG;
	if (k->len != a->ksize || d->len != a->dsize ||
	    (k->len >= 4 && dtcp_ld32(k->ptr, swap) != a->d.id))
		return "does not have the key and data sizes of its "
		    "aggregation, aggregation id first";
	*ap = a;
	return NULL;
}

int
dtcp_v2_aggsnap(const dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, int swap, uint8_t **buf, size_t *len, size_t *cap,
    dtc_error *err)
{
	const dtcp_node *arr, *e, **ents = NULL, *first = NULL;
	const dtcp_v2agg **aggs = NULL;
	const char *why = NULL, *w;
	uint32_t i, n = 0, nbad = 0, firsti = 0;
	int rc = DTC_OK, code, firstcode = 0;

	*len = 0;
	if (dtcp_get_node(c, it, &it->nodes[0], "entries", DTCP_N_ARRAY, 1,
	    &arr, err) != DTC_OK)
		return DTC_WARN;
	if (arr->count == 0)
		return DTC_OK;
	if ((ents = malloc(arr->count * sizeof(*ents))) == NULL ||
	    (aggs = malloc(arr->count * sizeof(*aggs))) == NULL) {
		free(ents);
		return nomem(c, it, err);
	}
	/* first the entries that can be used, in order, and what is not */
	for (i = 0, e = dtcp_first_child(arr); i < arr->count;
	    i++, e = dtcp_next_sibling(e)) {
		if ((w = bad_entry(m, e, swap, &aggs[n], &code)) != NULL) {
			if (nbad++ == 0) {
				why = w;
				first = e;
				firsti = i;
				firstcode = code;
			}
			continue;
		}
		ents[n++] = e;
	}
	if (nbad > 0)
		rc = bad(c, it, first, err, firstcode, "aggsnap item: %u of %u "
		    "entries skipped; the first, entry %u, %s", nbad,
		    arr->count, firsti, why);
	/* recorded newest first (libdtrace's dtah_all): laid out oldest
	 * first, the order the engine creates entries in */
	for (i = n; i-- > 0;) {
		const dtcp_node *k, *d;
		const dtcp_v2agg *a = aggs[i];
		size_t need;
		uint8_t *p;

		k = dtcp_next_sibling(dtcp_first_child(ents[i]));
		d = dtcp_next_sibling(k);
		need = *len + a->d.size;
		if (need > *cap) {
			size_t ncap = *cap ? *cap : 4096;

			while (ncap < need)
				ncap *= 2;
			if ((p = realloc(*buf, ncap)) == NULL) {
				free(ents);
				free(aggs);
				return nomem(c, it, err);
			}
			*buf = p;
			*cap = ncap;
		}
		p = *buf + *len;
		memset(p, 0, a->d.size);
		dtcp_st32(p, a->d.id, swap);
		dtcp_st64(p + 8, (uint64_t)a->d.varid, swap);
		memcpy(p + KEYBASE, k->ptr, k->len);
		p += a->d.size - a->d.recs[a->d.nrecs - 1].size;
		if (a->pre)
			dtcp_st64(p, a->sig, swap);
		memcpy(p + a->pre, d->ptr + a->voff, a->vsize);
		*len = need;
	}
	free(ents);
	free(aggs);
	return rc;
}

void
dtcp_v2_free(dtcp_meta *m)
{
	size_t i;

	for (i = 0; i < m->stmts.cap; i++) {
		dtcp_v2stmt *s = m->stmts.vals != NULL ? m->stmts.vals[i] : NULL;

		if (s != NULL)
			free(s->eps);
	}
	dtcp_idmap_free(&m->stmts);
}
