/*
 * model.h - the structured data model shared by the JSON and CBOR outputs.
 *
 * model.c turns events into a tree of typed values (one top-level map per
 * output line) through the small builder interface below, in document
 * order; json.c writes JSON text as the calls come (jansson encodes its
 * strings that need escapes) and cbor.c encodes CBOR with libcbor's
 * streaming encoders.  So the two
 * encodings cannot drift apart: they differ only where the encodings do
 * (integers beyond 2^53 and addresses as strings in JSON, byte strings as
 * hex in JSON, 128-bit integers as bignums in CBOR).
 */
#ifndef DTC_MODEL_H
#define DTC_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emitter.h"

typedef struct model_out model_out;

/* One output line is built between line_begin and line_end; maps take
 * key() before each value. The builder must allow two lines to be under
 * construction at once (a printa's aggregation line is written while its
 * probe line is still open): each line has its own model_out. */
typedef struct model_ops {
	void (*map_begin)(model_out *o);
	void (*map_end)(model_out *o);
	void (*arr_begin)(model_out *o);
	void (*arr_end)(model_out *o);
	void (*key)(model_out *o, const char *k, size_t n);
	void (*i64)(model_out *o, int64_t v);
	void (*u64)(model_out *o, uint64_t v);
	void (*addr)(model_out *o, uint64_t v);    /* JSON "0x..." */
	void (*u128)(model_out *o, uint64_t hi, uint64_t lo);
	void (*str)(model_out *o, const char *s, size_t len);
	void (*bytes)(model_out *o, const void *p, size_t len); /* JSON hex */
	void (*dbl)(model_out *o, double v);
	void (*null)(model_out *o);
	void (*boolean)(model_out *o, int v);
	/* The encoded bytes of the line so far (*n of them), and an append
	 * of bytes that came from it: model.c encodes the members that
	 * repeat on every line of a probe once and reuses the bytes. */
	const void *(*so_far)(model_out *o, size_t *n);
	void (*raw)(model_out *o, const void *p, size_t n);
	/* write the finished line; 0 or -1 on a write error */
	int (*line_end)(model_out *o);
	void (*free)(model_out *o);
} model_ops;

/*
 * Templates, for a builder whose maps cost more to build member by
 * member than to copy (pyout.c; NULL in the others, which then get
 * map_begin and every member).  map_tmpl(o, a, b) opens a map as
 * map_begin does, and the builder may start it as a copy of the
 * last map it made for the tag (a, b).  same(o, k, n, check) comes
 * before a member whose value is a function of check alone (an
 * integer's value, the address of a text that does not change while
 * the reader lives): 1 when the copy holds k, with that check, as
 * the next member (the caller then writes nothing for it), else 0
 * and the caller writes key and value.  The builder checks every
 * key against the template's order and builds member by member from
 * where a map departs from it: a template can make a map slower,
 * never different.  forget() drops the templates (at a BEGIN: a
 * new reader's descriptions may sit where the last one's did).
 */
typedef struct model_tmpl_ops {
	void (*map_tmpl)(model_out *o, const void *a, const void *b);
	int (*same)(model_out *o, const char *k, size_t n, uint64_t check);
	void (*forget)(model_out *o);
} model_tmpl_ops;

struct model_out {
	const model_ops *ops;
	FILE *fp;
	const model_tmpl_ops *tmpl;    /* NULL: no templates */
};

/* Backends: a fresh builder writing lines to fp. */
model_out *model_json_new(FILE *fp);
model_out *model_cbor_new(FILE *fp);

/* Shared by the structured outputs: the length of a record dtrace would
 * print as a string (*is = 1), and the bucket range dtrace displays. */
size_t model_as_string(const uint8_t *p, size_t n, int *is);
/* n less an incomplete UTF-8 character at the end (a message cut at the
 * cap may end inside one) */
size_t model_utf8_cut(const char *s, size_t n);
void model_bucket_range(const dtc_aggval *v, uint32_t n, uint32_t *lo,
    uint32_t *hi);

/* The emitter over a pair of builders (probe lines, other lines). */
void *model_create(const dtc_emitter_opts *o, model_out *probe_line,
    model_out *other_line);
int model_destroy(void *state);
int model_on_begin(const dtc_event *ev, void *arg);
int model_on_probe(const dtc_event *ev, void *arg);
int model_on_record(const dtc_event *ev, void *arg);
int model_on_probe_end(const dtc_event *ev, void *arg);
int model_on_agg(const dtc_event *ev, void *arg);
int model_on_drop(const dtc_event *ev, void *arg);
int model_on_error(const dtc_event *ev, void *arg);
int model_on_notice(const dtc_event *ev, void *arg);
int model_on_end(const dtc_event *ev, void *arg);
#define MODEL_HANDLER { \
	.begin = model_on_begin, .probe = model_on_probe, \
	.record = model_on_record, .probe_end = model_on_probe_end, \
	.agg = model_on_agg, .drop = model_on_drop, .error = model_on_error, \
	.notice = model_on_notice, .end = model_on_end }

#endif
