/*
 * ext.c - the _dtconsume extension: the module, DecodeError, sources,
 * and Events, the iterator over a capture's events in dt2json's data
 * model.
 *
 * Events drives dtc_reader_consume(), not dtc_reader_next(): the callbacks hand every
 * event to formats/model.c with a builder that makes dicts (pyout.c), and
 * stop the loop once CHUNK lines are finished; __next__ then serves them
 * from that list.  dtc_reader_consume's loop over a pass's record sets is the
 * library's fast path, and a Python call costs more than a few events.
 *
 * Warnings (something skipped, dtc_reader_consume's warn callback) do not stop
 * the iteration: everything decodable is yielded first.  Each becomes a
 * DecodeError in .errors; at the end the first is raised (mode "raise"),
 * or each was given to warnings.warn as it came ("warn"), or nothing is
 * raised ("ignore").  A fatal error ends the events the same way.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "emitter.h"
#include "model.h"
#include "pyout.h"

#define CHUNK 256       /* lines finished per dtc_reader_consume call */
/*
 * and dicts and lists made: CPython collects its youngest generation
 * once 700 more containers were made than freed.  The lines of a chunk
 * are alive until the next one is filled (the list holds them), so 256
 * lines of 7 containers made 2-3 collections a chunk, each going
 * through every line still held (1,500 instructions an event, more
 * than a tenth of it).  Chunks of fewer containers are freed before
 * that count is reached, when the caller keeps no events.
 */
#define CHUNK_MADE 256
/* a callback's "stop": neither a DTC_* return code nor DTC_EMIT_ABORT
 * (the model's "processing aborted"), which ends the capture */
#define STOP 7
_Static_assert(STOP != DTC_EMIT_ABORT, "STOP must not read as an abort");

PyObject *ext_DecodeError;

enum { MODE_RAISE, MODE_WARN, MODE_IGNORE };

static int
parse_mode(PyObject *o, int *mode)
{
	const char *s;

	if (o == NULL || o == Py_None) {
		*mode = MODE_RAISE;
		return 0;
	}
	if ((s = PyUnicode_AsUTF8(o)) == NULL)
		return -1;
	if (strcmp(s, "raise") == 0)
		*mode = MODE_RAISE;
	else if (strcmp(s, "warn") == 0)
		*mode = MODE_WARN;
	else if (strcmp(s, "ignore") == 0)
		*mode = MODE_IGNORE;
	else {
		PyErr_Format(PyExc_ValueError, "errors=%R: 'raise', 'warn' or "
		    "'ignore'", o);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ errors */

PyObject *
ext_error_object(const dtc_error *err)
{
	char buf[DTC_ERROR_TEXT_MAX];
	PyObject *e, *v, *msg;
	size_t n = dtc_error_format(err, buf, sizeof(buf));

	/* a message quotes capture text, arbitrary bytes: what is not UTF-8
	 * reads \xNN, as the programs print it (cmd/cli.c) */
	if ((msg = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)n,
	    "backslashreplace")) == NULL)
		return NULL;
	e = PyObject_CallFunctionObjArgs(ext_DecodeError, msg, NULL);
	Py_DECREF(msg);
	if (e == NULL)
		return NULL;
#define SET(name, val) do { \
	if ((v = (val)) == NULL || PyObject_SetAttrString(e, name, v) != 0) { \
		Py_XDECREF(v); \
		Py_DECREF(e); \
		return NULL; \
	} \
	Py_DECREF(v); \
} while (0)
	SET("code", PyLong_FromLong(err->code));
	SET("file", PyUnicode_DecodeFSDefault(err->source));
	SET("item", err->item >= 0 ? PyLong_FromLongLong(err->item) :
	    Py_NewRef(Py_None));
	SET("cpu", err->cpu >= 0 ? PyLong_FromLong(err->cpu) :
	    Py_NewRef(Py_None));
	SET("offset", err->offset >= 0 ? PyLong_FromLongLong(err->offset) :
	    Py_NewRef(Py_None));
	SET("text", PyUnicode_DecodeUTF8(err->text, (Py_ssize_t)strlen(
	    err->text), "replace"));
