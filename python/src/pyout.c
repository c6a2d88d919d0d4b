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
 *
 * Templates (model.h, map_tmpl and same): most of a probe line is the
 * same on every firing of an enabled probe (type, epid, id, provider,
 * module, function, name, probe; each record's act, size and format;
 * each printf argument's size).  The first map of a tag is built member
 * by member and recorded: its keys in order, which were constant and
 * with what check.  It is kept as a template, a dict of the constant
 * values with None where the others go; the next map of the tag starts
 * as a copy of it (PyDict_Copy of a compact dict copies its table at
 * once) and only the other members are set, in place.  Every key is
 * checked against the template's order: where a map departs from it (a
 * message cut at the cap adds "truncated", a payload is "bytes" this
 * time), the template's members from there on are deleted, the rest is
 * added member by member, and that map is recorded as the new template.
 * So a map is always exactly what the members written make it.
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
#define TBITS 12
#define NTMPL (1 << TBITS)   /* template slots, two ways */
#define TMEMBERS 24          /* members of a template at most */
#define MAXMISS 16           /* departures in a row before a tag is left
                              * to be built member by member */

typedef struct tmember {
	const char *k;          /* the key as model.c gave it */
	size_t kn;
	PyObject *ks;           /* its str (owned) */
	uint64_t check;         /* a constant member's check */
	int isconst;
} tmember;

typedef struct tmpl {
	const void *a, *b;      /* the tag */
	PyObject *d;            /* the template; NULL: none (yet) */
	int n;                  /* members recorded */
	int busy;               /* an open map copies or records it */
	int used;               /* a, b are a tag */
	unsigned misses;        /* departures since the last clean copy */
	uint64_t stamp;         /* its last use: the older of two goes */
	tmember *m;             /* TMEMBERS, made at the first use */
} tmpl;

enum { L_PLAIN, L_COPY, L_REC };

/* an open container */
typedef struct level {
	PyObject *c;            /* borrowed: owned by its parent or by line */
	tmpl *t;                /* L_COPY, L_REC: its template */
	int mode;
	int pos;                /* L_COPY: the template member due next */
	int pconst;             /* L_REC: same() recorded the member due */
} level;

