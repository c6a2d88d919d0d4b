/*
 * test_text.c - the text emitter against dtrace(1)'s bytes.
 *
 * Events are built by hand and fed to the emitter's callbacks; stdout and
 * stderr go to memory streams and are compared byte for byte with:
 *   - snippets of the shared conformance corpus (.r files; non-quiet cases
 *     in dtrace-utils testing mode), with the legacy values of INDEX.md
 *     KD-1/KD-2 and errata K4 where DTrace v2 differs;
 *   - the worked examples of libdtrace-text-facts.md section 11;
 *   - FreeBSD's tst.aggpackzoom.d.out for aggpack/aggzoom;
 *   - layouts derived by hand from the facts (hex dumps, agghist).
 *
 * The library functions the emitter calls are faked below, so this program
 * links only the emitters and buf.c: what is tested is the emitter, with
 * symbolization and rendering results chosen by the test.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emitter.h"

#ifndef DTC_EMIT_ABORT
#define DTC_EMIT_ABORT 2
#endif

/* ------------------------------------------------------------------ */
/* Fakes of the library                                                */
/* ------------------------------------------------------------------ */

#define NOPTS 8
struct dtc_reader {
	dtc_header hdr;
	struct { const char *name; int64_t v; const char *s; } opt[NOPTS];
	int nopt;
};

/* printf/printa formats: the text to produce, or a failure; cut: the
 * text is what is left of a message over the cap (printf_render.c's DTC_WARN) */
struct dtc_format {
	const char *text;
	int fail;
	int cut;
};

/* error.c's, as far as the emitter uses them */
void
dtc_error_clear(dtc_error *err)
{
	memset(err, 0, sizeof(*err));
	err->cpu = -1;
	err->item = err->offset = -1;
}

size_t
dtc_error_format(const dtc_error *err, char *buf, size_t len)
{
	int n;

	if (err->cpu >= 0)
		n = snprintf(buf, len, "%s: cpu %d: %s", err->source, err->cpu,
		    err->text);
	else
		n = snprintf(buf, len, "%s: %s", err->source, err->text);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* What printf_render.c says of a cut message. */
static int
cut_warn(const char *what, dtc_error *err)
{
	err->code = DTC_E_LIMIT;
	snprintf(err->source, sizeof(err->source), "cap.dtsnap");
	snprintf(err->text, sizeof(err->text), "%s message cut at 8 bytes "
	    "(maxmsgsize)", what);
	return DTC_WARN;
}

static void
set_opt(dtc_reader *r, const char *name, int64_t v, const char *s)
{
	r->opt[r->nopt].name = name;
	r->opt[r->nopt].v = v;
	r->opt[r->nopt].s = s;
	r->nopt++;
}

int64_t
dtc_reader_get_option(const dtc_reader *r, const char *name)
{
	int i;

	for (i = 0; i < r->nopt; i++)
		if (strcmp(r->opt[i].name, name) == 0)
			return r->opt[i].v;
	return DTC_OPT_UNSET;
}

const char *
dtc_reader_get_option_string(const dtc_reader *r, const char *name)
{
	int i;

	for (i = 0; i < r->nopt; i++)
		if (strcmp(r->opt[i].name, name) == 0)
			return r->opt[i].s;
	return NULL;
}

const dtc_header *
dtc_reader_header(const dtc_reader *r)
{
	return &r->hdr;
}

uint64_t
dtc_value_pc(const dtc_value *v, uint32_t i)
{
	uint64_t pc = 0;
	uint32_t pc32;

	if (i >= v->nframes)
		return 0;
	if (v->pcsize == 4) {
		memcpy(&pc32, v->pcs + 4 * i, 4);
		return pc32;
	}
	memcpy(&pc, v->pcs + 8 * i, 8);
	return pc;
}

static const struct ksym {
	const char *mod, *name;
	uint64_t start, size;
} ksyms[] = {
	{ "genunix", "fop_read", 0x1000, 0x100 },
	{ "genunix", "read", 0x2000, 0x400 },
	{ "unix", "sys_syscall", 0x3000, 0x200 },
	{ "unix", NULL, 0x3000, 0x1000 },	/* the module */
	{ "genunix", "fop_write", 0x4000, 0x100 },
	{ "genunix", "write", 0x5000, 0x400 },
};

static int
klookup(uint64_t a, const struct ksym **out)
{
	size_t i;

	for (i = 0; i < sizeof(ksyms) / sizeof(ksyms[0]); i++) {
		if (a >= ksyms[i].start && a < ksyms[i].start + ksyms[i].size) {
			*out = &ksyms[i];
			return 1;
		}
	}
	return 0;
}

static void
ktext(uint64_t a, int exact, dtc_buf *out)
{
	const struct ksym *s;

	if (!klookup(a, &s))
		dtc_buf_printf(out, "0x%" PRIx64, a);
	else if (s->name == NULL)
		dtc_buf_printf(out, "%s`0x%" PRIx64, s->mod, a);
	else if (exact || a == s->start)
		dtc_buf_printf(out, "%s`%s", s->mod, s->name);
	else
		dtc_buf_printf(out, "%s`%s+0x%" PRIx64, s->mod, s->name,
		    a - s->start);
}

void
dtc_reader_frame_text(const dtc_reader *r, uint64_t pc, dtc_buf *out)
{
	ktext(pc, 0, out);
}

void
dtc_reader_addr_text(const dtc_reader *r, uint64_t addr, int exact_only,
    dtc_buf *out)
{
	ktext(addr, exact_only, out);
}

void
dtc_reader_mod_text(const dtc_reader *r, uint64_t addr, dtc_buf *out)
{
	const struct ksym *s;

	if (klookup(addr, &s))
		dtc_buf_printf(out, "%s", s->mod);
	else
		dtc_buf_printf(out, "0x%" PRIx64, addr);
}

/* pid 100: libc.so.1 at 0x400000-0x500000, malloc at 0x400100 */
int
dtc_reader_usym_lookup(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_symbol *sym)
{
	memset(sym, 0, sizeof(*sym));
	if (pid != 100 || addr < 0x400000 || addr >= 0x500000)
		return 0;
	sym->module = "libc.so.1";
	sym->start = 0x400000;
	sym->size = 0x100000;
	if (addr >= 0x400100 && addr < 0x400200) {
		sym->name = "malloc";
		sym->start = 0x400100;
		sym->size = 0x100;
	}
	return 1;
}

void
dtc_reader_uaddr_text(const dtc_reader *r, uint64_t pid, uint64_t addr,
    int exact_only, dtc_buf *out)
{
	dtc_symbol s;

	if (!dtc_reader_usym_lookup(r, pid, addr, &s))
		dtc_buf_printf(out, "0x%" PRIx64, addr);
	else if (s.name == NULL)
		dtc_buf_printf(out, "%s`0x%" PRIx64, s.module, addr);
	else if (exact_only || addr == s.start)
		dtc_buf_printf(out, "%s`%s", s.module, s.name);
	else
		dtc_buf_printf(out, "%s`%s+0x%" PRIx64, s.module, s.name,
		    addr - s.start);
}

void
dtc_reader_umod_text(const dtc_reader *r, uint64_t pid, uint64_t addr, dtc_buf *out)
{
	dtc_symbol s;

	if (dtc_reader_usym_lookup(r, pid, addr, &s))
		dtc_buf_printf(out, "%s", s.module);
	else
		dtc_buf_printf(out, "0x%" PRIx64, addr);
}

/* print()'s types: the text the library renders, or NULL for a type it
 * cannot show */
struct dtc_ctype {
	const char *text;
};

int
dtc_reader_typed_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err)
{
	(void)r;
	if (v->ctype->text == NULL) {
		err->code = DTC_E_NOTSUP;
		return DTC_FAILED;
	}
	return dtc_buf_append(out, v->ctype->text, strlen(v->ctype->text)) ==
	    0 ? DTC_OK : DTC_FAILED;
}

int
dtc_reader_printf_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err)
{
	if (v->fmt->fail) {
		err->code = DTC_E_DMISMATCH;
		snprintf(err->text, sizeof(err->text),
		    "data record list does not match statement");
		return -1;
	}
	if (dtc_buf_append(out, v->fmt->text, strlen(v->fmt->text)) != 0)
		return -1;
	return v->fmt->cut ? cut_warn(v->action == DTC_ACT_SYSTEM ? "system()" :
	    "printf()", err) : 0;
}

/* "%d %@d\n" of a row with one integer key */
int
dtc_reader_printa_render(const dtc_reader *r, const dtc_aggprint *ap,
    const dtc_aggrow *row, dtc_buf *out, dtc_error *err)
{
	if (ap->fmt->fail) {
		err->code = DTC_E_DMISMATCH;
		return -1;
	}
	if (dtc_buf_printf(out, "%d %d\n", (int)row->keys[0].i,
	    (int)dtc_aggval_scalar(&row->vals[0])) < 0)
		return -1;
	return ap->fmt->cut ? cut_warn("printa()", err) : 0;
}

/* Symbol texts here are short: never over the cap (caps.sh cuts real
 * ones). */
int
dtc_reader_text_cut(const dtc_reader *r, dtc_buf *out, size_t start,
    const char *what, dtc_error *err)
{
	(void)r;
	(void)out;
	(void)start;
	(void)what;
	(void)err;
	return DTC_OK;
}

/* The histogram engine is aggval.c's; here only its place in the output
 * matters. */
int
dtc_reader_hist_render(const dtc_reader *r, const dtc_aggval *v, dtc_buf *out)
{
	if (v->size == 0)
		return -1;
	return dtc_buf_printf(out, "\n<hist %u>\n", v->size) < 0 ? -1 : 0;
}