#undef SET
	return e;
}

int
ext_note_error(PyObject *errors, const dtc_error *err, int warn)
{
	PyObject *e = ext_error_object(err);
	int rc;

	if (e == NULL)
		return -1;
	rc = PyList_Append(errors, e);
	if (rc == 0 && warn) {
		PyObject *msg = PyObject_Str(e);

		rc = msg == NULL ? -1 : PyErr_WarnEx(PyExc_RuntimeWarning,
		    PyUnicode_AsUTF8(msg), 2);
		Py_XDECREF(msg);
	}
	Py_DECREF(e);
	return rc;
}

void
ext_errcap_init(ext_errcap *cap)
{
	const char *e = getenv("DTCONSUME_MAX_WARNINGS");
	unsigned long n;
	char *end;

	memset(cap, 0, sizeof(*cap));
	cap->max = 100;         /* cmd/decode.h DECODE_MAXWARN */
	if (e == NULL || e[0] == '\0' || e[0] == '-')
		return;
	errno = 0;
	n = strtoul(e, &end, 10);
	if (*end == '\0' && errno == 0 && n <= UINT_MAX)
		cap->max = (unsigned)n;
}

int
ext_note_capped(PyObject *errors, ext_errcap *cap, const dtc_error *err,
    int warn)
{
	int k = err->code >= 0 && err->code < EXT_NKINDS - 1 ? err->code :
	    EXT_NKINDS - 1;

	if (cap->max == 0 || cap->kept[k] < cap->max) {
		cap->kept[k]++;
		return ext_note_error(errors, err, warn);
	}
	cap->hidden[k]++;
	snprintf(cap->source, sizeof(cap->source), "%s", err->source);
	return 0;
}

int
ext_errcap_end(PyObject *errors, ext_errcap *cap, int warn)
{
	dtc_error e = DTC_ERROR_INIT;
	int k, rc = 0;

	for (k = 0; k < EXT_NKINDS; k++) {
		if (cap->hidden[k] > 0 && rc == 0) {
			e.code = k;
			snprintf(e.source, sizeof(e.source), "%s", cap->source);
			/* the programs' count line, word for word
			 * (cmd/decode.c warn_summary) */
			snprintf(e.text, sizeof(e.text), "%llu more warning%s "
			    "like '%s' not shown (dtsnap validate -a shows them "
			    "all)", cap->hidden[k], cap->hidden[k] == 1 ? "" :
			    "s", dtc_error_string(k));
			rc = ext_note_error(errors, &e, warn);
		}
		cap->kept[k] = cap->hidden[k] = 0;
	}
	return rc;
}

PyObject *
ext_raise_errors(PyObject *errors)
{
	PyObject *first = PyList_GetItem(errors, 0);

	if (first == NULL)
		return NULL;
	if (PyObject_SetAttrString(first, "errors", errors) != 0)
		return NULL;
	PyErr_SetObject(ext_DecodeError, first);
	return NULL;
}

/* ------------------------------------------------------------ sources */

