/*
 * model.c - events -> the structured data model (documented in
 * dt2json(1)); json.c and cbor.c encode it.
 *
 * One line per event kind: header, probe (a record set with its records
 * as typed values), aggregation (a printa() or the end-of-run printing),
 * exit, drop, error, notice, end.  A key always holds one type: integers
 * are "value", text "string", raw data "bytes", stacks "frames", and so on.
 * Values that dtrace prints as text are also given as that text
 * ("symbol", "message") so that nothing the text output shows is lost.
 *
 * Errors go as they go in the text output (text.c, emitter.h): a record
 * that cannot be rendered (dtrace's "processing aborted") ends its line
 * ("message": null), which is written, "dtrace: processing aborted: WHY"
 * goes to the error stream and the callback returns DTC_EMIT_ABORT, so
 * the program stops and exits 1 as with -f text; a message cut at the cap
 * (maxmsgsize) is given up to it with "truncated": true, reported once
 * per statement, and decoding goes on.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "pccache.h"

/*
 * A probe line's identity members (epid, id, provider, module, function,
 * name, probe: 7 of its 13) are the same on every line of an enabled
 * probe; they are encoded once and their bytes reused, which halves the
 * work of a probe line.  Slots are by EPID; a BEGIN (a new reader, whose
 * descriptions may sit where the last one's did) empties them.
 */
#define NIDS 256
typedef struct idbytes {
	const dtc_eprobedesc *ep;       /* NULL: empty */
	const dtc_probedesc *probe;
	void *bytes;
	size_t len, cap;
} idbytes;

/* A kernel frame's encoded members after its pc (module, name, offset,
 * symbol) kept by pc (pccache.h): two cache lines an entry, 4 MiB; the
 * stack benchmark's 47,000 distinct pcs hit 65% of frames. */
#define FRAMES_BITS 15
#define FRAMES_ENTRY 128

typedef struct model {
	model_out *po;          /* the probe line being built */
	model_out *oo;          /* every other line */
	int in_probe;
	uint64_t seq;           /* line sequence number, per run */
	uint64_t probe_seq;
	dtc_buf buf;            /* rendering scratch */
	int err;
	int aborted;            /* the capture stopped: processing aborted */
	const dtc_event *ev;    /* the RECORD event being written, or NULL */
	dtc_emitter_opts opts;  /* the program's streams and report */
	dtc_cutlog cuts;        /* statements whose cut was reported */
	idbytes ids[NIDS];
	pccache frames;         /* encoded kernel frames by pc */
	const dtc_reader *cap_reader;   /* whose maxmsgsize cap is in cap */
	size_t cap;
	/* a symbol's cut, cleared again only once something was written
	 * into it (a clear is 500 bytes, and every uncached frame has one) */
	dtc_error serr;
	/* the same for printf() and printa() messages: 80 instructions a
	 * printf firing when cleared on every record */
	dtc_error perr;
} model;

#define O(o, op, ...) ((o)->ops->op((o), ##__VA_ARGS__))
/* keys are literals: their length is known at compile time */
#define KEY(o, k) O(o, key, "" k "", sizeof(k) - 1)
#define kstr(o, k, s) kstr_((o), "" k "", sizeof(k) - 1, (s))
#define ki64(o, k, v) ki64_((o), "" k "", sizeof(k) - 1, (v))
#define ku64(o, k, v) ku64_((o), "" k "", sizeof(k) - 1, (v))

static void
kstr_(model_out *o, const char *k, size_t kn, const char *s)
{
	O(o, key, k, kn);
	if (s == NULL)
		O(o, null);
	else
		O(o, str, s, strlen(s));
}

/*
 * A member whose value is a function of check alone (model_tmpl_ops):
 * written only when the builder's template does not hold it already.
 * The members of a probe line and of its records that are the same on
 * every firing of an enabled probe are written so, their maps opened by
 * tmap() with what they depend on as the tag.
 */
#define SAME(o, k, check) ((o)->tmpl != NULL && \
	(o)->tmpl->same((o), "" k "", sizeof(k) - 1, (uint64_t)(check)))
#define cstr(o, k, s) do { \
	const char *s_ = (s); \
	if (!SAME(o, k, (uintptr_t)s_)) \
		kstr(o, k, s_); \
} while (0)
#define cu64(o, k, v) do { \
	uint64_t v_ = (v); \
	if (!SAME(o, k, v_)) \
		ku64(o, k, v_); \
} while (0)

static void
tmap(model_out *o, const void *a, const void *b)
{
	if (o->tmpl != NULL)
		o->tmpl->map_tmpl(o, a, b);
	else
		O(o, map_begin);
}

static void
ki64_(model_out *o, const char *k, size_t kn, int64_t v)
{
	O(o, key, k, kn);
	O(o, i64, v);
}

static void
ku64_(model_out *o, const char *k, size_t kn, uint64_t v)
{
	O(o, key, k, kn);
	O(o, u64, v);
}

static int
endline(model *m, model_out *o)
{
	if (O(o, line_end) != 0)
		m->err = -1;
	return 0;
}

static const char *
act_name(uint16_t a)
{
	switch (a) {
	case DTC_ACT_DIFEXPR: return "trace";
	case DTC_ACT_EXIT: return "exit";
	case DTC_ACT_PRINTF: return "printf";
	case DTC_ACT_PRINTA: return "printa";
	case DTC_ACT_TRACEMEM: return "tracemem";
	case DTC_ACT_PRINTM: return "printm";
	case DTC_ACT_PRINTT: return "printt";
	case DTC_ACT_USTACK: return "ustack";
	case DTC_ACT_JSTACK: return "jstack";
	case DTC_ACT_USYM: return "usym";
	case DTC_ACT_UMOD: return "umod";
	case DTC_ACT_UADDR: return "uaddr";
	case DTC_ACT_SYSTEM: return "system";
	case DTC_ACT_FREOPEN: return "freopen";
	case DTC_ACT_STACK: return "stack";
	case DTC_ACT_SYM: return "sym";
	case DTC_ACT_MOD: return "mod";
	default: return "other";
	}
}

