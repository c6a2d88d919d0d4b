/*
 * aggs.c - aggregations for Python: merged as dtconsume --merge-aggs
 * merges them, kept as a small capture of their own, printed as
 * dtconsume prints them.
 *
 * A mergeable aggregation object must cross the network (Dask sends it
 * from worker to worker), so it needs a form of its own, and the library
 * already reads one: a capture.  merge(sources) reads each source to its
 * end (its aggregations only: DTC_OPEN_NOAGGEXIT), merges them with
 * dtc_aggmerge_* exactly as --merge-aggs does, and writes the merged
 * end-of-run printing back as a capture: the header, the printing
 * options and symbol tables of the first source (what the merge prints
 * with), one aggregation description per merged aggregation and its
 * entries, rebuilt byte for byte from the printed rows (keys and value
 * are the entry's own bytes).  Legacy captures get an aggbuf, DTrace v2
 * captures an aggdesc/aggsnap pair, so the flavor's printing rules stay.
 * Merging such captures is then just merge() again, and text() is the
 * text emitter over dtc_aggmerge_next's events: no printing is redone
 * here.
 *
 * Only the public API: the first reader's symbol tables are copied by
 * dtc_writer_copy_symbols(), and the words written into entries are put
 * in the capture's byte order (its header's big_endian) here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "emitter.h"
#include "model.h"
#include "pyout.h"

/* One merged aggregation as it will be described. */
typedef struct wdesc {
	int64_t varid;
	char *name;
	uint16_t func;
	uint64_t arg;
	uint32_t nkeys;
	dtc_recdesc *keys;
	uint32_t voff, vsize;    /* the value in the legacy entry */
	uint32_t size;           /* the legacy entry */
	uint32_t id;
} wdesc;

/* Entries (legacy layout), with the index of their description. */
typedef struct wstate {
	wdesc *d;
	size_t nd, capd;
	uint8_t *ents;           /* entries back to back */
	size_t len, cap;
	uint32_t *eid;           /* per entry: desc index */
	size_t *eoff;            /* per entry: offset in ents */
	size_t ne, cape;
	int big, v2;             /* the capture's byte order, flavor */
	char why[200];           /* why the aggregations cannot be kept */
} wstate;

