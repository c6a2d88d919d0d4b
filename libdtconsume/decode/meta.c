/*
 * meta.c - the metadata tables: probes, enabled probes, aggregations,
 * formats and the symbolization context, by id.
 *
 * Ids come from the capture and are untrusted, so tables are hash maps
 * (an EPID of 4 billion costs one slot, not 4 billion) and every count is
 * bounded by DTCP_MAX_*.  Strings are copied into an arena because items
 * read from a pipe do not outlive the next item.
 *
 * A description that is internally inconsistent (a recdesc outside its
 * record) is kept, marked bad, so that the walker can still step over the
 * records of that EPID by their size and decode everything else.
 */
#include <stdlib.h>
#include <string.h>

#include "decoders.h"

/* ------------------------------------------------------------ idmap */

static size_t
slot(uint32_t id, size_t cap)
{
	/* Fibonacci hashing spreads dense small ids well. */
	return (size_t)((id * 2654435769u) & (cap - 1));
}

void *
dtcp_idmap_get(const dtcp_idmap *m, uint32_t id)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = slot(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == NULL)
			return NULL;
		if (m->keys[i] == id)
			return m->vals[i];
	}
}

static int
grow(dtcp_idmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i, j;
	uint32_t *keys = calloc(ncap, sizeof(*keys));
	void **vals = calloc(ncap, sizeof(*vals));

	if (keys == NULL || vals == NULL) {
		free(keys);
		free(vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (m->vals[i] == NULL)
			continue;
		for (j = slot(m->keys[i], ncap); vals[j] != NULL;
		    j = (j + 1) & (ncap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
	return 0;
}

int
dtcp_idmap_put(dtcp_idmap *m, uint32_t id, void *val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
		return -1;
	for (i = slot(id, m->cap); m->vals[i] != NULL;
	    i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == id) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = id;
	m->vals[i] = val;
	m->n++;
	return 0;
}

void
dtcp_idmap_free(dtcp_idmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------ arena */

struct dtcp_arena_chunk {
	struct dtcp_arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

void *
dtcp_arena_alloc(dtcp_arena *a, size_t n)
{
	struct dtcp_arena_chunk *c = a->head;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		if ((c = malloc(sizeof(*c) + cap)) == NULL)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *
dtcp_arena_strndup(dtcp_arena *a, const char *s, size_t n)
{
	char *p = dtcp_arena_alloc(a, n + 1);

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void
dtcp_arena_free(dtcp_arena *a)
{
	struct dtcp_arena_chunk *c, *next;

	for (c = a->head; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

/* ------------------------------------------------------------ items */

typedef struct loadctx {
	dtcp_meta *m;
	const dtcp_container *c;
	const dtcp_item *it;
	dtc_error *err;
} loadctx;

static int
nomem(loadctx *x)
{
	dtcp_error_set(x->err, DTC_E_NOMEM, dtcp_container_source(x->c),
	    x->it->index, (long long)x->it->offset, -1, "out of memory");
	return DTC_FATAL;
}

static int
bad(loadctx *x, const dtcp_node *n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int
bad(loadctx *x, const dtcp_node *n, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(x->err, code, dtcp_container_source(x->c),
	    x->it->index, (long long)(n != NULL ? n->offset : x->it->offset),
	    -1, fmt, ap);
	va_end(ap);
	return DTC_WARN;
}

/* A text value copied into the arena ("" when absent and optional). */
static int
get_str(loadctx *x, const dtcp_node *map, const char *key, int required,
    const char **out)
{
	const char *s = "";
	size_t len = 0;
	int rc;

	rc = dtcp_get_text(x->c, x->it, map, key, required, &s, &len, x->err);
	if (rc != DTC_OK && rc != DTC_EOF)
		return DTC_WARN;
	if ((*out = dtcp_arena_strndup(&x->m->arena, s, len)) == NULL)
		return nomem(x);
	return DTC_OK;
}

static int
get_u32(loadctx *x, const dtcp_node *map, const char *key, int required,
    uint32_t *out, uint64_t max)
{
	uint64_t v = 0;
	int rc = dtcp_get_u64(x->c, x->it, map, key, required, &v, x->err);

	if (rc == DTC_EOF)
		return DTC_OK;
	if (rc != DTC_OK)
		return DTC_WARN;
	if (v > max) {
		const dtcp_node *n = dtcp_map_get(map, key);
		return bad(x, n, DTC_E_LIMIT, "%s item: %s %llu is out of range "
		    "(at most %llu)", x->it->kind, key, (unsigned long long)v,
		    (unsigned long long)max);
	}
	*out = (uint32_t)v;
	return DTC_OK;
}

static int
load_probe(loadctx *x, const dtcp_node *map)
{
	dtc_probedesc *p;
	const dtc_probedesc *old;
	int rc;

	if ((p = dtcp_arena_alloc(&x->m->arena, sizeof(*p))) == NULL)
		return nomem(x);
	p->fullname = NULL;
	if ((rc = get_u32(x, map, "id", 1, &p->id, DTCP_MAX_ID)) != DTC_OK ||
	    (rc = get_str(x, map, "provider", 1, &p->provider)) != DTC_OK ||
	    (rc = get_str(x, map, "module", 0, &p->module)) != DTC_OK ||
	    (rc = get_str(x, map, "function", 0, &p->function)) != DTC_OK ||
	    (rc = get_str(x, map, "name", 1, &p->name)) != DTC_OK)
		return rc;
	if ((old = dtcp_idmap_get(&x->m->probes, p->id)) != NULL) {
		if (strcmp(old->provider, p->provider) != 0 ||
		    strcmp(old->module, p->module) != 0 ||
		    strcmp(old->function, p->function) != 0 ||
		    strcmp(old->name, p->name) != 0)
			return bad(x, map, DTC_E_DUPLICATE, "probe %u described "
			    "twice, differently; the first is kept", p->id);
		return DTC_OK;
	}
	if (dtcp_idmap_put(&x->m->probes, p->id, p) != 0)
		return nomem(x);
	/* every probe line of the structured outputs carries it */
	{
		size_t n[4] = { strlen(p->provider), strlen(p->module),
		    strlen(p->function), strlen(p->name) };
		size_t len = n[0] + n[1] + n[2] + n[3] + 4;
		char *f = dtcp_arena_alloc(&x->m->arena, len);

		if (f == NULL)
			return nomem(x);
		snprintf(f, len, "%s:%s:%s:%s", p->provider, p->module,
		    p->function, p->name);
		p->fullname = f;
	}
	return DTC_OK;
}

/* The recs array of an eprobe or agg item. */
static int
load_reclist(loadctx *x, const dtcp_node *map, const char *key,
    uint32_t *nrecs, dtc_recdesc **recs)
{
	const dtcp_node *arr, *e;
	dtc_recdesc *r;
	uint32_t i;
	uint64_t v;
	int rc;

	rc = dtcp_get_node(x->c, x->it, map, key, DTCP_N_ARRAY, 1, &arr,
	    x->err);
	if (rc != DTC_OK)
		return DTC_WARN;
	if (arr->count > DTCP_MAX_RECS)
		return bad(x, arr, DTC_E_LIMIT, "%s item has %u records (at most "
		    "%u)", x->it->kind, arr->count, DTCP_MAX_RECS);
	*nrecs = arr->count;
	*recs = NULL;
	if (arr->count == 0)
		return DTC_OK;
	r = dtcp_arena_alloc(&x->m->arena, arr->count * sizeof(*r));
	if (r == NULL)
		return nomem(x);
	for (i = 0, e = dtcp_first_child(arr); i < arr->count;
	    i++, e = dtcp_next_sibling(e)) {
		if (e->type != DTCP_N_MAP)
			return bad(x, e, DTC_E_KEYTYPE, "%s item: %s[%u] is not "
			    "a map", x->it->kind, key, i);
#define U(f, field, max, req) do { \
	v = 0; \
	rc = dtcp_get_u64(x->c, x->it, e, f, req, &v, x->err); \
	if (rc != DTC_OK && rc != DTC_EOF) \
		return DTC_WARN; \
	if (v > (max)) \
		return bad(x, e, DTC_E_LIMIT, "%s item: %s[%u].%s %llu is " \
		    "out of range", x->it->kind, key, i, f, \
		    (unsigned long long)v); \
	r[i].field = v; \
} while (0)
		U("action", action, 0xffff, 1);
		U("size", size, DTCP_MAX_RECSIZE, 1);
		U("offset", offset, DTCP_MAX_RECSIZE, 1);
		U("alignment", alignment, 0xffff, 0);
		U("format", format, 0xffff, 0);
		U("arg", arg, UINT64_MAX, 0);
		U("uarg", uarg, UINT64_MAX, 0);
#undef U
	}
	*recs = r;
	return DTC_OK;
}

static int
load_recs(loadctx *x, const dtcp_node *map, uint32_t *nrecs,
    dtc_recdesc **recs)
{
	return load_reclist(x, map, "recs", nrecs, recs);
}

int
dtcp_meta_load_recs(dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, const dtcp_node *map, const char *key,
    uint32_t *nrecs, dtc_recdesc **recs, dtc_error *err)
{
	loadctx x = { m, c, it, err };

	return load_reclist(&x, map, key, nrecs, recs);
}

/*
 * A writer may repeat descriptions (one set per consume pass, say): an
 * identical repetition is no news, only a different one is reported.
 */
static int
same_recs(const dtc_recdesc *a, const dtc_recdesc *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (a[i].action != b[i].action ||
		    a[i].alignment != b[i].alignment ||
		    a[i].format != b[i].format || a[i].size != b[i].size ||
		    a[i].offset != b[i].offset || a[i].arg != b[i].arg ||
		    a[i].uarg != b[i].uarg)
			return 0;
	}
	return 1;
}

static int
same_eprobe(const dtc_eprobedesc *a, const dtc_eprobedesc *b)
{
	return a->probeid == b->probeid && a->size == b->size &&
	    a->uarg == b->uarg && a->nrecs == b->nrecs &&
	    same_recs(a->recs, b->recs, a->nrecs);
}

static int
same_agg(const dtc_aggdesc *a, const dtc_aggdesc *b)
{
	return a->epid == b->epid && a->varid == b->varid &&
	    strcmp(a->name, b->name) == 0 && a->size == b->size &&
	    a->flags == b->flags && a->nrecs == b->nrecs &&
	    same_recs(a->recs, b->recs, a->nrecs);
}

int
dtcp_meta_put_eprobe(dtcp_meta *m, dtcp_eprobe *e)
{
	uint32_t epid = e->d.epid, n;
	dtcp_eprobe **d;

	if (dtcp_idmap_put(&m->eprobes, epid, e) != 0)
		return -1;
	if (epid >= DTCP_DENSE_EPIDS)
		return 0;
	if (epid >= m->ndense) {
		for (n = m->ndense ? m->ndense : 64; n <= epid; n *= 2)
			;
		if ((d = realloc(m->dense, n * sizeof(*d))) == NULL)
			return -1;
		memset(d + m->ndense, 0, (n - m->ndense) * sizeof(*d));
		m->dense = d;
		m->ndense = n;
	}
	m->dense[epid] = e;
	return 0;
}

static int
load_eprobe(loadctx *x, const dtcp_node *map)
{
	dtcp_eprobe *e;
	dtc_eprobedesc *ep;
	const dtc_eprobedesc *old;
	dtc_recdesc *recs;
	uint64_t uarg = 0;
	uint32_t i;
	int rc;

	if ((e = dtcp_arena_alloc(&x->m->arena, sizeof(*e))) == NULL)
		return nomem(x);
	ep = &e->d;
	if ((rc = get_u32(x, map, "epid", 1, &ep->epid, DTCP_MAX_ID)) != DTC_OK ||
	    (rc = get_u32(x, map, "probe", 1, &ep->probeid, UINT32_MAX)) != DTC_OK ||
	    (rc = get_u32(x, map, "size", 1, &ep->size, DTCP_MAX_RECSIZE)) != DTC_OK)
		return rc;
	rc = dtcp_get_u64(x->c, x->it, map, "uarg", 0, &uarg, x->err);
	if (rc != DTC_OK && rc != DTC_EOF)
		return DTC_WARN;
	ep->uarg = uarg;
	if (ep->epid == 0)
		return bad(x, map, DTC_E_BADVALUE, "eprobe item: epid 0 is "
		    "DTRACE_EPIDNONE, the padding word");
	if ((rc = load_recs(x, map, &ep->nrecs, &recs)) != DTC_OK)
		return rc;
	ep->recs = recs;
	ep->probe = dtcp_idmap_get(&x->m->probes, ep->probeid);
	/* before marking anything bad: that would mark the kept one */
	if ((old = dtcp_idmap_get(&x->m->eprobes, ep->epid)) != NULL) {
		if (same_eprobe(old, ep))
			return DTC_OK;
		return bad(x, map, DTC_E_DUPLICATE, "eprobe %u described twice; "
		    "the first is kept", ep->epid);
	}
	/* A record laid out past its own size cannot be decoded; keep the
	 * description (its size still lets the walker step over it). */
	for (i = 0; i < ep->nrecs; i++) {
		/* a record of size 0 (speculate, commit, ...) stores nothing;
		 * in a clause that stores nothing its offset is past size 0 */
		if (recs[i].size != 0 &&
		    (uint64_t)recs[i].offset + recs[i].size > ep->size) {
			e->bad = 1;
			rc = bad(x, map, DTC_E_BADRECDESC, "eprobe %u: record %u "
			    "(offset %u, size %u) lies outside the %u-byte record",
			    ep->epid, i, recs[i].offset, recs[i].size, ep->size);
			break;
		}
	}
	if (ep->size != 0 && ep->size < 4) {
		e->bad = 1;
		rc = bad(x, map, DTC_E_BADVALUE, "eprobe %u: size %u is smaller "
		    "than the EPID word", ep->epid, ep->size);
	}
	for (i = 0; i < ep->nrecs && recs[i].format == 0; i++)
		;
	if (i < ep->nrecs) {
		e->fmts = dtcp_arena_alloc(&x->m->arena,
		    ep->nrecs * sizeof(*e->fmts));
		if (e->fmts == NULL)
			return nomem(x);
	}
	if (dtcp_meta_put_eprobe(x->m, e) != 0)
		return nomem(x);
	return rc;
}

static int
load_agg(loadctx *x, const dtcp_node *map)
{
	dtc_aggdesc *ad;
	const dtc_aggdesc *old;
	dtc_recdesc *recs;
	int64_t varid = 0;
	uint32_t i;
	int rc;

	if ((ad = dtcp_arena_alloc(&x->m->arena, sizeof(*ad))) == NULL)
		return nomem(x);
	if ((rc = get_u32(x, map, "id", 1, &ad->id, DTCP_MAX_ID)) != DTC_OK ||
	    (rc = get_u32(x, map, "epid", 0, &ad->epid, UINT32_MAX)) != DTC_OK ||
	    (rc = get_u32(x, map, "size", 1, &ad->size, DTCP_MAX_RECSIZE)) != DTC_OK ||
	    (rc = get_u32(x, map, "flags", 0, &ad->flags, UINT32_MAX)) != DTC_OK ||
	    (rc = get_str(x, map, "name", 0, &ad->name)) != DTC_OK)
		return rc;
	rc = dtcp_get_i64(x->c, x->it, map, "varid", 1, &varid, x->err);
	if (rc != DTC_OK)
		return DTC_WARN;
	ad->varid = varid;
	if (ad->id == 0)
		return bad(x, map, DTC_E_BADVALUE, "agg item: id 0 is "
		    "DTRACE_AGGIDNONE, the padding word");
	if ((rc = load_recs(x, map, &ad->nrecs, &recs)) != DTC_OK)
		return rc;
	ad->recs = recs;
	if (ad->nrecs < 2)
		return bad(x, map, DTC_E_BADVALUE, "aggregation %u has %u "
		    "records; it needs the variable id and a value", ad->id,
		    ad->nrecs);
	for (i = 0; i < ad->nrecs; i++) {
		if ((uint64_t)recs[i].offset + recs[i].size > ad->size)
			return bad(x, map, DTC_E_BADRECDESC, "aggregation %u: "
			    "record %u (offset %u, size %u) lies outside the "
			    "%u-byte entry", ad->id, i, recs[i].offset,
			    recs[i].size, ad->size);
	}
	if (ad->size < 8)
		return bad(x, map, DTC_E_BADVALUE, "aggregation %u: entry size "
		    "%u is too small", ad->id, ad->size);
	if ((old = dtcp_idmap_get(&x->m->aggs, ad->id)) != NULL) {
		if (same_agg(old, ad))
			return DTC_OK;
		return bad(x, map, DTC_E_DUPLICATE, "aggregation %u described "
		    "twice; the first is kept", ad->id);
	}
	if (dtcp_idmap_put(&x->m->aggs, ad->id, ad) != 0)
		return nomem(x);
	if (ad->id > x->m->maxaggid)
		x->m->maxaggid = ad->id;
	return DTC_OK;
}

static int
load_format(loadctx *x, const dtcp_node *map, int illumos)
{
	const char *s;
	size_t len;
	uint32_t id = 0;
	dtc_format *f;
	dtc_error ferr;
	int rc;

	if ((rc = get_u32(x, map, "id", 1, &id, DTCP_MAX_ID)) != DTC_OK)
		return rc;
	rc = dtcp_get_text(x->c, x->it, map, "string", 1, &s, &len, x->err);
	if (rc != DTC_OK)
		return DTC_WARN;
	if (id == 0)
		return bad(x, map, DTC_E_BADVALUE, "format item: id 0 means "
		    "\"no format\"");
	if ((f = dtcp_idmap_get(&x->m->formats, id)) != NULL) {
		const char *old = dtc_format_string(f);

		if (strlen(old) == len && memcmp(old, s, len) == 0)
			return DTC_OK;
		return bad(x, map, DTC_E_DUPLICATE, "format %u described twice; "
		    "the first is kept", id);
	}
	dtc_error_clear(&ferr);
	if ((f = dtcp_format_compile(s, len, illumos, &ferr)) == NULL) {
		return bad(x, map, ferr.code ? ferr.code : DTC_E_BADFORMAT,
		    "format %u: %s", id, ferr.text);
	}
	if (dtcp_idmap_put(&x->m->formats, id, f) != 0) {
		dtcp_format_free(f);
		return nomem(x);
	}
	return DTC_OK;
}

static int
symcmp(const void *a, const void *b)
{
	const dtcp_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* the larger symbol first, so lookups prefer the enclosing one */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return 0;
}

/* One [addr, size, (module,) name] row. */
static int
load_sym(loadctx *x, const dtcp_node *row, int with_module, dtcp_ksym *s)
{
	const dtcp_node *e = dtcp_first_child(row);
	uint32_t want = with_module ? 4 : 3;

	if (row->type != DTCP_N_ARRAY || row->count != want)
		return bad(x, row, DTC_E_KEYTYPE, "%s item: a symbol must be "
		    "an array of %u values", x->it->kind, want);
	if (e->type != DTCP_N_UINT)
		return bad(x, e, DTC_E_KEYTYPE, "%s item: symbol address is "
		    "not an unsigned integer", x->it->kind);
	s->addr = e->u;
	e = dtcp_next_sibling(e);
	if (e->type != DTCP_N_UINT)
		return bad(x, e, DTC_E_KEYTYPE, "%s item: symbol size is not "
		    "an unsigned integer", x->it->kind);
	s->size = e->u;
	e = dtcp_next_sibling(e);
	if (with_module) {
		if (e->type != DTCP_N_TEXT)
			return bad(x, e, DTC_E_KEYTYPE, "ksyms item: module "
			    "is not text");
		if ((s->module = dtcp_arena_strndup(&x->m->arena,
		    (const char *)e->ptr, e->len)) == NULL)
			return nomem(x);
		e = dtcp_next_sibling(e);
	}
	if (e->type != DTCP_N_TEXT)
		return bad(x, e, DTC_E_KEYTYPE, "%s item: symbol name is not "
		    "text", x->it->kind);
	if ((s->name = dtcp_arena_strndup(&x->m->arena, (const char *)e->ptr,
	    e->len)) == NULL)
		return nomem(x);
	return DTC_OK;
}

static int
load_symtab(loadctx *x, const dtcp_node *arr, int with_module,
    dtcp_ksym **out, size_t *nout)
{
	const dtcp_node *e;
	dtcp_ksym *syms;
	uint32_t i;
	size_t n = 0;
	int rc, worst = DTC_OK;

	if (arr->count == 0) {
		*out = NULL;
		*nout = 0;
		return DTC_OK;
	}
	/* bounded: every row takes several bytes of the item */
	syms = dtcp_arena_alloc(&x->m->arena, arr->count * sizeof(*syms));
	if (syms == NULL)
		return nomem(x);
	for (i = 0, e = dtcp_first_child(arr); i < arr->count;
	    i++, e = dtcp_next_sibling(e)) {
		rc = load_sym(x, e, with_module, &syms[n]);
		if (rc == DTC_FATAL)
			return rc;
		if (rc == DTC_OK)
			n++;
		else
			worst = DTC_WARN;
	}
	qsort(syms, n, sizeof(*syms), symcmp);
	*out = syms;
	*nout = n;
	return worst;
}

static int
load_ksyms(loadctx *x, const dtcp_node *map)
{
	const dtcp_node *arr;
	dtcp_ksym *syms, *all;
	size_t n;
	int rc;

	rc = dtcp_get_node(x->c, x->it, map, "symbols", DTCP_N_ARRAY, 1, &arr,
	    x->err);
	if (rc != DTC_OK)
		return DTC_WARN;
	rc = load_symtab(x, arr, 1, &syms, &n);
	if (rc == DTC_FATAL)
		return rc;
	if (x->m->nksyms == 0) {
		x->m->ksyms = syms;
		x->m->nksyms = n;
		return rc;
	}
	/* a second ksyms item adds to the first (e.g. modules loaded later) */
	all = dtcp_arena_alloc(&x->m->arena,
	    (x->m->nksyms + n) * sizeof(*all));
	if (all == NULL)
		return nomem(x);
	memcpy(all, x->m->ksyms, x->m->nksyms * sizeof(*all));
	memcpy(all + x->m->nksyms, syms, n * sizeof(*all));
	x->m->nksyms += n;
	qsort(all, x->m->nksyms, sizeof(*all), symcmp);
	x->m->ksyms = all;
	return rc;
}

static int
mapcmp(const void *a, const void *b)
{
	const dtcp_umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int
load_proc(loadctx *x, const dtcp_node *map)
{
	const dtcp_node *maps, *e, *syms;
	dtcp_proc *p, *np;
	uint64_t v = 0;
	uint32_t i;
	int rc;

	if (x->m->nprocs >= 65536)
		return bad(x, map, DTC_E_LIMIT, "more than 65536 proc items");
	np = realloc(x->m->procs, (x->m->nprocs + 1) * sizeof(*np));
	if (np == NULL)
		return nomem(x);
	x->m->procs = np;
	p = &np[x->m->nprocs];
	memset(p, 0, sizeof(*p));
	if (dtcp_get_u64(x->c, x->it, map, "pid", 1, &v, x->err) != DTC_OK)
		return DTC_WARN;
	p->pid = v;
	p->item = x->it->index;
	if ((rc = get_str(x, map, "execname", 0, &p->execname)) != DTC_OK)
		return rc;
	rc = dtcp_get_node(x->c, x->it, map, "maps", DTCP_N_ARRAY, 0, &maps,
	    x->err);
	if (rc == DTC_OK && maps->count > 0) {
		p->maps = dtcp_arena_alloc(&x->m->arena,
		    maps->count * sizeof(*p->maps));
		if (p->maps == NULL)
			return nomem(x);
		for (i = 0, e = dtcp_first_child(maps); i < maps->count;
		    i++, e = dtcp_next_sibling(e)) {
			dtcp_umap *um = &p->maps[p->nmaps];

			if (e->type != DTCP_N_MAP)
				return bad(x, e, DTC_E_KEYTYPE, "proc item: "
				    "maps[%u] is not a map", i);
			if (dtcp_get_u64(x->c, x->it, e, "start", 1, &um->start,
			    x->err) != DTC_OK ||
			    dtcp_get_u64(x->c, x->it, e, "end", 1, &um->end,
			    x->err) != DTC_OK)
				return DTC_WARN;
			if ((rc = get_str(x, e, "path", 0, &um->path)) != DTC_OK)
				return rc;
			rc = dtcp_get_node(x->c, x->it, e, "symbols",
			    DTCP_N_ARRAY, 0, &syms, x->err);
			if (rc == DTC_OK) {
				rc = load_symtab(x, syms, 0, &um->syms,
				    &um->nsyms);
				if (rc == DTC_FATAL)
					return rc;
			} else if (rc != DTC_EOF) {
				return DTC_WARN;
			}
			p->nmaps++;
		}
		qsort(p->maps, p->nmaps, sizeof(*p->maps), mapcmp);
	} else if (rc != DTC_OK && rc != DTC_EOF) {
		return DTC_WARN;
	}
	x->m->nprocs++;
	return DTC_OK;
}

static int
load_clock(loadctx *x, const dtcp_node *map)
{
	uint64_t h, w, pass = 0;
	int rc;

	if (dtcp_get_u64(x->c, x->it, map, "hrtime", 1, &h, x->err) != DTC_OK ||
	    dtcp_get_u64(x->c, x->it, map, "walltime", 1, &w, x->err) != DTC_OK)
		return DTC_WARN;
	rc = dtcp_get_u64(x->c, x->it, map, "pass_clocks", 0, &pass, x->err);
	if (rc != DTC_OK && rc != DTC_EOF)
		return DTC_WARN;
	/* the capture's clock pair, and a promise of pass clocks */
	if (rc == DTC_OK && pass != 0)
		x->m->pass_clocks = 1;
	rc = dtcp_get_u64(x->c, x->it, map, "pass", 0, &pass, x->err);
	if (rc != DTC_OK && rc != DTC_EOF)
		return DTC_WARN;
	if (rc == DTC_OK) {
		/* a pass's time: the oldest of the ring goes */
		struct dtcp_pclock *pc = x->m->pclock;
		unsigned n = sizeof(x->m->pclock) / sizeof(pc[0]);

		if (x->m->npclock == n)
			memmove(pc, pc + 1, (n - 1) * sizeof(*pc));
		else
			x->m->npclock++;
		pc[x->m->npclock - 1].item = x->it->index;
		pc[x->m->npclock - 1].hrtime = h;
		if (x->m->have_clock)
			return DTC_OK;
	}
	x->m->have_clock = 1;
	x->m->clock_hrtime = h;
	x->m->clock_walltime = w;
	return DTC_OK;
}

int
dtcp_meta_add_item(dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, int illumos, dtc_error *err)
{
	loadctx x = { m, c, it, err };
	const dtcp_node *map = &it->nodes[0];

	if (strcmp(it->kind, "probe") == 0)
		return load_probe(&x, map);
	if (strcmp(it->kind, "eprobe") == 0)
		return load_eprobe(&x, map);
	if (strcmp(it->kind, "agg") == 0)
		return load_agg(&x, map);
	if (strcmp(it->kind, "format") == 0)
		return load_format(&x, map, m->v2 ? DTCP_PRINTF_V2 : illumos);
	if (strcmp(it->kind, "ksyms") == 0)
		return load_ksyms(&x, map);
	if (strcmp(it->kind, "proc") == 0)
		return load_proc(&x, map);
	if (strcmp(it->kind, "ctf") == 0)
		return dtcp_ctf_add_item(m, c, it, err);
	if (strcmp(it->kind, "clock") == 0)
		return load_clock(&x, map);
	if (strcmp(it->kind, "program") == 0)    /* program.c */
		return dtcp_program_check_item(c, it, err);
	if (strcmp(it->kind, "dof") == 0)        /* dofitem.c */
		return dtcp_dof_check_item(c, it, err);
	if (m->v2)
		return dtcp_v2_add_item(m, c, it, err);
	return DTC_EOF;
}

/* ------------------------------------------------------------ lookups */

const dtc_eprobedesc *
dtcp_meta_eprobe_lookup(const dtcp_meta *m, uint32_t epid)
{
	dtcp_eprobe *e = epid < m->ndense ? m->dense[epid] :
	    dtcp_idmap_get(&m->eprobes, epid);
	dtc_eprobedesc *ep = e != NULL ? &e->d : NULL;

	/* probes may be described after their eprobes */
	if (ep != NULL && ep->probe == NULL)
		ep->probe = dtcp_idmap_get(&m->probes, ep->probeid);
	return ep;
}

const dtc_format *
dtcp_meta_recformat_lookup(const dtcp_meta *m, const dtc_eprobedesc *ep,
    uint32_t i)
{
	dtcp_eprobe *e = (dtcp_eprobe *)ep;
	const dtc_format *f;

	if (e->fmts != NULL && e->fmts[i] != NULL)
		return e->fmts[i];
	f = dtcp_idmap_get(&m->formats, ep->recs[i].format);
	/* a format once described never changes (a second, different
	 * description is refused), so the first one found is kept */
	if (e->fmts != NULL)
		e->fmts[i] = f;
	return f;
}

const dtc_aggdesc *
dtcp_meta_agg(const dtcp_meta *m, uint32_t aggid)
{
	return dtcp_idmap_get(&m->aggs, aggid);
}

const dtc_format *
dtcp_meta_format(const dtcp_meta *m, uint32_t id)
{
	return dtcp_idmap_get(&m->formats, id);
}

const dtc_probedesc *
dtcp_meta_probe(const dtcp_meta *m, uint32_t id)
{
	return dtcp_idmap_get(&m->probes, id);
}

void
dtcp_meta_mark_bad(dtcp_meta *m, uint32_t epid)
{
	dtcp_eprobe *e = dtcp_idmap_get(&m->eprobes, epid);

	if (e != NULL)
		e->bad = 1;
}

int
dtcp_meta_is_bad(const dtcp_meta *m, uint32_t epid)
{
	const dtcp_eprobe *e = dtcp_idmap_get(&m->eprobes, epid);

	return e != NULL && e->bad;
}

static void
free_format(dtcp_idmap *map)
{
	size_t i;

	for (i = 0; i < map->cap; i++)
		if (map->vals[i] != NULL)
			dtcp_format_free(map->vals[i]);
}

void
dtcp_meta_free(dtcp_meta *m)
{
	dtcp_v2_free(m);
	dtcp_ctf_free(m);
	free_format(&m->formats);
	dtcp_idmap_free(&m->probes);
	dtcp_idmap_free(&m->eprobes);
	free(m->dense);
	dtcp_idmap_free(&m->aggs);
	dtcp_idmap_free(&m->formats);
	dtcp_arena_free(&m->arena);
	free(m->procs);
	memset(m, 0, sizeof(*m));
}