static const char *
func_name(uint16_t f)
{
	switch (f) {
	case DTC_AGG_COUNT: return "count";
	case DTC_AGG_MIN: return "min";
	case DTC_AGG_MAX: return "max";
	case DTC_AGG_AVG: return "avg";
	case DTC_AGG_SUM: return "sum";
	case DTC_AGG_STDDEV: return "stddev";
	case DTC_AGG_QUANTIZE: return "quantize";
	case DTC_AGG_LQUANTIZE: return "lquantize";
	case DTC_AGG_LLQUANTIZE: return "llquantize";
	default: return "unknown";
	}
}

/*
 * n, less an incomplete UTF-8 character at the end: a message cut at the
 * cap may end inside one, and the encoders take a text that is not UTF-8
 * for Latin-1 as a whole (json.c, cbor.c), which would garble all of it
 * for the sake of its last byte or three.
 */
size_t
model_utf8_cut(const char *s, size_t n)
{
	size_t k;

	for (k = 1; k <= 3 && k <= n; k++) {
		unsigned char b = (unsigned char)s[n - k];

		if ((b & 0xc0) == 0x80)
			continue;
		/* a lead byte (0xc2-0xf4) whose character needs more bytes
		 * than are left; anything else stays as it is */
		if (b >= 0xc2 && b <= 0xf4 &&
		    (size_t)(b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) > k)
			return n - k;
		return n;
	}
	return n;
}

/*
 * A rendered message into an open map: "message", and "truncated": true
 * when it was cut at the cap (rc DTC_WARN, reported once per statement);
 * null when it could not be rendered.
 */
static void
message_member(model *m, model_out *o, const dtc_event *ev, const void *fmt,
    int rc, const dtc_error *err)
{
	KEY(o, "message");
	if (rc != DTC_OK && rc != DTC_WARN) {
		O(o, null);
		return;
	}
	O(o, str, m->buf.s, rc == DTC_WARN ?
	    model_utf8_cut(m->buf.s, m->buf.len) : m->buf.len);
	if (rc == DTC_WARN) {
		KEY(o, "truncated");
		O(o, boolean, 1);
		dtc_emit_cut(&m->opts, &m->cuts, ev, fmt, err);
	}
}

/* dtrace's "processing aborted" (text.c's abort_capture): the lines so
 * far are out, then the reason; the capture stops here. */
static int
abort_capture(model *m, const char *what, const char *msg)
{
	FILE *e = m->opts.err != NULL ? m->opts.err : stderr;

	if (m->opts.out != NULL && fflush(m->opts.out) != 0)
		m->err = -1;
	fprintf(e, "dtrace: %s: %s\n", what, msg);
	m->aborted = 1;
	return DTC_EMIT_ABORT;
}

/* The cap on one message or value (dtc_emit_cap): every kernel frame's
 * two names are checked against it (stack -f json: a lookup by name per
 * name was 10,400 instructions a firing). */
static size_t
model_cap(model *m, const dtc_reader *r)
{
	return dtc_emit_cap(r, &m->cap_reader, &m->cap);
}

/* The library's rule (dtc_bytes_string): whether dtrace shows a record as
 * a string, and its length. */
size_t
model_as_string(const uint8_t *p, size_t n, int *is)
{
	size_t len = 0;

	*is = dtc_bytes_string(p, n, &len);
	return *is ? len : 0;
}

static void
int_payload(model_out *o, const dtc_value *v)
{
	KEY(o, "value");
	/* as dtrace prints them: 1- and 2-byte records unsigned */
	if (v->size <= 2)
		O(o, u64, v->u);
	else
		O(o, i64, v->i);
}

static void
bytes_payload(model_out *o, const uint8_t *p, size_t n)
{
	int is;
	size_t len = model_as_string(p, n, &is);

	if (is) {
		KEY(o, "string");
		O(o, str, (const char *)p, len);
	} else {
		KEY(o, "bytes");
		O(o, bytes, p, n);
	}
}

/* A name from the capture (a module's, a symbol's) under the message
 * cap: what symbol_text says is cut is cut here too. */
#define kname(m, o, k, r, s) \
	kname_((m), (o), "" k "", sizeof(k) - 1, (r), (s))
static void
kname_(model *m, model_out *o, const char *k, size_t kn,
    const dtc_reader *r, const char *s)
{
	size_t cap = model_cap(m, r), n;

	O(o, key, k, kn);
	if (s == NULL) {
		O(o, null);
		return;
	}
	n = strnlen(s, cap);
	O(o, str, s, s[n] != '\0' ? model_utf8_cut(s, n) : n);
}

/* "symbol": the text in m->buf under the message cap, cut as printf's
 * messages are and said once for the record (key: its recdesc). */
static void
symbol_text(model *m, model_out *o, const dtc_reader *r, const void *key)
{
	int rc;

	KEY(o, "symbol");
	/* only a text past the cap can need a cut: the library's check, a
	 * lookup of the cap and a clear cost ~470 instructions a stack
	 * firing where none was cut (text.c's sym_cap) */
	if (m->buf.len <= model_cap(m, r)) {
		O(o, str, m->buf.s, m->buf.len);
		return;
	}
	if (m->serr.code != DTC_E_NONE)
		dtc_error_clear(&m->serr);
	rc = dtc_reader_text_cut(r, &m->buf, 0, "symbol", &m->serr);
	O(o, str, m->buf.s, rc == DTC_WARN ? model_utf8_cut(m->buf.s,
	    m->buf.len) : m->buf.len);
	if (rc == DTC_WARN && m->ev != NULL)
		dtc_emit_cut(&m->opts, &m->cuts, m->ev, key, &m->serr);
}

/* A record's bytes as its flavor's printer shows them (dtc_reader_record_string):
 * a v2 string is text up to its NUL whatever follows it. */
static void
record_payload(model_out *o, const dtc_reader *r, const dtc_value *v)
{
	dtc_value raw = *v;
	size_t len;

	raw.kind = DTC_V_OTHER;    /* a typed value's bytes as well */
	if (dtc_reader_record_string(r, &raw, &len)) {
		KEY(o, "string");
		O(o, str, (const char *)v->data, len);
	} else {
		KEY(o, "bytes");
		O(o, bytes, v->data, v->size);
	}
}