static int64_t
w64(const uint8_t *p)
{
	int64_t v;

	memcpy(&v, p, 8);
	return v;
}

uint64_t
dtc_aggval_word(const dtc_aggval *v, uint32_t i)
{
	uint64_t w;

	if ((uint64_t)i * 8 + 8 > v->size)
		return 0;
	memcpy(&w, v->data + 8 * i, 8);
	return v->swapped ? __builtin_bswap64(w) : w;
}

int64_t
dtc_aggval_scalar(const dtc_aggval *v)
{
	uint64_t n = v->normal ? v->normal : 1;

	if (v->func == DTC_AGG_AVG)
		return w64(v->data) ?
		    w64(v->data + 8) / (int64_t)n / w64(v->data) : 0;
	return (int64_t)((uint64_t)w64(v->data) / n);
}

uint64_t
dtc_aggval_stddev(const dtc_aggval *v)
{
	return 287;
}

/* registry.c names the structured emitters; they are not under test */
const dtc_emitter dtc_fmt_json = { .name = "json" };
const dtc_emitter dtc_fmt_cbor = { .name = "cbor" };
const dtc_emitter dtc_fmt_json_freebsd = { .name = "json-freebsd" };
const dtc_emitter dtc_fmt_flamegraph = { .name = "flamegraph" };
const dtc_emitter dtc_fmt_speedscope = { .name = "speedscope" };
const dtc_emitter dtc_fmt_trace_event = { .name = "trace-event" };

/* ------------------------------------------------------------------ */
/* Harness                                                             */
/* ------------------------------------------------------------------ */

typedef struct h {
	dtc_reader rd;
	FILE *out, *err;
	char *obuf, *ebuf;
	size_t olen, elen;
	void *st;
	const dtc_emitter *em;
	dtc_eprobedesc ep;
	dtc_probedesc pd;
	int quiet, flowindent;
	int rv;                  /* OR of the callbacks' return values */
	/* the program's report hook (dtc_emitter_opts.report), when set */
	int hooked, nreports;
	dtc_error report;        /* the last one */
	int cpu;                 /* of the events */
} h;

static h H;

static void
on_report(const dtc_error *e, void *arg)
{
	ck_assert_ptr_eq(arg, &H);
	H.report = *e;
	H.nreports++;
}

static void
h_open_with(const dtc_emitter *em, int testing)
{
	dtc_emitter_opts o;
	int hooked = H.hooked;

	memset(&H, 0, sizeof(H));
	H.em = em;
	H.out = open_memstream(&H.obuf, &H.olen);
	H.err = open_memstream(&H.ebuf, &H.elen);
	ck_assert_ptr_nonnull(H.out);
	ck_assert_ptr_nonnull(H.err);
	memset(&o, 0, sizeof(o));
	o.out = H.out;
	o.err = H.err;
	o.testing = testing;
	if (hooked) {
		H.hooked = 1;
		o.report = on_report;
		o.report_arg = &H;
	}
	H.st = em->create(&o);
	ck_assert_ptr_nonnull(H.st);
	H.pd.id = 1;
	H.pd.provider = "dtrace";
	H.pd.module = "";
	H.pd.function = "";
	H.pd.name = "BEGIN";
	H.ep.epid = 1;
	H.ep.probeid = 1;
	H.ep.probe = &H.pd;
}

static void
h_open(int testing)
{
	h_open_with(&dtc_fmt_text, testing);
}

static void
h_close(void)
{
	ck_assert_int_eq(H.em->destroy(H.st), 0);
	fclose(H.out);
	fclose(H.err);
}

static void
h_free(void)
{
	free(H.obuf);
	free(H.ebuf);
}

static dtc_event
ev_new(int type)
{
	dtc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.reader = &H.rd;
	ev.cpu = H.cpu;
	ev.ep = &H.ep;
	ev.probe = &H.pd;
	ev.quiet = H.quiet;
	ev.flowindent = H.flowindent;
	ev.exit_status = -1;
	return ev;
}

/* as dtc_reader_consume does: a slot left NULL is skipped */
static void
call(int (*cb)(const dtc_event *, void *), const dtc_event *ev)
{
	if (cb != NULL)
		H.rv |= cb(ev, H.st);
}

static void
begin(void)
{
	dtc_event ev = ev_new(DTC_EV_BEGIN);

	ev.header = &H.rd.hdr;
	call(H.em->handler.begin, &ev);
}

static void
end(void)
{
	dtc_event ev = ev_new(DTC_EV_END);

	call(H.em->handler.end, &ev);
}

static void
probe_on(int cpu)
{
	dtc_event ev = ev_new(DTC_EV_PROBE);

	ev.cpu = cpu;
	call(H.em->handler.probe, &ev);
}

static void
probe(void)
{
	probe_on(0);
}

static void
probe_end(void)
{
	dtc_event ev = ev_new(DTC_EV_PROBE_END);

	call(H.em->handler.probe_end, &ev);
}

static int
rec(const dtc_value *v)
{
	dtc_event ev = ev_new(DTC_EV_RECORD);
	int rv;

	ev.value = v;
	rv = H.em->handler.record(&ev, H.st);
	H.rv |= rv;
	return rv;
}

static void
agg_at_exit(const dtc_aggprint *ap)
{
	dtc_event ev = ev_new(DTC_EV_AGG);

	ev.agg = ap;
	call(H.em->handler.agg, &ev);
}

/* stdout and stderr must be exactly these */
#define CHECK_OUT(o, e) do {						\
	h_close();							\
	ck_assert_msg(H.olen == strlen(o) && memcmp(H.obuf, o, H.olen) == 0, \
	    "stdout:\n[%s]\nwanted:\n[%s]", H.obuf, o);			\
	ck_assert_msg(H.elen == strlen(e) && memcmp(H.ebuf, e, H.elen) == 0, \
	    "stderr:\n[%s]\nwanted:\n[%s]", H.ebuf, e);			\
	h_free();							\
} while (0)

/* Values */

static dtc_value
v_int(uint32_t size, int64_t x)
{
	dtc_value v;

	memset(&v, 0, sizeof(v));
	v.kind = DTC_V_INT;
	v.action = DTC_ACT_DIFEXPR;
	v.size = size;
	switch (size) {
	case 1:
		v.u = (uint8_t)x;
		v.i = (int8_t)x;
		break;
	case 2:
		v.u = (uint16_t)x;
		v.i = (int16_t)x;
		break;
	case 4:
		v.u = (uint32_t)x;
		v.i = (int32_t)x;
		break;
	default:
		v.u = (uint64_t)x;
		v.i = x;
		break;
	}
	return v;
}

static uint8_t strbuf[8][256];

/* a string record of strsize bytes: the text, then NULs */
static dtc_value
v_str(int slot, const char *s, uint32_t size)
{
	dtc_value v;

	memset(&v, 0, sizeof(v));
	memset(strbuf[slot], 0, sizeof(strbuf[slot]));
	memcpy(strbuf[slot], s, strlen(s) < size ? strlen(s) : size);
	v.kind = DTC_V_BYTES;
	v.action = DTC_ACT_DIFEXPR;
	v.size = size;
	v.data = strbuf[slot];
	return v;
}

static dtc_value
v_bytes(int kind, const uint8_t *p, uint32_t n)
{
	dtc_value v;

	memset(&v, 0, sizeof(v));
	v.kind = (uint16_t)kind;
	v.action = kind == DTC_V_MEMORY ? DTC_ACT_TRACEMEM : DTC_ACT_DIFEXPR;
	v.size = n;
	v.data = p;
	return v;
}

static dtc_value
v_stack(const uint64_t *pcs, uint32_t n)
{
	dtc_value v;

	memset(&v, 0, sizeof(v));
	v.kind = DTC_V_STACK;
	v.action = DTC_ACT_STACK;
	v.size = 8 * n;
	v.data = (const uint8_t *)pcs;
	v.pcs = (const uint8_t *)pcs;
	v.pcsize = 8;
	v.nframes = n;
	return v;
}

static dtc_value
v_printf(int action, const struct dtc_format *f)
{
	dtc_value v;

	memset(&v, 0, sizeof(v));
	v.kind = DTC_V_PRINTF;
	v.action = (uint16_t)action;
	v.fmt = f;
	return v;
}

/* the 33-column testing-mode prefix of :BEGIN */
#define P "                          :BEGIN "

/* ------------------------------------------------------------------ */
/* Probe lines                                                         */
/* ------------------------------------------------------------------ */

/* aggs/tst.count_notquiet: 3 empty clauses, trace("hello world"), ten
 * count()-only clauses (no records), exit(0); @a printed at exit. */
static void
count_notquiet(void)
{
	dtc_value s = v_str(0, "hello world", 256);
	dtc_value x = v_int(4, 0);
	static uint8_t cnt[8];
	dtc_aggvar var;
	dtc_aggval val;
	dtc_aggrow row;
	dtc_aggprint ap;
	int i;
	int64_t ten = 10;

	x.kind = DTC_V_EXIT;
	x.action = DTC_ACT_EXIT;
	memcpy(cnt, &ten, 8);
	memset(&var, 0, sizeof(var));
	var.func = DTC_AGG_COUNT;
	var.name = "a";
	memset(&val, 0, sizeof(val));
	val.func = DTC_AGG_COUNT;
	val.size = 8;
	val.data = cnt;
	val.normal = 1;
	row.var = &var;
	row.keys = NULL;
	row.vals = &val;
	memset(&ap, 0, sizeof(ap));
	ap.nvars = 1;
	ap.vars = &var;
	ap.nrows = 1;
	ap.rows = &row;
	ap.at_exit = 1;

	begin();
	for (i = 0; i < 3; i++) {
		probe();
		probe_end();
	}
	probe();
	rec(&s);
	probe_end();
	probe();
	rec(&x);
	probe_end();
	agg_at_exit(&ap);
	end();
}

