/*
 * null.c - the "none" format: every event is consumed, nothing is written.
 *
 * For measuring the decoder alone (as babeltrace's utils.dummy sink): it
 * calls no rendering helper, so a run through it costs reading, walking,
 * decoding and ordering, but no formatting.  It only counts what it saw.
 */
#include <stdlib.h>

#include "emitter.h"

typedef struct null_state {
	unsigned long long nevents;
} null_state;

static int
count(const dtc_event *ev, void *arg)
{
	((null_state *)arg)->nevents++;
	return 0;
}

static void *
null_create(const dtc_emitter_opts *o)
{
	return calloc(1, sizeof(null_state));
}

static int
null_destroy(void *state)
{
	free(state);
	return 0;
}

const dtc_emitter dtc_fmt_null = {
	.name = "none",
	.description = "decode only, write nothing (for benchmarks)",
	.create = null_create,
	.destroy = null_destroy,
	.handler = {
		.begin = count,
		.probe = count,
		.record = count,
		.probe_end = count,
		.agg = count,
		.drop = count,
		.error = count,
		.notice = count,
		.end = count,
	},
};