static void
frame(model *m, model_out *o, const dtc_reader *r, uint64_t pc, int user,
    uint64_t pid, const char *helper, size_t hlen)
{
	dtc_symbol s;
	int found;
	const unsigned char *b;
	size_t mark = 0, n;
	int keep = 0;

	O(o, map_begin);
	KEY(o, "pc");
	O(o, addr, pc);
	if (!user && helper == NULL) {
		if ((b = pccache_get(&m->frames, pc, &n)) != NULL) {
			O(o, raw, b, n);
			O(o, map_end);
			return;
		}
		keep = O(o, so_far, &mark) != NULL;
	}
	found = user ? dtc_reader_usym_lookup(r, pid, pc, &s) :
	    dtc_reader_ksym_lookup(r, pc, &s);
	kname(m, o, "module", r, found ? s.module : NULL);
	kname(m, o, "name", r, found ? s.name : NULL);
	KEY(o, "offset");
	if (found && s.name != NULL)
		O(o, u64, pc - s.start);
	else
		O(o, null);
	dtc_buf_reset(&m->buf);
	if (user)
		dtc_reader_uaddr_text(r, pid, pc, 0, &m->buf);
	else
		dtc_reader_frame_text(r, pc, &m->buf);
	symbol_text(m, o, r, m->ev != NULL && m->ev->value != NULL ?
	    (const void *)m->ev->value->rd : NULL);
	if (helper != NULL) {
		/* the ustack helper's (jstack's) text for this frame */
		KEY(o, "string");
		O(o, str, helper, hlen);
	}
	if (keep && (b = O(o, so_far, &n)) != NULL && n >= mark)
		pccache_put(&m->frames, pc, b + mark, n - mark);
	O(o, map_end);
}

static void
frame_array(model *m, model_out *o, const dtc_reader *r, const dtc_value *v)
{
	uint32_t i;
	const char *str = (const char *)v->strtab;
	size_t left = v->strtab != NULL ? v->strsize : 0, n, step;

	O(o, arr_begin);
	for (i = 0; i < v->nframes; i++) {
		uint64_t pc = dtc_value_pc(v, i);

		if (pc == 0)
			break;
		n = left > 0 ? strnlen(str, left) : 0;
		frame(m, o, r, pc, v->kind == DTC_V_USTACK, v->pid,
		    n > 0 ? str : NULL, n);
		if (left > 0) {
			step = n + 1 < left ? n + 1 : left;
			str += step;
			left -= step;
		}
	}
	O(o, arr_end);
}

static void
frames(model *m, model_out *o, const dtc_reader *r, const dtc_value *v)
{
	KEY(o, "frames");
	frame_array(m, o, r, v);
}

static void
symbol_payload(model *m, model_out *o, const dtc_reader *r,
    const dtc_value *v)
{
	dtc_symbol s;
	int user = v->kind == DTC_V_USYM || v->kind == DTC_V_UMOD ||
	    v->kind == DTC_V_UADDR;
	int found;

	if (user) {
		KEY(o, "pid");
		O(o, u64, v->pid);
		found = dtc_reader_usym_lookup(r, v->pid, v->addr, &s);
	} else {
		found = dtc_reader_ksym_lookup(r, v->addr, &s);
	}
	KEY(o, "addr");
	O(o, addr, v->addr);
	kname(m, o, "module", r, found ? s.module : NULL);
	if (v->kind != DTC_V_MOD && v->kind != DTC_V_UMOD) {
		kname(m, o, "name", r, found ? s.name : NULL);
		KEY(o, "offset");
		if (found && s.name != NULL)
			O(o, u64, v->addr - s.start);
		else
			O(o, null);
	}
	dtc_buf_reset(&m->buf);
	switch (v->kind) {
	case DTC_V_SYM: dtc_reader_addr_text(r, v->addr, 1, &m->buf); break;
	case DTC_V_MOD: dtc_reader_mod_text(r, v->addr, &m->buf); break;
	case DTC_V_USYM: dtc_reader_uaddr_text(r, v->pid, v->addr, 1, &m->buf); break;
	case DTC_V_UMOD: dtc_reader_umod_text(r, v->pid, v->addr, &m->buf); break;
	default: dtc_reader_uaddr_text(r, v->pid, v->addr, 0, &m->buf); break;
	}
	symbol_text(m, o, r, v->rd);
}

/*
 * print()'s value as nested data: structs and unions as maps by member
 * name (the members of an anonymous member are the parent's, as in C),
 * arrays as arrays, char arrays as strings up to their NUL, enums as the
 * enumerator's name (the number when the value has none), pointers as
 * addresses, and null for what the record does not hold (printsize, a
 * short record).
 */
enum topen { T_MAP = 1, T_ARR, T_FLAT, T_STRING };

struct tstate {
	model_out *o;
	unsigned char open[DTC_TYPED_MAXDEPTH + 2]; /* enum topen by depth */
	int skip;               /* > 0: the depth of a char array's elements */
	int pending;            /* an array was met, its kind is not yet known */
	dtc_tnode pend;
	size_t left;            /* bytes the value may still take */
	int cut;                /* over them: only closing brackets now */
};

/*
 * The cap on a value's nodes.  The walk visits up to DTCP_CTF_MAXNODES
 * (100,000) nodes, each named by the capture's CTF: an array of 16,000
 * one-byte structs whose member has a 4,000-byte name is a 20 KB capture
 * and was a 64 MB JSON line, built in memory.  A value may take about
 * maxmsgsize bytes (its members' names and values, counted as they go);
 * past that nothing more is written but the brackets that close what is
 * open, and the record gets "truncated": true.  The value itself (depth
 * 0) is always written.
 */
static int
spend(struct tstate *t, const dtc_tnode *n, size_t extra)
{
	/* quotes, colon, comma and a number or an address */
	size_t cost = (n->name != NULL ? strlen(n->name) : 0) + 32 + extra;

	if (n->depth == 0 || (!t->cut && cost <= t->left)) {
		t->left -= cost < t->left ? cost : t->left;
		return 1;
	}
	t->cut = 1;
	return 0;
}