int
ext_source_init(source *s, PyObject *obj, PyObject *name)
{
	PyObject *fileno;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (name != NULL && name != Py_None) {
		const char *n = PyUnicode_AsUTF8(name);

		if (n == NULL)
			return -1;
		snprintf(s->name, sizeof(s->name), "%s", n);
	}
	/* str and os.PathLike are paths; bytes are a capture's contents */
	if (PyUnicode_Check(obj) || (!PyObject_CheckBuffer(obj) &&
	    PyObject_HasAttrString(obj, "__fspath__"))) {
		if (!PyUnicode_FSConverter(obj, &s->path))
			return -1;
		s->kind = SRC_PATH;
		return 0;
	}
	if (PyObject_CheckBuffer(obj)) {
		if (PyObject_GetBuffer(obj, &s->view, PyBUF_SIMPLE) != 0)
			return -1;
		s->have_view = 1;
		s->kind = SRC_MEMORY;
		s->keep = Py_NewRef(obj);
		if (s->name[0] == '\0')
			snprintf(s->name, sizeof(s->name), "<memory>");
		return 0;
	}
	if ((fileno = PyObject_GetAttrString(obj, "fileno")) != NULL) {
		PyObject *r = PyObject_CallNoArgs(fileno);

		Py_DECREF(fileno);
		if (r != NULL) {
			s->fd = PyLong_AsLong(r);
			Py_DECREF(r);
			if (s->fd < 0 && PyErr_Occurred())
				return -1;
			s->kind = SRC_FD;
			s->keep = Py_NewRef(obj);
			if (s->name[0] == '\0') {
				PyObject *n = PyObject_GetAttrString(obj, "name");

				if (n != NULL && PyUnicode_Check(n))
					snprintf(s->name, sizeof(s->name), "%s",
					    PyUnicode_AsUTF8(n));
				else
					snprintf(s->name, sizeof(s->name),
					    "<fd %d>", s->fd);
				Py_XDECREF(n);
				PyErr_Clear();
			}
			return 0;
		}
		/* io.BytesIO has fileno() that raises: read it instead */
		PyErr_Clear();
	} else {
		PyErr_Clear();
	}
	if (PyObject_HasAttrString(obj, "read")) {
		PyObject *data = PyObject_CallMethod(obj, "read", NULL);
		int rc;

		if (data == NULL)
			return -1;
		if (!PyObject_CheckBuffer(data)) {
			Py_DECREF(data);
			PyErr_SetString(PyExc_TypeError, "read() gave no bytes");
			return -1;
		}
		rc = ext_source_init(s, data, name);
		Py_DECREF(data);
		return rc;
	}
	PyErr_Format(PyExc_TypeError, "a capture is a path, a binary file or "
	    "bytes, not %.100s", Py_TYPE(obj)->tp_name);
	return -1;
}

void
ext_source_free(source *s)
{
	if (s->have_view)
		PyBuffer_Release(&s->view);
	s->have_view = 0;
	Py_CLEAR(s->keep);
	Py_CLEAR(s->path);
}

dtc_reader *
ext_source_reader(source *s, unsigned flags, dtc_error *err)
{
	switch (s->kind) {
	case SRC_PATH:
		return dtc_reader_open_file(PyBytes_AS_STRING(s->path), flags, err);
	case SRC_FD:
		return dtc_reader_open_fd(s->fd, s->name, flags, err);
	default:
		return dtc_reader_open_memory(s->view.buf, (size_t)s->view.len,
		    s->name, flags, err);
	}
}

int
ext_set_options(dtc_reader *r, PyObject *options)
{
	PyObject *k, *v;
	Py_ssize_t pos = 0;
	dtc_error err;

	if (options == NULL || options == Py_None)
		return 0;
	if (!PyDict_Check(options)) {
		PyErr_SetString(PyExc_TypeError, "options: a dict {name: value}");
		return -1;
	}
	while (PyDict_Next(options, &pos, &k, &v)) {
		const char *name = PyUnicode_AsUTF8(k), *val = NULL;
		PyObject *sv = NULL;
		int rc;

		if (name == NULL)
			return -1;
		if (v != Py_None && v != Py_True) {
			if ((sv = PyObject_Str(v)) == NULL)
				return -1;
			val = PyUnicode_AsUTF8(sv);
		}
		dtc_error_clear(&err);
		rc = dtc_reader_set_option(r, name, val, &err);
		Py_XDECREF(sv);
		if (rc != DTC_OK) {
			PyErr_SetString(PyExc_ValueError, err.text);
			return -1;
		}
	}
	return 0;
}

