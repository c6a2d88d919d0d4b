/*
 * ctfprint_v2.c - print()'s text as DTrace for Linux (dtrace-utils) prints
 * it, from a GNU libctf dictionary and the bytes of the print() record.
 *
 * The rules are those of dtrace-utils libdtrace/dt_printf.c: dt_print_type()
 * (address line, printsize cut, final brace), dt_print_visit() (one line
 * per value) and dt_print_close_parens() (braces), driven by the member
 * walk of libctf's ctf_type_visit().  The walk is redone here instead of
 * calling ctf_type_visit() so that every type can be checked before libctf
 * follows it (see refs_bounded()); it visits the same nodes in the same
 * order with the same offsets.
 *
 * What dtrace-utils does, quirks included (the unit test pins each one
 * against output of the real dtrace):
 *
 *  - "%p = *\n" first (glibc: "0x..." or "(nil)"), then one line per value
 *    indented 44 + depth spaces: [.member = ](type)value, with a trailing
 *    comma; structs and unions open "(type) {", arrays "(type) [".
 *  - Only the first min(record size, printsize) bytes count: a node that
 *    starts at or past that cut, or sits 10 levels deep, prints "..." and
 *    ends the whole print (nothing after it, not even the "]," of the
 *    array it is in).  A member that starts before the cut is read whole.
 *  - Below the top level, a value whose bytes are all zero prints nothing
 *    (zero enums and NULL pointers included); the top level always prints.
 *  - Closing braces are owed, not tracked per struct: when a node is
 *    shallower than the last printed one, one "}," per level in between is
 *    printed; the top-level "}" comes at the end.  A struct whose bytes are
 *    non-zero but whose members all print nothing (padding) is never
 *    closed.  Floats, functions and the like print nothing but count as
 *    printed for this purpose.
 *  - Array elements: the whole array is skipped if zero; zero elements are
 *    skipped; char arrays (CTF_INT_CHAR, 8 bits: unsigned char too) stop at
 *    the first NUL.  The element type's encoding is looked up without
 *    resolving typedefs, so an array of structs, pointers, arrays or of a
 *    typedef (uint8_t [4]) prints its header line and ends the whole print.
 *  - Integers of 8/16/32/64 bits are read whole at the member's byte
 *    (chars print as '%c' only when the type is named exactly "char");
 *    other widths (bitfields) go through dtrace-utils' shift arithmetic,
 *    which loads 8 bytes at the field's byte but shifts by the bit position
 *    modulo 64, so most bitfields print values that differ from C's (the
 *    real dtrace prints them the same way); a zero result prints nothing.
 *  - Enums read 4 bytes and print the enumerator's name or the number.
 *  - When libctf fails on a node (a member of an incomplete type has no
 *    size, a type name does not fit dtrace's 128 bytes), dtrace-utils
 *    ends the print there without a word and still closes the braces;
 *    so does this file, and returns 0.  It returns -1 only for what dtrace
 *    never met: a type not in the dictionary, reference loops, more than
 *    DTCP_CTF_MAXNODES nodes, no memory.
 *
 * Beyond the record (a hostile type, or the 8-byte load of a bitfield near
 * the end) dtrace-utils reads whatever follows in its buffer; here those
 * bytes read as zero.  dtrace-utils runs on little-endian hosts where char
 * is signed (x86_64): 8-bit signed integers print signed.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_private.h"

#ifdef HAVE_LIBCTF

#define PV2_STARTINDENT 44	/* dt_printf.c DT_PRINT_STARTINDENT */
#define PV2_MAXDEPTH	10	/* DT_PRINT_DEPTH: deeper prints "..." */
#define PV2_NAMELEN	128	/* DT_TYPE_NAMELEN: longer names stop */
#define PV2_ZEROMAX	65536	/* size of dtrace-utils' zeros[] */

/* Budget of type references followed to vet one type (refs_bounded). */
#define PV2_REFBUDGET	4096

/* One print(): the dictionary, the bytes and where the text goes. */
struct pv2 {
	ctf_dict_t *fp;
	const uint8_t *data;
	uint64_t size;		/* record bytes: all that may be read */
	uint64_t cut;		/* min(size, printsize): "..." from here */
	int swap;
	dtc_buf *out;
	size_t lim;		/* out->len at which appending stops (the cap) */
	unsigned long nodes;	/* visits so far, against DTCP_CTF_MAXNODES */
	const char *why;	/* set when we give up (limits, memory) */
};

