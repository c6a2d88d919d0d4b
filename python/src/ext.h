/*
 * ext.h - what the files of the _dtconsume extension share.
 *
 * ext.c       the module, DecodeError, opening a source, the event
 *             iterator (dt2json's data model through formats/model.c)
 * columns.c   batches (dtc_batch_*) as bytes for numpy, and light
 *             records in dtc_reader_next's order
 * aggs.c      aggregations: merged (dtc_aggmerge), kept as a small
 *             capture of their own, printed by formats/text.c
 * render.c    a capture in one of dtconsume's output formats (the
 *             pictures: flame graph, speedscope, trace events)
 * program.c   the program item (Capture.program)
 */
#ifndef DTC_PY_EXT_H
#define DTC_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "dtconsume.h"

/* A capture to read: a path, a file object (its descriptor) or bytes. */
typedef struct source {
	PyObject *keep;          /* what must outlive the reader */
	Py_buffer view;          /* bytes: the memory read in place */
	int have_view;
	int kind;                /* SRC_PATH, SRC_FD, SRC_MEMORY */
	PyObject *path;          /* SRC_PATH: bytes (file system encoding) */
	int fd;
	char name[256];          /* SRC_FD, SRC_MEMORY: the name in messages */
} source;

enum { SRC_PATH = 1, SRC_FD, SRC_MEMORY };

/* Fill s from a Python object; -1 with an exception set. */
int ext_source_init(source *s, PyObject *obj, PyObject *name);
void ext_source_free(source *s);
/* A reader of s (NULL: *err says why). */
dtc_reader *ext_source_reader(source *s, unsigned flags, dtc_error *err);

/* A DecodeError instance for err (new reference), or NULL. */
PyObject *ext_error_object(const dtc_error *err);
/* Raise the first of errors (a list of DecodeError), with .errors set to
 * the whole list; returns NULL. */
PyObject *ext_raise_errors(PyObject *errors);
/* Record err in errors (a list) and, for mode "warn", warn; -1 when a
 * Python error is set. */
int ext_note_error(PyObject *errors, const dtc_error *err, int warn);
/*
 * The programs' cap on the warnings of one capture (cmd/decode.c): at
 * most max of one kind (error code) are kept, DTCONSUME_MAX_WARNINGS (0:
 * no cap) or 100, so that a capture of a million damaged items does not
 * cost a million DecodeErrors; the rest are counted, and ext_errcap_end
 * adds one DecodeError per kind that says how many, as the programs'
 * count line does.
 */
#define EXT_NKINDS 32
typedef struct ext_errcap {
	unsigned max;
	unsigned long long kept[EXT_NKINDS], hidden[EXT_NKINDS];
	char source[sizeof(((dtc_error *)0)->source)];
} ext_errcap;
void ext_errcap_init(ext_errcap *cap);
/* ext_note_error under the cap. */
int ext_note_capped(PyObject *errors, ext_errcap *cap, const dtc_error *err,
    int warn);
/* The count of each kind left out, and the counts reset (a capture's
 * end); -1 when a Python error is set. */
int ext_errcap_end(PyObject *errors, ext_errcap *cap, int warn);

/* Set reader options from a dict {name: value or None}; -1 on error. */
int ext_set_options(dtc_reader *r, PyObject *options);
/* Record selection: sel is None or a sequence of (what, value) pairs of
 * str, handed to fn (dtc_reader_select or dtc_batch_select on obj).  0, or -1
 * with ValueError (a refused value) or TypeError set. */
typedef int (*ext_select_fn)(void *obj, const char *what, const char *value,
    dtc_error *err);
int ext_apply_select(void *obj, ext_select_fn fn, PyObject *sel);
/* dtc_reader_select as an ext_select_fn */
int ext_reader_select(void *r, const char *what, const char *value,
    dtc_error *err);

extern PyObject *ext_DecodeError;

/* columns.c */
extern PyTypeObject ext_BatchesType;
extern PyTypeObject ext_RecordsType;
int ext_columns_init(PyObject *m);
/* aggs.c */
extern PyMethodDef ext_agg_methods[];
/* render.c */
extern PyMethodDef ext_render_methods[];
/* program.c (issue 23): the program item, for Capture.program */
extern PyMethodDef ext_program_methods[];

#endif