int
ext_apply_select(void *obj, ext_select_fn fn, PyObject *sel)
{
	PyObject *seq;
	Py_ssize_t i, n;
	dtc_error err;

	if (sel == NULL || sel == Py_None)
		return 0;
	if ((seq = PySequence_Fast(sel, "select: a sequence of (what, value) "
	    "pairs")) == NULL)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	for (i = 0; i < n; i++) {
		PyObject *pair = PySequence_Fast_GET_ITEM(seq, i);
		const char *what, *value;

		if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
		    !PyUnicode_Check(PyTuple_GET_ITEM(pair, 0)) ||
		    !PyUnicode_Check(PyTuple_GET_ITEM(pair, 1))) {
			PyErr_SetString(PyExc_TypeError, "select: a sequence of "
			    "(what, value) pairs of str");
			Py_DECREF(seq);
			return -1;
		}
		if ((what = PyUnicode_AsUTF8(PyTuple_GET_ITEM(pair, 0))) ==
		    NULL || (value = PyUnicode_AsUTF8(PyTuple_GET_ITEM(pair,
		    1))) == NULL) {
			Py_DECREF(seq);
			return -1;
		}
		dtc_error_clear(&err);
		if (fn(obj, what, value, &err) != DTC_OK) {
			PyErr_Format(PyExc_ValueError, "%s: %s", what, err.text);
			Py_DECREF(seq);
			return -1;
		}
	}
	Py_DECREF(seq);
	return 0;
}

int
ext_reader_select(void *r, const char *what, const char *value, dtc_error *err)
{
	return dtc_reader_select(r, what, value, err);
}

/* ------------------------------------------------------------ events */

typedef struct {
	PyObject_HEAD
	source src;
	dtc_reader *r;
	void *model;
	pyout_sink sink;          /* lines finished, not yet served */
	size_t made;              /* dicts and lists made for them */
	Py_ssize_t pos;           /* the next line of sink.lines to serve */
	PyObject *errors;         /* DecodeError instances */
	ext_errcap cap;
	int mode;
	int done;                 /* the reader ended (EOF or fatal) */
	int over;                 /* StopIteration (or the error) given */
	PyObject *owner;          /* its .header is set at the header line */
	/* what the model says on its error stream: the reason of a
	 * "processing aborted", which becomes a DecodeError */
	FILE *errfp;
	char *errtext;
	size_t errlen;
} EventsObject;

/* A line-ending callback: the model's, then stop when a chunk is ready
 * (or a Python error is set). */
#define EV_CB(name, fn) \
	static int \
	name(const dtc_event *ev, void *arg) \
	{ \
		EventsObject *x = arg; \
		int rc = fn(ev, x->model); \
		if (x->sink.error) \
			return STOP; \
		if (rc != 0) \
			return rc; \
		return PyList_GET_SIZE(x->sink.lines) >= CHUNK || \
		    x->made >= CHUNK_MADE ? STOP : 0; \
	}
EV_CB(ev_begin_, model_on_begin)
EV_CB(ev_probe_end, model_on_probe_end)
EV_CB(ev_agg, model_on_agg)
EV_CB(ev_drop, model_on_drop)
EV_CB(ev_error, model_on_error)
EV_CB(ev_notice, model_on_notice)
EV_CB(ev_end, model_on_end)

static PyObject *Events_header(EventsObject *self, void *closure);

/*
 * The capture's header line: the owner (a dtconsume.Capture) gets the
 * header dict now, so that the package yields this object's lines itself
 * and no Python-level iterator looks at every line for the header.
 */
static int
ev_begin(const dtc_event *ev, void *arg)
{
	EventsObject *x = arg;
	PyObject *h;

	if (x->owner != NULL && x->owner != Py_None) {
		if ((h = Events_header(x, NULL)) == NULL ||
		    PyObject_SetAttrString(x->owner, "header", h) != 0) {
			Py_XDECREF(h);
			x->sink.error = 1;
			return STOP;
		}
		Py_DECREF(h);
	}
	return ev_begin_(ev, arg);
}

