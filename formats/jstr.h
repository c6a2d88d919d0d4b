/*
 * jstr.h - one JSON string written to a stream, for the formats that
 * write their JSON themselves (speedscope.c, trace_event.c).
 */
#ifndef DTC_JSTR_H
#define DTC_JSTR_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* s (n bytes) as a JSON string, quotes included.  Bytes that are not
 * UTF-8 are read as Latin-1, as json.c does. */
void jstr_put(FILE *fp, const char *s, size_t n);
/* The same as a jansson string (NULL when memory runs out): for writers
 * that build their JSON with jansson (cmd/dtsnap_dof.c). */
json_t *jstr_json(const char *s, size_t n);

#endif
