/*
 * pass.c - the pass engine: what dtrace_work() does on a live system
 * before a record becomes output, from the capture.  Items are read until
 * a consume pass is complete (an item of a later pass, a note or an
 * options item ends it); the pass's principal buffers are put in
 * libdtrace's order (the BEGIN CPU first and the END CPU last, or merged
 * by timestamp with option temporal; DTrace v2 records in file order) and
 * walked record by record.  Drops, faults and interrupts queue as notes in
 * their place among the records; aggregation snapshots are handed to the
 * caller when their pass comes (pass.h).
 *
 * The reader (consume.c) and the batch reader (batch.c) both take their
 * records from here, so they see the same records in the same order, and
 * the same warnings about items, passes and records
 * (tests/test_pass.c compares them on every capture of testdata).
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"

#define DTRACEFLT_LIBRARY 1000
/* A principal buffer this large is left in the file until it is walked
 * (load()); the container's copy check makes it more than 1 MiB. */
#define DEFER_MIN ((size_t)1 << 20)

void
dtcp_pass_init(dtcp_pass *ps, dtcp_capture *cap)
{
	memset(ps, 0, sizeof(*ps));
	ps->cap = cap;
	ps->exit_status = -1;
	ps->flow_cpu = -1;
	ps->last_item = -1;
}

void
dtcp_pass_free(dtcp_pass *ps)
{
	size_t i;

	for (i = 0; i < ps->capbufs; i++) {
		free(ps->bufs[i].owned);
		dtcp_walker_free(&ps->bufs[i].w);
	}
	free(ps->bufs);
	free(ps->wbuf);
	free(ps->pending.b.owned);
	free(ps->pending.note.msg);
	free(ps->pending.note.fault);
	dtcp_pass_drop_notes(ps);
	free(ps->snap);
	free(ps->segs);
	free(ps->heap);
	free(ps->popts);
	dtcp_select_free(ps->sel);
	free(ps->sel);
}

int
dtcp_pass_select(dtcp_pass *ps, const char *what, const char *value,
    dtc_error *err)
{
	char why[200];

	if (ps->sel == NULL) {
		if ((ps->sel = malloc(sizeof(*ps->sel))) == NULL) {
			dtcp_error_set(err, DTC_E_NOMEM, ps->cap->source, -1,
			    -1, -1, "out of memory");
			return DTC_FAILED;
		}
		dtcp_select_init(ps->sel);
	}
	if (dtcp_select_add(ps->sel, what, value, why, sizeof(why)) !=
	    DTC_OK) {
		dtcp_error_set(err, DTC_E_BADOPTION, ps->cap->source, -1, -1,
		    -1, "%s", why);
		return DTC_FAILED;
	}
	return DTC_OK;
}

static void
set_position(dtcp_pass *ps, const dtcp_item *it)
{
	__atomic_store_n(&ps->position, (uint64_t)(it->offset + it->size),
	    __ATOMIC_RELAXED);
	ps->last_item = it->index;
	ps->last_offset = it->offset;
}

int
dtcp_pass_header(dtcp_pass *ps, dtc_error *err)
{
	dtcp_item it;
	int rc;

	rc = dtcp_container_next(ps->cap->cont, &it, err);
	if (rc == DTC_EOF) {
		dtcp_error_set(err, DTC_E_BADHEADER, ps->cap->source, -1, 0, -1,
		    "empty input: no dtsnap header");
		return DTC_FATAL;
	}
	if (rc != DTC_OK)
		return rc == DTC_WARN ? DTC_FATAL : rc;
	set_position(ps, &it);
	return dtcp_capture_read_header(ps->cap, &it, err);
}

/* ------------------------------------------------------------ notes */

static void
queue_drop(dtcp_pass *ps, int kind, int cpu, uint64_t count)
{
	dtcp_note *d;

	if (count == 0 || ps->ndq >= DTCP_PASS_MAXNOTES)
		return;
	d = &ps->dq[ps->ndq++];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->cpu = cpu;
	d->count = count;
}

dtcp_note *
dtcp_pass_note(dtcp_pass *ps)
{
	if (ps->dqi >= ps->ndq) {
		ps->ndq = ps->dqi = 0;
		return NULL;
	}
	return &ps->dq[ps->dqi++];
}

void
dtcp_pass_drop_notes(dtcp_pass *ps)
{
	dtcp_note *d;

	while ((d = dtcp_pass_note(ps)) != NULL) {
		free(d->msg);
		free(d->fault);
		d->msg = NULL;
		d->fault = NULL;
	}
}

/* Status counters are cumulative: report what grew since last time. */
static void
status_drops(dtcp_pass *ps, const dtcp_status *st)
{
	int i;

	for (i = 2; i < 10; i++)
		if (st->c[i] > ps->prev_st.c[i])
			queue_drop(ps, i, -1, st->c[i] - ps->prev_st.c[i]);
	memcpy(ps->prev_st.c, st->c, sizeof(st->c));
}

/* ------------------------------------------------------------ items */

