/*
 * json_freebsd.c - FreeBSD dtrace's structured output (libxo, `dtrace -x
 * oformat=json -O`), for people with consumers written against it.
 *
 * One JSON document: {"dtrace": {"probes": [ instance, ... ]}} with one
 * instance per record set (timestamp, cpu, id, provider, module,
 * function, name, output) and one per drop.  The record kinds inside
 * "output" follow FreeBSD's dt_consume.c: "value" for integers, strings
 * and 0x-hex blobs alike, "message" plus raw "value"s for printf,
 * "aggregation-data"/"aggregation-name" for printa, "stack-frames",
 * "ustack-frames", "sym"/"object", "mod", "umod", "usym", "tracemem".
 *
 * Where it must differ (documented in dt2json(1)): the document is
 * written as it goes (the instances stream inside the list, and the
 * closing brackets come at the end); a drop's "timestamp" is the capture's
 * wall clock when it has one (FreeBSD calls gettimeofday() at drop time,
 * which no capture records), else 0; aggregations left at the end of the
 * run are printed (as with -O) in a second list, "aggregations", beside
"probes" in the "dtrace" object; ERROR-probe
 * faults go to stderr as dtrace's text, as FreeBSD does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emitter.h"
#include "model.h"

typedef struct fb {
	FILE *out, *err;
	json_t *probe;       /* the instance being built */
	json_t *output;
	int nprobes;         /* instances written in this document */
	int in_aggs;         /* the final "aggregations" list is open */
	int open;            /* the document is open */
	dtc_buf buf;
	int werr;
} fb;

static void
put_instance(fb *s, json_t *inst)
{
	if (s->nprobes++ > 0)
		fputc(',', s->out);
	if (json_dumpf(inst, s->out, JSON_COMPACT) != 0)
		s->werr = -1;
	fflush(s->out);
	json_decref(inst);
}

static json_t *
hexstr(const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	char *h = malloc(2 * n + 3);
	size_t i;
	json_t *v;

	if (h == NULL)
		return json_null();
	h[0] = '0';
	h[1] = 'x';
	for (i = 0; i < n; i++) {
		h[2 + 2 * i] = hx[p[i] >> 4];
		h[3 + 2 * i] = hx[p[i] & 15];
	}
	v = json_stringn(h, 2 * n + 2);
	free(h);
	return v;
}

/* dt_format_bytes: a printable NUL-terminated string, else 0x-hex */
static json_t *
bytes_value(const uint8_t *p, size_t n)
{
	int is;
	size_t len = model_as_string(p, n, &is);

	return is ? json_stringn((const char *)p, len) : hexstr(p, n);
}

/* integers print signed whatever their type (FreeBSD's %d / %lld) */
static json_t *
int_value(const dtc_value *v)
{
	return json_integer(v->i);
}

static json_t *
value_obj(const dtc_value *v)
{
	json_t *o = json_object();

	json_object_set_new(o, "value", v->kind == DTC_V_INT ? int_value(v) :
	    bytes_value(v->data, v->size));
	return o;
}

