/*
 * timeline.h - what the timeline formats (trace_event.c, perfetto.c)
 * read off a firing the same way: whether its probe opens or closes a
 * slice, an aggregation row's key and value as a counter series, the
 * time of an event; and the event handlers they share.
 */
#ifndef DTC_TIMELINE_H
#define DTC_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "dtconsume.h"

/* 1: the probe is an entry (entry, *-entry), 2: a return, 0: neither */
int timeline_flow(const dtc_probedesc *p);
/* an aggregation key as a series name part, appended to b */
void timeline_key_text(dtc_buf *b, const dtc_reader *r, const dtc_value *k);
/* the value dtrace prints for an aggregation (a histogram: its count) */
int64_t timeline_agg_value(const dtc_aggval *v);
/* The counter series of variable j of an aggregation printing: fn with
 * each of the first TIMELINE_MAXSERIES rows (its keys as
 * timeline_key_text writes them, joined by ", "; "value" without keys;
 * the name in scratch) and its value, then, when there are more rows,
 * once with "(other rows)" and their sum; first is 1 for the first */
#define TIMELINE_MAXSERIES 32
void timeline_series(const dtc_aggprint *ap, uint32_t j,
    const dtc_reader *r, dtc_buf *scratch, void *arg,
    void (*fn)(void *arg, const char *name, size_t n, int64_t value,
    int first));

/* the message of a printf() record as an event name: its first line,
 * cut at max bytes (on a UTF-8 boundary), blanks trimmed, in msg;
 * 1 when something is left */
int timeline_msg(dtc_buf *msg, const dtc_reader *r, const dtc_value *v,
    size_t max);

/* a stream writing into b (model.c writes its lines there) */
FILE *timeline_buf_file(dtc_buf *b);
/* 1 when a model.c line is of that "type" */
int timeline_starts(const char *line, size_t n, const char *type);
/* model.c's finished lines in b (written through f) each to fn(st,
 * line, its length without the newline, ev); then b emptied */
void timeline_drain(void *st, FILE *f, dtc_buf *b,
    void (*fn)(void *, const char *, size_t, const dtc_event *),
    const dtc_event *ev);

/*
 * The event handlers both formats run (TIMELINE_HANDLER): the state of a
 * timeline format starts with a struct timeline, which keeps the capture
 * and the firing in progress as both read them, and its ops say what
 * the format writes.  model.c's lines reach the format through its
 * drain ops (other lines after every event, probe lines when a firing
 * ends), aggregation printings through counters.
 */
#define TIMELINE_CAPTURE_PID 1000000000 /* + 1, 2, ...: a capture's pid
                                        * (above any a kernel hands out) */

typedef struct timeline timeline;

typedef struct timeline_ops {
	/* a new capture (capture, cpid set): its process and threads */
	void (*begin)(timeline *t, const dtc_event *ev);
	/* a record, before the timeline reads it (may be NULL) */
	void (*record)(timeline *t, const dtc_event *ev);
	/* an aggregation printing as counters at ns */
	void (*counters)(timeline *t, const dtc_event *ev,
	    const dtc_aggprint *ap, uint64_t ns);
	/* model.c's finished lines: the other lines, the probe lines */
	void (*drain_other)(timeline *t, const dtc_event *ev);
	void (*drain_probe)(timeline *t, const dtc_event *ev);
	/* the capture ends at ns: what is still open ends */
	void (*end)(timeline *t, const dtc_event *ev, uint64_t ns);
} timeline_ops;

struct timeline {
	const timeline_ops *ops;
	void *model;             /* model.c's emitter state */
	uint32_t capture;        /* 1, 2, ...: the captures so far */
	uint32_t cpid;           /* TIMELINE_CAPTURE_PID + capture */
	int v2;                  /* records carry no timestamp */
	int wall, hr;            /* a clock of each kind was used */
	uint64_t seq;            /* v2: firings so far */
	uint64_t last_ts;        /* ns of the last firing */
	/* the firing in progress */
	int pcpu;
	uint64_t pts;
	const char *pname;
	int flow;                /* 1 entry, 2 return, 0 neither */
	dtc_buf msg;             /* its first printf message */
	int havemsg;
	uint64_t upid;           /* the pid its user values carry */
	int haveupid;
};

/* The time of an event in ns: the record's own (through the capture's
 * clock as wall-clock time when it has one); DTrace v2 records carry
 * none, so there firings are 1 us apart in the order read. */
uint64_t timeline_event_ns(timeline *t, const dtc_event *ev, int firing);

int timeline_on_begin(const dtc_event *ev, void *arg);
int timeline_on_probe(const dtc_event *ev, void *arg);
int timeline_on_record(const dtc_event *ev, void *arg);
int timeline_on_probe_end(const dtc_event *ev, void *arg);
int timeline_on_agg(const dtc_event *ev, void *arg);
int timeline_on_drop(const dtc_event *ev, void *arg);
int timeline_on_error(const dtc_event *ev, void *arg);
int timeline_on_notice(const dtc_event *ev, void *arg);
int timeline_on_end(const dtc_event *ev, void *arg);
#define TIMELINE_HANDLER { \
	.begin = timeline_on_begin, .probe = timeline_on_probe, \
	.record = timeline_on_record, .probe_end = timeline_on_probe_end, \
	.agg = timeline_on_agg, .drop = timeline_on_drop, \
	.error = timeline_on_error, .notice = timeline_on_notice, \
	.end = timeline_on_end }

#endif
