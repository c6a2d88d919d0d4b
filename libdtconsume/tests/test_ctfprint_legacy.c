/*
 * test_ctfprint_legacy.c - print() as illumos and FreeBSD dtrace(1) print
 * it (ctfprint_legacy.c), over dictionaries built here with GNU libctf,
 * written out and opened again as a capture's would be, and data laid out
 * by hand.
 *
 * Every expected string was derived by reading libdtrace's dt_print.c
 * (illumos-gate usr/src/lib/libdtrace/common, FreeBSD cddl/contrib/
 * opensolaris/lib/libdtrace/common) statement by statement; the comment
 * next to each names the functions and statements that produce it.  The
 * two trees number their lines differently, so statements are quoted
 * rather than line numbers.  In short (dt_print_member):
 *
 *   dt_print_trailing_braces(pap, depth);  "}" per level closed, indented
 *       (d + nest - 1) * 4, "\n" between them but not after the last;
 *   if (depth < pap->pa_depth) "\n";
 *   if (!brief) { if (arraymember) "\n"; dt_print_indent(): (depth+nest)*4
 *       spaces; type name; if (name[0]) { " " unless the type ends in '*'
 *       or ' '; name; " :%lu" for odd integers; " =" } " " }
 *   dt_printfuncs[kind - 1](...): the value;
 *   if (!brief) "\n";
 *
 * and dtrace_print() ends with dt_print_trailing_braces(&pa, 0).  Two
 * bitfield structs and their values are those of illumos' own test
 * (cmd/dtrace/test/tst/common/bitfields/tst.bitfields.ksh.out, recorded
 * from a real run), re-derived here.
 */
#include <check.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "ctf_private.h"

#ifdef HAVE_LIBCTF

/* ----------------------------------------------------------- building */

/* A dictionary being built (w), then written and reopened (fp). */
struct dict {
	ctf_dict_t *w;
	ctf_dict_t *fp;
	unsigned char *mem;
	size_t memlen;
};

static void
d_begin(struct dict *d)
{
	int err = 0;

	memset(d, 0, sizeof(*d));
	d->w = ctf_create(&err);
	ck_assert_msg(d->w != NULL, "ctf_create: %s", ctf_errmsg(err));
}

static ctf_id_t
check_id(struct dict *d, ctf_id_t id, const char *what)
{
	ck_assert_msg(id != CTF_ERR, "%s: %s", what,
	    ctf_errmsg(ctf_errno(d->w)));
	return id;
}

/* Non-root, so that a name can be used twice (bitfield widths). */
static ctf_id_t
d_int(struct dict *d, const char *name, unsigned format, unsigned bits)
{
	ctf_encoding_t e = { format, 0, bits };

	return check_id(d, ctf_add_integer(d->w, CTF_ADD_NONROOT, name, &e),
	    name);
}

static ctf_id_t
d_float(struct dict *d, const char *name, unsigned format, unsigned bits)
{
	ctf_encoding_t e = { format, 0, bits };

	return check_id(d, ctf_add_float(d->w, CTF_ADD_NONROOT, name, &e),
	    name);
}

static ctf_id_t
d_struct(struct dict *d, const char *name)
{
	return check_id(d, ctf_add_struct(d->w, CTF_ADD_ROOT, name), "struct");
}

static ctf_id_t
d_union(struct dict *d, const char *name)
{
	return check_id(d, ctf_add_union(d->w, CTF_ADD_ROOT, name), "union");
}

/* bitoff: the member's offset in bits, as CTF keeps it */
static void
d_member(struct dict *d, ctf_id_t sou, const char *name, ctf_id_t type,
    unsigned long bitoff)
{
	ck_assert_msg(ctf_add_member_offset(d->w, sou, name, type, bitoff) ==
	    0, "member %s: %s", name, ctf_errmsg(ctf_errno(d->w)));
}

static ctf_id_t
d_array(struct dict *d, ctf_id_t contents, ctf_id_t index, unsigned nelems)
{
	ctf_arinfo_t ar = { contents, index, nelems };

	return check_id(d, ctf_add_array(d->w, CTF_ADD_ROOT, &ar), "array");
}

static ctf_id_t
d_ptr(struct dict *d, ctf_id_t ref)
{
	return check_id(d, ctf_add_pointer(d->w, CTF_ADD_ROOT, ref),
	    "pointer");
}

static ctf_id_t
d_typedef(struct dict *d, const char *name, ctf_id_t ref)
{
	return check_id(d, ctf_add_typedef(d->w, CTF_ADD_ROOT, name, ref),
	    name);
}

/* Write the dictionary out as a capture carries it and open that. */
static void
d_end(struct dict *d)
{
	int err = 0;

	d->mem = ctf_write_mem(d->w, &d->memlen, (size_t)-1);
	ck_assert_msg(d->mem != NULL, "ctf_write_mem: %s",
	    ctf_errmsg(ctf_errno(d->w)));
	ctf_dict_close(d->w);
	d->w = NULL;
	d->fp = ctf_simple_open((const char *)d->mem, d->memlen, NULL, 0, 0,
	    NULL, 0, &err);
	ck_assert_msg(d->fp != NULL, "ctf_simple_open: %s", ctf_errmsg(err));
	/* pointers are 8 bytes whatever this host is */
	ck_assert_int_eq(ctf_setmodel(d->fp, CTF_MODEL_LP64), 0);
}

static void
d_free(struct dict *d)
{
	if (d->w != NULL)
		ctf_dict_close(d->w);
	if (d->fp != NULL)
		ctf_dict_close(d->fp);
	free(d->mem);
	memset(d, 0, sizeof(*d));
}

/*
 * Make typedef chains the libctf API will not build: the n typedefs
 * named by from[] all point at `target` when built; in the written bytes
 * the i-th is repointed at to[i].  A typedef record (ctf_stype_t) is
 * name, info (kind 10 in its top 6 bits), type.
 */
