/*
 * ctfwalk.c - a flavor-free walk of a typed value (for JSON and CBOR).
 *
 * dtcp_ctf_walk lays a CTF type over a print() record's bytes and calls
 * back once per node in layout order (dtc_tnode, dtconsume.h): a node
 * per scalar; STRUCT, UNION and ARRAY open with a node, then their
 * members or elements one level deeper, then an END node at the opening
 * node's depth.  Typedefs and qualifiers are looked through for the
 * value, but each node's `type` is the type as declared (ctf_type_aname:
 * "pid_t", not "int").  Sizes are libctf's (ctf_type_size).
 *
 * The record may be shorter than the type (dtrace-utils cuts it to
 * printsize; a capture may be damaged).  A node the record ends before
 * has data NULL and truncated 1; a node the record ends inside has data
 * set, size cut to the bytes that are there, and truncated 1 (a scalar
 * then has no value).  Whenever data is set, data[0..size) lies inside
 * the record: nothing here reads outside it either.
 *
 * Bit-fields (a slice, or an int whose bits or bit offset are not its
 * bytes) are INT or ENUM nodes with size 0, bits their width and
 * bit_offset their first bit, counted from the start of the value in the
 * data's byte order: from the least significant bit of the first byte on
 * a little-endian target, from the most significant on a big-endian one
 * (as DWARF and CTF count them).  data then points at the field's first
 * byte.  An enum bit-field is unsigned.
 *
 * The dictionary comes from dtcp_ctf_open, whose checks make every libctf
 * call here terminate; the walk bounds itself anyway: DTCP_CTF_MAXDEPTH
 * levels, DTCP_CTF_MAXNODES nodes (END nodes included), bit offsets that
 * fit dtc_tnode's 32 bits.
 */
#include "ctf_private.h"

#ifdef HAVE_LIBCTF

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	ctf_dict_t *fp;
	const uint8_t *data;
	size_t size;
	int big;        /* the data is big-endian */
	int (*fn)(const dtc_tnode *n, void *arg);
	void *arg;
	const char **why;
	uint32_t nodes;
};

/* Where a node of nbytes at byte off lies in the record (see the top). */
static void
place(const struct walk *w, dtc_tnode *n, uint64_t off, uint64_t nbytes)
{
	n->size = nbytes;
	if (off <= w->size && nbytes <= w->size - off) {
		n->data = w->data + off;
	} else if (off < w->size) {
		n->data = w->data + off;
		n->size = w->size - off;
		n->truncated = 1;
	} else {
		n->data = NULL;
		n->truncated = 1;
	}
}

/* The unsigned integer of nbytes (1..8) at data[off], whole in data. */
static uint64_t
read_uint(const struct walk *w, uint64_t off, unsigned nbytes)
{
	const uint8_t *p = w->data + off;
	uint64_t u = 0;
	unsigned k;

	for (k = 0; k < nbytes; k++)
		u |= (uint64_t)p[k] << 8 * (w->big ? nbytes - 1 - k : k);
	return u;
}

/* The bits-wide (1..64) field at bit pos, whole in data (see the top). */
static uint64_t
read_bits(const struct walk *w, uint64_t pos, unsigned bits)
{
	uint64_t u = 0, p;
	unsigned j;

	for (j = 0; j < bits; j++) {
		p = pos + j;
		if (w->big)
			u = u << 1 | ((w->data[p / 8] >> (7 - p % 8)) & 1);
		else
			u |= (uint64_t)((w->data[p / 8] >> (p % 8)) & 1) << j;
	}
	return u;
}

static int64_t
sign_extend(uint64_t u, unsigned bits)
{
	if (bits < 64 && (u >> (bits - 1)) & 1)
		u |= ~0ULL << bits;
	return (int64_t)u;
}

/* A bit-field node: placed over the bytes it spans, decoded when whole. */
static void
bitfield(const struct walk *w, dtc_tnode *n, uint64_t pos, unsigned bits)
{
	uint64_t first = pos / 8, last = (pos + bits - 1) / 8;

	place(w, n, first, last - first + 1);
	n->size = 0;
	n->bits = bits;
	if (!n->truncated)
		n->u = read_bits(w, pos, bits);
}

static int
emit(struct walk *w, const dtc_tnode *n)
{
	if (++w->nodes > DTCP_CTF_MAXNODES) {
		*w->why = "typed value of more than 100000 nodes";
		return -1;
	}
	return w->fn(n, w->arg);
}

static int walk_value(struct walk *w, ctf_id_t type, int depth,
    const char *name, uint64_t index, uint64_t pos, const char *tname);

/* The members of struct or union r, one level deeper. */
static int
walk_members(struct walk *w, ctf_id_t r, int depth, uint64_t pos)
{
	ctf_next_t *it = NULL;
	const char *mname;
	ctf_id_t mtype;
	ssize_t off;
	int rc;

	while ((off = ctf_member_next(w->fp, r, &it, &mname, &mtype, 0)) >= 0) {
		if ((rc = walk_value(w, mtype, depth + 1, mname, 0, pos + off,
		    NULL)) != 0) {
			ctf_next_destroy(it);
			return rc;
		}
	}
	if (ctf_errno(w->fp) != ECTF_NEXT_END) {
		*w->why = "struct members libctf cannot read";
		return -1;
	}
	return 0;
}