/* Parse an options item into the queue; applied by apply_options(). */
static int
read_options(dtcp_pass *ps, const dtcp_item *it, dtc_error *err)
{
	const dtcp_node *map, *k, *v;
	struct dtcp_popt *po;
	const char *source = ps->cap->source;
	uint32_t i;
	int rc = DTC_OK;

	if (dtcp_get_node(ps->cap->cont, it, &it->nodes[0], "options",
	    DTCP_N_MAP, 1, &map, err) != DTC_OK)
		return DTC_WARN;
	for (i = 0, k = dtcp_first_child(map); i < map->count;
	    i++, k = dtcp_next_sibling(v)) {
		v = dtcp_next_sibling(k);
		if (ps->npopts == ps->cappopts) {
			size_t cap = ps->cappopts ? ps->cappopts * 2 : 16;
			struct dtcp_popt *np;

			if (cap > 4096 || (np = realloc(ps->popts,
			    cap * sizeof(*np))) == NULL) {
				dtcp_error_set(err, DTC_E_LIMIT, source,
				    it->index, (long long)k->offset, -1,
				    "options item: too many options");
				return DTC_WARN;
			}
			ps->popts = np;
			ps->cappopts = cap;
		}
		po = &ps->popts[ps->npopts];
		po->item = it->index;
		po->offset = k->offset;
		if (k->type != DTCP_N_TEXT || k->len >= sizeof(po->name)) {
			dtcp_error_set(err, DTC_E_KEYTYPE, source, it->index,
			    (long long)k->offset, -1, "options item: option "
			    "names must be text");
			rc = DTC_WARN;
			continue;
		}
		memcpy(po->name, k->ptr, k->len);
		po->name[k->len] = '\0';
		if (v->type == DTCP_N_TEXT && v->len < sizeof(po->val)) {
			memcpy(po->val, v->ptr, v->len);
			po->val[v->len] = '\0';
		} else if (v->type == DTCP_N_UINT) {
			snprintf(po->val, sizeof(po->val), "%" PRIu64, v->u);
		} else if (v->type == DTCP_N_NEGINT || (v->type == DTCP_N_BOOL &&
		    v->u == 0)) {
			/* DTRACEOPT_UNSET (-2) is how libdtrace says "unset" */
			po->val[0] = '\0';
		} else if (v->type == DTCP_N_BOOL) {
			snprintf(po->val, sizeof(po->val), "1");
		} else {
			dtcp_error_set(err, DTC_E_KEYTYPE, source, it->index,
			    (long long)v->offset, -1, "options item: option "
			    "\"%s\" has a value that is neither text nor an "
			    "integer", po->name);
			rc = DTC_WARN;
			continue;
		}
		ps->npopts++;
	}
	return rc;
}

/* Options take effect between passes, in capture order. */
static int
apply_options(dtcp_pass *ps, dtc_error *err)
{
	char why[128];
	size_t i;
	int rc = DTC_OK;

	for (i = 0; i < ps->npopts; i++) {
		struct dtcp_popt *po = &ps->popts[i];

		if (dtcp_options_set(&ps->cap->opts, po->name, po->val, 0, why,
		    sizeof(why)) != DTC_OK && rc == DTC_OK) {
			dtcp_error_set(err, DTC_E_BADOPTION, ps->cap->source,
			    po->item, (long long)po->offset, -1, "options "
			    "item: couldn't set option \"%s\" to \"%s\": %s",
			    po->name, po->val, why);
			rc = DTC_WARN;
		}
	}
	ps->npopts = 0;
	return rc;
}

