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
 * "probes" in the "dtrace" object; ERROR-probe
 * faults go to stderr as dtrace's text, as FreeBSD does.
 *
 * Memory: the document is streamed at every level that can grow with the
 * capture.  An instance's head (its probe) is written when the record set
 * starts, then each element of its "output" as its record comes, and a
 * printa's aggregation row by row, key by key: only one element (a key,
 * a stack, a row's values) is a jansson tree at a time.  Building the
 * whole instance first cost a hash table per key: an aggregation of 100
 * rows of 3,000 keys took 147 MB and 0.34 s for 4 MB of output.  Each
 * piece is still jansson's compact dump of the tree it would have been in,
 * so the bytes are the same as a dump of the whole document.  A drop met
 * while an instance is open (none is, as the library delivers drops
 * between record sets) would wait for it to close.
 *
 * Errors: a printf (or system(), freopen(), printa() with a format, which
 * are rendered though FreeBSD's document does not show their text) that
 * cannot be rendered stops the capture as with -f text ("dtrace:
 * processing aborted: WHY" on stderr, exit 1), with the instance and the
 * document closed, so that what was written is one valid JSON value; a
 * message cut at the cap (maxmsgsize) is written up to it and reported
 * once per statement (emitter.h).
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
	dtc_emitter_opts opts;   /* the program's, for dtc_emit_cut */
	dtc_cutlog cuts;         /* statements whose cut was reported */
	int in_probe;        /* an instance is open: its "output" streams */
	int nout;            /* elements written in its "output" */
	json_t *pending;     /* drops met while an instance was open */
	int nprobes;         /* instances written in this document */
	int in_aggs;         /* the final "aggregations" list is open */
	int open;            /* the document is open */
	int aborted;         /* processing aborted: nothing more is written */
	dtc_buf buf;
	dtc_buf dump;        /* jansson's text of a piece */
	int werr;
	const dtc_event *ev; /* the record or printing being written */
} fb;

static void
wr(fb *s, const char *t)
{
	if (fputs(t, s->out) == EOF)
		s->werr = -1;
}

/* v (consumed) as jansson dumps it in compact form */
static void
put(fb *s, json_t *v)
{
	if (v == NULL)
		return;
	if (json_dumpf(v, s->out, JSON_COMPACT | JSON_ENCODE_ANY) != 0)
		s->werr = -1;
	json_decref(v);
}

/*
 * The members of object o (consumed) as they appear inside its dump,
 * without the braces, in s->dump; 0, or -1 when out of memory.  A piece
 * of an object that the caller writes in parts.
 */
static int
members(fb *s, json_t *o)
{
	size_t n;

	dtc_buf_reset(&s->dump);
	for (;;) {
		n = json_dumpb(o, s->dump.s, s->dump.cap, JSON_COMPACT);
		if (n == 0)
			break;
		if (n < s->dump.cap) {
			/* "{...}": the inside */
			memmove(s->dump.s, s->dump.s + 1, n - 2);
			s->dump.len = n - 2;
			s->dump.s[s->dump.len] = '\0';
			json_decref(o);
			return 0;
		}
		/* grow to n + 1 bytes (dtc_buf keeps a NUL after len) */
		if (dtc_buf_printf(&s->dump, "%*s", (int)n, "") < 0)
			break;
		dtc_buf_reset(&s->dump);
	}
	json_decref(o);
	s->werr = -1;
	return -1;
}

static void
put_instance(fb *s, json_t *inst)
{
	if (s->nprobes++ > 0)
		wr(s, ",");
	put(s, inst);
	fflush(s->out);
}

/* The next element of the open instance's "output" list. */
static void
put_output(fb *s, json_t *e)
{
	if (e == NULL)
		return;
	if (s->nout++ > 0)
		wr(s, ",");
	put(s, e);
}

/*
 * {"value":N} of an integer record, the most common element and key,
 * written as jansson writes it (JSON_INTEGER_FORMAT) without a tree: a
 * dump costs a hash table of its own (jansson's loop check), which made
 * a key a microsecond.  0 when v is not an integer.
 */
static int
put_int(fb *s, const dtc_value *v)
{
	if (v->kind != DTC_V_INT)
		return 0;
	if (fprintf(s->out, "{\"value\":%" JSON_INTEGER_FORMAT "}",
	    (json_int_t)v->i) < 0)
		s->werr = -1;
	return 1;
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

/* The symbol text in s->buf under the message cap, cut and said once for
 * the record as -f text says it (key: the record's recdesc). */
static json_t *
sym_string(fb *s, const dtc_reader *r, const void *key)
{
	dtc_error err = DTC_ERROR_INIT;
	size_t n = s->buf.len;

	if (dtc_reader_text_cut(r, &s->buf, 0, "symbol", &err) == DTC_WARN) {
		n = model_utf8_cut(s->buf.s, s->buf.len);
		if (s->ev != NULL)
			dtc_emit_cut(&s->opts, &s->cuts, s->ev, key, &err);
	}
	return json_stringn(s->buf.s, n);
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
		    !dtc_reader_usym_lookup(r, v->pid, pc, &sym)) {
			json_object_set_new(f, "symbol", json_stringn(str, n));
		} else {
			found = v->kind == DTC_V_USTACK ?
			    dtc_reader_usym_lookup(r, v->pid, pc, &sym) :
			    dtc_reader_ksym_lookup(r, pc, &sym);
			dtc_buf_reset(&s->buf);
			if (v->kind == DTC_V_USTACK)
				dtc_reader_uaddr_text(r, v->pid, pc, 0, &s->buf);
			else
				dtc_reader_frame_text(r, pc, &s->buf);
			json_object_set_new(f, "symbol",
			    sym_string(s, r, v->rd));
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
		dtc_reader_addr_text(r, v->addr, 1, &s->buf);
		json_object_set_new(o, "sym", sym_string(s, r, v->rd));
		if (dtc_reader_ksym_lookup(r, v->addr, &sym) && sym.module != NULL)
			json_object_set_new(o, "object", json_string(sym.module));
		if (dtc_reader_ksym_lookup(r, v->addr, &sym) && sym.name != NULL) {
			json_object_set_new(o, "name", json_string(sym.name));
		} else {
			snprintf(off, sizeof(off), "0x%" PRIx64, v->addr);
			json_object_set_new(o, "offset", json_string(off));
		}
		break;
	case DTC_V_MOD:
		dtc_reader_mod_text(r, v->addr, &s->buf);
		json_object_set_new(o, "mod", sym_string(s, r, v->rd));
		break;
	case DTC_V_UMOD:
		dtc_reader_umod_text(r, v->pid, v->addr, &s->buf);
		json_object_set_new(o, "umod", sym_string(s, r, v->rd));
		break;
	case DTC_V_USYM:
	case DTC_V_UADDR:
		dtc_reader_uaddr_text(r, v->pid, v->addr, v->kind == DTC_V_USYM,
		    &s->buf);
		json_object_set_new(o, "usym", sym_string(s, r, v->rd));
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

/*
 * The values of one row, as members of the row object: joined printa gives
 * one member per function, as FreeBSD (the last of equal names wins, in
 * the place of the first, as jansson sets them and jq reads them).
 */
static json_t *
row_values(const dtc_aggprint *ap, const dtc_aggrow *row)
{
	json_t *ro = json_object();
	uint32_t i;

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
			json_object_set_new(ro, func_key(v->func),
			    json_integer(dtc_aggval_scalar(v)));
			break;
		}
	}
	return ro;
}

/*
 * {"aggregation-data": [{"keys": [...], VALUES}, ...], "aggregation-name":
 * NAME}, written row by row and key by key: an aggregation may have as
 * many rows as the capture has entries and each row thousands of keys.
 */
static void
put_aggregation(fb *s, const dtc_reader *r, const dtc_aggprint *ap)
{
	json_t *o;
	size_t j;
	uint32_t k;
	int nk;

	wr(s, "{\"aggregation-data\":[");
	for (j = 0; j < ap->nrows; j++) {
		const dtc_aggrow *row = &ap->rows[j];
		const dtc_aggvar *var = row->var != NULL ? row->var :
		    (ap->nvars > 0 ? &ap->vars[0] : NULL);

		wr(s, j > 0 ? ",{\"keys\":[" : "{\"keys\":[");
		for (k = 0, nk = 0; var != NULL && k < var->nkeys; k++) {
			json_t *e = NULL;

			if (row->keys[k].kind != DTC_V_INT &&
			    (e = element(s, r, &row->keys[k])) == NULL)
				continue;
			if (nk++ > 0)
				wr(s, ",");
			if (e != NULL)
				put(s, e);
			else
				put_int(s, &row->keys[k]);
		}
		wr(s, "]");
		if (members(s, row_values(ap, row)) == 0 && s->dump.len > 0) {
			wr(s, ",");
			wr(s, s->dump.s);
		}
		wr(s, "}");
	}
	wr(s, "]");
	/* a name that is not UTF-8 has no member, as in a tree */
	o = json_object();
	json_object_set_new(o, "aggregation-name",
	    json_string(ap->nvars > 0 ? ap->vars[0].name : ""));
	if (members(s, o) == 0 && s->dump.len > 0) {
		wr(s, ",");
		wr(s, s->dump.s);
	}
	wr(s, "}");
}

static void
begin_doc(fb *s)
{
	if (s->open)
		return;
	wr(s, "{\"dtrace\":{\"probes\":[");
	s->open = 1;
	s->nprobes = 0;
	s->in_aggs = 0;
}

static int
on_begin(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	(void)ev;
	s->cuts.n = 0;
	s->aborted = 0;
	begin_doc(s);
	return 0;
}

/*
 * The instance's head: {"timestamp":...,"name":... of a tree, without its
 * closing brace, then the "output" list, which stays open until the
 * record set ends.
 */
static int
on_probe(const dtc_event *ev, void *arg)
{
	fb *s = arg;
	const dtc_probedesc *p = ev->probe;
	json_t *o;

	if (s->aborted)
		return DTC_EMIT_ABORT;
	begin_doc(s);
	o = json_object();
	json_object_set_new(o, "timestamp",
	    json_integer((json_int_t)ev->timestamp));
	json_object_set_new(o, "cpu", json_integer(ev->cpu));
	json_object_set_new(o, "id", json_integer(p != NULL ? p->id :
	    ev->ep->probeid));
	json_object_set_new(o, "provider",
	    json_string(p != NULL ? p->provider : ""));
	json_object_set_new(o, "module",
	    json_string(p != NULL ? p->module : ""));
	json_object_set_new(o, "function",
	    json_string(p != NULL ? p->function : ""));
	json_object_set_new(o, "name",
	    json_string(p != NULL ? p->name : ""));
	if (members(s, o) != 0)
		return 0;
	if (s->nprobes++ > 0)
		wr(s, ",");
	wr(s, "{");
	wr(s, s->dump.s);
	wr(s, s->dump.len > 0 ? ",\"output\":[" : "\"output\":[");
	s->in_probe = 1;
	s->nout = 0;
	return 0;
}

/* The open instance closed, and the drops that waited for it written. */
static void
end_instance(fb *s)
{
	size_t i;

	if (!s->in_probe)
		return;
	wr(s, "]}");
	s->in_probe = 0;
	if (s->pending != NULL) {
		for (i = 0; i < json_array_size(s->pending); i++)
			put_instance(s, json_incref(json_array_get(s->pending,
			    i)));
		json_array_clear(s->pending);
	}
	fflush(s->out);
}

/* The document's closing brackets. */
static void
end_doc(fb *s)
{
	if (!s->open)
		return;
	wr(s, "]}}\n");
	s->open = 0;
	if (fflush(s->out) != 0)
		s->werr = -1;
}

/*
 * dtrace's "processing aborted", as -f text says it: the instance and the
 * document are closed first, so that what was written is one JSON value.
 */
static int
abort_capture(fb *s, const char *msg)
{
	end_instance(s);
	end_doc(s);
	fprintf(s->err, "dtrace: processing aborted: %s\n", msg);
	s->aborted = 1;
	return DTC_EMIT_ABORT;
}

/*
 * A printa() with a format: FreeBSD's document has the rows' data, not
 * their text, but the rows are rendered all the same, so that a row dtrace
 * could not print stops the capture, and a row over the cap is said, as
 * with the other formats: one capture, one exit status, whatever the
 * format.
 */
static int
check_printa(fb *s, const dtc_event *ev, const dtc_aggprint *ap)
{
	dtc_error err;
	size_t j;
	int rc;

	for (j = 0; ap->fmt != NULL && j < ap->nrows; j++) {
		dtc_error_clear(&err);
		dtc_buf_reset(&s->buf);
		rc = dtc_reader_printa_render(ev->reader, ap, &ap->rows[j], &s->buf,
		    &err);
		if (rc == DTC_WARN)
			dtc_emit_cut(&s->opts, &s->cuts, ev, ap->fmt, &err);
		else if (rc != DTC_OK)
			return abort_capture(s, dtc_emit_errmsg(&err));
	}
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
	size_t n;
	int rc;

	s->ev = ev;
	if (s->aborted)
		return DTC_EMIT_ABORT;
	if (!s->in_probe)
		return 0;
	switch (v->kind) {
	case DTC_V_PRINTF:
		/* system()/freopen() are left out of oformat, but rendered
		 * all the same: a record that cannot be, or is cut, is said
		 * as with the other formats */
		dtc_error_clear(&err);
		dtc_buf_reset(&s->buf);
		rc = dtc_reader_printf_render(ev->reader, v, &s->buf, &err);
		if (rc != DTC_OK && rc != DTC_WARN)
			return abort_capture(s, dtc_emit_errmsg(&err));
		if (v->action == DTC_ACT_PRINTF) {
			n = rc == DTC_WARN ? model_utf8_cut(s->buf.s,
			    s->buf.len) : s->buf.len;
			e = json_object();
			json_object_set_new(e, "message",
			    json_stringn(s->buf.s, n));
			put_output(s, e);
			for (i = 0; i < v->nargs; i++) {
				if (v->args[i].kind != DTC_V_INT) {
					put_output(s, value_obj(&v->args[i]));
					continue;
				}
				if (s->nout++ > 0)
					wr(s, ",");
				put_int(s, &v->args[i]);
			}
		}
		if (rc == DTC_WARN)
			dtc_emit_cut(&s->opts, &s->cuts, ev, v->fmt, &err);
		return 0;
	case DTC_V_PRINTA:
		if ((rc = check_printa(s, ev, v->agg)) != 0)
			return rc;
		if (s->nout++ > 0)
			wr(s, ",");
		put_aggregation(s, ev->reader, v->agg);
		return 0;
	case DTC_V_EXIT:
		return 0;
	default:
		if (v->kind == DTC_V_INT) {
			if (s->nout++ > 0)
				wr(s, ",");
			put_int(s, v);
			return 0;
		}
		put_output(s, element(s, ev->reader, v));
		return 0;
	}
}

static int
on_probe_end(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	(void)ev;
	if (s->aborted)
		return DTC_EMIT_ABORT;
	end_instance(s);
	return 0;
}

static int
on_drop(const dtc_event *ev, void *arg)
{
	fb *s = arg;
	json_t *o;
	uint64_t wall = 0;
	size_t n = ev->message != NULL ? strlen(ev->message) : 0;

	if (s->aborted)
		return DTC_EMIT_ABORT;
	begin_doc(s);
	o = json_object();
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
	if (s->in_probe) {
		/* not inside the open instance: after it */
		if (s->pending == NULL)
			s->pending = json_array();
		json_array_append_new(s->pending, o);
		return 0;
	}
	put_instance(s, o);
	return 0;
}

static int
on_error(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	if (s->aborted)
		return DTC_EMIT_ABORT;
	/* FreeBSD's error handler still prints dtrace's text on stderr */
	fprintf(s->err, "dtrace: %s", ev->message != NULL ? ev->message : "");
	return 0;
}

static int
on_agg(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	s->ev = ev;
	if (s->aborted)
		return DTC_EMIT_ABORT;
	begin_doc(s);
	end_instance(s);
	if (!s->in_aggs) {
		wr(s, "],\"aggregations\":[");
		s->in_aggs = 1;
		s->nprobes = 0;
	}
	if (s->nprobes++ > 0)
		wr(s, ",");
	put_aggregation(s, ev->reader, ev->agg);
	fflush(s->out);
	return 0;
}

static int
on_end(const dtc_event *ev, void *arg)
{
	fb *s = arg;

	(void)ev;
	if (s->aborted)
		return DTC_EMIT_ABORT;
	end_instance(s);
	end_doc(s);
	return 0;
}

static void *
create(const dtc_emitter_opts *o)
{
	fb *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->out = o->out;
	s->err = o->err != NULL ? o->err : stderr;
	s->opts = *o;
	s->opts.err = s->err;
	dtc_buf_init(&s->buf);
	dtc_buf_init(&s->dump);
	return s;
}

static int
destroy(void *state)
{
	fb *s = state;
	int rc = s->werr;

	json_decref(s->pending);
	dtc_buf_free(&s->buf);
	dtc_buf_free(&s->dump);
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
