/*
 * timeline.c - the firing facts trace_event.c and perfetto.c share
 * (timeline.h), so both formats say the same thing about one capture.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <sys/types.h>
#include <string.h>

#include "model.h"
#include "timeline.h"

int
timeline_flow(const dtc_probedesc *p)
{
	size_t n, w;

	if (p == NULL || p->name == NULL)
		return 0;
	n = strlen(p->name);
	w = n >= 6 ? n - 6 : 0;
	if (strcmp(p->name + w, "return") == 0 &&
	    (w == 0 || p->name[w - 1] == '-'))
		return 2;
	if (n >= 5 && strcmp(p->name + n - 5, "entry") == 0 &&
	    (n == 5 || p->name[n - 6] == '-'))
		return 1;
	return 0;
}

void
timeline_key_text(dtc_buf *b, const dtc_reader *r, const dtc_value *k)
{
	size_t n;

	switch (k->kind) {
	case DTC_V_INT:
		dtc_buf_printf(b, "%" PRId64, k->i);
		break;
	case DTC_V_BYTES:
		if (dtc_value_string(k, &n))
			dtc_buf_append(b, k->data, n);
		else
			dtc_buf_append(b, "(bytes)", 7);
		break;
	case DTC_V_STACK:
		if (k->nframes > 0 && dtc_value_pc(k, 0) != 0)
			dtc_reader_frame_text(r, dtc_value_pc(k, 0), b);
		break;
	case DTC_V_USTACK:
		if (k->nframes > 0 && dtc_value_pc(k, 0) != 0)
			dtc_reader_uaddr_text(r, k->pid, dtc_value_pc(k, 0), 0, b);
		break;
	case DTC_V_SYM:
		dtc_reader_addr_text(r, k->addr, 1, b);
		break;
	case DTC_V_USYM:
	case DTC_V_UADDR:
		dtc_reader_uaddr_text(r, k->pid, k->addr, k->kind == DTC_V_USYM, b);
		break;
	default:
		dtc_buf_append(b, "?", 1);
		break;
	}
}

int64_t
timeline_agg_value(const dtc_aggval *v)
{
	dtc_bucket b;
	uint32_t i, n = dtc_aggval_nbuckets(v);
	int64_t total = 0;

	if (n == 0)
		return v->func == DTC_AGG_STDDEV ?
		    (int64_t)dtc_aggval_stddev(v) : dtc_aggval_scalar(v);
	for (i = 0; i < n; i++)
		if (dtc_aggval_bucket(v, i, &b) == 0)
			total += b.count;
	return total;
}

int
timeline_msg(dtc_buf *msg, const dtc_reader *r, const dtc_value *v,
    size_t max)
{
	dtc_error e = DTC_ERROR_INIT;
	char *nl;

	dtc_buf_reset(msg);
	dtc_reader_printf_render(r, v, msg, &e);
	if (msg->s == NULL)
		return 0;
	if ((nl = memchr(msg->s, '\n', msg->len)) != NULL)
		msg->len = (size_t)(nl - msg->s);
	if (msg->len > max)
		msg->len = model_utf8_cut(msg->s, max);
	while (msg->len > 0 && (msg->s[msg->len - 1] == ' ' ||
	    msg->s[msg->len - 1] == '\t'))
		msg->len--;
	return msg->len > 0;
}

static ssize_t
buf_write(void *cookie, const char *p, size_t n)
{
	return dtc_buf_append(cookie, p, n) == 0 ? (ssize_t)n : -1;
}

FILE *
timeline_buf_file(dtc_buf *b)
{
	cookie_io_functions_t io = { .write = buf_write };

	return fopencookie(b, "w", io);
}

int
timeline_starts(const char *line, size_t n, const char *type)
{
	char want[40];
	int k = snprintf(want, sizeof(want), "{\"type\":\"%s\"", type);

	return (size_t)k <= n && memcmp(line, want, (size_t)k) == 0;
}

void
timeline_drain(void *st, FILE *f, dtc_buf *b,
    void (*fn)(void *, const char *, size_t, const dtc_event *),
    const dtc_event *ev)
{
	const char *p, *nl, *end;

	fflush(f);
	if (b->len == 0)
		return;
	p = b->s;
	end = b->s + b->len;
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		fn(st, p, (size_t)(nl - p), ev);
		p = nl + 1;
	}
	dtc_buf_reset(b);
}

void
timeline_series(const dtc_aggprint *ap, uint32_t j, const dtc_reader *r,
    dtc_buf *scratch, void *arg,
    void (*fn)(void *arg, const char *name, size_t n, int64_t value,
    int first))
{
	int64_t other = 0;
	uint32_t k;
	size_t i;

	for (i = 0; i < ap->nrows; i++) {
		const dtc_aggrow *row = &ap->rows[i];
		const dtc_aggvar *var = row->var != NULL ? row->var :
		    &ap->vars[0];

		if (i >= TIMELINE_MAXSERIES) {
			other += timeline_agg_value(&row->vals[j]);
			continue;
		}
		dtc_buf_reset(scratch);
		for (k = 0; k < var->nkeys; k++) {
			if (k > 0)
				dtc_buf_append(scratch, ", ", 2);
			timeline_key_text(scratch, r, &row->keys[k]);
		}
		if (var->nkeys == 0)
			dtc_buf_append(scratch, "value", 5);
		fn(arg, scratch->s != NULL ? scratch->s : "", scratch->len,
		    timeline_agg_value(&row->vals[j]), i == 0);
	}
	if (ap->nrows > TIMELINE_MAXSERIES)
		fn(arg, "(other rows)", 12, other, 0);
}

/* ------------------------------------------------------------------ */
/* The handlers both formats run                                       */
/* ------------------------------------------------------------------ */

