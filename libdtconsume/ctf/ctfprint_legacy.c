/*
 * ctfprint_legacy.c - print() as illumos and FreeBSD dtrace(1) print it.
 *
 * The rules are those of libdtrace's dtrace_print() (lib/libdtrace/common/
 * dt_print.c: dt_print_member, dt_print_int, print_bitfield, dt_print_hex,
 * dt_print_float, dt_print_ptr, dt_print_array, dt_print_enum, ...), the
 * walk of the illumos/FreeBSD libctf ctf_type_visit() it runs under, and
 * that libctf's ctf_type_name() and ctf_type_size().  The dictionary is a
 * GNU libctf one, so those three are re-done here on top of GNU's
 * primitive calls: GNU's own ctf_type_name() spells function pointers,
 * forwards and anonymous types differently, and its ctf_type_resolve()
 * and ctf_type_size() follow type chains without a bound.
 *
 * What dtrace_print() prints, in short:
 *
 *   - ctf_type_visit() calls the printer for the value's type (depth 0)
 *     and then, depth first, for every member of every struct or union,
 *     anonymous ones included (depth + 1), offsets in bits.
 *   - Each call prints "<indent><type name>[ <member>[ :<bits>] =] <value>"
 *     and a newline; the indent is 4 spaces per depth plus array nesting.
 *     No space goes between the type and the member when the type name
 *     ends in '*' or ' ' (anonymous structs are named "struct ").
 *   - A struct or union's value is "{"; its closing braces are printed
 *     lazily, when a later member is shallower or at the very end, so the
 *     text ends in "}" without a newline (and an empty struct never gets
 *     its "}").
 *   - Integers are raw hex ("%#x": 0 prints as "0"), whatever their sign;
 *     char (signed, 8 bits) prints as 'c', '\0' or '\ooo'; bitfields are
 *     extracted and printed in hex; enums print the enumerator's name or
 *     the decimal value; floats "%+.7e", long double "%+.16LE"; pointers
 *     hex; forwards "<forward decl>".
 *   - Arrays print "[ a, b ]"; arrays of structs put each element on its
 *     own lines; char arrays holding printable characters then a NUL print
 *     as a string, "\"...\"" bare at the top level, "[ \"...\" ]" inside.
 *
 * illumos and FreeBSD differ in one place, bitfields (the illumos side is
 * the 2022 rework, dt_is_bitfield() in dt_subr.c):
 *
 *   - illumos treats an integer at a bit offset that is not a multiple of
 *     8 as a bitfield even if its width is 8, 16, 32 or 64 bits; FreeBSD
 *     prints such an integer in hex from the byte its offset falls in.
 *   - illumos copies as many bytes as the field spans from that byte
 *     (offset % 8 + bits, rounded up), FreeBSD only bits / 8 rounded up,
 *     so FreeBSD loses the high bits of a field that crosses a byte
 *     boundary.  Where the span is over 8 bytes illumos prints
 *     "??? (total bitfield too large after alignment" (sic, no closing
 *     parenthesis); FreeBSD overruns a 64-bit variable for integers wider
 *     than 64 bits, which this file refuses (-1).
 *
 * Both read a bitfield in the byte order of the machine that ran dtrace:
 * little-endian, the copied bytes are a little-endian number shifted
 * right by offset % 8; big-endian, a big-endian number shifted right by
 * 8 - (offset + bits) % 8 unless that is a byte boundary.  So does every
 * other read here (swap says the capture's order is not this host's).
 *
 * What cannot be reproduced, and what is done instead:
 *
 *   - dtrace looks a function pointer's value up as a kernel symbol and
 *     prints "module`symbol" when it resolves; this file has no symbols
 *     and always prints the hex form dtrace falls back to.
 *   - "<%ld>" for a type name too long for 128 bytes and "<invalid type
 *     %lu>" print the id in the capture's dictionary, which a recorder may
 *     have renumbered.
 *   - Where dtrace would read past the record (a type bigger than the
 *     data), loop forever or overflow its stack (cyclic or absurdly deep
 *     types), this file stops with -1 and a reason; out then holds the
 *     text so far.  Only bytes actually printed are checked, so a string
 *     whose NUL is inside the data prints even if its array is longer.
 *   - long double is read as the x87 80-bit format from a little-endian
 *     capture (96- or 128-bit CTF types); other formats give -1.
 *   - char is taken to be signed (x86, SPARC) and the locale to be C:
 *     bytes 0x80-0xff are not printable and print as '\37777777600' and
 *     so on, as "%03o" does with a negative char.
 *   - FreeBSD 14's dt_print.c emits values through libxo (xo_emit), whose
 *     text is the same; this file assumes it also comes out in order,
 *     though dt_print_float's xo_emit is not followed by an xo_flush.
 *   - Infinities print "+inf"/"-inf", NaN "nan" (FreeBSD's printf drops
 *     its sign) or "+nan"/"-nan" (illumos: assumed, not checked).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_private.h"

#ifdef HAVE_LIBCTF

/* libdtrace's DT_TYPE_NAMELEN: ctf_type_name() fails on longer names. */
#define TYPE_NAMELEN 128