static int
read_status(dtcp_pass *ps, const dtcp_item *it, dtcp_status *st,
    uint32_t *pass, dtc_error *err)
{
	static const char *const keys[10] = { NULL, NULL, "dynamic",
	    "dynrinse", "dyndirty", "spec", "specbusy", "specunavail",
	    "stkstroverflow", "dblerrors" };
	const dtcp_container *c = ps->cap->cont;
	const dtcp_node *map = &it->nodes[0];
	int64_t i64;
	uint64_t u = 0;
	int i;

	memset(st, 0, sizeof(*st));
	st->have = 1;
	if (dtcp_get_u64(c, it, map, "pass", 1, &u, err) != DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	st->began_on = st->ended_on = -1;
	if (dtcp_get_i64(c, it, map, "began_on", 0, &i64, err) == DTC_OK)
		st->began_on = (int)i64;
	if (dtcp_get_i64(c, it, map, "ended_on", 0, &i64, err) == DTC_OK)
		st->ended_on = (int)i64;
	if (dtcp_get_u64(c, it, map, "exiting", 0, &u, err) == DTC_OK)
		st->exiting = u != 0;
	if (dtcp_get_i64(c, it, map, "exit_status", 0, &i64, err) == DTC_OK)
		st->exit_status = (int)i64;
	for (i = 2; i < 10; i++) {
		u = 0;
		if (dtcp_get_u64(c, it, map, keys[i], 0, &u, err) ==
		    DTC_FAILED)
			return DTC_WARN;
		st->c[i] = u;
	}
	return DTC_OK;
}

/* buf and aggbuf items: their bytes are the container's (memory input) or
 * the read buffer it handed over, copied only when that cannot be had. */
static int
read_buf(dtcp_pass *ps, const dtcp_item *it, dtcp_pbuf *b, uint32_t *pass,
    int principal, dtc_error *err)
{
	dtcp_container *c = ps->cap->cont;
	const dtcp_node *map = &it->nodes[0], *dn;
	const uint8_t *data;
	size_t len;
	uint64_t u;
	int64_t cpu = 0;

	u = 0;
	if (dtcp_get_u64(c, it, map, "pass", 1, &u, err) != DTC_OK ||
	    dtcp_get_i64(c, it, map, "cpu", 1, &cpu, err) != DTC_OK ||
	    dtcp_get_bytes(c, it, map, "data", 1, &data, &len, err) != DTC_OK)
		return DTC_WARN;
	*pass = (uint32_t)u;
	if (cpu < 0 || cpu > 1000000) {
		dtcp_error_set(err, DTC_E_BADVALUE, ps->cap->source, it->index,
		    (long long)it->offset, -1, "%s item: cpu %lld is out of "
		    "range", it->kind, (long long)cpu);
		return DTC_WARN;
	}
	b->cpu = (int)cpu;
	b->item = it->index;
	b->item_offset = it->offset;
	/* the data bytes follow the byte string's CBOR head */
	dn = dtcp_map_get(map, "data");
	b->file_offset = dn->offset + (len < 24 ? 1 : len < 256 ? 2 :
	    len < 65536 ? 3 : len <= UINT32_MAX ? 5 : 9);
	b->drops = b->errors = b->oldest = b->timestamp = 0;
	/* a v2 recs item has none of a buffer descriptor's fields: records
	 * in delivery order, drops reported by drop items */
	if (strcmp(it->kind, "recs") == 0)
		principal = 0;
	else if (dtcp_get_u64(c, it, map, "drops", 0, &b->drops, err) ==
	    DTC_FAILED)
		return DTC_WARN;
	if (principal &&
	    (dtcp_get_u64(c, it, map, "errors", 0, &b->errors, err) ==
	    DTC_FAILED ||
	    dtcp_get_u64(c, it, map, "oldest", 0, &b->oldest, err) ==
	    DTC_FAILED ||
	    dtcp_get_u64(c, it, map, "timestamp", 0, &b->timestamp, err) ==
	    DTC_FAILED))
		return DTC_WARN;
	b->infile = 0;
	if (data == NULL && len > 0) {
		/* left in the file: read when walked (load) */
		b->infile = 1;
		b->data = NULL;
	} else if (dtcp_container_stable(c)) {
		b->data = data;
	} else if (len > 0 && (b->owned = dtcp_container_hand_over(c,
	    b->owned, b->owned_cap, &b->owned_cap)) != NULL) {
		/* decoded where read() put it, in the read buffer that is
		 * this slot's now; the slot's old one was its spare */
		b->data = data;
	} else {
		/* no memory for a new read buffer (the spare is gone too):
		 * a copy, if there is memory for that */
		if (b->owned == NULL)
			b->owned_cap = 0;
		if (b->owned_cap < len) {
			uint8_t *p = realloc(b->owned, len);

			if (p == NULL) {
				dtcp_error_set(err, DTC_E_NOMEM,
				    ps->cap->source, it->index,
				    (long long)it->offset, -1, "out of memory "
				    "holding a %zu-byte buffer", len);
				return DTC_FATAL;
			}
			b->owned = p;
			b->owned_cap = len;
		}
		if (len > 0)    /* owned may still be NULL */
			memcpy(b->owned, data, len);
		b->data = b->owned;
	}
	b->size = len;
	return DTC_OK;
}

/* A DTrace v2 fault or drop item. */
static int
read_note(dtcp_pass *ps, const dtcp_item *it, dtcp_note *q, uint32_t *pass,
    dtc_error *err)
{
	const dtcp_container *c = ps->cap->cont;
	const dtcp_node *map = &it->nodes[0];
	const char *s = "";
	size_t len = 0;
	uint64_t u = 0;
	int64_t cpu = -1;

	memset(q, 0, sizeof(*q));
	if (dtcp_get_u64(c, it, map, "pass", 1, &u, err) != DTC_OK ||
	    dtcp_get_i64(c, it, map, "cpu", 0, &cpu, err) == DTC_FAILED ||
	    dtcp_get_text(c, it, map, "msg", 0, &s, &len, err) == DTC_FAILED)
		return DTC_WARN;
	*pass = (uint32_t)u;
	q->cpu = cpu < -1 || cpu > 1000000 ? -1 : (int)cpu;
	if (len > 4000)
		len = 4000;
	if ((q->msg = strndup(s, len)) == NULL)
		goto nomem;
	if (it->kind[0] == 'f') {
		dtcp_v2fault *f = calloc(1, sizeof(*f));
		uint64_t v = 0;

		if ((q->fault = f) == NULL)
			goto nomem;
		if (dtcp_get_u64(c, it, map, "stid", 0, &v, err) == DTC_FAILED)
			goto bad;
		f->stid = (uint32_t)v;
		v = 0;
		if (dtcp_get_u64(c, it, map, "probe", 0, &v, err) ==
		    DTC_FAILED ||
		    dtcp_get_i64(c, it, map, "action", 0, &f->action, err) ==
		    DTC_FAILED ||
		    dtcp_get_i64(c, it, map, "offset", 0, &f->offset, err) ==
		    DTC_FAILED ||
		    dtcp_get_i64(c, it, map, "fault", 0, &f->fault, err) ==
		    DTC_FAILED ||
		    dtcp_get_u64(c, it, map, "addr", 0, &f->addr, err) ==
		    DTC_FAILED)
			goto bad;
		f->probe = (uint32_t)v;
	} else {
		uint64_t kind = 0;

		if (dtcp_get_u64(c, it, map, "kind", 0, &kind, err) ==
		    DTC_FAILED ||
		    dtcp_get_u64(c, it, map, "drops", 0, &q->count, err) ==
		    DTC_FAILED)
			goto bad;
		q->kind = kind < 10 ? (int)kind : 0;
	}
	return DTC_OK;
bad:
	free(q->msg);
	free(q->fault);
	memset(q, 0, sizeof(*q));
	return DTC_WARN;
nomem:
	free(q->msg);
	free(q->fault);
	memset(q, 0, sizeof(*q));
	dtcp_error_set(err, DTC_E_NOMEM, ps->cap->source, it->index,
	    (long long)it->offset, -1, "out of memory");
	return DTC_FATAL;
}

/*
 * An item after the end item, which dtsnap(5) makes the last.  It is
 * decoded as any other (the end item may be the misplaced one, and a
 * decoder does not drop intact data in silence); the first is remembered
 * so that one warning can name it and count the rest (dtcp_pass_after_end).
 */
static void
after_end(dtcp_pass *ps, const dtcp_item *it)
{
	if (ps->nafter++ > 0)
		return;
	ps->after_item = it->index;
	ps->after_offset = it->offset;
	snprintf(ps->after_kind, sizeof(ps->after_kind), "%s", it->kind);
}

int
dtcp_pass_after_end(dtcp_pass *ps, dtc_error *err)
{
	const char *source = ps->cap->source;

	if (ps->nafter == 0 || ps->after_said)
		return DTC_OK;
	ps->after_said = 1;
	if (ps->nafter == 1)
		dtcp_error_set(err, DTC_E_BADVALUE, source, ps->after_item,
		    (long long)ps->after_offset, -1, "%s item after the end "
		    "item (item %lld), which must be the last; decoded all "
		    "the same", ps->after_kind, ps->end_item);
	else
		dtcp_error_set(err, DTC_E_BADVALUE, source, ps->after_item,
		    (long long)ps->after_offset, -1, "%s item after the end "
		    "item (item %lld), which must be the last, and %llu more "
		    "items after it; decoded all the same", ps->after_kind,
		    ps->end_item, (unsigned long long)(ps->nafter - 1));
	return DTC_WARN;
}

static dtcp_pbuf *
new_buf(dtcp_pass *ps)
{
	if (ps->nbufs == ps->capbufs) {
		size_t cap = ps->capbufs ? ps->capbufs * 2 : 8;
		dtcp_pbuf *nb;

		if (cap > 65536 || (nb = realloc(ps->bufs,
		    cap * sizeof(*nb))) == NULL)
			return NULL;
		memset(nb + ps->capbufs, 0, (cap - ps->capbufs) * sizeof(*nb));
		ps->bufs = nb;
		ps->capbufs = cap;
	}
	return &ps->bufs[ps->nbufs++];
}

/* The read-ahead item joins the pass: DTC_OK to read on, or what
 * dtcp_pass_read returns. */
static int
take_pending(dtcp_pass *ps)
{
	struct dtcp_pending *p = &ps->pending;

	ps->have_pending = 0;
	ps->pass = p->pass;
	switch (p->kind) {
	case 3:
		ps->st = p->st;
		status_drops(ps, &p->st);
		return ps->ndq > 0 ? DTCP_PASS_NOTES : DTC_OK;
	case 1:
		queue_drop(ps, DTC_DROP_AGGREGATION, p->b.cpu, p->b.drops);
		ps->side = &p->b;
		return DTCP_PASS_AGGBUF;
	case 2: {
		dtcp_pbuf *b = new_buf(ps), save;

		if (b == NULL)
			return DTC_FATAL;
		save = *b;
		*b = p->b;
		/* the slot keeps its walker and takes the pending buffer's
		 * storage; its old storage (a pass consumed) is the next
		 * spare */
		b->w = save.w;
		p->b.owned = save.owned;
		p->b.owned_cap = save.owned_cap;
		b->started = 0;
		return DTC_OK;
	}
	case 5:
		/* in its place among the records */
		if (ps->ndq < DTCP_PASS_MAXNOTES) {
			ps->dq[ps->ndq++] = p->note;
		} else {
			free(p->note.msg);
			free(p->note.fault);
		}
		memset(&p->note, 0, sizeof(p->note));
		return DTCP_PASS_NOTES;
	case 6:
		return DTCP_PASS_AGGSNAP;
	}
	return DTC_OK;
}

int
dtcp_pass_read(dtcp_pass *ps, dtc_error *err)
{
	dtcp_capture *cap = ps->cap;
	dtc_error *oerr = ps->quiet_options ? NULL : err;
	dtcp_item it;
	int rc;

	if (ps->nbufs == 0 && ps->npopts > 0 &&
	    apply_options(ps, oerr) != DTC_OK && oerr != NULL)
		return DTC_WARN;
	for (;;) {
		uint32_t pass = 0;
		uint64_t u = 0;

		if (ps->have_pending) {
			/* an item of a later pass completes the current one */
			if (ps->nbufs > 0 && (ps->pending.pass != ps->pass ||
			    ps->pending.kind == 5))
				return DTC_OK;
			rc = take_pending(ps);
			if (rc == DTC_FATAL)
				goto nomem;
			if (rc != DTC_OK)
				return rc;
			continue;
		}
		if (ps->eof)
			return DTC_OK;
		/* a series moves from file to file: its buffers are read */
		if (!ps->defer_set) {
			ps->defer_set = 1;
			if (cap->series == NULL)
				dtcp_container_defer(cap->cont, DEFER_MIN);
		}
		rc = cap->series != NULL ? dtcp_rseries_next(cap->series,
		    &cap->cont, &cap->source, &it, err) :
		    dtcp_container_next(cap->cont, &it, err);
		if (rc == DTC_OK) {
			set_position(ps, &it);
			if (ps->saw_end)
				after_end(ps, &it);
		}
		if (rc == DTC_EOF) {
			ps->eof = 1;
			/* a recorder killed, a copy cut at an item's end: the
			 * output is not the run's (dtsnap(5), end) */
			if (!ps->saw_end) {
				uint64_t pos = dtcp_pass_position(ps);

				dtcp_error_set(err, DTC_E_TRUNCATED, cap->source,
				    ps->last_item, (long long)pos, -1, "capture "
				    "ends without its end item: output stops at "
				    "byte %llu, after item %lld",
				    (unsigned long long)pos, ps->last_item);
				return DTC_WARN;
			}
			return DTC_OK;
		}
		if (rc == DTC_FATAL) {
			ps->eof = 1;
			return DTC_FATAL;
		}
		if (rc != DTC_OK)
			return rc;
		if (dtcp_capture_foreign(cap, &it, err))
			return DTC_WARN;
		rc = dtcp_meta_add_item(&cap->meta, cap->cont, &it,
		    cap->illumos, err);
		if (rc != DTC_EOF) {
			if (rc == DTC_OK)
				continue;
			return rc == DTC_FAILED ? DTC_WARN : rc;
		}
		if (strcmp(it.kind, "options") == 0) {
			rc = read_options(ps, &it, oerr);
			/* they apply after the pass read so far */
			if (ps->nbufs == 0 && apply_options(ps, oerr) != DTC_OK)
				rc = DTC_WARN;
			if (rc != DTC_OK && oerr != NULL)
				return rc;
			if (rc == DTC_OK && ps->nbufs > 0)
				return DTC_OK;
			continue;
		}
		if (strcmp(it.kind, "end") == 0) {
			int64_t es = 0;

			if (!ps->saw_end)
				ps->end_item = it.index;
			ps->saw_end = 1;
			if (dtcp_get_i64(cap->cont, &it, &it.nodes[0],
			    "exit_status", 0, &es, err) == DTC_OK &&
			    ps->exit_status < 0)
				ps->exit_status = (int)es;
			continue;
		}
		if (strcmp(it.kind, "status") == 0) {
			ps->pending.kind = 3;
			if (read_status(ps, &it, &ps->pending.st, &pass, err) !=
			    DTC_OK)
				return DTC_WARN;
		} else if (strcmp(it.kind, "aggbuf") == 0 ||
		    strcmp(it.kind, "buf") == 0 || strcmp(it.kind, "recs") == 0) {
			int principal = it.kind[0] != 'a';

			ps->pending.kind = principal ? 2 : 1;
			rc = read_buf(ps, &it, &ps->pending.b, &pass, principal,
			    err);
			if (rc != DTC_OK)
				return rc;
		} else if (strcmp(it.kind, "aggsnap") == 0) {
			if (dtcp_get_u64(cap->cont, &it, &it.nodes[0], "pass", 1,
			    &u, err) != DTC_OK)
				return DTC_WARN;
			pass = (uint32_t)u;
			rc = dtcp_v2_aggsnap(&cap->meta, cap->cont, &it,
			    cap->swap, &ps->snap, &ps->snaplen, &ps->snapcap,
			    err);
			if (rc == DTC_FATAL)
				return rc;
			ps->pending.kind = 6;
			if (rc != DTC_OK) {
				/* what could be read of it still counts */
				ps->pending.pass = pass < ps->pass ? ps->pass :
				    pass;
				ps->have_pending = 1;
				return DTC_WARN;
			}
		} else if (strcmp(it.kind, "interrupt") == 0) {
			/* in its place, after what was consumed before it */
			if (dtcp_get_u64(cap->cont, &it, &it.nodes[0], "pass", 1,
			    &u, err) != DTC_OK)
				return DTC_WARN;
			memset(&ps->pending.note, 0, sizeof(ps->pending.note));
			ps->pending.note.interrupt = 1;
			ps->pending.note.cpu = -1;
			ps->pending.kind = 5;
			pass = (uint32_t)u;
			ps->pending.pass = pass < ps->pass ? ps->pass : pass;
			ps->have_pending = 1;
			if (ps->nbufs > 0)
				return DTC_OK;
			continue;
		} else if (strcmp(it.kind, "fault") == 0 ||
		    strcmp(it.kind, "drop") == 0) {
			dtcp_note *q = &ps->pending.note;

			rc = read_note(ps, &it, q, &pass, err);
			if (rc != DTC_OK)
				return rc;
			/* a library-level fault (a failed setopt()) is decoded
			 * from its record, where it happened; libdtrace's report
			 * of it would print it twice */
			if (q->fault != NULL &&
			    q->fault->fault == DTRACEFLT_LIBRARY) {
				free(q->msg);
				free(q->fault);
				memset(q, 0, sizeof(*q));
				continue;
			}
			ps->pending.kind = 5;
			/* it comes after the records read so far */
			if (pass < ps->pass)
				pass = ps->pass;
			ps->pending.pass = pass;
			ps->have_pending = 1;
			if (ps->nbufs > 0)
				return DTC_OK;
			continue;
		} else {
			continue;  /* unknown kinds: the format may grow */
		}
		/* pass numbers never decrease (dtsnap(5)): a late item joins
		 * the pass being read instead of starting an old one again */
		if (pass < ps->pass) {
			dtcp_error_set(err, DTC_E_BADVALUE, cap->source, it.index,
			    (long long)it.offset, -1, "%s item of pass %u after "
			    "pass %u: pass numbers never decrease; read as pass "
			    "%u", it.kind, pass, ps->pass, ps->pass);
			ps->pending.pass = ps->pass;
			ps->have_pending = 1;
			return DTC_WARN;
		}
		ps->pending.pass = pass;
		ps->have_pending = 1;
		/*
		 * A buffer of a CPU the header says the traced host does not
		 * have: dtrace never writes one (ncpu is the highest CPU id
		 * plus one), so the header or the item is wrong.  Its records
		 * are intact in themselves and nothing in decoding them needs
		 * the CPU to be below ncpu: they are decoded, with a warning,
		 * rather than lost on the word of a header that may be the
		 * part at fault.
		 */
		if ((ps->pending.kind == 1 || ps->pending.kind == 2) &&
		    cap->have_ncpu && (uint64_t)ps->pending.b.cpu >= cap->ncpu) {
			dtcp_error_set(err, DTC_E_BADVALUE, cap->source, it.index,
			    (long long)it.offset, -1, "%s item for cpu %d, but "
			    "the header says the host has %llu cpu%s: dtrace "
			    "writes no buffer for it; decoded all the same",
			    it.kind, ps->pending.b.cpu,
			    (unsigned long long)cap->ncpu,
			    cap->ncpu == 1 ? "" : "s");
			return DTC_WARN;
		}
	}
nomem:
	dtcp_error_set(err, DTC_E_NOMEM, cap->source, -1, -1, -1,
	    "out of memory");
	return DTC_FATAL;
}

/* ------------------------------------------------------------ passes */

static int
add_seg(dtcp_pass *ps, int buf, enum dtcp_filter f, int reset)
{
	if (ps->nsegs == ps->capsegs) {
		size_t cap = ps->capsegs ? ps->capsegs * 2 : 16;
		dtcp_segment *ns = realloc(ps->segs, cap * sizeof(*ns));

		if (ns == NULL)
			return -1;
		ps->segs = ns;
		ps->capsegs = cap;
	}
	ps->segs[ps->nsegs].buf = buf;
	ps->segs[ps->nsegs].filter = f;
	ps->segs[ps->nsegs].reset_flow = reset;
	ps->nsegs++;
	return 0;
}

/* CPU order; two buffers of one CPU (damage: twice_in_pass) in file
 * order, whatever qsort does with equal keys */
static int
bufcmp(const void *a, const void *b)
{
	const dtcp_pbuf *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

/*
 * Two buf items of one CPU in one pass of a legacy capture (the buffers
 * sorted by plan): libdtrace snaps each CPU's buffer once a pass
 * (dtsnap(5), Order), so one of them is misplaced, or a copy with other
 * bytes (an exact copy the container skips).  Both are decoded, in file
 * order; the first such pair of the pass is reported.  DTrace v2 recs
 * items come in as many runs of a CPU as libdtrace had turns of CPUs.
 */
static int
twice_in_pass(dtcp_pass *ps, dtc_error *err)
{
	size_t i;

	if (ps->cap->hdr.v2)
		return DTC_OK;
	for (i = 1; i < ps->nbufs; i++) {
		const dtcp_pbuf *a = &ps->bufs[i - 1], *b = &ps->bufs[i];

		if (a->cpu != b->cpu)
			continue;
		dtcp_error_set(err, DTC_E_DUPLICATE, ps->cap->source, b->item,
		    (long long)b->item_offset, -1, "a second buf item for cpu "
		    "%d in pass %u (the first is item %lld): dtrace snaps a "
		    "cpu's buffer once a pass; both decoded, in file order",
		    b->cpu, ps->pass, a->item);
		return DTC_WARN;
	}
	return DTC_OK;
}

/*
 * libdtrace's order without temporal: the CPU that ran BEGIN first (on
 * the first pass), the other CPUs in id order with flow state reset per
 * CPU, and once tracing stopped the CPU that ran END last.  When BEGIN and
 * END ran on the same CPU in one pass, that buffer is walked twice: its
 * BEGIN records first, the rest last (dt_consume_begin).
 */
static int
plan(dtcp_pass *ps)
{
	const dtcp_status *st = &ps->st;
	int begin = -1, end = -1;
	size_t i;

	ps->nsegs = ps->seg = 0;
	ps->held = NULL;        /* the buffers move */
	if (ps->cap->hdr.v2) {
		/* the records as libdtrace delivered them: file order */
		ps->temporal = 0;
		for (i = 0; i < ps->nbufs; i++) {
			int reset = ps->bufs[i].cpu != ps->flow_cpu ||
			    ps->pass != ps->flow_pass;

			ps->flow_cpu = ps->bufs[i].cpu;
			ps->flow_pass = ps->pass;
			if (add_seg(ps, (int)i, DTCP_F_ALL, reset) != 0)
				return -1;
		}
		return 0;
	}
	qsort(ps->bufs, ps->nbufs, sizeof(*ps->bufs), bufcmp);
	ps->temporal = dtcp_opt_isset(&ps->cap->opts, DTCP_OPT_TEMPORAL);
	if (ps->temporal) {
		ps->nheap = ps->heap_i = 0;
		ps->heap_ready = 0;
		ps->refill = NULL;
		if (ps->capheap < ps->nbufs) {
			dtcp_pbuf **h = realloc(ps->heap,
			    ps->nbufs * sizeof(*h));

			if (h == NULL)
				return -1;
			ps->heap = h;
			ps->capheap = ps->nbufs;
		}
		return 0;
	}
	for (i = 0; i < ps->nbufs; i++) {
		/* of two buffers of one CPU (twice_in_pass), BEGIN's records
		 * are in the first and END's in the last */
		if (!ps->began_consumed && st->have && begin < 0 &&
		    ps->bufs[i].cpu == st->began_on)
			begin = (int)i;
		/* END ran (ended_on known: tracing was stopped, by exit()
		 * or by the user): its CPU comes last */
		if (st->have && (st->exiting || st->ended_on >= 0) &&
		    ps->bufs[i].cpu == st->ended_on)
			end = (int)i;
	}
	if (begin >= 0) {
		ps->began_consumed = 1;
		if (add_seg(ps, begin, begin == end ? DTCP_F_BEGIN_ONLY :
		    DTCP_F_ALL, 0))
			return -1;
	}
	for (i = 0; i < ps->nbufs; i++)
		if ((int)i != begin && (int)i != end &&
		    add_seg(ps, (int)i, DTCP_F_ALL, 1) != 0)
			return -1;
	if (end >= 0 && add_seg(ps, end, end == begin ? DTCP_F_NOT_BEGIN :
	    DTCP_F_ALL, 0) != 0)
		return -1;
	return 0;
}

int
dtcp_pass_plan(dtcp_pass *ps, dtc_error *err)
{
	if (plan(ps) != 0) {
		dtcp_error_set(err, DTC_E_NOMEM, ps->cap->source, -1, -1, -1,
		    "out of memory");
		return DTC_FATAL;
	}
	return twice_in_pass(ps, err);
}

void
dtcp_pass_done(dtcp_pass *ps)
{
	ps->nbufs = 0;
	ps->held = NULL;
	ps->began_consumed = 1;
	/* the pass is consumed: its buffers' pages can go */
	dtcp_container_release(ps->cap->cont);
}

/* ------------------------------------------------------------ records */

const dtc_eprobedesc *
dtcp_pass_fault_eprobe(const dtcp_pass *ps)
{
	const dtc_eprobedesc *ep = ps->rec.ep;
	const dtc_recdesc *rd = &ep->recs[0];

	if (rd->size == 0 || rd->offset >= ep->size ||
	    (rd->size <= 8 ? rd->size : 8) > ep->size - rd->offset)
		return NULL;
	return dtcp_meta_eprobe(&ps->cap->meta, (uint32_t)dtcp_ldsz(
	    ps->rec.data + rd->offset, rd->size <= 8 ? rd->size : 8,
	    ps->cap->swap));
}

static int
is_begin_probe(const dtc_probedesc *p)
{
	return p != NULL && strcmp(p->provider, "dtrace") == 0 &&
	    strcmp(p->name, "BEGIN") == 0;
}

/*
 * The bytes of a buffer left in the file (infile), read now, once: into
 * the walk buffer, which every buffer of every pass reuses (its pages are
 * touched once in a run), or with temporal, which walks the pass's
 * buffers at once, into the buffer's slot (kept from pass to pass).
 * DTC_OK, DTC_WARN when they cannot be read any more (the file shrank:
 * err names the item and where), DTC_FATAL without memory.
 */
static int
load(dtcp_pass *ps, dtcp_pbuf *b, dtc_error *err)
{
	uint8_t **dst = ps->temporal ? &b->owned : &ps->wbuf;
	size_t *cap = ps->temporal ? &b->owned_cap : &ps->wcap;

	if (!b->infile || (!ps->temporal && ps->held == b))
		return DTC_OK;
	ps->held = NULL;
	if (*dst == NULL || *cap < b->size) {
		/* nothing in it is kept: no realloc copy; a power of two,
		 * so that buffers that grow a little from pass to pass do
		 * not each get fresh pages (what is never filled costs no
		 * page) */
		size_t n = DEFER_MIN;

		while (n < b->size && n < SIZE_MAX / 2)
			n *= 2;
		free(*dst);
		*cap = 0;
		if ((*dst = dtcp_container_bigbuf(n)) == NULL) {
			dtcp_error_set(err, DTC_E_NOMEM, ps->cap->source,
			    b->item, (long long)b->item_offset, -1, "out of "
			    "memory holding a %zu-byte buffer", b->size);
			return DTC_FATAL;
		}
		*cap = n;
	}
	if (dtcp_container_pread(ps->cap->cont, b->item, b->file_offset,
	    *dst, b->size, err) != DTC_OK)
		return DTC_WARN;
	b->data = *dst;
	if (!ps->temporal)
		ps->held = b;
	return DTC_OK;
}

static int
start_buffer(dtcp_pass *ps, dtcp_pbuf *b, dtc_error *err)
{
	int rc;

	if ((rc = load(ps, b, err)) != DTC_OK) {
		/* its records are lost, as those of an item cut short */
		b->started = 1;
		b->done = 0;
		(void)dtcp_walker_start(&b->w, NULL, 0, 0, NULL);
		return rc;
	}
	b->w.meta = &ps->cap->meta;
	b->w.v2 = ps->cap->hdr.v2;
	b->w.swap = ps->cap->swap;
	b->w.cpu = b->cpu;
	b->w.source = ps->cap->source;
	b->w.item = b->item;
	b->w.file_offset = b->file_offset;
	b->started = 1;
	b->done = 0;
	/* dtcp_pass_next_record_fast leaves it as it is for the records of
	 * a buffer after its first */
	ps->cap->meta.proc_horizon = b->item;
	return dtcp_walker_start(&b->w, b->data, b->size, b->oldest, err);
}

/* Oldest record first; equal timestamps by CPU, so the order is stable. */
static int
older(const dtcp_pbuf *a, const dtcp_pbuf *b)
{
	if (a->cur.timestamp != b->cur.timestamp)
		return a->cur.timestamp < b->cur.timestamp;
	return a->cpu < b->cpu;
}

static void
heap_push(dtcp_pass *ps, dtcp_pbuf *b)
{
	size_t i = ps->nheap++, parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!older(b, ps->heap[parent]))
			break;
		ps->heap[i] = ps->heap[parent];
		i = parent;
	}
	ps->heap[i] = b;
}

