/*
 * aggmerge.c - the aggregations of several captures merged into one
 * printing (dtconsume --merge-aggs), e.g. one script captured on several
 * hosts.
 *
 * Rule: two aggregations merge when they have the same name, the same
 * aggregating function with the same parameters, and the same key layout
 * (each key record's action, size and offset, hence the same entry size).
 * Entries with equal keys then merge as the kernel's snapshots merge
 * (counts and sums add, min/max compare, histograms add bucket by bucket).
 * The merged aggregations are printed in the order they were first met;
 * normalize() factors are not carried over (each capture's own printing
 * shows them).  Captures of a different byte order are not merged.
 *
 * The mechanism is the engine's own: every entry of an input is re-keyed
 * to the merged aggregation's id and variable id and fed to
 * dtcp_agg_snap() of a detached reader that holds the merged descriptions,
 * so merging and printing follow exactly the rules of a single capture.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "agg.h"
#include "reader.h"

struct dtc_aggmerge {
	dtc_reader *mr;          /* detached reader holding the merged state */
	const dtc_aggdesc **descs; /* merged descs, index = id - 1 */
	size_t ndescs, capdescs;
	uint8_t *buf;            /* one input's entries, re-keyed */
	size_t len, cap;
	int nomem;
	size_t skipped;          /* entries not merged (byte order) */
	size_t cursor;
	dtc_event ev;
};

dtc_aggmerge *
dtc_aggmerge_new(dtc_error *err)
{
	dtc_aggmerge *m = calloc(1, sizeof(*m));

	dtc_error_clear(err);
	if (m == NULL)
		dtcp_error_set(err, DTC_E_NOMEM, "<merged>", -1, -1, -1,
		    "out of memory");
	return m;
}

void
dtc_aggmerge_free(dtc_aggmerge *m)
{
	if (m == NULL)
		return;
	dtc_reader_close(m->mr);
	free(m->descs);
	free(m->buf);
	free(m);
}

static int
same_layout(const dtc_aggdesc *a, const dtc_aggdesc *b)
{
	uint32_t i;

	if (strcmp(a->name, b->name) != 0 || a->size != b->size ||
	    a->nrecs != b->nrecs)
		return 0;
	for (i = 1; i < a->nrecs; i++) {
		const dtc_recdesc *x = &a->recs[i], *y = &b->recs[i];

		if (x->action != y->action || x->size != y->size ||
		    x->offset != y->offset)
			return 0;
	}
	/* the value record: same function and parameters */
	return a->recs[a->nrecs - 1].arg == b->recs[b->nrecs - 1].arg;
}

/* The merged description matching d, created on first sight. */
static const dtc_aggdesc *
merged_desc(dtc_aggmerge *m, const dtc_aggdesc *d)
{
	dtcp_meta *meta = &dtcp_reader_capture_rw(m->mr)->meta;
	dtc_aggdesc *nd;
	dtc_recdesc *recs;
	size_t i;

	for (i = 0; i < m->ndescs; i++)
		if (same_layout(m->descs[i], d))
			return m->descs[i];
	if (m->ndescs == m->capdescs) {
		size_t cap = m->capdescs ? m->capdescs * 2 : 16;
		const dtc_aggdesc **n = realloc(m->descs, cap * sizeof(*n));

		if (n == NULL)
			return NULL;
		m->descs = n;
		m->capdescs = cap;
	}
	nd = dtcp_arena_alloc(&meta->arena, sizeof(*nd));
	recs = dtcp_arena_alloc(&meta->arena, d->nrecs * sizeof(*recs));
	if (nd == NULL || recs == NULL)
		return NULL;
	*nd = *d;
	memcpy(recs, d->recs, d->nrecs * sizeof(*recs));
	nd->recs = recs;
	nd->name = dtcp_arena_strndup(&meta->arena, d->name, strlen(d->name));
	if (nd->name == NULL)
		return NULL;
	nd->id = (uint32_t)m->ndescs + 1;
	nd->varid = (int64_t)m->ndescs + 1;
	nd->flags = 0;
	if (dtcp_idmap_put(&meta->aggs, nd->id, nd) != 0)
		return NULL;
	meta->maxaggid = nd->id;
	m->descs[m->ndescs++] = nd;
	return nd;
}

static void
visit(const dtc_aggdesc *d, const uint8_t *data, uint32_t size,
    uint64_t normal, void *arg)
{
	dtc_aggmerge *m = arg;
	const dtc_aggdesc *nd;
	int swap = dtc_reader_capture(m->mr)->swap;
	uint8_t *p;

	(void)normal;
	if (m->nomem || d->nrecs < 2 || d->recs[0].size != 8 ||
	    (uint64_t)d->recs[0].offset + 8 > size)
		return;
	if ((nd = merged_desc(m, d)) == NULL) {
		m->nomem = 1;
		return;
	}
	if (m->cap - m->len < size) {
		size_t cap = m->cap ? m->cap : 65536;

		while (cap - m->len < size)
			cap *= 2;
		if ((p = realloc(m->buf, cap)) == NULL) {
			m->nomem = 1;
			return;
		}
		m->buf = p;
		m->cap = cap;
	}
	p = m->buf + m->len;
	memcpy(p, data, size);
	dtcp_st32(p, nd->id, swap);
	dtcp_st64(p + d->recs[0].offset, (uint64_t)nd->varid, swap);
	m->len += size;
}

int
dtc_aggmerge_add(dtc_aggmerge *m, const dtc_reader *r, dtc_error *err)
{
	int rc;

	dtc_error_clear(err);
	if (m->mr == NULL && (m->mr = dtcp_reader_detached(r)) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, dtc_reader_source(r), -1, -1,
		    -1, "out of memory");
		return DTC_FATAL;
	}
	if (dtc_reader_capture(r)->swap != dtc_reader_capture(m->mr)->swap) {
		dtcp_error_set(err, DTC_E_NOTSUP, dtc_reader_source(r), -1, -1,
		    -1, "aggregations not merged: the capture's byte order "
		    "differs from the first capture's");
		return DTC_WARN;
	}
	m->len = 0;
	dtcp_agg_foreach(dtc_reader_capture(r)->agg, visit, m);
	if (m->nomem) {
		dtcp_error_set(err, DTC_E_NOMEM, dtc_reader_source(r), -1, -1,
		    -1, "out of memory merging aggregations");
		return DTC_FATAL;
	}
	if (m->len == 0)
		return DTC_OK;
	rc = dtcp_agg_snap(dtc_reader_capture(m->mr)->agg,
	    dtc_reader_capture(m->mr), -1, m->buf,
	    m->len, err);
	return rc == DTC_OK ? DTC_OK : DTC_WARN;
}

int
dtc_aggmerge_next(dtc_aggmerge *m, const dtc_event **ev)
{
	const dtc_aggprint *ap;

	*ev = NULL;
	if (m->mr == NULL)
		return DTC_EOF;
	ap = dtcp_agg_exit_next(dtc_reader_capture(m->mr)->agg,
	    dtc_reader_capture(m->mr),
	    &m->cursor);
	if (ap == NULL)
		return DTC_EOF;
	memset(&m->ev, 0, sizeof(m->ev));
	m->ev.type = DTC_EV_AGG;
	m->ev.reader = m->mr;
	m->ev.source = "<merged>";
	m->ev.cpu = -1;
	m->ev.exit_status = -1;
	m->ev.agg = ap;
	*ev = &m->ev;
	return DTC_OK;
}