/*
 * Bounds that only hostile or absurd types reach: links followed in one
 * type chain, declarator nodes kept for a name (more cannot fit in
 * TYPE_NAMELEN), printer calls, and text.
 */
#define MAX_CHAIN 1024
#define MAX_NAME_NODES 160
#define MAX_VISITS (1ul << 18)
#define MAX_OUTPUT ((size_t)8 << 20)

/* enums are ctf_type_size()'d as the data model's int, 4 bytes in both */
#define ENUM_SIZE 4

/* the whole run */
struct lp {
	ctf_dict_t *fp;
	const uint8_t *data;
	size_t size;
	int be;                 /* the capture is big-endian */
	int illumos;
	dtc_buf *out;
	size_t out_start;       /* out->len on entry, for MAX_OUTPUT */
	size_t lim;             /* out->len at which appending stops (cap) */
	const char *why;        /* first failure; nothing is printed after */
	unsigned long visits;
	int level;              /* nested visits, for DTCP_CTF_MAXDEPTH */
};

/* libdtrace's dt_printarg_t, less what does not move */
struct pa {
	uint64_t base;          /* pa_addr, as an offset into the data */
	int depth;              /* pa_depth: depth of the last member printed */
	int nest;               /* pa_nest: indentation owed to arrays */
};

static int visit(struct lp *lp, struct pa *pa, const char *name,
    ctf_id_t type, uint64_t off, int depth);

static int
fail(struct lp *lp, const char *why)
{
	if (lp->why == NULL)
		lp->why = why;
	return -1;
}

static void emit(struct lp *lp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append to the output; after the first failure, nothing, and past the
 * cap nothing either (the caller cuts the text there). */
static void
emit(struct lp *lp, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;

	if (lp->why != NULL || lp->out->len >= lp->lim)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		fail(lp, "formatting failed");
		return;
	}
	if ((size_t)n < sizeof(small)) {
		if (dtc_buf_append(lp->out, small, (size_t)n) != 0)
			fail(lp, "out of memory");
	} else {
		/* long member and enumerator names only */
		char *big = malloc((size_t)n + 1);

		va_start(ap, fmt);
		if (big == NULL || vsnprintf(big, (size_t)n + 1, fmt, ap) != n ||
		    dtc_buf_append(lp->out, big, (size_t)n) != 0)
			fail(lp, "out of memory");
		va_end(ap);
		free(big);
	}
	if (lp->out->len - lp->out_start > MAX_OUTPUT)
		fail(lp, "type too large to print");
}

static void
indent(struct lp *lp, int columns)
{
	emit(lp, "%*s", columns, "");
}

/* ---------------------------------------------------------------- data */

/*
 * The n bytes at byte offset at of the data, or NULL (and the run fails)
 * where dtrace would have read past the record.
 */
static const uint8_t *
bytes_at(struct lp *lp, uint64_t at, uint64_t n)
{
	if (at > lp->size || n > lp->size - at) {
		fail(lp, "data shorter than the type");
		return NULL;
	}
	return lp->data + at;
}

/* An unsigned number of n <= 8 bytes in the capture's byte order. */
static uint64_t
number(const struct lp *lp, const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (lp->be)
			v = v << 8 | p[i];
		else
			v |= (uint64_t)p[i] << (8 * i);
	}
	return v;
}

/* --------------------------------------------------------------- types */

/*
 * The kind a type is stored as.  GNU's ctf_type_kind() reports a slice
 * (GNU's form of a bitfield) as the kind of the type it wraps; a slice
 * is told from that type by having a reference.  Only slices of an
 * integer, float or enum are recognised: a slice of a typedef passes for
 * the typedef.  -1 for a bad id.
 */
static int
raw_kind(struct lp *lp, ctf_id_t type)
{
	int k = ctf_type_kind(lp->fp, type);

	if ((k == CTF_K_INTEGER || k == CTF_K_FLOAT || k == CTF_K_ENUM) &&
	    ctf_type_reference(lp->fp, type) != CTF_ERR)
		return CTF_K_SLICE;
	return k < 0 ? -1 : k;
}

/*
 * ctf_type_resolve() as illumos/FreeBSD libctf does it: follow typedefs
 * and qualifiers, and call a link back to the start, to the previous
 * type or to itself a cycle.  GNU slices are left alone, as GNU does.
 * 0 with *out set; 1 where libctf fails (dtrace then silently drops what
 * it was printing); -1 where libctf would loop forever.
 */
