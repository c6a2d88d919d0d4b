/*
 * fuzz_container.c - fuzz target: a whole capture, as dtconsume reads it.
 *
 * The input is a .dtsnap file.  dtc_reader_open_memory + dtc_reader_next over every
 * event drives the whole library: the container reader, the metadata
 * tables, the walker, record decoding, printf grouping, the aggregation
 * merge, printa, the exit printings, and then dtc_aggmerge (the capture
 * merged with itself, as --merge-aggs does).  It is decoded twice, from memory
 * and from a pipe (the streaming reader), and both must print the same
 * bytes and the same messages; then once more from memory through
 * dtc_reader_consume (callbacks), which must give what dtc_reader_next gives.  Every
 * event goes through the text
 * emitter (what dtconsume prints) and the JSON emitter (dt2json; not
 * with -DFUZZ_NO_JSON), and every byte a decoded value points at is
 * read, so that a value pointing outside the input shows up under
 * AddressSanitizer even when no emitter happens to read it.
 *
 * Build with libFuzzer (make fuzz), or with fuzz_replay.c as a plain
 * program that replays files (make check replays testdata/fuzz/container).
 *
 * Under libFuzzer, LLVMFuzzerCustomMutator damages the structure half of
 * the time, as dtsnap(5) DAMAGE AND RESYNCHRONIZATION expects captures
 * to be damaged: it finds the items (where a writer's item start is:
 * map head, "t", a kind) and inserts stray bytes between them, deletes,
 * duplicates or cuts one, changes a map head's count, or puts a tag, a
 * simple value or a reserved head into one; the other half is libFuzzer's
 * own byte mutations.
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtconsume.h"
#include "emitter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed);
/* libFuzzer's own mutations; absent when replaying without libFuzzer */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max)
    __attribute__((weak));

static volatile uint8_t sink;

/* Read every byte of [p, p + n): ASan checks the library's pointers. */
static void
touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	uint8_t x = 0;
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < n; i++)
		x ^= b[i];
	sink ^= x;
}

static void
touch_str(const char *s)
{
	if (s != NULL)
		touch(s, strlen(s) + 1);
}

static void
touch_value(const dtc_reader *r, const dtc_value *v, dtc_buf *b)
{
	uint32_t i;

	touch(v->data, v->size);
	switch (v->kind) {
	case DTC_V_STACK:
	case DTC_V_USTACK:
		touch(v->pcs, (size_t)v->nframes * v->pcsize);
		touch(v->strtab, v->strsize);
		for (i = 0; i < v->nframes; i++) {
			dtc_buf_reset(b);
			dtc_reader_frame_text(r, dtc_value_pc(v, i), b);
		}
		break;
	case DTC_V_SYM:
	case DTC_V_MOD:
		dtc_buf_reset(b);
		dtc_reader_addr_text(r, v->addr, v->kind == DTC_V_SYM, b);
		dtc_buf_reset(b);
		dtc_reader_mod_text(r, v->addr, b);
		break;
	case DTC_V_USYM:
	case DTC_V_UMOD:
	case DTC_V_UADDR:
		dtc_buf_reset(b);
		dtc_reader_uaddr_text(r, v->pid, v->addr, v->kind == DTC_V_USYM, b);
		dtc_buf_reset(b);
		dtc_reader_umod_text(r, v->pid, v->addr, b);
		break;
	case DTC_V_PRINTF:
		for (i = 0; i < v->nargs; i++)
			touch_value(r, &v->args[i], b);
		break;
	}
}

static void
touch_agg(const dtc_reader *r, const dtc_aggprint *ap, dtc_buf *b)
{
	dtc_bucket bk;
	size_t i;
	uint32_t j, k, n;

	if (ap == NULL)
		return;
	for (j = 0; j < ap->nvars; j++) {
		touch_str(ap->vars[j].name);
		touch(ap->vars[j].keys,
		    (size_t)ap->vars[j].nkeys * sizeof(dtc_recdesc));
	}
	for (i = 0; i < ap->nrows; i++) {
		const dtc_aggrow *row = &ap->rows[i];
		const dtc_aggvar *var = row->var;

		for (k = 0; var != NULL && k < var->nkeys; k++)
			touch_value(r, &row->keys[k], b);
		for (j = 0; j < ap->nvars; j++) {
			const dtc_aggval *v = &row->vals[j];

			touch(v->data, v->size);
			(void)dtc_aggval_scalar(v);
			(void)dtc_aggval_stddev(v);
			(void)dtc_aggval_avg_unsigned(v);
			n = dtc_aggval_nbuckets(v);
			for (k = 0; k < n && k < 4096; k++)
				(void)dtc_aggval_bucket(v, k, &bk);
			dtc_buf_reset(b);
			(void)dtc_reader_hist_render(r, v, b);
		}
		if (ap->fmt != NULL) {
			dtc_buf_reset(b);
			(void)dtc_reader_printa_render(r, ap, row, b, NULL);
		}
	}
}

