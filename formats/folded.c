/*
 * folded.c - the "folded" format: Brendan Gregg's folded stacks, one line
 * per distinct stack, "frame;frame;...;frame count", root first, the input
 * of flamegraph.pl (FlameGraph), inferno and speedscope.
 *
 * Where the stacks come from (dtconsume(1), FOLDED STACKS, says the same
 * to users):
 *  - stack(), ustack() and jstack() records: each counts 1, identical
 *    stacks add up.
 *  - aggregations with a stack(), ustack() or jstack() key: one line per
 *    row, counting the row's value (count, sum, min, max, avg and stddev
 *    as dtrace prints them; a histogram its total count, normalized as
 *    dt2json's "value").  The other key components are frames too, on
 *    the root side, in key order (@[execname, ustack()] gives
 *    "sh;main;...;leaf"); --folded-key (o->folded_keys) keeps only some
 *    of them, never leaving out a stack (that would fold every row into
 *    its other keys).  --agg (o->folded_agg) counts one aggregation and
 *    no record.
 *  - Each aggregation counts once, as dtrace last printed it (by printa()
 *    or at the end of the run): a printing shows the running state, so
 *    adding printings up would count events again at every printa(), and
 *    the last one is what the user saw, its frames symbolized as they were
 *    then.  Events after an aggregation's last printa(), which dtrace does
 *    not print at the end either, are not counted.  With --merge-aggs
 *    the merged printing after the last capture is the one counted.
 *
 * A frame is the text dtconsume's text output prints for it (the library's
 * dtc_reader_frame_text/dtc_reader_uaddr_text, user frames chosen by the rule of
 * text.c's ustack_frame), with two changes flame graph tools need: ';'
 * (their frame separator) becomes ':', as stackcollapse.pl does, and white
 * space and control characters (a newline would end the line, a blank
 * before trailing digits would read as a second count column) become '_';
 * an empty frame is "-", as stackcollapse.pl writes it.  An empty stack
 * (no frame at all) is a line with no frame, " COUNT", as stackcollapse.pl
 * writes it: flamegraph.pl counts it in the root's width and draws no
 * frame for it.  --strip-offsets (o->folded_strip) takes the "+0x..." off
 * each stack frame, as stackcollapse.pl does by default, so that the
 * samples of one function add up whatever instruction they were at.
 *
 * Everything is written at the end, when every capture has been read:
 * lines sorted by their bytes (strcmp, as stackcollapse.pl's sort), so the
 * same captures always give the same file; lines whose count is not
 * positive (a cleared row, a negative sum) are left out, since a flame
 * graph has no negative widths.  Drops, errors and decoder notices go to
 * the error stream as dtrace prints them.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "emitter.h"
#include "pccache.h"

#ifndef DTC_EMIT_ABORT
#define DTC_EMIT_ABORT 2
#endif

/* dtrace's text for a stack it cannot print (dt_print_stack) */
#define MSG_BADSTACKPC "Invalid stack program counter size"

/* Kernel frame texts kept by pc, as text.c keeps them (pccache.h). */
#define FTEXT_BITS 16
#define FTEXT_ENTRY 64

/* ------------------------------------------------------------------ */
/* Lines and their counts                                              */
/* ------------------------------------------------------------------ */

/* A distinct line (without its count) and what it adds up to. */
typedef struct fline {
	char *s;                 /* NUL-terminated; NULL: empty slot */
	uint64_t hash;
	int64_t count;
} fline;

/* Open addressing over fline, doubled at half full. */
typedef struct ftable {
	fline *v;
	size_t cap, n;           /* cap: 0 or a power of two */
} ftable;

/* FNV-1a */
static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* a + b, held at the int64 bounds instead of wrapping */
static int64_t
add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int
ftable_grow(ftable *t)
{
	size_t ncap = t->cap != 0 ? t->cap * 2 : 1024, i, j;
	fline *nv = calloc(ncap, sizeof(*nv));

	if (nv == NULL)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (t->v[i].s == NULL)
			continue;
		for (j = t->v[i].hash & (ncap - 1); nv[j].s != NULL;
		    j = (j + 1) & (ncap - 1))
			continue;
		nv[j] = t->v[i];
	}
	free(t->v);
	t->v = nv;
	t->cap = ncap;
	return 0;
}

