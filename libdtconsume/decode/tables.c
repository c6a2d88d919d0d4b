/*
 * tables.c - a capture's metadata tables and its buffer walker for
 * programs (dtc_tables(3), dtc_walker(3)): meta.c's tables and walker.c's
 * walk behind public calls, so that dtsnap's dump and info list what a
 * capture describes and walk its records as the reader does, without a
 * private header.  Layer 1 (decoders.h).
 */
#include "config.h"

#include <stdlib.h>
#include <strings.h>

#include "decoders.h"

struct dtc_tables {
	dtcp_meta meta;
	int illumos, swap;
};

struct dtc_walker {
	dtcp_walker w;
};

static void
nomem(dtc_error *err)
{
	dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1, "out of memory");
}

/* A text value of the header, compared with s. */
static int
header_is(const dtc_node *h, const char *key, const char *s)
{
	const dtc_node *n = dtcp_map_get(h, key);
	size_t len = strlen(s);

	return n != NULL && n->type == DTC_NODE_TEXT && n->len == len &&
	    strncasecmp((const char *)n->ptr, s, len) == 0;
}

dtc_tables *
dtc_tables_new(const dtc_item *header, dtc_error *err)
{
	dtc_tables *t;
	const dtc_node *h;

	dtc_error_clear(err);
	if (header == NULL || header->nodes == NULL ||
	    header->nodes[0].type != DTC_NODE_MAP) {
		dtcp_error_set(err, DTC_E_BADHEADER, NULL, -1, -1, -1,
		    "dtc_tables_new: no header item");
		return NULL;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		nomem(err);
		return NULL;
	}
	h = &header->nodes[0];
	/* the flavor and OS rules the reader takes from the header */
	t->meta.v2 = header_is(h, "flavor", "dtrace-v2");
	t->illumos = header_is(h, "os", "illumos") ||
	    header_is(h, "os", "solaris") || header_is(h, "os", "sunos");
	t->swap = header_is(h, "byteorder", "big") != dtcp_host_big();
	return t;
}

int
dtc_tables_add_item(dtc_tables *t, const dtc_container *c,
    const dtc_item *it, dtc_error *err)
{
	if (t == NULL || it == NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_tables_add_item: no tables or no item");
		return DTC_FAILED;
	}
	return dtcp_meta_add_item(&t->meta, (const dtcp_container *)c, it,
	    t->illumos, err);
}

const dtc_probedesc *
dtc_tables_probe(const dtc_tables *t, uint32_t id)
{
	return t != NULL ? dtcp_meta_probe(&t->meta, id) : NULL;
}

const dtc_eprobedesc *
dtc_tables_eprobe(const dtc_tables *t, uint32_t epid)
{
	return t != NULL ? dtcp_meta_eprobe(&t->meta, epid) : NULL;
}

const dtc_aggdesc *
dtc_tables_agg(const dtc_tables *t, uint32_t aggid)
{
	return t != NULL ? dtcp_meta_agg(&t->meta, aggid) : NULL;
}

const dtc_format *
dtc_tables_format(const dtc_tables *t, uint32_t id)
{
	return t != NULL ? dtcp_meta_format(&t->meta, id) : NULL;
}

static int
idcmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The ids of one table, ascending, in an array the caller frees. */
int
dtc_tables_ids(const dtc_tables *t, int kind, uint32_t **ids, size_t *n,
    dtc_error *err)
{
	const dtcp_idmap *m;
	size_t i;

	*ids = NULL;
	*n = 0;
	if (t == NULL)
		m = NULL;
	else if (kind == DTC_TABLES_PROBE)
		m = &t->meta.probes;
	else if (kind == DTC_TABLES_EPROBE)
		m = &t->meta.eprobes;
	else if (kind == DTC_TABLES_AGG)
		m = &t->meta.aggs;
	else if (kind == DTC_TABLES_FORMAT)
		m = &t->meta.formats;
	else
		m = NULL;
	if (m == NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_tables_ids: no tables or no table %d", kind);
		return DTC_FAILED;
	}
	if ((*ids = calloc(m->n + 1, sizeof(**ids))) == NULL) {
		nomem(err);
		return DTC_FAILED;
	}
	for (i = 0; i < m->cap; i++)
		if (m->vals[i] != NULL && *n < m->n)
			(*ids)[(*n)++] = m->keys[i];
	qsort(*ids, *n, sizeof(**ids), idcmp);
	return DTC_OK;
}

