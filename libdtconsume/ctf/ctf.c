/*
 * ctf.c - the capture's C types (ctf items) and print()'s typed values.
 *
 * A ctf item carries one module's types as a CTF dictionary (dtsnap(5)).
 * The bytes are kept as read and opened with GNU libctf only when a
 * print() record first needs them, so a capture whose types are damaged
 * costs nothing until then and says so once.  Records name a type by
 * module and id as the producer knew them; the item's id pairs map those
 * to the dictionary's own ids (a recorder copies only the types it needs,
 * and the copy numbers them afresh).
 *
 * Without libctf (configure found none) the items are still read, so that
 * a reader can say what it is missing, but no type resolves.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_private.h"
#include "capture.h"

/* one ctf item: a dictionary of (some of) one module's types */
struct dtcp_ctfmod {
	char *module;
	uint8_t *data;         /* a copy: libctf may keep pointers into it */
	size_t size;
	uint64_t *ids;         /* pairs: recorded id, dictionary id */
	size_t nids;           /* pairs */
#ifdef HAVE_LIBCTF
	ctf_dict_t *fp;
#endif
	int tried;             /* opened (or failed to) */
	char why[160];         /* why it could not be opened */
	char note[160];        /* an odd type it holds (dtcp_ctf_open) */
	int noted;             /* the note was handed out */
};

struct dtc_ctype {
	struct dtcp_ctfmod *mod;
	uint64_t recid;        /* the id the records give */
	long id;               /* the id in mod's dictionary */
	char *name;
};

struct dtcp_ctftab {
	/* in file order; each allocated on its own, because resolved
	 * types point at theirs while more items arrive */
	struct dtcp_ctfmod **mods;
	size_t nmods;
	struct dtc_ctype **types;   /* resolved so far (few: one per print()) */
	size_t ntypes, captypes;
};

/* A recorder writes an item per statement that prints a new type at
 * most; more is an attack. */
#define MAX_ITEMS 4096
#define MAX_IDPAIRS (1u << 20)

static int
bad(const dtcp_container *c, const dtcp_item *it, const dtcp_node *n,
    dtc_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int
bad(const dtcp_container *c, const dtcp_item *it, const dtcp_node *n,
    dtc_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, dtcp_container_source(c), it->index,
	    (long long)(n != NULL ? n->offset : it->offset), -1, fmt, ap);
	va_end(ap);
	return DTC_WARN;
}

static int
nomem(const dtcp_container *c, const dtcp_item *it, dtc_error *err)
{
	dtcp_error_set(err, DTC_E_NOMEM, dtcp_container_source(c), it->index,
	    (long long)it->offset, -1, "out of memory");
	return DTC_FATAL;
}

static int
module_is(const struct dtcp_ctfmod *mod, const char *name, size_t len)
{
	return strlen(mod->module) == len && memcmp(mod->module, name, len) == 0;
}

static int
load_ids(const dtcp_container *c, const dtcp_item *it, const dtcp_node *arr,
    struct dtcp_ctfmod *mod, dtc_error *err)
{
	const dtcp_node *n;
	uint32_t i;

	if (arr->count % 2 != 0 || arr->count / 2 > MAX_IDPAIRS)
		return bad(c, it, arr, err, DTC_E_BADVALUE, "ctf item: ids "
		    "must be pairs (at most %u), not %u numbers",
		    MAX_IDPAIRS, arr->count);
	if (arr->count == 0)
		return DTC_OK;
	if ((mod->ids = malloc(arr->count * sizeof(*mod->ids))) == NULL)
		return nomem(c, it, err);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n)) {
		if (n->type != DTCP_N_UINT) {
			free(mod->ids);
			mod->ids = NULL;
			return bad(c, it, n, err, DTC_E_KEYTYPE, "ctf item: "
			    "ids holds something other than an unsigned "
			    "integer");
		}
		mod->ids[i] = n->u;
	}
	mod->nids = arr->count / 2;
	return DTC_OK;
}

