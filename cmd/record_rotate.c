/*
 * record_rotate.c - what dtsnap record writes as a series of parts
 * (dtsnap(1) RECORDING IN PRODUCTION, dtsnap(5) SERIES): every capture
 * is written through libdtconsume's series writer, so that it says what
 * it holds (a clock item naming the series and the part, with the clock
 * pair at its start; an end item with its first and last record times
 * and the drops counted so far by CPU); with --switch-output the
 * capture is cut into parts OUT.000000.dtsnap, OUT.000001.dtsnap, ...
 * at the end of a consume pass, once a part holds SIZE bytes, once it
 * spans TIME, or on SIGUSR2; --switch-max-files N keeps the newest N.
 *
 * The sink (record.c) calls in here at its start, at the end of each
 * pass, at its end and when it is abandoned; the backend tells it the
 * time of each pass's records and every drop (rec_sink_note_*).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dtconsume.h"
#include "parts.h"
#include "record.h"

/* --ring: a part kept in memory */
struct ringpart {
	FILE *f;
	char *buf;
	size_t len;
	uint64_t records, first;
};

struct rec_rotate {
	cli *pc;
	cli_out *out;          /* the part being written (record.c's) */
	const char *base;      /* -o OUT; NULL: one capture, no parts */
	uint64_t size, ns;     /* switch at this size, after this time */
	int onsignal;
	long maxfiles;
	dtc_series_writer *s;
	char name[4096];       /* the part being written */
	uint64_t start;        /* CLOCK_MONOTONIC at its start */
	uint64_t first, last;  /* its records' times */
	uint32_t ncpu;
	uint64_t *drops;       /* drops so far, by CPU */
	/* --ring: parts in memory, the newest last; what was let go */
	uint64_t ring;
	const char *ringname;  /* -o, where the window goes */
	int level;             /* of the window written */
	int v2;
	/* each part apart: open_memstream keeps the address of buf, len */
	struct ringpart **rp;
	size_t nrp, rpcap;
	uint64_t records;      /* in the part being written */
	uint64_t let_go_records, let_go_bytes;
};

/* SIGUSR2 asks for a switch at the end of the pass (a flag: the
 * handler can do nothing else safely). */
static volatile sig_atomic_t switch_asked;

static void
on_usr2(int sig)
{
	(void)sig;
	switch_asked = 1;
}

static uint64_t
now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * perf record's --switch-output: "signal", a size (suffix B, K, M or G,
 * powers of 1024) or a time (suffix s, m, h or d).  0, or -1 with *why.
 */
int
rec_rotate_parse(const char *arg, uint64_t *size, uint64_t *ns, int *sig,
    const char **why)
{
	static const struct { char c; uint64_t mul; int time; } units[] = {
		{ 'B', 1, 0 }, { 'K', 1ull << 10, 0 }, { 'M', 1ull << 20, 0 },
		{ 'G', 1ull << 30, 0 }, { 's', 1000000000ull, 1 },
		{ 'm', 60000000000ull, 1 }, { 'h', 3600000000000ull, 1 },
		{ 'd', 86400000000000ull, 1 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	*size = *ns = 0;
	*sig = 0;
	if (arg == NULL || strcmp(arg, "signal") == 0) {
		*sig = 1;
		return 0;
	}
	*why = "--switch-output takes signal, a size (10M: suffix B, K, M or "
	    "G) or a time (30s: suffix s, m, h or d)";
	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno != 0 || v == 0 || end[0] == '\0' || end[1] != '\0')
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].c == end[0]) {
			if (v > UINT64_MAX / units[i].mul)
				return -1;
			*(units[i].time ? ns : size) = v * units[i].mul;
			return 0;
		}
	return -1;
}

