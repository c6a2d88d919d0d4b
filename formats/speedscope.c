/*
 * speedscope.c - the "speedscope" format: speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json), which speedscope
 * and other profile viewers import.
 *
 * Two kinds of profile (dtconsume(1), SPEEDSCOPE says which D gives
 * which):
 *  - "sampled": the stacks of -f folded (stackprof.h), one profile per
 *    probe recording stack(), ustack() or jstack() and one per
 *    aggregation printing with a stack key; each distinct stack is a
 *    sample weighted by its count (unit "none").
 *  - "evented": probes named entry and return (or ending in -entry and
 *    -return: fbt, syscall, pid, ...) open and close a frame named
 *    after the probe's function, one profile per CPU, at the record's own
 *    timestamp (legacy captures) or, in a capture whose records carry
 *    none (DTrace v2), at the first value the record set traced when it is
 *    an 8-byte integer: `trace(timestamp)`.  A return whose entry is not
 *    the innermost open frame closes the frames opened after its entry
 *    (another thread ran on the CPU); a return with no entry open is
 *    passed over, and frames still open at the end close at the CPU's
 *    last event.  Times never go back (a timestamp older than the last
 *    one is taken as the last).
 *
 * Nothing can be written before the end: the frames come first in the
 * file's model and every profile refers to them.  Memory: folded.c's
 * lines (a line per distinct stack) and 16 bytes per entry or return
 * record; strings are encoded by jansson.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emitter.h"
#include "jstr.h"
#include "stackprof.h"

/* One entry or return on a CPU. */
typedef struct ssev {
	uint64_t at;
	uint32_t frame;
	uint32_t open;           /* 1: entry, 0: return */
} ssev;

typedef struct sscpu {
	int cpu;
	ssev *v;
	size_t n, cap;
} sscpu;

/* A frame name, interned: open addressing over indexes into names. */
typedef struct ssframes {
	char **names;
	size_t n, capn;
	uint32_t *slot;          /* index + 1; 0: empty */
	size_t cap;
} ssframes;

typedef struct ss_state {
	stackprof sp;
	FILE *out, *err;
	ssframes fr;
	sscpu *cpus;
	size_t ncpus;
	/* the record set in progress */
	int pending;             /* 1: an entry (2: a return) waits for its time */
	const char *pfn;         /* its frame's name (the probe's function) */
	int pcpu;
	uint64_t pat;
	int have_at;
	int nomem;
} ss_state;