static void
touch_event(const dtc_event *ev, dtc_buf *b)
{
	const dtc_reader *r = ev->reader;

	touch_str(ev->source);
	touch_str(ev->message);
	switch (ev->type) {
	case DTC_EV_BEGIN:
		touch_str(ev->header->os);
		touch_str(ev->header->host);
		break;
	case DTC_EV_PROBE:
	case DTC_EV_PROBE_END:
	case DTC_EV_RECORD:
		touch(ev->ep->recs, (size_t)ev->ep->nrecs * sizeof(dtc_recdesc));
		if (ev->probe != NULL) {
			touch_str(ev->probe->provider);
			touch_str(ev->probe->name);
		}
		if (ev->type != DTC_EV_RECORD)
			break;
		touch_value(r, ev->value, b);
		if (ev->value->kind == DTC_V_PRINTF) {
			dtc_buf_reset(b);
			(void)dtc_reader_printf_render(r, ev->value, b, NULL);
		} else if (ev->value->kind == DTC_V_PRINTA) {
			touch_agg(r, ev->value->agg, b);
		}
		break;
	case DTC_EV_AGG:
		touch_agg(r, ev->agg, b);
		break;
	case DTC_EV_ERROR:
		if (ev->fault_probe != NULL)
			touch_str(ev->fault_probe->name);
		break;
	}
}

static int
dispatch(const dtc_handler *h, const dtc_event *ev, void *st)
{
	switch (ev->type) {
	case DTC_EV_BEGIN: return h->begin ? h->begin(ev, st) : 0;
	case DTC_EV_PROBE: return h->probe ? h->probe(ev, st) : 0;
	case DTC_EV_RECORD: return h->record ? h->record(ev, st) : 0;
	case DTC_EV_PROBE_END: return h->probe_end ? h->probe_end(ev, st) : 0;
	case DTC_EV_AGG: return h->agg ? h->agg(ev, st) : 0;
	case DTC_EV_DROP: return h->drop ? h->drop(ev, st) : 0;
	case DTC_EV_ERROR: return h->error ? h->error(ev, st) : 0;
	case DTC_EV_NOTICE: return h->notice ? h->notice(ev, st) : 0;
	case DTC_EV_END: return h->end ? h->end(ev, st) : 0;
	}
	return 0;
}

#ifndef FUZZ_NO_JSON
#define NEMIT 2
#else
#define NEMIT 1
#endif

/* The push side: dtc_reader_consume's callbacks feed the same emitters. */
typedef struct push {
	const dtc_emitter *const *em;
	void **st;
	int *live;
	FILE *errs;
	dtc_buf *b;
	int nevents;
} push;

static int
push_event(const dtc_event *ev, void *arg)
{
	push *p = arg;
	int i;

	if (++p->nevents > 10000000)
		abort();
	touch_event(ev, p->b);
	for (i = 0; i < NEMIT; i++)
		if (p->live[i] && dispatch(&p->em[i]->handler, ev, p->st[i]) != 0)
			p->live[i] = 0;
	return 0;     /* go on, as the pull loop does when an emitter stops */
}

static int
push_warn(const dtc_error *err, void *arg)
{
	char msg[512];

	if (err->code == DTC_E_NONE || err->text[0] == '\0')
		abort();
	dtc_error_format(err, msg, sizeof(msg));
	fprintf(((push *)arg)->errs, "%s\n", msg);
	return 0;
}

/*
 * Decode the capture once, from memory (mem) or from a pipe (the stream
 * reader: its read buffer is compacted and grown while items are
 * decoded), pulling events with dtc_reader_next or (push) having dtc_reader_consume
 * call back, which runs the record sets in a loop of its own.  What the
 * text emitter prints, and every warning formatted as dtconsume prints
 * it, go to out and errs.
 */
