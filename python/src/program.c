/*
 * program.c - program(source, name=None) -> dict or None: the program
 * item of a capture (dtc_program_read_file(3)) for Capture.program: the
 * sources, options and macro arguments as given to dtsnap record, and
 * the clause listing of dtrace -S ("listing", None when the capture
 * cannot give it).  None when the capture has no program item; a
 * damaged item raises DecodeError.
 */
#include "ext.h"

static PyObject *
text(const char *s, size_t len)
{
	/* D source is the user's bytes: never fail on them */
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "surrogateescape");
}

static PyObject *
opt_dict(char opt, const char *arg, const char *txt, size_t len)
{
	char o[2] = { opt, '\0' };

	if (txt != NULL)
		return Py_BuildValue("{s:s,s:N,s:N}", "opt", o, "arg",
		    text(arg, strlen(arg)), "text", text(txt, len));
	if (arg != NULL)
		return Py_BuildValue("{s:s,s:N}", "opt", o, "arg",
		    text(arg, strlen(arg)));
	return Py_BuildValue("{s:s,s:O}", "opt", o, "arg", Py_None);
}

static PyObject *
to_dict(const dtc_program *p)
{
	PyObject *d = NULL, *srcs, *opts, *macs, *listing = Py_None;
	dtc_error err;
	dtc_buf b;
	size_t i;

	srcs = PyList_New(0);
	opts = PyList_New(0);
	macs = PyList_New(0);
	if (srcs == NULL || opts == NULL || macs == NULL)
		goto out;
	for (i = 0; i < p->nsources; i++) {
		const dtc_prog_source *s = &p->sources[i];
		PyObject *o = opt_dict(s->opt, s->arg, s->text, s->len);

		if (o == NULL || PyList_Append(srcs, o) != 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	for (i = 0; i < p->noptions; i++) {
		PyObject *o = opt_dict(p->options[i].opt, p->options[i].arg,
		    NULL, 0);

		if (o == NULL || PyList_Append(opts, o) != 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	for (i = 0; i < p->nmacros; i++) {
		PyObject *o = text(p->macros[i], strlen(p->macros[i]));

		if (o == NULL || PyList_Append(macs, o) != 0) {
			Py_XDECREF(o);
			goto out;
		}
		Py_DECREF(o);
	}
	dtc_buf_init(&b);
	if (p->has_abi && dtc_program_disasm(p, &b, &err) == DTC_OK)
		listing = text(b.s != NULL ? b.s : "", b.len);
	else
		listing = Py_NewRef(Py_None);
	dtc_buf_free(&b);
	if (listing == NULL)
		goto out;
	d = Py_BuildValue("{s:O,s:O,s:O,s:n,s:N}", "sources", srcs,
	    "options", opts, "macros", macs, "clauses",
	    (Py_ssize_t)p->nclauses, "listing", listing);
out:
	Py_XDECREF(srcs);
	Py_XDECREF(opts);
	Py_XDECREF(macs);
	return d;
}

static PyObject *
program(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "source", "name", NULL };
	PyObject *src, *name = NULL, *res = NULL, *e;
	dtc_program *p = NULL;
	dtc_error err;
	source s;
	int rc;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &src, &name))
		return NULL;
	if (ext_source_init(&s, src, name) != 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	if (s.kind == SRC_PATH)
		rc = dtc_program_read_file(PyBytes_AS_STRING(s.path), &p, &err);
	else if (s.kind == SRC_FD)
		rc = dtc_program_read_fd(s.fd, s.name, &p, &err);
	else
		rc = dtc_program_read_memory(s.view.buf, (size_t)s.view.len,
		    s.name, &p, &err);
	Py_END_ALLOW_THREADS
	if (rc == DTC_OK)
		res = to_dict(p);
	else if (rc == DTC_EOF)
		res = Py_NewRef(Py_None);
	else if ((e = ext_error_object(&err)) != NULL) {
		PyErr_SetObject(ext_DecodeError, e);
		Py_DECREF(e);
	}
	dtc_program_free(p);
	ext_source_free(&s);
	return res;
}

PyMethodDef ext_program_methods[] = {
	{ "program", (PyCFunction)(void (*)(void))program,
	  METH_VARARGS | METH_KEYWORDS,
	  "program(source, name=None): the capture's program item as a dict "
	  "(sources, options, macros, clauses, listing), or None" },
	{ NULL, NULL, 0, NULL }
};