int
dtcp_ctf_add_item(dtcp_meta *m, const dtcp_container *c,
    const dtcp_item *it, dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0], *ids = NULL;
	const char *name;
	const uint8_t *data;
	size_t nlen, dlen;
	struct dtcp_ctftab *t;
	struct dtcp_ctfmod mod, *one, **grown;
	int rc;

	if ((rc = dtcp_get_text(c, it, map, "module", 1, &name, &nlen,
	    err)) != DTC_OK ||
	    (rc = dtcp_get_bytes(c, it, map, "data", 1, &data, &dlen, err)) !=
	    DTC_OK)
		return DTC_WARN;
	if ((rc = dtcp_get_node(c, it, map, "ids", DTCP_N_ARRAY, 0, &ids,
	    err)) == DTC_FAILED)
		return DTC_WARN;
	if (nlen == 0 || memchr(name, '\0', nlen) != NULL)
		return bad(c, it, map, err, DTC_E_BADVALUE, "ctf item: the "
		    "module name is empty or holds a NUL byte");
	if (m->ctf == NULL && (m->ctf = calloc(1, sizeof(*m->ctf))) == NULL)
		return nomem(c, it, err);
	t = m->ctf;
	if (t->nmods >= MAX_ITEMS)
		return bad(c, it, map, err, DTC_E_LIMIT, "ctf item: more than "
		    "%d ctf items", MAX_ITEMS);
	memset(&mod, 0, sizeof(mod));
	if (ids != NULL && (rc = load_ids(c, it, ids, &mod, err)) != DTC_OK)
		return rc;
	mod.module = malloc(nlen + 1);
	mod.data = malloc(dlen ? dlen : 1);
	grown = realloc(t->mods, (t->nmods + 1) * sizeof(*t->mods));
	if (grown != NULL)
		t->mods = grown;
	one = malloc(sizeof(*one));
	if (mod.module == NULL || mod.data == NULL || grown == NULL ||
	    one == NULL) {
		free(one);
		free(mod.module);
		free(mod.data);
		free(mod.ids);
		return nomem(c, it, err);
	}
	memcpy(mod.module, name, nlen);
	mod.module[nlen] = '\0';
	memcpy(mod.data, data, dlen);
	mod.size = dlen;
	*one = mod;
	t->mods[t->nmods++] = one;
	return DTC_OK;
}

#ifdef HAVE_LIBCTF
static int
open_module(struct dtcp_ctfmod *mod)
{
	if (!mod->tried) {
		mod->tried = 1;
		mod->fp = dtcp_ctf_open(mod->data, mod->size, mod->why,
		    sizeof(mod->why), mod->note, sizeof(mod->note));
	}
	return mod->fp != NULL ? 0 : -1;
}

static const dtc_ctype *
new_type(struct dtcp_ctftab *t, struct dtcp_ctfmod *mod, uint64_t recid,
    long did, const char **why)
{
	struct dtc_ctype *ct, **grown;
	char name[512];

	if (ctf_type_name(mod->fp, did, name, sizeof(name)) == NULL)
		snprintf(name, sizeof(name), "(type %ld)", did);
	if (t->ntypes == t->captypes) {
		size_t cap = t->captypes ? t->captypes * 2 : 8;

		if ((grown = realloc(t->types, cap * sizeof(*grown))) == NULL) {
			*why = "out of memory";
			return NULL;
		}
		t->types = grown;
		t->captypes = cap;
	}
	if ((ct = calloc(1, sizeof(*ct))) == NULL ||
	    (ct->name = strdup(name)) == NULL) {
		free(ct);
		*why = "out of memory";
		return NULL;
	}
	ct->mod = mod;
	ct->recid = recid;
	ct->id = did;
	t->types[t->ntypes++] = ct;
	return ct;
}

static long
dict_id(const struct dtcp_ctfmod *mod, uint64_t recid)
{
	size_t i;

	if (mod->ids == NULL)
		return recid <= (uint64_t)LONG_MAX ? (long)recid : -1;
	for (i = 0; i < mod->nids; i++)
		if (mod->ids[2 * i] == recid)
			return mod->ids[2 * i + 1] <= (uint64_t)LONG_MAX ?
			    (long)mod->ids[2 * i + 1] : -1;
	return -1;
}
#endif

const dtc_ctype *
dtcp_ctf_type(dtcp_meta *m, const char *module, uint64_t id,
    const char **why)
{
	struct dtcp_ctftab *t = m->ctf;
	size_t i, len = strlen(module);

	for (i = 0; t != NULL && i < t->ntypes; i++)
		if (t->types[i]->recid == id &&
		    strcmp(t->types[i]->mod->module, module) == 0)
			return t->types[i];
	*why = "the capture holds no types for this module";
#ifndef HAVE_LIBCTF
	for (i = 0; t != NULL && i < t->nmods; i++)
		if (module_is(t->mods[i], module, len))
			*why = "this build has no GNU libctf";
	return NULL;
#else
	/* the first item of the module that knows the id, in file order */
	int named = 0;

	for (i = 0; t != NULL && i < t->nmods; i++) {
		struct dtcp_ctfmod *mod = t->mods[i];
		long did;

		if (!module_is(mod, module, len))
			continue;
		named = 1;
		if ((did = dict_id(mod, id)) < 0)
			continue;
		if (open_module(mod) != 0) {
			*why = mod->why;
			return NULL;
		}
		if (ctf_type_kind(mod->fp, did) < 0)
			continue;
		return new_type(t, mod, id, did, why);
	}
	if (named)
		*why = "the capture's types have no type of this id";
	return NULL;
#endif
}