static void
d_repoint_typedefs(struct dict *d, ctf_id_t target, const ctf_id_t *to,
    int n)
{
	int found = 0;
	size_t off;
	uint32_t info, ty, v;

	for (off = 0; off + 8 <= d->memlen && found < n; off++) {
		memcpy(&info, d->mem + off, 4);
		memcpy(&ty, d->mem + off + 4, 4);
		if (info >> 26 == CTF_K_TYPEDEF && ty == (uint32_t)target) {
			v = (uint32_t)to[found++];
			memcpy(d->mem + off + 4, &v, 4);
			off += 7;
		}
	}
	ck_assert_int_eq(found, n);
}

/* Write, patch, open. */
static void
d_end_patched(struct dict *d, ctf_id_t target, const ctf_id_t *to, int n)
{
	int err = 0;

	d->mem = ctf_write_mem(d->w, &d->memlen, (size_t)-1);
	ck_assert_ptr_nonnull(d->mem);
	ctf_dict_close(d->w);
	d->w = NULL;
	d_repoint_typedefs(d, target, to, n);
	d->fp = ctf_simple_open((const char *)d->mem, d->memlen, NULL, 0, 0,
	    NULL, 0, &err);
	ck_assert_msg(d->fp != NULL, "ctf_simple_open: %s", ctf_errmsg(err));
}

/* ------------------------------------------------------------ running */

#define SIGNED_CHAR (CTF_INT_SIGNED | CTF_INT_CHAR)