static void
tkey(model_out *o, const dtc_tnode *n)
{
	if (n->name != NULL && n->name[0] != '\0')
		O(o, key, n->name, strlen(n->name));
}

/* The array met before n: a string when its elements are chars. */
static void
tarray(struct tstate *t, const dtc_tnode *n)
{
	const dtc_tnode *a = &t->pend;
	int chars = n->depth == a->depth + 1 && n->kind == DTC_T_INT &&
	    n->is_char && a->data != NULL && !a->truncated;
	size_t len = chars ? strnlen((const char *)a->data, a->size) : 0;

	t->pending = 0;
	/* past the cap the array is not opened, its END closes nothing */
	if (!spend(t, a, len))
		return;
	tkey(t->o, a);
	if (chars) {
		O(t->o, str, (const char *)a->data, len);
		t->open[a->depth] = T_STRING;
		t->skip = a->depth + 1;
		return;
	}
	O(t->o, arr_begin);
	t->open[a->depth] = T_ARR;
}

static int
tnode(const dtc_tnode *n, void *arg)
{
	struct tstate *t = arg;
	model_out *o = t->o;

	if (n->depth < 0 || n->depth > DTC_TYPED_MAXDEPTH)
		return 1;
	if (t->pending)
		tarray(t, n);
	if (t->skip > 0 && n->depth >= t->skip)
		return 0;
	t->skip = 0;
	switch (n->kind) {
	case DTC_T_STRUCT:
	case DTC_T_UNION:
		if (n->depth > 0 && n->name != NULL && n->name[0] == '\0') {
			t->open[n->depth] = T_FLAT;
			return 0;
		}
		if (!spend(t, n, 0))
			return 0;
		tkey(o, n);
		O(o, map_begin);
		t->open[n->depth] = T_MAP;
		return 0;
	case DTC_T_ARRAY:
		t->pend = *n;
		t->pending = 1;
		return 0;
	case DTC_T_END:
		if (t->open[n->depth] == T_MAP)
			O(o, map_end);
		else if (t->open[n->depth] == T_ARR)
			O(o, arr_end);
		t->open[n->depth] = 0;
		return 0;
	default:
		break;
	}
	if (!spend(t, n, n->enumerator != NULL ? strlen(n->enumerator) : 0))
		return 0;
	tkey(o, n);
	if (n->data == NULL || n->truncated) {
		O(o, null);
		return 0;
	}
	switch (n->kind) {
	case DTC_T_INT:
		if (n->is_signed)
			O(o, i64, n->i);
		else
			O(o, u64, n->u);
		break;
	case DTC_T_FLOAT:
		O(o, dbl, n->f);
		break;
	case DTC_T_POINTER:
		O(o, addr, n->u);
		break;
	case DTC_T_ENUM:
		if (n->enumerator != NULL)
			O(o, str, n->enumerator, strlen(n->enumerator));
		else
			O(o, i64, n->i);
		break;
	default:
		O(o, null);
		break;
	}
	return 0;
}

/* A walk that writes nothing: the real one starts only when the whole
 * value can be walked, so a damaged type never leaves a map open. */
static int
tcount(const dtc_tnode *n, void *arg)
{
	(void)arg;
	return n->depth < 0 || n->depth > DTC_TYPED_MAXDEPTH;
}

static void
typed_payload(model *m, model_out *o, const dtc_reader *r, const dtc_value *v)
{
	struct tstate t;
	dtc_error err;
	int rc;

	kstr(o, "type", dtc_ctype_name(v->ctype));
	kstr(o, "module", dtc_ctype_module(v->ctype));
	KEY(o, "addr");
	if (dtc_reader_header(r)->v2)
		O(o, addr, v->addr);
	else
		O(o, null);     /* legacy print() records no address */
	dtc_error_clear(&err);
	dtc_buf_reset(&m->buf);
	KEY(o, "text");
	rc = dtc_reader_typed_render(r, v, &m->buf, &err);
	if (rc == DTC_OK)
		O(o, str, m->buf.s, m->buf.len);
	else if (rc == DTC_WARN)   /* cut at the cap, said once */
		O(o, str, m->buf.s, model_utf8_cut(m->buf.s, m->buf.len));
	else
		O(o, null);
	if (rc == DTC_WARN && m->ev != NULL)
		dtc_emit_cut(&m->opts, &m->cuts, m->ev, v->rd, &err);
	memset(&t, 0, sizeof(t));
	t.o = o;
	t.left = model_cap(m, r);
	dtc_error_clear(&err);
	if (dtc_reader_typed_walk(r, v, tcount, NULL, &err) != DTC_OK) {
		record_payload(o, r, v);
		return;
	}
	KEY(o, "value");
	dtc_reader_typed_walk(r, v, tnode, &t, &err);
	if (!t.cut)
		return;
	KEY(o, "truncated");
	O(o, boolean, 1);
	if (m->ev != NULL) {
		dtc_error_clear(&err);
		err.code = DTC_E_LIMIT;
		snprintf(err.source, sizeof(err.source), "%s",
		    dtc_reader_source(r) != NULL ? dtc_reader_source(r) : "");
		snprintf(err.text, sizeof(err.text), "print() value cut at "
		    "about %zu bytes (maxmsgsize)", model_cap(m, r));
		dtc_emit_cut(&m->opts, &m->cuts, m->ev, v->rd, &err);
	}
}

/* The typed payload of a value, into an open map. */
static void
payload(model *m, model_out *o, const dtc_reader *r, const dtc_value *v)
{
	switch (v->kind) {
	case DTC_V_INT:
		int_payload(o, v);
		break;
	case DTC_V_BYTES:
	case DTC_V_OTHER:
		record_payload(o, r, v);
		break;
	case DTC_V_TYPED:
		typed_payload(m, o, r, v);
		break;
	case DTC_V_MEMORY:
	case DTC_V_PRINTM:
		KEY(o, "bytes");
		O(o, bytes, v->data, v->size);
		break;
	case DTC_V_STACK:
		frames(m, o, r, v);
		break;
	case DTC_V_USTACK:
		KEY(o, "pid");
		O(o, u64, v->pid);
		frames(m, o, r, v);
		break;
	case DTC_V_SYM: case DTC_V_MOD: case DTC_V_USYM: case DTC_V_UMOD:
	case DTC_V_UADDR:
		symbol_payload(m, o, r, v);
		break;
	case DTC_V_EXIT:
		KEY(o, "status");
		O(o, i64, v->i);
		break;
	default:
		break;
	}
}

