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
			dtc_frame_text(r, dtc_value_pc(k, 0), b);
		break;
	case DTC_V_USTACK:
		if (k->nframes > 0 && dtc_value_pc(k, 0) != 0)
			dtc_uaddr_text(r, k->pid, dtc_value_pc(k, 0), 0, b);
		break;
	case DTC_V_SYM:
		dtc_addr_text(r, k->addr, 1, b);
		break;
	case DTC_V_USYM:
	case DTC_V_UADDR:
		dtc_uaddr_text(r, k->pid, k->addr, k->kind == DTC_V_USYM, b);
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
	dtc_printf_render(r, v, msg, &e);
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