static int
ev_probe(const dtc_event *ev, void *arg)
{
	return model_on_probe(ev, ((EventsObject *)arg)->model);
}

static int
ev_record(const dtc_event *ev, void *arg)
{
	EventsObject *x = arg;
	int rc = model_on_record(ev, x->model);

	return x->sink.error ? STOP : rc;
}

static int
ev_warn(const dtc_error *err, void *arg)
{
	EventsObject *x = arg;

	if (ext_note_capped(x->errors, &x->cap, err, x->mode == MODE_WARN) !=
	    0) {
		x->sink.error = 1;
		return STOP;
	}
	return 0;
}

/* A message cut at maxmsgsize (the emitter reports it once per
 * statement): a DecodeError among the others. */
static void
ev_report(const dtc_error *err, void *arg)
{
	EventsObject *x = arg;

	if (ext_note_capped(x->errors, &x->cap, err, x->mode == MODE_WARN) !=
	    0)
		x->sink.error = 1;
}

/*
 * The model stopped the capture (dtrace's "processing aborted": a record
 * it cannot render): where, from dtc_reader_consume, and why, from the model's
 * last line on its error stream, as one DecodeError.
 */
static int
ev_aborted(EventsObject *x, dtc_error *where)
{
	const char *why = "processing aborted", *p, *line;

	if (x->errfp != NULL && fflush(x->errfp) == 0 && x->errlen > 0) {
		if (x->errtext[x->errlen - 1] == '\n')
			x->errtext[x->errlen - 1] = '\0';
		line = (p = strrchr(x->errtext, '\n')) != NULL ? p + 1 :
		    x->errtext;
		if (strncmp(line, "dtrace: ", 8) == 0)
			line += 8;
		why = line;
	}
	where->code = strstr(why, "out of memory") != NULL ? DTC_E_NOMEM :
	    DTC_E_DMISMATCH;
	/* the words of dt2json's line (cmd/decode.c, report_stop) */
	snprintf(where->text, sizeof(where->text), "%s; %s", why,
	    where->cpu >= 0 ? "nothing after this record is decoded" :
	    "the decoding stopped after this item");
	return ext_note_error(x->errors, where, x->mode == MODE_WARN);
}

static const dtc_handler ev_handler = {
	.begin = ev_begin, .probe = ev_probe, .record = ev_record,
	.probe_end = ev_probe_end, .agg = ev_agg, .drop = ev_drop,
	.error = ev_error, .notice = ev_notice, .end = ev_end,
	.warn = ev_warn,
};

static int
Events_init(EventsObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "source", "temporal", "options", "name",
	    "errors", "select", "owner", NULL };
	PyObject *src, *options = NULL, *name = NULL, *mode = NULL;
	PyObject *sel = NULL, *owner = NULL;
	model_out *po, *oo;
	dtc_emitter_opts eo;
	int temporal = 0;
	dtc_error err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pOOOOO", kwlist, &src,
	    &temporal, &options, &name, &mode, &sel, &owner))
		return -1;
	if (self->r != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "Events already open");
		return -1;
	}
	Py_XSETREF(self->owner, Py_XNewRef(owner));
	if (parse_mode(mode, &self->mode) != 0)
		return -1;
	if ((self->errors = PyList_New(0)) == NULL ||
	    (self->sink.lines = PyList_New(0)) == NULL)
		return -1;
	ext_errcap_init(&self->cap);
	if (ext_source_init(&self->src, src, name) != 0)
		return -1;
	dtc_error_clear(&err);
	self->r = ext_source_reader(&self->src, temporal ? DTC_OPEN_TEMPORAL :
	    0, &err);
	if (self->r == NULL) {
		PyObject *e = ext_error_object(&err);

		if (e != NULL) {
			PyErr_SetObject(ext_DecodeError, e);
			Py_DECREF(e);
		}
		return -1;
	}
	if (ext_set_options(self->r, options) != 0 ||
	    ext_apply_select(self->r, ext_reader_select, sel) != 0)
		return -1;
	po = pyout_new(&self->sink);
	oo = pyout_new(&self->sink);
	if (po != NULL)
		pyout_count(po, &self->made);
	if (oo != NULL)
		pyout_count(oo, &self->made);
	memset(&eo, 0, sizeof(eo));
	if ((self->errfp = open_memstream(&self->errtext, &self->errlen)) ==
	    NULL) {
		PyErr_NoMemory();
		return -1;
	}
	eo.err = self->errfp;
	eo.report = ev_report;
	eo.report_arg = self;
	/* model_create frees the builders when it fails */
	if ((self->model = model_create(&eo, po, oo)) == NULL) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