/* An aggregation key: a plain scalar where it can be one. */
static void
key_value(model *m, model_out *o, const dtc_reader *r, const dtc_value *v)
{
	int is;
	size_t len;

	switch (v->kind) {
	case DTC_V_INT:
		if (v->size <= 2)
			O(o, u64, v->u);
		else
			O(o, i64, v->i);
		return;
	case DTC_V_BYTES:
		/* text.c prints keys by the legacy rule in either flavor */
		len = model_as_string(v->data, v->size, &is);
		if (is) {
			O(o, str, (const char *)v->data, len);
			return;
		}
		O(o, map_begin);
		bytes_payload(o, v->data, v->size);
		O(o, map_end);
		return;
	case DTC_V_STACK:
		frame_array(m, o, r, v);
		return;
	default:
		break;
	}
	O(o, map_begin);
	payload(m, o, r, v);
	O(o, map_end);
}

/* ------------------------------------------------------------ aggs */

static void
params(model_out *o, const dtc_aggvar *var, int v2)
{
	O(o, map_begin);
	if (var->func == DTC_AGG_LQUANTIZE) {
		int32_t base = (int32_t)(uint32_t)var->arg;
		uint16_t levels = (uint16_t)(var->arg >> 32);
		uint16_t step = (uint16_t)(var->arg >> 48);

		ki64(o, "base", base);
		ku64(o, "step", step);
		ku64(o, "levels", levels);
		ki64(o, "limit", (int64_t)base + (int64_t)levels * step);
	} else if (var->func == DTC_AGG_LLQUANTIZE && v2) {
		/* dtrace-utils packs steps, hmag, lmag, factor */
		ku64(o, "factor", (uint16_t)var->arg);
		ku64(o, "low", (uint16_t)(var->arg >> 16));
		ku64(o, "high", (uint16_t)(var->arg >> 32));
		ku64(o, "nsteps", (uint16_t)(var->arg >> 48));
	} else if (var->func == DTC_AGG_LLQUANTIZE) {
		ku64(o, "factor", (uint16_t)(var->arg >> 48));
		ku64(o, "low", (uint16_t)(var->arg >> 32));
		ku64(o, "high", (uint16_t)(var->arg >> 16));
		ku64(o, "nsteps", (uint16_t)var->arg);
	}
	O(o, map_end);
}

static int64_t
norm(int64_t v, uint64_t normal)
{
	if (normal <= 1)
		return v;
	if ((int64_t)normal == -1)   /* INT64_MIN / -1 overflows */
		return (int64_t)(0 - (uint64_t)v);
	return v / (int64_t)normal;
}

/* The displayed bucket range, as dtrace trims it. */
void
model_bucket_range(const dtc_aggval *v, uint32_t n, uint32_t *lo,
    uint32_t *hi)
{
	uint32_t i, first = n, last = 0;
	dtc_bucket b;

	for (i = 0; i < n; i++) {
		if (dtc_aggval_bucket(v, i, &b) == 0 && b.count != 0) {
			if (first == n)
				first = i;
			last = i;
		}
	}
	if (first == n) {
		/* all zero: quantize shows -1, 0, 1; the others their first */
		if (v->func == DTC_AGG_QUANTIZE) {
			*lo = 62;
			*hi = 64;
		} else if (v->func == DTC_AGG_LLQUANTIZE &&
		    dtc_aggval_bucket(v, 0, &b) == 0 && b.has_max && b.max < 0) {
			/* dtrace-utils' symmetric llquantize (its first bucket
			 * is the negative overflow): the middle bucket and the
			 * two above it */
			*lo = (n - 1) / 2;
			*hi = *lo + 2;
		} else {
			*lo = 0;
			*hi = v->func == DTC_AGG_LLQUANTIZE ? 1 : 2;
		}
	} else {
		*lo = first > 0 ? first - 1 : 0;
		*hi = last + 1 < n ? last + 1 : n - 1;
	}
	if (*hi >= n)
		*hi = n - 1;
}

static void
agg_value(model_out *o, const dtc_aggval *v)
{
	uint32_t n, i, lo, hi;
	uint64_t total = 0;   /* wraps like the kernel's counts, no UB */
	dtc_bucket b;

	O(o, map_begin);
	switch (v->func) {
	case DTC_AGG_AVG:
		ki64(o, "value", dtc_aggval_scalar(v));
		ku64(o, "count", dtc_aggval_word(v, 0));
		ki64(o, "sum", (int64_t)dtc_aggval_word(v, 1));
		break;
	case DTC_AGG_STDDEV:
		ku64(o, "value", dtc_aggval_stddev(v));
		ku64(o, "count", dtc_aggval_word(v, 0));
		ki64(o, "sum", (int64_t)dtc_aggval_word(v, 1));
		KEY(o, "sum_sq");
		O(o, u128, dtc_aggval_word(v, 3), dtc_aggval_word(v, 2));
		break;
	case DTC_AGG_QUANTIZE:
	case DTC_AGG_LQUANTIZE:
	case DTC_AGG_LLQUANTIZE:
		n = dtc_aggval_nbuckets(v);
		for (i = 0; i < n; i++)
			if (dtc_aggval_bucket(v, i, &b) == 0)
				total += (uint64_t)b.count;
		ki64(o, "value", norm((int64_t)total, v->normal));
		KEY(o, "buckets");
		O(o, arr_begin);
		if (n > 0) {
			model_bucket_range(v, n, &lo, &hi);
			for (i = lo; i <= hi; i++) {
				if (dtc_aggval_bucket(v, i, &b) != 0)
					continue;
				O(o, map_begin);
				KEY(o, "min");
				if (b.has_min)
					O(o, i64, b.min);
				else
					O(o, null);
				KEY(o, "max");
				if (b.has_max)
					O(o, i64, b.max);
				else
					O(o, null);
				ki64(o, "count", norm(b.count, v->normal));
				O(o, map_end);
			}
		}
		O(o, arr_end);
		break;
	default:
		ki64(o, "value", dtc_aggval_scalar(v));
		break;
	}
	if (v->normal != 1)
		ku64(o, "normal", v->normal);
	O(o, map_end);
}

