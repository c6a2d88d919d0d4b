/*
 * synth_ctf.c - the "ctf" key of a synth description: C types that
 * print() records are shown by, built with GNU libctf into one
 * dictionary per module and written as ctf items (dtsnap(5)).
 *
 *   "ctf": [ { "module": "kernel", "types": [ TYPE, ... ] } ]
 *
 * Each TYPE has an "id" of the description's choosing (what print()
 * records name: {"print": "kernel`7"}) and a "kind":
 *   int      name, size (bytes), signed, char, bool, bits (a bit-field's
 *            width: the member that uses it takes that many bits)
 *   float    name, size
 *   pointer  type
 *   array    type, nelems
 *   struct, union  name ("" for anonymous), size, members: [ {name,
 *            type, offset (bits)} ]
 *   enum     name, values: [ [name, value], ... ]
 *   typedef  name, type
 *   const, volatile  type
 * A "type" must name a TYPE listed before it, except that members are
 * added after every type exists (a struct can hold a pointer to itself).
 * The dictionary numbers the types itself; the ctf item's ids map the
 * description's ids to them, as a recorder's copy does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "synth_private.h"

#ifdef HAVE_LIBCTF
#include <ctf-api.h>

struct sy_ctype {
	uint64_t id;          /* the description's */
	ctf_id_t cid;         /* the dictionary's */
};

struct sy_ctfmod {
	char *module;
	ctf_dict_t *fp;
	struct sy_ctype *types;
	size_t ntypes;
	json_t *desc;         /* the TYPE array, for the members pass */
};

static ctf_id_t
ref(synth *s, struct sy_ctfmod *m, json_t *t, const char *key)
{
	uint64_t id;
	size_t i;

	if (sy_get_u64(s, t, key, 1, 0, UINT64_MAX, &id) != 0)
		return CTF_ERR;
	for (i = 0; i < m->ntypes; i++)
		if (m->types[i].id == id)
			return m->types[i].cid;
	sy_fail(s, "%s %llu names no type listed before it", key,
	    (unsigned long long)id);
	return CTF_ERR;
}

static int
ctf_fail(synth *s, struct sy_ctfmod *m, const char *what)
{
	return sy_fail(s, "libctf refused the %s: %s", what,
	    ctf_errmsg(ctf_errno(m->fp)));
}

static int
add_int(synth *s, struct sy_ctfmod *m, json_t *t, const char *name,
    ctf_id_t *cid)
{
	ctf_encoding_t e;
	uint32_t size, bits;
	int sgn, ch, bl;

	if (sy_get_u32(s, t, "size", 1, 0, 16, &size) != 0 ||
	    sy_get_u32(s, t, "bits", 0, size * 8, size * 8, &bits) != 0 ||
	    sy_get_bool(s, t, "signed", 0, &sgn) != 0 ||
	    sy_get_bool(s, t, "char", 0, &ch) != 0 ||
	    sy_get_bool(s, t, "bool", 0, &bl) != 0)
		return -1;
	memset(&e, 0, sizeof(e));
	e.cte_format = (sgn ? CTF_INT_SIGNED : 0) | (ch ? CTF_INT_CHAR : 0) |
	    (bl ? CTF_INT_BOOL : 0);
	e.cte_bits = bits;
	if ((*cid = ctf_add_integer(m->fp, CTF_ADD_ROOT, name, &e)) ==
	    CTF_ERR)
		return ctf_fail(s, m, "integer");
	return 0;
}

