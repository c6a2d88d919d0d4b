/*
 * timeline.h - what the timeline formats (trace_event.c, perfetto.c)
 * read off a firing the same way: whether its probe opens or closes a
 * slice, an aggregation row's key and value as a counter series.
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

#endif