const char *
dtcp_ctf_note(const dtc_ctype *t)
{
#ifdef HAVE_LIBCTF
	struct dtcp_ctfmod *mod = t != NULL ? t->mod : NULL;

	if (mod == NULL || mod->noted || mod->note[0] == '\0')
		return NULL;
	mod->noted = 1;
	return mod->note;
#else
	(void)t;
	return NULL;
#endif
}

void
dtcp_ctf_free(dtcp_meta *m)
{
	struct dtcp_ctftab *t = m->ctf;
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->ntypes; i++) {
		free(t->types[i]->name);
		free(t->types[i]);
	}
	for (i = 0; i < t->nmods; i++) {
#ifdef HAVE_LIBCTF
		if (t->mods[i]->fp != NULL)
			ctf_dict_close(t->mods[i]->fp);
#endif
		free(t->mods[i]->module);
		free(t->mods[i]->data);
		free(t->mods[i]->ids);
		free(t->mods[i]);
	}
	free(t->types);
	free(t->mods);
	free(t);
	m->ctf = NULL;
}

int
dtcp_ctf_item_info(const dtcp_meta *m, size_t i, const char **module,
    size_t *bytes, const uint64_t **ids, size_t *npairs)
{
	const struct dtcp_ctfmod *mod;

	if (m->ctf == NULL || i >= m->ctf->nmods)
		return -1;
	mod = m->ctf->mods[i];
	*module = mod->module;
	*bytes = mod->size;
	*ids = mod->ids;
	*npairs = mod->nids;
	return 0;
}

const char *
dtc_ctype_name(const dtc_ctype *t)
{
	return t != NULL ? t->name : NULL;
}

const char *
dtc_ctype_module(const dtc_ctype *t)
{
	return t != NULL ? t->mod->module : NULL;
}

static int
typed_fail(const dtcp_capture *r, dtc_error *err, const char *why)
{
	(void)r;
	dtcp_error_set(err, DTC_E_NOTSUP, NULL, -1, -1, -1, "print(): %s",
	    why);
	return DTC_FAILED;
}

/*
 * dtrace-utils' printsize: unset prints the whole record; a value out of
 * (0, 64 KiB] means 8 KiB; every value is rounded up to 8 bytes
 * (dt_options.c dt_opt_printsize).
 */
static uint64_t
printsize(const dtcp_capture *r)
{
	int64_t v = (&r->opts)->v[DTCP_OPT_PRINTSIZE];

	if (v == DTC_OPT_UNSET)
		return UINT64_MAX;
	if (v <= 0 || v > 65536)
		v = 8192;
	return ((uint64_t)v + 7) & ~(uint64_t)7;
}

int
dtc_capture_typed_render(const dtcp_capture *r, const dtc_value *v,
    dtc_buf *out, dtc_error *err)
{
	const char *why = "this build has no GNU libctf";

	if (v == NULL || v->kind != DTC_V_TYPED || v->ctype == NULL)
		return typed_fail(r, err, "not a typed value");
#ifdef HAVE_LIBCTF
	{
		const dtc_ctype *t = v->ctype;
		const dtc_header *h = (&r->hdr);
		size_t start = out != NULL ? out->len : 0, cap = dtcp_msg_cap(r);
		/* the printers stop one byte past the cap (printf_render.c) */
		size_t lim = cap == 0 || cap > SIZE_MAX - 2 - start ?
		    SIZE_MAX : start + cap + 1;
		int rc;

		if (out == NULL)
			return typed_fail(r, err, "no output");
		if (h != NULL && h->v2)
			rc = dtcp_ctfprint_v2(t->mod->fp, t->id, v->addr,
			    v->data, v->size, printsize(r), v->swapped, out,
			    lim, &why);
		else
			rc = dtcp_ctfprint_legacy(t->mod->fp, t->id, v->data,
			    v->size, v->swapped, r->illumos, out,
			    lim, &why);
		if (rc == 0)
			return dtc_capture_text_cut(r, out, start, "print()", err);
	}
#else
	(void)printsize;
#endif
	return typed_fail(r, err, why);
}

int
dtc_capture_typed_walk(const dtcp_capture *r, const dtc_value *v,
    int (*fn)(const dtc_tnode *n, void *arg), void *arg, dtc_error *err)
{
	const char *why = "this build has no GNU libctf";

	if (v == NULL || v->kind != DTC_V_TYPED || v->ctype == NULL)
		return typed_fail(r, err, "not a typed value");
#ifdef HAVE_LIBCTF
	{
		const dtc_ctype *t = v->ctype;
		int rc = dtcp_ctf_walk(t->mod->fp, t->id, v->data, v->size,
		    v->swapped, fn, arg, &why);

		if (rc >= 0)
			return DTC_OK;
	}
#endif
	return typed_fail(r, err, why);
}