static void
run(const uint8_t *data, size_t size, int mem, int pushed, FILE *out,
    FILE *errs)
{
	static const dtc_handler push_handler = {
		.begin = push_event, .probe = push_event, .record = push_event,
		.probe_end = push_event, .agg = push_event, .drop = push_event,
		.error = push_event, .notice = push_event, .end = push_event,
		.warn = push_warn
	};
	static FILE *devnull;
#ifndef FUZZ_NO_JSON
	const dtc_emitter *em[NEMIT] = { &dtc_fmt_text, &dtc_fmt_json };
#else
	const dtc_emitter *em[NEMIT] = { &dtc_fmt_text };
#endif
	void *st[NEMIT];
	int live[NEMIT];
	dtc_emitter_opts eo;
	dtc_aggmerge *m;
	dtc_reader *r;
	dtc_error err;
	const dtc_event *ev;
	dtc_buf b;
	char msg[512];
	int rc, i, nevents = 0, fds[2] = { -1, -1 };

	if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
		abort();
	dtc_error_clear(&err);
	if (mem) {
		r = dtc_reader_open_memory(data, size, "fuzz.dtsnap", 0, &err);
	} else {
		/* the whole input fits in the pipe: no writer thread needed */
		if (pipe(fds) != 0 ||
		    fcntl(fds[1], F_SETPIPE_SZ, (int)size + 1) < (int)size ||
		    write(fds[1], data, size) != (ssize_t)size)
			abort();
		close(fds[1]);
		r = dtc_reader_open_fd(fds[0], "fuzz.dtsnap", 0, &err);
	}
	if (r == NULL) {
		dtc_error_format(&err, msg, sizeof(msg));
		fprintf(errs, "%s\n", msg);
		if (fds[0] >= 0)
			close(fds[0]);
		return;
	}
	memset(&eo, 0, sizeof(eo));
	eo.out = out;
	eo.err = errs;
	for (i = 0; i < NEMIT; i++) {
		if (i > 0)
			eo.out = eo.err = devnull;
		st[i] = em[i]->create(&eo);
		live[i] = st[i] != NULL;
	}
	dtc_buf_init(&b);
	if (pushed) {
		push p = { em, st, live, errs, &b, 0 };

		/* DTC_WARN: something was skipped or the end item is missing */
		rc = dtc_reader_consume(r, &push_handler, &p, NULL);
		if (rc != DTC_OK && rc != DTC_WARN && rc != DTC_FATAL)
			abort();
		rc = rc == DTC_FATAL ? rc : DTC_EOF;
	}
	for (; !pushed;) {
		dtc_error_clear(&err);
		rc = dtc_reader_next(r, &ev, &err);
		if (rc == DTC_EOF)
			break;
		if (rc == DTC_WARN || rc == DTC_FATAL) {
			/* every warning must say something */
			if (err.code == DTC_E_NONE || err.text[0] == '\0')
				abort();
			dtc_error_format(&err, msg, sizeof(msg));
			fprintf(errs, "%s\n", msg);
			if (rc == DTC_FATAL)
				break;
			continue;
		}
		if (rc != DTC_OK)
			abort();
		/* a runaway state machine would loop here for ever */
		if (++nevents > 10000000)
			abort();
		if (ev == NULL)
			continue;
		touch_event(ev, &b);
		for (i = 0; i < NEMIT; i++)
			if (live[i] && dispatch(&em[i]->handler, ev, st[i]) != 0)
				live[i] = 0;
	}
	/* EOF and FATAL stick */
	if (dtc_reader_next(r, &ev, &err) != rc || ev != NULL)
		abort();
	/* --merge-aggs of the capture with itself */
	if ((m = dtc_aggmerge_new(NULL)) != NULL) {
		for (i = 0; i < 2; i++) {
			dtc_error_clear(&err);
			if (dtc_aggmerge_add(m, r, &err) != DTC_OK &&
			    err.code == DTC_E_NONE)
				abort();
		}
		while (dtc_aggmerge_next(m, &ev) == DTC_OK) {
			if (ev == NULL || ev->type != DTC_EV_AGG)
				abort();
			touch_event(ev, &b);
			for (i = 0; i < NEMIT; i++)
				if (live[i] && dispatch(&em[i]->handler, ev,
				    st[i]) != 0)
					live[i] = 0;
		}
		dtc_aggmerge_free(m);
	}
	for (i = 0; i < NEMIT; i++)
		if (st[i] != NULL)
			(void)em[i]->destroy(st[i]);
	dtc_buf_free(&b);
	dtc_reader_close(r);
	if (fds[0] >= 0)
		close(fds[0]);
}