static json_t *
frames(fb *s, const dtc_reader *r, const dtc_value *v)
{
	json_t *a = json_array();
	const char *str = (const char *)v->strtab;
	size_t left = v->strtab != NULL ? v->strsize : 0, n;
	uint32_t i;

	for (i = 0; i < v->nframes; i++) {
		uint64_t pc = dtc_value_pc(v, i);
		json_t *f;
		dtc_symbol sym;
		int found;
		char off[24];

		if (pc == 0)
			break;
		f = json_object();
		n = left > 0 ? strnlen(str, left) : 0;
		if (v->kind == DTC_V_USTACK && n > 0 && str[0] != '@' &&
		    !dtc_usym_lookup(r, v->pid, pc, &sym)) {
			json_object_set_new(f, "symbol", json_stringn(str, n));
		} else {
			found = v->kind == DTC_V_USTACK ?
			    dtc_usym_lookup(r, v->pid, pc, &sym) :
			    dtc_ksym_lookup(r, pc, &sym);
			dtc_buf_reset(&s->buf);
			if (v->kind == DTC_V_USTACK)
				dtc_uaddr_text(r, v->pid, pc, 0, &s->buf);
			else
				dtc_frame_text(r, pc, &s->buf);
			json_object_set_new(f, "symbol",
			    json_stringn(s->buf.s, s->buf.len));
			if (found && sym.module != NULL)
				json_object_set_new(f, "module",
				    json_string(sym.module));
			if (found && sym.name != NULL)
				json_object_set_new(f, "name",
				    json_string(sym.name));
			if (!found || sym.name == NULL) {
				snprintf(off, sizeof(off), "0x%" PRIx64, pc);
				json_object_set_new(f, "offset", json_string(off));
			} else if (pc != sym.start) {
				snprintf(off, sizeof(off), "0x%" PRIx64,
				    pc - sym.start);
				json_object_set_new(f, "offset", json_string(off));
			}
		}
		if (n > 0 && str[0] == '@')
			json_object_set_new(f, "annotation",
			    json_stringn(str + 1, n - 1));
		json_array_append_new(a, f);
		if (left > 0) {
			size_t step = n + 1 < left ? n + 1 : left;
			str += step;
			left -= step;
		}
	}
	return a;
}