static dtcp_pbuf *
heap_pop(dtcp_pass *ps)
{
	dtcp_pbuf *top = ps->heap[0], *last = ps->heap[--ps->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < ps->nheap) {
		if (c + 1 < ps->nheap && older(ps->heap[c + 1], ps->heap[c]))
			c++;
		if (!older(ps->heap[c], last))
			break;
		ps->heap[i] = ps->heap[c];
		i = c;
	}
	if (ps->nheap > 0)
		ps->heap[i] = last;
	return top;
}

/* Fetch b's next record into the heap; DTC_OK (pushed or done), DTC_WARN. */
static int
heap_fill(dtcp_pass *ps, dtcp_pbuf *b, dtc_error *err)
{
	int rc = dtcp_walker_next(&b->w, &b->cur, err);

	if (rc == DTC_OK) {
		heap_push(ps, b);
		return DTC_OK;
	}
	if (rc == DTC_EOF) {
		b->done = 1;
		queue_drop(ps, DTC_DROP_PRINCIPAL, b->cpu, b->drops);
		return DTC_OK;
	}
	return rc;   /* the walker is at the end of b: EOF comes next */
}

/*
 * The next record of a temporal pass: a binary heap of the CPU buffers
 * keyed on their next record's timestamp, so memory is one entry per CPU
 * and each record costs O(log ncpu).  A buffer goes back into the heap
 * only when the caller asks for the following record, so that while a
 * record set is processed its walker still points just past it (the
 * flowindent return rule looks at the next EPID of that buffer).
 */