/* Add count to line s (n bytes, no NUL inside).  Returns 0 or -1 (no
 * memory: the line is lost). */
static int
ftable_add(ftable *t, const char *s, size_t n, int64_t count)
{
	uint64_t h;
	size_t j;

	if (s == NULL)           /* the line could not be built */
		return -1;
	h = hash_bytes(s, n);
	if (2 * (t->n + 1) > t->cap && ftable_grow(t) != 0)
		return -1;
	for (j = h & (t->cap - 1); t->v[j].s != NULL;
	    j = (j + 1) & (t->cap - 1)) {
		if (t->v[j].hash == h && strncmp(t->v[j].s, s, n) == 0 &&
		    t->v[j].s[n] == '\0') {
			t->v[j].count = add_sat(t->v[j].count, count);
			return 0;
		}
	}
	if ((t->v[j].s = malloc(n + 1)) == NULL)
		return -1;
	memcpy(t->v[j].s, s, n);
	t->v[j].s[n] = '\0';
	t->v[j].hash = h;
	t->v[j].count = count;
	t->n++;
	return 0;
}

static void
ftable_free(ftable *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->v[i].s);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------ */
/* State                                                               */
/* ------------------------------------------------------------------ */

/* One aggregation's rows as last printed: lines and values. */
typedef struct aggstate {
	unsigned capture;        /* which capture of the run */
	int64_t varid;
	ftable rows;
} aggstate;

typedef struct folded_state {
	FILE *out, *err;
	uint64_t keys;           /* key positions kept (bit 0: the first);
	                          * 0: all */
	int merge_aggs;          /* count the merged printing, not printa */
	int kmark;               /* mark kernel frames (opts folded_kmark) */
	int kernel;              /* the frames being put are kernel frames */
	const char *agg;         /* --agg: this aggregation alone, or NULL */
	int strip;               /* --strip-offsets */
	int agg_seen;            /* a printing of --agg's aggregation came */
	unsigned capture;        /* counts BEGIN events */
	ftable lines;            /* records (and merged printings) so far */
	aggstate *aggs;          /* last printing by (capture, varid) */
	size_t naggs, capaggs;
	dtc_buf line;            /* the line being built */
	dtc_buf frames;          /* one stack's frame texts, leaf first */
	size_t *fend;            /* end of each frame in frames */
	uint32_t nfend, capfend;
	dtc_buf sym;             /* one symbolizer result */
	pccache ft;              /* kernel frame texts by pc */
	int nomem;               /* something was lost for want of memory */
} folded_state;

static void
lost(folded_state *st)
{
	st->nomem = 1;
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

/* Frame text into the line, changed where flame graph tools need it (see
 * the comment at the top). */
static void
put_frame(folded_state *st, const char *s, size_t n)
{
	size_t i, start;
	char *c;

	if (st->line.len > 0 && dtc_buf_append(&st->line, ";", 1) != 0) {
		lost(st);
		return;
	}
	if (n == 0) {
		s = "-";
		n = 1;
	}
	start = st->line.len;
	if (dtc_buf_append(&st->line, s, n) != 0) {
		lost(st);
		return;
	}
	for (i = start; i < st->line.len; i++) {
		c = &st->line.s[i];
		if (*c == ';')
			*c = ':';
		else if ((unsigned char)*c <= ' ' || *c == 0x7f)
			*c = '_';
	}
	if (st->kernel && dtc_buf_append(&st->line, "\001", 1) != 0)
		lost(st);
}

/* Stack frames come leaf first; they are kept here, then put into the
 * line root first by flush_frames. */
static void
push_frame(folded_state *st, const char *s, size_t n)
{
	size_t *p;

	if (st->nfend == st->capfend) {
		uint32_t ncap = st->capfend != 0 ? st->capfend * 2 : 64;

		if ((p = realloc(st->fend, ncap * sizeof(*p))) == NULL) {
			lost(st);
			return;
		}
		st->fend = p;
		st->capfend = ncap;
	}
	if (dtc_buf_append(&st->frames, s, n) != 0) {
		lost(st);
		return;
	}
	st->fend[st->nfend++] = st->frames.len;
}

/* n less a trailing "+0x" and hex digits (--strip-offsets): what
 * stackcollapse.pl strips after a frame's last '+', here only when it is
 * the offset dtrace prints, so that a frame that is a bare address or
 * has a '+' in its name stays whole */
static size_t
strip_offset(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') ||
	    (s[i - 1] >= 'a' && s[i - 1] <= 'f')))
		i--;
	if (i < n && i >= 3 && s[i - 1] == 'x' && s[i - 2] == '0' &&
	    s[i - 3] == '+' && i > 3)
		return i - 3;
	return n;
}

