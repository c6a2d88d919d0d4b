/*
 * columns.c - the batch reader (dtc_batch_*) for Python.
 *
 * Batches hands each batch over as plain data: per table a dict whose
 * arrays are bytes (index and timestamp uint64, cpu int32, pass uint32,
 * an INT column's values int64, a BYTES column's offsets uint64, data and
 * string flags), which numpy reads in place with frombuffer.  One copy of
 * each array, no Python object per value.
 *
 * Records makes one light object per record set instead (a struct
 * sequence: index, cpu, timestamp, pass_, epid, probe, values), in
 * dtc_reader_next's order: the rows of one batch are one run of indexes, so a
 * table of (table, row) by index puts them back in order without a sort.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <string.h>

#include "ext.h"
#include "pyout.h"

#define NSTRS 256            /* slots of a string column's text cache */

enum { MODE_RAISE, MODE_WARN, MODE_IGNORE };

static int
mode_of(PyObject *o, int *mode)
{
	const char *s;

	*mode = MODE_RAISE;
	if (o == NULL || o == Py_None)
		return 0;
	if ((s = PyUnicode_AsUTF8(o)) == NULL)
		return -1;
	if (strcmp(s, "warn") == 0)
		*mode = MODE_WARN;
	else if (strcmp(s, "ignore") == 0)
		*mode = MODE_IGNORE;
	else if (strcmp(s, "raise") != 0) {
		PyErr_Format(PyExc_ValueError, "errors=%R: 'raise', 'warn' or "
		    "'ignore'", o);
		return -1;
	}
	return 0;
}

static dtc_batch *
open_batch(source *s, unsigned flags, dtc_error *err)
{
	switch (s->kind) {
	case SRC_PATH:
		return dtc_batch_open_file(PyBytes_AS_STRING(s->path), flags,
		    err);
	case SRC_FD:
		return dtc_batch_open_fd(s->fd, s->name, flags, err);
	default:
		return dtc_batch_open_memory(s->view.buf, (size_t)s->view.len,
		    s->name, flags, err);
	}
}

/* What Batches and Records share: the reader and its errors. */
typedef struct breader {
	source src;
	dtc_batch *b;
	PyObject *errors;
	ext_errcap cap;
	int mode;
	int done;            /* DTC_EOF or DTC_FATAL seen */
} breader;

static int
batch_select(void *b, const char *what, const char *value, dtc_error *err)
{
	return dtc_batch_select(b, what, value, err);
}

static int
breader_init(breader *br, PyObject *src, int temporal, PyObject *name,
    PyObject *mode, PyObject *sel)
{
	dtc_error err;

	if (br->b != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "already open");
		return -1;
	}
	if (mode_of(mode, &br->mode) != 0 ||
	    (br->errors = PyList_New(0)) == NULL ||
	    ext_source_init(&br->src, src, name) != 0)
		return -1;
	ext_errcap_init(&br->cap);
	dtc_error_clear(&err);
	if ((br->b = open_batch(&br->src, temporal ? DTC_OPEN_TEMPORAL : 0,
	    &err)) == NULL) {
		PyObject *e = ext_error_object(&err);

		if (e != NULL) {
			PyErr_SetObject(ext_DecodeError, e);
			Py_DECREF(e);
		}
		return -1;
	}
	return ext_apply_select(br->b, batch_select, sel);
}

static void
breader_free(breader *br)
{
	dtc_batch_close(br->b);
	br->b = NULL;
	ext_source_free(&br->src);
	Py_CLEAR(br->errors);
}

/*
 * The next batch with rows: 1 (rows ready), 0 (the end), -1 (a Python
 * error).  Warnings are noted and reading goes on.
 */
