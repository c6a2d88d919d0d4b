/*
 * pyout.c - a builder of formats/model.h that makes Python objects.
 *
 * formats/model.c turns events into the data model that dt2json writes
 * as JSON; json.c is one builder of it, this is another: maps become
 * dicts, arrays lists, integers ints, text str, byte data bytes, null
 * None.  So the dicts the Python iterator yields are dt2json's lines by
 * construction, with the differences of the encoding only: integers are
 * ints at any size (JSON writes those past 2^53 as strings), addresses
 * ints (JSON: "0x..." strings), byte data bytes (JSON: hex).  Text that
 * is not UTF-8 is read as Latin-1, as json.c does.  Containers nested
 * deeper than json.c's limit are dropped as json.c drops them.
 *
 * Keys and short texts repeat on every line: small caches by their bytes
 * keep one str for each (keys interned, as dict keys are).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <string.h>

#include "pyout.h"

#define MAXDEPTH 64          /* json.c's MAXDEPTH */
#define NKEYS 512            /* key cache slots (a power of two) */
#define NSTRS 1024           /* short text cache slots */
#define SHORT PYOUT_SHORT

typedef struct pyout {
	model_out base;
	PyObject *stack[MAXDEPTH];   /* open containers (borrowed: each is
	                              * owned by its parent or by line) */
	int depth;
	int deep;                    /* containers opened past MAXDEPTH */
	PyObject *key;               /* the pending key (borrowed) */
	int keydrop;                 /* the pending member is dropped */
	PyObject *line;              /* the line being built (owned) */
	PyObject *longkey;           /* a key too long for the cache */
	pyout_sink *sink;
	/* the same texts come on every line (keys, type and action names,
	 * probe names, execnames): one str each, looked up by their bytes */
	struct pyout_strslot keys[NKEYS];
	struct pyout_strslot strs[NSTRS];
} pyout;

/* UTF-8 text as str; text that is not UTF-8 (capture bytes are
 * arbitrary) is read as Latin-1, as the JSON writer keeps it. */
static PyObject *
text(const char *s, size_t n)
{
	PyObject *v = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, NULL);

	if (v == NULL) {
		PyErr_Clear();
		v = PyUnicode_DecodeLatin1(s, (Py_ssize_t)n, NULL);
	}
	return v;
}

/*
 * A slot for s: keys by their address (model.c's keys are literals, so
 * one key always lands in one slot), texts by their length and first and
 * last eight bytes.  Either way the slot's bytes are compared before its
 * str is reused, so a collision costs a miss, never a wrong str.
 */
static size_t
slot_of(const char *s, size_t n, int bykey)
{
	uint64_t a = 0, b = 0, h;

	if (bykey)
		return (size_t)(((uintptr_t)s >> 3) ^ (n * 0x9e3779b9u));
	memcpy(&a, s, n < 8 ? n : 8);
	if (n > 8)
		memcpy(&b, s + n - 8, 8);
	h = (a * 0x9e3779b97f4a7c15ULL) ^ ((b + n) * 0xc2b2ae3d27d4eb4fULL);
	return (size_t)(h ^ (h >> 31));
}

/* A str for s (a new reference), from the cache when it is short. */
static PyObject *
cached(struct pyout_strslot *tab, size_t nslots, const char *s, size_t n,
    int intern)
{
	struct pyout_strslot *e;
	PyObject *v;

	if (n > SHORT)
		return text(s, n);
	e = &tab[slot_of(s, n, intern) & (nslots - 1)];
	/* a key at the same address is the same key: model.c's keys are
	 * literals, or CTF member names, which do not change while the
	 * reader (and so this builder) lives */
	if (e->s != NULL && e->n == n && ((intern && e->p == s) ||
	    memcmp(e->b, s, n) == 0)) {
		if (e->hits < 3)
			e->hits++;
		return Py_NewRef(e->s);
	}
	if ((v = text(s, n)) == NULL)
		return NULL;
	if (intern)
		PyUnicode_InternInPlace(&v);
	/* a text seen once (a printf message, a count) must not evict one
	 * that repeats (a probe or execname): a slot that was hit is taken
	 * only after as many misses */
	else if (e->s != NULL && e->hits > 0) {
		e->hits--;
		return v;
	}
	Py_XSETREF(e->s, Py_NewRef(v));
	e->p = s;
	e->n = n;
	e->hits = 0;
	memcpy(e->b, s, n);
	return v;
}

PyObject *
pyout_text(struct pyout_strslot *tab, size_t nslots, const char *s, size_t n)
{
	return cached(tab, nslots, s, n, 0);
}

void
pyout_text_free(struct pyout_strslot *tab, size_t nslots)
{
	size_t i;

	for (i = 0; i < nslots; i++)
		Py_CLEAR(tab[i].s);
}

static void
fail(pyout *o)
{
	o->sink->error = 1;
}

/* Put v (a new reference) where the next value goes. */
static void
put(pyout *o, PyObject *v)
{
	PyObject *parent;

	if (v == NULL) {
		fail(o);
		return;
	}
	if (o->deep > 0 || o->sink->error) {
		Py_DECREF(v);
		return;
	}
	if (o->depth == 0) {
		Py_XDECREF(o->line);
		o->line = v;
		return;
	}
	parent = o->stack[o->depth - 1];
	if (PyDict_Check(parent)) {
		/* keys are str: an interned one has its hash already */
		Py_hash_t h = o->key != NULL ?
		    ((PyASCIIObject *)o->key)->hash : -1;

		if (o->key != NULL && !o->keydrop && (h != -1 ?
		    _PyDict_SetItem_KnownHash(parent, o->key, v, h) :
		    PyDict_SetItem(parent, o->key, v)) != 0)
			fail(o);
		o->key = NULL;
		o->keydrop = 0;
	} else if (PyList_Append(parent, v) != 0) {
		fail(o);
	}
	Py_DECREF(v);
}