/* modulo 2^64, as the kernel's counters wrap */
int
dtc_tables_walltime(const dtc_tables *t, uint64_t hrtime, uint64_t *wall)
{
	if (t == NULL || !t->meta.have_clock)
		return DTC_EOF;
	*wall = t->meta.clock_walltime + (hrtime - t->meta.clock_hrtime);
	return DTC_OK;
}

int
dtc_tables_ctf_item(const dtc_tables *t, size_t i, const char **module,
    size_t *bytes, const uint64_t **ids, size_t *npairs)
{
	if (t == NULL ||
	    dtcp_ctf_item_info(&t->meta, i, module, bytes, ids, npairs) != 0)
		return DTC_EOF;
	return DTC_OK;
}

const dtc_ctype *
dtc_tables_ctf_type(dtc_tables *t, const char *module, uint64_t id,
    const char **why)
{
	if (t == NULL) {
		*why = "no tables";
		return NULL;
	}
	return dtcp_ctf_type(&t->meta, module, id, why);
}

/* The aggregation engine's own check of a v2 aggsnap item's entries. */
int
dtc_tables_check_aggsnap(const dtc_tables *t, const dtc_container *c,
    const dtc_item *it, dtc_error *err)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (t == NULL || it == NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_tables_check_aggsnap: no tables or no item");
		return DTC_FAILED;
	}
	rc = dtcp_v2_aggsnap(&t->meta, (const dtcp_container *)c, it, t->swap,
	    &buf, &len, &cap, err);
	free(buf);
	return rc;
}

void
dtc_tables_free(dtc_tables *t)
{
	if (t == NULL)
		return;
	dtcp_meta_free(&t->meta);
	free(t);
}

dtc_walker *
dtc_walker_new(dtc_tables *t, const char *source, dtc_error *err)
{
	dtc_walker *w;

	dtc_error_clear(err);
	if (t == NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_walker_new: no tables");
		return NULL;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		nomem(err);
		return NULL;
	}
	w->w.meta = &t->meta;
	w->w.swap = t->swap;
	w->w.v2 = t->meta.v2;
	w->w.source = source;
	return w;
}

int
dtc_walker_start(dtc_walker *w, long long item, int cpu,
    const uint8_t *data, size_t size, size_t offset, uint64_t oldest,
    dtc_error *err)
{
	if (w == NULL || (data == NULL && size > 0)) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, item, -1, cpu,
		    "dtc_walker_start: no walker or no data");
		return DTC_FAILED;
	}
	w->w.cpu = cpu;
	w->w.item = item;
	w->w.file_offset = offset;
	return dtcp_walker_start(&w->w, data, size, oldest, err);
}

int
dtc_walker_next(dtc_walker *w, dtc_walkrec *rec, dtc_error *err)
{
	dtcp_walkrec r;
	int rc;

	if ((rc = dtcp_walker_next(&w->w, &r, err)) == DTC_OK) {
		rec->offset = r.offset;
		rec->raw_offset = r.raw_offset;
		rec->epid = r.epid;
		rec->timestamp = r.timestamp;
		rec->ep = r.ep;
		rec->data = r.data;
	}
	return rc;
}

/* The bytes walked: more than the buffer's by the zero bytes unringing
 * put in front of a wrapped buffer. */
size_t
dtc_walker_size(const dtc_walker *w)
{
	return w != NULL ? w->w.size : 0;
}

void
dtc_walker_free(dtc_walker *w)
{
	if (w == NULL)
		return;
	dtcp_walker_free(&w->w);
	free(w);
}