static int
resolve(struct lp *lp, ctf_id_t type, ctf_id_t *out)
{
	ctf_id_t top = type, prev = type, ref;
	int steps;

	for (steps = 0; steps < MAX_CHAIN; steps++) {
		switch (raw_kind(lp, type)) {
		case CTF_K_TYPEDEF:
		case CTF_K_VOLATILE:
		case CTF_K_CONST:
		case CTF_K_RESTRICT:
			ref = ctf_type_reference(lp->fp, type);
			if (ref == CTF_ERR || ref == type || ref == top ||
			    ref == prev)
				return 1;
			prev = type;
			type = ref;
			break;
		case -1:
			return 1;
		default:
			*out = type;
			return 0;
		}
	}
	return fail(lp, "type chain too long or cyclic");
}

/* The kind libdtrace sees: slices are the integers they wrap. */
static int
kind_of(struct lp *lp, ctf_id_t type)
{
	int k = ctf_type_kind(lp->fp, type);

	return k < 0 ? -1 : k;
}

/*
 * ctf_type_encoding() of an integer or float, not through typedefs (the
 * original does not resolve either).  GNU resolves a slice's target
 * without a bound, so that chain is checked here first.
 */
static int
encoding(struct lp *lp, ctf_id_t type, ctf_encoding_t *e)
{
	ctf_id_t r;

	switch (raw_kind(lp, type)) {
	case CTF_K_INTEGER:
	case CTF_K_FLOAT:
		break;
	case CTF_K_SLICE:
		if (resolve(lp, ctf_type_reference(lp->fp, type), &r) != 0)
			return -1;
		break;
	default:
		return -1;
	}
	return ctf_type_encoding(lp->fp, type, e) == 0 ? 0 : -1;
}

/*
 * ctf_type_size() as illumos/FreeBSD libctf answers it: pointers are the
 * data model's, functions and forwards 0, enums an int, arrays their
 * elements times their count.  -1 where libctf fails (or would not stop).
 */
static int64_t
type_size(struct lp *lp, ctf_id_t type, int depth)
{
	ctf_arinfo_t ar;
	ctf_id_t r;
	int64_t elt;
	ssize_t s;

	if (depth > DTCP_CTF_MAXDEPTH) {
		fail(lp, "type nested too deeply");
		return -1;
	}
	if (resolve(lp, type, &r) != 0)
		return -1;
	switch (raw_kind(lp, r)) {
	case CTF_K_FUNCTION:
	case CTF_K_FORWARD:
	case CTF_K_UNKNOWN:
		return 0;
	case CTF_K_ENUM:
		return ENUM_SIZE;
	case CTF_K_ARRAY:
		if (ctf_array_info(lp->fp, r, &ar) != 0 ||
		    (elt = type_size(lp, ar.ctr_contents, depth + 1)) < 0)
			return -1;
		/* a product past int64 is as good as a failure here */
		if (ar.ctr_nelems != 0 && elt > INT64_MAX / ar.ctr_nelems)
			return -1;
		return elt * ar.ctr_nelems;
	default:
		s = ctf_type_size(lp->fp, r);
		return s < 0 ? -1 : (int64_t)s;
	}
}

/* ---------------------------------------------------------- type names */

/*
 * ctf_type_name() of illumos/FreeBSD libctf (ctf_decl.c, ctf_types.c
 * ctf_type_qlname): the chain of declarators is sorted into precedence
 * levels (base type, pointer, array, function) and printed level by
 * level, with parentheses where the chain's order fights C's precedence:
 * "int (*)()", "char (*)[16]", "const char *", "int [2][3]".  Unlike GNU
 * libctf, a function is "()" without its arguments, a forward is always
 * "struct <name>" and an anonymous struct is "struct ".
 */
enum { PREC_BASE, PREC_POINTER, PREC_ARRAY, PREC_FUNCTION, PREC_MAX };

struct dnode {
	ctf_id_t type;
	int kind;
	unsigned long n;        /* array elements */
	int next;               /* next node of the same level, or -1 */
};

struct decl {
	struct dnode node[MAX_NAME_NODES];
	int nnodes;
	int head[PREC_MAX], tail[PREC_MAX];
	int order[PREC_MAX];
	int ordp, qualp;
};

/* text of a name: len counts everything, buf keeps what fits */
struct namebuf {
	char buf[TYPE_NAMELEN];
	size_t len;
};