static int
add_type(synth *s, struct sy_ctfmod *m, json_t *t, ctf_id_t *cid)
{
	static const char *const keys[] = { "id", "kind", "name", "size",
	    "signed", "char", "bool", "bits", "type", "nelems", "members",
	    "values", NULL };
	const char *kind, *name = "";
	uint32_t size = 0;
	ctf_id_t r;

	if (sy_keys(s, t, keys) != 0 ||
	    sy_get_str(s, t, "kind", 1, NULL, &kind) != 0 ||
	    sy_get_str(s, t, "name", 0, "", &name) != 0)
		return -1;
	if (strcmp(kind, "int") == 0)
		return add_int(s, m, t, name, cid);
	if (strcmp(kind, "float") == 0) {
		ctf_encoding_t e;

		if (sy_get_u32(s, t, "size", 1, 0, 16, &size) != 0)
			return -1;
		memset(&e, 0, sizeof(e));
		e.cte_format = size == 4 ? CTF_FP_SINGLE : size == 8 ?
		    CTF_FP_DOUBLE : CTF_FP_LDOUBLE;
		e.cte_bits = size * 8;
		if ((*cid = ctf_add_float(m->fp, CTF_ADD_ROOT, name, &e)) ==
		    CTF_ERR)
			return ctf_fail(s, m, "float");
		return 0;
	}
	if (strcmp(kind, "struct") == 0 || strcmp(kind, "union") == 0) {
		if (sy_get_u32(s, t, "size", 1, 0, UINT32_MAX, &size) != 0)
			return -1;
		*cid = kind[0] == 's' ? ctf_add_struct_sized(m->fp,
		    CTF_ADD_ROOT, name[0] ? name : NULL, size) :
		    ctf_add_union_sized(m->fp, CTF_ADD_ROOT,
		    name[0] ? name : NULL, size);
		return *cid == CTF_ERR ? ctf_fail(s, m, kind) : 0;
	}
	if (strcmp(kind, "enum") == 0) {
		json_t *vals = json_object_get(t, "values"), *v;
		size_t i;

		if ((*cid = ctf_add_enum(m->fp, CTF_ADD_ROOT, name)) == CTF_ERR)
			return ctf_fail(s, m, "enum");
		json_array_foreach(vals, i, v) {
			if (!json_is_array(v) || json_array_size(v) != 2 ||
			    !json_is_string(json_array_get(v, 0)) ||
			    !json_is_integer(json_array_get(v, 1)))
				return sy_fail(s, "values[%zu]: expected "
				    "[name, integer]", i);
			if (ctf_add_enumerator(m->fp, *cid, json_string_value(
			    json_array_get(v, 0)), (int)json_integer_value(
			    json_array_get(v, 1))) != 0)
				return ctf_fail(s, m, "enumerator");
		}
		return 0;
	}
	if ((r = ref(s, m, t, "type")) == CTF_ERR)
		return -1;
	if (strcmp(kind, "pointer") == 0)
		*cid = ctf_add_pointer(m->fp, CTF_ADD_ROOT, r);
	else if (strcmp(kind, "typedef") == 0)
		*cid = ctf_add_typedef(m->fp, CTF_ADD_ROOT, name, r);
	else if (strcmp(kind, "const") == 0)
		*cid = ctf_add_const(m->fp, CTF_ADD_ROOT, r);
	else if (strcmp(kind, "volatile") == 0)
		*cid = ctf_add_volatile(m->fp, CTF_ADD_ROOT, r);
	else if (strcmp(kind, "array") == 0) {
		ctf_arinfo_t ar;
		ctf_encoding_t e = { CTF_INT_SIGNED, 0, 32 };
		uint32_t n;

		if (sy_get_u32(s, t, "nelems", 1, 0, UINT32_MAX, &n) != 0)
			return -1;
		ar.ctr_contents = r;
		ar.ctr_index = ctf_lookup_by_name(m->fp, "int");
		if (ar.ctr_index == CTF_ERR &&
		    (ar.ctr_index = ctf_add_integer(m->fp, CTF_ADD_ROOT,
		    "int", &e)) == CTF_ERR)
			return ctf_fail(s, m, "array index type");
		ar.ctr_nelems = n;
		*cid = ctf_add_array(m->fp, CTF_ADD_ROOT, &ar);
	} else
		return sy_fail(s, "kind \"%s\" is not one of int, float, "
		    "pointer, array, struct, union, enum, typedef, const, "
		    "volatile", kind);
	return *cid == CTF_ERR ? ctf_fail(s, m, kind) : 0;
}

static int
add_members(synth *s, struct sy_ctfmod *m, json_t *t, ctf_id_t cid)
{
	static const char *const keys[] = { "name", "type", "offset", NULL };
	json_t *mem = json_object_get(t, "members"), *v;
	size_t i, mark;

	if (mem == NULL)
		return 0;
	mark = sy_key(s, "members");
	if (sy_array(s, mem) != 0)
		return -1;
	json_array_foreach(mem, i, v) {
		const char *name;
		uint64_t off;
		ctf_id_t r;
		size_t mk = sy_idx(s, i);

		if (sy_object(s, v) != 0 || sy_keys(s, v, keys) != 0 ||
		    sy_get_str(s, v, "name", 0, "", &name) != 0 ||
		    sy_get_u64(s, v, "offset", 1, 0, UINT32_MAX, &off) != 0 ||
		    (r = ref(s, m, v, "type")) == CTF_ERR)
			return -1;
		if (ctf_add_member_offset(m->fp, cid, name[0] ? name : NULL, r,
		    (unsigned long)off) != 0)
			return ctf_fail(s, m, "member");
		sy_pop(s, mk);
	}
	sy_pop(s, mark);
	return 0;
}