static uint64_t
hash_str(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The index of frame name s (n bytes), added when new; -1: no memory. */
static int64_t
intern(ssframes *t, const char *s, size_t n)
{
	size_t j, i;
	uint32_t *ns;
	char **nn;

	if (2 * (t->n + 1) > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 1024;

		if ((ns = calloc(ncap, sizeof(*ns))) == NULL)
			return -1;
		for (i = 0; i < t->n; i++) {
			j = hash_str(t->names[i], strlen(t->names[i])) &
			    (ncap - 1);
			while (ns[j] != 0)
				j = (j + 1) & (ncap - 1);
			ns[j] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = ns;
		t->cap = ncap;
	}
	for (j = hash_str(s, n) & (t->cap - 1); t->slot[j] != 0;
	    j = (j + 1) & (t->cap - 1)) {
		const char *o = t->names[t->slot[j] - 1];

		if (strncmp(o, s, n) == 0 && o[n] == '\0')
			return t->slot[j] - 1;
	}
	if (t->n == t->capn) {
		size_t ncap = t->capn ? t->capn * 2 : 1024;

		if ((nn = realloc(t->names, ncap * sizeof(*nn))) == NULL)
			return -1;
		t->names = nn;
		t->capn = ncap;
	}
	if ((t->names[t->n] = strndup(s, n)) == NULL)
		return -1;
	t->slot[j] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

static void *
ss_create(const dtc_emitter_opts *o)
{
	ss_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	if (stackprof_init(&st->sp, o, 1) != 0) {
		stackprof_free(&st->sp);
		free(st);
		return NULL;
	}
	st->out = o->out;
	st->err = o->err;
	return st;
}

static sscpu *
cpu_of(ss_state *st, int cpu)
{
	sscpu *c;
	size_t i;

	for (i = 0; i < st->ncpus; i++)
		if (st->cpus[i].cpu == cpu)
			return &st->cpus[i];
	if ((c = realloc(st->cpus, (st->ncpus + 1) * sizeof(*c))) == NULL)
		return NULL;
	st->cpus = c;
	c = &st->cpus[st->ncpus++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	return c;
}

static void
add_event(ss_state *st, uint32_t frame)
{
	sscpu *c = cpu_of(st, st->pcpu);
	ssev *v;

	if (c == NULL) {
		st->nomem = 1;
		return;
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;

		if ((v = realloc(c->v, ncap * sizeof(*v))) == NULL) {
			st->nomem = 1;
			return;
		}
		c->v = v;
		c->cap = ncap;
	}
	v = &c->v[c->n++];
	v->at = st->pat;
	v->frame = frame;
	v->open = st->pending == 1;
}

/* "entry", "return", or *-entry / *-return */
static int
name_is(const char *name, const char *what)
{
	size_t n = strlen(name), w = strlen(what);

	if (strcmp(name, what) == 0)
		return 1;
	return n > w && name[n - w - 1] == '-' &&
	    strcmp(name + n - w, what) == 0;
}

static int
on_probe(const dtc_event *ev, void *arg)
{
	ss_state *st = arg;
	const dtc_probedesc *p = ev->probe;
	st->pending = 0;
	if (p == NULL || p->name == NULL)
		return 0;
	if (name_is(p->name, "entry"))
		st->pending = 1;
	else if (name_is(p->name, "return"))
		st->pending = 2;
	else
		return 0;
	st->pfn = p->function != NULL && p->function[0] != '\0' ?
	    p->function : p->fullname != NULL ? p->fullname : "?";
	st->pcpu = ev->cpu;
	st->pat = ev->timestamp;
	st->have_at = ev->timestamp != 0;
	return 0;
}

static int
on_record(const dtc_event *ev, void *arg)
{
	ss_state *st = arg;
	const dtc_value *v = ev->value;

	/* DTrace v2: the first value traced, when it is 8 bytes */
	if (st->pending && !st->have_at && v != NULL) {
		if (v->kind == DTC_V_INT && v->size == 8 &&
		    v->action == DTC_ACT_DIFEXPR) {
			st->pat = v->u;
			st->have_at = 1;
		} else {
			st->pending = 0;
		}
	}
	return stackprof_handler.record(ev, &st->sp);
}

static int
on_probe_end(const dtc_event *ev, void *arg)
{
	ss_state *st = arg;
	int64_t f;

	(void)ev;
	if (st->pending && st->have_at) {
		if ((f = intern(&st->fr, st->pfn, strlen(st->pfn))) < 0)
			st->nomem = 1;
		else
			add_event(st, (uint32_t)f);
	}
	st->pending = 0;
	return 0;
}

#define H(name) \
static int name(const dtc_event *ev, void *arg) \
{ \
	return stackprof_handler.name(ev, &((ss_state *)arg)->sp); \
}
H(begin) H(agg) H(drop) H(error) H(notice)
#undef H


/* The frames of a folded line as indexes, root first. */
static int
sample(ss_state *st, FILE *fp, const sp_line *l)
{
	size_t pos = 0, fn;
	const char *f;
	int kernel, first = 1;
	int64_t i;

	putc('[', fp);
	while (stackprof_next_frame(l, &pos, &f, &fn, &kernel)) {
		if ((i = intern(&st->fr, f, fn)) < 0)
			return -1;
		fprintf(fp, "%s%" PRId64, first ? "" : ",", i);
		first = 0;
	}
	putc(']', fp);
	return 0;
}

static void
sampled(ss_state *st, FILE *fp, const sp_group *g, int *nprof)
{
	sp_line l;
	size_t pos = 0;
	uint64_t total = 0;
	int first = 1;

	if (g->buf == NULL || g->len == 0)
		return;
	fprintf(fp, "%s\n{\"type\":\"sampled\",\"name\":", *nprof ? "," : "");
	jstr_put(fp, g->name, strlen(g->name));
	fputs(",\"unit\":\"none\",\"startValue\":0,\"samples\":[", fp);
	while (stackprof_next_line(g->buf, g->len, &pos, &l)) {
		if (l.count <= 0)
			continue;
		if (!first)
			putc(',', fp);
		first = 0;
		if (sample(st, fp, &l) != 0)
			st->nomem = 1;
	}
	fputs("],\"weights\":[", fp);
	pos = 0;
	first = 1;
	while (stackprof_next_line(g->buf, g->len, &pos, &l)) {
		if (l.count <= 0)
			continue;
		fprintf(fp, "%s%" PRId64, first ? "" : ",", l.count);
		first = 0;
		total += (uint64_t)l.count;
	}
	fprintf(fp, "],\"endValue\":%" PRIu64 "}", total);
	(*nprof)++;
}

static void
evented(ss_state *st, FILE *fp, const sscpu *c, int *nprof)
{
	uint32_t *open = NULL;
	size_t nopen = 0, i, j;
	uint64_t at, start;
	int first = 1;

	/* returns before the first entry close nothing: passed over */
	for (i = 0; i < c->n && !c->v[i].open; i++)
		continue;
	if (i == c->n)
		return;
	start = c->v[i].at;
	if ((open = malloc(c->n * sizeof(*open))) == NULL) {
		st->nomem = 1;
		return;
	}
	fprintf(fp, "%s\n{\"type\":\"evented\",\"name\":\"CPU %d\","
	    "\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64 ",\"events\":[",
	    *nprof ? "," : "", c->cpu, start);
	for (at = start; i < c->n; i++) {
		const ssev *e = &c->v[i];

		if (e->at > at)
			at = e->at;
		if (e->open) {
			open[nopen++] = e->frame;
			fprintf(fp, "%s{\"type\":\"O\",\"frame\":%" PRIu32
			    ",\"at\":%" PRIu64 "}", first ? "" : ",", e->frame,
			    at);
			first = 0;
			continue;
		}
		for (j = nopen; j > 0 && open[j - 1] != e->frame; j--)
			continue;
		if (j == 0)
			continue;        /* no entry open: passed over */
		while (nopen >= j) {
			fprintf(fp, ",{\"type\":\"C\",\"frame\":%" PRIu32
			    ",\"at\":%" PRIu64 "}", open[--nopen], at);
		}
	}
	while (nopen > 0)
		fprintf(fp, ",{\"type\":\"C\",\"frame\":%" PRIu32 ",\"at\":%"
		    PRIu64 "}", open[--nopen], at);
	fprintf(fp, "],\"endValue\":%" PRIu64 "}", at);
	free(open);
	(*nprof)++;
}

static int
ss_destroy(void *state)
{
	ss_state *st = state;
	FILE *fp = st->out;
	int rc, nprof = 0;
	size_t i;

	rc = stackprof_finish(&st->sp);
	fputs("{\"$schema\":\"https://www.speedscope.app/"
	    "file-format-schema.json\",\n\"exporter\":\"dtconsume ", fp);
	fputs(dtc_version_string(), fp);
	fputs("\",\n\"name\":", fp);
	jstr_put(fp, st->sp.sources.s != NULL ? st->sp.sources.s : "",
	    st->sp.sources.len);
	fputs(",\n\"activeProfileIndex\":0,\n\"profiles\":[", fp);
	for (i = 1; i < st->sp.ng; i++)
		sampled(st, fp, &st->sp.g[i], &nprof);
	for (i = 0; i < st->ncpus; i++)
		evented(st, fp, &st->cpus[i], &nprof);
	fputs("],\n\"shared\":{\"frames\":[", fp);
	for (i = 0; i < st->fr.n; i++) {
		fputs(i > 0 ? ",\n{\"name\":" : "\n{\"name\":", fp);
		jstr_put(fp, st->fr.names[i], strlen(st->fr.names[i]));
		putc('}', fp);
	}
	fputs("]}}\n", fp);
	if (nprof == 0)
		fputs("dtconsume: no stacks and no entry/return records: the "
		    "speedscope file has no profile\n", st->err);
	if (st->nomem) {
		fputs("dtconsume: out of memory: the speedscope file is "
		    "incomplete\n", st->err);
		rc = -1;
	}
	if (fflush(fp) != 0 || ferror(fp))
		rc = -1;
	for (i = 0; i < st->fr.n; i++)
		free(st->fr.names[i]);
	free(st->fr.names);
	free(st->fr.slot);
	for (i = 0; i < st->ncpus; i++)
		free(st->cpus[i].v);
	free(st->cpus);
	stackprof_free(&st->sp);
	free(st);
	return rc;
}

const dtc_emitter dtc_fmt_speedscope = {
	.name = "speedscope",
	.description = "speedscope's profile format (JSON)",
	.create = ss_create,
	.destroy = ss_destroy,
	.handler = {
		.begin = begin,
		.probe = on_probe,
		.record = on_record,
		.probe_end = on_probe_end,
		.agg = agg,
		.drop = drop,
		.error = error,
		.notice = notice,
	},
};
