/*
 * render.c - render(source, format, ...) -> str or None: a capture in one
 * of dtconsume's output formats (formats/registry.c), for the picture
 * formats of Capture.to_flamegraph(), to_speedscope() and
 * to_trace_event().
 *
 * Given an open descriptor (fd), the emitter writes there as it goes:
 * trace-event streams, so a large capture stays flat in memory; without
 * one the output is built in memory and returned as a str.  Messages the
 * emitter writes for the error stream (drops, as dtrace says them) are
 * not kept: the formats that show them do so in their output.  Decoding
 * problems are DecodeErrors, handled by errors= as for events().
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emitter.h"
#include "ext.h"

static PyObject *
render(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "source", "format", "fd", "temporal",
	    "options", "name", "errors", "select", "folded_keys", NULL };
	PyObject *src, *options = NULL, *name = NULL, *sel = NULL;
	PyObject *errors = NULL, *res = NULL;
	const char *fmt, *mode = "raise";
	int fd = -1, temporal = 0, rc;
	unsigned long long keys = 0;
	const dtc_emitter *em;
	dtc_emitter_opts eo;
	dtc_reader *r = NULL;
	char *buf = NULL, *ebuf = NULL;
	size_t len = 0, elen = 0;
	FILE *out = NULL, *errf = NULL;
	dtc_error err;
	source s;
	void *st = NULL;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "Os|ipOOzOK", kwlist, &src,
	    &fmt, &fd, &temporal, &options, &name, &mode, &sel, &keys))
		return NULL;
	if (mode == NULL)
		mode = "raise";
	if (strcmp(mode, "raise") != 0 && strcmp(mode, "warn") != 0 &&
	    strcmp(mode, "ignore") != 0) {
		PyErr_Format(PyExc_ValueError, "errors must be 'raise', 'warn' "
		    "or 'ignore', not '%s'", mode);
		return NULL;
	}
	if ((em = dtc_emitter_find(fmt)) == NULL) {
		PyErr_Format(PyExc_ValueError, "unknown output format '%s'",
		    fmt);
		return NULL;
	}
	if (ext_source_init(&s, src, name) != 0)
		return NULL;
	dtc_error_clear(&err);
	if ((r = ext_source_reader(&s, temporal ? DTC_OPEN_TEMPORAL : 0,
	    &err)) == NULL) {
		PyObject *e = ext_error_object(&err);

		if (e != NULL) {
			PyErr_SetObject(ext_DecodeError, e);
			Py_DECREF(e);
		}
		goto done;
	}
	if (ext_set_options(r, options) != 0 ||
	    ext_apply_select(r, ext_reader_select, sel) != 0)
		goto done;
	if ((errors = PyList_New(0)) == NULL)
		goto done;
	if (fd >= 0) {
		int d = dup(fd);

		if (d < 0 || (out = fdopen(d, "w")) == NULL) {
			if (d >= 0)
				close(d);
			PyErr_SetFromErrno(PyExc_OSError);
			goto done;
		}
	} else {
		out = open_memstream(&buf, &len);
	}
	errf = open_memstream(&ebuf, &elen);
	memset(&eo, 0, sizeof(eo));
	eo.out = out;
	eo.err = errf;
	eo.folded_keys = keys;
	if (out == NULL || errf == NULL || (st = em->create(&eo)) == NULL) {
		PyErr_NoMemory();
		goto done;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = dtc_reader_consume(r, &em->handler, st, &err);
	Py_END_ALLOW_THREADS
	if (rc != DTC_OK && rc != DTC_EOF && err.code != DTC_E_NONE &&
	    ext_note_error(errors, &err, strcmp(mode, "warn") == 0) != 0)
		goto done;
	rc = em->destroy(st);
	st = NULL;
	if (fflush(out) != 0 || rc != 0) {
		PyErr_SetString(PyExc_OSError, "the output could not be written");
		goto done;
	}
	if (PyList_GET_SIZE(errors) > 0 && strcmp(mode, "raise") == 0) {
		ext_raise_errors(errors);
		goto done;
	}
	if (fd >= 0)
		res = Py_NewRef(Py_None);
	else
		res = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len,
		    "surrogateescape");
done:
	if (st != NULL)
		em->destroy(st);
	if (out != NULL)
		fclose(out);
	if (errf != NULL)
		fclose(errf);
	free(buf);
	free(ebuf);
	Py_XDECREF(errors);
	if (r != NULL)
		dtc_reader_close(r);
	ext_source_free(&s);
	return res;
}

PyMethodDef ext_render_methods[] = {
	{ "render", (PyCFunction)(void (*)(void))render,
	    METH_VARARGS | METH_KEYWORDS,
	    "render(source, format, fd=-1, ...): the capture in an output "
	    "format of dtconsume (-f), as a str, or written to fd" },
	{ NULL, NULL, 0, NULL }
};
