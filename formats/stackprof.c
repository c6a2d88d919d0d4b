/*
 * stackprof.c - folded.c's stacks in groups, in memory (stackprof.h says
 * why it is built this way).
 *
 * Group 0 always exists: it gets the drops, errors and notices (folded.c
 * writes them on the error stream, once) and, unless the run is split,
 * every stack.  Groups 1.. are named after what recorded the stacks: the
 * probe of a stack(), ustack() or jstack() record, "@name" for an
 * aggregation printing with a stack key ("@a,@b" for printa(@a, @b)).
 * In a run that is not split they only name the stacks (the flame
 * graph's title) and hold no folded state.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackprof.h"

#define FOLDED (&dtc_fmt_folded)

static int
group_open(stackprof *sp, sp_group *g)
{
	dtc_emitter_opts o = sp->o;

	if ((g->mem = open_memstream(&g->buf, &g->len)) == NULL)
		return -1;
	o.out = g->mem;
	if ((g->fst = FOLDED->create(&o)) == NULL) {
		fclose(g->mem);
		g->mem = NULL;
		return -1;
	}
	return 0;
}

int
stackprof_init(stackprof *sp, const dtc_emitter_opts *o, int split)
{
	memset(sp, 0, sizeof(*sp));
	sp->o = *o;
	sp->split = split;
	dtc_buf_init(&sp->sources);
	dtc_buf_init(&sp->labels);
	dtc_buf_init(&sp->scratch);
	if ((sp->g = calloc(16, sizeof(*sp->g))) == NULL)
		return -1;
	sp->capg = 16;
	sp->ng = 1;
	return group_open(sp, &sp->g[0]);
}

/* The group named name (n bytes), made when new; NULL without memory. */
static sp_group *
group(stackprof *sp, const char *name, size_t n)
{
	sp_group *g;
	size_t i;

	for (i = 1; i < sp->ng; i++)
		if (strncmp(sp->g[i].name, name, n) == 0 &&
		    sp->g[i].name[n] == '\0')
			return sp->split ? &sp->g[i] : &sp->g[0];
	if (sp->ng == sp->capg) {
		g = realloc(sp->g, 2 * sp->capg * sizeof(*g));
		if (g == NULL)
			return NULL;
		sp->g = g;
		sp->capg *= 2;
	}
	g = &sp->g[sp->ng];
	memset(g, 0, sizeof(*g));
	if ((g->name = strndup(name, n)) == NULL)
		return NULL;
	if (sp->split && group_open(sp, g) != 0) {
		free(g->name);
		return NULL;
	}
	sp->ng++;
	if (sp->labels.len > 0)
		dtc_buf_append(&sp->labels, ", ", 2);
	dtc_buf_append(&sp->labels, name, n);
	return sp->split ? g : &sp->g[0];
}

static int
forward(stackprof *sp, sp_group *g, int (*cb)(const dtc_event *, void *),
    const dtc_event *ev)
{
	if (g == NULL || g->fst == NULL) {
		sp->nomem = 1;
		return 0;
	}
	return cb(ev, g->fst);
}

static int
stack_action(uint16_t a)
{
	return a == DTC_ACT_STACK || a == DTC_ACT_USTACK ||
	    a == DTC_ACT_JSTACK;
}

/* The group of a printing with a stack key, or NULL (none: not ours, or
 * no memory, then sp->nomem). */
static sp_group *
agg_group(stackprof *sp, const dtc_aggprint *ap, int *ours)
{
	uint32_t j, k;
	const dtc_aggvar *v;

	*ours = 0;
	for (j = 0; j < ap->nvars && !*ours; j++) {
		v = &ap->vars[j];
		for (k = 0; k < v->nkeys && !*ours; k++)
			*ours = stack_action(v->keys[k].action);
	}
	if (!*ours)
		return NULL;
	dtc_buf_reset(&sp->scratch);
	for (j = 0; j < ap->nvars; j++)
		dtc_buf_printf(&sp->scratch, "%s@%s", j > 0 ? "," : "",
		    ap->vars[j].name != NULL ? ap->vars[j].name : "");
	if (sp->scratch.s == NULL)
		return NULL;
	return group(sp, sp->scratch.s, sp->scratch.len);
}

static int
on_begin(const dtc_event *ev, void *arg)
{
	stackprof *sp = arg;
	size_t i;
	int rc = 0;

	if (ev->source != NULL && (sp->sources.s == NULL ||
	    strstr(sp->sources.s, ev->source) == NULL)) {
		if (sp->sources.len > 0)
			dtc_buf_append(&sp->sources, ", ", 2);
		dtc_buf_append(&sp->sources, ev->source, strlen(ev->source));
	}
	for (i = 0; i < sp->ng && rc == 0; i++)
		if (sp->g[i].fst != NULL)
			rc = FOLDED->handler.begin(ev, sp->g[i].fst);
	return rc;
}