/*
 * dt_visit_arg's brace bookkeeping: the kind last printed at each depth
 * and the depth last printed at.  Array elements work on a copy, as
 * dtrace-utils does, so they never owe braces to the enclosing struct.
 */
struct pv2_nest {
	int kinds[PV2_MAXDEPTH];
	int last;
};

static int walk(struct pv2 *pv, struct pv2_nest *nest, const char *name,
    ctf_id_t type, uint64_t off, int depth);

/* Past the cap nothing more is kept: the walk goes on (it is bounded by
 * DTCP_CTF_MAXNODES), and the caller cuts the text at the cap. */
static void
out_append(struct pv2 *pv, const void *p, size_t n)
{
	if (pv->why == NULL && pv->out->len < pv->lim &&
	    dtc_buf_append(pv->out, p, n) != 0)
		pv->why = "out of memory";
}

static void
out_indent(struct pv2 *pv, int width)
{
	static const char spaces[] = "                                "
	    "                                ";	/* 64 */
	size_t n;

	while (width > 0) {
		n = (size_t)width < sizeof(spaces) - 1 ? (size_t)width :
		    sizeof(spaces) - 1;
		out_append(pv, spaces, n);
		width -= (int)n;
	}
}

/*
 * n bytes at byte offset off, in the capture's byte order; bytes past the
 * record read as zero (see the top of the file).
 */
static uint64_t
load(const struct pv2 *pv, uint64_t off, unsigned n)
{
	uint8_t b[8] = { 0 };
	uint64_t have;

	if (off < pv->size) {
		have = pv->size - off;
		memcpy(b, pv->data + off, have < n ? (size_t)have : n);
	}
	switch (n) {
	case 1:
		return b[0];
	case 2:
		return dtcp_ld16(b, pv->swap);
	case 4:
		return dtcp_ld32(b, pv->swap);
	default:
		return dtcp_ld64(b, pv->swap);
	}
}

/* Are the len bytes at off all zero?  Past the record counts as zero. */
static int
all_zero(const struct pv2 *pv, uint64_t off, uint64_t len)
{
	uint64_t end, i;

	if (off >= pv->size)
		return 1;
	end = len > pv->size - off ? pv->size : off + len;
	for (i = off; i < end; i++)
		if (pv->data[i] != 0)
			return 0;
	return 1;
}

/*
 * libctf follows type references recursively and unguarded in several
 * places: names of pointer/array/function chains, sizes of arrays,
 * encodings of slices, and typedef chains (its resolve loop only detects
 * cycles through the first or previous link).  A dictionary with a
 * reference cycle would hang libctf or overflow its stack, so every type
 * is walked here first, bounded in depth and in total steps.  Missing
 * types are fine: libctf reports those as errors.
 */
static int
refs_bounded(ctf_dict_t *fp, ctf_id_t type, int depth, unsigned *budget)
{
	ctf_funcinfo_t fi;
	ctf_arinfo_t ar;
	ctf_id_t ref, *argv;
	uint32_t i;
	int kind, rc = 0;

	if (depth > DTCP_CTF_MAXDEPTH || *budget == 0)
		return -1;
	(*budget)--;
	if (type == 0 || (kind = ctf_type_kind(fp, type)) < 0)
		return 0;
	/* Pointers, typedefs, qualifiers and slices: one reference each. */
	if ((ref = ctf_type_reference(fp, type)) != CTF_ERR)
		return refs_bounded(fp, ref, depth + 1, budget);
	switch (kind) {
	case CTF_K_ARRAY:
		if (ctf_array_info(fp, type, &ar) < 0)
			return 0;
		return refs_bounded(fp, ar.ctr_contents, depth + 1, budget);
	case CTF_K_FUNCTION:
		if (ctf_func_type_info(fp, type, &fi) < 0)
			return 0;
		if (refs_bounded(fp, fi.ctc_return, depth + 1, budget) < 0 ||
		    fi.ctc_argc > *budget)
			return -1;
		if (fi.ctc_argc == 0)
			return 0;
		if ((argv = calloc(fi.ctc_argc, sizeof(*argv))) == NULL)
			return -1;
		if (ctf_func_type_args(fp, type, fi.ctc_argc, argv) == 0)
			for (i = 0; i < fi.ctc_argc && rc == 0; i++)
				rc = refs_bounded(fp, argv[i], depth + 1,
				    budget);
		free(argv);
		return rc;
	default:
		return 0;	/* structs, unions, enums, scalars: leaves */
	}
}