/* The elements of array r, one level deeper. */
static int
walk_elements(struct walk *w, ctf_id_t r, int depth, uint64_t pos)
{
	ctf_arinfo_t ar;
	ssize_t esize;
	char *ename;
	uint32_t i;
	int rc = 0;

	if (ctf_array_info(w->fp, r, &ar) < 0) {
		*w->why = "array libctf cannot read";
		return -1;
	}
	if ((esize = ctf_type_size(w->fp, ar.ctr_contents)) < 0)
		esize = 0;
	/* one name for all the elements */
	ename = ctf_type_aname(w->fp, ar.ctr_contents);
	for (i = 0; i < ar.ctr_nelems && rc == 0; i++) {
		uint64_t off;

		/* walk_value stops at 512 MiB; here only overflow counts */
		if (__builtin_mul_overflow((uint64_t)i, (uint64_t)esize * 8,
		    &off) || off > UINT32_MAX) {
			*w->why = "typed value of 512 MiB or more";
			rc = -1;
			break;
		}
		rc = walk_value(w, ar.ctr_contents, depth + 1, NULL, i,
		    pos + off, ename ? ename : "(?)");
	}
	free(ename);
	return rc;
}

/*
 * The scalar node n of kind `kind` (resolved type r, ctf_type_size
 * nbytes) at bit pos: its value, or OTHER when it has none to show.
 */
static void
scalar(struct walk *w, dtc_tnode *n, ctf_id_t r, int kind, ssize_t nbytes,
    uint64_t pos)
{
	ctf_encoding_t e;
	uint64_t bitpos;
	int whole;

	n->kind = DTC_T_OTHER;
	whole = pos % 8 == 0 && (nbytes == 1 || nbytes == 2 || nbytes == 4 ||
	    nbytes == 8);
	if (kind == DTC_T_POINTER) {
		place(w, n, pos / 8, nbytes);
		if (whole) {
			n->kind = DTC_T_POINTER;
			n->bits = 8 * nbytes;
			if (!n->truncated)
				n->u = read_uint(w, pos / 8, nbytes);
		}
		return;
	}
	memset(&e, 0, sizeof(e));
	if (ctf_type_encoding(w->fp, r, &e) < 0) {
		place(w, n, pos / 8, nbytes);
		return;
	}
	bitpos = pos + e.cte_offset;

	if (kind == DTC_T_FLOAT) {
		place(w, n, pos / 8, nbytes);
		/* complex, interval and imaginary kinds have no one value;
		 * long double (16 bytes) is not a host type to convert */
		if (!whole || e.cte_offset != 0 || e.cte_bits != 8 * nbytes ||
		    nbytes < 4 || (e.cte_format != 0 &&
		    e.cte_format != CTF_FP_SINGLE &&
		    e.cte_format != CTF_FP_DOUBLE &&
		    e.cte_format != CTF_FP_LDOUBLE))
			return;
		n->kind = DTC_T_FLOAT;
		n->bits = 8 * nbytes;
		if (n->truncated)
			return;
		if (nbytes == 4) {
			uint32_t u = read_uint(w, pos / 8, 4);
			float f;

			memcpy(&f, &u, sizeof(f));
			n->f = f;
		} else {
			uint64_t u = read_uint(w, pos / 8, 8);
			double d;

			memcpy(&d, &u, sizeof(d));
			n->f = d;
		}
		return;
	}

	if (kind == DTC_T_ENUM) {
		n->kind = DTC_T_ENUM;
		n->is_signed = 1;
		if (e.cte_bits != 0) {
			/* a slice of an enum: a bit-field */
			if (e.cte_bits > 64) {
				n->kind = DTC_T_OTHER;
				place(w, n, pos / 8, nbytes);
				return;
			}
			n->is_signed = 0;
			n->bit_offset = (uint32_t)bitpos;
			bitfield(w, n, bitpos, e.cte_bits);
			n->i = (int64_t)n->u;
		} else {
			place(w, n, pos / 8, nbytes);
			if (!whole) {
				n->kind = DTC_T_OTHER;
				return;
			}
			n->bits = 8 * nbytes;
			if (!n->truncated) {
				n->u = read_uint(w, pos / 8, nbytes);
				n->i = sign_extend(n->u, n->bits);
			}
		}
		if (!n->truncated && n->i >= INT_MIN && n->i <= INT_MAX)
			n->enumerator = ctf_enum_name(w->fp, r, (int)n->i);
		return;
	}

	/* an integer: a bit-field unless its bits are its bytes */
	n->is_signed = (e.cte_format & CTF_INT_SIGNED) != 0;
	if (e.cte_bits != 8 * (uint64_t)nbytes || bitpos % 8 != 0) {
		if (e.cte_bits == 0 || e.cte_bits > 64) {
			place(w, n, pos / 8, nbytes);
			return;
		}
		n->kind = DTC_T_INT;
		n->bit_offset = (uint32_t)bitpos;
		bitfield(w, n, bitpos, e.cte_bits);
	} else {
		place(w, n, bitpos / 8, nbytes);
		if (nbytes != 1 && nbytes != 2 && nbytes != 4 && nbytes != 8)
			return;
		n->kind = DTC_T_INT;
		n->bit_offset = (uint32_t)bitpos;
		n->bits = e.cte_bits;
		if (!n->truncated)
			n->u = read_uint(w, bitpos / 8, nbytes);
	}
	n->is_char = (e.cte_format & CTF_INT_CHAR) && n->bits == 8;
	if (!n->truncated)
		n->i = n->is_signed ? sign_extend(n->u, n->bits) :
		    (int64_t)n->u;
}

