/*
 * record_ctf.c - the types a capture's print() records need, copied out
 * of libdtrace's CTF into a small dictionary of their own.
 *
 * libctf's ctf_add_type() would do the copy, but the libctf of binutils
 * 2.40 turns an anonymous union into a struct on the way (seen with
 * dtrace-utils' own test struct: `union { __u8 c; __u64 d; } u` came out
 * as "struct"), and dtrace-utils prints the kind: "(union) {".  So the
 * copy is made here, type by type, with libctf's ctf_add_* calls.
 *
 * What print() shows decides what is copied: a value's own type in full
 * (members, array contents, typedef chains, enumerators, bit-field
 * slices); behind a pointer only the name, since a pointer prints as its
 * address and type name.  A struct behind a pointer becomes a forward
 * declaration, which keeps a kernel type's copy to its own members
 * instead of the kernel's type graph.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <ctf-api.h>

#include "record.h"

/* A type already copied: src id -> dst id; full: not just a forward. */
struct copied {
	ctf_id_t src, dst;
	int full;
};

struct copy {
	ctf_dict_t *src, *dst;
	struct copied *done;
	size_t ndone, cap;
	int depth;
};

/* Deeper than any C type a print() can name: a loop in hostile CTF. */
#define MAX_DEPTH 256

static ctf_id_t copy_type(struct copy *c, ctf_id_t id, int full);

static struct copied *
find(struct copy *c, ctf_id_t id)
{
	size_t i;

	for (i = 0; i < c->ndone; i++)
		if (c->done[i].src == id)
			return &c->done[i];
	return NULL;
}

static ctf_id_t
remember(struct copy *c, ctf_id_t src, ctf_id_t dst, int full)
{
	struct copied *d = find(c, src), *grown;

	if (dst == CTF_ERR)
		return CTF_ERR;
	if (d == NULL) {
		if (c->ndone == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 64;

			if ((grown = realloc(c->done, cap * sizeof(*grown))) ==
			    NULL)
				return CTF_ERR;
			c->done = grown;
			c->cap = cap;
		}
		d = &c->done[c->ndone++];
		d->src = src;
	}
	d->dst = dst;
	d->full = full;
	return dst;
}

static ctf_id_t
copy_members(struct copy *c, ctf_id_t id, ctf_id_t sid)
{
	ctf_next_t *it = NULL;
	const char *name;
	ctf_id_t mtype, mt;
	ssize_t off;

	while ((off = ctf_member_next(c->src, id, &it, &name, &mtype, 0)) >=
	    0) {
		if ((mt = copy_type(c, mtype, 1)) == CTF_ERR ||
		    ctf_add_member_offset(c->dst, sid,
		    name != NULL && name[0] ? name : NULL,
		    mt, (unsigned long)off) != 0) {
			ctf_next_destroy(it);
			return CTF_ERR;
		}
	}
	if (ctf_errno(c->src) != ECTF_NEXT_END)
		return CTF_ERR;
	return sid;
}

static ctf_id_t
copy_sou(struct copy *c, ctf_id_t id, int kind, const char *name, int full)
{
	ssize_t size = ctf_type_size(c->src, id);
	ctf_id_t sid;

	if (!full && name[0] != '\0')
		return remember(c, id, ctf_add_forward(c->dst, CTF_ADD_ROOT,
		    name, (uint32_t)kind), 0);
	sid = kind == CTF_K_UNION ?
	    ctf_add_union_sized(c->dst, CTF_ADD_ROOT, name[0] ? name : NULL,
	    (size_t)size) :
	    ctf_add_struct_sized(c->dst, CTF_ADD_ROOT, name[0] ? name : NULL,
	    (size_t)size);
	/* remembered before its members: a member may point back to it */
	if (remember(c, id, sid, 1) == CTF_ERR)
		return CTF_ERR;
	return copy_members(c, id, sid);
}

static ctf_id_t
copy_enum(struct copy *c, ctf_id_t id, const char *name)
{
	ctf_next_t *it = NULL;
	const char *en;
	ctf_id_t eid;
	int val;

	if ((eid = ctf_add_enum(c->dst, CTF_ADD_ROOT, name[0] ? name : NULL))
	    == CTF_ERR)
		return CTF_ERR;
	while ((en = ctf_enum_next(c->src, id, &it, &val)) != NULL)
		if (ctf_add_enumerator(c->dst, eid, en, val) != 0) {
			ctf_next_destroy(it);
			return CTF_ERR;
		}
	return eid;
}

static ctf_id_t
copy_function(struct copy *c, ctf_id_t id)
{
	ctf_funcinfo_t fi;
	ctf_id_t *args = NULL, r;
	uint32_t i;

	if (ctf_func_type_info(c->src, id, &fi) != 0 ||
	    (args = calloc(fi.ctc_argc + 1, sizeof(*args))) == NULL ||
	    ctf_func_type_args(c->src, id, fi.ctc_argc, args) != 0)
		goto fail;
	if ((fi.ctc_return = copy_type(c, fi.ctc_return, 0)) == CTF_ERR)
		goto fail;
	for (i = 0; i < fi.ctc_argc; i++)
		if ((args[i] = copy_type(c, args[i], 0)) == CTF_ERR)
			goto fail;
	r = ctf_add_function(c->dst, CTF_ADD_ROOT, &fi, args);
	free(args);
	return r;
fail:
	free(args);
	return CTF_ERR;
}