/*
 * The aggregation line of a printing.  Returns DTC_OK, DTC_WARN when a
 * row's message was cut at the cap, or what dtc_reader_printa_render failed
 * with, err saying why: the line then ends after that row (written all
 * the same) and the caller stops the capture.
 */
static int
agg_line(model *m, const dtc_event *ev, const dtc_aggprint *ap,
    const char *trigger, dtc_error *err)
{
	model_out *o = m->oo;
	const dtc_reader *r = ev->reader;
	const dtc_aggvar *v0 = ap->nvars > 0 ? &ap->vars[0] : NULL;
	uint32_t i, k;
	size_t j;
	int rc = DTC_OK;

	O(o, map_begin);
	kstr(o, "type", "aggregation");
	ku64(o, "seq", ++m->seq);
	kstr(o, "trigger", trigger);
	if (ap->at_exit) {
		KEY(o, "probe_seq");
		O(o, null);
	} else {
		ku64(o, "probe_seq", m->probe_seq);
	}
	kstr(o, "name", v0 != NULL ? v0->name : NULL);
	kstr(o, "func", v0 != NULL ? func_name(v0->func) : NULL);
	KEY(o, "params");
	if (v0 != NULL)
		params(o, v0, dtc_reader_header(r) != NULL &&
		    dtc_reader_header(r)->v2);
	else
		O(o, null);
	KEY(o, "names");
	O(o, arr_begin);
	for (i = 0; i < ap->nvars; i++)
		O(o, str, ap->vars[i].name, strlen(ap->vars[i].name));
	O(o, arr_end);
	KEY(o, "funcs");
	O(o, arr_begin);
	for (i = 0; i < ap->nvars; i++) {
		const char *f = func_name(ap->vars[i].func);
		O(o, str, f, strlen(f));
	}
	O(o, arr_end);
	KEY(o, "varids");
	O(o, arr_begin);
	for (i = 0; i < ap->nvars; i++)
		O(o, i64, ap->vars[i].varid);
	O(o, arr_end);
	kstr(o, "format", ap->fmt != NULL ? dtc_format_string(ap->fmt) : NULL);
	KEY(o, "key_desc");
	O(o, arr_begin);
	for (k = 0; v0 != NULL && k < v0->nkeys; k++) {
		O(o, map_begin);
		kstr(o, "act", act_name(v0->keys[k].action));
		ku64(o, "size", v0->keys[k].size);
		O(o, map_end);
	}
	O(o, arr_end);
	KEY(o, "rows");
	O(o, arr_begin);
	for (j = 0; j < ap->nrows; j++) {
		const dtc_aggrow *row = &ap->rows[j];
		const dtc_aggvar *rv = row->var != NULL ? row->var : v0;

		O(o, map_begin);
		KEY(o, "keys");
		O(o, arr_begin);
		for (k = 0; rv != NULL && k < rv->nkeys; k++)
			key_value(m, o, r, &row->keys[k]);
		O(o, arr_end);
		KEY(o, "values");
		O(o, arr_begin);
		for (i = 0; i < ap->nvars; i++)
			agg_value(o, &row->vals[i]);
		O(o, arr_end);
		if (ap->fmt != NULL) {
			int mrc;

			dtc_error_clear(err);
			dtc_buf_reset(&m->buf);
			mrc = dtc_reader_printa_render(r, ap, row, &m->buf, err);
			if (mrc == DTC_OK || mrc == DTC_WARN)
				message_member(m, o, ev, ap->fmt, mrc, err);
			if (mrc != DTC_OK)
				rc = mrc;
		}
		O(o, map_end);
		if (rc != DTC_OK && rc != DTC_WARN)
			break;
	}
	O(o, arr_end);
	O(o, map_end);
	endline(m, o);
	return rc;
}

/* ------------------------------------------------------------ events */

int
model_on_begin(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->oo;
	const dtc_header *h = ev->header;
	int i;

	for (i = 0; i < NIDS; i++)
		m->ids[i].ep = NULL;
	pccache_reset(&m->frames, ev);
	m->cap_reader = NULL;   /* a new reader may sit where an old one was */
	m->cuts.n = 0;
	m->aborted = 0;
	if (m->po->tmpl != NULL)
		m->po->tmpl->forget(m->po);
	if (m->oo->tmpl != NULL)
		m->oo->tmpl->forget(m->oo);

	O(o, map_begin);
	kstr(o, "type", "header");
	kstr(o, "schema", "dtconsume");
	ku64(o, "version", 1);
	KEY(o, "producer");
	dtc_buf_reset(&m->buf);
	dtc_buf_printf(&m->buf, "dtconsume %s", dtc_version_string());
	O(o, str, m->buf.s, m->buf.len);
	kstr(o, "source", ev->source);
	KEY(o, "capture");
	O(o, map_begin);
	KEY(o, "version");
	O(o, arr_begin);
	O(o, i64, h->version_major);
	O(o, i64, h->version_minor);
	O(o, arr_end);
	kstr(o, "byteorder", h->big_endian ? "big" : "little");
	kstr(o, "model", h->ilp32 ? "ILP32" : "LP64");
	kstr(o, "os", h->os);
	kstr(o, "release", h->release);
	kstr(o, "host", h->host);
	kstr(o, "producer", h->producer);
	ku64(o, "ncpu", h->ncpu);
	ku64(o, "dt_act_base", h->dt_act_base);
	kstr(o, "flavor", h->flavor != NULL ? h->flavor : "legacy");
	O(o, map_end);
	O(o, map_end);
	return endline(m, o);
}

/* "provider:module:function:name" */
static void
probe_name(model *m, model_out *o, const dtc_probedesc *p)
{
	if (p->fullname != NULL) {
		O(o, str, p->fullname, strlen(p->fullname));
		return;
	}
	dtc_buf_reset(&m->buf);
	dtc_buf_printf(&m->buf, "%s:%s:%s:%s", p->provider, p->module,
	    p->function, p->name);
	O(o, str, m->buf.s, m->buf.len);
}

