/*
 * emitter.h - one output format behind one interface.
 *
 * An emitter is a sink: it gets the library's events through a dtc_handler
 * (the `arg` of each callback is the emitter's own state) and writes them.
 * Emitters never read the container; the reader never formats.
 * registry.c maps a name ("text", "json", "cbor", "folded", "none") to
 * one.
 */
#ifndef DTC_EMITTER_H
#define DTC_EMITTER_H

#include <stdint.h>
#include <stdio.h>

#include "dtconsume.h"

typedef struct dtc_emitter_opts {
	FILE *out;          /* the data stream (stdout or -o file) */
	FILE *err;          /* messages dtrace(1) prints on stderr */
	int testing;        /* dtrace-utils testing mode (_DTRACE_TESTING):
	                     * no CPU/ID columns in non-quiet output */
	int merge_aggs;     /* --merge-aggs (aggregations printed once at the end) */
	uint64_t folded_keys; /* --folded-key: aggregation key positions the
	                     * folded format keeps (bit 0: the first key);
	                     * 0: every key */
} dtc_emitter_opts;

typedef struct dtc_emitter {
	const char *name;
	const char *description;
	/* state for one run over one or more files; NULL on failure */
	void *(*create)(const dtc_emitter_opts *o);
	/* flush and free; returns 0 or -1 (write error) */
	int (*destroy)(void *state);
	/* callbacks; their arg is the state from create */
	dtc_handler handler;
} dtc_emitter;

/* A callback's return value: processing aborted (the emitter has already
 * said why, as dtrace does); stop this capture and exit 1. */
#define DTC_EMIT_ABORT 2

const dtc_emitter *dtc_emitter_find(const char *name);
/* NULL-terminated list, for --help */
const dtc_emitter *const *dtc_emitter_list(void);

extern const dtc_emitter dtc_fmt_text;
extern const dtc_emitter dtc_fmt_json;
extern const dtc_emitter dtc_fmt_cbor;
extern const dtc_emitter dtc_fmt_json_freebsd;
extern const dtc_emitter dtc_fmt_folded;
extern const dtc_emitter dtc_fmt_null;

#endif
