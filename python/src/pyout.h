/*
 * pyout.h - the data model of formats/model.h built as Python objects
 * (pyout.c).  Both builders of a model (probe lines, other lines) append
 * their finished lines to one sink, in the order the lines end, which is
 * the order dt2json writes them.
 */
#ifndef DTC_PYOUT_H
#define DTC_PYOUT_H

#include <Python.h>

#include "model.h"

typedef struct pyout_sink {
	PyObject *lines;   /* list: finished lines (dicts) */
	int error;         /* a Python exception is set */
} pyout_sink;

/*
 * A cache of short texts by their bytes (a power of two of slots, zeroed
 * at first): the same execname or probe name comes on many lines and
 * rows, and a str looked up costs less than one decoded.
 */
#define PYOUT_SHORT 48      /* texts up to this long are cached */
struct pyout_strslot {
	const char *p;      /* where the bytes were (keys) */
	size_t n;
	unsigned hits;      /* hits since stored, at most 3 */
	char b[PYOUT_SHORT];
	PyObject *s;
};
/* The str of n bytes at s, UTF-8 else Latin-1 (a new reference). */
PyObject *pyout_text(struct pyout_strslot *tab, size_t nslots, const char *s,
    size_t n);
void pyout_text_free(struct pyout_strslot *tab, size_t nslots);

/* A builder appending to sink->lines; freed by its ops->free. */
model_out *pyout_new(pyout_sink *sink);
/* From now on o adds to *made the dicts and lists it makes. */
void pyout_count(model_out *o, size_t *made);

#endif
