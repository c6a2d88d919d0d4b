/*
 * trace_event.c - the "trace-event" format: the Trace Event JSON of
 * Chrome's tracing (its "JSON Object Format"), which Perfetto UI,
 * chrome://tracing and speedscope open.
 *
 * What a capture becomes (dtconsume(1), TRACE EVENTS, says it to users):
 *  - a process per capture (pid TIMELINE_CAPTURE_PID + 1, + 2, ... in the order of
 *    the files, named after the file), a thread per CPU ("CPU n", tid n)
 *    and one for what belongs to no CPU ("capture", tid CAPTURE_TID);
 *  - a firing whose records carry a process (ustack(), usym(), umod(),
 *    uaddr(): the first of them) also as an instant event on that
 *    process's thread (pid and tid as the kernel numbers them; a
 *    legacy capture records the pid alone): "pid N", "tid N";
 *  - each firing an event on its CPU's thread: an instant event named
 *    after the probe, or after the message of its first printf(); a
 *    firing of a probe named entry or return (or *-entry, *-return)
 *    begins or ends a slice named after the probe's function (a return
 *    whose entry is not the innermost open slice ends the slices opened
 *    after it; one with no entry open is an instant event; slices still
 *    open end with their capture, at its last firing).  Its args are
 *    the firing's dt2json line, whole: formats/model.c makes it (records,
 *    values, stacks symbolized), so the values read the same in both;
 *  - stacks (stack(), ustack(), jstack() records) also as a "samples"
 *    entry pointing into "stackFrames" (root to leaf, frame texts as
 *    dtrace prints them): speedscope builds its profile from those;
 *  - drops and faults (ERROR) as global instant events (a line across
 *    every track) named "drop" and "ERROR", their dt2json line as args;
 *  - each aggregation printing (printa() or the end of the run) a counter
 *    event per variable ("@name"), a series per row (the first
 *    TIMELINE_MAXSERIES rows, the rest summed as "(other rows)"): the value dtrace
 *    prints (a histogram: its count), and an instant event on the
 *    capture thread with the printing's dt2json line.
 * Timestamps ("ts", microseconds): the record's own (legacy captures),
 * as wall-clock time through the capture's clock item when it has one;
 * DTrace v2 records carry none, so there the firings are placed 1 us
 * apart in the order they were read ("otherData".clock says which).
 *
 * Streaming: events are written as they are decoded; only the stack
 * frames (one per distinct path of a frame and its callers) and the
 * captures' header lines are kept until the end, and the samples go
 * through a temporary file, since JSON wants them after the events.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emitter.h"
#include "jstr.h"
#include "model.h"
#include "timeline.h"

#define CAPTURE_TID 1000000
#define MAXOPEN 256         /* open slices kept per CPU */

/* A stack frame node: (parent, pc) -> id (index + 1). */
typedef struct sfnode {
	uint64_t pc;
	uint32_t parent;         /* 0: root */
	uint32_t text;           /* offset in st->ftext */
} sfnode;

typedef struct tecpu {
	uint32_t capture;
	int cpu;
	/* open slices' names: the probes' function names, the reader's
	 * strings (forgotten when its capture ends) */
	const char *open[MAXOPEN];
	int nopen;
} tecpu;

typedef struct te_state {
	timeline tl;             /* first: the capture, the firing */
	FILE *out, *err, *samples;
	dtc_emitter_opts o;
	FILE *pf, *of;           /* model.c's lines land in pb, ob */
	dtc_buf pb, ob;
	int nevents;             /* events written (for the commas) */
	int nsamples;
	/* processes and threads seen (their names written) */
	uint64_t *threads;       /* pid << 32 | tid */
	size_t nthreads;
	/* CPUs seen (thread names written) */
	tecpu *cpus;
	size_t ncpus;
	/* stack frames */
	sfnode *nodes;
	size_t nn, capn;
	uint32_t *slot;
	size_t cap;
	dtc_buf ftext, sym;
	dtc_buf headers;         /* header lines, ',' between them */
	dtc_buf scratch;
	int nomem;
} te_state;