rec_rotate *
rec_rotate_new(cli *pc, cli_out *out, const char *base, uint64_t size,
    uint64_t ns, int onsignal, long maxfiles, uint64_t ring)
{
	rec_rotate *r = calloc(1, sizeof(*r));
	struct sigaction sa;

	if (r == NULL)
		return NULL;
	r->pc = pc;
	r->out = out;
	r->base = base;
	r->size = size;
	r->ns = ns;
	r->onsignal = onsignal;
	r->maxfiles = maxfiles;
	r->ring = ring;
	if (ring != 0) {
		/* the window is written to -o itself */
		r->ringname = base;
		r->base = NULL;
		onsignal = 1;
	}
	if (base != NULL && ring == 0 && part_path(r->name, sizeof(r->name), base, 0) != 0) {
		free(r);
		return NULL;
	}
	if (onsignal) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr2;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(SIGUSR2, &sa, NULL);
	}
	return r;
}

const char *
rec_rotate_first_name(const rec_rotate *r)
{
	return r->base != NULL ? r->name : NULL;
}

/* --ring: a new part in memory; NULL on failure (err says why). */
static FILE *
ring_part(rec_rotate *r, dtc_error *err)
{
	struct ringpart *p, **np;

	if (r->nrp == r->rpcap) {
		size_t ncap = r->rpcap ? 2 * r->rpcap : 16;

		if ((np = realloc(r->rp, ncap * sizeof(*np))) == NULL)
			goto nomem;
		r->rp = np;
		r->rpcap = ncap;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		goto nomem;
	if ((p->f = open_memstream(&p->buf, &p->len)) == NULL) {
		free(p);
		goto nomem;
	}
	r->rp[r->nrp++] = p;
	return p->f;
nomem:
	snprintf(err->text, sizeof(err->text), "out of memory for --ring");
	return NULL;
}

static void
ring_drop(struct ringpart *p)
{
	if (p->f != NULL)
		fclose(p->f);
	free(p->buf);
	free(p);
}

/* A part begins: the header, its clock item, what it repeats. */
static dtc_writer *
part_begin(rec_rotate *r, FILE *out, dtc_error *err)
{
	dtc_writer *w;

	r->start = now_ns(CLOCK_MONOTONIC);
	if (r->ring != 0 && (out = ring_part(r, err)) == NULL)
		return NULL;
	w = dtc_series_begin_part(r->s, out, r->start, now_ns(CLOCK_REALTIME), err);
	r->first = r->last = 0;
	r->records = 0;
	switch_asked = 0;
	return w;
}

dtc_writer *
rec_rotate_start(rec_rotate *r, FILE *out, const dtc_writer_header *h,
    int level, dtc_error *err)
{
	char id[32];
	dtc_writer *w;

	series_name(id, sizeof(id));
	r->ncpu = h->ncpu > 65536 ? 65536 : h->ncpu;
	if ((r->drops = calloc(r->ncpu + 1, sizeof(*r->drops))) == NULL) {
		snprintf(err->text, sizeof(err->text), "out of memory");
		return NULL;
	}
	r->level = level;
	r->v2 = h->flavor != NULL && strcmp(h->flavor, "dtrace-v2") == 0;
	/* --ring: the parts in memory are not compressed (the window is) */
	if ((r->s = dtc_series_writer_new(h, r->ring != 0 ? 0 : level, id,
	    err)) == NULL || (w = part_begin(r, out, err)) == NULL)
		return NULL;
	/* one part and no more: nothing to keep for a next one */
	if (r->base == NULL && r->ring == 0)
		(void)dtc_series_keep_nothing(r->s, err);
	return w;
}

void
rec_rotate_note_time(rec_rotate *r, uint64_t hrtime)
{
	if (r->first == 0)
		r->first = hrtime;
	r->last = hrtime;
}

void
rec_rotate_note_record(rec_rotate *r)
{
	r->records++;
}

void
rec_rotate_note_drops(rec_rotate *r, int cpu, uint64_t drops)
{
	if (cpu >= 0 && (uint32_t)cpu < r->ncpu)
		r->drops[cpu] += drops;
}

int
rec_rotate_due(rec_rotate *r, FILE *out)
{
	off_t pos;

	if (r->ring != 0 && r->s != NULL && r->nrp > 0) {
		/* a quarter of the ring a part: what is let go goes by
		 * quarters, and the window holds three of them at least */
		(void)fflush(r->rp[r->nrp - 1]->f);
		return switch_asked || r->rp[r->nrp - 1]->len >= r->ring / 4;
	}
	if (r->base == NULL || r->s == NULL)
		return 0;
	if (r->onsignal && switch_asked)
		return 1;
	if (r->ns != 0 && now_ns(CLOCK_MONOTONIC) - r->start >= r->ns)
		return 1;
	return r->size != 0 && (pos = ftello(out)) >= 0 &&
	    (uint64_t)pos >= r->size;
}

static int
part_end(rec_rotate *r, int more, int exit_status, dtc_error *err)
{
	dtc_part_end e;

	memset(&e, 0, sizeof(e));
	e.exit_status = exit_status;
	e.more = more;
	e.first = r->first;
	e.last = r->last;
	e.ncpu = r->ncpu;
	e.drops = r->drops;
	return dtc_series_end_part(r->s, &e, err) == DTC_OK ? 0 : -1;
}

/*
 * --ring: the window, the parts kept in memory read as a series, written
 * as one capture over -o (a temporary file renamed over it when whole):
 * the first part kept whole but its own clock item, the others from
 * after what they repeat, no end item but the window's own.
 */
static int
ring_write(rec_rotate *r, int more, int exit_status, dtc_error *err)
{
	dtc_series_writer *sw = NULL;
	dtc_container *c = NULL;
	dtc_item it;
	dtc_part_end e;
	uint64_t hr = 0, wall = 0, rep = 0;
	size_t j;
	int rc = -1, st;
	char id[32];

	for (j = 0; j < r->nrp; j++)
		if (fflush(r->rp[j]->f) == EOF)
			goto out;
	/* the file under -o is replaced whole, never rewritten in place */
	if (r->out->tmp == NULL && (cli_out_close(r->pc, r->out, 1, 0, 0) != 0 ||
	    cli_out_open(r->pc, r->out, r->ringname) != 0))
		goto out;
	series_name(id, sizeof(id));
	for (j = 0; j < r->nrp; j++) {
		struct ringpart *p = r->rp[j];

		if ((c = dtc_container_open_memory(p->buf, p->len, "<ring>",
		    err)) == NULL)
			goto out;
		while ((st = dtc_container_next(c, &it, err)) != DTC_EOF) {
			if (st != DTC_OK)
				goto out;
			if (it.index == 0) {
				if (j == 0 && (sw = dtc_series_writer_new_raw(
				    p->buf + it.offset, it.size, r->v2,
				    r->level, id, err)) == NULL)
					goto out;
				continue;
			}
			if (it.index == 1) {
				(void)dtc_item_get_uint(c, &it, &it.nodes[0],
				    "hrtime", 0, &hr, NULL);
				(void)dtc_item_get_uint(c, &it, &it.nodes[0],
				    "walltime", 0, &wall, NULL);
				rep = 0;
				(void)dtc_item_get_uint(c, &it, &it.nodes[0],
				    "replayed", 0, &rep, NULL);
				if (j == 0 && dtc_series_begin_part(sw, r->out->fp, hr,
				    wall, err) == NULL)
					goto out;
				continue;
			}
			if ((j > 0 && (uint64_t)it.index <= 1 + rep) ||
			    strcmp(it.kind, "end") == 0)
				continue;
			if (dtc_series_put_item(sw, p->buf + it.offset, it.size,
			    err) != DTC_OK)
				goto out;
		}
		dtc_container_close(c);
		c = NULL;
	}
	if (sw == NULL)
		goto out;
	memset(&e, 0, sizeof(e));
	e.exit_status = exit_status;
	e.more = more;
	e.first = r->rp[0]->first;
	e.last = r->last;
	e.ncpu = r->ncpu;
	e.drops = r->drops;
	e.window = 1;
	e.let_go_records = r->let_go_records;
	e.let_go_bytes = r->let_go_bytes;
	if (dtc_series_end_part(sw, &e, err) == DTC_OK &&
	    cli_out_commit(r->pc, r->out) == 0)
		rc = 0;
out:
	dtc_container_close(c);
	dtc_series_writer_free(sw);
	if (rc != 0 && err->text[0] == '\0')
		snprintf(err->text, sizeof(err->text), "--ring: the window "
		    "could not be written");
	return rc;
}

/* --ring: the part written ends in memory, a new one begins, and the
 * oldest go while the others hold the ring's size. */
static dtc_writer *
ring_switch(rec_rotate *r, dtc_error *err)
{
	struct ringpart *p = r->rp[r->nrp - 1];
	uint64_t total = 0;
	size_t j, k;

	p->records = r->records;
	p->first = r->first;
	if (part_end(r, 1, 0, err) != 0)
		return NULL;
	for (j = 1; j < r->nrp; j++)
		total += r->rp[j]->len;
	for (k = 0; k + 1 < r->nrp && total > r->ring; k++) {
		r->let_go_records += r->rp[k]->records;
		r->let_go_bytes += r->rp[k]->len;
		total -= r->rp[k + 1]->len;
		ring_drop(r->rp[k]);
	}
	memmove(r->rp, r->rp + k, (r->nrp - k) * sizeof(*r->rp));
	r->nrp -= k;
	return part_begin(r, NULL, err);
}

dtc_writer *
rec_rotate_switch(rec_rotate *r, FILE **out, dtc_error *err)
{
	char old[4096];
	long idx;
	dtc_writer *w;
	int dump;

	if (r->ring != 0) {
		dump = switch_asked;
		switch_asked = 0;
		w = ring_switch(r, err);
		/* the part just begun holds only what it repeats */
		if (w != NULL && dump && ring_write(r, 1, 0, err) != 0)
			return NULL;
		return w;
	}

	if (part_end(r, 1, 0, err) != 0)
		return NULL;
	/* the part is under its name already (committed at its start) */
	if (cli_out_close(r->pc, r->out, 1, 0, 0) != 0) {
		snprintf(err->text, sizeof(err->text), "not recorded");
		return NULL;
	}
	idx = dtc_series_index(r->s) + 1;
	if (part_path(r->name, sizeof(r->name), r->base, idx) != 0 ||
	    cli_out_open(r->pc, r->out, r->name) != 0 ||
	    cli_out_commit(r->pc, r->out) != 0) {
		/* the message is out: "cannot write NAME: ..." */
		snprintf(err->text, sizeof(err->text), "not recorded");
		return NULL;
	}
	*out = r->out->fp;
	/* the newest maxfiles parts stay, the one begun included */
	if (r->maxfiles > 0 && idx >= r->maxfiles &&
	    part_path(old, sizeof(old), r->base, idx - r->maxfiles) == 0 &&
	    unlink(old) != 0 && errno != ENOENT)
		cli_warn(r->pc, "cannot remove %s (--switch-max-files): %s",
		    old, strerror(errno));
	return part_begin(r, *out, err);
}

int
rec_rotate_finish(rec_rotate *r, int exit_status, dtc_error *err)
{
	if (r->ring != 0) {
		r->rp[r->nrp - 1]->records = r->records;
		r->rp[r->nrp - 1]->first = r->first;
		if (part_end(r, 0, exit_status, err) != 0)
			return -1;
		return ring_write(r, 0, exit_status, err);
	}
	return part_end(r, 0, exit_status, err);
}

void
rec_rotate_abandon(rec_rotate *r)
{
	dtc_series_writer_free(r->s);
	r->s = NULL;
}

void
rec_rotate_free(rec_rotate *r)
{
	if (r == NULL)
		return;
	dtc_series_writer_free(r->s);
	for (; r->nrp > 0; r->nrp--)
		ring_drop(r->rp[r->nrp - 1]);
	free(r->rp);
	free(r->drops);
	free(r);
}