/* full: the value is shown (copy it all); else only its name is. */
static ctf_id_t
copy_type(struct copy *c, ctf_id_t id, int full)
{
	struct copied *d = find(c, id);
	char name[1024];
	ctf_encoding_t e;
	ctf_arinfo_t ar;
	ctf_id_t r = CTF_ERR, ref;
	int kind;

	if (d != NULL && (d->full || !full))
		return d->dst;
	if (id == 0)
		return 0;       /* void */
	if (++c->depth > MAX_DEPTH) {
		c->depth--;
		return CTF_ERR;
	}
	kind = ctf_type_kind(c->src, id);
	if (ctf_type_name(c->src, id, name, sizeof(name)) == NULL)
		name[0] = '\0';
	switch (kind) {
	case CTF_K_INTEGER:
	case CTF_K_FLOAT:
		if (ctf_type_encoding(c->src, id, &e) != 0)
			break;
		r = kind == CTF_K_INTEGER ?
		    ctf_add_integer(c->dst, CTF_ADD_ROOT, name, &e) :
		    ctf_add_float(c->dst, CTF_ADD_ROOT, name, &e);
		break;
	case CTF_K_STRUCT:
	case CTF_K_UNION: {
		/* the tag alone: "struct foo" names tag "foo" */
		const char *tag = strchr(name, ' ');

		tag = tag != NULL ? tag + 1 : "";
		r = copy_sou(c, id, kind, tag, full);
		c->depth--;
		return r;
	}
	case CTF_K_ENUM: {
		const char *tag = strncmp(name, "enum ", 5) == 0 ? name + 5 :
		    name;

		r = copy_enum(c, id, tag);
		break;
	}
	case CTF_K_FORWARD: {
		const char *tag = strchr(name, ' ');

		r = ctf_add_forward(c->dst, CTF_ADD_ROOT, tag != NULL ?
		    tag + 1 : name, (uint32_t)ctf_type_kind_forwarded(c->src,
		    id));
		break;
	}
	case CTF_K_POINTER:
		ref = ctf_type_reference(c->src, id);
		if (ref != CTF_ERR && (ref = copy_type(c, ref, 0)) != CTF_ERR)
			r = ctf_add_pointer(c->dst, CTF_ADD_ROOT, ref);
		break;
	case CTF_K_TYPEDEF:
	case CTF_K_VOLATILE:
	case CTF_K_CONST:
	case CTF_K_RESTRICT:
		ref = ctf_type_reference(c->src, id);
		if (ref == CTF_ERR || (ref = copy_type(c, ref, full)) ==
		    CTF_ERR)
			break;
		r = kind == CTF_K_TYPEDEF ? ctf_add_typedef(c->dst,
		    CTF_ADD_ROOT, name, ref) : kind == CTF_K_VOLATILE ?
		    ctf_add_volatile(c->dst, CTF_ADD_ROOT, ref) :
		    kind == CTF_K_CONST ? ctf_add_const(c->dst, CTF_ADD_ROOT,
		    ref) : ctf_add_restrict(c->dst, CTF_ADD_ROOT, ref);
		break;
	case CTF_K_ARRAY:
		if (ctf_array_info(c->src, id, &ar) != 0 ||
		    (ar.ctr_contents = copy_type(c, ar.ctr_contents, full)) ==
		    CTF_ERR ||
		    (ar.ctr_index = copy_type(c, ar.ctr_index, 1)) == CTF_ERR)
			break;
		r = ctf_add_array(c->dst, CTF_ADD_ROOT, &ar);
		break;
	case CTF_K_SLICE:
		/* a bit-field: the encoding says which bits of which type */
		ref = ctf_type_reference(c->src, id);
		if (ctf_type_encoding(c->src, id, &e) != 0 || ref == CTF_ERR ||
		    (ref = copy_type(c, ref, 1)) == CTF_ERR)
			break;
		r = ctf_add_slice(c->dst, CTF_ADD_ROOT, ref, &e);
		break;
	case CTF_K_FUNCTION:
		r = copy_function(c, id);
		break;
	default:
		r = ctf_add_unknown(c->dst, CTF_ADD_ROOT, name);
		break;
	}
	c->depth--;
	return remember(c, id, r, full);
}

unsigned char *
rec_ctf_extract(struct ctf_dict *src, unsigned long type, size_t *size,
    unsigned long *newid, const char **why)
{
	struct copy c;
	unsigned char *data = NULL;
	int err = 0;

	memset(&c, 0, sizeof(c));
	c.src = src;
	if ((c.dst = ctf_create(&err)) == NULL) {
		*why = ctf_errmsg(err);
		return NULL;
	}
	if ((*newid = copy_type(&c, (ctf_id_t)type, 1)) == CTF_ERR ||
	    ctf_update(c.dst) != 0 ||
	    (data = ctf_write_mem(c.dst, size, (size_t)-1)) == NULL)
		*why = ctf_errno(c.dst) != 0 ? ctf_errmsg(ctf_errno(c.dst)) :
		    ctf_errno(src) != 0 ? ctf_errmsg(ctf_errno(src)) :
		    "the type cannot be copied";
	ctf_dict_close(c.dst);
	free(c.done);
	return data;
}