static int
breader_next(breader *br, size_t max_rows)
{
	dtc_error err;
	int rc;

	if (br->errors == NULL) {      /* cleared by the collector */
		PyErr_SetString(PyExc_ValueError, "closed");
		return -1;
	}
	while (!br->done) {
		dtc_error_clear(&err);
		/* the decoding touches no Python object: other threads (a
		 * threaded Dask worker) run meanwhile */
		Py_BEGIN_ALLOW_THREADS
		rc = dtc_batch_next(br->b, max_rows, &err);
		Py_END_ALLOW_THREADS
		if (rc == DTC_EOF) {
			br->done = 1;
			break;
		}
		if (rc != DTC_OK) {
			if (ext_note_capped(br->errors, &br->cap, &err,
			    br->mode == MODE_WARN) != 0)
				return -1;
			if (rc == DTC_FATAL)
				br->done = 1;
		}
		if (dtc_batch_nrows(br->b) > 0)
			return 1;
	}
	return 0;
}

/* The end: raise the errors in mode "raise" (NULL), else None.  The
 * reader's memory goes now (a raised error makes a reference cycle that
 * would keep it until the collector runs). */
static PyObject *
breader_end(breader *br)
{
	dtc_batch_close(br->b);
	br->b = NULL;
	ext_source_free(&br->src);
	if (br->errors != NULL && ext_errcap_end(br->errors, &br->cap,
	    br->mode == MODE_WARN) != 0)
		return NULL;
	if (br->mode == MODE_RAISE && br->errors != NULL &&
	    PyList_GET_SIZE(br->errors) > 0)
		return ext_raise_errors(br->errors);
	Py_RETURN_NONE;
}

static PyObject *
probe_name(const dtc_table *t)
{
	const dtc_probedesc *p = t->probe;

	if (p == NULL)
		Py_RETURN_NONE;
	if (p->fullname != NULL)
		return PyUnicode_DecodeUTF8(p->fullname,
		    (Py_ssize_t)strlen(p->fullname), "replace");
	return PyUnicode_FromFormat("%s:%s:%s:%s", p->provider, p->module,
	    p->function, p->name);
}

static const char *
action_name(uint16_t a)
{
	switch (a) {
	case DTC_ACT_DIFEXPR: return "trace";
	case DTC_ACT_PRINTF: return "printf";
	case DTC_ACT_EXIT: return "exit";
	default: return "other";
	}
}

/* Capture text as the events give it (pyout.c): UTF-8, else Latin-1 (a
 * damaged format or header item holds any bytes), None for NULL; a new
 * reference for Py_BuildValue's N. */
static PyObject *
captext(const char *s)
{
	PyObject *v;

	if (s == NULL)
		Py_RETURN_NONE;
	if ((v = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), NULL)) ==
	    NULL) {
		PyErr_Clear();
		v = PyUnicode_DecodeLatin1(s, (Py_ssize_t)strlen(s), NULL);
	}
	return v;
}

static PyObject *
header_dict(const dtc_header *h)
{
	if (h == NULL)
		Py_RETURN_NONE;
	return Py_BuildValue("{s:(ii),s:s,s:s,s:N,s:N,s:N,s:N,s:I,s:I,s:s}",
	    "version", h->version_major, h->version_minor,
	    "byteorder", h->big_endian ? "big" : "little",
	    "model", h->ilp32 ? "ILP32" : "LP64",
	    "os", captext(h->os), "release", captext(h->release),
	    "host", captext(h->host), "producer", captext(h->producer),
	    "ncpu", h->ncpu,
	    "dt_act_base", h->dt_act_base, "flavor", h->flavor);
}

#define BYTES(p, n) PyBytes_FromStringAndSize((const char *)(p), \
	(Py_ssize_t)(n))
/* numeric arrays as bytearray: numpy's arrays over them are writable,
 * so a table of one batch keeps them without a second copy */
#define ARRAY(p, n) PyByteArray_FromStringAndSize((const char *)(p), \
	(Py_ssize_t)(n))

