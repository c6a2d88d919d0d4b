/*
 * null.c - the "none" format: every event is consumed, and only the
 * totals are written, one line at the end.
 *
 * For measuring the decoder alone (as babeltrace's utils.dummy sink): it
 * calls no rendering helper, so a run through it costs reading, walking,
 * decoding and ordering, but no formatting.  The totals show that
 * everything was decoded (bench/run.sh checks the firings against what
 * the generator wrote).  Probe firings are record sets (PROBE events),
 * records the values in them (RECORD events); with a selection, the
 * firings it left out are counted apart (the END event's count).
 */
#include <stdio.h>
#include <stdlib.h>

#include "emitter.h"

typedef struct null_state {
	FILE *out;
	unsigned long long n[DTC_EV_END + 1];   /* events by type */
	unsigned long long rows;                /* aggregation rows */
	unsigned long long skipped;             /* firings not selected */
} null_state;

static int
count(const dtc_event *ev, void *arg)
{
	null_state *st = arg;

	if (ev->type >= 0 && ev->type <= DTC_EV_END)
		st->n[ev->type]++;
	if (ev->type == DTC_EV_AGG && ev->agg != NULL)
		st->rows += ev->agg->nrows;
	if (ev->type == DTC_EV_END)
		st->skipped += ev->count;
	return 0;
}

/* the events of record sets, millions of them: one increment each */
static int
count_probe(const dtc_event *ev, void *arg)
{
	(void)ev;
	((null_state *)arg)->n[DTC_EV_PROBE]++;
	return 0;
}

static int
count_record(const dtc_event *ev, void *arg)
{
	(void)ev;
	((null_state *)arg)->n[DTC_EV_RECORD]++;
	return 0;
}

static void *
null_create(const dtc_emitter_opts *o)
{
	null_state *st = calloc(1, sizeof(*st));

	if (st != NULL)
		st->out = o->out;
	return st;
}

static int
null_destroy(void *state)
{
	null_state *st = state;
	char skipped[64] = "";
	int rc;

	/* only when a selection left firings out: the line is otherwise
	 * what it always was */
	if (st->skipped > 0)
		snprintf(skipped, sizeof(skipped), " (%llu skipped by the "
		    "selection)", st->skipped);
	rc = fprintf(st->out, "%llu captures, %llu probe firings%s, %llu "
	    "records, %llu aggregation printings (%llu rows), %llu drops, "
	    "%llu errors, %llu notices\n", st->n[DTC_EV_BEGIN],
	    st->n[DTC_EV_PROBE], skipped, st->n[DTC_EV_RECORD],
	    st->n[DTC_EV_AGG], st->rows, st->n[DTC_EV_DROP],
	    st->n[DTC_EV_ERROR], st->n[DTC_EV_NOTICE]) < 0 ? -1 : 0;
	free(st);
	return rc;
}

const dtc_emitter dtc_fmt_null = {
	.name = "none",
	.description = "decode only, write the totals (for benchmarks)",
	.create = null_create,
	.destroy = null_destroy,
	.handler = {
		.begin = count,
		.probe = count_probe,
		.record = count_record,
		.probe_end = NULL,      /* nothing to count */
		.agg = count,
		.drop = count,
		.error = count,
		.notice = count,
		.end = count,
	},
};