static int
vet(struct pv2 *pv, ctf_id_t type)
{
	unsigned budget = PV2_REFBUDGET;

	if (refs_bounded(pv->fp, type, 0, &budget) == 0)
		return 0;
	pv->why = "type references nest too deep or loop";
	return -1;
}

/*
 * dt_print_close_parens(): print the braces owed between the last printed
 * depth and `depth`, if the node last printed at `depth` was a struct or
 * union.  At depth 0 an empty top-level struct still gets its "}".
 */
static void
close_braces(struct pv2 *pv, struct pv2_nest *nest, int depth)
{
	int i;

	if (nest->kinds[depth] != CTF_K_STRUCT &&
	    nest->kinds[depth] != CTF_K_UNION)
		return;
	if (depth == 0 && nest->last == 0)
		nest->last = 1;
	for (i = nest->last - depth; i > 0; i--) {
		out_indent(pv, PV2_STARTINDENT + depth + i - 1);
		out_append(pv, depth > 0 || i > 1 ? "},\n" : "}\n",
		    depth > 0 || i > 1 ? 3 : 2);
		nest->last = depth;
	}
}

/*
 * The value part of an integer's line into val.  Returns its length, 0
 * when the integer prints nothing (a zero bitfield), -1 when libctf fails
 * (dtrace-utils then ends the print).
 */
static int
int_text(struct pv2 *pv, ctf_id_t rtype, const char *tname, uint64_t off,
    char *val, size_t vsize)
{
	ctf_encoding_t e;
	uint64_t word, bit, byte = off / 8;
	unsigned lshift, rshift;
	int64_t v;
	int sgn, n;

	if (ctf_type_encoding(pv->fp, rtype, &e) < 0)
		return -1;
	sgn = (e.cte_format & CTF_INT_SIGNED) != 0;
	switch (e.cte_bits) {
	case 8:
		v = sgn ? (int64_t)(int8_t)load(pv, byte, 1) :
		    (int64_t)load(pv, byte, 1);
		break;
	case 16:
		v = sgn ? (int64_t)(int16_t)load(pv, byte, 2) :
		    (int64_t)load(pv, byte, 2);
		break;
	case 32:
		v = sgn ? (int64_t)(int32_t)load(pv, byte, 4) :
		    (int64_t)load(pv, byte, 4);
		break;
	case 64:
		if (!sgn)
			return snprintf(val, vsize, "(%s)%" PRIu64 ",", tname,
			    load(pv, byte, 8));
		v = (int64_t)load(pv, byte, 8);
		break;
	default:
		if (e.cte_bits > 64)
			return snprintf(val, vsize, "(%s)?(%u bit value),",
			    tname, (unsigned)e.cte_bits);
		/*
		 * dtrace-utils' bitfield arithmetic, kept as is: the shift
		 * takes the bit position modulo 64, not within the word it
		 * loaded.  A 0-bit width shifts right by 64, which x86 does
		 * as a shift by 0.
		 */
		bit = off + e.cte_offset;
		word = load(pv, bit / 8, 8);
		lshift = 63 - (unsigned)(bit % 64);
		rshift = (64 - e.cte_bits) & 63;
		v = (int64_t)((word << lshift) >> rshift);
		if (v == 0)
			return 0;
		break;
	}
	if ((e.cte_format & CTF_INT_CHAR) != 0 && strcmp(tname, "char") == 0) {
		/* %c of any byte, NUL included, as dtrace's stdio writes it. */
		n = snprintf(val, vsize, "(%s)'", tname);
		if (n < 0 || (size_t)n + 3 >= vsize)
			return -1;
		val[n++] = (char)v;
		val[n++] = '\'';
		val[n++] = ',';
		val[n] = '\0';
		return n;
	}
	return snprintf(val, vsize, "(%s)%" PRId64 ",", tname, v);
}

/*
 * dt_print_visit(): one node.  name is the member name ("" at the top,
 * NULL for array elements), off its bit offset in the record.  Returns 0
 * to go on, -1 to end the print (as the visitor's -1 ends ctf_type_visit).
 */