static PyObject *
column_dict(const dtc_column *c, size_t nrows)
{
	const char *fmt = c->fmt != NULL ? dtc_format_string(c->fmt) : NULL;

	if (c->kind == DTC_COL_INT)
		return Py_BuildValue("{s:s,s:I,s:s,s:I,s:N,s:I,s:N}",
		    "kind", "int", "recindex", c->recindex,
		    "action", action_name(c->action), "size", c->size,
		    "format", captext(fmt), "argindex", c->argindex,
		    "values", ARRAY(c->i, nrows * sizeof(int64_t)));
	return Py_BuildValue("{s:s,s:I,s:s,s:I,s:N,s:I,s:N,s:N,s:N}",
	    "kind", "bytes", "recindex", c->recindex,
	    "action", action_name(c->action), "size", c->size,
	    "format", captext(fmt), "argindex", c->argindex,
	    "offsets", BYTES(c->off, (nrows + 1) * sizeof(uint64_t)),
	    "data", BYTES(c->bytes, c->nbytes),
	    "isstr", BYTES(c->isstr, nrows));
}

static PyObject *
table_dict(const dtc_table *t)
{
	PyObject *cols = PyList_New((Py_ssize_t)t->ncols), *c, *d;
	uint32_t k;

	if (cols == NULL)
		return NULL;
	for (k = 0; k < t->ncols; k++) {
		if ((c = column_dict(&t->cols[k], t->nrows)) == NULL) {
			Py_DECREF(cols);
			return NULL;
		}
		PyList_SET_ITEM(cols, k, c);
	}
	d = Py_BuildValue("{s:I,s:I,s:N,s:O,s:n,s:N,s:N,s:N,s:N,s:N}",
	    "epid", t->ep->epid, "probeid", t->ep->probeid,
	    "probe", probe_name(t), "data", t->data ? Py_True : Py_False,
	    "nrows", (Py_ssize_t)t->nrows,
	    "index", ARRAY(t->index, t->nrows * 8),
	    "timestamp", ARRAY(t->timestamp, t->nrows * 8),
	    "cpu", ARRAY(t->cpu, t->nrows * 4),
	    "pass", ARRAY(t->pass, t->nrows * 4),
	    "columns", cols);
	return d;
}

/* ------------------------------------------------------------ Batches */

typedef struct {
	PyObject_HEAD
	breader br;
	PyObject *header;     /* the header dict, kept once read */
} BatchesObject;

static int
Batches_init(BatchesObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "source", "temporal", "name", "errors",
	    "select", NULL };
	PyObject *src, *name = NULL, *mode = NULL, *sel = NULL;
	int temporal = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pOOO", kwlist, &src,
	    &temporal, &name, &mode, &sel))
		return -1;
	return breader_init(&self->br, src, temporal, name, mode, sel);
}

/* In reference cycles as Events is (ext.c): seen by the collector. */
static int
Batches_traverse(BatchesObject *self, visitproc visit, void *arg)
{
	Py_VISIT(self->br.errors);
	Py_VISIT(self->br.src.keep);
	Py_VISIT(self->header);
	return 0;
}

static int
Batches_clear(BatchesObject *self)
{
	Py_CLEAR(self->br.errors);
	Py_CLEAR(self->header);
	return 0;
}