START_TEST(test_count_notquiet_testing)
{
	h_open(1);
	count_notquiet();
	CHECK_OUT(
	    "                   FUNCTION:NAME\n"
	    P "\n" P "\n" P "\n"
	    P "  hello world                      \n"
	    P "\n"
	    "\n"
	    "               10\n", "");
}
END_TEST

START_TEST(test_count_notquiet_columns)
{
	h_open(0);
	count_notquiet();
	CHECK_OUT(
	    "CPU     ID                    FUNCTION:NAME\n"
	    "  0      1                           :BEGIN \n"
	    "  0      1                           :BEGIN \n"
	    "  0      1                           :BEGIN \n"
	    "  0      1                           :BEGIN "
	    "  hello world                      \n"
	    "  0      1                           :BEGIN \n"
	    "\n"
	    "               10\n", "");
}
END_TEST

/* text-facts 11.6: trace((int)42); trace("hello"); trace(1234567890123) */
START_TEST(test_trace_line_columns)
{
	dtc_value a = v_int(4, 42), b = v_str(0, "hello", 256),
	    c = v_int(8, 1234567890123LL);

	h_open(0);
	begin();
	probe();
	rec(&a);
	rec(&b);
	rec(&c);
	probe_end();
	end();
	CHECK_OUT(
	    "CPU     ID                    FUNCTION:NAME\n"
	    "  0      1                           :BEGIN        42  hello"
	    "                                1234567890123\n"
	    "\n", "");
}
END_TEST

/* A clause with no data in quiet mode prints nothing; the header is not
 * printed later either (it is decided at the first record set). */
START_TEST(test_quiet_heading_once)
{
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	probe_end();
	H.quiet = 0;		/* setopt("quiet", "no") later on */
	probe_on(3);
	probe_end();
	end();
	CHECK_OUT("  3      1                           :BEGIN \n\n", "");
}
END_TEST

/* errata O3: setopt("quiet") mid-clause: the end-of-EPID newline follows
 * the new value */
START_TEST(test_quiet_set_midclause)
{
	struct dtc_format f = { "x", 0, 0 };
	dtc_value p = v_printf(DTC_ACT_PRINTF, &f);

	h_open(1);
	begin();
	probe();
	H.quiet = 1;
	rec(&p);
	probe_end();
	end();
	CHECK_OUT("                   FUNCTION:NAME\n" P "x\n", "");
}
END_TEST

/* text-facts 11.7 (flowindent, columns) */
START_TEST(test_flowindent)
{
	static const struct { int flow, indent; const char *name; } seq[] = {
		{ DTC_FLOW_ENTRY, 0, "open" }, { DTC_FLOW_ENTRY, 2, "copen" },
		{ DTC_FLOW_RETURN, 2, "copen" }, { DTC_FLOW_RETURN, 0, "open" },
	};
	size_t i;

	h_open(0);
	H.flowindent = 1;
	begin();
	for (i = 0; i < 4; i++) {
		dtc_event ev = ev_new(DTC_EV_PROBE);

		H.pd.provider = "fbt";
		H.pd.function = seq[i].name;
		H.pd.name = seq[i].flow == DTC_FLOW_ENTRY ? "entry" : "return";
		ev.flow = seq[i].flow;
		ev.indent = seq[i].indent;
		call(H.em->handler.probe, &ev);
		probe_end();
	}
	end();
	CHECK_OUT(
	    "CPU FUNCTION                                 \n"
	    "  0  -> open                                  \n"
	    "  0    -> copen                               \n"
	    "  0    <- copen                               \n"
	    "  0  <- open                                  \n"
	    "\n", "");
}
END_TEST

/* syscall prefixes, "| func:name" for other probes, testing mode, and
 * -F -q running lines together */
START_TEST(test_flowindent_syscall_quiet_testing)
{
	dtc_event ev;

	h_open(1);
	H.flowindent = 1;
	H.quiet = 1;
	begin();
	ev = ev_new(DTC_EV_PROBE);
	H.pd.provider = "syscall";
	H.pd.function = "read";
	H.pd.name = "entry";
	ev.flow = DTC_FLOW_ENTRY;
	call(H.em->handler.probe, &ev);
	probe_end();
	ev = ev_new(DTC_EV_PROBE);
	H.pd.provider = "profile";
	H.pd.function = "";
	H.pd.name = "tick-1sec";
	ev.flow = DTC_FLOW_NONE;
	ev.indent = 2;
	call(H.em->handler.probe, &ev);
	probe_end();
	ev = ev_new(DTC_EV_PROBE);
	H.pd.provider = "syscall";
	H.pd.function = "read";
	H.pd.name = "return";
	ev.flow = DTC_FLOW_RETURN;
	call(H.em->handler.probe, &ev);
	probe_end();
	end();
	CHECK_OUT(
	    "FUNCTION                                 \n"
	    " => read                                  "
	    "  | :tick-1sec                            "
	    " <= read                                  "
	    "\n", "");
}
END_TEST

/* ------------------------------------------------------------------ */
/* trace() of integers (legacy rules: INDEX KD-1, KD-2)                */
/* ------------------------------------------------------------------ */

START_TEST(test_trace_ints_notquiet)
{
	dtc_value a = v_int(1, -1), b = v_int(2, -1), c = v_int(4, -1),
	    d = v_int(8, -1), e = v_int(4, 0xffffffffLL),
	    f = v_int(8, -1), g = v_int(4, 7);

	h_open(1);
	begin();
	probe(); rec(&a); probe_end();		/* tst.int8_t */
	probe(); rec(&b); probe_end();		/* tst.int16_t */
	probe(); rec(&c); probe_end();		/* tst.int32_t */
	probe(); rec(&d); probe_end();		/* tst.int64_t */
	probe(); rec(&e); probe_end();		/* tst.uint32_t */
	probe(); rec(&f); probe_end();		/* tst.uint64_t */
	probe(); rec(&g); probe_end();		/* tst.default trace(7) */
	end();
	CHECK_OUT(
	    "                   FUNCTION:NAME\n"
	    P " 255\n"
	    P " 65535\n"
	    P "       -1\n"
	    P "               -1\n"
	    P "       -1\n"
	    P "               -1\n"
	    P "        7\n"
	    "\n", "");
}
END_TEST

/* aggs/tst.signedkeys, the trace() half, legacy (KD-2) */
START_TEST(test_trace_ints_quiet)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8 };
	dtc_value nl = v_str(0, "\n", 256);
	char want[512] = "";
	int i, k;

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	for (i = 0; i < 4; i++) {
		for (k = -2; k <= 2; k++) {
			dtc_value v = v_int(sizes[i], k);

			rec(&v);
			rec(&nl);
		}
		rec(&nl);
	}
	probe_end();
	end();
	strcat(want, "254\n255\n0\n1\n2\n\n");
	strcat(want, "65534\n65535\n0\n1\n2\n\n");
	strcat(want, "-2\n-1\n0\n1\n2\n\n");
	strcat(want, "-2\n-1\n0\n1\n2\n\n");
	strcat(want, "\n");
	CHECK_OUT(want, "");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Strings and the byte heuristic                                      */
/* ------------------------------------------------------------------ */

/* actions/trace/tst.str */
START_TEST(test_trace_str)
{
	dtc_value a = v_str(0, "a", 256);

	h_open(1);
	begin();
	probe();
	rec(&a);
	probe_end();
	end();
	CHECK_OUT("                   FUNCTION:NAME\n"
	    P "  a                                \n\n", "");
}
END_TEST

/* trace/tst.string: the 33-column padding goes on after a newline */
START_TEST(test_trace_string_padding)
{
	dtc_value a = v_str(0, "this", 256),
	    b = v_str(1, " %should work.\n", 256),
	    c = v_str(2, "%don't w%orry -- this won't cause a %segfault.\n",
		256);

	h_open(1);
	begin();
	probe();
	rec(&a);
	rec(&b);
	rec(&c);
	probe_end();
	end();
	CHECK_OUT("                   FUNCTION:NAME\n"
	    P "  this                                %should work.\n"
	    "                    %don't w%orry -- this won't cause a "
	    "%segfault.\n\n\n", "");
}
END_TEST

/* trace/tst.qstring: quiet strings print bare */
START_TEST(test_trace_qstring)
{
	dtc_value a = v_str(0, "this", 256),
	    b = v_str(1, " %should work.\n", 256),
	    c = v_str(2, "%don't w%orry -- this won't cause a %segfault.\n",
		256);

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&a);
	rec(&b);
	rec(&c);
	probe_end();
	end();
	CHECK_OUT("this %should work.\n"
	    "%don't w%orry -- this won't cause a %segfault.\n\n", "");
}
END_TEST

#define HDR "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f" \
	"  0123456789abcdef\n"

/* A string that fills its record (no NUL) prints padded even when quiet;
 * "" (NUL first), UTF-8 and bytes after the NUL are dumped. */
START_TEST(test_bytes_heuristic)
{
	static const uint8_t full[] = "abcde", utf8[] = "caf\xc3\xa9\0\0\0";
	static const uint8_t garbage[] = { 'd', 't', 0, 0, 'x', 0 };
	static const uint8_t empty[6] = { 0 };
	dtc_value a = v_bytes(DTC_V_BYTES, full, 5),
	    b = v_bytes(DTC_V_BYTES, empty, 6),
	    c = v_bytes(DTC_V_BYTES, utf8, 8),
	    d = v_bytes(DTC_V_BYTES, garbage, 6),
	    e = v_str(0, "tab\there\a\b", 16);

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&a);
	rec(&b);
	rec(&c);
	rec(&d);
	rec(&e);
	probe_end();
	end();
	CHECK_OUT(
	    "  abcde                            "
	    HDR "         0: 00 00 00 00 00 00                    "
	    "            ......\n"
	    HDR "         0: 63 61 66 c3 a9 00 00 00              "
	    "            caf.....\n"
	    HDR "         0: 64 74 00 00 78 00                    "
	    "            dt..x.\n"
	    "tab\there\a\b"
	    "\n", "");
}
END_TEST