static int
on_record(const dtc_event *ev, void *arg)
{
	stackprof *sp = arg;
	const dtc_value *v = ev->value;
	const char *p;
	sp_group *g;
	int ours;

	if (v == NULL)
		return 0;
	if (v->kind == DTC_V_PRINTA && v->agg != NULL) {
		g = agg_group(sp, v->agg, &ours);
		return ours ? forward(sp, g, FOLDED->handler.record, ev) : 0;
	}
	if (v->kind != DTC_V_STACK && v->kind != DTC_V_USTACK)
		return 0;
	p = ev->probe != NULL && ev->probe->fullname != NULL ?
	    ev->probe->fullname : "(unknown probe)";
	g = group(sp, p, strlen(p));
	return forward(sp, g, FOLDED->handler.record, ev);
}

static int
on_agg(const dtc_event *ev, void *arg)
{
	stackprof *sp = arg;
	sp_group *g;
	int ours;

	if (ev->agg == NULL)
		return 0;
	g = agg_group(sp, ev->agg, &ours);
	return ours ? forward(sp, g, FOLDED->handler.agg, ev) : 0;
}

static int
on_drop(const dtc_event *ev, void *arg)
{
	stackprof *sp = arg;

	return forward(sp, &sp->g[0], FOLDED->handler.drop, ev);
}

static int
on_error(const dtc_event *ev, void *arg)
{
	stackprof *sp = arg;

	return forward(sp, &sp->g[0], FOLDED->handler.error, ev);
}

static int
on_notice(const dtc_event *ev, void *arg)
{
	stackprof *sp = arg;

	return forward(sp, &sp->g[0], FOLDED->handler.notice, ev);
}

const dtc_handler stackprof_handler = {
	.begin = on_begin,
	.record = on_record,
	.agg = on_agg,
	.drop = on_drop,
	.error = on_error,
	.notice = on_notice,
};

int
stackprof_finish(stackprof *sp)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < sp->ng; i++) {
		sp_group *g = &sp->g[i];

		if (g->fst == NULL)
			continue;
		if (FOLDED->destroy(g->fst) != 0)
			rc = -1;
		g->fst = NULL;
		if (fclose(g->mem) != 0)
			rc = -1;
		g->mem = NULL;
	}
	if (sp->nomem) {
		fputs("dtconsume: out of memory: some stacks were not "
		    "counted\n", sp->o.err);
		rc = -1;
	}
	return rc;
}

void
stackprof_free(stackprof *sp)
{
	size_t i;

	for (i = 0; i < sp->ng; i++) {
		if (sp->g[i].fst != NULL)
			FOLDED->destroy(sp->g[i].fst);
		if (sp->g[i].mem != NULL)
			fclose(sp->g[i].mem);
		free(sp->g[i].buf);
		free(sp->g[i].name);
	}
	free(sp->g);
	dtc_buf_free(&sp->sources);
	dtc_buf_free(&sp->labels);
	dtc_buf_free(&sp->scratch);
	memset(sp, 0, sizeof(*sp));
}

int
stackprof_next_line(const char *buf, size_t len, size_t *pos, sp_line *l)
{
	const char *s, *nl, *sp;

	while (*pos < len) {
		s = buf + *pos;
		nl = memchr(s, '\n', len - *pos);
		if (nl == NULL)
			nl = buf + len;
		*pos = (size_t)(nl - buf) + (nl < buf + len);
		/* the count follows the last blank (frames hold none) */
		for (sp = nl; sp > s && sp[-1] != ' '; sp--)
			continue;
		if (sp == s)
			continue;
		l->frames = s;
		l->len = (size_t)(sp - 1 - s);
		l->count = strtoll(sp, NULL, 10);
		return 1;
	}
	return 0;
}

int
stackprof_next_frame(const sp_line *l, size_t *pos, const char **f,
    size_t *n, int *kernel)
{
	const char *s, *e;

	/* an empty stack (folded.c's line " COUNT") has no frame */
	if (*pos > l->len || l->len == 0)
		return 0;
	s = l->frames + *pos;
	e = memchr(s, ';', l->len - *pos);
	if (e == NULL)
		e = l->frames + l->len;
	*pos = (size_t)(e - l->frames) + 1;
	*f = s;
	*n = (size_t)(e - s);
	*kernel = *n > 0 && s[*n - 1] == STACKPROF_KMARK;
	if (*kernel)
		(*n)--;
	return 1;
}