static void
flush_frames(folded_state *st)
{
	uint32_t i;
	size_t start, n;

	for (i = st->nfend; i-- > 0;) {
		start = i > 0 ? st->fend[i - 1] : 0;
		n = st->fend[i] - start;
		if (st->strip)
			n = strip_offset(st->frames.s + start, n);
		put_frame(st, st->frames.s + start, n);
	}
	dtc_buf_reset(&st->frames);
	st->nfend = 0;
}

/* A kernel stack (dt_print_stack's frames).  Returns 0, or -1 for a pc
 * size dtrace refuses. */
static int
kernel_stack(folded_state *st, const dtc_reader *r, const dtc_value *v)
{
	const void *p;
	size_t n;
	uint32_t i;
	uint64_t pc;

	if (v->nframes == 0)
		return 0;
	if (v->pcsize != 4 && v->pcsize != 8)
		return -1;
	for (i = 0; i < v->nframes && (pc = dtc_value_pc(v, i)) != 0; i++) {
		if ((p = pccache_get(&st->ft, pc, &n)) != NULL) {
			push_frame(st, p, n);
			continue;
		}
		dtc_buf_reset(&st->sym);
		dtc_reader_frame_text(r, pc, &st->sym);
		push_frame(st, st->sym.s, st->sym.len);
		pccache_put(&st->ft, pc, st->sym.s, st->sym.len);
	}
	st->kernel = st->kmark;
	flush_frames(st);
	st->kernel = 0;
	return 0;
}

/*
 * A user stack (ustack, jstack).  Which text a frame gets is text.c's
 * rule (ustack_frame: symbol, else the helper string where libdtrace
 * would print it, else obj`0x..., else 0x...); it must stay the same
 * rule, so that a frame reads here as dtconsume prints it.  Annotations
 * (helper strings starting with '@', printed under their frame as
 * "[ ... ]") are not frames and are left out.
 */
static void
user_stack(folded_state *st, const dtc_reader *r, const dtc_value *v)
{
	const dtc_header *h = dtc_reader_header(r);
	int illumos = h != NULL && h->os_illumos;
	const char *str = v->strsize != 0 ? (const char *)v->strtab : NULL;
	const char *strend = str != NULL ? str + v->strsize : NULL;
	int proc_known = 0, found, helper;
	dtc_symbol sym;
	uint32_t i;
	uint64_t pc;
	size_t sn;

	if (!illumos) {
		/* the process "can be grabbed" when we know any of its pcs */
		for (i = 0; i < v->nframes && (pc = dtc_value_pc(v, i)) != 0;
		    i++) {
			if (dtc_reader_usym_lookup(r, v->pid, pc, &sym)) {
				proc_known = 1;
				break;
			}
		}
	}
	for (i = 0; i < v->nframes && (pc = dtc_value_pc(v, i)) != 0; i++) {
		sn = str != NULL ? strnlen(str, (size_t)(strend - str)) : 0;
		found = dtc_reader_usym_lookup(r, v->pid, pc, &sym);
		helper = str != NULL && sn > 0 && str[0] != '@' &&
		    (illumos ? !found : (proc_known && !found));
		dtc_buf_reset(&st->sym);
		if (found && sym.name != NULL)
			dtc_reader_uaddr_text(r, v->pid, pc, 0, &st->sym);
		else if (helper)
			dtc_buf_append(&st->sym, str, sn);
		else if (found)
			dtc_reader_uaddr_text(r, v->pid, pc, 0, &st->sym);
		else
			dtc_buf_printf(&st->sym, "0x%" PRIx64, pc);
		push_frame(st, st->sym.s != NULL ? st->sym.s : "",
		    st->sym.len);
		if (str != NULL) {
			str += sn + 1;
			if (str >= strend)
				str = NULL;
		}
	}
	flush_frames(st);
}