/*
 * Memory and pipe input must decode the same: same output, same
 * messages.  Inputs beyond what a pipe can hold are read from memory only.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *o[3] = { NULL, NULL, NULL }, *e[3] = { NULL, NULL, NULL };
	size_t ol[3] = { 0, 0, 0 }, el[3] = { 0, 0, 0 };
	FILE *out, *errs;
	int k, n = size <= (1 << 20) ? 2 : 1;

	/* k = 0: memory, pulled; 1: a pipe, pulled; 2: memory, pushed */
	for (k = 0; k < 3; k++) {
		if (k == 1 && n == 1)
			continue;
		if ((out = open_memstream(&o[k], &ol[k])) == NULL ||
		    (errs = open_memstream(&e[k], &el[k])) == NULL)
			abort();
		run(data, size, k != 1, k == 2, out, errs);
		fclose(out);
		fclose(errs);
	}
	if (ol[0] != ol[2] || memcmp(o[0], o[2], ol[0]) != 0 ||
	    el[0] != el[2] || memcmp(e[0], e[2], el[0]) != 0) {
		fprintf(stderr, "dtc_reader_next and dtc_reader_consume decode differently\n"
		    "-- dtc_reader_next stderr:\n%s-- dtc_reader_consume stderr:\n%s",
		    e[0], e[2]);
		abort();
	}
	if (n == 2 && (ol[0] != ol[1] || memcmp(o[0], o[1], ol[0]) != 0 ||
	    el[0] != el[1] || memcmp(e[0], e[1], el[0]) != 0)) {
		fprintf(stderr, "memory and pipe input decode differently\n"
		    "-- memory stderr:\n%s-- pipe stderr:\n%s", e[0], e[1]);
		abort();
	}
	for (k = 0; k < 3; k++) {
		free(o[k]);
		free(e[k]);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Structure-aware mutations                                           */
/* ------------------------------------------------------------------ */

#define MAXITEMS 512

/* Where items start: what a writer writes there (a map head of 1 to 23
 * pairs, "t", a text head).  Good enough to cut a capture into items. */
static size_t
item_starts(const uint8_t *d, size_t n, size_t *at)
{
	size_t i, k = 0;

	for (i = 0; i + 3 < n && k < MAXITEMS; i++)
		if (d[i] >= 0xa1 && d[i] <= 0xb7 && d[i + 1] == 0x61 &&
		    d[i + 2] == 0x74 && (d[i + 3] & 0xe0) == 0x60)
			at[k++] = i;
	return k;
}

static uint32_t
rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Replace data[pos, pos + del) by ins[0, nins): the new size, or size
 * when it would not fit in max. */
static size_t
replace_bytes(uint8_t *data, size_t size, size_t max, size_t pos, size_t del,
    const uint8_t *ins, size_t nins)
{
	if (pos > size || del > size - pos || size - del + nins > max)
		return size;
	memmove(data + pos + nins, data + pos + del, size - pos - del);
	if (nins > 0)
		memmove(data + pos, ins, nins);
	return size - del + nins;
}

size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed)
{
	static const uint8_t odd[] = {
		0x1c, 0xff, 0xc6, 0xd8, 0xf0, 0xf8, 0x5b, 0x9b, 0xbb, 0xbf,
		0x7f, 0x00, 0xa1, 0x81
	};
	size_t at[MAXITEMS], n, k, a, b, len;
	uint32_t s = seed;
	uint8_t buf[16], *copy;

	n = item_starts(data, size, at);
	if (n < 2 || rnd(&s) % 2 == 0)
		return LLVMFuzzerMutate != NULL ?
		    LLVMFuzzerMutate(data, size, max) : size;
	k = 1 + rnd(&s) % (n - 1);              /* never the header */
	a = at[k];
	b = k + 1 < n ? at[k + 1] : size;
	switch (rnd(&s) % 8) {
	case 0:                 /* stray bytes before an item */
		len = 1 + rnd(&s) % 8;
		for (size_t i = 0; i < len; i++)
			buf[i] = rnd(&s) % 3 ? odd[rnd(&s) % sizeof(odd)] :
			    (uint8_t)rnd(&s);
		return replace_bytes(data, size, max, a, 0, buf, len);
	case 1:                 /* an item deleted */
		return replace_bytes(data, size, max, a, b - a, NULL, 0);
	case 2:                 /* an item duplicated, here or later */
		if ((copy = malloc(b - a)) == NULL)
			return size;
		memcpy(copy, data + a, b - a);
		len = replace_bytes(data, size, max, rnd(&s) % 2 ? b :
		    at[k + rnd(&s) % (n - k)], 0, copy, b - a);
		free(copy);
		return len;
	case 3:                 /* its map head claims one pair more/less */
		if (rnd(&s) % 2 && data[a] < 0xb7)
			data[a]++;
		else if (data[a] > 0xa1)
			data[a]--;
		return size;
	case 4:                 /* the capture ends inside it */
		return a + 1 + rnd(&s) % (b - a);
	case 5:                 /* its tail is gone, the next item follows */
		len = 1 + rnd(&s) % (b - a - 1);
		return replace_bytes(data, size, max, b - len, len, NULL, 0);
	case 6:                 /* a byte of it becomes an odd head */
		data[a + 1 + rnd(&s) % (b - a - 1)] =
		    odd[rnd(&s) % sizeof(odd)];
		return size;
	default:                /* two items swap places */
		if (k + 1 >= n)
			return size;
		len = (k + 2 < n ? at[k + 2] : size) - b;
		if ((copy = malloc(b - a)) == NULL)
			return size;
		memcpy(copy, data + a, b - a);
		memmove(data + a, data + b, len);
		memcpy(data + a + len, copy, b - a);
		free(copy);
		return size;
	}
}