static int
parse_module(synth *s, json_t *o, struct sy_ctfmod *m)
{
	static const char *const keys[] = { "module", "types", NULL };
	const char *name;
	json_t *types, *t;
	size_t i, mark;
	int err = 0;

	if (sy_object(s, o) != 0 || sy_keys(s, o, keys) != 0 ||
	    sy_get_str(s, o, "module", 1, NULL, &name) != 0)
		return -1;
	if ((m->module = strdup(name)) == NULL)
		return sy_nomem(s);
	if ((m->fp = ctf_create(&err)) == NULL)
		return sy_fail(s, "ctf_create: %s", ctf_errmsg(err));
	/* pointers are as wide as the capture's data model says */
	if (ctf_setmodel(m->fp, s->ilp32 ? CTF_MODEL_ILP32 : CTF_MODEL_LP64)
	    != 0)
		return ctf_fail(s, m, "data model");
	types = json_object_get(o, "types");
	mark = sy_key(s, "types");
	if (sy_array(s, types) != 0)
		return -1;
	m->desc = types;
	if ((m->types = calloc(json_array_size(types) + 1,
	    sizeof(*m->types))) == NULL)
		return sy_nomem(s);
	json_array_foreach(types, i, t) {
		size_t mk = sy_idx(s, i);
		struct sy_ctype *ct = &m->types[m->ntypes];
		size_t k;

		if (sy_object(s, t) != 0 ||
		    sy_get_u64(s, t, "id", 1, 0, UINT64_MAX, &ct->id) != 0)
			return -1;
		for (k = 0; k < m->ntypes; k++)
			if (m->types[k].id == ct->id)
				return sy_fail(s, "id %llu listed twice",
				    (unsigned long long)ct->id);
		if (add_type(s, m, t, &ct->cid) != 0)
			return -1;
		m->ntypes++;
		sy_pop(s, mk);
	}
	json_array_foreach(types, i, t) {
		size_t mk = sy_idx(s, i);

		if (add_members(s, m, t, m->types[i].cid) != 0)
			return -1;
		sy_pop(s, mk);
	}
	sy_pop(s, mark);
	if (ctf_update(m->fp) != 0)
		return ctf_fail(s, m, "types");
	return 0;
}

int
sy_ctf_parse(synth *s, json_t *arr)
{
	json_t *o;
	size_t i, mark;

	if (arr == NULL)
		return 0;
	mark = sy_key(s, "ctf");
	if (sy_array(s, arr) != 0)
		return -1;
	if ((s->ctf = calloc(json_array_size(arr) + 1, sizeof(*s->ctf))) ==
	    NULL)
		return sy_nomem(s);
	json_array_foreach(arr, i, o) {
		size_t mk = sy_idx(s, i);

		if (parse_module(s, o, &s->ctf[s->nctf++]) != 0)
			return -1;
		sy_pop(s, mk);
	}
	sy_pop(s, mark);
	return 0;
}

int
sy_ctf_size(synth *s, const char *typeref, uint32_t *size)
{
	const char *bq = strrchr(typeref, '`');
	unsigned long long id;
	char *end;
	size_t i, k;

	if (bq == NULL || bq == typeref)
		return sy_fail(s, "expected \"module`id\"");
	id = strtoull(bq + 1, &end, 10);
	if (end == bq + 1 || *end != '\0')
		return sy_fail(s, "expected \"module`id\" (a decimal id)");
	for (i = 0; i < s->nctf; i++) {
		struct sy_ctfmod *m = &s->ctf[i];
		ssize_t sz;

		if (strlen(m->module) != (size_t)(bq - typeref) ||
		    strncmp(m->module, typeref, (size_t)(bq - typeref)) != 0)
			continue;
		for (k = 0; k < m->ntypes; k++) {
			if (m->types[k].id != id)
				continue;
			if ((sz = ctf_type_size(m->fp, m->types[k].cid)) <= 0)
				return sy_fail(s, "type %s has no size",
				    typeref);
			*size = (uint32_t)sz;
			return 0;
		}
	}
	return sy_fail(s, "no type %s in \"ctf\"", typeref);
}

int
sy_ctf_write(synth *s, dtc_writer *w)
{
	size_t i, k, len;

	for (i = 0; i < s->nctf; i++) {
		struct sy_ctfmod *m = &s->ctf[i];
		unsigned char *data;
		uint64_t *ids;
		int rc;

		if ((data = ctf_write_mem(m->fp, &len, (size_t)-1)) == NULL)
			return ctf_fail(s, m, "dictionary");
		if ((ids = calloc(2 * m->ntypes + 1, sizeof(*ids))) == NULL) {
			free(data);
			return sy_nomem(s);
		}
		for (k = 0; k < m->ntypes; k++) {
			ids[2 * k] = m->types[k].id;
			ids[2 * k + 1] = (uint64_t)m->types[k].cid;
		}
		rc = dtc_writer_add_ctf(w, m->module, data, len, ids,
		    m->ntypes, s->err);
		free(ids);
		free(data);
		if (rc != DTC_OK)
			return -1;
	}
	return 0;
}

void
sy_ctf_free(synth *s)
{
	size_t i;

	for (i = 0; i < s->nctf; i++) {
		if (s->ctf[i].fp != NULL)
			ctf_dict_close(s->ctf[i].fp);
		free(s->ctf[i].module);
		free(s->ctf[i].types);
	}
	free(s->ctf);
	s->ctf = NULL;
	s->nctf = 0;
}

#else /* !HAVE_LIBCTF */

int
sy_ctf_parse(synth *s, json_t *arr)
{
	if (arr == NULL)
		return 0;
	return sy_fail(s, "\"ctf\" needs GNU libctf, and this dtsnap was "
	    "built without it");
}

int
sy_ctf_size(synth *s, const char *typeref, uint32_t *size)
{
	(void)typeref;
	(void)size;
	return sy_fail(s, "print() needs GNU libctf, and this dtsnap was "
	    "built without it");
}

int
sy_ctf_write(synth *s, dtc_writer *w)
{
	(void)s;
	(void)w;
	return 0;
}

void
sy_ctf_free(synth *s)
{
	(void)s;
}

#endif