/* rawbytes: codegen/tst.str_const_length with a legacy 5-byte record (K3) */
START_TEST(test_rawbytes)
{
	dtc_value a = v_bytes(DTC_V_BYTES, (const uint8_t *)"abcde", 5);

	h_open(0);
	set_opt(&H.rd, "rawbytes", 1, NULL);
	H.quiet = 1;
	begin();
	probe();
	rec(&a);
	probe_end();
	end();
	CHECK_OUT(HDR "         0: 61 62 63 64 65                       "
	    "            abcde\n\n", "");
}
END_TEST

/* actions/trace/tst.struct (12 bytes with padding), non-quiet */
START_TEST(test_trace_struct)
{
	static const uint8_t st[12] = { 0x34, 0x12, 0, 0, 0, 0, 0, 0,
	    0x76, 0x98, 0, 0 };
	dtc_value a = v_bytes(DTC_V_BYTES, st, 12);

	h_open(1);
	begin();
	probe();
	rec(&a);
	probe_end();
	end();
	CHECK_OUT("                   FUNCTION:NAME\n" P
	    HDR "         0: 34 12 00 00 00 00 00 00 76 98 00 00"
	    "              4.......v...\n\n\n", "");
}
END_TEST

/* print(): the library's text as it is, nothing around it (dt_print_type
 * and dtrace_print print it all; the record loop adds nothing) */
START_TEST(test_print_typed)
{
	static const uint8_t st[12] = { 0x34, 0x12, 0, 0, 0, 0, 0, 0,
	    0x76, 0x98, 0, 0 };
	struct dtc_ctype t = { "0x1000 = *\n    (struct s) {\n    }\n" };
	dtc_value a = v_bytes(DTC_V_TYPED, st, 12);

	a.ctype = &t;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&a);
	probe_end();
	end();
	CHECK_OUT("0x1000 = *\n    (struct s) {\n    }\n\n", "");
}
END_TEST

/* print() of a type the library cannot show: the bytes, as trace() of
 * the record would show them (quiet, actions/trace/tst.struct's dump) */
START_TEST(test_print_untyped_fallback)
{
	static const uint8_t st[12] = { 0x34, 0x12, 0, 0, 0, 0, 0, 0,
	    0x76, 0x98, 0, 0 };
	struct dtc_ctype t = { NULL };
	dtc_value a = v_bytes(DTC_V_TYPED, st, 12);

	a.ctype = &t;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&a);
	probe_end();
	end();
	CHECK_OUT(HDR "         0: 34 12 00 00 00 00 00 00 76 98 00 00"
	    "              4.......v...\n\n", "");
}
END_TEST

/* Hex dumps of 0, 1, 15, 16, 17 bytes, laid out by hand from the facts
 * (text-facts 2.2): a zero-length record prints nothing at all. */
START_TEST(test_hexdump_sizes)
{
	uint8_t b[17];
	dtc_value v;
	int i;

	for (i = 0; i < 17; i++)
		b[i] = (uint8_t)(0x41 + i);
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	v = v_bytes(DTC_V_MEMORY, b, 0);
	rec(&v);
	v = v_bytes(DTC_V_MEMORY, b, 1);
	rec(&v);
	v = v_bytes(DTC_V_MEMORY, b, 15);
	rec(&v);
	v = v_bytes(DTC_V_MEMORY, b, 16);
	rec(&v);
	v = v_bytes(DTC_V_MEMORY, b, 17);
	rec(&v);
	probe_end();
	end();
	CHECK_OUT(
	    HDR "         0: 41                                 "
	    "              A\n"
	    HDR "         0: 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f"
	    "     ABCDEFGHIJKLMNO\n"
	    HDR "         0: 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50"
	    "  ABCDEFGHIJKLMNOP\n"
	    HDR "         0: 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50"
	    "  ABCDEFGHIJKLMNOP\n"
	    "        10: 51                                 "
	    "              Q\n"
	    "\n", "");
}
END_TEST

/* 4096 bytes: 256 rows, offsets up to ff0, the ASCII column of every
 * byte value; checked line by line against the layout rules. */
START_TEST(test_hexdump_4096)
{
	static uint8_t b[4096];
	dtc_value v;
	char want[128], *line, *save = NULL;
	int i, j, n = 0, len;

	for (i = 0; i < 4096; i++)
		b[i] = (uint8_t)i;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	v = v_bytes(DTC_V_MEMORY, b, 4096);
	rec(&v);
	probe_end();
	end();
	h_close();
	ck_assert_uint_eq(H.olen, 1 + 78 + 256 * 78 + 1);
	ck_assert(memcmp(H.obuf, HDR, strlen(HDR)) == 0);
	line = strtok_r(H.obuf + strlen(HDR), "\n", &save);
	for (i = 0; i < 4096; i += 16, n++) {
		ck_assert_ptr_nonnull(line);
		len = snprintf(want, sizeof(want), "     %5x:", i);
		for (j = i; j < i + 16; j++)
			len += snprintf(want + len, sizeof(want) - len, " %02x",
			    b[j]);
		len += snprintf(want + len, sizeof(want) - len, "  ");
		for (j = i; j < i + 16; j++)
			want[len++] = b[j] < 0x20 || b[j] > 0x7e ?
			    '.' : (char)b[j];
		want[len] = '\0';
		ck_assert_str_eq(line, want);
		line = strtok_r(NULL, "\n", &save);
	}
	ck_assert_int_eq(n, 256);
	ck_assert_ptr_null(line);	/* then only the end-of-run "\n" */
	h_free();
}
END_TEST

/* tracemem/tst.tracemem with the legacy rules (errata K4): the library
 * has already applied the dynamic sizes -1, 0 (legacy: the whole 14),
 * 2, 7, 12, 14 and 15. */
START_TEST(test_tracemem)
{
	static const uint8_t lv[] = "Linux version ";
	static const uint32_t sizes[] = { 14, 14, 14, 2, 7, 12, 14, 14 };
	static const char *rows[] = {
		"         0: 4c 69 6e 75 78 20 76 65 72 73 69 6f 6e 20"
		"        Linux version \n",
		"         0: 4c 69                                    "
		"        Li\n",
		"         0: 4c 69 6e 75 78 20 76                     "
		"        Linux v\n",
		"         0: 4c 69 6e 75 78 20 76 65 72 73 69 6f      "
		"        Linux versio\n",
	};
	static const int which[] = { 0, 0, 0, 1, 2, 3, 0, 0 };
	char want[4096] = "";
	size_t i;

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	for (i = 0; i < 8; i++) {
		dtc_value v = v_bytes(DTC_V_MEMORY, lv, sizes[i]);

		rec(&v);
		strcat(want, HDR);
		strcat(want, rows[which[i]]);
	}
	probe_end();
	end();
	strcat(want, "\n");
	CHECK_OUT(want, "");
}
END_TEST

/* text-facts 11.8: tracemem of "Hello, world!\n" and six NULs */
START_TEST(test_tracemem_facts)
{
	static const uint8_t m[20] = "Hello, world!\n";
	dtc_value v = v_bytes(DTC_V_MEMORY, m, 20);

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&v);
	probe_end();
	end();
	CHECK_OUT(HDR
	    "         0: 48 65 6c 6c 6f 2c 20 77 6f 72 6c 64 21 0a 00 00"
	    "  Hello, world!...\n"
	    "        10: 00 00 00 00                                    "
	    "  ....\n\n", "");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Stacks and symbols                                                  */
/* ------------------------------------------------------------------ */

/* text-facts 11.6, second example: stack() in a clause, CPU 1, id 5432 */
START_TEST(test_stack_clause)
{
	static const uint64_t pcs[] = { 0x108b, 0x317a, 0, 0 };
	dtc_value v = v_stack(pcs, 4);

	h_open(0);
	H.pd.id = 5432;
	H.pd.provider = "fbt";
	H.pd.function = "read";
	H.pd.name = "entry";
	begin();
	probe_on(1);
	rec(&v);
	probe_end();
	end();
	CHECK_OUT("CPU     ID                    FUNCTION:NAME\n"
	    "  1   5432                       read:entry \n"
	    "              genunix`fop_read+0x8b\n"
	    "              unix`sys_syscall+0x17a\n"
	    "\n\n", "");
}
END_TEST

/* frames at a symbol start, in a module only, unknown; stackindent;
 * 4-byte pcs */
START_TEST(test_stack_unresolved)
{
	static const uint64_t pcs[] = { 0x2000, 0x3500, 0xdead, 0x1001 };
	static const uint32_t pcs32[] = { 0x2000, 0xbeef, 0 };
	dtc_value v = v_stack(pcs, 4), w = v_stack(NULL, 3);

	w.pcs = (const uint8_t *)pcs32;
	w.pcsize = 4;
	w.size = 12;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&v);
	set_opt(&H.rd, "stackindent", 4, NULL);
	rec(&w);
	probe_end();
	end();
	CHECK_OUT("\n"
	    "              genunix`read\n"
	    "              unix`0x3500\n"
	    "              0xdead\n"
	    "              genunix`fop_read+0x1\n"
	    "\n"
	    "    genunix`read\n"
	    "    0xbeef\n"
	    "\n", "");
}
END_TEST