/* swap for data laid out big-endian */
static int
be_swap(void)
{
	static const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

struct run {
	int rc;
	const char *why;
	char *text;
};

static struct run
render(ctf_dict_t *fp, ctf_id_t type, const char *hex, int swap,
    int illumos)
{
	static uint8_t data[4096];
	struct run r;
	dtc_buf out;
	size_t n = util_unhex(hex, data, sizeof(data));

	dtc_buf_init(&out);
	r.why = NULL;
	r.rc = dtcp_ctfprint_legacy(fp, type, data, n, swap, illumos, &out,
	    SIZE_MAX, &r.why);
	r.text = strdup(out.s != NULL ? out.s : "");
	ck_assert_ptr_nonnull(r.text);
	dtc_buf_free(&out);
	return r;
}

static void
expect(ctf_dict_t *fp, ctf_id_t type, const char *hex, int swap,
    int illumos, const char *want)
{
	struct run r = render(fp, type, hex, swap, illumos);

	ck_assert_msg(r.rc == 0, "%s: failed (%s) after \"%s\"",
	    illumos ? "illumos" : "FreeBSD", r.why ? r.why : "?", r.text);
	ck_assert_msg(strcmp(r.text, want) == 0,
	    "%s:\n--- got ---\n%s\n--- want ---\n%s\n---",
	    illumos ? "illumos" : "FreeBSD", r.text, want);
	free(r.text);
}

/* The same text under both rules. */
static void
expect_both(ctf_dict_t *fp, ctf_id_t type, const char *hex, int swap,
    const char *want)
{
	expect(fp, type, hex, swap, 1, want);
	expect(fp, type, hex, swap, 0, want);
}

/* A refusal, with a reason and the text printed before it. */
static void
expect_fail(ctf_dict_t *fp, ctf_id_t type, const char *hex, int illumos,
    const char *partial)
{
	struct run r = render(fp, type, hex, 0, illumos);

	ck_assert_msg(r.rc == -1, "accepted: \"%s\"", r.text);
	ck_assert_msg(r.why != NULL && r.why[0] != '\0', "no reason given");
	if (partial != NULL)
		ck_assert_msg(strcmp(r.text, partial) == 0,
		    "--- got ---\n%s\n--- want ---\n%s\n---", r.text, partial);
	free(r.text);
}

/* -------------------------------------------------------------- tests */

/* Integers of each size and sign: raw hex, whatever the sign. */
START_TEST(test_ints)
{
	struct dict d;
	ctf_id_t s, c, uc, sh, ush, in, uin, ll, ull;

	d_begin(&d);
	c = d_int(&d, "char", SIGNED_CHAR, 8);
	uc = d_int(&d, "unsigned char", CTF_INT_CHAR, 8);
	sh = d_int(&d, "short", CTF_INT_SIGNED, 16);
	ush = d_int(&d, "unsigned short", 0, 16);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	uin = d_int(&d, "unsigned int", 0, 32);
	ll = d_int(&d, "long long", CTF_INT_SIGNED, 64);
	ull = d_int(&d, "unsigned long long", 0, 64);
	s = d_struct(&d, "s1");
	d_member(&d, s, "c", c, 0);
	d_member(&d, s, "u8", uc, 8);
	d_member(&d, s, "s16", sh, 16);
	d_member(&d, s, "u16", ush, 32);
	d_member(&d, s, "i32", in, 64);
	d_member(&d, s, "u32", uin, 96);
	d_member(&d, s, "i64", ll, 128);
	d_member(&d, s, "u64", ull, 192);
	d_end(&d);

	/*
	 * dt_print_member at depth 0: type "struct s1", empty name, " ",
	 * dt_print_structlike "{", "\n".  Each member at depth 1: 4 spaces,
	 * type, " ", name, no " :bits" (whole bytes at whole-byte offsets of
	 * the type's own size), " =", " ", then dt_print_int:
	 * CTF_IS_CHAR (signed char of 8 bits) -> "'%c'"; "unsigned char"
	 * has no CTF_INT_SIGNED -> dt_print_hex "%#x"; the rest
	 * dt_print_hex "%#x" / "%#llx" of the unsigned bytes ("0" for 0, as
	 * "%#x" does).  dtrace_print's final dt_print_trailing_braces(&pa,
	 * 0): d = 1, width (1 + 0 - 1) * 4 = 0, "}", no newline.
	 */
	expect_both(d.fp, s,
	    "41 ff feff 3412 0000 ffffffff 00000000"
	    "0807060504030201 1032547698badcfe", 0,
	    "struct s1 {\n"
	    "    char c = 'A'\n"
	    "    unsigned char u8 = 0xff\n"
	    "    short s16 = 0xfffe\n"
	    "    unsigned short u16 = 0x1234\n"
	    "    int i32 = 0xffffffff\n"
	    "    unsigned int u32 = 0\n"
	    "    long long i64 = 0x102030405060708\n"
	    "    unsigned long long u64 = 0xfedcba9876543210\n"
	    "}");

	/* a scalar at the top: dt_print_member depth 0, "int", empty
	 * name, " ", dt_print_hex, "\n"; no braces to close */
	expect_both(d.fp, in, "2a000000", 0, "int 0x2a\n");
	d_free(&d);
}
END_TEST

/* char: printable, NUL, and octal escapes of a signed char. */
START_TEST(test_chars)
{
	struct dict d;
	ctf_id_t s, c;

	d_begin(&d);
	c = d_int(&d, "char", SIGNED_CHAR, 8);
	s = d_struct(&d, "cs");
	d_member(&d, s, "a", c, 0);
	d_member(&d, s, "b", c, 8);
	d_member(&d, s, "z", c, 16);
	d_member(&d, s, "t", c, 24);
	d_member(&d, s, "d", c, 32);
	d_member(&d, s, "s", c, 40);
	d_end(&d);

	/*
	 * dt_print_int, CTF_IS_CHAR: char c = *(char *)addr;
	 * isprint(c) -> "'%c'"; c == 0 -> "'\\0'"; else "'\\%03o'" of c
	 * promoted to int: 0x0a -> 012, 0x7f -> 177, and 0x80, a negative
	 * char, -> %o of 0xffffff80 = 37777777600.
	 */
	expect_both(d.fp, s, "0a 80 00 7e 7f 20", 0,
	    "struct cs {\n"
	    "    char a = '\\012'\n"
	    "    char b = '\\37777777600'\n"
	    "    char z = '\\0'\n"
	    "    char t = '~'\n"
	    "    char d = '\\177'\n"
	    "    char s = ' '\n"
	    "}");
	d_free(&d);
}
END_TEST

/* char arrays: strings bare at the top, bracketed inside; else elements */
START_TEST(test_char_arrays)
{
	struct dict d;
	ctf_id_t c, in, a8, a16, a4, a2x4, s;

	d_begin(&d);
	c = d_int(&d, "char", SIGNED_CHAR, 8);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	a8 = d_array(&d, c, in, 8);
	a16 = d_array(&d, c, in, 16);
	a4 = d_array(&d, c, in, 4);
	a2x4 = d_array(&d, a4, in, 2);
	s = d_struct(&d, "named");
	d_member(&d, s, "id", in, 0);
	d_member(&d, s, "name", a8, 32);
	d_end(&d);

	/*
	 * dt_print_array: the scan stops at 'h','i' then c == '\0' before
	 * ctr_nelems -> isstring.  At depth 0 no "[ " (the "string \"foo\""
	 * case), "\"", the chars up to the NUL, "\"".  The type name is
	 * ctf_type_name's "char [8]" (base, " ", "[8]").  "\n" from
	 * dt_print_member.
	 */
	expect_both(d.fp, a8, "68 69 00 6a 75 6e 6b 00", 0,
	    "char [8] \"hi\"\n");

	/* only the bytes up to the NUL are read: 3 of 16 are enough */
	expect_both(d.fp, a16, "61 62 00", 0, "char [16] \"ab\"\n");

	/* inside a struct (pa_depth 1): "[ ", "\"dtrace\"", " ]" */
	expect_both(d.fp, s, "07000000 647472616365 0000", 0,
	    "struct named {\n"
	    "    int id = 0x7\n"
	    "    char [8] name = [ \"dtrace\" ]\n"
	    "}");

	/*
	 * No NUL within the array (the scan ends with i == ctr_nelems): not
	 * a string, so each element is a ctf_type_visit of its own with
	 * pa_nest = 0 + 0 + 1, depth 0: arraymember and not structlike, so
	 * brief: just dt_print_int's "'a'"; ", " between, " ]" after.
	 */
	expect_both(d.fp, a4, "61626364", 0,
	    "char [4] [ 'a', 'b', 'c', 'd' ]\n");

	/* a non-printable char before the NUL also ends the scan */
	expect_both(d.fp, a4, "61 01 00 00", 0,
	    "char [4] [ 'a', '\\001', '\\0', '\\0' ]\n");

	/*
	 * char [2][4] (ctf_type_name prepends array declarators: "[2][4]").
	 * Each element is a char [4] visited at pa_depth 0, so a string
	 * element prints bare: "\"ab\"".
	 */
	expect_both(d.fp, a2x4, "61620000 63640000", 0,
	    "char [2][4] [ \"ab\", \"cd\" ]\n");
	d_free(&d);
}
END_TEST

/* Arrays of integers, one and two dimensions. */
START_TEST(test_int_arrays)
{
	struct dict d;
	ctf_id_t in, a3, a2x3, s;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	a3 = d_array(&d, in, in, 3);
	a2x3 = d_array(&d, a3, in, 2);
	s = d_struct(&d, "ia");
	d_member(&d, s, "a", a3, 0);
	d_member(&d, s, "m", a2x3, 96);
	d_end(&d);

	/*
	 * dt_print_array for a (pa_depth 1): "[ ", elements brief (pa_nest
	 * 0 + 1 + 1, depth 0) ", "-separated, then " " and "]".  For m each
	 * element is itself an int [3], printed brief by its own
	 * dt_print_array at pa_depth 0: "[ 0x4, 0x5, 0x6 ]".
	 */
	expect_both(d.fp, s,
	    "01000000 02000000 03000000"
	    "04000000 05000000 06000000 07000000 08000000 09000000", 0,
	    "struct ia {\n"
	    "    int [3] a = [ 0x1, 0x2, 0x3 ]\n"
	    "    int [2][3] m = [ [ 0x4, 0x5, 0x6 ], [ 0x7, 0x8, 0x9 ] ]\n"
	    "}");
	expect_both(d.fp, a3, "01000000 02000000 03000000", 0,
	    "int [3] [ 0x1, 0x2, 0x3 ]\n");
	d_free(&d);
}
END_TEST

/* A nested struct, reached through a typedef chain; typedef'd members. */
START_TEST(test_nested_typedefs)
{
	struct dict d;
	ctf_id_t in, sh, uin, inner, t1, t2, u32, outer;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	sh = d_int(&d, "short", CTF_INT_SIGNED, 16);
	uin = d_int(&d, "unsigned int", 0, 32);
	inner = d_struct(&d, "inner");
	d_member(&d, inner, "a", sh, 0);
	d_member(&d, inner, "b", sh, 16);
	t1 = d_typedef(&d, "inner_t", inner);
	t2 = d_typedef(&d, "inner2_t", t1);
	u32 = d_typedef(&d, "u32_t", uin);
	outer = d_struct(&d, "outer");
	d_member(&d, outer, "x", in, 0);
	d_member(&d, outer, "in", t2, 32);
	d_member(&d, outer, "y", u32, 64);
	d_end(&d);

	/*
	 * "in" is named by its typedef ("inner2_t", a named typedef is a
	 * base declarator) and its value is dt_print_structlike's "{".
	 * Its members at depth 2 are indented 8.  Member y at depth 1 first
	 * closes depth 2: dt_print_trailing_braces d = 2, width (2 + 0 - 1)
	 * * 4 = 4, "}", no newline (d == depth + 1), then "\n" because
	 * depth < pa_depth.  u32_t resolves to an integer and prints hex.
	 */
	expect_both(d.fp, outer, "01000000 0200 0300 04000000", 0,
	    "struct outer {\n"
	    "    int x = 0x1\n"
	    "    inner2_t in = {\n"
	    "        short a = 0x2\n"
	    "        short b = 0x3\n"
	    "    }\n"
	    "    u32_t y = 0x4\n"
	    "}");

	/* the top-level type is named as given, not as resolved */
	expect_both(d.fp, t2, "0200 0300", 0,
	    "inner2_t {\n"
	    "    short a = 0x2\n"
	    "    short b = 0x3\n"
	    "}");
	d_free(&d);
}
END_TEST

/* A union: every member from the same bytes. */
START_TEST(test_union)
{
	struct dict d;
	ctf_id_t in, uc, a4, u;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	uc = d_int(&d, "unsigned char", CTF_INT_CHAR, 8);
	a4 = d_array(&d, uc, in, 4);
	u = d_union(&d, "u");
	d_member(&d, u, "i", in, 0);
	d_member(&d, u, "b", a4, 0);
	d_end(&d);

	/*
	 * dt_print_structlike "{" for unions too.  b's elements are
	 * "unsigned char" (not CTF_IS_CHAR: no CTF_INT_SIGNED), so no string
	 * test succeeds and each prints dt_print_hex "%#x".
	 */
	expect_both(d.fp, u, "01020304", 0,
	    "union u {\n"
	    "    int i = 0x4030201\n"
	    "    unsigned char [4] b = [ 0x1, 0x2, 0x3, 0x4 ]\n"
	    "}");
	d_free(&d);
}
END_TEST

/* Anonymous struct and union members. */
START_TEST(test_anonymous)
{
	struct dict d;
	ctf_id_t in, sh, as, au, s;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	sh = d_int(&d, "short", CTF_INT_SIGNED, 16);
	as = check_id(&d, ctf_add_struct(d.w, CTF_ADD_NONROOT, NULL), "anon");
	d_member(&d, as, "b", in, 0);
	au = check_id(&d, ctf_add_union(d.w, CTF_ADD_NONROOT, NULL), "anon");
	d_member(&d, au, "c", in, 0);
	d_member(&d, au, "d", sh, 0);
	s = d_struct(&d, "anon");
	d_member(&d, s, "a", in, 0);
	d_member(&d, s, "", as, 32);
	d_member(&d, s, "", au, 64);
	d_member(&d, s, "e", in, 96);
	d_end(&d);

	/*
	 * ctf_type_visit passes anonymous members with name "" at their
	 * own depth.  ctf_type_name of an anonymous struct is "struct "
	 * (trailing space); with no name, dt_print_member prints the type
	 * and then " " -> "struct  {" (as in illumos' tst.anon.ksh.out).
	 */
	expect_both(d.fp, s, "01000000 02000000 03000500 06000000", 0,
	    "struct anon {\n"
	    "    int a = 0x1\n"
	    "    struct  {\n"
	    "        int b = 0x2\n"
	    "    }\n"
	    "    union  {\n"
	    "        int c = 0x50003\n"
	    "        short d = 0x3\n"
	    "    }\n"
	    "    int e = 0x6\n"
	    "}");
	d_free(&d);
}
END_TEST

/* Enums: the enumerator's name, else the value in decimal. */
START_TEST(test_enum)
{
	struct dict d;
	ctf_id_t en, s;

	d_begin(&d);
	en = check_id(&d, ctf_add_enum(d.w, CTF_ADD_ROOT, "color"), "enum");
	ck_assert_int_eq(ctf_add_enumerator(d.w, en, "RED", 0), 0);
	ck_assert_int_eq(ctf_add_enumerator(d.w, en, "GREEN", 1), 0);
	ck_assert_int_eq(ctf_add_enumerator(d.w, en, "BLUE", 2), 0);
	s = d_struct(&d, "e");
	d_member(&d, s, "c1", en, 0);
	d_member(&d, s, "c2", en, 32);
	d_member(&d, s, "c3", en, 64);
	d_end(&d);

	/*
	 * dt_print_enum: ctf_type_size of an enum is the model's int (4)
	 * in both libctfs, so value = *(int32_t *)addr; ctf_enum_name ->
	 * "%s", else "%d".
	 */
	expect_both(d.fp, s, "01000000 07000000 ffffffff", 0,
	    "struct e {\n"
	    "    enum color c1 = GREEN\n"
	    "    enum color c2 = 7\n"
	    "    enum color c3 = -1\n"
	    "}");
	expect_both(d.fp, en, "02000000", 0, "enum color BLUE\n");
	d_free(&d);
}
END_TEST

/* Pointers, and the names ctf_type_name gives pointer types. */
START_TEST(test_pointers)
{
	struct dict d;
	ctf_id_t vd, in, c, cc, pv, pi, pc, ppc, fn, pfn, pcc, s;
	ctf_funcinfo_t fi;

	d_begin(&d);
	vd = d_int(&d, "void", 0, 0);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	c = d_int(&d, "char", SIGNED_CHAR, 8);
	pv = d_ptr(&d, vd);
	pi = d_ptr(&d, in);
	pc = d_ptr(&d, c);
	ppc = d_ptr(&d, pc);
	memset(&fi, 0, sizeof(fi));
	fi.ctc_return = in;
	fn = check_id(&d, ctf_add_function(d.w, CTF_ADD_ROOT, &fi, NULL),
	    "function");
	pfn = d_ptr(&d, fn);
	cc = check_id(&d, ctf_add_const(d.w, CTF_ADD_ROOT, c), "const");
	pcc = d_ptr(&d, cc);
	s = d_struct(&d, "ptrs");
	d_member(&d, s, "v", pv, 0);
	d_member(&d, s, "ip", pi, 64);
	d_member(&d, s, "pp", ppc, 128);
	d_member(&d, s, "fn", pfn, 192);
	d_member(&d, s, "s", pcc, 256);
	d_end(&d);

	/*
	 * dt_print_ptr: dt_print_hex of ctf_type_size (8) bytes.  Names
	 * from ctf_type_name's declarator stacks: "void *" ("*" after a
	 * space), "char **", "int (*)()" (the pointer is parenthesised
	 * because it is pushed after the function; a function prints "()"),
	 * "const char *" (a qualifier of a base type is prepended).  No
	 * space before the member name after a '*' (dt_print_member).
	 * dtrace would print fn as module`symbol if the kernel knew the
	 * address; here no symbol table is consulted.
	 */
	expect_both(d.fp, s,
	    "efbeadde00000000 0000000000000000 67452381ffffffff"
	    "00100080ffffffff 0010000000000000", 0,
	    "struct ptrs {\n"
	    "    void *v = 0xdeadbeef\n"
	    "    int *ip = 0\n"
	    "    char **pp = 0xffffffff81234567\n"
	    "    int (*)() fn = 0xffffffff80001000\n"
	    "    const char *s = 0x1000\n"
	    "}");

	/* at the top the name is empty, so the space stays: "int * " */
	expect_both(d.fp, pi, "1000000000000000", 0, "int * 0x10\n");
	d_free(&d);
}
END_TEST

/* _Bool, float, double, long double. */
START_TEST(test_bool_float)
{
	struct dict d;
	ctf_id_t b, f, db, ld, s;

	d_begin(&d);
	b = d_int(&d, "_Bool", CTF_INT_BOOL, 8);
	f = d_float(&d, "float", CTF_FP_SINGLE, 32);
	db = d_float(&d, "double", CTF_FP_DOUBLE, 64);
	ld = d_float(&d, "long double", CTF_FP_LDOUBLE, 128);
	s = d_struct(&d, "fb");
	d_member(&d, s, "flag", b, 0);
	d_member(&d, s, "off", b, 8);
	d_member(&d, s, "f", f, 32);
	d_member(&d, s, "d", db, 64);
	d_end(&d);

	/*
	 * No case for booleans in dt_print_int: one byte, dt_print_hex.
	 * dt_print_float: CTF_FP_SINGLE of 32 bits -> "%+.7e" of the float,
	 * CTF_FP_DOUBLE of 64 bits -> "%+.7e": 1.5 and -0.1.
	 */
	expect_both(d.fp, s, "01 00 0000 0000c03f 9a9999999999b9bf", 0,
	    "struct fb {\n"
	    "    _Bool flag = 0x1\n"
	    "    _Bool off = 0\n"
	    "    float f = +1.5000000e+00\n"
	    "    double d = -1.0000000e-01\n"
	    "}");

	/* the same double from a big-endian capture */
	expect_both(d.fp, db, "bfb999999999999a", be_swap(),
	    "double -1.0000000e-01\n");

#if LDBL_MANT_DIG == 64
	/* CTF_FP_LDOUBLE of sizeof (long double) * 8 bits -> "%+.16LE";
	 * 1.0 in x87 format: mantissa 0x8000000000000000, exponent 0x3fff */
	expect_both(d.fp, ld, "0000000000000080 ff3f 000000000000", 0,
	    "long double +1.0000000000000000E+00\n");
#else
	(void)ld;
#endif
	d_free(&d);
}
END_TEST

/*
 * illumos' tst.bitfields bit1_t: uint16_t a:1, b:8, c:3, d:2, e:1, f:1
 * over 0xe417 (little-endian bytes 17 e4).
 */
START_TEST(test_bitfields_bit1)
{
	struct dict d;
	ctf_id_t s;
	static const unsigned bits[] = { 1, 8, 3, 2, 1, 1 };
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	unsigned long off = 0;
	int i;

	d_begin(&d);
	s = d_struct(&d, "bit1");
	for (i = 0; i < 6; i++) {
		d_member(&d, s, names[i],
		    d_int(&d, "unsigned short", 0, bits[i]), off);
		off += bits[i];
	}
	d_end(&d);

	/*
	 * dt_print_member prints " :%lu" as bits % 8 != 0 (or, for b,
	 * off % 8 != 0).  Values (0xe417 = 1110 0100 0001 0111):
	 *   a: bits 0 -> 1; c: bits 9-11 -> 2; d: bits 12-13 -> 2;
	 *   e: bit 14 -> 1; f: bit 15 -> 1, in both: print_bitfield copies
	 *   the byte (off / 8) and shifts right by off % 8.
	 *   b: 8 bits at bit 1.  illumos: dt_is_bitfield() (off % 8 != 0)
	 *   -> print_bitfield, 2 bytes (1 + 8 bits) 0xe417 >> 1 & 0xff =
	 *   0xb (illumos' recorded output).  FreeBSD: a power-of-two size,
	 *   so not a bitfield: dt_print_hex of 1 byte at addr + 1 / 8, 0x17.
	 */
	expect(d.fp, s, "17e4", 0, 1,
	    "struct bit1 {\n"
	    "    unsigned short a :1 = 0x1\n"
	    "    unsigned short b :8 = 0xb\n"
	    "    unsigned short c :3 = 0x2\n"
	    "    unsigned short d :2 = 0x2\n"
	    "    unsigned short e :1 = 0x1\n"
	    "    unsigned short f :1 = 0x1\n"
	    "}");
	expect(d.fp, s, "17e4", 0, 0,
	    "struct bit1 {\n"
	    "    unsigned short a :1 = 0x1\n"
	    "    unsigned short b :8 = 0x17\n"
	    "    unsigned short c :3 = 0x2\n"
	    "    unsigned short d :2 = 0x2\n"
	    "    unsigned short e :1 = 0x1\n"
	    "    unsigned short f :1 = 0x1\n"
	    "}");
	d_free(&d);
}
END_TEST

/*
 * illumos' tst.bitfields bit0_t: uint32_t a:3 b:2 c:1 d:1 e:1 f:1 g:3
 * h:3 i:5 j:4 k:6 l:1 m:1 over 0x9391d7db (bytes db d7 91 93).
 */
START_TEST(test_bitfields_bit0)
{
	struct dict d;
	ctf_id_t s;
	static const unsigned bits[] = { 3, 2, 1, 1, 1, 1, 3, 3, 5, 4, 6, 1,
	    1 };
	static const char *const names[] = { "a", "b", "c", "d", "e", "f",
	    "g", "h", "i", "j", "k", "l", "m" };
	unsigned long off = 0;
	int i;

	d_begin(&d);
	s = d_struct(&d, "bit0");
	for (i = 0; i < 13; i++) {
		d_member(&d, s, names[i],
		    d_int(&d, "unsigned int", 0, bits[i]), off);
		off += bits[i];
	}
	d_end(&d);

	/*
	 * 0x9391d7db = 1001 0011 1001 0001 1101 0111 1101 1011; each field
	 * is (v >> off) & mask: a 3, b 3, c 0, d 1, e 1, f 1, g 3, h 5,
	 * i 3, j 9, k 0x13, l 0, m 1 (illumos' recorded output).  i is 5
	 * bits at bit 15, across bytes 1 and 2: illumos' print_bitfield
	 * copies (15 % 8 + 5 + 7) / 8 = 2 bytes, 0x91d7 >> 7 & 0x1f = 3;
	 * FreeBSD's copies (5 + 7) / 8 = 1 byte, 0xd7 >> 7 & 0x1f = 1.
	 */
	expect(d.fp, s, "dbd79193", 0, 1,
	    "struct bit0 {\n"
	    "    unsigned int a :3 = 0x3\n"
	    "    unsigned int b :2 = 0x3\n"
	    "    unsigned int c :1 = 0\n"
	    "    unsigned int d :1 = 0x1\n"
	    "    unsigned int e :1 = 0x1\n"
	    "    unsigned int f :1 = 0x1\n"
	    "    unsigned int g :3 = 0x3\n"
	    "    unsigned int h :3 = 0x5\n"
	    "    unsigned int i :5 = 0x3\n"
	    "    unsigned int j :4 = 0x9\n"
	    "    unsigned int k :6 = 0x13\n"
	    "    unsigned int l :1 = 0\n"
	    "    unsigned int m :1 = 0x1\n"
	    "}");
	expect(d.fp, s, "dbd79193", 0, 0,
	    "struct bit0 {\n"
	    "    unsigned int a :3 = 0x3\n"
	    "    unsigned int b :2 = 0x3\n"
	    "    unsigned int c :1 = 0\n"
	    "    unsigned int d :1 = 0x1\n"
	    "    unsigned int e :1 = 0x1\n"
	    "    unsigned int f :1 = 0x1\n"
	    "    unsigned int g :3 = 0x3\n"
	    "    unsigned int h :3 = 0x5\n"
	    "    unsigned int i :5 = 0x1\n"
	    "    unsigned int j :4 = 0x9\n"
	    "    unsigned int k :6 = 0x13\n"
	    "    unsigned int l :1 = 0\n"
	    "    unsigned int m :1 = 0x1\n"
	    "}");
	d_free(&d);
}
END_TEST

/* A 64-bit integer at a bit offset: too wide for illumos' bitfield. */
START_TEST(test_bitfield_too_wide)
{
	struct dict d;
	ctf_id_t in, ul, s;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	ul = d_int(&d, "unsigned long", 0, 64);
	s = d_struct(&d, "big");
	/* GNU libctf puts a struct's first member at 0 whatever it is told */
	d_member(&d, s, "u", in, 0);
	d_member(&d, s, "v", ul, 36);
	d_end(&d);

	/*
	 * " :64" since off % 8 != 0.  illumos: dt_is_bitfield (offset) ->
	 * print_bitfield: (36 % 8 + 64 + 7) / 8 = 9 bytes > sizeof (value)
	 * -> "??? (total bitfield too large after alignment" (sic).
	 * FreeBSD: 8 whole bytes are not a bitfield: dt_print_hex "%#llx" of
	 * the 8 bytes at addr + 36 / 8 = addr + 4.
	 */
	expect(d.fp, s, "00000000 1032547698badcfe 00", 0, 1,
	    "struct big {\n"
	    "    int u = 0\n"
	    "    unsigned long v :64 = "
	    "??? (total bitfield too large after alignment\n"
	    "}");
	expect(d.fp, s, "00000000 1032547698badcfe 00", 0, 0,
	    "struct big {\n"
	    "    int u = 0\n"
	    "    unsigned long v :64 = 0xfedcba9876543210\n"
	    "}");
	d_free(&d);
}
END_TEST

/*
 * A big-endian capture (SPARC): integers byte-swapped; bitfields counted
 * from the top bit, as print_bitfield's _BIG_ENDIAN branch does.
 */
START_TEST(test_big_endian)
{
	struct dict d;
	ctf_id_t sh, in, s;
	static const unsigned bits[] = { 3, 3, 6, 4 };
	static const char *const names[] = { "a", "b", "c", "d" };
	unsigned long off = 0;
	int i;

	d_begin(&d);
	sh = d_int(&d, "short", CTF_INT_SIGNED, 16);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	s = d_struct(&d, "bebf");
	for (i = 0; i < 4; i++) {
		d_member(&d, s, names[i],
		    d_int(&d, "unsigned int", 0, bits[i]), off);
		off += bits[i];
	}
	d_member(&d, s, "s", sh, 16);
	d_member(&d, s, "x", in, 32);
	d_end(&d);

	/*
	 * Bits from the top: a 101 = 5, b 011 = 3, c 101101 = 0x2d, d 1001
	 * = 9 -> 1010 1110 1101 1001 = ae d9.  print_bitfield, big-endian:
	 * the copied bytes are the low bytes of value, off += cte_bits,
	 * shift = 8 - off % 8 unless off % 8 == 0.
	 *   a: 1 byte 0xae, off 3, >> 5 -> 5.  b: off 6, >> 2, & 7 -> 3.
	 *   d: byte 0xd9, off 16, no shift, & 0xf -> 9.
	 *   c: 6 bits at bit 6 cross into byte 1.  illumos copies (6 + 6 +
	 *   7) / 8 = 2 bytes, 0xaed9, off 12, >> 4 = 0xaed & 0x3f = 0x2d;
	 *   FreeBSD 1 byte, 0xae >> 4 = 0xa.
	 * s and x: dt_print_hex of the byte-swapped 0x0102 and 0x01020304.
	 */
	expect(d.fp, s, "aed9 0102 01020304", be_swap(), 1,
	    "struct bebf {\n"
	    "    unsigned int a :3 = 0x5\n"
	    "    unsigned int b :3 = 0x3\n"
	    "    unsigned int c :6 = 0x2d\n"
	    "    unsigned int d :4 = 0x9\n"
	    "    short s = 0x102\n"
	    "    int x = 0x1020304\n"
	    "}");
	expect(d.fp, s, "aed9 0102 01020304", be_swap(), 0,
	    "struct bebf {\n"
	    "    unsigned int a :3 = 0x5\n"
	    "    unsigned int b :3 = 0x3\n"
	    "    unsigned int c :6 = 0xa\n"
	    "    unsigned int d :4 = 0x9\n"
	    "    short s = 0x102\n"
	    "    int x = 0x1020304\n"
	    "}");
	d_free(&d);
}
END_TEST

/* Arrays of structs: each element on its own lines. */
START_TEST(test_struct_array)
{
	struct dict d;
	ctf_id_t in, pt, a2, poly;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	pt = d_struct(&d, "pt");
	d_member(&d, pt, "x", in, 0);
	a2 = d_array(&d, pt, in, 2);
	poly = d_struct(&d, "poly");
	d_member(&d, poly, "p", a2, 0);
	d_end(&d);

	/*
	 * dt_print_array at pa_depth 1: "[ ".  Element visits have pa_nest
	 * 0 + 1 + 1 = 2 and depth 0: arraymember and structlike, so not
	 * brief: "\n", indent (0 + 2) * 4, "struct pt", " ", "{", "\n";
	 * x at depth 1 indented (1 + 2) * 4.  After each visit
	 * dt_print_trailing_braces(&pa, 0): width (1 + 2 - 1) * 4, "}";
	 * then ", " between elements and "\n" after the last.  Finally
	 * dt_print_indent(pap) (4) and "]".  Note the spaces left before
	 * the newlines after "[" and ",".
	 */
	expect_both(d.fp, poly, "01000000 02000000", 0,
	    "struct poly {\n"
	    "    struct pt [2] p = [ \n"
	    "        struct pt {\n"
	    "            int x = 0x1\n"
	    "        }, \n"
	    "        struct pt {\n"
	    "            int x = 0x2\n"
	    "        }\n"
	    "    ]\n"
	    "}");
	d_free(&d);
}
END_TEST

/* Structs without members: their "}" is never printed. */
START_TEST(test_empty_struct)
{
	struct dict d;
	ctf_id_t in, e, h;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	e = d_struct(&d, "empty");
	h = d_struct(&d, "holder");
	d_member(&d, h, "e", e, 0);
	d_member(&d, h, "x", in, 0);
	d_end(&d);

	/*
	 * Braces are closed only when a later member is shallower (or by
	 * dtrace_print's final dt_print_trailing_braces(&pa, 0)), and an
	 * empty struct leaves pa_depth at its own depth: nothing closes it.
	 */
	expect_both(d.fp, e, "", 0, "struct empty {\n");
	expect_both(d.fp, h, "05000000", 0,
	    "struct holder {\n"
	    "    struct empty e = {\n"
	    "    int x = 0x5\n"
	    "}");
	d_free(&d);
}
END_TEST

/* Forward declarations, and names too long for DT_TYPE_NAMELEN. */
START_TEST(test_forward_and_long_names)
{
	struct dict d;
	ctf_id_t in, fw, s120, s121;
	char n120[121], n121[122], want[512];

	memset(n120, 'x', 120);
	n120[120] = '\0';
	memset(n121, 'y', 121);
	n121[121] = '\0';
	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	fw = check_id(&d, ctf_add_forward(d.w, CTF_ADD_ROOT, "fwd",
	    CTF_K_UNION), "forward");
	s120 = d_struct(&d, n120);
	d_member(&d, s120, "a", in, 0);
	s121 = d_struct(&d, n121);
	d_member(&d, s121, "a", in, 0);
	d_end(&d);

	/* dt_print_tag; illumos' libctf names every forward "struct " */
	expect_both(d.fp, fw, "", 0, "struct fwd <forward decl>\n");

	/* "struct " + 120 = 127 characters fit in DT_TYPE_NAMELEN (128) */
	snprintf(want, sizeof(want), "struct %s {\n    int a = 0x1\n}", n120);
	expect_both(d.fp, s120, "01000000", 0, want);
	/* 128 do not: dt_print_type_name falls back to "<%ld>" */
	snprintf(want, sizeof(want), "<%ld> {\n    int a = 0x1\n}",
	    (long)s121);
	expect_both(d.fp, s121, "01000000", 0, want);
	d_free(&d);
}
END_TEST

/* Data shorter than the type: what was printed, then a refusal. */
START_TEST(test_short_data)
{
	struct dict d;
	ctf_id_t in, s;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	s = d_struct(&d, "two");
	d_member(&d, s, "a", in, 0);
	d_member(&d, s, "b", in, 32);
	d_end(&d);

	/* dtrace would read b from past the record */
	expect_fail(d.fp, s, "01000000 0200", 1,
	    "struct two {\n"
	    "    int a = 0x1\n"
	    "    int b = ");
	expect_fail(d.fp, s, "", 0, "struct two {\n    int a = ");
	d_free(&d);
}
END_TEST

/* Hostile dictionaries and data: refused, never read past, never stuck. */
START_TEST(test_hostile)
{
	struct dict d;
	ctf_id_t in, far, huge, e, manye, self;

	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	far = d_struct(&d, "far");
	d_member(&d, far, "a", in, 0);
	d_member(&d, far, "b", in, 8000);
	huge = d_array(&d, in, in, 0x7fffffff);
	e = d_struct(&d, "e");
	manye = d_array(&d, e, in, 1u << 30);
	self = d_struct(&d, "self");
	d_member(&d, self, "s", self, 0);
	d_end(&d);

	/* no such type: dtrace_print() returns 0 and trace() prints it */
	expect_fail(d.fp, 9999, "00000000", 1, "");
	expect_fail(d.fp, 0, "00000000", 0, "");

	/* a member 1000 bytes into 8 bytes of data */
	expect_fail(d.fp, far, "0100000000000000", 1, "struct far {\n"
	    "    int a = 0x1\n"
	    "    int b = ");

	/* 2^31 - 1 ints over 16 bytes: four print, the fifth is refused */
	expect_fail(d.fp, huge, "01000000 02000000 03000000 04000000", 0,
	    "int [2147483647] [ 0x1, 0x2, 0x3, 0x4, ");

	/* 2^30 empty structs read nothing: the work bound stops them */
	expect_fail(d.fp, manye, "", 1, NULL);

	/* a struct that contains itself: the depth bound stops it */
	expect_fail(d.fp, self, "", 0, NULL);
	d_free(&d);
}
END_TEST

/* Typedef cycles, which the libctf API cannot build: patched in. */
START_TEST(test_typedef_cycles)
{
	struct dict d;
	ctf_id_t in, t[4], s, to[4];
	static const char *const names[] = { "ta", "tb", "tc", "td" };
	int i;

	/* ta -> tb -> ta: libctf's ctf_type_resolve sees the link back to
	 * the top and fails; ctf_type_visit then stops the whole walk */
	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	for (i = 0; i < 2; i++)
		t[i] = d_typedef(&d, names[i], in);
	s = d_struct(&d, "cyc");
	d_member(&d, s, "a", in, 0);
	d_member(&d, s, "b", t[0], 32);
	d_member(&d, s, "c", in, 64);
	to[0] = t[1];
	to[1] = t[0];
	d_end_patched(&d, in, to, 2);
	/*
	 * a prints; ctf_type_rvisit fails resolving b before calling
	 * dt_print_member, so neither b nor c prints; dtrace_print's
	 * dt_print_trailing_braces(&pa, 0) closes depth 1: "}".
	 */
	expect_both(d.fp, s, "01000000 02000000 03000000", 0,
	    "struct cyc {\n"
	    "    int a = 0x1\n"
	    "}");
	d_free(&d);

	/* ta -> tb -> tc -> td -> tb: a cycle libctf's check misses (it
	 * compares with the start and the previous link only) and would
	 * follow forever; refused */
	d_begin(&d);
	in = d_int(&d, "int", CTF_INT_SIGNED, 32);
	for (i = 0; i < 4; i++)
		t[i] = d_typedef(&d, names[i], in);
	s = d_struct(&d, "cyc");
	d_member(&d, s, "a", in, 0);
	d_member(&d, s, "b", t[0], 32);
	to[0] = t[1];
	to[1] = t[2];
	to[2] = t[3];
	to[3] = t[1];
	d_end_patched(&d, in, to, 4);
	expect_fail(d.fp, s, "01000000 02000000", 1,
	    "struct cyc {\n"
	    "    int a = 0x1\n");
	d_free(&d);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("ctfprint_legacy");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ints);
	tcase_add_test(tc, test_chars);
	tcase_add_test(tc, test_char_arrays);
	tcase_add_test(tc, test_int_arrays);
	tcase_add_test(tc, test_nested_typedefs);
	tcase_add_test(tc, test_union);
	tcase_add_test(tc, test_anonymous);
	tcase_add_test(tc, test_enum);
	tcase_add_test(tc, test_pointers);
	tcase_add_test(tc, test_bool_float);
	tcase_add_test(tc, test_bitfields_bit1);
	tcase_add_test(tc, test_bitfields_bit0);
	tcase_add_test(tc, test_bitfield_too_wide);
	tcase_add_test(tc, test_big_endian);
	tcase_add_test(tc, test_struct_array);
	tcase_add_test(tc, test_empty_struct);
	tcase_add_test(tc, test_forward_and_long_names);
	tcase_add_test(tc, test_short_data);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_typedef_cycles);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return util_run_suite(suite());
}

#else /* !HAVE_LIBCTF */

int
main(void)
{
	return 77;      /* skipped: built without GNU libctf */
}

#endif