typedef struct pyout {
	model_out base;
	level stack[MAXDEPTH];       /* open containers */
	int depth;
	int deep;                    /* containers opened past MAXDEPTH */
	PyObject *key;               /* the pending key (borrowed) */
	int keydrop;                 /* the pending member is dropped */
	PyObject *line;              /* the line being built (owned) */
	PyObject *longkey;           /* a key too long for the cache */
	pyout_sink *sink;
	size_t *made;                /* containers made (pyout_count) */
	size_t nomade;
	tmpl *tmpls;                 /* NTMPL slots, made at the first use */
	uint64_t clock;              /* template uses */
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

static void drop_member(pyout *o, struct level *l);

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
	parent = o->stack[o->depth - 1].c;
	if (o->keydrop && o->stack[o->depth - 1].mode != L_PLAIN)
		drop_member(o, &o->stack[o->depth - 1]);
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

/* Put the new container c (a new reference) where the next value goes
 * and open it; NULL: a failure. */
static level *
push(pyout *o, PyObject *c)
{
	level *l;

	if (c == NULL) {
		fail(o);
		o->deep++;
		return NULL;
	}
	Py_INCREF(c);          /* one for the parent, one kept on the stack */
	put(o, c);
	if (o->sink->error) {
		Py_DECREF(c);
		o->deep++;
		return NULL;
	}
	(*o->made)++;
	l = &o->stack[o->depth++];
	l->c = c;
	l->t = NULL;
	l->mode = L_PLAIN;
	Py_DECREF(c);          /* the parent (or o->line) holds it now */
	return l;
}

static void
open_c(pyout *o, int map)
{
	if (o->deep > 0 || o->depth >= MAXDEPTH) {
		o->deep++;
		return;
	}
	/* a line (the top map) has a dozen members or more: made at its
	 * size, it is not grown twice on the way */
	if (map && o->depth == 0)
		push(o, _PyDict_NewPresized(16));
	else
		push(o, map ? PyDict_New() : PyList_New(0));
}

static void map_begin(model_out *o) { open_c((pyout *)o, 1); }
static void arr_begin(model_out *o) { open_c((pyout *)o, 0); }

/* ------------------------------------------------------------ templates */

static void
tmembers_clear(tmpl *t, int from)
{
	int i;

	for (i = from; i < t->n; i++)
		Py_CLEAR(t->m[i].ks);
	if (t->n > from)
		t->n = from;
}

static void
tclear(tmpl *t)
{
	tmembers_clear(t, 0);
	Py_CLEAR(t->d);
}

static void
forget(model_out *mo)
{
	pyout *o = (pyout *)mo;
	int i;

	if (o->tmpls == NULL)
		return;
	for (i = 0; i < NTMPL; i++) {
		tclear(&o->tmpls[i]);
		o->tmpls[i].used = 0;
		o->tmpls[i].misses = 0;
	}
}

static tmpl *
tslot(pyout *o, const void *a, const void *b)
{
	uint64_t h = ((uint64_t)(uintptr_t)a ^
	    (uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4fULL) *
	    0x9e3779b97f4a7c15ULL;

	tmpl *t;

	/* the top bits, which depend on every bit of the tag; a tag may
	 * be in either slot of its pair (a probe line's, its records' and
	 * their arguments' tags are a few hundred at once on a busy
	 * script) */
	t = &o->tmpls[(h >> (64 - TBITS)) & ~(uint64_t)1];
	if (t[1].used && t[1].a == a && t[1].b == b)
		t++;
	else if (!(t->used && t->a == a && t->b == b) &&
	    t[1].stamp < t->stamp)
		t++;
	t->stamp = ++o->clock;
	return t;
}

/* The map departs from its template at member l->pos: the copy's
 * members from there on go, and what follows is recorded. */
static void
depart(level *l)
{
	tmpl *t = l->t;
	int i;

	for (i = l->pos; i < t->n; i++)
		if (PyDict_DelItem(l->c, t->m[i].ks) != 0)
			PyErr_Clear();  /* a dropped member's is gone */
	tmembers_clear(t, l->pos);
	Py_CLEAR(t->d);
	l->mode = L_REC;
	l->pconst = 0;
	if (++t->misses > MAXMISS) {
		/* that tag's maps vary too much to gain from one */
		tmembers_clear(t, 0);
		t->busy = 0;
		l->mode = L_PLAIN;
	}
}

/* This map is built member by member, and no template is kept of it. */
static void
untemplate(level *l)
{
	tclear(l->t);
	l->t->busy = 0;
	l->mode = L_PLAIN;
}

/* A member whose value is dropped (NaN) after its key was taken. */
static void
drop_member(pyout *o, struct level *l)
{
	if (l->mode == L_COPY) {
		/* the copy's placeholder goes, the rest stay in order */
		if (o->key != NULL && PyDict_DelItem(l->c, o->key) != 0)
			PyErr_Clear();
		depart(l);
	}
	if (l->mode != L_PLAIN)
		untemplate(l);
}

static void
map_tmpl(model_out *mo, const void *a, const void *b)
{
	pyout *o = (pyout *)mo;
	tmpl *t;
	level *l;

	if (o->deep > 0 || o->depth >= MAXDEPTH || o->sink->error ||
	    (o->tmpls == NULL &&
	    (o->tmpls = PyMem_Calloc(NTMPL, sizeof(tmpl))) == NULL)) {
		open_c(o, 1);
		return;
	}
	t = tslot(o, a, b);
	if (t->busy) {
		/* its slot serves an open map (a collision) */
		open_c(o, 1);
		return;
	}
	if (t->used && t->a == a && t->b == b) {
		if (t->d != NULL) {
			if ((l = push(o, PyDict_Copy(t->d))) != NULL) {
				l->t = t;
				l->mode = L_COPY;
				l->pos = 0;
				t->busy = 1;
			}
			return;
		}
		if (t->misses > MAXMISS) {
			open_c(o, 1);
			return;
		}
	} else {
		tclear(t);
		t->a = a;
		t->b = b;
		t->used = 1;
		t->misses = 0;
	}
	if (t->m == NULL &&
	    (t->m = PyMem_Malloc(TMEMBERS * sizeof(tmember))) == NULL) {
		t->used = 0;
		open_c(o, 1);
		return;
	}
	tmembers_clear(t, 0);
	open_c(o, 1);
	if (o->deep > 0)
		return;
	l = &o->stack[o->depth - 1];
	l->t = t;
	l->mode = L_REC;
	l->pconst = 0;
	t->busy = 1;
}

/* Record the next member of l's map (L_REC); 0: no room, and l is
 * plain now. */
static int
record(level *l, const char *k, size_t kn, PyObject *ks, uint64_t check,
    int isconst)
{
	tmpl *t = l->t;
	tmember *e;

	if (t->n >= TMEMBERS) {
		untemplate(l);
		return 0;
	}
	e = &t->m[t->n++];
	e->k = k;
	e->kn = kn;
	e->ks = Py_XNewRef(ks);
	e->check = check;
	e->isconst = isconst;
	return 1;
}

static int
same(model_out *mo, const char *k, size_t n, uint64_t check)
{
	pyout *o = (pyout *)mo;
	level *l;
	tmember *e;

	if (o->deep > 0 || o->depth == 0)
		return 0;
	l = &o->stack[o->depth - 1];
	switch (l->mode) {
	case L_COPY:
		e = &l->t->m[l->pos];
		if (l->pos < l->t->n && e->isconst && e->k == k &&
		    e->kn == n && e->check == check) {
			l->pos++;
			return 1;
		}
		depart(l);
		if (l->mode != L_REC)
			return 0;
		/* FALLTHROUGH */
	case L_REC:
		if (record(l, k, n, NULL, check, 1))
			l->pconst = 1;
		return 0;
	default:
		return 0;
	}
}

/* The map of l closes: a copy that had every member of its template
 * is done; a recorded one becomes its tag's template. */
static void
tmpl_close(level *l)
{
	tmpl *t = l->t;
	PyObject *d, *v;
	int i;

	if (l->mode == L_COPY) {
		if (l->pos == t->n) {
			t->misses = 0;
			t->busy = 0;
			return;
		}
		depart(l);
		if (l->mode != L_REC)
			return;
	}
	t->busy = 0;
	/* made afresh, not copied from the map: a dict of str keys only,
	 * filled from empty, has CPython's compact table of str keys (a
	 * third smaller than the table of a presized dict), and the copies
	 * of it have it too */
	if ((d = PyDict_New()) == NULL) {
		PyErr_Clear();  /* no template: a slower map, no error */
		tclear(t);
		return;
	}
	for (i = 0; i < t->n; i++) {
		if (t->m[i].ks == NULL) {
			/* a member same() announced that never came */
			Py_DECREF(d);
			tclear(t);
			return;
		}
		v = t->m[i].isconst ? PyDict_GetItemWithError(l->c,
		    t->m[i].ks) : Py_None;
		if (v == NULL || PyDict_SetItem(d, t->m[i].ks, v) != 0) {
			PyErr_Clear();
			Py_DECREF(d);
			tclear(t);
			return;
		}
	}
	if (PyDict_GET_SIZE(d) != t->n) {
		Py_DECREF(d);
		tclear(t);
		return;
	}
	t->d = d;
}

static void
close_c(model_out *mo)
{
	pyout *o = (pyout *)mo;
	level *l;

	if (o->deep > 0) {
		o->deep--;
		return;
	}
	if (o->depth == 0)
		return;
	l = &o->stack[--o->depth];
	if (l->mode != L_PLAIN && !o->sink->error)
		tmpl_close(l);
	else if (l->t != NULL)
		l->t->busy = 0;
}

static void key_plain(pyout *o, const char *k, size_t n);

static void
key(model_out *mo, const char *k, size_t n)
{
	pyout *o = (pyout *)mo;

	if (o->deep > 0)
		return;
	if (o->depth > 0 && o->stack[o->depth - 1].mode != L_PLAIN) {
		level *l = &o->stack[o->depth - 1];
		tmember *m = &l->t->m[l->pos];

		/* the template's next member: its str is the key's */
		if (l->mode == L_COPY && l->pos < l->t->n && !m->isconst &&
		    m->k == k && m->kn == n) {
			l->pos++;
			o->key = m->ks;
			o->keydrop = 0;
			return;
		}
		if (l->mode == L_COPY)
			depart(l);
		if (l->mode == L_REC) {
			key_plain(o, k, n);
			if (o->key == NULL)
				return;
			if (l->pconst) {
				/* the constant member same() recorded */
				l->pconst = 0;
				l->t->m[l->t->n - 1].ks = Py_NewRef(o->key);
			} else {
				record(l, k, n, o->key, 0, 0);
			}
			return;
		}
	}
	key_plain(o, k, n);
}

static void
key_plain(pyout *o, const char *k, size_t n)
{
	PyObject *v;
	struct pyout_strslot *e;

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

	/* maps left open (an error) record nothing */
	while (o->depth > 0) {
		level *l = &o->stack[--o->depth];

		if (l->mode != L_PLAIN)
			untemplate(l);
	}
	o->line = NULL;
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
	int i;

	Py_XDECREF(o->line);
	Py_XDECREF(o->longkey);
	forget(mo);
	for (i = 0; o->tmpls != NULL && i < NTMPL; i++)
		PyMem_Free(o->tmpls[i].m);
	PyMem_Free(o->tmpls);
	pyout_text_free(o->keys, NKEYS);
	pyout_text_free(o->strs, NSTRS);
	PyMem_Free(o);
}

static const model_ops ops = {
	map_begin, close_c, arr_begin, close_c, key, i64, u64, addr, u128,
	str, bytes, dbl, null, boolean, so_far, raw, line_end, pfree,
};

static const model_tmpl_ops tops = { map_tmpl, same, forget };

model_out *
pyout_new(pyout_sink *sink)
{
	pyout *o = PyMem_Calloc(1, sizeof(*o));

	if (o == NULL)
		return NULL;
	o->base.ops = &ops;
	o->base.fp = NULL;
	o->base.tmpl = &tops;
	o->sink = sink;
	o->made = &o->nomade;
	return &o->base;
}

void
pyout_count(model_out *mo, size_t *made)
{
	((pyout *)mo)->made = made;
}