/* A stack whose pc size is neither 4 nor 8: dtrace(1) says "processing
 * aborted" after the stack's newline, exits 1, and prints no end-of-run
 * newline (errata O2). */
START_TEST(test_stack_badpc_aborts)
{
	static const uint8_t pcs[6] = { 1, 2, 3, 4, 5, 6 };
	dtc_value v = v_stack(NULL, 3);

	v.pcs = pcs;
	v.pcsize = 2;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	ck_assert_int_eq(rec(&v), DTC_EMIT_ABORT);
	probe_end();
	end();
	ck_assert_int_eq(H.rv & DTC_EMIT_ABORT, DTC_EMIT_ABORT);
	CHECK_OUT("\n", "dtrace: processing aborted: "
	    "Invalid stack program counter size\n");
}
END_TEST

/* ustack(): a symbol from the capture's maps, helper strings (used
 * offline on illumos; on FreeBSD only for a known process), annotations */
static void
ustack_case(int illumos, uint64_t pid)
{
	static const uint64_t pcs[] = { 0x400180, 0x600000, 0x400050, 0 };
	static const char strtab[] = "\0java/Foo.bar\0@interpreted\0";
	dtc_value v;

	memset(&v, 0, sizeof(v));
	v.kind = DTC_V_USTACK;
	v.action = DTC_ACT_JSTACK;
	v.pid = pid;
	v.pcs = (const uint8_t *)pcs;
	v.pcsize = 8;
	v.nframes = 4;
	v.strtab = (const uint8_t *)strtab;
	v.strsize = sizeof(strtab);
	H.rd.hdr.os_illumos = illumos;
	H.quiet = 1;
	begin();
	probe();
	rec(&v);
	probe_end();
	end();
}

START_TEST(test_ustack_known_process)
{
	h_open(0);
	ustack_case(0, 100);
	CHECK_OUT("\n"
	    "              libc.so.1`malloc+0x80\n"
	    "              java/Foo.bar\n"
	    "              libc.so.1`0x400050\n"
	    "                [ interpreted ]\n"
	    "\n", "");
}
END_TEST

START_TEST(test_ustack_unknown_process_illumos)
{
	h_open(0);
	ustack_case(1, 200);
	CHECK_OUT("\n"
	    "              0x400180\n"
	    "              java/Foo.bar\n"
	    "              0x400050\n"
	    "                [ interpreted ]\n"
	    "\n", "");
}
END_TEST

START_TEST(test_ustack_unknown_process_freebsd)
{
	h_open(0);
	ustack_case(0, 200);
	CHECK_OUT("\n"
	    "              0x400180\n"
	    "              0x600000\n"
	    "              0x400050\n"
	    "                [ interpreted ]\n"
	    "\n", "");
}
END_TEST

START_TEST(test_ustack_empty)
{
	dtc_value v;

	memset(&v, 0, sizeof(v));
	v.kind = DTC_V_USTACK;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&v);
	probe_end();
	end();
	CHECK_OUT("\n", "");
}
END_TEST

/* sym/mod/usym/uaddr/umod: "  %-50s" quiet or not */
START_TEST(test_symbols)
{
	dtc_value v;
	static const int kinds[] = { DTC_V_SYM, DTC_V_MOD, DTC_V_USYM,
	    DTC_V_UADDR, DTC_V_UMOD, DTC_V_SYM };
	static const uint64_t addrs[] = { 0x108b, 0x317a, 0x400180, 0x400180,
	    0x400180, 0x9999 };
	int i;

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	for (i = 0; i < 6; i++) {
		memset(&v, 0, sizeof(v));
		v.kind = (uint16_t)kinds[i];
		v.addr = addrs[i];
		v.pid = 100;
		rec(&v);
	}
	probe_end();
	end();
	CHECK_OUT(
	    "  genunix`fop_read                                  "
	    "  unix                                              "
	    "  libc.so.1`malloc                                  "
	    "  libc.so.1`malloc+0x80                             "
	    "  libc.so.1                                         "
	    "  0x9999                                            "
	    "\n", "");
}
END_TEST

/* ------------------------------------------------------------------ */
/* printf-family records                                               */
/* ------------------------------------------------------------------ */

/* printf/tst.hello: printf without newline, then the end-of-run "\n" */
START_TEST(test_printf_hello)
{
	struct dtc_format f = { "hello", 0, 0 };
	dtc_value p = v_printf(DTC_ACT_PRINTF, &f);

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&p);
	probe_end();
	end();
	CHECK_OUT("hello\n", "");
}
END_TEST

/* actions/default/tst.default (legacy trace(7) width, KD-1) */
START_TEST(test_default_action)
{
	struct dtc_format f1 = { "hello world 1", 0, 0 }, f2 = { "3", 0, 0 };
	dtc_value p1 = v_printf(DTC_ACT_PRINTF, &f1),
	    p2 = v_printf(DTC_ACT_PRINTF, &f2), t = v_int(4, 7),
	    x = v_int(4, 0);

	x.kind = DTC_V_EXIT;
	h_open(1);
	begin();
	probe(); rec(&p1); probe_end();
	probe(); rec(&p2); probe_end();
	probe(); probe_end();
	probe(); rec(&t); probe_end();
	probe(); rec(&x); probe_end();
	end();
	CHECK_OUT("                   FUNCTION:NAME\n"
	    P "hello world 1\n" P "3\n" P "\n" P "        7\n" P "\n\n", "");
}
END_TEST

/* system() and freopen() are rendered and reported, never performed */
START_TEST(test_system_freopen)
{
	struct dtc_format s = { "echo 9 -2", 0, 0 }, o = { "/tmp/out.txt", 0, 0 },
	    r = { ".", 0, 0 }, hello = { "after\n", 0, 0 };
	dtc_value a = v_printf(DTC_ACT_SYSTEM, &s),
	    b = v_printf(DTC_ACT_FREOPEN, &o),
	    c = v_printf(DTC_ACT_FREOPEN, &r),
	    d = v_printf(DTC_ACT_PRINTF, &hello);

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&a);
	rec(&b);
	rec(&d);
	rec(&c);
	probe_end();
	end();
	CHECK_OUT("after\n\n",
	    "dtconsume: system() not executed: echo 9 -2\n"
	    "dtconsume: freopen() not performed: /tmp/out.txt\n"
	    "dtconsume: freopen() restore not performed\n");
}
END_TEST

/*
 * A message over the cap (printf_render.c's DTC_WARN): what there is of it is
 * printed, the output goes on, and the cut is said once per statement
 * (format), after the output so far, on the error stream when the
 * program gives no report hook.  The callbacks return 0: not an abort.
 */
START_TEST(test_printf_cut_once_per_statement)
{
	struct dtc_format big = { "aaaaaaaa", 0, 1 }, big2 = { "bbbbbbbb", 0, 1 },
	    ok = { "|\n", 0, 0 };
	dtc_value a = v_printf(DTC_ACT_PRINTF, &big),
	    b = v_printf(DTC_ACT_PRINTF, &big2),
	    c = v_printf(DTC_ACT_PRINTF, &ok);

	h_open(0);
	H.quiet = 1;
	begin();
	probe(); ck_assert_int_eq(rec(&a), 0); rec(&c); probe_end();
	probe(); ck_assert_int_eq(rec(&a), 0); rec(&c); probe_end();
	H.ep.epid = 7;
	H.cpu = 3;
	probe(); ck_assert_int_eq(rec(&b), 0); rec(&c); probe_end();
	end();
	ck_assert_int_eq(H.rv, 0);
	CHECK_OUT("aaaaaaaa|\naaaaaaaa|\nbbbbbbbb|\n\n",
	    "dtconsume: cap.dtsnap: cpu 0: printf() message cut at 8 bytes "
	    "(maxmsgsize) in a record of enabled probe 1: -x maxmsgsize=0 "
	    "prints it whole; this statement's other cuts are not reported\n"
	    "dtconsume: cap.dtsnap: cpu 3: printf() message cut at 8 bytes "
	    "(maxmsgsize) in a record of enabled probe 7: -x maxmsgsize=0 "
	    "prints it whole; this statement's other cuts are not reported\n");
}
END_TEST

/* The same through the program's hook: nothing on the error stream (the
 * program says it, and sets the exit status), and a new capture reports
 * its own cuts again. */
START_TEST(test_printf_cut_report_hook)
{
	struct dtc_format big = { "aaaaaaaa", 0, 1 };
	dtc_value a = v_printf(DTC_ACT_PRINTF, &big);

	memset(&H, 0, sizeof(H));
	H.hooked = 1;
	h_open(0);
	H.quiet = 1;
	begin();
	H.cpu = 2;
	probe(); rec(&a); probe_end();
	H.cpu = 0;
	probe(); rec(&a); probe_end();
	end();
	ck_assert_int_eq(H.nreports, 1);
	ck_assert_int_eq(H.report.code, DTC_E_LIMIT);
	ck_assert_int_eq(H.report.cpu, 2);
	ck_assert_str_eq(H.report.source, "cap.dtsnap");
	ck_assert_str_eq(H.report.text, "printf() message cut at 8 bytes "
	    "(maxmsgsize) in a record of enabled probe 1: -x maxmsgsize=0 "
	    "prints it whole; this statement's other cuts are not reported");
	begin();
	probe(); rec(&a); probe_end();
	end();
	ck_assert_int_eq(H.nreports, 2);
	CHECK_OUT("aaaaaaaaaaaaaaaa\naaaaaaaa\n", "");
}
END_TEST