/* A 32- or 64-bit word at p in the capture's byte order. */
static void
put_word(uint8_t *p, uint64_t v, size_t size, int big)
{
	size_t i;

	for (i = 0; i < size; i++)
		p[big ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static void
wstate_free(wstate *w)
{
	size_t i;

	for (i = 0; i < w->nd; i++) {
		free(w->d[i].name);
		free(w->d[i].keys);
	}
	free(w->d);
	free(w->ents);
	free(w->eid);
	free(w->eoff);
}

/* The description of a printed variable: found or made. */
static int
desc_of(wstate *w, const dtc_aggvar *v, const dtc_aggval *val)
{
	/* DTrace v2: the key starts with the 4-byte aggregation id */
	uint32_t k, end = w->v2 ? 20 : 16;
	wdesc *d;
	size_t i;

	for (i = 0; i < w->nd; i++) {
		d = &w->d[i];
		if (d->varid == v->varid && d->func == v->func &&
		    d->arg == v->arg && d->nkeys == v->nkeys &&
		    d->vsize == val->size && strcmp(d->name, v->name) == 0 &&
		    (v->nkeys == 0 || memcmp(d->keys, v->keys,
		    v->nkeys * sizeof(*v->keys)) == 0))
			return (int)i;
	}
	if (w->nd == w->capd) {
		size_t cap = w->capd ? w->capd * 2 : 8;
		wdesc *p = realloc(w->d, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		w->d = p;
		w->capd = cap;
	}
	d = &w->d[w->nd];
	memset(d, 0, sizeof(*d));
	d->varid = v->varid;
	d->func = v->func;
	d->arg = v->arg;
	d->nkeys = v->nkeys;
	d->vsize = val->size;
	if ((d->name = strdup(v->name != NULL ? v->name : "")) == NULL)
		return -1;
	if (v->nkeys > 0) {
		if ((d->keys = malloc(v->nkeys * sizeof(*d->keys))) == NULL) {
			free(d->name);
			return -1;
		}
		memcpy(d->keys, v->keys, v->nkeys * sizeof(*d->keys));
	}
	for (k = 0; k < v->nkeys; k++)
		if (v->keys[k].offset + v->keys[k].size > end)
			end = v->keys[k].offset + v->keys[k].size;
	/* the entry: aggid, pad, the variable id at 8, the keys at their
	 * own offsets, the value 8-aligned after them (bench/gen's layout) */
	d->voff = (end + 7) & ~7u;
	d->size = d->voff + d->vsize;
	/* the merged variable id: the order the merge prints in depends on
	 * it (and on the options), and reading these entries back in id
	 * order gives the same ids again */
	d->id = (uint32_t)v->varid;
	return (int)w->nd++;
}

/* One printed row as an entry. */
static int
add_row(wstate *w, const dtc_aggrow *row, const dtc_aggvar *v)
{
	const dtc_aggval *val = &row->vals[0];
	uint32_t k;
	uint8_t *p;
	wdesc *d;
	int di;

	if ((di = desc_of(w, v, val)) < 0)
		return -1;
	d = &w->d[di];
	if (w->ne == w->cape) {
		size_t cap = w->cape ? w->cape * 2 : 1024;
		uint32_t *e = realloc(w->eid, cap * sizeof(*e));
		size_t *o;

		if (e == NULL)
			return -1;
		w->eid = e;
		if ((o = realloc(w->eoff, cap * sizeof(*o))) == NULL)
			return -1;
		w->eoff = o;
		w->cape = cap;
	}
	if (w->cap - w->len < d->size) {
		size_t cap = w->cap ? w->cap : 65536;

		while (cap - w->len < d->size)
			cap *= 2;
		if ((p = realloc(w->ents, cap)) == NULL)
			return -1;
		w->ents = p;
		w->cap = cap;
	}
	p = w->ents + w->len;
	memset(p, 0, d->size);
	put_word(p, d->id, 4, w->big);
	put_word(p + 8, (uint64_t)d->id, 8, w->big);
	for (k = 0; k < v->nkeys; k++)
		if (row->keys[k].data != NULL)
			memcpy(p + v->keys[k].offset, row->keys[k].data,
			    v->keys[k].size);
	memcpy(p + d->voff, val->data, val->size);
	w->eid[w->ne] = (uint32_t)di;
	w->eoff[w->ne] = w->len;
	w->ne++;
	w->len += d->size;
	return 0;
}

/* dtrace-utils' aggregation function codes (DT_AGG_*, by name) */
static uint16_t
v2_func(uint16_t f)
{
	static const uint16_t legacy[] = {
		DTC_AGG_AVG, DTC_AGG_COUNT, DTC_AGG_LLQUANTIZE,
		DTC_AGG_LQUANTIZE, DTC_AGG_MAX, DTC_AGG_MIN, DTC_AGG_QUANTIZE,
		DTC_AGG_STDDEV, DTC_AGG_SUM
	};
	uint16_t i;

	for (i = 0; i < 9; i++)
		if (legacy[i] == f)
			return (uint16_t)(0x0700 + i);
	return f;
}

/* v2.c's map_action, the other way */
static uint16_t
v2_action(uint16_t a)
{
	if (a == 0xfe07)
		return 7;
	if (a == DTC_ACT_PRINTT)
		return 8;
	return a;
}

static int
has_pre(uint16_t f)
{
	return f == DTC_AGG_LQUANTIZE || f == DTC_AGG_LLQUANTIZE;
}

static const char *const printing_options[] = {
	"agghist", "aggpack", "aggsortkey", "aggsortkeypos", "aggsortpos",
	"aggsortrev", "aggzoom", "quiet", "rawbytes", "stackindent",
	"stackframes", "ustackframes", "jstackframes", "jstackstrsize",
	"strsize", "printsize", NULL
};

/*
 * The entries in the order they are written: by variable id, then as
 * printed.  A merge numbers its aggregations in the order it first meets
 * their entries, so this order gives every aggregation its id again.
 */
static size_t *
write_order(const wstate *w)
{
	size_t nd = w->nd ? w->nd : 1, i, j, t;
	size_t *o = malloc((w->ne ? w->ne : 1) * sizeof(*o));
	size_t *byid = malloc(nd * sizeof(*byid));
	size_t *start = calloc(nd + 1, sizeof(*start));
	size_t *rank = malloc(nd * sizeof(*rank));

	if (o == NULL || byid == NULL || start == NULL || rank == NULL) {
		free(o);
		o = NULL;
		goto out;
	}
	for (i = 0; i < w->nd; i++)
		byid[i] = i;
	for (i = 1; i < w->nd; i++)       /* a few aggregations: insertion */
		for (j = i; j > 0 && w->d[byid[j - 1]].id > w->d[byid[j]].id;
		    j--) {
			t = byid[j];
			byid[j] = byid[j - 1];
			byid[j - 1] = t;
		}
	for (i = 0; i < w->nd; i++)
		rank[byid[i]] = i;
	/* a counting sort by rank keeps the printed order within each */
	for (j = 0; j < w->ne; j++)
		start[rank[w->eid[j]] + 1]++;
	for (i = 0; i < w->nd; i++)
		start[i + 1] += start[i];
	for (j = 0; j < w->ne; j++)
		o[start[rank[w->eid[j]]]++] = j;
out:
	free(byid);
	free(start);
	free(rank);
	return o;
}

/* The merged aggregations as a capture in *out (malloc'd). */
static int
write_capture(wstate *w, const dtc_reader *first, char **out, size_t *outlen,
    dtc_error *err)
{
	const dtc_header *h = dtc_reader_header(first);
	dtc_writer_header wh;
	dtc_writer *wr;
	FILE *fp;
	size_t i, *order = NULL;
	int rc = DTC_OK;

	*out = NULL;
	*outlen = 0;
	if ((fp = open_memstream(out, outlen)) == NULL)
		return DTC_FATAL;
	memset(&wh, 0, sizeof(wh));
	wh.big_endian = h->big_endian;
	wh.ilp32 = h->ilp32;
	wh.os = h->os;
	wh.release = h->release;
	wh.host = h->host;
	wh.producer = "dtconsume python (merged aggregations)";
	wh.ncpu = h->ncpu;
	wh.dt_act_base = h->dt_act_base;
	wh.flavor = h->flavor;
	if ((wr = dtc_writer_new(fp, &wh, err)) == NULL) {
		fclose(fp);
		return DTC_FATAL;
	}
#define W(call) do { if ((rc = (call)) != DTC_OK) goto fail; } while (0)
	for (i = 0; printing_options[i] != NULL; i++) {
		int64_t v = dtc_reader_get_option(first, printing_options[i]);

		if (v != DTC_OPT_UNSET && v >= 0)
			W(dtc_writer_add_option(wr, printing_options[i], NULL, v,
			    err));
	}
	if (dtc_reader_get_option_string(first, "encoding") != NULL)
		W(dtc_writer_add_option(wr, "encoding",
		    dtc_reader_get_option_string(first, "encoding"), 0, err));
	W(dtc_writer_copy_symbols(wr, dtc_reader_capture(first), err));
	for (i = 0; i < w->nd; i++) {
		const wdesc *d = &w->d[i];
		dtc_recdesc *recs = calloc(d->nkeys + 2, sizeof(*recs));

		if (recs == NULL) {
			rc = DTC_FATAL;
			goto fail;
		}
		if (!w->v2) {
			dtc_aggdesc ad;

			recs[0].action = DTC_ACT_DIFEXPR;
			recs[0].alignment = 8;
			recs[0].size = 8;
			recs[0].offset = 8;
			if (d->nkeys > 0)   /* no keys: d->keys is NULL */
				memcpy(recs + 1, d->keys,
				    d->nkeys * sizeof(*recs));
			recs[d->nkeys + 1].action = d->func;
			recs[d->nkeys + 1].alignment = 8;
			recs[d->nkeys + 1].size = d->vsize;
			recs[d->nkeys + 1].offset = d->voff;
			recs[d->nkeys + 1].arg = d->arg;
			memset(&ad, 0, sizeof(ad));
			ad.id = d->id;
			ad.varid = (int64_t)d->id;
			ad.name = d->name;
			ad.size = d->size;
			ad.nrecs = d->nkeys + 2;
			ad.recs = recs;
			rc = dtc_writer_add_agg(wr, &ad, err);
		} else {
			/* v2.c's load_aggdesc, the other way: the key is the
			 * entry from byte 16 (its first word the aggregation
			 * id), the data a generation counter and the value
			 * without its parameter word */
			dtc_aggdesc_v2 ad;
			dtc_recdesc drecs[2];
			uint32_t k, pre = has_pre(d->func) ? 8 : 0;

			recs[0].action = DTC_ACT_DIFEXPR;
			recs[0].alignment = 4;
			recs[0].size = 4;
			recs[0].offset = 0;
			for (k = 0; k < d->nkeys; k++) {
				if (d->keys[k].offset < 20) {
					snprintf(w->why, sizeof(w->why),
					    "aggregation @%s: a key overlaps the "
					    "aggregation id", d->name);
					free(recs);
					rc = DTC_FAILED;
					goto fail;
				}
				recs[k + 1] = d->keys[k];
				recs[k + 1].action = v2_action(d->keys[k].action);
				recs[k + 1].offset = d->keys[k].offset - 16;
			}
			memset(drecs, 0, sizeof(drecs));
			drecs[0].size = 8;
			drecs[0].alignment = 8;
			drecs[1].action = v2_func(d->func);
			drecs[1].alignment = 8;
			drecs[1].size = d->vsize - pre;
			drecs[1].offset = 8;
			memset(&ad, 0, sizeof(ad));
			ad.id = d->id;
			ad.varid = (int64_t)d->id;
			ad.name = d->name;
			ad.sig = d->arg;
			ad.normal = 1;
			ad.ksize = d->voff - 16;
			ad.dsize = 8 + d->vsize - pre;
			ad.nkrecs = d->nkeys + 1;
			ad.krecs = recs;
			ad.ndrecs = 2;
			ad.drecs = drecs;
			rc = dtc_writer_add_aggdesc_v2(wr, &ad, err);
		}
		free(recs);
		if (rc != DTC_OK)
			goto fail;
	}
	if ((order = write_order(w)) == NULL) {
		rc = DTC_FATAL;
		goto fail;
	}
	if (!w->v2 && w->len > 0) {
		dtc_writer_buf wb;
		uint8_t *buf = malloc(w->len), *p = buf;

		if (buf == NULL) {
			rc = DTC_FATAL;
			goto fail;
		}
		for (i = 0; i < w->ne; i++) {
			size_t sz = w->d[w->eid[order[i]]].size;

			memcpy(p, w->ents + w->eoff[order[i]], sz);
			p += sz;
		}
		memset(&wb, 0, sizeof(wb));
		wb.pass = 1;
		wb.cpu = 0;
		wb.data = buf;
		wb.size = w->len;
		rc = dtc_writer_add_aggbuf(wr, &wb, err);
		free(buf);
		if (rc != DTC_OK)
			goto fail;
	} else if (w->v2 && w->ne > 0) {
		uint8_t *data = NULL;
		size_t cap = 0;

		W(dtc_writer_aggsnap_begin(wr, 1, w->ne, err));
		/* an aggsnap lists the newest entry first (v2.c reverses
		 * it): the last one first */
		for (i = w->ne; i-- > 0;) {
			const wdesc *d = &w->d[w->eid[order[i]]];
			uint8_t *e = w->ents + w->eoff[order[i]];
			uint32_t pre = has_pre(d->func) ? 8 : 0;
			size_t dsize = 8 + d->vsize - pre;

			if (cap < dsize) {
				uint8_t *q = realloc(data, dsize);

				if (q == NULL) {
					free(data);
					rc = DTC_FATAL;
					goto fail;
				}
				data = q;
				cap = dsize;
			}
			memset(data, 0, 8);
			memcpy(data + 8, e + d->voff + pre, d->vsize - pre);
			put_word(e + 16, d->id, 4, w->big);
			rc = dtc_writer_add_aggsnap_entry(wr, d->id, e + 16,
			    d->voff - 16, data, dsize, err);
			if (rc != DTC_OK) {
				free(data);
				goto fail;
			}
		}
		free(data);
		W(dtc_writer_aggsnap_end(wr, err));
	}
#undef W
	free(order);
	rc = dtc_writer_end(wr, 0, err);
	fclose(fp);
	return rc;
fail:
	free(order);
	dtc_writer_free(wr);
	fclose(fp);
	return rc == DTC_OK ? DTC_FATAL : rc;
}

/* ------------------------------------------------------------ reading */

typedef struct msrc {
	source src;
	dtc_reader *r;
} msrc;

/* The warnings of the capture being merged, under the programs' cap. */
typedef struct mwarn {
	PyObject *errors;
	ext_errcap cap;
} mwarn;

/* dtc_reader_consume runs without the GIL (merge_sources): a warning takes it
 * back to become a DecodeError. */
static int
note_warn(const dtc_error *err, void *arg)
{
	mwarn *w = arg;
	PyGILState_STATE g = PyGILState_Ensure();
	int rc = ext_note_capped(w->errors, &w->cap, err, 0) != 0 ? 2 : 0;

	PyGILState_Release(g);
	return rc;     /* 2: stop, a Python error is set */
}

/*
 * Read every source to its end and merge their aggregations into m.
 * Readers in *srcs (the first stays open: its symbols print the merge).
 * Returns 0 or -1 with a Python error.
 */
static int
merge_sources(PyObject *seq, int temporal, PyObject *options,
    dtc_aggmerge *m, msrc *first, PyObject *errors)
{
	static const dtc_handler h = { .warn = note_warn };
	PyObject *it, *o;
	dtc_error err;
	mwarn w;
	msrc s;
	int rc, n = 0;

	w.errors = errors;
	ext_errcap_init(&w.cap);

	if ((it = PyObject_GetIter(seq)) == NULL)
		return -1;
	while ((o = PyIter_Next(it)) != NULL) {
		memset(&s, 0, sizeof(s));
		rc = ext_source_init(&s.src, o, NULL);
		Py_DECREF(o);
		if (rc != 0)
			goto fail;
		dtc_error_clear(&err);
		s.r = ext_source_reader(&s.src, DTC_OPEN_NOAGGEXIT |
		    (temporal ? DTC_OPEN_TEMPORAL : 0), &err);
		if (s.r == NULL) {
			/* reported, as dtconsume reports a file it cannot
			 * open, and the others are merged */
			ext_source_free(&s.src);
			if (ext_note_error(errors, &err, 0) != 0)
				goto fail;
			continue;
		}
		if (ext_set_options(s.r, options) != 0) {
			dtc_reader_close(s.r);
			ext_source_free(&s.src);
			goto fail;
		}
		/* reading a capture to its end touches no Python object
		 * (but a warning, which takes the GIL back) */
		Py_BEGIN_ALLOW_THREADS
		rc = dtc_reader_consume(s.r, &h, &w, NULL);
		Py_END_ALLOW_THREADS
		if (rc != 2 && !PyErr_Occurred())
			(void)ext_errcap_end(errors, &w.cap, 0);
		if (rc == 2 || PyErr_Occurred()) {
			dtc_reader_close(s.r);
			ext_source_free(&s.src);
			goto fail;
		}
		dtc_error_clear(&err);
		if (dtc_aggmerge_add(m, s.r, &err) != DTC_OK &&
		    ext_note_error(errors, &err, 0) != 0) {
			dtc_reader_close(s.r);
			ext_source_free(&s.src);
			goto fail;
		}
		if (n++ == 0) {
			*first = s;
		} else {
			dtc_reader_close(s.r);
			ext_source_free(&s.src);
		}
	}
	Py_DECREF(it);
	return PyErr_Occurred() ? -1 : 0;
fail:
	Py_DECREF(it);
	return -1;
}

static void
msrc_free(msrc *s)
{
	dtc_reader_close(s->r);
	s->r = NULL;
	ext_source_free(&s->src);
}

/* merge(sources, temporal=False, options=None) -> (bytes, errors) */
static PyObject *
merge(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sources", "temporal", "options", NULL };
	PyObject *seq, *options = NULL, *errors, *res = NULL;
	dtc_aggmerge *m;
	const dtc_event *ev;
	dtc_error err;
	msrc first;
	wstate w;
	char *out = NULL;
	size_t outlen = 0, i;
	int temporal = 0, rc;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pO", kwlist, &seq,
	    &temporal, &options))
		return NULL;
	if ((errors = PyList_New(0)) == NULL)
		return NULL;
	memset(&first, 0, sizeof(first));
	memset(&w, 0, sizeof(w));
	dtc_error_clear(&err);
	if ((m = dtc_aggmerge_new(&err)) == NULL) {
		Py_DECREF(errors);
		return PyErr_NoMemory();
	}
	if (merge_sources(seq, temporal, options, m, &first, errors) != 0)
		goto out;
	if (first.r == NULL) {
		PyErr_SetString(PyExc_ValueError, "no capture could be read");
		if (PyList_GET_SIZE(errors) > 0)
			ext_raise_errors(errors);
		goto out;
	}
	w.big = dtc_reader_header(first.r)->big_endian;
	w.v2 = dtc_reader_header(first.r)->v2;
	while (dtc_aggmerge_next(m, &ev) == DTC_OK) {
		const dtc_aggprint *ap = ev->agg;

		for (i = 0; i < ap->nrows; i++) {
			const dtc_aggrow *row = &ap->rows[i];

			if (add_row(&w, row, row->var != NULL ? row->var :
			    &ap->vars[0]) != 0) {
				PyErr_NoMemory();
				goto out;
			}
		}
	}
	dtc_error_clear(&err);
	rc = write_capture(&w, first.r, &out, &outlen, &err);
	if (rc != DTC_OK) {
		PyErr_Format(PyExc_RuntimeError, "cannot keep the aggregations: "
		    "%s", w.why[0] != '\0' ? w.why : err.text[0] != '\0' ?
		    err.text : "out of memory");
		goto out;
	}
	res = Py_BuildValue("(y#O)", out, (Py_ssize_t)outlen, errors);
out:
	free(out);
	wstate_free(&w);
	dtc_aggmerge_free(m);
	msrc_free(&first);
	Py_DECREF(errors);
	return res;
}

/* ------------------------------------------------------------ printing */

/* A merged reader over one kept capture; its events come from *mp. */
static int
open_kept(PyObject *data, msrc *s, dtc_aggmerge **mp)
{
	static const dtc_handler h = { 0 };
	dtc_error err;

	memset(s, 0, sizeof(*s));
	*mp = NULL;
	if (ext_source_init(&s->src, data, NULL) != 0)
		return -1;
	dtc_error_clear(&err);
	if ((s->r = ext_source_reader(&s->src, DTC_OPEN_NOAGGEXIT, &err)) ==
	    NULL || dtc_reader_consume(s->r, &h, NULL, &err) == DTC_FATAL ||
	    (*mp = dtc_aggmerge_new(&err)) == NULL ||
	    dtc_aggmerge_add(*mp, s->r, &err) != DTC_OK) {
		PyObject *e = ext_error_object(&err);

		if (e != NULL) {
			PyErr_SetObject(ext_DecodeError, e);
			Py_DECREF(e);
		}
		dtc_aggmerge_free(*mp);
		*mp = NULL;
		msrc_free(s);
		return -1;
	}
	return 0;
}

/*
 * The text emitter stopped (dtrace's "failed to print aggregations: WHY"
 * on its message stream, as dtconsume prints it): a DecodeError naming
 * the aggregations' source and the reason, as dtconsume reports it.
 */
static void
agg_text_failed(const dtc_reader *r, const char *ebuf, size_t elen)
{
	const char *why = "the aggregations could not be printed", *p, *e;
	size_t n;
	dtc_error err;
	PyObject *ex;

	dtc_error_clear(&err);
	err.code = DTC_E_BADAGG;
	snprintf(err.source, sizeof(err.source), "%s",
	    dtc_reader_source(r) != NULL ? dtc_reader_source(r) : "");
	/* the last "dtrace: " line the emitter wrote, without that word */
	n = ebuf != NULL ? strnlen(ebuf, elen) : 0;
	while (n > 0 && ebuf[n - 1] == '\n')
		n--;
	for (p = ebuf + n; p > ebuf && p[-1] != '\n'; p--)
		continue;
	e = ebuf + n;
	if (n > 0 && (size_t)(e - p) > 8 && strncmp(p, "dtrace: ", 8) == 0) {
		p += 8;
		if (strstr(p, "does not match statement") != NULL)
			err.code = DTC_E_DMISMATCH;
		snprintf(err.text, sizeof(err.text), "%.*s", (int)(e - p), p);
	} else {
		snprintf(err.text, sizeof(err.text), "%s", why);
	}
	if ((ex = ext_error_object(&err)) != NULL) {
		PyErr_SetObject(ext_DecodeError, ex);
		Py_DECREF(ex);
	}
}

/*
 * text(data) -> str: the aggregations as dtconsume prints them after the
 * end of the run (formats/text.c, as for --merge-aggs).  The emitter
 * writes the newline that ends a run before the first aggregation; that
 * newline belongs to the run, not to the aggregations, and is left out.
 */
static PyObject *
text(PyObject *mod, PyObject *data)
{
	const dtc_emitter *em = &dtc_fmt_text;
	dtc_emitter_opts eo;
	dtc_event bev;
	const dtc_event *ev;
	dtc_aggmerge *m;
	msrc s;
	const char *testing = getenv("_DTRACE_TESTING");
	char *buf = NULL, *ebuf = NULL;
	size_t len = 0, elen = 0;
	FILE *out, *errf;
	PyObject *res = NULL;
	void *st;
	int rc = 0;

	(void)mod;
	if (open_kept(data, &s, &m) != 0)
		return NULL;
	out = open_memstream(&buf, &len);
	errf = open_memstream(&ebuf, &elen);
	memset(&eo, 0, sizeof(eo));
	eo.out = out;
	eo.err = errf;
	eo.testing = testing != NULL && testing[0] != '\0';
	eo.merge_aggs = 1;
	if (out == NULL || errf == NULL || (st = em->create(&eo)) == NULL) {
		PyErr_NoMemory();
		goto done;
	}
	memset(&bev, 0, sizeof(bev));
	bev.type = DTC_EV_BEGIN;
	bev.reader = s.r;
	bev.source = dtc_reader_source(s.r);
	bev.cpu = -1;
	bev.exit_status = -1;
	bev.header = dtc_reader_header(s.r);
	rc = em->handler.begin(&bev, st);
	while (rc == 0 && dtc_aggmerge_next(m, &ev) == DTC_OK)
		rc = em->handler.agg(ev, st);
	if (em->destroy(st) != 0 || rc != 0) {
		fflush(errf);   /* ebuf and elen are set at a flush */
		agg_text_failed(s.r, ebuf, elen);
		goto done;
	}
	fflush(out);
	if (len > 0 && buf[0] == '\n')
		res = PyUnicode_DecodeUTF8(buf + 1, (Py_ssize_t)len - 1,
		    "surrogateescape");
	else
		res = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len,
		    "surrogateescape");
done:
	if (out != NULL)
		fclose(out);
	if (errf != NULL)
		fclose(errf);
	free(buf);
	free(ebuf);
	dtc_aggmerge_free(m);
	msrc_free(&s);
	return res;
}