static int
visit(struct pv2 *pv, struct pv2_nest *nest, const char *name,
    ctf_id_t type, uint64_t off, int depth)
{
	char tname[PV2_NAMELEN], val[PV2_NAMELEN + 64];
	uint64_t byte = off / 8, total, eoff;
	ctf_arinfo_t ar = { 0, 0, 0 };
	ctf_encoding_t e;
	ssize_t tsize, asize = 0;
	ctf_id_t rtype;
	const char *ename = NULL;
	size_t len;
	uint32_t i;
	int rkind, n, ischar;

	if (++pv->nodes > DTCP_CTF_MAXNODES) {
		pv->why = "type has too many members to print";
		return -1;
	}
	if (byte >= pv->cut || depth >= PV2_MAXDEPTH) {
		out_indent(pv, PV2_STARTINDENT + depth);
		out_append(pv, "...\n", 4);
		return -1;
	}
	if (ctf_type_name(pv->fp, type, tname, sizeof(tname)) == NULL)
		return -1;
	if ((rtype = ctf_type_resolve(pv->fp, type)) == CTF_ERR)
		return -1;
	rkind = ctf_type_kind(pv->fp, rtype);

	/* Braces owed by the deeper nodes printed last. */
	if (nest->last > depth)
		close_braces(pv, nest, depth);

	if (depth > 0) {
		if ((tsize = ctf_type_size(pv->fp, rtype)) < 0)
			return -1;
		if (tsize < PV2_ZEROMAX && all_zero(pv, byte, (uint64_t)tsize))
			return 0;
	}
	nest->kinds[depth] = rkind;
	nest->last = depth;

	/* An anonymous struct, union or enum is named "struct ". */
	len = strlen(tname);
	if (len > 0 && tname[len - 1] == ' ')
		tname[len - 1] = '\0';

	switch (rkind) {
	case CTF_K_STRUCT:
	case CTF_K_UNION:
		n = snprintf(val, sizeof(val), "(%s) {", tname);
		break;
	case CTF_K_ARRAY:
		if (ctf_array_info(pv->fp, rtype, &ar) < 0 ||
		    (asize = ctf_type_size(pv->fp, ar.ctr_contents)) < 0)
			return -1;
		n = snprintf(val, sizeof(val), "(%s) [%s", tname,
		    ar.ctr_nelems == 0 ? "]," : "");
		break;
	case CTF_K_INTEGER:
		n = int_text(pv, rtype, tname, off, val, sizeof(val));
		if (n <= 0)
			return n;
		break;
	case CTF_K_ENUM: {
		int32_t ev = (int32_t)load(pv, byte, 4);

		/* The name is appended below: it has no length bound. */
		if ((ename = ctf_enum_name(pv->fp, rtype, ev)) != NULL)
			n = snprintf(val, sizeof(val), "(%s)", tname);
		else
			n = snprintf(val, sizeof(val), "(%s)%" PRId32 ",",
			    tname, ev);
		break;
	}
	case CTF_K_POINTER:
		n = snprintf(val, sizeof(val), "(%s)0x%" PRIx64 ",", tname,
		    load(pv, byte, 8));
		break;
	default:
		return 0;	/* floats, functions...: nothing printed */
	}

	/* val holds a type name of under PV2_NAMELEN and a number. */
	if (n < 0 || (size_t)n >= sizeof(val))
		return -1;
	out_indent(pv, PV2_STARTINDENT + depth);
	if (depth > 0 && name != NULL && name[0] != '\0') {
		out_append(pv, ".", 1);
		out_append(pv, name, strlen(name));
		out_append(pv, " = ", 3);
	}
	out_append(pv, val, (size_t)n);
	if (ename != NULL) {
		out_append(pv, ename, strlen(ename));
		out_append(pv, ",", 1);
	}
	out_append(pv, "\n", 1);
	if (rkind != CTF_K_ARRAY)
		return pv->why != NULL ? -1 : 0;

	/*
	 * ctf_type_visit does not descend into arrays: the elements are
	 * visited here, with a copy of the brace bookkeeping.  The encoding
	 * lookup fails for anything but integers, floats and enums (typedefs
	 * are not resolved first), which ends the print after the header.
	 */
	if (ctf_type_encoding(pv->fp, ar.ctr_contents, &e) < 0)
		return -1;
	if (__builtin_mul_overflow((uint64_t)asize, (uint64_t)ar.ctr_nelems,
	    &total))
		total = UINT64_MAX;
	if (all_zero(pv, byte, total))
		return 0;
	ischar = (e.cte_format & CTF_INT_CHAR) != 0 && e.cte_bits == 8;
	{
		struct pv2_nest copy = *nest;

		for (i = 0; i < ar.ctr_nelems; i++) {
			if (ischar && load(pv, byte + i, 1) == 0)
				break;
			/* Past 2^64 bits is past any cut: "..." there. */
			if (__builtin_mul_overflow((uint64_t)asize, i, &eoff) ||
			    __builtin_mul_overflow(eoff, 8, &eoff) ||
			    __builtin_add_overflow(off, eoff, &eoff))
				eoff = UINT64_MAX;
			if (visit(pv, &copy, NULL, ar.ctr_contents, eoff,
			    depth + 1) != 0)
				return -1;
		}
	}
	if (ar.ctr_nelems > 0) {
		out_indent(pv, PV2_STARTINDENT + depth);
		out_append(pv, "],\n", 3);
	}
	return pv->why != NULL ? -1 : 0;
}