/* A system() command over the cap: the notice shows what there is. */
START_TEST(test_system_cut)
{
	struct dtc_format big = { "echo abc", 0, 1 };
	dtc_value a = v_printf(DTC_ACT_SYSTEM, &big);

	h_open(0);
	H.quiet = 1;
	begin();
	probe(); rec(&a); probe_end();
	end();
	CHECK_OUT("\n", "dtconsume: system() not executed: echo abc\n"
	    "dtconsume: cap.dtsnap: cpu 0: system() message cut at 8 bytes "
	    "(maxmsgsize) in a record of enabled probe 1: -x maxmsgsize=0 "
	    "prints it whole; this statement's other cuts are not reported\n");
}
END_TEST

/* A printf that does not match its records: "processing aborted", exit 1,
 * the output so far stays, nothing after (errata O2). */
START_TEST(test_printf_mismatch_aborts)
{
	struct dtc_format ok = { "before ", 0, 0 }, bad = { "", 1, 0 };
	dtc_value a = v_printf(DTC_ACT_PRINTF, &ok),
	    b = v_printf(DTC_ACT_PRINTF, &bad);

	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	ck_assert_int_eq(rec(&a), 0);
	ck_assert_int_eq(rec(&b), DTC_EMIT_ABORT);
	probe_end();
	end();
	CHECK_OUT("before ", "dtrace: processing aborted: "
	    "Data record list does not match statement\n");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Aggregations                                                        */
/* ------------------------------------------------------------------ */

#define MAXROWS 8
typedef struct aggfix {
	dtc_aggvar var;
	dtc_recdesc krd[2];
	dtc_value keys[MAXROWS][2];
	dtc_aggval vals[MAXROWS];
	uint8_t data[MAXROWS][400];
	uint8_t kdata[MAXROWS][64];
	dtc_aggrow rows[MAXROWS];
	dtc_aggprint ap;
} aggfix;

static void
fix_init(aggfix *f, uint16_t func, uint32_t nkeys, const uint32_t *ksizes)
{
	uint32_t k;

	memset(f, 0, sizeof(*f));
	f->var.func = func;
	f->var.varid = 1;
	f->var.name = "a";
	f->var.nkeys = nkeys;
	for (k = 0; k < nkeys; k++)
		f->krd[k].size = ksizes[k];
	f->var.keys = f->krd;
	f->ap.nvars = 1;
	f->ap.vars = &f->var;
	f->ap.rows = f->rows;
}

/* a row; its key values are filled by the caller */
static dtc_aggrow *
fix_row(aggfix *f, const int64_t *words, uint32_t nwords)
{
	size_t i = f->ap.nrows++;

	memcpy(f->data[i], words, 8 * nwords);
	f->vals[i].func = f->var.func;
	f->vals[i].size = 8 * nwords;
	f->vals[i].data = f->data[i];
	f->vals[i].normal = 1;
	f->rows[i].var = &f->var;
	f->rows[i].keys = f->keys[i];
	f->rows[i].vals = &f->vals[i];
	return &f->rows[i];
}

static void
fix_strkey(aggfix *f, size_t i, const char *s, uint32_t size)
{
	memset(f->kdata[i], 0, sizeof(f->kdata[i]));
	memcpy(f->kdata[i], s, strlen(s));
	f->keys[i][0].kind = DTC_V_BYTES;
	f->keys[i][0].size = size;
	f->keys[i][0].data = f->kdata[i];
}

/* text-facts 11.4 and aggs/tst.count2: string keys + count at exit */
START_TEST(test_agg_string_keys)
{
	static const uint32_t ks[] = { 32 };
	static const char *names[] = { "dtrace", "sshd", "bash" };
	static const int64_t counts[] = { 1, 3, 12 };
	aggfix f;
	int i;

	fix_init(&f, DTC_AGG_COUNT, 1, ks);
	for (i = 0; i < 3; i++) {
		fix_row(&f, &counts[i], 1);
		fix_strkey(&f, (size_t)i, names[i], 32);
	}
	f.ap.at_exit = 1;
	h_open(0);
	H.quiet = 1;
	begin();
	agg_at_exit(&f.ap);
	end();
	CHECK_OUT("\n"
	    "  dtrace                                            "
	    "                1\n"
	    "  sshd                                              "
	    "                3\n"
	    "  bash                                              "
	    "               12\n", "");
}
END_TEST

/* aggs/tst.signedkeys, the aggregation half: four variables printed at
 * exit back to back; char/short keys unsigned */
START_TEST(test_agg_signed_keys)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8 };
	static const int order[] = { 0, 1, 2, -2, -1 };
	aggfix f[4];
	int i, j;

	h_open(0);
	H.quiet = 1;
	begin();
	for (i = 0; i < 4; i++) {
		fix_init(&f[i], DTC_AGG_SUM, 1, &sizes[i]);
		f[i].var.varid = i + 1;
		for (j = 0; j < 5; j++) {
			int64_t w = order[j];

			fix_row(&f[i], &w, 1);
			f[i].keys[j][0] = v_int(sizes[i], order[j]);
		}
		f[i].ap.at_exit = 1;
		agg_at_exit(&f[i].ap);
	}
	end();
	CHECK_OUT("\n"
	    "   0                0\n"
	    "   1                1\n"
	    "   2                2\n"
	    " 254               -2\n"
	    " 255               -1\n"
	    "     0                0\n"
	    "     1                1\n"
	    "     2                2\n"
	    " 65534               -2\n"
	    " 65535               -1\n"
	    "        0                0\n"
	    "        1                1\n"
	    "        2                2\n"
	    "       -2               -2\n"
	    "       -1               -1\n"
	    "                0                0\n"
	    "                1                1\n"
	    "                2                2\n"
	    "               -2               -2\n"
	    "               -1               -1\n", "");
}
END_TEST

/* printa/tst.def: printa(@a) has its own leading newline */
START_TEST(test_printa_default)
{
	static const int64_t one = 1;
	aggfix f;
	dtc_value p;

	fix_init(&f, DTC_AGG_COUNT, 0, NULL);
	fix_row(&f, &one, 1);
	memset(&p, 0, sizeof(p));
	p.kind = DTC_V_PRINTA;
	p.action = DTC_ACT_PRINTA;
	p.agg = &f.ap;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&p);
	probe_end();
	end();
	CHECK_OUT("\n                1\n\n", "");
}
END_TEST

/* printa with a format: one rendering per row, no leading newline */
START_TEST(test_printa_format)
{
	static const uint32_t ks[] = { 4 };
	static const int64_t v1 = 10, v2 = 20;
	struct dtc_format fmt = { "", 0, 0 };
	aggfix f;
	dtc_value p;

	fix_init(&f, DTC_AGG_SUM, 1, ks);
	fix_row(&f, &v1, 1);
	f.keys[0][0] = v_int(4, 1);
	fix_row(&f, &v2, 1);
	f.keys[1][0] = v_int(4, 2);
	f.ap.fmt = &fmt;
	memset(&p, 0, sizeof(p));
	p.kind = DTC_V_PRINTA;
	p.action = DTC_ACT_PRINTA;
	p.agg = &f.ap;
	p.fmt = &fmt;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&p);
	probe_end();
	end();
	CHECK_OUT("1 10\n2 20\n\n", "");
}
END_TEST

/* printa rows over the cap: each row as there is of it, the statement
 * reported once */
START_TEST(test_printa_format_cut)
{
	static const uint32_t ks[] = { 4 };
	static const int64_t v1 = 10, v2 = 20;
	struct dtc_format fmt = { "", 0, 1 };
	aggfix f;
	dtc_value p;

	fix_init(&f, DTC_AGG_SUM, 1, ks);
	fix_row(&f, &v1, 1);
	f.keys[0][0] = v_int(4, 1);
	fix_row(&f, &v2, 1);
	f.keys[1][0] = v_int(4, 2);
	f.ap.fmt = &fmt;
	memset(&p, 0, sizeof(p));
	p.kind = DTC_V_PRINTA;
	p.action = DTC_ACT_PRINTA;
	p.agg = &f.ap;
	p.fmt = &fmt;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	ck_assert_int_eq(rec(&p), 0);
	probe_end();
	end();
	CHECK_OUT("1 10\n2 20\n\n",
	    "dtconsume: cap.dtsnap: cpu 0: printa() message cut at 8 bytes "
	    "(maxmsgsize) in a record of enabled probe 1: -x maxmsgsize=0 "
	    "prints it whole; this statement's other cuts are not reported\n");
}
END_TEST

/* aggs/tst.multiaggs2 (scalars): avg, sum, min, max, then a histogram
 * (its block comes from dtc_reader_hist_render) */
START_TEST(test_agg_exit_scalars)
{
	static const int64_t avg[] = { 10, 4500 }, sum = 4500, min = 0,
	    max = 900, q[127] = { 0 };
	aggfix a, b, c, d, e;

	fix_init(&a, DTC_AGG_AVG, 0, NULL);
	fix_row(&a, avg, 2);
	fix_init(&b, DTC_AGG_SUM, 0, NULL);
	fix_row(&b, &sum, 1);
	fix_init(&c, DTC_AGG_MIN, 0, NULL);
	fix_row(&c, &min, 1);
	fix_init(&d, DTC_AGG_MAX, 0, NULL);
	fix_row(&d, &max, 1);
	fix_init(&e, DTC_AGG_QUANTIZE, 0, NULL);
	fix_row(&e, q, 50);
	h_open(0);
	H.quiet = 1;
	begin();
	agg_at_exit(&a.ap);
	agg_at_exit(&b.ap);
	agg_at_exit(&c.ap);
	agg_at_exit(&d.ap);
	agg_at_exit(&e.ap);
	end();
	CHECK_OUT("\n"
	    "              450\n"
	    "             4500\n"
	    "                0\n"
	    "              900\n"
	    "\n<hist 400>\n"
	    "\n", "");
}
END_TEST