/* ts in us with ns digits */
static void
put_ts(FILE *fp, uint64_t ns)
{
	fprintf(fp, "\"ts\":%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void
ev_begin(te_state *st)
{
	fputs(st->nevents++ ? ",\n{" : "\n{", st->out);
}

static tecpu *
cpu_track(te_state *st, int cpu)
{
	tecpu *c;
	size_t i;

	for (i = 0; i < st->ncpus; i++)
		if (st->cpus[i].capture == st->tl.capture &&
		    st->cpus[i].cpu == cpu)
			return &st->cpus[i];
	if ((c = realloc(st->cpus, (st->ncpus + 1) * sizeof(*c))) == NULL) {
		st->nomem = 1;
		return NULL;
	}
	st->cpus = c;
	c = &st->cpus[st->ncpus++];
	memset(c, 0, sizeof(*c));
	c->capture = st->tl.capture;
	c->cpu = cpu;
	ev_begin(st);
	fprintf(st->out, "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%"
	    PRIu32 ",\"tid\":%d,\"args\":{\"name\":\"CPU %d\"}}",
	    st->tl.cpid, cpu, cpu);
	ev_begin(st);
	fprintf(st->out, "\"ph\":\"M\",\"name\":\"thread_sort_index\","
	    "\"pid\":%" PRIu32 ",\"tid\":%d,\"args\":{\"sort_index\":%d}}",
	    st->tl.cpid, cpu, cpu);
	return c;
}

static void process_copy(te_state *st, const char *name, size_t n);

/* A firing's line: an instant event, or a slice's beginning or end. */
static void
firing_line(void *arg, const char *line, size_t n, const dtc_event *ev)
{
	te_state *st = arg;
	tecpu *c = cpu_track(st, st->tl.pcpu);
	const char *fn = ev->probe != NULL && ev->probe->function != NULL &&
	    ev->probe->function[0] != '\0' ? ev->probe->function : st->tl.pname;
	int i, ph = 'i';

	if (c == NULL)
		return;
	if (st->tl.flow == 1 && c->nopen < MAXOPEN) {
		c->open[c->nopen++] = fn;
		ph = 'B';
	} else if (st->tl.flow == 2) {
		for (i = c->nopen; i > 0 && strcmp(c->open[i - 1], fn) != 0;
		    i--)
			continue;
		if (i > 0) {
			/* slices opened after its entry end with it */
			while (c->nopen > i) {
				ev_begin(st);
				fputs("\"ph\":\"E\",\"name\":", st->out);
				c->nopen--;
				jstr_put(st->out, c->open[c->nopen],
				    strlen(c->open[c->nopen]));
				fprintf(st->out, ",\"pid\":%" PRIu32 ",\"tid\":%d,",
				    st->tl.cpid, st->tl.pcpu);
				put_ts(st->out, st->tl.pts);
				putc('}', st->out);
			}
			c->nopen--;
			ph = 'E';
		}
	}
	ev_begin(st);
	fprintf(st->out, "\"ph\":\"%c\",", ph);
	if (ph == 'i')
		fputs("\"s\":\"t\",", st->out);
	fputs("\"name\":", st->out);
	if (ph != 'i')
		jstr_put(st->out, fn, strlen(fn));
	else if (st->tl.havemsg)
		jstr_put(st->out, st->tl.msg.s, st->tl.msg.len);
	else
		jstr_put(st->out, st->tl.pname, strlen(st->tl.pname));
	fprintf(st->out, ",\"cat\":\"probe\",\"pid\":%" PRIu32 ",\"tid\":%d,",
	    st->tl.cpid, st->tl.pcpu);
	put_ts(st->out, st->tl.pts);
	fputs(",\"args\":", st->out);
	fwrite(line, 1, n, st->out);
	putc('}', st->out);
	if (st->tl.haveupid) {
		if (ph != 'i')
			process_copy(st, fn, strlen(fn));
		else if (st->tl.havemsg)
			process_copy(st, st->tl.msg.s, st->tl.msg.len);
		else
			process_copy(st, st->tl.pname, strlen(st->tl.pname));
	}
}

/* Other lines: drops and faults across the tracks, the rest on the
 * capture thread; headers kept for otherData. */
static void
other_line(void *arg, const char *line, size_t n, const dtc_event *ev)
{
	te_state *st = arg;
	const char *name;
	uint64_t ns;
	int global = 0;

	if (timeline_starts(line, n, "header")) {
		if (st->headers.len > 0)
			dtc_buf_append(&st->headers, ",", 1);
		dtc_buf_append(&st->headers, line, n);
		return;
	}
	if (timeline_starts(line, n, "drop")) {
		name = "drop";
		global = 1;
	} else if (timeline_starts(line, n, "error")) {
		name = "ERROR";
		global = 1;
	} else if (timeline_starts(line, n, "aggregation")) {
		name = "aggregation";
	} else if (timeline_starts(line, n, "notice")) {
		name = "notice";
	} else if (timeline_starts(line, n, "end")) {
		name = "end";
	} else {
		name = "event";
	}
	ns = ev->type == DTC_EV_RECORD ? st->tl.pts : timeline_event_ns(&st->tl, ev, 0);
	ev_begin(st);
	fprintf(st->out, "\"ph\":\"i\",\"s\":\"%c\",\"name\":\"%s\","
	    "\"cat\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%d,", global ? 'g' : 't',
	    name, name, st->tl.cpid, CAPTURE_TID);
	put_ts(st->out, ns);
	fputs(",\"args\":", st->out);
	fwrite(line, 1, n, st->out);
	putc('}', st->out);
}

/*
 * The pid and tid of a user value: DTrace v2 records the thread group id
 * in the upper and the thread id in the lower 32 bits, legacy captures
 * the process id alone (tid = pid).
 */
static void
split_pid(uint64_t v, uint32_t *pid, uint32_t *tid)
{
	*tid = (uint32_t)v;
	*pid = v >> 32 != 0 ? (uint32_t)(v >> 32) : *tid;
}

/* The firing again, as an instant event on its process's thread: the
 * firings of one process together, whatever CPU they ran on. */
static void
process_copy(te_state *st, const char *name, size_t n)
{
	uint32_t pid, tid;
	uint64_t key, *t;
	size_t i;

	split_pid(st->tl.upid, &pid, &tid);
	key = (uint64_t)pid << 32 | tid;
	for (i = 0; i < st->nthreads && st->threads[i] != key; i++)
		continue;
	if (i == st->nthreads) {
		if ((t = realloc(st->threads, (i + 1) * sizeof(*t))) == NULL) {
			st->nomem = 1;
			return;
		}
		st->threads = t;
		st->threads[st->nthreads++] = key;
		ev_begin(st);
		fprintf(st->out, "\"ph\":\"M\",\"name\":\"process_name\","
		    "\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
		    "{\"name\":\"pid %" PRIu32 "\"}}", pid, tid, pid);
		ev_begin(st);
		fprintf(st->out, "\"ph\":\"M\",\"name\":\"thread_name\","
		    "\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":"
		    "{\"name\":\"tid %" PRIu32 "\"}}", pid, tid, tid);
	}
	ev_begin(st);
	fputs("\"ph\":\"i\",\"s\":\"t\",\"name\":", st->out);
	jstr_put(st->out, name, n);
	fprintf(st->out, ",\"cat\":\"process\",\"pid\":%" PRIu32
	    ",\"tid\":%" PRIu32 ",", pid, tid);
	put_ts(st->out, st->tl.pts);
	fprintf(st->out, ",\"args\":{\"cpu\":%d,\"capture\":%" PRIu32 "}}",
	    st->tl.pcpu, st->tl.capture);
}

/* ------------------------------------------------------------------ */
/* Stacks as samples                                                   */
/* ------------------------------------------------------------------ */

static uint64_t
node_hash(uint32_t parent, uint64_t pc)
{
	return (pc ^ ((uint64_t)parent << 40) ^ parent) * 0x9e3779b97f4a7c15ULL;
}

/* The id of frame pc under parent (its text made by the caller into
 * st->sym when new: *isnew); 0 without memory. */
static uint32_t
node(te_state *st, uint32_t parent, uint64_t pc, int *isnew)
{
	size_t j, i;
	uint32_t *ns;

	*isnew = 0;
	if (2 * (st->nn + 1) > st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 4096;

		if ((ns = calloc(ncap, sizeof(*ns))) == NULL)
			return 0;
		for (i = 0; i < st->nn; i++) {
			j = node_hash(st->nodes[i].parent, st->nodes[i].pc) >> 20 &
			    (ncap - 1);
			while (ns[j] != 0)
				j = (j + 1) & (ncap - 1);
			ns[j] = (uint32_t)i + 1;
		}
		free(st->slot);
		st->slot = ns;
		st->cap = ncap;
	}
	for (j = node_hash(parent, pc) >> 20 & (st->cap - 1); st->slot[j] != 0;
	    j = (j + 1) & (st->cap - 1)) {
		const sfnode *o = &st->nodes[st->slot[j] - 1];

		if (o->pc == pc && o->parent == parent)
			return st->slot[j];
	}
	if (st->nn == st->capn) {
		size_t ncap = st->capn ? st->capn * 2 : 4096;
		sfnode *nv = realloc(st->nodes, ncap * sizeof(*nv));

		if (nv == NULL)
			return 0;
		st->nodes = nv;
		st->capn = ncap;
	}
	st->nodes[st->nn].pc = pc;
	st->nodes[st->nn].parent = parent;
	st->nodes[st->nn].text = (uint32_t)st->ftext.len;
	st->slot[j] = (uint32_t)++st->nn;
	*isnew = 1;
	return st->slot[j];
}

/* A stack record as a sample: its path of nodes, root first. */
static void
stack_sample(te_state *st, const dtc_event *ev, const dtc_value *v)
{
	uint32_t n = 0, i, id = 0;
	uint64_t pc;
	int isnew, kernel = v->kind == DTC_V_STACK;

	if (kernel && v->pcsize != 4 && v->pcsize != 8)
		return;
	while (n < v->nframes && dtc_value_pc(v, n) != 0)
		n++;
	if (n == 0 || st->samples == NULL)
		return;
	for (i = n; i-- > 0;) {
		pc = dtc_value_pc(v, i);
		/* a user frame of another process is another frame */
		if ((id = node(st, id, kernel ? pc : pc ^ (v->pid << 1 | 1),
		    &isnew)) == 0) {
			st->nomem = 1;
			return;
		}
		if (!isnew)
			continue;
		dtc_buf_reset(&st->sym);
		if (kernel)
			dtc_reader_frame_text(ev->reader, pc, &st->sym);
		else
			dtc_reader_uaddr_text(ev->reader, v->pid, pc, 0, &st->sym);
		if (dtc_buf_append(&st->ftext, st->sym.s != NULL ? st->sym.s :
		    "", st->sym.len) != 0 ||
		    dtc_buf_append(&st->ftext, "", 1) != 0)
			st->nomem = 1;
	}
	fprintf(st->samples, "%s\n{\"pid\":%" PRIu32 ",\"tid\":%d,"
	    "\"cpu\":%d,\"name\":", st->nsamples++ ? "," : "", st->tl.cpid,
	    st->tl.pcpu, st->tl.pcpu);
	jstr_put(st->samples, st->tl.pname, strlen(st->tl.pname));
	fputs(",", st->samples);
	put_ts(st->samples, st->tl.pts);
	fprintf(st->samples, ",\"sf\":%" PRIu32 ",\"weight\":1}", id);
}

/* ------------------------------------------------------------------ */
/* Aggregations as counters                                            */
/* ------------------------------------------------------------------ */

/* one series of a counter event's args */
static void
series(void *arg, const char *name, size_t n, int64_t value, int first)
{
	te_state *st = arg;

	if (!first)
		putc(',', st->out);
	jstr_put(st->out, name, n);
	fprintf(st->out, ":%" PRId64, value);
}

static void
counters(timeline *t, const dtc_event *ev, const dtc_aggprint *ap,
    uint64_t ns)
{
	te_state *st = (te_state *)t;
	uint32_t j;

	for (j = 0; j < ap->nvars; j++) {
		ev_begin(st);
		fputs("\"ph\":\"C\",\"name\":", st->out);
		dtc_buf_reset(&st->scratch);
		dtc_buf_printf(&st->scratch, "@%s", ap->vars[j].name != NULL ?
		    ap->vars[j].name : "");
		jstr_put(st->out, st->scratch.s, st->scratch.len);
		fprintf(st->out, ",\"pid\":%" PRIu32 ",\"tid\":%d,",
		    st->tl.cpid, CAPTURE_TID);
		put_ts(st->out, ns);
		fputs(",\"args\":{", st->out);
		timeline_series(ap, j, ev->reader, &st->scratch, st, series);
		fputs("}}", st->out);
	}
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/* a new capture: its process and its "capture" thread */
static void
begin(timeline *t, const dtc_event *ev)
{
	te_state *st = (te_state *)t;

	ev_begin(st);
	fprintf(st->out, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%"
	    PRIu32 ",\"tid\":0,\"args\":{\"name\":", st->tl.cpid);
	jstr_put(st->out, ev->source != NULL ? ev->source : "capture",
	    ev->source != NULL ? strlen(ev->source) : 7);
	fputs("}}", st->out);
	ev_begin(st);
	fprintf(st->out, "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%"
	    PRIu32 ",\"tid\":%d,\"args\":{\"name\":\"capture\"}}",
	    st->tl.cpid, CAPTURE_TID);
}

static void
record(timeline *t, const dtc_event *ev)
{
	const dtc_value *v = ev->value;

	if (v != NULL && (v->kind == DTC_V_STACK || v->kind == DTC_V_USTACK))
		stack_sample((te_state *)t, ev, v);
}

static void
drain_other(timeline *t, const dtc_event *ev)
{
	te_state *st = (te_state *)t;

	timeline_drain(st, st->of, &st->ob, other_line, ev);
}

static void
drain_probe(timeline *t, const dtc_event *ev)
{
	te_state *st = (te_state *)t;

	timeline_drain(st, st->pf, &st->pb, firing_line, ev);
}

/* Slices still open (an entry with no return) end with the capture, at
 * its last firing: their names are its reader's. */
static void
end(timeline *t, const dtc_event *ev, uint64_t ns)
{
	te_state *st = (te_state *)t;
	tecpu *c;
	size_t i;

	(void)ev;
	for (i = 0; i < st->ncpus; i++) {
		c = &st->cpus[i];
		if (c->capture != st->tl.capture)
			continue;
		while (c->nopen > 0) {
			c->nopen--;
			ev_begin(st);
			fputs("\"ph\":\"E\",\"name\":", st->out);
			jstr_put(st->out, c->open[c->nopen],
			    strlen(c->open[c->nopen]));
			fprintf(st->out, ",\"pid\":%" PRIu32 ",\"tid\":%d,",
			    st->tl.cpid, c->cpu);
			put_ts(st->out, ns);
			putc('}', st->out);
		}
	}
}

static const timeline_ops te_ops = {
	.begin = begin, .record = record, .counters = counters,
	.drain_other = drain_other, .drain_probe = drain_probe, .end = end,
};

/* ------------------------------------------------------------------ */
/* The run                                                             */
/* ------------------------------------------------------------------ */

static void *
te_create(const dtc_emitter_opts *o)
{
	te_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	st->out = o->out;
	st->err = o->err;
	st->o = *o;
	st->tl.ops = &te_ops;
	dtc_buf_init(&st->pb);
	dtc_buf_init(&st->ob);
	if ((st->pf = timeline_buf_file(&st->pb)) == NULL ||
	    (st->of = timeline_buf_file(&st->ob)) == NULL ||
	    (st->tl.model = model_create(o, model_json_new(st->pf),
	    model_json_new(st->of))) == NULL) {
		if (st->pf != NULL)
			fclose(st->pf);
		if (st->of != NULL)
			fclose(st->of);
		free(st);
		return NULL;
	}
	/* close-on-exec, as every file the programs open */
	if ((st->samples = tmpfile()) != NULL)
		(void)fcntl(fileno(st->samples), F_SETFD, FD_CLOEXEC);
	fputs("{\"traceEvents\":[", st->out);
	return st;
}

static int
te_destroy(void *state)
{
	te_state *st = state;
	FILE *fp = st->out;
	char buf[65536];
	size_t i, n;
	int rc;

	rc = model_destroy(st->tl.model);
	fclose(st->pf);
	fclose(st->of);
	fputs("],\n\"displayTimeUnit\":\"ns\"", fp);
	if (st->nsamples > 0 && st->samples != NULL) {
		fputs(",\n\"samples\":[", fp);
		fflush(st->samples);
		rewind(st->samples);
		while ((n = fread(buf, 1, sizeof(buf), st->samples)) > 0)
			fwrite(buf, 1, n, fp);
		fputs("],\n\"stackFrames\":{", fp);
		for (i = 0; i < st->nn; i++) {
			const char *t = st->ftext.s + st->nodes[i].text;

			fprintf(fp, "%s\n\"%zu\":{\"name\":", i ? "," : "",
			    i + 1);
			jstr_put(fp, t, strlen(t));
			if (st->nodes[i].parent != 0)
				fprintf(fp, ",\"parent\":\"%" PRIu32 "\"",
				    st->nodes[i].parent);
			putc('}', fp);
		}
		putc('}', fp);
	}
	fprintf(fp, ",\n\"otherData\":{\"producer\":\"dtconsume %s\","
	    "\"clock\":\"%s\",\"captures\":[", dtc_version_string(),
	    st->tl.wall ? (st->tl.hr ? "walltime, hrtime" : "walltime") :
	    st->tl.hr ? "hrtime" : st->tl.v2 ? "sequence" : "none");
	if (st->headers.len > 0)
		fwrite(st->headers.s, 1, st->headers.len, fp);
	fputs("]}}\n", fp);
	if (st->nomem) {
		fputs("dtconsume: out of memory: the trace is incomplete\n",
		    st->err);
		rc = -1;
	}
	if (fflush(fp) != 0 || ferror(fp))
		rc = -1;
	if (st->samples != NULL)
		fclose(st->samples);
	free(st->cpus);
	free(st->threads);
	free(st->nodes);
	free(st->slot);
	dtc_buf_free(&st->pb);
	dtc_buf_free(&st->ob);
	dtc_buf_free(&st->tl.msg);
	dtc_buf_free(&st->ftext);
	dtc_buf_free(&st->sym);
	dtc_buf_free(&st->headers);
	dtc_buf_free(&st->scratch);
	free(st);
	return rc;
}

const dtc_emitter dtc_fmt_trace_event = {
	.name = "trace-event",
	.description = "Chrome/Perfetto trace events (JSON)",
	.create = te_create,
	.destroy = te_destroy,
	.handler = TIMELINE_HANDLER,
};