/*
 * An Events object takes part in reference cycles: a DecodeError raised
 * from it carries a traceback whose frames hold the iterator, and the
 * iterator holds the error in .errors.  So the collector must see it.
 */
static int
Events_traverse(EventsObject *self, visitproc visit, void *arg)
{
	Py_VISIT(self->errors);
	Py_VISIT(self->sink.lines);
	Py_VISIT(self->src.keep);
	Py_VISIT(self->owner);
	return 0;
}

static int
Events_clear(EventsObject *self)
{
	Py_CLEAR(self->errors);
	Py_CLEAR(self->sink.lines);
	Py_CLEAR(self->owner);
	return 0;
}

static void
Events_dealloc(EventsObject *self)
{
	PyObject_GC_UnTrack(self);
	if (self->model != NULL)
		model_destroy(self->model);
	dtc_reader_close(self->r);
	ext_source_free(&self->src);
	if (self->errfp != NULL)
		fclose(self->errfp);
	free(self->errtext);
	Py_XDECREF(self->sink.lines);
	Py_XDECREF(self->errors);
	Py_XDECREF(self->owner);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Decode until at least one line is waiting or the reader ended. */
static int
fill(EventsObject *self)
{
	int rc;

	if (PyList_GET_SIZE(self->sink.lines) > 0 &&
	    PyList_SetSlice(self->sink.lines, 0,
	    PyList_GET_SIZE(self->sink.lines), NULL) != 0)
		return -1;
	self->pos = 0;
	self->made = 0;
	while (!self->done && PyList_GET_SIZE(self->sink.lines) == 0) {
		dtc_error where;

		rc = dtc_reader_consume(self->r, &ev_handler, self, &where);
		if (self->sink.error)
			return -1;
		if (rc == DTC_EMIT_ABORT && ev_aborted(self, &where) != 0)
			return -1;
		if (rc != STOP)
			self->done = 1;   /* DTC_OK: the end; fatal; aborted */
	}
	return 0;
}

static void
release(EventsObject *self)
{
	if (self->model != NULL)
		model_destroy(self->model);
	self->model = NULL;
	dtc_reader_close(self->r);
	self->r = NULL;
	ext_source_free(&self->src);
	if (self->errfp != NULL)
		fclose(self->errfp);
	self->errfp = NULL;
	free(self->errtext);
	self->errtext = NULL;
	self->errlen = 0;
}

static PyObject *
Events_next(EventsObject *self)
{
	PyObject *line;

	if (self->over)
		return NULL;
	if (self->r == NULL || self->sink.lines == NULL ||
	    self->errors == NULL) {
		PyErr_SetString(PyExc_ValueError, "Events is not open");
		return NULL;
	}
	if (self->pos >= PyList_GET_SIZE(self->sink.lines)) {
		if (fill(self) != 0)
			return NULL;
		if (PyList_GET_SIZE(self->sink.lines) == 0) {
			self->over = 1;
			/* the reader is done: its memory goes now, not when the
			 * collector breaks the cycle a raised error makes */
			release(self);
			if (ext_errcap_end(self->errors, &self->cap,
			    self->mode == MODE_WARN) != 0)
				return NULL;
			if (self->mode == MODE_RAISE &&
			    PyList_GET_SIZE(self->errors) > 0)
				return ext_raise_errors(self->errors);
			return NULL;
		}
	}
	line = PyList_GET_ITEM(self->sink.lines, self->pos);
	self->pos++;
	return Py_NewRef(line);
}

static PyObject *
Events_close(EventsObject *self, PyObject *unused)
{
	(void)unused;
	release(self);
	self->over = 1;
	Py_RETURN_NONE;
}

static PyObject *
Events_header(EventsObject *self, void *closure)
{
	const dtc_header *h;

	(void)closure;
	if (self->r == NULL || (h = dtc_reader_header(self->r)) == NULL ||
	    h->flavor == NULL)
		Py_RETURN_NONE;
	return Py_BuildValue("{s:(ii),s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:s}",
	    "version", h->version_major, h->version_minor,
	    "byteorder", h->big_endian ? "big" : "little",
	    "model", h->ilp32 ? "ILP32" : "LP64",
	    "os", h->os, "release", h->release, "host", h->host,
	    "producer", h->producer, "ncpu", h->ncpu,
	    "dt_act_base", h->dt_act_base, "flavor", h->flavor);
}

static PyMemberDef Events_members[] = {
	{ "errors", T_OBJECT_EX, offsetof(EventsObject, errors), READONLY,
	  "the DecodeErrors so far (something was skipped)" },
	{ NULL, 0, 0, 0, NULL }
};

static PyGetSetDef Events_getset[] = {
	{ "header", (getter)Events_header, NULL,
	  "the capture's header (after the first event), or None", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyMethodDef Events_methods[] = {
	{ "close", (PyCFunction)Events_close, METH_NOARGS,
	  "close the capture" },
	{ NULL, NULL, 0, NULL }
};

static PyTypeObject EventsType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "dtconsume._dtconsume.Events",
	.tp_basicsize = sizeof(EventsObject),
	.tp_dealloc = (destructor)Events_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_traverse = (traverseproc)Events_traverse,
	.tp_clear = (inquiry)Events_clear,
	.tp_doc = "Events(source, temporal=False, options=None, name=None, "
	    "errors='raise', select=None, owner=None): a capture's events as "
	    "dt2json's dicts (owner.header is set at the header line)",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)Events_next,
	.tp_methods = Events_methods,
	.tp_members = Events_members,
	.tp_getset = Events_getset,
	.tp_init = (initproc)Events_init,
	.tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------ module */

static PyObject *
version(PyObject *m, PyObject *unused)
{
	(void)m;
	(void)unused;
	return PyUnicode_FromString(dtc_version_string());
}

static PyMethodDef methods[] = {
	{ "version", version, METH_NOARGS, "libdtconsume's version" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "_dtconsume",
	"libdtconsume for Python (see the dtconsume package)", -1, methods,
	NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__dtconsume(void);

PyMODINIT_FUNC
PyInit__dtconsume(void)
{
	PyObject *m = PyModule_Create(&moddef);

	if (m == NULL)
		return NULL;
	ext_DecodeError = PyErr_NewExceptionWithDoc(
	    "dtconsume.DecodeError",
	    "A capture could not be decoded in full: file, item, cpu, offset "
	    "(None when they do not apply), code and text say where and why; "
	    "errors lists every problem of the run.", NULL, NULL);
	if (ext_DecodeError == NULL ||
	    PyModule_AddObjectRef(m, "DecodeError", ext_DecodeError) != 0 ||
	    PyType_Ready(&EventsType) != 0 ||
	    PyModule_AddObjectRef(m, "Events", (PyObject *)&EventsType) != 0 ||
	    ext_columns_init(m) != 0 ||
	    PyModule_AddFunctions(m, ext_agg_methods) != 0 ||
	    PyModule_AddFunctions(m, ext_render_methods) != 0 ||
	    PyModule_AddFunctions(m, ext_program_methods) != 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