/*
 * The value of type `type` at bit pos of the record, as node(s) at depth.
 * tname, when given, is the type's name (array elements share one).
 */
static int
walk_value(struct walk *w, ctf_id_t type, int depth, const char *name,
    uint64_t index, uint64_t pos, const char *tname)
{
	dtc_tnode n;
	char *owned = NULL;
	ctf_id_t r;
	ssize_t nbytes;
	int kind, rc;

	if (depth >= DTCP_CTF_MAXDEPTH) {
		*w->why = "typed value nested more than 64 levels deep";
		return -1;
	}
	if (pos > UINT32_MAX) {
		*w->why = "typed value of 512 MiB or more";
		return -1;
	}
	if (tname == NULL) {
		owned = ctf_type_aname(w->fp, type);
		tname = owned ? owned : "(?)";
	}
	memset(&n, 0, sizeof(n));
	n.depth = depth;
	n.name = name;
	n.type = tname;
	n.index = index;
	n.bit_offset = (uint32_t)pos;

	/* void, a forward, a function: a node with no value */
	kind = -1;
	if ((r = ctf_type_resolve(w->fp, type)) != CTF_ERR)
		kind = ctf_type_kind(w->fp, r);
	if ((nbytes = ctf_type_size(w->fp, type)) < 0)
		nbytes = 0;

	switch (kind) {
	case CTF_K_STRUCT:
	case CTF_K_UNION:
	case CTF_K_ARRAY:
		n.kind = kind == CTF_K_STRUCT ? DTC_T_STRUCT :
		    kind == CTF_K_UNION ? DTC_T_UNION : DTC_T_ARRAY;
		if (kind == CTF_K_ARRAY) {
			ctf_arinfo_t ar;

			if (ctf_array_info(w->fp, r, &ar) == 0)
				n.nelems = ar.ctr_nelems;
		}
		place(w, &n, pos / 8, nbytes);
		if ((rc = emit(w, &n)) != 0)
			break;
		rc = kind == CTF_K_ARRAY ?
		    walk_elements(w, r, depth, pos) :
		    walk_members(w, r, depth, pos);
		if (rc != 0)
			break;
		/* END repeats the opening node, without a value */
		n.kind = DTC_T_END;
		rc = emit(w, &n);
		break;
	case CTF_K_INTEGER:
		scalar(w, &n, r, DTC_T_INT, nbytes, pos);
		rc = emit(w, &n);
		break;
	case CTF_K_FLOAT:
		scalar(w, &n, r, DTC_T_FLOAT, nbytes, pos);
		rc = emit(w, &n);
		break;
	case CTF_K_ENUM:
		scalar(w, &n, r, DTC_T_ENUM, nbytes, pos);
		rc = emit(w, &n);
		break;
	case CTF_K_POINTER:
		scalar(w, &n, r, DTC_T_POINTER, nbytes, pos);
		rc = emit(w, &n);
		break;
	default:
		n.kind = DTC_T_OTHER;
		place(w, &n, pos / 8, nbytes);
		rc = emit(w, &n);
		break;
	}
	free(owned);
	return rc;
}

int
dtcp_ctf_walk(ctf_dict_t *fp, ctf_id_t type, const uint8_t *data,
    size_t size, int swap, int (*fn)(const dtc_tnode *n, void *arg),
    void *arg, const char **why)
{
	const char *ignored;
	struct walk w;
	ssize_t nbytes;

	if (why == NULL)
		why = &ignored;
	if (fp == NULL || fn == NULL || (data == NULL && size > 0)) {
		*why = "no dictionary, callback or data";
		return -1;
	}
	if (ctf_type_kind(fp, type) < 0) {
		*why = "type not in the dictionary";
		return -1;
	}
	if ((nbytes = ctf_type_size(fp, type)) > 0 &&
	    (uint64_t)nbytes > UINT32_MAX / 8) {
		*why = "typed value of 512 MiB or more";
		return -1;
	}
	memset(&w, 0, sizeof(w));
	w.fp = fp;
	w.data = data;
	w.size = size;
	w.big = (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != (swap != 0);
	w.fn = fn;
	w.arg = arg;
	w.why = why;
	return walk_value(&w, type, 0, NULL, 0, 0, NULL);
}

#endif /* HAVE_LIBCTF */