static void
Batches_dealloc(BatchesObject *self)
{
	PyObject_GC_UnTrack(self);
	Py_CLEAR(self->header);
	breader_free(&self->br);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Batches_read(BatchesObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "max_rows", NULL };
	Py_ssize_t max_rows = 0;
	PyObject *list, *d;
	size_t i, n;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|n", kwlist, &max_rows))
		return NULL;
	if (self->br.b == NULL) {
		if (self->br.done)      /* read to its end already */
			Py_RETURN_NONE;
		PyErr_SetString(PyExc_ValueError, "closed");
		return NULL;
	}
	if (max_rows < 0)
		max_rows = 0;
	rc = breader_next(&self->br, (size_t)max_rows);
	if (self->header == NULL && self->br.b != NULL &&
	    dtc_batch_header(self->br.b) != NULL &&
	    (self->header = header_dict(dtc_batch_header(self->br.b))) == NULL)
		return NULL;
	if (rc < 0)
		return NULL;
	if (rc == 0)
		return breader_end(&self->br);
	n = dtc_batch_ntables(self->br.b);
	if ((list = PyList_New((Py_ssize_t)n)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if ((d = table_dict(dtc_batch_table(self->br.b, i))) == NULL) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

static PyObject *
Batches_header(BatchesObject *self, void *closure)
{
	(void)closure;
	if (self->header != NULL)
		return Py_NewRef(self->header);
	if (self->br.b == NULL)
		Py_RETURN_NONE;
	return header_dict(dtc_batch_header(self->br.b));
}

static PyObject *
Batches_close(BatchesObject *self, PyObject *unused)
{
	PyObject *errors = self->br.errors;

	(void)unused;
	Py_XINCREF(errors);
	breader_free(&self->br);
	self->br.errors = errors;
	Py_RETURN_NONE;
}

static PyMemberDef Batches_members[] = {
	{ "errors", T_OBJECT, offsetof(BatchesObject, br.errors), READONLY,
	  "the DecodeErrors so far" },
	{ NULL, 0, 0, 0, NULL }
};

static PyGetSetDef Batches_getset[] = {
	{ "header", (getter)Batches_header, NULL,
	  "the capture's header (after the first read), or None", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyMethodDef Batches_methods[] = {
	{ "read", (PyCFunction)(void (*)(void))Batches_read,
	  METH_VARARGS | METH_KEYWORDS,
	  "read(max_rows=0): the next batch as a list of table dicts, None "
	  "at the end (which raises the errors in mode 'raise')" },
	{ "close", (PyCFunction)Batches_close, METH_NOARGS, "close" },
	{ NULL, NULL, 0, NULL }
};

PyTypeObject ext_BatchesType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "dtconsume._dtconsume.Batches",
	.tp_basicsize = sizeof(BatchesObject),
	.tp_dealloc = (destructor)Batches_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_traverse = (traverseproc)Batches_traverse,
	.tp_clear = (inquiry)Batches_clear,
	.tp_doc = "Batches(source, temporal=False, name=None, errors='raise')",
	.tp_methods = Batches_methods,
	.tp_members = Batches_members,
	.tp_getset = Batches_getset,
	.tp_init = (initproc)Batches_init,
	.tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------ Records */

#define NFIELDS 7           /* Record's fields, all visible */

static PyStructSequence_Field record_fields[] = {
	{ "index", "the record set's place in the capture (0 first)" },
	{ "cpu", "the CPU whose buffer held it" },
	{ "timestamp", "its hrtime (DTrace v2: its pass's, 0 when the "
	    "capture has no pass clocks)" },
	{ "pass_", "the consume pass" },
	{ "epid", "the enabled probe (the statement id in DTrace v2)" },
	{ "probe", "provider:module:function:name, or None" },
	{ "values", "its data values (int, str or bytes) in record order; "
	  "None for a statement that is not plain data" },
	{ NULL, NULL }
};

static PyStructSequence_Desc record_desc = {
	"dtconsume.Record",
	"One record set of a capture: trace() values, printf() arguments "
	"and exit() as values, as dt2json shows them.",
	record_fields, NFIELDS
};

static PyTypeObject *RecordType;

typedef struct {
	PyObject_HEAD
	breader br;
	size_t max_rows;
	/* the batch being served: (table, row) by index - first */
	struct slot { uint32_t t, r; } *order;
	size_t norder, caporder, pos;
	PyObject **probes;      /* per table of the batch: its probe str */
	PyObject **epids;
	size_t ntables, captables;
	int over;
	struct pyout_strslot strs[NSTRS];   /* string values (execnames) */
} RecordsObject;

static int
Records_init(RecordsObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "source", "temporal", "name", "errors",
	    "max_rows", "select", NULL };
	PyObject *src, *name = NULL, *mode = NULL, *sel = NULL;
	Py_ssize_t max_rows = 65536;
	int temporal = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pOOnO", kwlist, &src,
	    &temporal, &name, &mode, &max_rows, &sel))
		return -1;
	self->max_rows = max_rows > 0 ? (size_t)max_rows : 65536;
	return breader_init(&self->br, src, temporal, name, mode, sel);
}

static void
drop_tables(RecordsObject *self)
{
	size_t i;

	for (i = 0; i < self->ntables; i++) {
		Py_CLEAR(self->probes[i]);
		Py_CLEAR(self->epids[i]);
	}
	self->ntables = 0;
}

static int
Records_traverse(RecordsObject *self, visitproc visit, void *arg)
{
	Py_VISIT(self->br.errors);
	Py_VISIT(self->br.src.keep);
	return 0;
}

static int
Records_clear(RecordsObject *self)
{
	Py_CLEAR(self->br.errors);
	return 0;
}

static void
Records_dealloc(RecordsObject *self)
{
	PyObject_GC_UnTrack(self);
	drop_tables(self);
	PyMem_Free(self->probes);
	PyMem_Free(self->epids);
	PyMem_Free(self->order);
	pyout_text_free(self->strs, NSTRS);
	breader_free(&self->br);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The next batch, its rows put in index order; 1, 0 (the end), -1. */
static int
load(RecordsObject *self)
{
	size_t n, nt, t, r;
	uint64_t first = UINT64_MAX;
	int rc;

	drop_tables(self);
	self->norder = self->pos = 0;
	if ((rc = breader_next(&self->br, self->max_rows)) <= 0)
		return rc;
	n = dtc_batch_nrows(self->br.b);
	nt = dtc_batch_ntables(self->br.b);
	if (n > self->caporder) {
		struct slot *o = PyMem_Realloc(self->order, n * sizeof(*o));

		if (o == NULL)
			goto nomem;
		self->order = o;
		self->caporder = n;
	}
	if (nt > self->captables) {
		PyObject **p = PyMem_Realloc(self->probes, nt * sizeof(*p));
		PyObject **e;

		if (p == NULL)
			goto nomem;
		self->probes = p;
		if ((e = PyMem_Realloc(self->epids, nt * sizeof(*e))) == NULL)
			goto nomem;
		self->epids = e;
		self->captables = nt;
	}
	for (t = 0; t < nt; t++) {
		const dtc_table *tb = dtc_batch_table(self->br.b, t);

		if (tb->nrows > 0 && tb->index[0] < first)
			first = tb->index[0];
	}
	for (t = 0; t < nt; t++) {
		const dtc_table *tb = dtc_batch_table(self->br.b, t);

		self->probes[t] = probe_name(tb);
		self->epids[t] = PyLong_FromUnsignedLong(tb->ep->epid);
		self->ntables = t + 1;
		if (self->probes[t] == NULL || self->epids[t] == NULL)
			return -1;
		for (r = 0; r < tb->nrows; r++) {
			uint64_t k = tb->index[r] - first;

			/* the rows of a batch are one run of indexes */
			if (k >= n) {
				PyErr_SetString(PyExc_SystemError, "batch rows "
				    "are not one run of indexes");
				return -1;
			}
			self->order[k].t = (uint32_t)t;
			self->order[k].r = (uint32_t)r;
		}
	}
	self->norder = n;
	return 1;
nomem:
	PyErr_NoMemory();
	return -1;
}

static PyObject *
value_of(RecordsObject *self, const dtc_column *c, size_t r)
{
	const char *p;
	size_t n;

	if (c->kind == DTC_COL_INT)
		return PyLong_FromLongLong(c->i[r]);
	p = (const char *)c->bytes + c->off[r];
	n = (size_t)(c->off[r + 1] - c->off[r]);
	if (!c->isstr[r])
		return PyBytes_FromStringAndSize(p, (Py_ssize_t)n);
	return pyout_text(self->strs, NSTRS, p, n);
}

/*
 * Records come and go one by one (a loop drops each before it takes the
 * next), so a few freed ones are kept for the next: a bounded free list,
 * per process as CPython's own tuple and float free lists are.  Only
 * Record itself goes there (a subclass's objects are its own).
 */
#define NFREE 64
static PyObject *record_free[NFREE];
static int record_nfree;

/*
 * A Record: PyStructSequence_New without its two lookups of the type's
 * field counts in the type's dict (CPython 3.11: about 400 instructions,
 * a sixth of a record's cost).  Record has no hidden fields, so its size
 * is its length; like PyStructSequence_New's object, it is not tracked
 * by the collector (it holds ints, str, bytes, None and a tuple of them).
 */
static PyObject *
new_record(void)
{
	PyTupleObject *t;

	if (record_nfree > 0) {
		t = (PyTupleObject *)record_free[--record_nfree];
		_Py_NewReference((PyObject *)t);   /* it kept its type's ref */
		return (PyObject *)t;
	}
	t = PyObject_GC_NewVar(PyTupleObject, RecordType, NFIELDS);
	if (t != NULL)
		memset(t->ob_item, 0, NFIELDS * sizeof(PyObject *));
	return (PyObject *)t;
}

/*
 * Record's tp_dealloc, instead of the struct sequence's, which looks the
 * field count up in the type's dict again (about 120 instructions) for
 * every record freed.  Any Record has all NFIELDS fields (none hidden),
 * those made by Record(...) in Python too.
 */
static void
record_dealloc(PyObject *op)
{
	PyTypeObject *tp = Py_TYPE(op);
	PyTupleObject *t = (PyTupleObject *)op;
	Py_ssize_t i, n = Py_SIZE(op);

	PyObject_GC_UnTrack(op);
	for (i = 0; i < n; i++)
		Py_CLEAR(t->ob_item[i]);
	if (tp == RecordType && n == NFIELDS && record_nfree < NFREE) {
		record_free[record_nfree++] = op;
		return;
	}
	PyObject_GC_Del(op);
	Py_DECREF(tp);      /* a heap type: each object holds a reference */
}

static PyObject *
Records_next(RecordsObject *self)
{
	const dtc_table *tb;
	PyObject *rec, *vals, *v;
	struct slot s;
	uint32_t k;
	int rc;

	if (self->br.b == NULL || self->over)
		return NULL;
	if (self->pos >= self->norder) {
		if ((rc = load(self)) < 0)
			return NULL;
		if (rc == 0) {
			self->over = 1;
			v = breader_end(&self->br);
			Py_XDECREF(v);
			return NULL;
		}
	}
	s = self->order[self->pos++];
	tb = dtc_batch_table(self->br.b, s.t);
	if ((rec = new_record()) == NULL)
		return NULL;
	if (tb->data) {
		if ((vals = PyTuple_New(tb->ncols)) == NULL)
			goto fail;
		for (k = 0; k < tb->ncols; k++) {
			if ((v = value_of(self, &tb->cols[k], s.r)) == NULL) {
				Py_DECREF(vals);
				goto fail;
			}
			PyTuple_SET_ITEM(vals, k, v);
		}
	} else {
		vals = Py_NewRef(Py_None);
	}
	PyStructSequence_SET_ITEM(rec, 6, vals);
	PyStructSequence_SET_ITEM(rec, 0,
	    PyLong_FromUnsignedLongLong(tb->index[s.r]));
	PyStructSequence_SET_ITEM(rec, 1, PyLong_FromLong(tb->cpu[s.r]));
	PyStructSequence_SET_ITEM(rec, 2,
	    PyLong_FromUnsignedLongLong(tb->timestamp[s.r]));
	PyStructSequence_SET_ITEM(rec, 3, PyLong_FromUnsignedLong(tb->pass[s.r]));
	PyStructSequence_SET_ITEM(rec, 4, Py_NewRef(self->epids[s.t]));
	PyStructSequence_SET_ITEM(rec, 5, Py_NewRef(self->probes[s.t]));
	for (k = 0; k < 4; k++)
		if (PyStructSequence_GET_ITEM(rec, k) == NULL)
			goto fail;
	return rec;
fail:
	Py_DECREF(rec);
	return NULL;
}

static PyMemberDef Records_members[] = {
	{ "errors", T_OBJECT, offsetof(RecordsObject, br.errors), READONLY,
	  "the DecodeErrors so far" },
	{ NULL, 0, 0, 0, NULL }
};

PyTypeObject ext_RecordsType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "dtconsume._dtconsume.Records",
	.tp_basicsize = sizeof(RecordsObject),
	.tp_dealloc = (destructor)Records_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_traverse = (traverseproc)Records_traverse,
	.tp_clear = (inquiry)Records_clear,
	.tp_doc = "Records(source, temporal=False, name=None, errors='raise', "
	    "max_rows=65536): light records in dtc_reader_next's order",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)Records_next,
	.tp_members = Records_members,
	.tp_init = (initproc)Records_init,
	.tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------ strings */

/*
 * uniques(offsets, data, isstr): a BYTES column as (values, codes): each
 * distinct value (str, or bytes where the record is not a string) once,
 * in order of first appearance, and per row the index of its value (int64
 * bytes), which numpy's take turns into the column's object array.  A
 * column holds few distinct values (execnames, paths), so a str is made
 * per value, not per row, and a row costs a hash of its bytes.  The hash
 * table is this call's and at most twice the rows.
 */
struct uslot { uint64_t h; int64_t code; };

static uint64_t
hash_bytes(const uint8_t *p, size_t n, int isstr)
{
	const uint64_t k = 0xff51afd7ed558ccdULL;
	uint64_t h = (n * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)isstr, w;
	size_t i;

	for (i = 0; n - i >= sizeof(w); i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		h = (h ^ w) * k;
	}
	if (i < n && n >= sizeof(w)) {   /* the last word, overlapping */
		memcpy(&w, p + n - sizeof(w), sizeof(w));
		h = (h ^ w) * k;
	} else if (i < n) {
		for (w = 0; i < n; i++)
			w = (w << 8) | p[i];
		h = (h ^ w) * k;
	}
	return h ^ (h >> 29);
}

static int
grow_slots(struct uslot **tab, size_t *cap, size_t nu, const struct uslot *old)
{
	size_t ncap = *cap ? *cap * 2 : 256, i, j;
	struct uslot *t = PyMem_Calloc(ncap, sizeof(*t));

	if (t == NULL)
		return -1;
	for (i = 0; i < nu; i++) {       /* re-place every value's slot */
		uint64_t h = old[i].h;

		for (j = h & (ncap - 1); t[j].code != 0; j = (j + 1) & (ncap - 1))
			continue;
		t[j].h = h;
		t[j].code = (int64_t)i + 1;
	}
	PyMem_Free(*tab);
	*tab = t;
	*cap = ncap;
	return 0;
}

static PyObject *
uniques(PyObject *m, PyObject *args)
{
	Py_buffer off, data, isstr;
	PyObject *list = NULL, *codes = NULL, *v, *ret = NULL;
	struct pyout_strslot *strs = NULL;
	struct uslot *tab = NULL, *vals = NULL;  /* vals[i]: value i's hash */
	int64_t *first = NULL, *code;
	size_t cap = 0, nu = 0, j;
	const uint64_t *o;
	const uint8_t *p, *fl;
	Py_ssize_t n, i;

	(void)m;
	if (!PyArg_ParseTuple(args, "y*y*y*", &off, &data, &isstr))
		return NULL;
	n = isstr.len;
	o = off.buf;
	p = data.buf;
	fl = isstr.buf;
	if (off.len != (n + 1) * 8) {
		PyErr_SetString(PyExc_ValueError, "offsets do not match");
		goto out;
	}
	if ((codes = PyBytes_FromStringAndSize(NULL, n * 8)) == NULL ||
	    (list = PyList_New(0)) == NULL)
		goto out;
	code = (int64_t *)PyBytes_AS_STRING(codes);
	if ((first = PyMem_Malloc((n > 0 ? (size_t)n : 1) * sizeof(*first))) ==
	    NULL || (vals = PyMem_Malloc((n > 0 ? (size_t)n : 1) *
	    sizeof(*vals))) == NULL ||
	    (strs = PyMem_Calloc(NSTRS, sizeof(*strs))) == NULL) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint64_t h;
		size_t len;
		int str = fl[i] != 0;

		if (o[i] > o[i + 1] || o[i + 1] > (uint64_t)data.len) {
			PyErr_SetString(PyExc_ValueError, "bad offsets");
			goto out;
		}
		len = (size_t)(o[i + 1] - o[i]);
		h = hash_bytes(p + o[i], len, str);
		if (2 * (nu + 1) > cap &&
		    grow_slots(&tab, &cap, nu, vals) != 0) {
			PyErr_NoMemory();
			goto out;
		}
		for (j = h & (cap - 1); tab[j].code != 0; j = (j + 1) & (cap - 1)) {
			int64_t f = first[tab[j].code - 1];

			if (tab[j].h == h && (fl[f] != 0) == str &&
			    o[f + 1] - o[f] == len &&
			    memcmp(p + o[f], p + o[i], len) == 0)
				break;
		}
		if (tab[j].code == 0) {          /* a new value */
			if (str)
				v = pyout_text(strs, NSTRS, (const char *)p + o[i],
				    len);
			else
				v = PyBytes_FromStringAndSize(
				    (const char *)p + o[i], (Py_ssize_t)len);
			if (v == NULL || PyList_Append(list, v) != 0) {
				Py_XDECREF(v);
				goto out;
			}
			Py_DECREF(v);
			first[nu] = i;
			vals[nu].h = h;
			tab[j].h = h;
			tab[j].code = (int64_t)++nu;
		}
		code[i] = tab[j].code - 1;
	}
	ret = PyTuple_Pack(2, list, codes);
out:
	Py_XDECREF(list);
	Py_XDECREF(codes);
	if (strs != NULL) {
		pyout_text_free(strs, NSTRS);
		PyMem_Free(strs);
	}
	PyMem_Free(tab);
	PyMem_Free(vals);
	PyMem_Free(first);
	PyBuffer_Release(&off);
	PyBuffer_Release(&data);
	PyBuffer_Release(&isstr);
	return ret;
}

static PyMethodDef column_methods[] = {
	{ "uniques", uniques, METH_VARARGS,
	  "uniques(offsets, data, isstr): a bytes column as (values, codes): "
	  "its distinct str/bytes values and an int64 index per row" },
	{ NULL, NULL, 0, NULL }
};

int
ext_columns_init(PyObject *m)
{
	if ((RecordType = PyStructSequence_NewType(&record_desc)) == NULL)
		return -1;
	RecordType->tp_dealloc = record_dealloc;
	if (PyType_Ready(&ext_BatchesType) != 0 ||
	    PyType_Ready(&ext_RecordsType) != 0 ||
	    PyModule_AddObjectRef(m, "Batches",
	    (PyObject *)&ext_BatchesType) != 0 ||
	    PyModule_AddObjectRef(m, "Records",
	    (PyObject *)&ext_RecordsType) != 0 ||
	    PyModule_AddObjectRef(m, "Record", (PyObject *)RecordType) != 0 ||
	    PyModule_AddFunctions(m, column_methods) != 0)
		return -1;
	return 0;
}