static void
open_c(pyout *o, int map)
{
	PyObject *c;

	if (o->deep > 0 || o->depth >= MAXDEPTH) {
		o->deep++;
		return;
	}
	/* a line (the top map) has a dozen members or more: made at its
	 * size, it is not grown twice on the way */
	if (map && o->depth == 0)
		c = _PyDict_NewPresized(16);
	else
		c = map ? PyDict_New() : PyList_New(0);
	if (c == NULL) {
		fail(o);
		o->deep++;
		return;
	}
	Py_INCREF(c);          /* one for the parent, one kept on the stack */
	put(o, c);
	if (o->sink->error) {
		Py_DECREF(c);
		o->deep++;
		return;
	}
	o->stack[o->depth++] = c;
	Py_DECREF(c);          /* the parent (or o->line) holds it now */
}

static void
close_c(model_out *mo)
{
	pyout *o = (pyout *)mo;

	if (o->deep > 0) {
		o->deep--;
		return;
	}
	if (o->depth > 0)
		o->depth--;
}

static void map_begin(model_out *o) { open_c((pyout *)o, 1); }
static void arr_begin(model_out *o) { open_c((pyout *)o, 0); }

static void
key(model_out *mo, const char *k, size_t n)
{
	pyout *o = (pyout *)mo;
	PyObject *v;

	struct pyout_strslot *e;

	if (o->deep > 0)
		return;
	/* the key at the address it had last time (model.c's keys are
	 * literals): its str, borrowed from the cache, with no reference
	 * taken and dropped (a line has 25 keys or so) */
	e = &o->keys[slot_of(k, n, 1) & (NKEYS - 1)];
	if (e->p == k && e->n == n && e->s != NULL) {
		o->key = e->s;
		o->keydrop = 0;
		return;
	}
	/* the cache holds a reference: o->key may be borrowed from it, as
	 * the key is used before the next cache lookup */
	if ((v = cached(o->keys, NKEYS, k, n, 1)) == NULL) {
		o->key = NULL;
		fail(o);
		return;
	}
	if (n > SHORT) {
		/* not cached: keep it alive until it is used */
		Py_XSETREF(o->longkey, v);
		o->key = v;
	} else {
		o->key = v;
		Py_DECREF(v);
	}
	o->keydrop = 0;
}

static void
i64(model_out *o, int64_t v)
{
	put((pyout *)o, PyLong_FromLongLong(v));
}

static void
u64(model_out *o, uint64_t v)
{
	put((pyout *)o, PyLong_FromUnsignedLongLong(v));
}

static void
addr(model_out *o, uint64_t v)
{
	put((pyout *)o, PyLong_FromUnsignedLongLong(v));
}

static void
u128(model_out *o, uint64_t hi, uint64_t lo)
{
	unsigned char b[16];
	int i;

	for (i = 0; i < 8; i++) {
		b[i] = (unsigned char)(lo >> (8 * i));
		b[8 + i] = (unsigned char)(hi >> (8 * i));
	}
	put((pyout *)o, _PyLong_FromByteArray(b, 16, 1, 0));
}

static void
str(model_out *mo, const char *s, size_t len)
{
	pyout *o = (pyout *)mo;

	put(o, cached(o->strs, NSTRS, s, len, 0));
}

static void
bytes(model_out *o, const void *p, size_t len)
{
	put((pyout *)o, PyBytes_FromStringAndSize(p, (Py_ssize_t)len));
}

static void
dbl(model_out *mo, double v)
{
	pyout *o = (pyout *)mo;

	/* JSON has no NaN: json.c's member is dropped, so is this one */
	if (isnan(v)) {
		o->keydrop = 1;
		put(o, Py_NewRef(Py_None));
		return;
	}
	put(o, PyFloat_FromDouble(v));
}

static void
null(model_out *o)
{
	put((pyout *)o, Py_NewRef(Py_None));
}

static void
boolean(model_out *o, int v)
{
	put((pyout *)o, PyBool_FromLong(v));
}

/* No encoded bytes to reuse: model.c then builds every member. */
static const void *
so_far(model_out *o, size_t *n)
{
	(void)o;
	*n = 0;
	return NULL;
}

static void
raw(model_out *o, const void *p, size_t n)
{
	(void)o;
	(void)p;
	(void)n;
}

static int
line_end(model_out *mo)
{
	pyout *o = (pyout *)mo;
	PyObject *line = o->line;

	o->line = NULL;
	o->depth = 0;
	o->deep = 0;
	o->key = NULL;
	if (line == NULL)
		return 0;
	if (!o->sink->error && PyList_Append(o->sink->lines, line) != 0)
		fail(o);
	Py_DECREF(line);
	return 0;
}

static void
pfree(model_out *mo)
{
	pyout *o = (pyout *)mo;

	Py_XDECREF(o->line);
	Py_XDECREF(o->longkey);
	pyout_text_free(o->keys, NKEYS);
	pyout_text_free(o->strs, NSTRS);
	PyMem_Free(o);
}

static const model_ops ops = {
	map_begin, close_c, arr_begin, close_c, key, i64, u64, addr, u128,
	str, bytes, dbl, null, boolean, so_far, raw, line_end, pfree,
};

model_out *
pyout_new(pyout_sink *sink)
{
	pyout *o = PyMem_Calloc(1, sizeof(*o));

	if (o == NULL)
		return NULL;
	o->base.ops = &ops;
	o->base.fp = NULL;
	o->sink = sink;
	return &o->base;
}