static void
probe_time(model_out *o, const dtc_event *ev)
{
	const dtc_header *h = dtc_reader_header(ev->reader);
	uint64_t wall;

	/* DTrace v2 records carry none: their pass's time, or (a capture
	 * without pass clocks) null, not 0 */
	if (h != NULL && h->v2 && ev->timestamp == 0) {
		KEY(o, "timestamp");
		O(o, null);
		KEY(o, "walltime");
		O(o, null);
		ki64(o, "cpu", ev->cpu);
		return;
	}
	ku64(o, "timestamp", ev->timestamp);
	KEY(o, "walltime");
	if (dtc_reader_walltime(ev->reader, ev->timestamp, &wall))
		O(o, u64, wall);
	else
		O(o, null);
	ki64(o, "cpu", ev->cpu);
}

static void
probe_ident(model_out *o, const dtc_event *ev)
{
	const dtc_probedesc *p = ev->probe;

	cu64(o, "epid", ev->ep != NULL ? ev->ep->epid : 0);
	cu64(o, "id", p != NULL ? p->id : (ev->ep != NULL ? ev->ep->probeid : 0));
	cstr(o, "provider", p != NULL ? p->provider : NULL);
	cstr(o, "module", p != NULL ? p->module : NULL);
	cstr(o, "function", p != NULL ? p->function : NULL);
	cstr(o, "name", p != NULL ? p->name : NULL);
}

static void
probe_fields(model_out *o, const dtc_event *ev)
{
	probe_time(o, ev);
	probe_ident(o, ev);
}

/* probe_ident and the "probe" member, from the slot when it holds them */
static void
probe_ident_cached(model *m, model_out *o, const dtc_event *ev)
{
	idbytes *id = NULL;
	const unsigned char *b;
	size_t mark = 0, n = 0;

	if (ev->ep != NULL) {
		id = &m->ids[ev->ep->epid % NIDS];
		if (id->ep == ev->ep && id->probe == ev->probe) {
			O(o, raw, id->bytes, id->len);
			return;
		}
		if (O(o, so_far, &mark) == NULL)
			id = NULL;
	}
	probe_ident(o, ev);
	/* the text is made from the description alone */
	if (!SAME(o, "probe", (uintptr_t)ev->probe)) {
		KEY(o, "probe");
		if (ev->probe != NULL)
			probe_name(m, o, ev->probe);
		else
			O(o, null);
	}
	if (id == NULL)
		return;
	id->ep = NULL;
	if ((b = O(o, so_far, &n)) == NULL || n < mark)
		return;
	if (id->cap < n - mark) {
		void *nb = realloc(id->bytes, n - mark);

		if (nb == NULL)
			return;
		id->bytes = nb;
		id->cap = n - mark;
	}
	memcpy(id->bytes, b + mark, n - mark);
	id->len = n - mark;
	id->ep = ev->ep;
	id->probe = ev->probe;
}

int
model_on_probe(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->po;

	/* after an abort nothing more is written, whoever goes on calling */
	if (m->aborted)
		return DTC_EMIT_ABORT;
	m->probe_seq = ++m->seq;
	m->in_probe = 1;
	pccache_sync(&m->frames, ev);
	tmap(o, ev->ep, ev->probe);
	cstr(o, "type", "probe");
	ku64(o, "seq", m->probe_seq);
	probe_time(o, ev);
	probe_ident_cached(m, o, ev);
	ku64(o, "pass", ev->pass);
	if (ev->flowindent) {
		kstr(o, "flow", ev->flow == DTC_FLOW_ENTRY ? "entry" :
		    ev->flow == DTC_FLOW_RETURN ? "return" : NULL);
		ki64(o, "depth", ev->indent);
	}
	KEY(o, "records");
	O(o, arr_begin);
	return 0;
}

int
model_on_record(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->po;
	const dtc_value *v = ev->value;
	const dtc_reader *r = ev->reader;
	dtc_error *err = &m->perr;
	uint32_t i;
	int rc = DTC_OK;

	if (m->aborted)
		return DTC_EMIT_ABORT;
	m->ev = ev;
	tmap(o, v->rd, NULL);
	cstr(o, "act", v->kind == DTC_V_TYPED ? "print" : act_name(v->action));
	cu64(o, "size", v->size);
	switch (v->kind) {
	case DTC_V_PRINTF:
		cstr(o, "format", dtc_format_string(v->fmt));
		if (err->code != DTC_E_NONE)
			dtc_error_clear(err);
		dtc_buf_reset(&m->buf);
		rc = dtc_reader_printf_render(r, v, &m->buf, err);
		message_member(m, o, ev, v->fmt, rc, err);
		if (v->action != DTC_ACT_PRINTF)
			cstr(o, "notice", v->action == DTC_ACT_SYSTEM ?
			    "command not executed" : "file not opened");
		KEY(o, "args");
		O(o, arr_begin);
		for (i = 0; i < v->nargs; i++) {
			/* tagged by the statement and the argument's place */
			tmap(o, v->rd, (const void *)(uintptr_t)(i + 1));
			cu64(o, "size", v->args[i].size);
			payload(m, o, r, &v->args[i]);
			O(o, map_end);
		}
		O(o, arr_end);
		break;
	case DTC_V_PRINTA:
		cstr(o, "format", v->fmt != NULL ? dtc_format_string(v->fmt) :
		    NULL);
		KEY(o, "aggregations");
		O(o, arr_begin);
		for (i = 0; i < v->agg->nvars; i++)
			O(o, str, v->agg->vars[i].name,
			    strlen(v->agg->vars[i].name));
		O(o, arr_end);
		ku64(o, "agg_seq", m->seq + 1);
		if (err->code != DTC_E_NONE)
			dtc_error_clear(err);
		rc = agg_line(m, ev, v->agg, "printa", err);
		break;
	case DTC_V_EXIT: {
		model_out *x = m->oo;

		payload(m, o, r, v);
		O(x, map_begin);
		kstr(x, "type", "exit");
		ku64(x, "seq", ++m->seq);
		ki64(x, "status", v->i);
		ku64(x, "probe_seq", m->probe_seq);
		O(x, map_end);
		endline(m, x);
		break;
	}
	default:
		payload(m, o, r, v);
		break;
	}
	O(o, map_end);
	m->ev = NULL;
	if (rc != DTC_OK && rc != DTC_WARN) {
		/* the probe line ends here, and is written, as text writes
		 * what came before */
		model_on_probe_end(ev, m);
		return abort_capture(m, "processing aborted",
		    dtc_emit_errmsg(err));
	}
	return 0;
}