/* One output element (or a key) for a value. */
static json_t *
element(fb *s, const dtc_reader *r, const dtc_value *v)
{
	json_t *o = json_object();
	dtc_symbol sym;
	char off[24];

	dtc_buf_reset(&s->buf);
	switch (v->kind) {
	case DTC_V_INT:
	case DTC_V_BYTES:
	case DTC_V_OTHER:
	case DTC_V_TYPED:       /* FreeBSD's libxo print() layout: not yet */
		json_decref(o);
		return value_obj(v);
	case DTC_V_STACK:
		json_object_set_new(o, "stack-frames", frames(s, r, v));
		break;
	case DTC_V_USTACK:
		json_object_set_new(o, "ustack-frames", frames(s, r, v));
		break;
	case DTC_V_SYM:
		dtc_addr_text(r, v->addr, 1, &s->buf);
		json_object_set_new(o, "sym", json_stringn(s->buf.s, s->buf.len));
		if (dtc_ksym_lookup(r, v->addr, &sym) && sym.module != NULL)
			json_object_set_new(o, "object", json_string(sym.module));
		if (dtc_ksym_lookup(r, v->addr, &sym) && sym.name != NULL) {
			json_object_set_new(o, "name", json_string(sym.name));
		} else {
			snprintf(off, sizeof(off), "0x%" PRIx64, v->addr);
			json_object_set_new(o, "offset", json_string(off));
		}
		break;
	case DTC_V_MOD:
		dtc_mod_text(r, v->addr, &s->buf);
		json_object_set_new(o, "mod", json_stringn(s->buf.s, s->buf.len));
		break;
	case DTC_V_UMOD:
		dtc_umod_text(r, v->pid, v->addr, &s->buf);
		json_object_set_new(o, "umod", json_stringn(s->buf.s, s->buf.len));
		break;
	case DTC_V_USYM:
	case DTC_V_UADDR:
		dtc_uaddr_text(r, v->pid, v->addr, v->kind == DTC_V_USYM,
		    &s->buf);
		json_object_set_new(o, "usym", json_stringn(s->buf.s, s->buf.len));
		break;
	case DTC_V_MEMORY:
		json_object_set_new(o, "tracemem", bytes_value(v->data, v->size));
		break;
	case DTC_V_PRINTM:
		json_object_set_new(o, "printm", hexstr(v->data, v->size));
		break;
	default:
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *
func_key(uint16_t f)
{
	switch (f) {
	case DTC_AGG_COUNT: return "count";
	case DTC_AGG_SUM: return "sum";
	case DTC_AGG_MIN: return "min";
	case DTC_AGG_MAX: return "max";
	case DTC_AGG_AVG: return "average";
	case DTC_AGG_STDDEV: return "stddev";
	default: return "UNKNOWN";
	}
}

static json_t *
buckets(const dtc_aggval *v)
{
	json_t *a = json_array();
	uint32_t n = dtc_aggval_nbuckets(v), i, lo, hi;
	dtc_bucket b;

	if (n == 0)
		return a;
	model_bucket_range(v, n, &lo, &hi);
	for (i = lo; i <= hi && i < n; i++) {
		json_t *o;

		if (dtc_aggval_bucket(v, i, &b) != 0)
			continue;
		o = json_object();
		if (!b.has_min) {
			json_object_set_new(o, "value", json_integer(b.max + 1));
			json_object_set_new(o, "operator", json_string("<"));
		} else {
			json_object_set_new(o, "value", json_integer(b.min));
			if (!b.has_max && v->func != DTC_AGG_QUANTIZE)
				json_object_set_new(o, "operator",
				    json_string(">="));
		}
		json_object_set_new(o, "count", json_integer(v->normal <= 1 ?
		    b.count : (int64_t)v->normal == -1 ?
		    (int64_t)(0 - (uint64_t)b.count) :
		    b.count / (int64_t)v->normal));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
aggregation(fb *s, const dtc_reader *r, const dtc_aggprint *ap)
{
	json_t *o = json_object(), *rows = json_array();
	size_t j;
	uint32_t i, k;

	for (j = 0; j < ap->nrows; j++) {
		const dtc_aggrow *row = &ap->rows[j];
		const dtc_aggvar *var = row->var != NULL ? row->var :
		    (ap->nvars > 0 ? &ap->vars[0] : NULL);
		json_t *ro = json_object(), *keys = json_array();

		for (k = 0; var != NULL && k < var->nkeys; k++) {
			json_t *e = element(s, r, &row->keys[k]);

			if (e != NULL)
				json_array_append_new(keys, e);
		}
		json_object_set_new(ro, "keys", keys);
		for (i = 0; i < ap->nvars; i++) {
			const dtc_aggval *v = &row->vals[i];

			switch (v->func) {
			case DTC_AGG_QUANTIZE: case DTC_AGG_LQUANTIZE:
			case DTC_AGG_LLQUANTIZE:
				json_object_set_new(ro, "buckets", buckets(v));
				break;
			case DTC_AGG_STDDEV:
				json_object_set_new(ro, "stddev", json_integer(
				    (json_int_t)dtc_aggval_stddev(v)));
				break;
			default:
				/* joined printa: one key per function, as FreeBSD
				 * (the last of equal names wins, as in jq) */
				json_object_set_new(ro, func_key(v->func),
				    json_integer(dtc_aggval_scalar(v)));
				break;
			}
		}
		json_array_append_new(rows, ro);
	}
	json_object_set_new(o, "aggregation-data", rows);
	json_object_set_new(o, "aggregation-name",
	    json_string(ap->nvars > 0 ? ap->vars[0].name : ""));
	return o;
}

static void
begin_doc(fb *s)
{
	if (s->open)
		return;
	fputs("{\"dtrace\":{\"probes\":[", s->out);
	s->open = 1;
	s->nprobes = 0;
	s->in_aggs = 0;
}

static int
on_begin(const dtc_event *ev, void *arg)
{
	(void)ev;
	begin_doc(arg);
	return 0;
}

static int
on_probe(const dtc_event *ev, void *arg)
{
	fb *s = arg;
	const dtc_probedesc *p = ev->probe;

	begin_doc(s);
	s->probe = json_object();
	json_object_set_new(s->probe, "timestamp",
	    json_integer((json_int_t)ev->timestamp));
	json_object_set_new(s->probe, "cpu", json_integer(ev->cpu));
	json_object_set_new(s->probe, "id", json_integer(p != NULL ? p->id :
	    ev->ep->probeid));
	json_object_set_new(s->probe, "provider",
	    json_string(p != NULL ? p->provider : ""));
	json_object_set_new(s->probe, "module",
	    json_string(p != NULL ? p->module : ""));
	json_object_set_new(s->probe, "function",
	    json_string(p != NULL ? p->function : ""));
	json_object_set_new(s->probe, "name",
	    json_string(p != NULL ? p->name : ""));
	s->output = json_array();
	json_object_set_new(s->probe, "output", s->output);
	return 0;
}

static int
on_record(const dtc_event *ev, void *arg)
{
	fb *s = arg;
	const dtc_value *v = ev->value;
	json_t *e;
	dtc_error err;
	uint32_t i;

	if (s->probe == NULL)
		return 0;
	switch (v->kind) {
	case DTC_V_PRINTF:
		if (v->action != DTC_ACT_PRINTF)
			return 0;   /* system()/freopen(): skipped in oformat */
		dtc_error_clear(&err);
		dtc_buf_reset(&s->buf);
		if (dtc_printf_render(ev->reader, v, &s->buf, &err) == DTC_OK) {
			e = json_object();
			json_object_set_new(e, "message",
			    json_stringn(s->buf.s, s->buf.len));
			json_array_append_new(s->output, e);
		}
		for (i = 0; i < v->nargs; i++)
			json_array_append_new(s->output, value_obj(&v->args[i]));
		return 0;
	case DTC_V_PRINTA:
		json_array_append_new(s->output,
		    aggregation(s, ev->reader, v->agg));
		return 0;
	case DTC_V_EXIT:
		return 0;
	default:
		if ((e = element(s, ev->reader, v)) != NULL)
			json_array_append_new(s->output, e);
		return 0;
	}
}

static int
on_probe_end(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	(void)ev;
	if (s->probe != NULL)
		put_instance(s, s->probe);
	s->probe = NULL;
	return 0;
}

static int
on_drop(const dtc_event *ev, void *arg)
{
	fb *s = arg;
	json_t *o = json_object();
	uint64_t wall = 0;
	size_t n = ev->message != NULL ? strlen(ev->message) : 0;

	begin_doc(s);
	json_object_set_new(o, "cpu", json_integer(ev->cpu));
	json_object_set_new(o, "id", json_integer(-1));
	json_object_set_new(o, "provider", json_string("dtrace"));
	json_object_set_new(o, "module", json_string("INTERNAL"));
	json_object_set_new(o, "function", json_string("INTERNAL"));
	json_object_set_new(o, "name", json_string("DROP"));
	dtc_reader_walltime(ev->reader, ev->timestamp, &wall);
	json_object_set_new(o, "timestamp", json_real((double)(wall /
	    1000) / 1e6));
	json_object_set_new(o, "count", json_integer((json_int_t)ev->count));
	json_object_set_new(o, "total", json_integer(ev->dropkind ==
	    DTC_DROP_PRINCIPAL ? 0 : (json_int_t)ev->count));
	json_object_set_new(o, "kind", json_integer(ev->dropkind));
	json_object_set_new(o, "msg", json_stringn(ev->message != NULL ?
	    ev->message : "", n));
	put_instance(s, o);
	return 0;
}

static int
on_error(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	/* FreeBSD's error handler still prints dtrace's text on stderr */
	fprintf(s->err, "dtrace: %s", ev->message != NULL ? ev->message : "");
	return 0;
}

static int
on_agg(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	begin_doc(s);
	if (!s->in_aggs) {
		fputs("],\"aggregations\":[", s->out);
		s->in_aggs = 1;
		s->nprobes = 0;
	}
	put_instance(s, aggregation(s, ev->reader, ev->agg));
	return 0;
}

static int
on_end(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	(void)ev;
	if (!s->open)
		return 0;
	fputs("]}}\n", s->out);
	s->open = 0;
	if (fflush(s->out) != 0)
		s->werr = -1;
	return 0;
}

static void *
create(const dtc_emitter_opts *o)
{
	fb *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->out = o->out;
	s->err = o->err;
	dtc_buf_init(&s->buf);
	return s;
}

static int
destroy(void *state)
{
	fb *s = state;
	int rc = s->werr;

	if (s->probe != NULL)
		json_decref(s->probe);
	dtc_buf_free(&s->buf);
	free(s);
	return rc;
}

const dtc_emitter dtc_fmt_json_freebsd = {
	.name = "json-freebsd",
	.description = "FreeBSD dtrace's libxo JSON document (-x oformat=json -O)",
	.create = create,
	.destroy = destroy,
	.handler = {
		.begin = on_begin,
		.probe = on_probe,
		.record = on_record,
		.probe_end = on_probe_end,
		.agg = on_agg,
		.drop = on_drop,
		.error = on_error,
		.end = on_end,
	},
};
