/*
 * emitter.h - one output format behind one interface.
 *
 * An emitter is a sink: it gets the library's events through a dtc_handler
 * (the `arg` of each callback is the emitter's own state) and writes them.
 * Emitters never read the container; the reader never formats.
 * registry.c maps a name ("text", "json", "cbor", "folded", "none",
 * "flamegraph", ...) to one.
 */
#ifndef DTC_EMITTER_H
#define DTC_EMITTER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
	int folded_kmark;   /* folded: a kernel frame's text ends in the byte
	                     * 0x01 (formats/stackprof.h: the flame graph
	                     * colours kernel frames by it); never set by
	                     * -f folded itself */
	const char *folded_agg; /* --agg: the one aggregation the folded
	                     * format counts (NULL: records and every one) */
	int folded_strip;   /* --strip-offsets: frames without "+0x..." */
	/*
	 * A problem of the emitter's own that leaves its output short of
	 * dtrace's while decoding goes on (a message cut at maxmsgsize): the
	 * program reports it as it reports the library's warnings, and its
	 * exit status says something was left out.  NULL: the emitter writes
	 * "dtconsume: " and dtc_error_format() of it on err itself (and
	 * nothing changes the exit status).
	 */
	void (*report)(const dtc_error *e, void *arg);
	void *report_arg;
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

/*
 * What the emitters share about a record they cannot render (dtrace's
 * "processing aborted") and a message cut at the cap, so that every
 * format says the same thing, on the same stream, and stops or goes on
 * the same way.
 */

/* dtrace's text for a rendering error: libdtrace's own words for a data
 * mismatch, the library's for the rest (out of memory, ...) */
static inline const char *
dtc_emit_errmsg(const dtc_error *err)
{
	if (err->code == DTC_E_DMISMATCH || err->text[0] == '\0')
		return "Data record list does not match statement";
	return err->text;
}

/*
 * The statements (formats) whose cut message was reported in this
 * capture: a cut is reported once per statement, not once per firing.
 * A fixed table, emptied when a capture begins (its formats are the
 * reader's); when it is full every further cut is reported: repeated
 * lines rather than a cut passed over in silence.
 */
#define DTC_CUTLOG_SIZE 64
typedef struct dtc_cutlog {
	const void *seen[DTC_CUTLOG_SIZE];
	unsigned n;
} dtc_cutlog;

/* 1 when the cut of key (a dtc_format) is to be reported */
static inline int
dtc_cutlog_first(dtc_cutlog *l, const void *key)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		if (l->seen[i] == key)
			return 0;
	if (l->n < DTC_CUTLOG_SIZE)
		l->seen[l->n++] = key;
	return 1;
}

/*
 * The cap on one message or value: maxmsgsize, as the library reads it
 * (dtc_reader_text_cut); SIZE_MAX for none.  Kept per reader (who, cap): only
 * the caller sets maxmsgsize, before the first event (a capture cannot:
 * dtc_reader_set_option), and a lookup by name costs about 850 instructions.  A
 * text no longer than this needs no cut, so an emitter asks the library
 * (dtc_reader_text_cut) only past it.  Emptied (*who = NULL) when a capture
 * begins: a new reader may sit where an old one was.
 */
static inline size_t
dtc_emit_cap(const dtc_reader *r, const dtc_reader **who, size_t *cap)
{
	int64_t v;

	if (r != NULL && r == *who)
		return *cap;
	v = r != NULL ? dtc_reader_get_option(r, "maxmsgsize") : DTC_OPT_UNSET;
	*cap = v < 0 ? DTC_MAXMSGSIZE_DEFAULT : v == 0 ? SIZE_MAX :
	    (size_t)v;
	*who = r;
	return *cap;
}

/*
 * Report a message cut at the cap (err from dtc_reader_printf_render or
 * dtc_reader_printa_render, DTC_WARN) once per statement: where (the file, the
 * record's CPU), what, and how to have it whole.
 */
static inline void
dtc_emit_cut(const dtc_emitter_opts *o, dtc_cutlog *l, const dtc_event *ev,
    const void *fmt, const dtc_error *err)
{
	dtc_error e = *err;
	size_t n = strlen(e.text);
	char buf[DTC_ERROR_TEXT_MAX];

	if (!dtc_cutlog_first(l, fmt))
		return;
	if (e.cpu < 0)
		e.cpu = ev->cpu;
	if (e.source[0] == '\0' && ev->source != NULL)
		snprintf(e.source, sizeof(e.source), "%s", ev->source);
	if (ev->ep != NULL)
		n += (size_t)snprintf(e.text + n, sizeof(e.text) - n, " in a "
		    "record of enabled probe %u", ev->ep->epid);
	if (n < sizeof(e.text))
		snprintf(e.text + n, sizeof(e.text) - n, ": -x maxmsgsize=0 "
		    "prints it whole; this statement's other cuts are not "
		    "reported");
	if (o->report != NULL) {
		o->report(&e, o->report_arg);
		return;
	}
	dtc_error_format(&e, buf, sizeof(buf));
	fprintf(o->err != NULL ? o->err : stderr, "dtconsume: %s\n", buf);
}

const dtc_emitter *dtc_emitter_find(const char *name);
/* NULL-terminated list, for --help */
const dtc_emitter *const *dtc_emitter_list(void);

extern const dtc_emitter dtc_fmt_text;
extern const dtc_emitter dtc_fmt_json;
extern const dtc_emitter dtc_fmt_cbor;
extern const dtc_emitter dtc_fmt_json_freebsd;
extern const dtc_emitter dtc_fmt_folded;
extern const dtc_emitter dtc_fmt_flamegraph;
extern const dtc_emitter dtc_fmt_speedscope;
extern const dtc_emitter dtc_fmt_trace_event;
extern const dtc_emitter dtc_fmt_perfetto; /* with protobuf-c only */
extern const dtc_emitter dtc_fmt_null;

#endif