static void nprintf(struct namebuf *nb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
nprintf(struct namebuf *nb, const char *fmt, ...)
{
	va_list ap;
	size_t room = nb->len < sizeof(nb->buf) ? sizeof(nb->buf) - nb->len :
	    0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? nb->buf + nb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		nb->len += (size_t)n;
}

/* Add one declarator, innermost first (ctf_decl_push after its recursion). */
static void
decl_add(struct decl *cd, ctf_id_t type, int kind, unsigned long n)
{
	struct dnode *d = &cd->node[cd->nnodes];
	int prec, is_qual = 0, i = cd->nnodes++;

	switch (kind) {
	case CTF_K_ARRAY:
		prec = PREC_ARRAY;
		break;
	case CTF_K_FUNCTION:
		prec = PREC_FUNCTION;
		break;
	case CTF_K_POINTER:
		prec = PREC_POINTER;
		break;
	case CTF_K_VOLATILE:
	case CTF_K_CONST:
	case CTF_K_RESTRICT:
		/* a qualifier binds to the last level that can take one */
		prec = cd->qualp;
		is_qual = 1;
		break;
	default:
		prec = PREC_BASE;
	}
	d->type = type;
	d->kind = kind;
	d->n = n;
	d->next = -1;
	if (cd->head[prec] < 0)
		cd->order[prec] = cd->ordp++;
	if (prec > cd->qualp && prec < PREC_ARRAY)
		cd->qualp = prec;
	/* arrays read inside out, and "const int" beats "int const" */
	if (kind == CTF_K_ARRAY || (is_qual && prec == PREC_BASE)) {
		d->next = cd->head[prec];
		cd->head[prec] = i;
		if (cd->tail[prec] < 0)
			cd->tail[prec] = i;
	} else {
		if (cd->tail[prec] >= 0)
			cd->node[cd->tail[prec]].next = i;
		else
			cd->head[prec] = i;
		cd->tail[prec] = i;
	}
}

/*
 * The type's name into buf (TYPE_NAMELEN bytes) as dt_print_type_name()
 * gives it: "<id>" where ctf_type_name() fails (a bad id in the chain, or
 * a name of 128 bytes or more).  -1 only for chains libctf would recurse
 * through forever.
 */
static int
type_name(struct lp *lp, ctf_id_t type, char *buf)
{
	struct { ctf_id_t type; int kind; unsigned long n; } chain[
	    MAX_NAME_NODES];
	struct decl cd;
	struct namebuf nb;
	ctf_arinfo_t ar;
	ctf_funcinfo_t fi;
	ctf_id_t t = type;
	const char *raw;
	int nchain = 0, steps, k, prec, i, lastk, ptr, arr, lpar, rpar;
	int bad = 0, done = 0;

	/* walk the chain outside in, keeping the nodes that print */
	for (steps = 0; !done && !bad; steps++) {
		unsigned long n = 1;
		ctf_id_t next = CTF_ERR;

		if (steps >= MAX_CHAIN)
			return fail(lp, "type chain too long or cyclic");
		k = raw_kind(lp, t);
		switch (k) {
		case -1:
			bad = 1;
			continue;
		case CTF_K_SLICE:
			/* GNU's bitfield wrapper: the integer under it */
			t = ctf_type_reference(lp->fp, t);
			continue;
		case CTF_K_TYPEDEF:
			raw = ctf_type_name_raw(lp->fp, t);
			if (raw == NULL || raw[0] == '\0') {
				/* a nameless typedef prints as its target */
				t = ctf_type_reference(lp->fp, t);
				continue;
			}
			done = 1;
			break;
		case CTF_K_ARRAY:
			if (ctf_array_info(lp->fp, t, &ar) != 0) {
				bad = 1;
				continue;
			}
			n = ar.ctr_nelems;
			next = ar.ctr_contents;
			break;
		case CTF_K_FUNCTION:
			if (ctf_func_type_info(lp->fp, t, &fi) != 0) {
				bad = 1;
				continue;
			}
			next = fi.ctc_return;
			break;
		case CTF_K_POINTER:
		case CTF_K_VOLATILE:
		case CTF_K_CONST:
		case CTF_K_RESTRICT:
			next = ctf_type_reference(lp->fp, t);
			break;
		default:
			done = 1;
			break;
		}
		/* beyond MAX_NAME_NODES the name cannot fit: "<id>" */
		if (nchain < MAX_NAME_NODES) {
			chain[nchain].type = t;
			chain[nchain].kind = k;
			chain[nchain].n = n;
		}
		nchain++;
		t = next;
	}
	if (bad || nchain > MAX_NAME_NODES)
		goto unnamed;

	memset(&cd, 0, sizeof(cd));
	for (prec = 0; prec < PREC_MAX; prec++) {
		cd.head[prec] = cd.tail[prec] = -1;
		cd.order[prec] = PREC_BASE - 1;
	}
	cd.qualp = cd.ordp = PREC_BASE;
	for (i = nchain - 1; i >= 0; i--)
		decl_add(&cd, chain[i].type, chain[i].kind, chain[i].n);

	ptr = cd.order[PREC_POINTER] > PREC_POINTER;
	arr = cd.order[PREC_ARRAY] > PREC_ARRAY;
	rpar = arr ? PREC_ARRAY : ptr ? PREC_POINTER : -1;
	lpar = ptr ? PREC_POINTER : arr ? PREC_ARRAY : -1;
	lastk = CTF_K_POINTER;  /* no space before the first word */
	nb.len = 0;
	nb.buf[0] = '\0';
	for (prec = PREC_BASE; prec < PREC_MAX; prec++) {
		for (i = cd.head[prec]; i >= 0; i = cd.node[i].next) {
			const struct dnode *d = &cd.node[i];

			raw = ctf_type_name_raw(lp->fp, d->type);
			if (raw == NULL)
				raw = "";
			if (lastk != CTF_K_POINTER && lastk != CTF_K_ARRAY)
				nprintf(&nb, " ");
			if (lpar == prec) {
				nprintf(&nb, "(");
				lpar = -1;
			}
			switch (d->kind) {
			case CTF_K_INTEGER:
			case CTF_K_FLOAT:
			case CTF_K_TYPEDEF:
				nprintf(&nb, "%s", raw);
				break;
			case CTF_K_POINTER:
				nprintf(&nb, "*");
				break;
			case CTF_K_ARRAY:
				nprintf(&nb, "[%lu]", d->n);
				break;
			case CTF_K_FUNCTION:
				nprintf(&nb, "()");
				break;
			case CTF_K_STRUCT:
			case CTF_K_FORWARD:
				nprintf(&nb, "struct %s", raw);
				break;
			case CTF_K_UNION:
				nprintf(&nb, "union %s", raw);
				break;
			case CTF_K_ENUM:
				nprintf(&nb, "enum %s", raw);
				break;
			case CTF_K_VOLATILE:
				nprintf(&nb, "volatile");
				break;
			case CTF_K_CONST:
				nprintf(&nb, "const");
				break;
			case CTF_K_RESTRICT:
				nprintf(&nb, "restrict");
				break;
			}
			lastk = d->kind;
		}
		if (rpar == prec)
			nprintf(&nb, ")");
	}
	if (nb.len < TYPE_NAMELEN) {
		memcpy(buf, nb.buf, nb.len + 1);
		return 0;
	}
unnamed:
	snprintf(buf, TYPE_NAMELEN, "<%ld>", (long)type);
	return 0;
}

/* ------------------------------------------------------------ printers */

/* dt_print_trailing_braces: close what is deeper than depth. */
static void
trailing_braces(struct lp *lp, const struct pa *pa, int depth)
{
	int d;

	for (d = pa->depth; d > depth; d--) {
		indent(lp, (d + pa->nest - 1) * 4);
		emit(lp, "}%s", d == depth + 1 ? "" : "\n");
	}
}

/* dt_print_hex: a 1, 2, 4 or 8-byte integer in hex, whatever its sign. */
static int
print_hex(struct lp *lp, uint64_t at, uint64_t size)
{
	const uint8_t *p;

	switch (size) {
	case 1:
	case 2:
	case 4:
	case 8:
		if ((p = bytes_at(lp, at, size)) == NULL)
			return -1;
		emit(lp, "%#llx", (unsigned long long)number(lp, p, size));
		return 0;
	default:
		emit(lp, "<invalid size %u>", (unsigned)size);
		return 0;
	}
}

/*
 * print_bitfield: bits bits at bit offset off from the base.  The bytes
 * copied start at the byte the field starts in; how many differs (see
 * the top of the file).
 */
static int
print_bitfield(struct lp *lp, const struct pa *pa, uint64_t off,
    unsigned bits)
{
	unsigned start = (unsigned)(off % 8), end;
	uint64_t value, mask;
	const uint8_t *p;
	size_t n;

	if (lp->illumos) {
		n = (size_t)(((uint64_t)start + bits + 7) / 8);
		if (n > 8) {
			emit(lp, "??? (total bitfield too large after "
			    "alignment");
			return 0;
		}
	} else {
		/* FreeBSD would copy more than its 8-byte variable holds */
		if (bits > 64)
			return fail(lp, "integer wider than 64 bits");
		n = (bits + 7) / 8;
	}
	if ((p = bytes_at(lp, pa->base + off / 8, n)) == NULL)
		return -1;
	value = number(lp, p, n);
	if (lp->be) {
		/* big-endian counts bit offsets from the top of the bytes */
		end = (unsigned)((off + bits) % 8);
		if (end != 0)
			value >>= 8 - end;
	} else if (start != 0) {
		value >>= start;
	}
	/* 64-bit fields are never bitfields, but a shift by 64 is undefined */
	mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	emit(lp, "%#llx", (unsigned long long)(value & mask));
	return 0;
}

/* dt_print_int */
static int
print_int(struct lp *lp, const struct pa *pa, ctf_id_t base, uint64_t off)
{
	ctf_encoding_t e;
	uint64_t size;
	const uint8_t *p;
	int c;

	if (encoding(lp, base, &e) != 0) {
		if (lp->why != NULL)
			return -1;
		emit(lp, "<unknown encoding>");
		return 0;
	}
	if (e.cte_format & CTF_INT_VARARGS) {
		emit(lp, "...");
		return 0;
	}
	size = e.cte_bits / 8;
	/* widths that are not 1, 2, 4 or 8 whole bytes; illumos adds
	 * offsets inside a byte (dt_is_bitfield) */
	if (size > 8 || e.cte_bits % 8 != 0 || (size & (size - 1)) != 0 ||
	    (lp->illumos && off % 8 != 0))
		return print_bitfield(lp, pa, off, e.cte_bits);
	if ((e.cte_format & (CTF_INT_CHAR | CTF_INT_SIGNED)) ==
	    (CTF_INT_CHAR | CTF_INT_SIGNED) && e.cte_bits == 8) {
		if ((p = bytes_at(lp, pa->base + off / 8, 1)) == NULL)
			return -1;
		c = (signed char)p[0];
		if (c >= 0x20 && c < 0x7f)
			emit(lp, "'%c'", c);
		else if (c == 0)
			emit(lp, "'\\0'");
		else
			emit(lp, "'\\%03o'", (unsigned)c);
		return 0;
	}
	return print_hex(lp, pa->base + off / 8, size);
}

/* printf's %+.Ne / %+.NLE of infinities and NaNs, per C library */
static int
nonfinite(struct lp *lp, int neg, int isnan_, int upper)
{
	const char *word = isnan_ ? (upper ? "NAN" : "nan") :
	    (upper ? "INF" : "inf");

	/* FreeBSD's printf drops the sign of a NaN */
	if (isnan_ && !lp->illumos)
		emit(lp, "%s", word);
	else
		emit(lp, "%c%s", neg ? '-' : '+', word);
	return 0;
}

/* dt_print_float: nothing at all where the encoding cannot be had. */
static int
print_float(struct lp *lp, const struct pa *pa, ctf_id_t base, uint64_t off)
{
	uint64_t at = pa->base + off / 8;
	ctf_encoding_t e;
	const uint8_t *p;
	uint64_t bits;
	double d;
	float f;

	if (encoding(lp, base, &e) != 0)
		return lp->why != NULL ? -1 : 0;
	if (e.cte_format == CTF_FP_SINGLE && e.cte_bits == 32) {
		uint32_t b32;

		if ((p = bytes_at(lp, at, 4)) == NULL)
			return -1;
		b32 = (uint32_t)number(lp, p, 4);
		memcpy(&f, &b32, 4);
		d = f;
	} else if (e.cte_format == CTF_FP_DOUBLE && e.cte_bits == 64) {
		if ((p = bytes_at(lp, at, 8)) == NULL)
			return -1;
		bits = number(lp, p, 8);
		memcpy(&d, &bits, 8);
	} else if (e.cte_format == CTF_FP_LDOUBLE &&
	    (e.cte_bits == 96 || e.cte_bits == 128)) {
		/* x87 extended precision in its first 10 bytes */
#if LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384
		long double ld = 0;

		if (lp->be)
			return fail(lp, "long double of a big-endian capture");
		if ((p = bytes_at(lp, at, e.cte_bits / 8)) == NULL)
			return -1;
		memcpy(&ld, p, 10);
		if (isinf(ld) || isnan(ld))
			return nonfinite(lp, signbit(ld) != 0, isnan(ld), 1);
		emit(lp, "%+.16LE", ld);
		return 0;
#else
		return fail(lp, "this host has no x87 long double");
#endif
	} else {
		emit(lp, "<unknown encoding>");
		return 0;
	}
	if (isinf(d) || isnan(d))
		return nonfinite(lp, signbit(d) != 0, isnan(d), 0);
	emit(lp, "%+.7e", d);
	return 0;
}

/*
 * dt_print_ptr, for pointers and functions: the pointer's bytes in hex
 * (a function's size is 0: "<invalid size 0>").  dtrace would print a
 * function pointer as module`symbol where the kernel knows the address.
 */
static int
print_ptr(struct lp *lp, const struct pa *pa, ctf_id_t base, uint64_t off)
{
	int64_t size = type_size(lp, base, 0);

	if (size < 0 && lp->why != NULL)
		return -1;
	return print_hex(lp, pa->base + off / 8, (uint64_t)size);
}

/* dt_print_enum: a 4-byte int, by enumerator name where one matches */
static int
print_enum(struct lp *lp, const struct pa *pa, ctf_id_t base, uint64_t off)
{
	const uint8_t *p;
	const char *name;
	int32_t value;

	if ((p = bytes_at(lp, pa->base + off / 8, ENUM_SIZE)) == NULL)
		return -1;
	value = (int32_t)(uint32_t)number(lp, p, ENUM_SIZE);
	if ((name = ctf_enum_name(lp->fp, base, value)) != NULL)
		emit(lp, "%s", name);
	else
		emit(lp, "%d", value);
	return 0;
}

static int
is_structlike(int kind)
{
	return kind == CTF_K_STRUCT || kind == CTF_K_UNION;
}

/* dt_print_array */
static int
print_array(struct lp *lp, struct pa *pa, ctf_id_t base, uint64_t off)
{
	uint64_t addr = pa->base + off / 8, i;
	ctf_arinfo_t car;
	ctf_encoding_t e;
	ctf_id_t rtype;
	int64_t eltsize;
	const uint8_t *p;
	int kind, isstring = 0, c = 0;

	/* libdtrace prints the buffer's address here: not reproducible,
	 * and out of reach anyway since the kind was just read as array */
	if (ctf_array_info(lp->fp, base, &car) != 0)
		return fail(lp, "array without array information");
	if ((eltsize = type_size(lp, car.ctr_contents, 0)) < 0 ||
	    resolve(lp, car.ctr_contents, &rtype) != 0 ||
	    (kind = kind_of(lp, rtype)) < 0) {
		if (lp->why != NULL)
			return -1;
		emit(lp, "<invalid type %lu>", (unsigned long)car.ctr_contents);
		return 0;
	}

	/* chars that are all printable up to a NUL make a string */
	if (kind == CTF_K_INTEGER && encoding(lp, rtype, &e) == 0 &&
	    (e.cte_format & (CTF_INT_CHAR | CTF_INT_SIGNED)) ==
	    (CTF_INT_CHAR | CTF_INT_SIGNED) && e.cte_bits == 8) {
		for (i = 0; i < car.ctr_nelems; i++) {
			if ((p = bytes_at(lp, addr + (uint64_t)eltsize * i,
			    1)) == NULL)
				return -1;
			c = p[0];
			if (c < 0x20 || c >= 0x7f)
				break;
		}
		isstring = i != car.ctr_nelems && c == 0;
	}
	if (lp->why != NULL)
		return -1;

	/* a top-level string goes without brackets: string "foo" */
	if (!isstring || pa->depth != 0)
		emit(lp, "[ ");
	if (isstring)
		emit(lp, "\"");
	for (i = 0; i < car.ctr_nelems && lp->why == NULL; i++) {
		if (isstring) {
			p = lp->data + addr + (uint64_t)eltsize * i;
			if (*p == 0)
				break;
			emit(lp, "%c", *p);
		} else {
			/* each element is a visit of its own, indented one
			 * array level deeper than the array's member */
			struct pa elt = *pa;

			elt.nest += pa->depth + 1;
			elt.depth = 0;
			elt.base = addr + (uint64_t)eltsize * i;
			if (visit(lp, &elt, "", car.ctr_contents, 0, 0) < 0)
				return -1;
			trailing_braces(lp, &elt, 0);
			if (i != car.ctr_nelems - 1)
				emit(lp, ", ");
			else if (is_structlike(kind))
				emit(lp, "\n");
		}
	}
	if (isstring)
		emit(lp, "\"");
	if (!isstring || pa->depth != 0) {
		if (is_structlike(kind))
			indent(lp, (pa->depth + pa->nest) * 4);
		else
			emit(lp, " ");
		emit(lp, "]");
	}
	return lp->why != NULL ? -1 : 0;
}

/*
 * dt_print_member: one call of the visit.  type is the member's declared
 * type, rtype what it resolves to, off its bit offset from pa->base.
 */
static int
print_member(struct lp *lp, struct pa *pa, const char *name, ctf_id_t type,
    ctf_id_t rtype, uint64_t off, int depth)
{
	char tname[TYPE_NAMELEN];
	ctf_encoding_t e;
	int kind, arraymember, brief;
	size_t tlen;
	int64_t size;

	trailing_braces(lp, pa, depth);
	if (depth < pa->depth)
		emit(lp, "\n");
	pa->depth = depth;

	kind = kind_of(lp, rtype);
	if (kind < CTF_K_INTEGER || kind > CTF_K_FORWARD) {
		indent(lp, (pa->depth + pa->nest) * 4);
		emit(lp, "%s = <invalid type %lu>", name, (unsigned long)type);
		return lp->why != NULL ? -1 : 0;
	}
	if (type_name(lp, type, tname) != 0)
		return -1;

	/* elements of arrays of scalars print their value alone */
	arraymember = pa->nest != 0 && depth == 0;
	brief = arraymember && !is_structlike(kind);
	if (!brief) {
		if (arraymember)
			emit(lp, "\n");
		indent(lp, (pa->depth + pa->nest) * 4);
		emit(lp, "%s", tname);
		if (name[0] != '\0') {
			/* "void *p", and "struct  {" for an anonymous struct;
			 * libdtrace reads before an empty name, we space */
			tlen = strlen(tname);
			if (tlen == 0 || (tname[tlen - 1] != '*' &&
			    tname[tlen - 1] != ' '))
				emit(lp, " ");
			emit(lp, "%s", name);
			/* the width of bitfields and odd integers; only for
			 * integers declared directly (no typedef) */
			if (kind == CTF_K_INTEGER && encoding(lp, type, &e) == 0) {
				size = type_size(lp, type, 0);
				if (e.cte_bits % 8 != 0 || off % 8 != 0 ||
				    e.cte_bits / 8 > 8 ||
				    (int64_t)(e.cte_bits / 8) != size)
					emit(lp, " :%lu", (unsigned long)e.cte_bits);
			}
			emit(lp, " =");
		}
		emit(lp, " ");
	}
	if (lp->why != NULL)
		return -1;

	switch (kind) {
	case CTF_K_INTEGER:
		if (print_int(lp, pa, rtype, off) != 0)
			return -1;
		break;
	case CTF_K_FLOAT:
		if (print_float(lp, pa, rtype, off) != 0)
			return -1;
		break;
	case CTF_K_POINTER:
	case CTF_K_FUNCTION:
		if (print_ptr(lp, pa, rtype, off) != 0)
			return -1;
		break;
	case CTF_K_ARRAY:
		if (print_array(lp, pa, rtype, off) != 0)
			return -1;
		break;
	case CTF_K_STRUCT:
	case CTF_K_UNION:
		emit(lp, "{");
		break;
	case CTF_K_ENUM:
		if (print_enum(lp, pa, rtype, off) != 0)
			return -1;
		break;
	case CTF_K_FORWARD:
		emit(lp, "<forward decl>");
		break;
	}
	if (!brief)
		emit(lp, "\n");
	return lp->why != NULL ? -1 : 0;
}

/*
 * ctf_type_visit() with dt_print_member as its callback: the type, then
 * its members depth first.  0; 1 where libctf gives up on a type (the
 * whole visit then stops, silently, as in libdtrace); -1 on failure.
 */
static int
visit(struct lp *lp, struct pa *pa, const char *name, ctf_id_t type,
    uint64_t off, int depth)
{
	ctf_next_t *it = NULL;
	const char *mname;
	ctf_id_t rtype, mtype;
	ssize_t moff;
	int rc;

	if (++lp->visits > MAX_VISITS)
		return fail(lp, "type too large to print");
	if (lp->level >= DTCP_CTF_MAXDEPTH)
		return fail(lp, "type nested too deeply");
	if ((rc = resolve(lp, type, &rtype)) != 0)
		return rc;
	lp->level++;
	rc = print_member(lp, pa, name, type, rtype, off, depth);
	if (rc == 0 && is_structlike(raw_kind(lp, rtype))) {
		while ((moff = ctf_member_next(lp->fp, rtype, &it, &mname,
		    &mtype, 0)) >= 0) {
			if ((rc = visit(lp, pa, mname != NULL ? mname : "",
			    mtype, off + (uint64_t)moff, depth + 1)) != 0) {
				ctf_next_destroy(it);
				break;
			}
		}
		if (rc == 0 && ctf_errno(lp->fp) != ECTF_NEXT_END)
			rc = fail(lp, "unreadable struct members");
	}
	lp->level--;
	return rc;
}

int
dtcp_ctfprint_legacy(ctf_dict_t *fp, ctf_id_t type, const uint8_t *data,
    size_t size, int swap, int illumos, dtc_buf *out, size_t lim,
    const char **why)
{
	static const uint16_t one = 1;
	struct lp lp;
	struct pa pa;
	int host_be = *(const uint8_t *)&one == 0;

	memset(&lp, 0, sizeof(lp));
	lp.fp = fp;
	lp.data = data;
	lp.size = data != NULL ? size : 0;
	lp.be = host_be != (swap != 0);
	lp.illumos = illumos;
	lp.out = out;
	lp.out_start = out->len;
	lp.lim = lim;

	/* dtrace_print() gives up here and the record prints as trace()
	 * would: the caller's to do */
	if (fp == NULL || ctf_type_kind(fp, type) < 0) {
		*why = "no type of this id";
		return -1;
	}
	memset(&pa, 0, sizeof(pa));
	if (visit(&lp, &pa, "", type, 0, 0) < 0) {
		*why = lp.why;
		return -1;
	}
	trailing_braces(&lp, &pa, 0);
	if (lp.why != NULL) {
		*why = lp.why;
		return -1;
	}
	return 0;
}

#endif /* HAVE_LIBCTF */