static int
is_stack(const dtc_value *v)
{
	return v->kind == DTC_V_STACK || v->kind == DTC_V_USTACK;
}

/* Either kind of stack into the line.  Returns 0 or -1 (bad pc size). */
static int
stack_frames(folded_state *st, const dtc_reader *r, const dtc_value *v)
{
	if (v->kind == DTC_V_STACK)
		return kernel_stack(st, r, v);
	user_stack(st, r, v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Other key components as frames                                      */
/* ------------------------------------------------------------------ */

/* dtrace's isprint() || isspace() test of dt_print_bytes */
static int
printable(uint8_t c)
{
	return (c >= 0x20 && c <= 0x7e) || (c >= 0x07 && c <= 0x0d);
}

/* Byte data as dtrace decides it: a string when every byte up to a NUL
 * (followed by NULs only) or to the end is printable, else 0x + hex. */
static void
bytes_text(folded_state *st, const uint8_t *c, size_t n)
{
	size_t i, j;

	for (i = 0; i < n && printable(c[i]); i++)
		continue;
	if (i > 0 && i < n && c[i] == '\0') {
		for (j = i + 1; j < n && c[j] == '\0'; j++)
			continue;
		if (j == n)
			n = i;
	}
	if (i >= n) {
		dtc_buf_append(&st->sym, c, n);
		return;
	}
	dtc_buf_append(&st->sym, "0x", 2);
	for (i = 0; i < n; i++)
		dtc_buf_printf(&st->sym, "%02x", c[i]);
}

/* A 1, 2, 4 or 8-byte key as dtrace's default printa prints it: 1 and 2
 * bytes unsigned, 4 and 8 signed, whatever its D type (text.c key_int). */
static void
int_text(folded_state *st, const dtc_value *k)
{
	uint64_t u = 0;
	uint32_t u32;
	uint16_t u16;

	if (k->kind == DTC_V_INT || k->data == NULL) {
		u = k->u;
	} else if (k->size == 8) {
		memcpy(&u, k->data, 8);
		u = k->swapped ? __builtin_bswap64(u) : u;
	} else if (k->size == 4) {
		memcpy(&u32, k->data, 4);
		u = k->swapped ? __builtin_bswap32(u32) : u32;
	} else if (k->size == 2) {
		memcpy(&u16, k->data, 2);
		u = k->swapped ? __builtin_bswap16(u16) : u16;
	} else {
		u = k->data[0];
	}
	switch (k->size) {
	case 8:
		dtc_buf_printf(&st->sym, "%" PRId64, (int64_t)u);
		break;
	case 4:
		dtc_buf_printf(&st->sym, "%" PRId32, (int32_t)(uint32_t)u);
		break;
	case 2:
		dtc_buf_printf(&st->sym, "%u", (unsigned)(uint16_t)u);
		break;
	default:
		dtc_buf_printf(&st->sym, "%u", (unsigned)(uint8_t)u);
		break;
	}
}

/* A key that is not a stack, as one frame. */
static void
key_frame(folded_state *st, const dtc_reader *r, const dtc_value *k)
{
	dtc_buf_reset(&st->sym);
	switch (k->kind) {
	case DTC_V_SYM:
		dtc_reader_addr_text(r, k->addr, 1, &st->sym);
		break;
	case DTC_V_MOD:
		dtc_reader_mod_text(r, k->addr, &st->sym);
		break;
	case DTC_V_USYM:
		dtc_reader_uaddr_text(r, k->pid, k->addr, 1, &st->sym);
		break;
	case DTC_V_UADDR:
		dtc_reader_uaddr_text(r, k->pid, k->addr, 0, &st->sym);
		break;
	case DTC_V_UMOD:
		dtc_reader_umod_text(r, k->pid, k->addr, &st->sym);
		break;
	default:
		if (k->size == 1 || k->size == 2 || k->size == 4 ||
		    k->size == 8)
			int_text(st, k);
		else if (k->data != NULL)
			bytes_text(st, k->data, k->size);
		break;
	}
	put_frame(st, st->sym.s != NULL ? st->sym.s : "", st->sym.len);
}

/* ------------------------------------------------------------------ */
/* Aggregations                                                        */
/* ------------------------------------------------------------------ */

/* The count a row's value gives (see the comment at the top). */
static int64_t
row_value(const dtc_aggval *v)
{
	uint64_t u;
	int64_t total = 0;
	uint32_t i, first;

	switch (v->func) {
	case DTC_AGG_QUANTIZE:
	case DTC_AGG_LQUANTIZE:
	case DTC_AGG_LLQUANTIZE:
		/* every word is a bucket count, but for the parameter word
		 * that starts lquantize and llquantize values */
		first = v->func == DTC_AGG_QUANTIZE ? 0 : 1;
		for (i = first; i < v->size / 8; i++)
			total = add_sat(total, (int64_t)dtc_aggval_word(v, i));
		if (v->normal > 1 && v->normal <= (uint64_t)INT64_MAX)
			total /= (int64_t)v->normal;
		return total;
	case DTC_AGG_STDDEV:
		u = dtc_aggval_stddev(v);
		return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
	default:
		/* count, sum, min, max, avg: the number dtrace prints */
		return dtc_aggval_scalar(v);
	}
}

static int
key_kept(const folded_state *st, uint32_t k)
{
	return st->keys == 0 || (k < 64 && (st->keys >> k & 1) != 0);
}

/* The line of one row: its stacks and kept key components, root first.
 * Returns 0, 1 (the row has no stack key: not ours) or -1 (bad stack). */
static int
row_line(folded_state *st, const dtc_reader *r, const dtc_aggrow *row,
    uint32_t nkeys)
{
	uint32_t k;
	int stack = 0;

	for (k = 0; k < nkeys; k++)
		stack |= is_stack(&row->keys[k]);
	if (!stack)
		return 1;
	dtc_buf_reset(&st->line);
	for (k = 0; k < nkeys; k++) {
		/* --folded-key chooses among the other components: a
		 * stack left out would fold every row into its keys */
		if (!is_stack(&row->keys[k])) {
			if (key_kept(st, k))
				key_frame(st, r, &row->keys[k]);
		} else if (stack_frames(st, r, &row->keys[k]) != 0) {
			return -1;
		}
	}
	return 0;
}

/* The index in st->aggs of (capture, varid), its rows emptied: a new
 * printing replaces them.  -1: no memory. */
static ssize_t
agg_reset(folded_state *st, int64_t varid)
{
	aggstate *a;
	size_t i;

	for (i = 0; i < st->naggs; i++) {
		a = &st->aggs[i];
		if (a->capture == st->capture && a->varid == varid) {
			ftable_free(&a->rows);
			return (ssize_t)i;
		}
	}
	if (st->naggs == st->capaggs) {
		size_t ncap = st->capaggs != 0 ? st->capaggs * 2 : 16;

		if ((a = realloc(st->aggs, ncap * sizeof(*a))) == NULL)
			return -1;
		st->aggs = a;
		st->capaggs = ncap;
	}
	a = &st->aggs[st->naggs];
	memset(a, 0, sizeof(*a));
	a->capture = st->capture;
	a->varid = varid;
	return (ssize_t)st->naggs++;
}

/*
 * One printing (printa() or the end of the run): each of its variables
 * gets this printing's rows in place of what an earlier one showed.  The
 * merged printing of --merge-aggs is added as it comes: it is printed
 * once, and aggregations that did not merge may share a variable id.
 */
static int
printing(folded_state *st, const dtc_reader *r, const dtc_aggprint *ap,
    int merged)
{
	/* indexes, not pointers: agg_reset may move st->aggs */
	ssize_t *idx = NULL;
	uint32_t j;
	size_t i;
	int rc = 0;

	if (ap->nvars == 0)
		return 0;
	if (st->agg != NULL) {
		for (j = 0; j < ap->nvars; j++)
			if (ap->vars[j].name != NULL &&
			    strcmp(ap->vars[j].name, st->agg) == 0)
				break;
		if (j == ap->nvars)
			return 0;       /* not the one chosen */
		st->agg_seen = 1;
	}
	if (!merged) {
		if ((idx = calloc(ap->nvars, sizeof(*idx))) == NULL) {
			lost(st);
			return 0;
		}
		for (j = 0; j < ap->nvars; j++)
			if ((idx[j] = agg_reset(st, ap->vars[j].varid)) < 0)
				lost(st);
	}
	for (i = 0; i < ap->nrows && rc >= 0; i++) {
		const dtc_aggrow *row = &ap->rows[i];
		const dtc_aggvar *var = row->var != NULL ? row->var :
		    &ap->vars[0];

		/* 1: no stack key, not ours; -1: a bad stack */
		if ((rc = row_line(st, r, row, var->nkeys)) != 0)
			continue;
		for (j = 0; j < ap->nvars; j++) {
			ftable *t = merged ? &st->lines : idx[j] >= 0 ?
			    &st->aggs[idx[j]].rows : NULL;

			if (st->agg != NULL && (ap->vars[j].name == NULL ||
			    strcmp(ap->vars[j].name, st->agg) != 0))
				continue;
			if (t == NULL || ftable_add(t, st->line.s != NULL ?
			    st->line.s : "", st->line.len,
			    row_value(&row->vals[j])) != 0)
				lost(st);
		}
	}
	free(idx);
	return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

static int
abort_capture(folded_state *st)
{
	fflush(st->out);
	fprintf(st->err, "dtrace: processing aborted: %s\n", MSG_BADSTACKPC);
	return DTC_EMIT_ABORT;
}

static int
on_begin(const dtc_event *ev, void *arg)
{
	folded_state *st = arg;

	st->capture++;
	pccache_reset(&st->ft, ev);
	return 0;
}

static int
on_record(const dtc_event *ev, void *arg)
{
	folded_state *st = arg;
	const dtc_value *v = ev->value;

	if (v == NULL)
		return 0;
	pccache_sync(&st->ft, ev);
	if (v->kind == DTC_V_PRINTA && v->agg != NULL && !st->merge_aggs)
		return printing(st, ev->reader, v->agg, 0) != 0 ?
		    abort_capture(st) : 0;
	if (!is_stack(v) || st->agg != NULL)
		return 0;
	dtc_buf_reset(&st->line);
	if (stack_frames(st, ev->reader, v) != 0)
		return abort_capture(st);
	if (ftable_add(&st->lines, st->line.s != NULL ? st->line.s : "",
	    st->line.len, 1) != 0)
		lost(st);
	return 0;
}

static int
on_agg(const dtc_event *ev, void *arg)
{
	folded_state *st = arg;

	if (ev->agg == NULL)
		return 0;
	/* the symbol tables may have grown since the last record */
	pccache_reset(&st->ft, ev);
	if (printing(st, ev->reader, ev->agg, st->merge_aggs) != 0)
		return abort_capture(st);
	return 0;
}

/* drops, faults, decoder notices: on the error stream as text.c has them */
static void
errline(folded_state *st, const char *prefix, const char *msg)
{
	size_t n;

	if (msg == NULL)
		msg = "";
	n = strlen(msg);
	fputs(prefix, st->err);
	fwrite(msg, 1, n, st->err);
	if (n == 0 || msg[n - 1] != '\n')
		putc('\n', st->err);
}

static int
on_message(const dtc_event *ev, void *arg)
{
	errline(arg, "dtrace: ", ev->message);
	return 0;
}

static int
on_notice(const dtc_event *ev, void *arg)
{
	switch (ev->notice) {
	case DTC_NOTICE_SYSTEM:
	case DTC_NOTICE_FREOPEN:
	case DTC_NOTICE_INTERRUPT:
		/* about output this format does not write */
		return 0;
	case DTC_NOTICE_LIBERR:
		errline(arg, "dtrace: ", ev->message);
		return 0;
	default:
		errline(arg, "dtconsume: ", ev->message);
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* The run                                                             */
/* ------------------------------------------------------------------ */

static void *
folded_create(const dtc_emitter_opts *o)
{
	folded_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	st->out = o->out;
	st->err = o->err;
	st->keys = o->folded_keys;
	st->merge_aggs = o->merge_aggs;
	st->kmark = o->folded_kmark;
	st->agg = o->folded_agg;
	st->strip = o->folded_strip;
	dtc_buf_init(&st->line);
	dtc_buf_init(&st->frames);
	dtc_buf_init(&st->sym);
	pccache_init(&st->ft, FTEXT_BITS, FTEXT_ENTRY);
	return st;
}

static int
by_text(const void *a, const void *b)
{
	return strcmp((*(const fline *const *)a)->s,
	    (*(const fline *const *)b)->s);
}

/* Every aggregation's last printing into st->lines, then the lines in
 * order, those with a positive count. */
static int
write_lines(folded_state *st)
{
	const fline **v;
	const ftable *t;
	size_t i, j, n = 0;
	int rc = 0;

	for (i = 0; i < st->naggs; i++) {
		t = &st->aggs[i].rows;
		for (j = 0; j < t->cap; j++)
			if (t->v[j].s != NULL && ftable_add(&st->lines,
			    t->v[j].s, strlen(t->v[j].s), t->v[j].count) != 0)
				lost(st);
	}
	if (st->lines.n == 0)
		return 0;
	if ((v = malloc(st->lines.n * sizeof(*v))) == NULL) {
		lost(st);
		return 0;
	}
	for (i = 0; i < st->lines.cap; i++)
		if (st->lines.v[i].s != NULL && st->lines.v[i].count > 0)
			v[n++] = &st->lines.v[i];
	qsort(v, n, sizeof(*v), by_text);
	for (i = 0; i < n && rc == 0; i++)
		if (fprintf(st->out, "%s %" PRId64 "\n", v[i]->s,
		    v[i]->count) < 0)
			rc = -1;
	free(v);
	return rc;
}

static int
folded_destroy(void *state)
{
	folded_state *st = state;
	size_t i;
	int rc;

	rc = write_lines(st);
	if (fflush(st->out) != 0)
		rc = -1;
	if (st->agg != NULL && !st->agg_seen) {
		/* an empty output would look like an aggregation without a
		 * row: say that the name matched none */
		fputs("dtconsume: no aggregation @", st->err);
		fputs(st->agg, st->err);
		fputs(" was printed in the captures\n", st->err);
	}
	if (st->nomem)
		fputs("dtconsume: out of memory: some stacks were not "
		    "counted\n", st->err);
	for (i = 0; i < st->naggs; i++)
		ftable_free(&st->aggs[i].rows);
	free(st->aggs);
	ftable_free(&st->lines);
	dtc_buf_free(&st->line);
	dtc_buf_free(&st->frames);
	dtc_buf_free(&st->sym);
	free(st->fend);
	pccache_free(&st->ft);
	free(st);
	return rc;
}

const dtc_emitter dtc_fmt_folded = {
	.name = "folded",
	.description = "folded stacks for flame graphs (flamegraph.pl)",
	.create = folded_create,
	.destroy = folded_destroy,
	.handler = {
		.begin = on_begin,
		.record = on_record,
		.agg = on_agg,
		.drop = on_message,
		.error = on_message,
		.notice = on_notice,
	},
};