/* aggs/tst.stddev: stddev() values are " %16llu" */
START_TEST(test_agg_stddev)
{
	static const int64_t w[4] = { 10, 0, 0, 0 };
	aggfix a;

	fix_init(&a, DTC_AGG_STDDEV, 0, NULL);
	fix_row(&a, w, 4);
	h_open(0);
	H.quiet = 1;
	begin();
	agg_at_exit(&a.ap);
	agg_at_exit(&a.ap);
	end();
	CHECK_OUT("\n              287\n              287\n", "");
}
END_TEST

/* text-facts 11.5: stack keys and count, printed at exit */
START_TEST(test_agg_stack_keys)
{
	static const uint32_t ks[] = { 24 };
	static const uint64_t s1[] = { 0x108b, 0x22a7, 0x317a },
	    s2[] = { 0x408b, 0x52e7, 0x317a };
	static const int64_t c1 = 7, c2 = 23;
	aggfix f;

	fix_init(&f, DTC_AGG_COUNT, 1, ks);
	fix_row(&f, &c1, 1);
	f.keys[0][0] = v_stack(s1, 3);
	fix_row(&f, &c2, 1);
	f.keys[1][0] = v_stack(s2, 3);
	h_open(0);
	H.quiet = 1;
	begin();
	agg_at_exit(&f.ap);
	end();
	CHECK_OUT("\n"
	    "\n"
	    "              genunix`fop_read+0x8b\n"
	    "              genunix`read+0x2a7\n"
	    "              unix`sys_syscall+0x17a\n"
	    "                7\n"
	    "\n"
	    "              genunix`fop_write+0x8b\n"
	    "              genunix`write+0x2e7\n"
	    "              unix`sys_syscall+0x17a\n"
	    "               23\n", "");
}
END_TEST

/* A joined printa(@a, @b): key once, then one value per variable */
START_TEST(test_printa_joined)
{
	static const uint32_t ks[] = { 8 };
	static const int64_t va = 5, vb = -7;
	aggfix f;
	dtc_aggvar vars[2];
	dtc_aggval vals[2];
	dtc_value p;

	fix_init(&f, DTC_AGG_SUM, 1, ks);
	fix_row(&f, &va, 1);
	f.keys[0][0] = v_int(8, 123);
	vars[0] = f.var;
	vars[1] = f.var;
	vars[1].varid = 2;
	vals[0] = f.vals[0];
	vals[1] = f.vals[0];
	vals[1].data = (const uint8_t *)&vb;
	f.rows[0].var = NULL;
	f.rows[0].vals = vals;
	f.ap.nvars = 2;
	f.ap.vars = vars;
	memset(&p, 0, sizeof(p));
	p.kind = DTC_V_PRINTA;
	p.agg = &f.ap;
	h_open(0);
	set_opt(&H.rd, "agghist", 1, NULL);	/* no effect when joined */
	H.quiet = 1;
	begin();
	probe();
	rec(&p);
	probe_end();
	end();
	CHECK_OUT("\n              123                5               -7\n\n",
	    "");
}
END_TEST

/* FreeBSD tst.aggpackzoom.d.out: lquantize(i, 0, 40, 1) per int key with
 * aggpack, then aggpack + aggzoom (UTF-8 glyphs) */
static void
aggpack_fixture(aggfix *f)
{
	static const uint32_t ks[] = { 4 };
	int64_t w[1 + 42];
	int i, k;

	fix_init(f, DTC_AGG_LQUANTIZE, 1, ks);
	f->var.arg = (1ULL << 48) | (40ULL << 32) | 0;
	memset(w, 0, sizeof(w));
	w[0] = (int64_t)f->var.arg;
	w[1 + 1] = 1;			/* value 0 */
	for (i = 1; i <= 30; i++)
		w[1 + 1 + i] = 1000;
	w[1 + 41] = 2000;		/* >= 40 */
	for (k = 0; k < 3; k++) {
		fix_row(f, w, 43);
		f->keys[k][0] = v_int(4, k + 1);
	}
}

static void
printa_now(const dtc_aggprint *ap)
{
	dtc_value p;

	memset(&p, 0, sizeof(p));
	p.kind = DTC_V_PRINTA;
	p.action = DTC_ACT_PRINTA;
	p.agg = ap;
	rec(&p);
}

#define B1 "\xe2\x96\x81"	/* U+2581 */
#define B4 "\xe2\x96\x84"
#define B8 "\xe2\x96\x88"
#define B1x10 B1 B1 B1 B1 B1 B1 B1 B1 B1 B1
#define B4x10 B4 B4 B4 B4 B4 B4 B4 B4 B4 B4
#define PACKHDR "\n      key     min ." \
	"------------------------------------------. max      | count\n"

START_TEST(test_aggpack_zoom_utf8)
{
	aggfix f;

	aggpack_fixture(&f);
	h_open(0);
	set_opt(&H.rd, "encoding", 1, "utf8");
	set_opt(&H.rd, "aggpack", 1, NULL);
	H.quiet = 1;
	begin();
	probe();
	printa_now(&f.ap);
	set_opt(&H.rd, "aggzoom", 1, NULL);
	printa_now(&f.ap);
	probe_end();
	end();
	CHECK_OUT("\n" PACKHDR
	    "        1     < 0 : " B1 B1x10 B1x10 B1x10 "         " B1
	    ": >= 40    | 32001\n"
	    "        2     < 0 : " B1 B1x10 B1x10 B1x10 "         " B1
	    ": >= 40    | 32001\n"
	    "        3     < 0 : " B1 B1x10 B1x10 B1x10 "         " B1
	    ": >= 40    | 32001\n"
	    "\n" PACKHDR
	    "        1     < 0 : " B1 B4x10 B4x10 B4x10 "         " B8
	    ": >= 40    | 32001\n"
	    "        2     < 0 : " B1 B4x10 B4x10 B4x10 "         " B8
	    ": >= 40    | 32001\n"
	    "        3     < 0 : " B1 B4x10 B4x10 B4x10 "         " B8
	    ": >= 40    | 32001\n"
	    "\n", "");
}
END_TEST

START_TEST(test_aggpack_ascii)
{
	aggfix f;

	aggpack_fixture(&f);
	f.ap.nrows = 1;
	h_open(0);
	set_opt(&H.rd, "encoding", 1, "ascii");
	set_opt(&H.rd, "aggpack", 1, NULL);
	H.quiet = 1;
	begin();
	probe();
	printa_now(&f.ap);
	probe_end();
	end();
	CHECK_OUT("\n" PACKHDR
	    "        1     < 0 : _______________________________"
	    "         _: >= 40    | 32001\n\n", "");
}
END_TEST

/* aggpack on quantize, derived by hand (text-facts 4.4): an 8-byte key,
 * buckets 1 (x2) and 4 (x1); the range is 0..8 (first-1 .. last+1). */
START_TEST(test_aggpack_quantize)
{
	static const uint32_t ks[] = { 8 };
	int64_t q[127];
	aggfix f;

	memset(q, 0, sizeof(q));
	q[64] = 2;
	q[66] = 1;
	fix_init(&f, DTC_AGG_QUANTIZE, 1, ks);
	fix_row(&f, q, 50);
	/* fix_row copies at most 400 bytes; point at the full array */
	f.vals[0].data = (const uint8_t *)q;
	f.vals[0].size = sizeof(q);
	f.keys[0][0] = v_int(8, 7);
	h_open(0);
	set_opt(&H.rd, "encoding", 1, "ascii");
	set_opt(&H.rd, "aggpack", 1, NULL);
	H.quiet = 1;
	begin();
	agg_at_exit(&f.ap);
	end();
	CHECK_OUT("\n"
	    "\n              key  min .-----. max  | count\n"
	    "                7    0 : x x : 8    | 3\n", "");
}
END_TEST

/* agghist on count with 8-byte keys, derived by hand (text-facts 4.4 and
 * 5.2): total = 1 + 3, bars 10 and 30 '@' */
START_TEST(test_agghist)
{
	static const uint32_t ks[] = { 8 };
	static const int64_t c1 = 1, c3 = 3;
	aggfix f;

	fix_init(&f, DTC_AGG_COUNT, 1, ks);
	fix_row(&f, &c1, 1);
	f.keys[0][0] = v_int(8, 5);
	fix_row(&f, &c3, 1);
	f.keys[1][0] = v_int(8, 6);
	h_open(0);
	set_opt(&H.rd, "agghist", 1, NULL);
	H.quiet = 1;
	begin();
	agg_at_exit(&f.ap);
	end();
	CHECK_OUT("\n"
	    "\n              key  ------------- Distribution ------------- "
	    "count    \n"
	    "                5 |@@@@@@@@@@                               1"
	    "        \n"
	    "                6 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3"
	    "        \n", "");
}
END_TEST

/* agghist with both signs: half bars either side of the axis (5.2); and
 * aggzoom: the total is the largest |value| / 0.95, truncated */
START_TEST(test_agghist_signs_zoom)
{
	static const uint32_t ks[] = { 8 };
	static const int64_t neg = -1, pos = 3, one = 1;
	aggfix f, g;

	fix_init(&f, DTC_AGG_SUM, 1, ks);
	fix_row(&f, &neg, 1);
	f.keys[0][0] = v_int(8, 1);
	fix_row(&f, &pos, 1);
	f.keys[1][0] = v_int(8, 2);
	fix_init(&g, DTC_AGG_COUNT, 0, NULL);
	g.var.varid = 2;
	fix_row(&g, &one, 1);
	fix_row(&g, &pos, 1);
	h_open(0);
	set_opt(&H.rd, "agghist", 1, NULL);
	H.quiet = 1;
	begin();
	agg_at_exit(&f.ap);
	set_opt(&H.rd, "aggzoom", 1, NULL);
	agg_at_exit(&g.ap);
	end();
	CHECK_OUT("\n"
	    "\n              key  ------------- Distribution ------------- "
	    "count    \n"
	    "                1                @@@@@|                     -1"
	    "       \n"
	    "                2                     |@@@@@@@@@@@@@@@      3"
	    "        \n"
	    "\n           value  ------------- Distribution ------------- "
	    "count    \n"
	    " |@@@@@@@@@@@@@                            1        \n"
	    " |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3        \n", "");
}
END_TEST

