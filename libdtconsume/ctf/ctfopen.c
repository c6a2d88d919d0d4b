/*
 * ctfopen.c - CTF bytes of a capture -> a libctf dictionary, checked first.
 *
 * A capture's ctf items hold what GNU libctf's ctf_write_mem() writes: a
 * ctf_header_t, then the sections (labels, data objects, functions, their
 * indexes, variables, types, strings), zlib-compressed as one stream when
 * the dictionary was large.  The bytes are untrusted, and libctf (2.40,
 * see fuzz/README) trusts too much of them: it checks the header's offsets
 * and order, but walks the type table without checking that a record fits
 * in it, indexes an array on the stack by a forward's kind, follows
 * references that need not resolve and loops forever on some typedef
 * cycles.  So dtcp_ctf_open parses the whole dictionary itself first
 * (inflating a compressed one with zlib, as libctf will), and only bytes
 * that pass reach ctf_simple_open:
 *
 *   header     magic (either byte order), format version 3 (the only one
 *              ctf_write_mem writes; libctf's v1 upgrade is not exposed),
 *              known flags, no parent (a capture's dictionary stands
 *              alone), sections in order, 4-byte aligned, whole entries,
 *              inside the bytes, nothing after them
 *   strings    a string table that starts and ends with a NUL, so that
 *              every name offset below its length is a C string; every
 *              name in the table (no external string table in a capture)
 *   types      each record and its variable part inside the type section,
 *              and the 20 bytes libctf reads of any record inside the
 *              dictionary;
 *              known kinds; sizes below 4 GiB (no ctf_type_t long form);
 *              every referenced id a type of this dictionary; forwards
 *              to a struct, union or enum; slices of an int, float or enum
 *   graphs     no cycle and no chain longer than MAXCHAIN types along the
 *              edges libctf recurses on: naming (pointer, array, function,
 *              qualifier, slice, anonymous typedef: ctf_type_aname) and
 *              containment (member, array element, typedef, qualifier,
 *              slice: ctf_type_size, ctf_type_align, a walk of a value)
 *   layout     sizes below 2 GiB; an array's recorded size equal to its
 *              elements'; every struct/union member starting inside its
 *              struct (not ending there: see finish_size)
 *
 * After ctf_simple_open, libctf's size of every type must be the one
 * computed here, so that the two readings of the bytes agree.
 */
#include "ctf_private.h"

#ifdef HAVE_LIBCTF

#include <ctf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Largest dictionary (sections, uncompressed) accepted: a capture holds
 * only the types its print() records name, far below this. */
#define MAXBYTES (16u << 20)
/* Longest chain of types libctf may recurse along (see the graphs). */
#define MAXCHAIN 256
/* Largest type: keeps every size and bit offset libctf and the printers
 * compute well inside their integer types. */
#define MAXTYPESIZE 0x7fffffffLL

#define STYPE_SIZE 12 /* sizeof (ctf_stype_t): every record's fixed part */

/* What the checks know of the dictionary, in host byte order. */
struct scan {
	const uint8_t *buf;    /* the sections: the bytes after the header */
	uint64_t len;          /* their length: cth_stroff + cth_strlen */
	int swap;              /* written in the other byte order */
	ctf_header_t h;
	uint32_t ntypes;       /* ids 1..ntypes */
	uint32_t *toff;        /* toff[id]: offset of its record in buf */
	int64_t *size;         /* size[id] as ctf_type_size gives it, or -1 */
	uint8_t *state;        /* graph walk: 0 new, 1 on the path, 2 done */
	uint16_t *depth;       /* longest chain from id, in types */
	char *why;
	size_t whylen;
	char *note;            /* the first odd type, for the reader */
	size_t notelen;
};