int
model_on_probe_end(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->po;

	(void)ev;
	if (!m->in_probe)
		return 0;
	O(o, arr_end);
	O(o, map_end);
	m->in_probe = 0;
	return endline(m, o);
}

int
model_on_agg(const dtc_event *ev, void *arg)
{
	model *m = arg;
	dtc_error err;
	int rc;

	if (m->aborted)
		return DTC_EMIT_ABORT;
	pccache_reset(&m->frames, ev);
	rc = agg_line(m, ev, ev->agg, "exit", &err);
	if (rc != DTC_OK && rc != DTC_WARN)
		return abort_capture(m, "failed to print aggregations",
		    dtc_emit_errmsg(&err));
	return 0;
}

static const char *const dropkinds[] = { "principal", "aggregation",
	"dynamic", "dynrinse", "dyndirty", "spec", "specbusy", "specunavail",
	"stkstroverflow", "dblerror" };

/* messages end in a newline for dtrace's stderr; the model drops it */
static void
message(model_out *o, const char *msg)
{
	size_t n = msg != NULL ? strlen(msg) : 0;

	while (n > 0 && msg[n - 1] == '\n')
		n--;
	KEY(o, "message");
	if (msg == NULL)
		O(o, null);
	else
		O(o, str, msg, n);
}

int
model_on_drop(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->oo;

	if (m->aborted)
		return DTC_EMIT_ABORT;
	O(o, map_begin);
	kstr(o, "type", "drop");
	ku64(o, "seq", ++m->seq);
	KEY(o, "cpu");
	if (ev->cpu >= 0)
		O(o, i64, ev->cpu);
	else
		O(o, null);
	kstr(o, "kind", ev->dropkind >= 0 && ev->dropkind < 10 ?
	    dropkinds[ev->dropkind] : "unknown");
	ki64(o, "kind_code", ev->dropkind);
	ku64(o, "count", ev->count);
	ku64(o, "pass", ev->pass);
	message(o, ev->message);
	O(o, map_end);
	return endline(m, o);
}

int
model_on_error(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->oo;
	static const char *const faults[] = { "unknown", "badaddr",
	    "badalign", "illop", "divzero", "noscratch", "kpriv", "upriv",
	    "tupoflow", "badstack" };

	if (m->aborted)
		return DTC_EMIT_ABORT;
	O(o, map_begin);
	kstr(o, "type", "error");
	ku64(o, "seq", ++m->seq);
	probe_fields(o, ev);
	ku64(o, "fault_epid", ev->fault_epid);
	KEY(o, "fault_probe");
	if (ev->fault_probe != NULL) {
		const dtc_probedesc *p = ev->fault_probe;

		probe_name(m, o, p);
	} else {
		O(o, null);
	}
	kstr(o, "fault", ev->fault == 1000 ? "library" :
	    ev->fault < 10 ? faults[ev->fault] : "unknown");
	ku64(o, "fault_code", ev->fault);
	ku64(o, "action_index", ev->action);
	KEY(o, "dif_offset");
	if (ev->difoffset >= 0)
		O(o, i64, ev->difoffset);
	else
		O(o, null);
	KEY(o, "addr");
	O(o, addr, ev->fault_addr);
	message(o, ev->message);
	O(o, map_end);
	return endline(m, o);
}

int
model_on_notice(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->oo;

	if (m->aborted)
		return DTC_EMIT_ABORT;
	O(o, map_begin);
	kstr(o, "type", "notice");
	ku64(o, "seq", ++m->seq);
	ki64(o, "code", ev->notice);
	message(o, ev->message);
	O(o, map_end);
	return endline(m, o);
}

int
model_on_end(const dtc_event *ev, void *arg)
{
	model *m = arg;
	model_out *o = m->oo;

	if (m->aborted)
		return DTC_EMIT_ABORT;
	O(o, map_begin);
	kstr(o, "type", "end");
	ku64(o, "seq", ++m->seq);
	KEY(o, "complete");
	O(o, boolean, ev->complete);
	KEY(o, "exit_status");
	if (ev->exit_status >= 0)
		O(o, i64, ev->exit_status);
	else
		O(o, null);
	/* firings: record sets delivered (one per probe firing), and those
	 * a selection left out (the library's END count) */
	ku64(o, "firings", ev->nrecords);
	ku64(o, "firings_skipped", ev->count);
	ku64(o, "drops", ev->ndrops);
	ku64(o, "errors", ev->nerrors);
	/* deprecated: the firings, under the name of version 0.1 */
	ku64(o, "records", ev->nrecords);
	O(o, map_end);
	endline(m, o);
	m->seq = 0;
	return m->err;
}

void *
model_create(const dtc_emitter_opts *opts, model_out *po, model_out *oo)
{
	model *m;

	if (po == NULL || oo == NULL || (m = calloc(1, sizeof(*m))) == NULL) {
		if (po != NULL)
			po->ops->free(po);
		if (oo != NULL)
			oo->ops->free(oo);
		return NULL;
	}
	m->po = po;
	m->oo = oo;
	if (opts != NULL)
		m->opts = *opts;
	dtc_error_clear(&m->serr);
	dtc_error_clear(&m->perr);
	pccache_init(&m->frames, FRAMES_BITS, FRAMES_ENTRY);
	dtc_buf_init(&m->buf);
	return m;
}

int
model_destroy(void *state)
{
	model *m = state;
	int err, i;

	if (m == NULL)
		return 0;
	err = m->err;
	m->po->ops->free(m->po);
	m->oo->ops->free(m->oo);
	for (i = 0; i < NIDS; i++)
		free(m->ids[i].bytes);
	pccache_free(&m->frames);
	dtc_buf_free(&m->buf);
	free(m);
	return err;
}