static int
temporal_record(dtcp_pass *ps, dtc_error *err)
{
	dtcp_pbuf *b;
	int rc;

	while (!ps->heap_ready) {
		if (ps->heap_i == ps->nbufs) {
			ps->heap_ready = 1;
			break;
		}
		b = &ps->bufs[ps->heap_i];
		if (!b->started) {
			rc = start_buffer(ps, b, err);
			if (rc != DTC_OK)
				return rc;     /* started: next time it is read */
		}
		ps->heap_i++;
		if ((rc = heap_fill(ps, b, err)) != DTC_OK) {
			ps->refill = b;
			return rc;
		}
	}
	if (ps->refill != NULL) {
		b = ps->refill;
		ps->refill = NULL;
		if (!b->done && (rc = heap_fill(ps, b, err)) != DTC_OK) {
			ps->refill = b;
			return rc;
		}
	}
	if (ps->nheap == 0)
		return DTC_EOF;
	b = heap_pop(ps);
	ps->rb = b;
	ps->cap->meta.proc_horizon = b->item;
	ps->rec = b->cur;
	ps->refill = b;
	return DTC_OK;
}

int
dtcp_pass_next_record(dtcp_pass *ps, dtc_error *err)
{
	int rc;

	if (ps->temporal)
		return temporal_record(ps, err);
	while (ps->seg < ps->nsegs) {
		dtcp_segment *s = &ps->segs[ps->seg];
		dtcp_pbuf *b = &ps->bufs[s->buf];

		if (!b->started || (s->filter == DTCP_F_NOT_BEGIN && b->done)) {
			if (s->reset_flow)
				ps->flow_reset = 1;
			rc = start_buffer(ps, b, err);
			if (rc != DTC_OK)
				return rc;
		}
		for (;;) {
			const dtc_probedesc *p;

			rc = dtcp_walker_next(&b->w, &ps->rec, err);
			if (rc == DTC_EOF)
				break;
			if (rc != DTC_OK)
				return rc;
			if (s->filter != DTCP_F_ALL) {
				/* an ERROR record counts as its faulting probe */
				p = ps->rec.ep->probe;
				if (ps->rec.ep->uarg == 1 &&
				    ps->rec.ep->nrecs >= 1) {
					const dtc_eprobedesc *f =
					    dtcp_pass_fault_eprobe(ps);

					p = f != NULL ? f->probe : NULL;
				}
				if ((s->filter == DTCP_F_BEGIN_ONLY) !=
				    is_begin_probe(p))
					continue;
			}
			ps->rb = b;
			ps->cap->meta.proc_horizon = b->item;
			return DTC_OK;
		}
		b->done = 1;
		ps->seg++;
		if (s->filter != DTCP_F_BEGIN_ONLY)
			queue_drop(ps, DTC_DROP_PRINCIPAL, b->cpu, b->drops);
		if (ps->ndq > 0)
			return DTCP_PASS_NOTES;  /* drops to report first */
	}
	return DTC_EOF;
}