static int
fail(struct scan *s, const char *fmt, ...)
{
	va_list ap;

	if (s->whylen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(s->why, s->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t
swap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

/* The uint32 at buf[off]; the caller has checked off + 4 <= len. */
static uint32_t
rd32(const struct scan *s, uint64_t off)
{
	uint32_t v;

	memcpy(&v, s->buf + off, sizeof(v));
	return s->swap ? swap32(v) : v;
}

/* ---------------------------------------------------------------- header */

static int
check_header(struct scan *s, const uint8_t *data, size_t size)
{
	ctf_preamble_t pre;
	ctf_header_t *h = &s->h;
	uint32_t w[12];         /* the header's fields after the preamble */
	size_t i;

	_Static_assert(sizeof(ctf_header_t) == sizeof(pre) + sizeof(w),
	    "ctf_header_t: a preamble and twelve uint32s");

	if (size < sizeof(pre))
		return fail(s, "%zu bytes: too short for a CTF header", size);
	memcpy(&pre, data, sizeof(pre));
	if (pre.ctp_magic == CTF_MAGIC)
		s->swap = 0;
	else if (pre.ctp_magic == __builtin_bswap16(CTF_MAGIC))
		s->swap = 1;
	else
		return fail(s, "not CTF (magic 0x%04x)", pre.ctp_magic);
	/* Older versions go through libctf's upgrade code, which nothing
	 * here needs: ctf_write_mem writes the current version only. */
	if (pre.ctp_version != CTF_VERSION_3)
		return fail(s, "CTF format version %u (only %u is read)",
		    pre.ctp_version, CTF_VERSION_3);
	if (pre.ctp_flags & ~CTF_F_MAX)
		return fail(s, "unknown CTF header flags 0x%x", pre.ctp_flags);
	if (size < sizeof(*h))
		return fail(s, "%zu bytes: too short for a CTF header", size);
	memcpy(w, data + sizeof(pre), sizeof(w));
	for (i = 0; s->swap && i < sizeof(w) / sizeof(w[0]); i++)
		w[i] = swap32(w[i]);
	memcpy(h, &pre, sizeof(pre));
	memcpy((uint8_t *)h + sizeof(pre), w, sizeof(w));

	if (h->cth_parlabel != 0 || h->cth_parname != 0)
		return fail(s, "a child dictionary (its parent is not in the "
		    "capture)");
	s->len = (uint64_t)h->cth_stroff + h->cth_strlen;
	if (s->len > MAXBYTES)
		return fail(s, "dictionary of %llu bytes (at most %u)",
		    (unsigned long long)s->len, MAXBYTES);
	if (h->cth_lbloff > h->cth_objtoff ||
	    h->cth_objtoff > h->cth_funcoff ||
	    h->cth_funcoff > h->cth_objtidxoff ||
	    h->cth_objtidxoff > h->cth_funcidxoff ||
	    h->cth_funcidxoff > h->cth_varoff ||
	    h->cth_varoff > h->cth_typeoff ||
	    h->cth_typeoff > h->cth_stroff)
		return fail(s, "CTF sections out of order");
	/* libctf checks some offsets for 4-byte alignment and others for a
	 * clear bit 1 only; every section holds uint32s, so all must be. */
	if ((h->cth_lbloff | h->cth_objtoff | h->cth_funcoff |
	    h->cth_objtidxoff | h->cth_funcidxoff | h->cth_varoff |
	    h->cth_typeoff | h->cth_stroff) & 3)
		return fail(s, "CTF section offset not a multiple of 4");
	if ((h->cth_objtoff - h->cth_lbloff) % sizeof(ctf_lblent_t) != 0 ||
	    (h->cth_typeoff - h->cth_varoff) % sizeof(ctf_varent_t) != 0)
		return fail(s, "label or variable section not whole entries");
	/* an index section is empty or has one name per entry */
	if (h->cth_funcidxoff != h->cth_objtidxoff &&
	    h->cth_funcidxoff - h->cth_objtidxoff !=
	    h->cth_funcoff - h->cth_objtoff)
		return fail(s, "data object index of the wrong length");
	if (h->cth_varoff != h->cth_funcidxoff &&
	    h->cth_varoff - h->cth_funcidxoff !=
	    h->cth_objtidxoff - h->cth_funcoff)
		return fail(s, "function index of the wrong length");
	/* Every name offset must land on a C string: a table that starts
	 * with the empty name and ends with a NUL (checked once loaded). */
	if (h->cth_strlen == 0)
		return fail(s, "no string table");
	return 0;
}

/*
 * The sections, uncompressed: in place, or inflated into *copy.  libctf
 * inflates a compressed dictionary again itself (the same bytes: zlib is
 * deterministic), since a dictionary cannot own memory given to it.
 */
static int
load_sections(struct scan *s, const uint8_t *data, size_t size,
    uint8_t **copy)
{
	const size_t hdrsz = sizeof(ctf_header_t);
	uLongf outlen;
	uLong inlen;
	int rc;

	*copy = NULL;
	if (!(s->h.cth_flags & CTF_F_COMPRESS)) {
		if (size - hdrsz < s->len)
			return fail(s, "dictionary cut: %zu bytes of %llu",
			    size - hdrsz, (unsigned long long)s->len);
		if (size - hdrsz > s->len)
			return fail(s, "%llu bytes after the dictionary",
			    (unsigned long long)(size - hdrsz - s->len));
		/* libctf reads native-order bytes in place, as uint32s */
		if (!s->swap && ((uintptr_t)data & 3) != 0)
			return fail(s, "CTF bytes at an address not a "
			    "multiple of 4 (libctf reads them in place)");
		s->buf = data + hdrsz;
		return 0;
	}
	if ((*copy = malloc(s->len)) == NULL)
		return fail(s, "out of memory for %llu bytes",
		    (unsigned long long)s->len);
	outlen = s->len;
	inlen = size - hdrsz;
	rc = uncompress2(*copy, &outlen, data + hdrsz, &inlen);
	if (rc == Z_BUF_ERROR && outlen == s->len)
		return fail(s, "compressed dictionary longer than its "
		    "header says (%llu bytes)", (unsigned long long)s->len);
	if (rc != Z_OK)
		return fail(s, "compressed dictionary: zlib: %s", zError(rc));
	if (outlen != s->len)
		return fail(s, "compressed dictionary of %lu bytes, its "
		    "header says %llu", (unsigned long)outlen,
		    (unsigned long long)s->len);
	/* zlib stops at the end of the stream; libctf ignores the rest */
	if (inlen != size - hdrsz)
		return fail(s, "%zu bytes after the compressed dictionary",
		    size - hdrsz - (size_t)inlen);
	s->buf = *copy;
	return 0;
}

/* ------------------------------------------------------------ types */

static int
check_name(struct scan *s, uint32_t name, const char *what, uint32_t id)
{
	/* the external table (ELF .dynstr) has no place in a capture */
	if (CTF_NAME_STID(name) != CTF_STRTAB_0)
		return fail(s, "%s %u: name in an external string table",
		    what, id);
	if (CTF_NAME_OFFSET(name) >= s->h.cth_strlen)
		return fail(s, "%s %u: name offset %u outside the string "
		    "table", what, id, CTF_NAME_OFFSET(name));
	return 0;
}

static int
check_id(struct scan *s, uint32_t ref, int zero_ok, const char *what,
    uint32_t id)
{
	if (ref == 0 ? !zero_ok : ref > s->ntypes)
		return fail(s, "type %u: %s type %u is not in the "
		    "dictionary", id, what, ref);
	return 0;
}

/* Fields of type id's record; vdata is where its variable part starts. */
static uint32_t t_name(const struct scan *s, uint32_t id)
{ return rd32(s, s->toff[id]); }
static uint32_t t_kind(const struct scan *s, uint32_t id)
{ return CTF_V2_INFO_KIND(rd32(s, s->toff[id] + 4)); }
static uint32_t t_vlen(const struct scan *s, uint32_t id)
{ return CTF_V2_INFO_VLEN(rd32(s, s->toff[id] + 4)); }
static uint32_t t_sizetype(const struct scan *s, uint32_t id)
{ return rd32(s, s->toff[id] + 8); }
static uint64_t t_vdata(const struct scan *s, uint32_t id)
{ return (uint64_t)s->toff[id] + STYPE_SIZE; }

static int
t_anonymous(const struct scan *s, uint32_t id)
{
	return s->buf[s->h.cth_stroff + CTF_NAME_OFFSET(t_name(s, id))] == 0;
}

/*
 * Bytes of the variable part of a record, as libctf's get_vbytes_v2
 * counts them, or -1 for an unknown kind.
 */
static int64_t
vbytes(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case CTF_K_INTEGER:
	case CTF_K_FLOAT:
		return 4;
	case CTF_K_SLICE:
		return sizeof(ctf_slice_t);
	case CTF_K_ENUM:
		return (int64_t)sizeof(ctf_enum_t) * vlen;
	case CTF_K_ARRAY:
		return sizeof(ctf_array_t);
	case CTF_K_FUNCTION:
		return 4 * ((int64_t)vlen + (vlen & 1));
	case CTF_K_STRUCT:
	case CTF_K_UNION:
		return (int64_t)sizeof(ctf_member_t) * vlen;
	case CTF_K_UNKNOWN:
	case CTF_K_POINTER:
	case CTF_K_FORWARD:
	case CTF_K_TYPEDEF:
	case CTF_K_VOLATILE:
	case CTF_K_CONST:
	case CTF_K_RESTRICT:
		return 0;
	}
	return -1;
}

/* The records: each inside the type section, the last ending at its end. */
static int
scan_records(struct scan *s)
{
	uint64_t off = s->h.cth_typeoff, end = s->h.cth_stroff;
	uint64_t max = (end - off) / STYPE_SIZE + 1;
	uint32_t id = 0;

	if ((s->toff = malloc(max * sizeof(*s->toff))) == NULL)
		return fail(s, "out of memory for %llu types",
		    (unsigned long long)max);
	while (off < end) {
		uint32_t info, csize, kind;
		int64_t vb;

		id++;
		if (end - off < STYPE_SIZE)
			return fail(s, "type %u: record cut at the end of "
			    "the type section", id);
		info = rd32(s, off + 4);
		csize = rd32(s, off + 8);
		kind = CTF_V2_INFO_KIND(info);
		if ((vb = vbytes(kind, CTF_V2_INFO_VLEN(info))) < 0)
			return fail(s, "type %u: unknown kind %u", id, kind);
		/* The long form (ctf_type_t, for sizes of 4 GiB and more)
		 * is told by this value in any kind, references included;
		 * libctf lays out a long struct's members one way in
		 * init_types and another in ctf_struct_member.  None here. */
		if (csize == CTF_LSIZE_SENT)
			return fail(s, "type %u: long-form record (size of "
			    "4 GiB or more)", id);
		if (end - off - STYPE_SIZE < (uint64_t)vb)
			return fail(s, "type %u: record runs past the type "
			    "section", id);
		/* libctf's get_ctt_size_v2 reads a record as the long
		 * ctf_type_t before it looks at the size: 20 bytes of every
		 * record, also the last one before a short string table */
		if (s->len - off < sizeof(ctf_type_t))
			return fail(s, "type %u: fewer than %zu bytes from its "
			    "record to the end of the dictionary", id,
			    sizeof(ctf_type_t));
		/* an integer wider than its bytes (65535 bits in an int)
		 * opens and prints, as libdtrace prints it ("?(N bit
		 * value)"); it is what no compiler writes: noted */
		if (kind == CTF_K_INTEGER && s->notelen > 0 &&
		    s->note[0] == '\0' &&
		    CTF_INT_BITS(rd32(s, off + STYPE_SIZE)) >
		    (uint64_t)csize * 8)
			snprintf(s->note, s->notelen, "type %u is an integer "
			    "of %u bits in %u bytes", id,
			    (unsigned)CTF_INT_BITS(rd32(s, off + STYPE_SIZE)),
			    csize);
		s->toff[id] = (uint32_t)off;
		off += STYPE_SIZE + (uint64_t)vb;
	}
	s->ntypes = id;
	return 0;
}

/* What each record refers to: names, ids, kinds. */
static int
check_refs(struct scan *s)
{
	uint32_t id, i, n;
	uint64_t v;

	for (id = 1; id <= s->ntypes; id++) {
		uint32_t kind = t_kind(s, id), ref = t_sizetype(s, id);

		if (check_name(s, t_name(s, id), "type", id) < 0)
			return -1;
		v = t_vdata(s, id);
		n = t_vlen(s, id);
		switch (kind) {
		case CTF_K_POINTER:
		case CTF_K_TYPEDEF:
		case CTF_K_VOLATILE:
		case CTF_K_CONST:
		case CTF_K_RESTRICT:
			if (check_id(s, ref, 1, "referenced", id) < 0)
				return -1;
			break;
		case CTF_K_FORWARD:
			/* libctf counts forwards in pop[ctt_type], an array
			 * of CTF_K_MAX + 1 on its stack */
			if (ref != CTF_K_STRUCT && ref != CTF_K_UNION &&
			    ref != CTF_K_ENUM)
				return fail(s, "type %u: forward to kind %u",
				    id, ref);
			break;
		case CTF_K_ARRAY:
			if (check_id(s, rd32(s, v), 0, "element", id) < 0 ||
			    check_id(s, rd32(s, v + 4), 1, "index", id) < 0)
				return -1;
			break;
		case CTF_K_FUNCTION:
			if (check_id(s, ref, 1, "return", id) < 0)
				return -1;
			for (i = 0; i < n; i++)
				if (check_id(s, rd32(s, v + 4 * i), 1,
				    "argument", id) < 0)
					return -1;
			break;
		case CTF_K_STRUCT:
		case CTF_K_UNION:
			/* libctf lays members out as ctf_lmember_t from
			 * this size on, in some places only */
			if (ref >= CTF_LSTRUCT_THRESH)
				return fail(s, "type %u: struct or union of "
				    "%u bytes", id, ref);
			for (i = 0; i < n; i++, v += sizeof(ctf_member_t)) {
				if (check_name(s, rd32(s, v), "member of type",
				    id) < 0 ||
				    check_id(s, rd32(s, v + 8), 0, "member",
				    id) < 0)
					return -1;
			}
			break;
		case CTF_K_ENUM:
			for (i = 0; i < n; i++, v += sizeof(ctf_enum_t))
				if (check_name(s, rd32(s, v),
				    "enumerator of type", id) < 0)
					return -1;
			break;
		case CTF_K_SLICE:
			if (check_id(s, rd32(s, v), 0, "sliced", id) < 0)
				return -1;
			break;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ graphs */

enum graph { NAMING, CONTAINMENT };

/*
 * Edge i (0, 1, ...) of type id in graph g: its target in *to, or 0 when
 * id has no edge i.  A target may be 0 (void), which the walk skips.
 *
 * NAMING: what ctf_decl_push and ctf_type_aname recurse on to name a
 * type.  A named typedef, struct, union or enum ends a name, which is
 * how `struct list { struct list *next; }` has no cycle here.
 * CONTAINMENT: what a value is made of (ctf_type_size, ctf_type_align,
 * ctf_type_resolve and a walk of a value follow these).
 */
static int
edge(const struct scan *s, enum graph g, uint32_t id, uint32_t i,
    uint32_t *to)
{
	uint32_t kind = t_kind(s, id);
	uint64_t v = t_vdata(s, id);

	switch (kind) {
	case CTF_K_VOLATILE:
	case CTF_K_CONST:
	case CTF_K_RESTRICT:
		*to = t_sizetype(s, id);
		return i == 0;
	case CTF_K_TYPEDEF:
		*to = t_sizetype(s, id);
		return i == 0 && (g == CONTAINMENT || t_anonymous(s, id));
	case CTF_K_POINTER:
		*to = t_sizetype(s, id);
		return i == 0 && g == NAMING;
	case CTF_K_SLICE:
	case CTF_K_ARRAY:
		*to = rd32(s, v);
		return i == 0;
	case CTF_K_FUNCTION:
		if (g != NAMING || i > t_vlen(s, id))
			return 0;
		*to = i == 0 ? t_sizetype(s, id) : rd32(s, v + 4 * (i - 1));
		return 1;
	case CTF_K_STRUCT:
	case CTF_K_UNION:
		if (g != CONTAINMENT || i >= t_vlen(s, id))
			return 0;
		*to = rd32(s, v + (uint64_t)i * sizeof(ctf_member_t) + 8);
		return 1;
	}
	return 0;
}

/* Through typedefs and qualifiers (the graph is acyclic by now). */
static uint32_t
resolve(const struct scan *s, uint32_t id)
{
	int n;

	for (n = 0; id != 0 && n <= MAXCHAIN; n++) {
		uint32_t k = t_kind(s, id);

		if (k != CTF_K_TYPEDEF && k != CTF_K_VOLATILE &&
		    k != CTF_K_CONST && k != CTF_K_RESTRICT)
			return id;
		id = t_sizetype(s, id);
	}
	return 0;
}

/*
 * Type id's size as libctf's ctf_type_size computes it (its parts are
 * done), and the layout checks that need it.
 */
static int
finish_size(struct scan *s, uint32_t id)
{
	uint32_t kind = t_kind(s, id), csize = t_sizetype(s, id), i, n;
	uint64_t v = t_vdata(s, id);
	int64_t size = csize;

	switch (kind) {
	case CTF_K_TYPEDEF:
	case CTF_K_VOLATILE:
	case CTF_K_CONST:
	case CTF_K_RESTRICT:
		size = csize == 0 ? -1 : s->size[csize];
		break;
	case CTF_K_POINTER:
		size = sizeof(void *);  /* libctf's native data model */
		break;
	case CTF_K_FUNCTION:
		size = 0;
		break;
	case CTF_K_ENUM:
		size = sizeof(int);
		break;
	case CTF_K_FORWARD:
	case CTF_K_UNKNOWN:
		size = -1;
		break;
	case CTF_K_ARRAY: {
		int64_t esize = s->size[rd32(s, v)];
		uint32_t nelems = rd32(s, v + 8);

		if (esize >= 0 && esize * nelems > MAXTYPESIZE)
			return fail(s, "type %u: array of %u elements of %lld "
			    "bytes", id, nelems, (long long)esize);
		if (csize > 0 && esize >= 0 && esize * nelems != csize)
			return fail(s, "type %u: array of %u bytes holds %u "
			    "elements of %lld bytes", id, csize, nelems,
			    (long long)esize);
		if (csize == 0)
			size = esize < 0 ? -1 : esize * nelems;
		break;
	}
	case CTF_K_STRUCT:
	case CTF_K_UNION:
		/* Only where a member starts is checked: libctf 2.40's own
		 * ctf_add_member lays the member after an enum over the
		 * enum and sizes the struct by its last member, so members
		 * may run past the end of a struct ctf_write_mem wrote. */
		n = t_vlen(s, id);
		for (i = 0; i < n; i++, v += sizeof(ctf_member_t))
			if (rd32(s, v + 4) > (uint64_t)csize * 8)
				return fail(s, "type %u: member %u starts at "
				    "bit %u, past its %u bytes", id, i,
				    rd32(s, v + 4), csize);
		break;
	}
	if (size > MAXTYPESIZE)
		return fail(s, "type %u: size of 2 GiB or more", id);
	s->size[id] = size;
	return 0;
}

/*
 * Depth-first over graph g from every type: a cycle or a chain of more
 * than MAXCHAIN types fails.  An explicit stack, since the input decides
 * how deep it goes.  For CONTAINMENT, each type's size is computed when
 * its parts are done.
 */
static int
check_graph(struct scan *s, enum graph g)
{
	struct { uint32_t id, next; } stack[MAXCHAIN + 1];
	const char *what = g == NAMING ? "its name" : "its layout";
	uint32_t root, to;
	int sp;

	memset(s->state, 0, (size_t)s->ntypes + 1);
	memset(s->depth, 0, ((size_t)s->ntypes + 1) * sizeof(*s->depth));
	for (root = 1; root <= s->ntypes; root++) {
		if (s->state[root] != 0)
			continue;
		sp = 0;
		stack[0].id = root;
		stack[0].next = 0;
		s->state[root] = 1;
		while (sp >= 0) {
			uint32_t id = stack[sp].id;

			if (edge(s, g, id, stack[sp].next++, &to)) {
				if (to == 0)
					continue;
				if (s->state[to] == 1)
					return fail(s, "type %u: %s loops back "
					    "to type %u", id, what, to);
				if (s->state[to] == 0) {
					if (sp == MAXCHAIN)
						return fail(s, "type %u: %s is "
						    "more than %d types deep",
						    root, what, MAXCHAIN);
					s->state[to] = 1;
					stack[++sp].id = to;
					stack[sp].next = 0;
					continue;
				}
				if (s->depth[to] + 1 > s->depth[id])
					s->depth[id] = s->depth[to] + 1;
				continue;
			}
			/* done with id: its depth is final */
			if (s->depth[id] == 0)
				s->depth[id] = 1;
			if (s->depth[id] > MAXCHAIN)
				return fail(s, "type %u: %s is more than %d "
				    "types deep", id, what, MAXCHAIN);
			s->state[id] = 2;
			if (g == CONTAINMENT && finish_size(s, id) < 0)
				return -1;
			if (--sp >= 0 &&
			    s->depth[id] + 1 > s->depth[stack[sp].id])
				s->depth[stack[sp].id] = s->depth[id] + 1;
		}
	}
	return 0;
}

/* A slice is a bit-field of an int, float or enum (ctf_type_encoding). */
static int
check_slices(struct scan *s)
{
	uint32_t id, r, k;

	for (id = 1; id <= s->ntypes; id++) {
		if (t_kind(s, id) != CTF_K_SLICE)
			continue;
		r = resolve(s, rd32(s, t_vdata(s, id)));
		k = r == 0 ? CTF_K_UNKNOWN : t_kind(s, r);
		if (k != CTF_K_INTEGER && k != CTF_K_FLOAT && k != CTF_K_ENUM)
			return fail(s, "type %u: slice of a type of kind %u",
			    id, k);
	}
	return 0;
}

/* ------------------------------------------------------------ the rest */

/* Labels, data objects, functions, their indexes, variables. */
static int
check_sections(struct scan *s)
{
	const ctf_header_t *h = &s->h;
	const char *str = (const char *)s->buf + h->cth_stroff;
	uint64_t off;

	if (str[0] != '\0' || str[h->cth_strlen - 1] != '\0')
		return fail(s, "string table does not start and end with a "
		    "NUL");
	if (h->cth_cuname != 0 &&
	    check_name(s, h->cth_cuname, "header", 0) < 0)
		return -1;
	for (off = h->cth_lbloff; off < h->cth_objtoff;
	    off += sizeof(ctf_lblent_t))
		if (check_name(s, rd32(s, off), "label", 0) < 0 ||
		    check_id(s, rd32(s, off + 4), 1, "label", 0) < 0)
			return -1;
	/* data objects, and functions when in the format libctf reads */
	for (off = h->cth_objtoff; off < h->cth_objtidxoff; off += 4)
		if ((off < h->cth_funcoff ||
		    (h->cth_flags & CTF_F_NEWFUNCINFO)) &&
		    check_id(s, rd32(s, off), 1, "symbol", 0) < 0)
			return -1;
	for (off = h->cth_objtidxoff; off < h->cth_varoff; off += 4)
		if (check_name(s, rd32(s, off), "symbol index", 0) < 0)
			return -1;
	for (off = h->cth_varoff; off < h->cth_typeoff;
	    off += sizeof(ctf_varent_t))
		if (check_name(s, rd32(s, off), "variable", 0) < 0 ||
		    check_id(s, rd32(s, off + 4), 1, "variable", 0) < 0)
			return -1;
	return 0;
}

static int
check_types(struct scan *s)
{
	size_t n;

	if (scan_records(s) < 0 || check_refs(s) < 0 ||
	    check_sections(s) < 0)
		return -1;
	n = (size_t)s->ntypes + 1;
	if ((s->size = malloc(n * sizeof(*s->size))) == NULL ||
	    (s->state = malloc(n)) == NULL ||
	    (s->depth = malloc(n * sizeof(*s->depth))) == NULL)
		return fail(s, "out of memory for %u types", s->ntypes);
	s->size[0] = -1;
	if (check_graph(s, NAMING) < 0 || check_graph(s, CONTAINMENT) < 0 ||
	    check_slices(s) < 0)
		return -1;
	return 0;
}

/* libctf's reason for a failed open, and its queued messages dropped (it
 * keeps them in a list of its own until someone reads them). */
static void
open_error(struct scan *s, int err)
{
	ctf_next_t *it = NULL;
	char *msg, *first = NULL;
	int warn;

	while ((msg = ctf_errwarning_next(NULL, &it, &warn, NULL)) != NULL) {
		if (first == NULL && !warn)
			first = msg;
		else
			free(msg);
	}
	fail(s, "libctf: %s%s%s", ctf_errmsg(err), first ? ": " : "",
	    first ? first : "");
	free(first);
}

/* Both readings must agree: libctf's sizes and count against ours. */
static int
cross_check(struct scan *s, ctf_dict_t *fp)
{
	uint32_t id;

	for (id = 1; id <= s->ntypes; id++) {
		ssize_t sz = ctf_type_size(fp, id);

		if ((s->size[id] < 0) != (sz < 0) ||
		    (sz >= 0 && sz != s->size[id]))
			return fail(s, "type %u: libctf reads its size as "
			    "%zd, not %lld", id, sz, (long long)s->size[id]);
	}
	if (ctf_type_kind(fp, s->ntypes + 1) >= 0)
		return fail(s, "libctf reads more than %u types", s->ntypes);
	return 0;
}

ctf_dict_t *
dtcp_ctf_open(const uint8_t *data, size_t size, char *why, size_t whylen,
    char *note, size_t notelen)
{
	struct scan s;
	uint8_t *copy = NULL;
	ctf_dict_t *fp = NULL;
	int err = 0;

	memset(&s, 0, sizeof(s));
	s.why = why;
	s.whylen = whylen;
	s.note = note;
	s.notelen = notelen;
	if (notelen > 0)
		note[0] = '\0';
	if (check_header(&s, data, size) == 0 &&
	    load_sections(&s, data, size, &copy) == 0 &&
	    check_types(&s) == 0) {
		fp = ctf_simple_open((const char *)data, size, NULL, 0, 0,
		    NULL, 0, &err);
		if (fp == NULL)
			open_error(&s, err);
		else if (cross_check(&s, fp) < 0) {
			ctf_dict_close(fp);
			fp = NULL;
		}
	}
	free(copy);
	free(s.toff);
	free(s.size);
	free(s.state);
	free(s.depth);
	return fp;
}

#endif /* HAVE_LIBCTF */