/* ------------------------------------------------------------------ */
/* End of run, drops, errors, notices                                  */
/* ------------------------------------------------------------------ */

/* actions/exit/tst.success: quiet, nothing traced: one "\n" */
START_TEST(test_end_newline_quiet)
{
	dtc_value x = v_int(4, 0);

	x.kind = DTC_V_EXIT;
	h_open(0);
	H.quiet = 1;
	begin();
	probe();
	rec(&x);
	probe_end();
	end();
	CHECK_OUT("\n", "");
}
END_TEST

/* Each capture is a run of its own: heading and end-of-run newline again */
START_TEST(test_two_captures)
{
	h_open(1);
	begin();
	probe();
	probe_end();
	end();
	begin();
	probe();
	probe_end();
	end();
	CHECK_OUT("                   FUNCTION:NAME\n" P "\n\n"
	    "                   FUNCTION:NAME\n" P "\n\n", "");
}
END_TEST

START_TEST(test_drop_error_notice)
{
	dtc_event ev;

	h_open(0);
	H.quiet = 1;
	begin();
	ev = ev_new(DTC_EV_DROP);
	ev.dropkind = DTC_DROP_PRINCIPAL;
	ev.count = 1;
	ev.message = "1 drop on CPU 0\n";
	call(H.em->handler.drop, &ev);
	ev = ev_new(DTC_EV_DROP);
	ev.message = "1 failed speculation (no speculative buffer available)\n";
	call(H.em->handler.drop, &ev);
	ev = ev_new(DTC_EV_ERROR);
	ev.message = "error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): "
	    "illegal operation in action #1\n";
	call(H.em->handler.error, &ev);
	ev = ev_new(DTC_EV_NOTICE);
	ev.notice = DTC_NOTICE_LIBERR;
	ev.message = "error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): "
	    "couldn't set option \"Nixon\" to \"1\": Invalid option name\n\n";
	call(H.em->handler.notice, &ev);
	ev = ev_new(DTC_EV_NOTICE);
	ev.notice = DTC_NOTICE_WARNING;
	ev.message = "skipped a record at item 7";
	call(H.em->handler.notice, &ev);
	ev = ev_new(DTC_EV_NOTICE);
	ev.notice = DTC_NOTICE_SYSTEM;
	ev.message = "system(): not executed";
	call(H.em->handler.notice, &ev);
	end();
	CHECK_OUT("\n",
	    "dtrace: 1 drop on CPU 0\n"
	    "dtrace: 1 failed speculation (no speculative buffer available)\n"
	    "dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): "
	    "illegal operation in action #1\n"
	    "dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): "
	    "couldn't set option \"Nixon\" to \"1\": Invalid option name\n\n"
	    "dtconsume: skipped a record at item 7\n");
}
END_TEST

/* A histogram that cannot be printed at exit */
START_TEST(test_agg_exit_failure)
{
	aggfix f;
	static const int64_t z = 0;

	fix_init(&f, DTC_AGG_LLQUANTIZE, 0, NULL);
	fix_row(&f, &z, 1);
	f.vals[0].size = 0;
	h_open(0);
	H.quiet = 1;
	begin();
	agg_at_exit(&f.ap);
	end();
	ck_assert_int_eq(H.rv & DTC_EMIT_ABORT, DTC_EMIT_ABORT);
	CHECK_OUT("\n", "dtrace: failed to print aggregations: "
	    "Data record list does not match statement\n");
}
END_TEST

/* ------------------------------------------------------------------ */
/* null and the registry                                               */
/* ------------------------------------------------------------------ */

/* none renders nothing, only counts: one capture, one firing, two
 * records (the printf's bad format is never looked at) */
START_TEST(test_null_writes_totals)
{
	dtc_value s = v_str(0, "hello", 256);
	struct dtc_format bad = { "", 1, 0 };
	dtc_value p = v_printf(DTC_ACT_PRINTF, &bad);

	h_open_with(&dtc_fmt_null, 0);
	begin();
	probe();
	rec(&s);
	ck_assert_int_eq(rec(&p), 0);	/* not even rendered */
	probe_end();
	end();
	CHECK_OUT("1 captures, 1 probe firings, 2 records, 0 aggregation "
	    "printings (0 rows), 0 drops, 0 errors, 0 notices\n", "");
}
END_TEST

START_TEST(test_registry)
{
	const dtc_emitter *const *l = dtc_emitter_list();
	int n;

	ck_assert_ptr_eq(dtc_emitter_find("text"), &dtc_fmt_text);
	ck_assert_ptr_eq(dtc_emitter_find("json"), &dtc_fmt_json);
	ck_assert_ptr_eq(dtc_emitter_find("cbor"), &dtc_fmt_cbor);
	ck_assert_ptr_eq(dtc_emitter_find("json-freebsd"),
	    &dtc_fmt_json_freebsd);
	ck_assert_ptr_eq(dtc_emitter_find("none"), &dtc_fmt_null);
	ck_assert_ptr_eq(dtc_emitter_find("null"), &dtc_fmt_null);
	ck_assert_ptr_eq(dtc_emitter_find("folded"), &dtc_fmt_folded);
	ck_assert_ptr_eq(dtc_emitter_find("flamegraph"), &dtc_fmt_flamegraph);
	ck_assert_ptr_eq(dtc_emitter_find("speedscope"), &dtc_fmt_speedscope);
	ck_assert_ptr_eq(dtc_emitter_find("trace-event"),
	    &dtc_fmt_trace_event);
	ck_assert_ptr_null(dtc_emitter_find("xml"));
	ck_assert_ptr_null(dtc_emitter_find(NULL));
	for (n = 0; l[n] != NULL; n++)
		ck_assert_ptr_nonnull(l[n]->name);
	ck_assert_int_eq(n, 9);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("text");
	TCase *t;

	t = tcase_create("probe");
	tcase_add_test(t, test_count_notquiet_testing);
	tcase_add_test(t, test_count_notquiet_columns);
	tcase_add_test(t, test_trace_line_columns);
	tcase_add_test(t, test_quiet_heading_once);
	tcase_add_test(t, test_quiet_set_midclause);
	tcase_add_test(t, test_flowindent);
	tcase_add_test(t, test_flowindent_syscall_quiet_testing);
	suite_add_tcase(s, t);

	t = tcase_create("trace");
	tcase_add_test(t, test_trace_ints_notquiet);
	tcase_add_test(t, test_trace_ints_quiet);
	tcase_add_test(t, test_trace_str);
	tcase_add_test(t, test_trace_string_padding);
	tcase_add_test(t, test_trace_qstring);
	tcase_add_test(t, test_bytes_heuristic);
	tcase_add_test(t, test_rawbytes);
	tcase_add_test(t, test_trace_struct);
	tcase_add_test(t, test_hexdump_sizes);
	tcase_add_test(t, test_hexdump_4096);
	tcase_add_test(t, test_tracemem);
	tcase_add_test(t, test_tracemem_facts);
	suite_add_tcase(s, t);

	t = tcase_create("stack");
	tcase_add_test(t, test_stack_clause);
	tcase_add_test(t, test_stack_unresolved);
	tcase_add_test(t, test_stack_badpc_aborts);
	tcase_add_test(t, test_ustack_known_process);
	tcase_add_test(t, test_ustack_unknown_process_illumos);
	tcase_add_test(t, test_ustack_unknown_process_freebsd);
	tcase_add_test(t, test_ustack_empty);
	tcase_add_test(t, test_symbols);
	suite_add_tcase(s, t);

	t = tcase_create("printf");
	tcase_add_test(t, test_printf_hello);
	tcase_add_test(t, test_default_action);
	tcase_add_test(t, test_system_freopen);
	tcase_add_test(t, test_printf_mismatch_aborts);
	tcase_add_test(t, test_printf_cut_once_per_statement);
	tcase_add_test(t, test_printf_cut_report_hook);
	tcase_add_test(t, test_system_cut);
	suite_add_tcase(s, t);

	t = tcase_create("agg");
	tcase_add_test(t, test_agg_string_keys);
	tcase_add_test(t, test_agg_signed_keys);
	tcase_add_test(t, test_printa_default);
	tcase_add_test(t, test_printa_format);
	tcase_add_test(t, test_printa_format_cut);
	tcase_add_test(t, test_agg_exit_scalars);
	tcase_add_test(t, test_agg_stddev);
	tcase_add_test(t, test_agg_stack_keys);
	tcase_add_test(t, test_printa_joined);
	tcase_add_test(t, test_aggpack_zoom_utf8);
	tcase_add_test(t, test_aggpack_ascii);
	tcase_add_test(t, test_aggpack_quantize);
	tcase_add_test(t, test_agghist);
	tcase_add_test(t, test_agghist_signs_zoom);
	tcase_add_test(t, test_agg_exit_failure);
	suite_add_tcase(s, t);

	t = tcase_create("run");
	tcase_add_test(t, test_end_newline_quiet);
	tcase_add_test(t, test_two_captures);
	tcase_add_test(t, test_drop_error_notice);
	tcase_add_test(t, test_null_writes_totals);
	tcase_add_test(t, test_registry);
	tcase_add_test(t, test_print_typed);
	tcase_add_test(t, test_print_untyped_fallback);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