/* ------------------------------------------------------------ selection */

static void
resolve_times(dtcp_pass *ps, uint64_t first)
{
	dtcp_select_resolve(ps->sel, ps->cap->meta.clock_hrtime,
	    ps->cap->meta.clock_walltime, first);
}

/*
 * The earliest of the first records of the pass's buffers, where a
 * +DURATION bound counts from: a CPU's buffer is in time order, the
 * consuming order of the CPUs is not.  0 when the pass has no record.
 */
static int
first_timestamp(dtcp_pass *ps, uint64_t *ts)
{
	dtcp_walker w;
	dtcp_walkrec rec;
	size_t i;
	int found = 0;

	for (i = 0; i < ps->nbufs; i++) {
		const dtcp_pbuf *b = &ps->bufs[i];

		memset(&w, 0, sizeof(w));
		w.meta = &ps->cap->meta;
		w.v2 = ps->cap->hdr.v2;
		w.swap = ps->cap->swap;
		w.cpu = b->cpu;
		w.item = b->item;
		w.source = ps->cap->source;
		/* damage is reported when the buffer is consumed */
		if (load(ps, &ps->bufs[i], NULL) == DTC_OK &&
		    dtcp_walker_start(&w, b->data, b->size, b->oldest, NULL) !=
		    DTC_FATAL && dtcp_walker_next(&w, &rec, NULL) == DTC_OK &&
		    (!found || rec.timestamp < *ts)) {
			*ts = rec.timestamp;
			found = 1;
		}
		dtcp_walker_free(&w);
	}
	return found;
}