/*
 * libctf's ctf_type_rvisit(): visit the type, then each member of a
 * struct or union in declaration order (anonymous members as members
 * named ""), at the member's offset added to ours.  A type libctf cannot
 * resolve ends the walk, unless it is merely nonrepresentable.
 */
static int
walk(struct pv2 *pv, struct pv2_nest *nest, const char *name, ctf_id_t type,
    uint64_t off, int depth)
{
	ctf_next_t *it = NULL;
	const char *mname;
	ctf_id_t rtype, mtype;
	ssize_t moff;
	int kind, rc;

	if (vet(pv, type) < 0)
		return -1;
	rtype = ctf_type_resolve(pv->fp, type);
	if (rtype == CTF_ERR && ctf_errno(pv->fp) != ECTF_NONREPRESENTABLE)
		return -1;
	if ((rc = visit(pv, nest, name, type, off, depth)) != 0)
		return rc;
	if (rtype == CTF_ERR)
		return 0;
	kind = ctf_type_kind(pv->fp, rtype);
	if (kind != CTF_K_STRUCT && kind != CTF_K_UNION)
		return 0;
	while ((moff = ctf_member_next(pv->fp, rtype, &it, &mname, &mtype,
	    0)) >= 0) {
		rc = walk(pv, nest, mname, mtype, off + (uint64_t)moff,
		    depth + 1);
		if (rc != 0) {
			ctf_next_destroy(it);
			return rc;
		}
	}
	return ctf_errno(pv->fp) == ECTF_NEXT_END ? 0 : -1;
}

int
dtcp_ctfprint_v2(ctf_dict_t *fp, ctf_id_t type, uint64_t addr,
    const uint8_t *data, size_t size, uint64_t printsize, int swap,
    dtc_buf *out, size_t lim, const char **why)
{
	struct pv2_nest nest;
	struct pv2 pv;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (fp == NULL || out == NULL || (data == NULL && size > 0)) {
		*why = "no dictionary, data or output";
		return -1;
	}
	if (ctf_type_kind(fp, type) < 0) {
		*why = "type not in the dictionary";
		return -1;
	}
	memset(&pv, 0, sizeof(pv));
	pv.fp = fp;
	pv.data = data;
	pv.size = size;
	pv.cut = size < printsize ? size : printsize;
	pv.swap = swap;
	pv.out = out;
	pv.lim = lim;
	/* Kinds are garbage in dtrace-utils until set; 0 closes nothing. */
	memset(&nest, 0, sizeof(nest));

	if (addr == 0)
		out_append(&pv, "(nil) = *\n", 10);
	else if (dtc_buf_printf(out, "0x%" PRIx64 " = *\n", addr) < 0)
		pv.why = "out of memory";

	/* Like dt_print_type(), ignore why the walk stopped... */
	(void)walk(&pv, &nest, "", type, 0, 0);
	/* ...unless it stopped on one of our own limits. */
	if (pv.why == NULL)
		close_braces(&pv, &nest, 0);
	if (pv.why != NULL) {
		*why = pv.why;
		return -1;
	}
	return 0;
}

#endif /* HAVE_LIBCTF */