/* lines(data) -> list: the aggregations as dt2json's "aggregation" lines */
static PyObject *
lines(PyObject *mod, PyObject *data)
{
	pyout_sink sink = { NULL, 0 };
	dtc_emitter_opts eo;
	const dtc_event *ev;
	dtc_aggmerge *m;
	model_out *po, *oo;
	void *model = NULL;
	msrc s;

	(void)mod;
	if (open_kept(data, &s, &m) != 0)
		return NULL;
	memset(&eo, 0, sizeof(eo));
	if ((sink.lines = PyList_New(0)) == NULL)
		goto done;
	po = pyout_new(&sink);
	oo = pyout_new(&sink);
	/* model_create frees the builders when it fails */
	if ((model = model_create(&eo, po, oo)) == NULL) {
		PyErr_NoMemory();
		Py_CLEAR(sink.lines);
		goto done;
	}
	while (!sink.error && dtc_aggmerge_next(m, &ev) == DTC_OK)
		model_on_agg(ev, model);
	if (sink.error)
		Py_CLEAR(sink.lines);
done:
	if (model != NULL)
		model_destroy(model);
	dtc_aggmerge_free(m);
	msrc_free(&s);
	return sink.lines;
}

PyMethodDef ext_agg_methods[] = {
	{ "merge_aggs", (PyCFunction)(void (*)(void))merge,
	  METH_VARARGS | METH_KEYWORDS,
	  "merge_aggs(sources, temporal=False, options=None) -> (bytes, "
	  "errors): the aggregations of the sources merged, as a capture" },
	{ "agg_text", text, METH_O,
	  "agg_text(data): kept aggregations as dtconsume prints them" },
	{ "agg_lines", lines, METH_O,
	  "agg_lines(data): kept aggregations as dt2json's lines" },
	{ NULL, NULL, 0, NULL }
};