/*
 * A capture's clock item comes before its first buffer (dtsnap(5)), so
 * it is known by the first pass.  DTC_FATAL with DTC_E_BADOPTION and no
 * item: the caller's request, not the capture, is at fault.
 */
int
dtcp_pass_select_prepare(dtcp_pass *ps, dtc_error *err)
{
	const dtcp_capture *cap = ps->cap;
	const dtcp_tbound *wall;
	uint64_t first = 0;

	if (ps->sel == NULL || ps->sel->time_ready ||
	    !dtcp_select_has_time(ps->sel))
		return DTC_OK;
	if (!ps->sel_checked) {
		wall = dtcp_select_wall_bound(ps->sel);
		if (wall != NULL && !cap->meta.have_clock) {
			dtcp_error_set(err, DTC_E_BADOPTION, cap->source, -1, -1,
			    -1, "cannot select %s %s: wall-clock times need the "
			    "capture's clock item, and it has none (give ns or "
			    "+DURATION)", wall == &ps->sel->since ? "since" :
			    "until", wall->text);
			return DTC_FATAL;
		}
		/* dtrace-v2 records have their pass's time, in captures
		 * whose first clock item says so (dtsnap(5)) */
		if (cap->hdr.v2 && !cap->meta.pass_clocks) {
			dtcp_error_set(err, DTC_E_BADOPTION, cap->source, -1, -1,
			    -1, "cannot select by time (since, until): the "
			    "records of this dtrace-v2 capture carry no "
			    "timestamps (it has no pass clocks)");
			return DTC_FATAL;
		}
		ps->sel_checked = 1;
	}
	if (!dtcp_select_needs_first(ps->sel))
		resolve_times(ps, 0);
	else if (ps->nbufs > 0 && first_timestamp(ps, &first))
		resolve_times(ps, first);
	return DTC_OK;
}

/*
 * An ERROR record is in when dtrace:::ERROR is, or the enabling that
 * faulted.
 */
int
dtcp_pass_selected(dtcp_pass *ps)
{
	const dtc_eprobedesc *ep = ps->rec.ep, *fep;
	dtcp_select *s = ps->sel;

	/* no first record was found before this one (a damaged buffer):
	 * it is the first */
	if (!s->time_ready && dtcp_select_has_time(s))
		resolve_times(ps, ps->rec.timestamp);
	if (!dtcp_select_where(s, ps->rb->cpu, ps->rec.timestamp))
		return 0;
	if (dtcp_select_enabling(s, ep->epid, ep->probeid, ep->probe))
		return 1;
	return ep->uarg == 1 && ep->nrecs >= 1 &&
	    (fep = dtcp_pass_fault_eprobe(ps)) != NULL &&
	    dtcp_select_enabling(s, fep->epid, fep->probeid, fep->probe);
}