uint64_t
timeline_event_ns(timeline *t, const dtc_event *ev, int firing)
{
	uint64_t wall;

	if (t->v2) {
		if (firing)
			t->seq++;
		return t->seq * 1000;
	}
	if (ev->timestamp != 0 && firing)
		t->last_ts = ev->timestamp;
	if (dtc_reader_walltime(ev->reader, t->last_ts, &wall)) {
		t->wall = 1;
		return wall;
	}
	t->hr = 1;
	return t->last_ts;
}

int
timeline_on_begin(const dtc_event *ev, void *arg)
{
	timeline *t = arg;
	int rc;

	t->capture++;
	t->cpid = TIMELINE_CAPTURE_PID + t->capture;
	t->v2 = ev->header != NULL && ev->header->v2;
	t->seq = 0;
	t->last_ts = 0;
	t->ops->begin(t, ev);
	rc = model_on_begin(ev, t->model);
	t->ops->drain_other(t, ev);
	return rc;
}

int
timeline_on_probe(const dtc_event *ev, void *arg)
{
	timeline *t = arg;
	const dtc_probedesc *p = ev->probe;

	t->pcpu = ev->cpu;
	t->pts = timeline_event_ns(t, ev, 1);
	t->pname = p != NULL && p->fullname != NULL ? p->fullname :
	    "(unknown probe)";
	t->flow = timeline_flow(p);
	t->havemsg = 0;
	t->haveupid = 0;
	return model_on_probe(ev, t->model);
}

/* The maximum bytes of a printf message as an event name */
#define MAXNAME 80

int
timeline_on_record(const dtc_event *ev, void *arg)
{
	timeline *t = arg;
	const dtc_value *v = ev->value;
	int rc;

	if (t->ops->record != NULL)
		t->ops->record(t, ev);
	if (v != NULL && !t->haveupid && v->pid != 0 &&
	    (v->kind == DTC_V_USTACK || v->kind == DTC_V_USYM ||
	    v->kind == DTC_V_UMOD || v->kind == DTC_V_UADDR)) {
		t->upid = v->pid;
		t->haveupid = 1;
	}
	if (v != NULL && v->kind == DTC_V_PRINTF && !t->havemsg &&
	    v->action == DTC_ACT_PRINTF)
		t->havemsg = timeline_msg(&t->msg, ev->reader, v, MAXNAME);
	if (v != NULL && v->kind == DTC_V_PRINTA && v->agg != NULL)
		t->ops->counters(t, ev, v->agg, t->pts);
	rc = model_on_record(ev, t->model);
	t->ops->drain_other(t, ev);
	return rc;
}

int
timeline_on_probe_end(const dtc_event *ev, void *arg)
{
	timeline *t = arg;
	int rc = model_on_probe_end(ev, t->model);

	t->ops->drain_other(t, ev);
	t->ops->drain_probe(t, ev);
	return rc;
}

int
timeline_on_agg(const dtc_event *ev, void *arg)
{
	timeline *t = arg;
	int rc;

	if (ev->agg != NULL)
		t->ops->counters(t, ev, ev->agg, timeline_event_ns(t, ev, 0));
	rc = model_on_agg(ev, t->model);
	t->ops->drain_other(t, ev);
	return rc;
}

#define OTHER(name, fn) \
int name(const dtc_event *ev, void *arg) \
{ \
	timeline *t = arg; \
	int rc = fn(ev, t->model); \
	t->ops->drain_other(t, ev); \
	t->ops->drain_probe(t, ev); \
	return rc; \
}
OTHER(timeline_on_drop, model_on_drop)
OTHER(timeline_on_error, model_on_error)
OTHER(timeline_on_notice, model_on_notice)
#undef OTHER

int
timeline_on_end(const dtc_event *ev, void *arg)
{
	timeline *t = arg;
	int rc = model_on_end(ev, t->model);
	uint64_t ns = timeline_event_ns(t, ev, 0);

	t->ops->drain_other(t, ev);
	t->ops->drain_probe(t, ev);
	t->ops->end(t, ev, ns);
	return rc;
}
