/*
 * modeltape.h - model.c's builder calls kept as a list of values (a
 * tape), for an emitter that turns each finished line into its own
 * structures (perfetto.c: debug annotations) instead of parsing the
 * JSON text model.c would otherwise have written.
 *
 * The values are the JSON line's, as a JSON reader would get them back
 * from json.c's text: integers past +-(2^53-1), 128-bit integers and
 * addresses as the strings json.c writes, bytes as hex, text that is not
 * UTF-8 read as Latin-1, a map member whose value is null or a real that
 * is not finite left out (an array's null kept), containers past json.c's
 * depth kept empty.  So an emitter reading the tape sees what it saw
 * parsing the line, without a parse and without an allocation per value.
 */
#ifndef DTC_MODELTAPE_H
#define DTC_MODELTAPE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum { MT_MAP = 1, MT_ARR, MT_END, MT_INT, MT_STR, MT_DBL, MT_BOOL,
	MT_NULL, MT_LINE };

typedef struct mt_op {
	int op;
	uint32_t nkids;          /* MAP, ARR: the values directly in it */
	size_t key, klen;        /* a map member's key in the text; klen 0:
	                          * none (keys of model.c are never empty) */
	union {
		int64_t i;           /* INT */
		double d;            /* DBL */
		int b;               /* BOOL */
		struct { size_t off, len; } s; /* STR, in the text */
	} v;
} mt_op;

typedef struct modeltape modeltape;

/* A builder that records into a tape (model_out's free frees it). */
model_out *modeltape_new(void);
/* The finished lines: for each, fn(arg, ops, n, text) with ops[0] its
 * map and ops[n - 1] its end; then they are forgotten.  A tape that ran
 * out of memory lost lines: modeltape_nomem says so. */
void modeltape_drain(model_out *o, void *arg,
    void (*fn)(void *arg, const mt_op *ops, size_t n, const char *text));
int modeltape_nomem(const model_out *o);
/* 1 when the line's first member is "type" with the text type */
int modeltape_starts(const mt_op *ops, size_t n, const char *text,
    const char *type);

#endif
