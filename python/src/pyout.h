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

/* A builder appending to sink->lines; freed by its ops->free. */
model_out *pyout_new(pyout_sink *sink);

#endif
