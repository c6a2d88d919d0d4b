/*
 * test_ctfprint_v2.c - print() as dtrace-utils prints it (ctfprint_v2.c).
 *
 * Every expected text here was printed by the real dtrace-utils dtrace on
 * Linux 6.18 (x86_64, libctf 2.40): the four print cases of the
 * conformance corpus (tests/unittest/print/tst.print.local*.d and .r) and
 * the scripts quoted above each test.  Each test rebuilds, with libctf,
 * the dictionary dtrace had for the script (member offsets as dtrace laid
 * them out: the scripts printed offsetof()) and the bytes the script
 * stored, then compares the text byte for byte.  What the printer was
 * given that the scripts do not show (the address) is the address the run
 * printed.  dtrace(1)'s own final "\n" at exit is not part of print().
 *
 * Kernel types (bitfields, anonymous members) are rebuilt the way
 * dtrace-utils' dt_btf.c builds them from BTF: a bitfield is a slice of
 * the resolved integer type, its member offset the bit offset.
 *
 * The hostile cases at the end have no dtrace output to match: they check
 * that the printer stays inside the data, stops, and fails cleanly.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_private.h"
#include "util.h"

/* dt_printf.c DT_PRINT_STARTINDENT: 44 blanks before every value line. */
#define I "                                            "

/* dtrace's printsize when the option is unset: no cut. */
#define NOCUT UINT64_MAX

/* ------------------------------------------------------------------ */
/* Building dictionaries                                               */
/* ------------------------------------------------------------------ */

static ctf_dict_t *
dict_new(void)
{
	int err = 0;
	ctf_dict_t *fp = ctf_create(&err);

	ck_assert_msg(fp != NULL, "ctf_create: %s", ctf_errmsg(err));
	return fp;
}

static ctf_id_t
check_id(ctf_dict_t *fp, ctf_id_t id, const char *what)
{
	ck_assert_msg(id != CTF_ERR, "adding %s: %s", what,
	    ctf_errmsg(ctf_errno(fp)));
	return id;
}

static ctf_id_t
add_int(ctf_dict_t *fp, const char *name, unsigned format, unsigned bits)
{
	ctf_encoding_t e = { format, 0, bits };

	return check_id(fp, ctf_add_integer(fp, CTF_ADD_ROOT, name, &e),
	    name);
}

/* A bitfield as dt_btf.c adds it: a slice of the resolved integer. */
static ctf_id_t
add_bits(ctf_dict_t *fp, ctf_id_t base, unsigned bits)
{
	ctf_encoding_t e = { 0, 0, bits };

	return check_id(fp, ctf_add_slice(fp, CTF_ADD_NONROOT, base, &e),
	    "slice");
}

static ctf_id_t
add_typedef(ctf_dict_t *fp, const char *name, ctf_id_t ref)
{
	return check_id(fp, ctf_add_typedef(fp, CTF_ADD_ROOT, name, ref),
	    name);
}

static ctf_id_t
add_ptr(ctf_dict_t *fp, ctf_id_t ref)
{
	return check_id(fp, ctf_add_pointer(fp, CTF_ADD_ROOT, ref), "pointer");
}

static ctf_id_t
add_array(ctf_dict_t *fp, ctf_id_t contents, ctf_id_t index, uint32_t n)
{
	ctf_arinfo_t a;

	a.ctr_contents = contents;
	a.ctr_index = index;
	a.ctr_nelems = n;
	return check_id(fp, ctf_add_array(fp, CTF_ADD_ROOT, &a), "array");
}

/* A struct or union of the given size; NULL name: anonymous. */
static ctf_id_t
add_sou(ctf_dict_t *fp, int kind, const char *name, size_t size)
{
	uint32_t flag = name != NULL ? CTF_ADD_ROOT : CTF_ADD_NONROOT;

	if (kind == CTF_K_UNION)
		return check_id(fp, ctf_add_union_sized(fp, flag, name, size),
		    "union");
	return check_id(fp, ctf_add_struct_sized(fp, flag, name, size),
	    "struct");
}

static void
member(ctf_dict_t *fp, ctf_id_t sou, const char *name, ctf_id_t type,
    unsigned long bitoff)
{
	ck_assert_msg(ctf_add_member_offset(fp, sou, name, type, bitoff) == 0,
	    "member %s: %s", name, ctf_errmsg(ctf_errno(fp)));
}

static ctf_id_t
add_enum(ctf_dict_t *fp, const char *name, const char *const *names,
    const int *values, size_t n)
{
	ctf_id_t id = check_id(fp, ctf_add_enum(fp, CTF_ADD_ROOT, name), name);
	size_t i;

	for (i = 0; i < n; i++)
		ck_assert(ctf_add_enumerator(fp, id, names[i], values[i]) == 0);
	return id;
}

/* The intrinsic types of dtrace-utils' C container (dt_open.c, LP64). */
struct basics {
	ctf_id_t chr, schr, uchr, shrt, ushrt, int_, uint, lng, ulng, llng,
	    ullng, bool_, void_, flt;
};

static struct basics
basics(ctf_dict_t *fp)
{
	ctf_encoding_t fe = { CTF_FP_SINGLE, 0, 32 };
	struct basics b;

	b.chr = add_int(fp, "char", CTF_INT_SIGNED | CTF_INT_CHAR, 8);
	b.schr = add_int(fp, "signed char", CTF_INT_SIGNED | CTF_INT_CHAR, 8);
	b.uchr = add_int(fp, "unsigned char", CTF_INT_CHAR, 8);
	b.shrt = add_int(fp, "short", CTF_INT_SIGNED, 16);
	b.ushrt = add_int(fp, "unsigned short", 0, 16);
	b.int_ = add_int(fp, "int", CTF_INT_SIGNED, 32);
	b.uint = add_int(fp, "unsigned int", 0, 32);
	b.lng = add_int(fp, "long", CTF_INT_SIGNED, 64);
	b.ulng = add_int(fp, "unsigned long", 0, 64);
	b.llng = add_int(fp, "long long", CTF_INT_SIGNED, 64);
	b.ullng = add_int(fp, "long long unsigned int", 0, 64);
	b.bool_ = add_int(fp, "_Bool", CTF_INT_BOOL, 8);
	b.void_ = add_int(fp, "void", CTF_INT_SIGNED, 0);
	b.flt = check_id(fp, ctf_add_float(fp, CTF_ADD_ROOT, "float", &fe),
	    "float");
	return b;
}

/* ------------------------------------------------------------------ */
/* Data and rendering                                                  */
/* ------------------------------------------------------------------ */

/* Store an n-byte integer at off, little-endian (be: big-endian). */
static void
put(uint8_t *buf, size_t off, uint64_t v, unsigned n, int be)
{
	unsigned i;

	for (i = 0; i < n; i++)
		buf[off + (be ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

/* Append one print() to out; the print must succeed. */
static void
render(dtc_buf *out, ctf_dict_t *fp, ctf_id_t type, uint64_t addr,
    const uint8_t *data, size_t size, uint64_t printsize, int swap)
{
	const char *why = NULL;
	int rc;

	rc = dtcp_ctfprint_v2(fp, type, addr, data, size, printsize, swap,
	    out, SIZE_MAX, &why);
	ck_assert_msg(rc == 0, "dtcp_ctfprint_v2 failed: %s",
	    why != NULL ? why : "(no reason)");
}

/* The harness's sed: every 0x... becomes {ptr} (conformance INDEX.md). */
static char *
ptrsub(const char *s, size_t len)
{
	char *o = malloc(len * 5 + 1), *p = o;
	size_t i = 0;

	ck_assert(o != NULL);
	while (i < len) {
		if (s[i] == '0' && i + 2 < len && s[i + 1] == 'x' &&
		    ((s[i + 2] >= '0' && s[i + 2] <= '9') ||
		    (s[i + 2] >= 'a' && s[i + 2] <= 'f'))) {
			i += 2;
			while (i < len && ((s[i] >= '0' && s[i] <= '9') ||
			    (s[i] >= 'a' && s[i] <= 'f')))
				i++;
			memcpy(p, "{ptr}", 5);
			p += 5;
		} else {
			*p++ = s[i++];
		}
	}
	*p = '\0';
	return o;
}

/* Byte-exact comparison that names the first differing line. */
static void
expect_text(const char *got, size_t glen, const char *want)
{
	size_t wlen = strlen(want), i, line = 1, ls = 0;

	for (i = 0; i < glen && i < wlen && got[i] == want[i]; i++)
		if (got[i] == '\n') {
			line++;
			ls = i + 1;
		}
	ck_assert_msg(i == glen && i == wlen,
	    "text differs at line %zu (byte %zu of %zu, want %zu):\n"
	    "--- got from there:\n%.300s\n--- want from there:\n%.300s",
	    line, i, glen, wlen, got + ls, want + ls);
}

static void
expect_buf(const dtc_buf *b, const char *want)
{
	expect_text(b->s != NULL ? b->s : "", b->len, want);
}

/* ------------------------------------------------------------------ */
/* The conformance corpus                                              */
/* ------------------------------------------------------------------ */

/*
 * struct test_struct of tst.print.local*.d.  h's enum differs between
 * the scripts (first value 0 or 1); offsets as tst.print.local.trunc.d
 * prints them: a 0; b 4; u 16; s 24; g 40; h 44 (size 48).  __u8 and
 * __u64 are the kernel's typedefs, uint64_t and bool D's.
 */
static ctf_id_t
corpus_struct(ctf_dict_t *fp, int firstval)
{
	static const char *const names[] = { "FIRSTVAL", "SECONDVAL",
	    "THIRDVAL" };
	const int v0[] = { 0, 1, 3 }, v1[] = { 1, 2, 3 };
	struct basics b = basics(fp);
	ctf_id_t u8, u64, ui64, boolt, eh, un, st, ts;

	u8 = add_typedef(fp, "__u8", b.uchr);
	u64 = add_typedef(fp, "__u64", b.ullng);
	ui64 = add_typedef(fp, "uint64_t", b.ulng);
	boolt = add_typedef(fp, "bool", b.bool_);
	eh = add_enum(fp, "eh", names, firstval ? v1 : v0, 3);

	un = add_sou(fp, CTF_K_UNION, NULL, 8);
	member(fp, un, "c", u8, 0);
	member(fp, un, "d", u64, 0);
	st = add_sou(fp, CTF_K_STRUCT, NULL, 16);
	member(fp, st, "e", add_ptr(fp, b.void_), 0);
	member(fp, st, "f", ui64, 64);

	ts = add_sou(fp, CTF_K_STRUCT, "test_struct", 48);
	member(fp, ts, "a", b.int_, 0);
	member(fp, ts, "b", add_array(fp, b.chr, b.int_, 5), 32);
	member(fp, ts, "u", un, 128);
	member(fp, ts, "s", st, 192);
	member(fp, ts, "g", boolt, 320);
	member(fp, ts, "h", eh, 352);
	return ts;
}

static void
corpus_data(uint8_t *d, const char *b5, uint64_t ud, uint64_t se,
    uint64_t sf, unsigned h, int be)
{
	memset(d, 0, 48);
	put(d, 0, b5 == NULL ? 0 : 1, 4, be);	/* a */
	if (b5 != NULL)
		memcpy(d + 4, b5, 5);
	put(d, 16, ud, 8, be);
	put(d, 24, se, 8, be);
	put(d, 32, sf, 8, be);
	d[40] = 1;				/* g */
	put(d, 44, h, 4, be);
}

/* print/tst.print.local.r */
static const char corpus_local[] =
	"{ptr} = *\n"
	I "(struct test_struct) {\n"
	I " .a = (int)1,\n"
	I " .b = (char [5]) [\n"
	I "  (char)'t',\n"
	I "  (char)'e',\n"
	I "  (char)'s',\n"
	I "  (char)'t',\n"
	I " ],\n"
	I " .u = (union) {\n"
	I "  .c = (__u8)21,\n"
	I "  .d = (__u64)123456789,\n"
	I " },\n"
	I " .s = (struct) {\n"
	I "  .e = (void *){ptr},\n"
	I "  .f = (uint64_t)987654321,\n"
	I " },\n"
	I " .g = (bool)1,\n"
	I " .h = (enum eh)SECONDVAL,\n"
	I "}\n";

START_TEST(test_corpus_local)
{
	ctf_dict_t *fp = dict_new();
	ctf_id_t ts = corpus_struct(fp, 0);
	uint8_t d[48];
	dtc_buf out;
	char *got;

	corpus_data(d, "test", 123456789, 0xffff9b7aca7e0000ull, 987654321,
	    1, 0);
	dtc_buf_init(&out);
	render(&out, fp, ts, 0xffffe8ffffd0d258ull, d, sizeof(d), NOCUT, 0);
	got = ptrsub(out.s, out.len);
	expect_text(got, strlen(got), corpus_local);
	free(got);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * The same values stored by a host of the other byte order: swap = 1.
 * Only the union differs: there c, the first byte of d, is d's most
 * significant byte, zero, so it is not printed.
 */
START_TEST(test_corpus_local_swapped)
{
	ctf_dict_t *fp = dict_new();
	ctf_id_t ts = corpus_struct(fp, 0);
	uint8_t d[48];
	dtc_buf out;
	char *got, *want, *c;

	corpus_data(d, "test", 123456789, 0xffff9b7aca7e0000ull, 987654321,
	    1, 1);
	dtc_buf_init(&out);
	render(&out, fp, ts, 0xffffe8ffffd0d258ull, d, sizeof(d), NOCUT, 1);
	got = ptrsub(out.s, out.len);
	want = strdup(corpus_local);
	ck_assert(want != NULL);
	c = strstr(want, I "  .c = (__u8)21,\n");
	ck_assert(c != NULL);
	memmove(c, c + strlen(I "  .c = (__u8)21,\n"),
	    strlen(c + strlen(I "  .c = (__u8)21,\n")) + 1);
	expect_text(got, strlen(got), want);
	free(want);
	free(got);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/* print/tst.print.local.trunc.r: printsize 8, then setopt to 24. */
static const char corpus_trunc[] =
	"{ptr} = *\n"
	I "(struct test_struct) {\n"
	I " .a = (int)1,\n"
	I " .b = (char [5]) [\n"
	I "  (char)'t',\n"
	I "  (char)'e',\n"
	I "  (char)'s',\n"
	I "  (char)'t',\n"
	I " ],\n"
	I " ...\n"
	I "}\n"
	"{ptr} = *\n"
	I "(struct test_struct) {\n"
	I " .a = (int)1,\n"
	I " .b = (char [5]) [\n"
	I "  (char)'t',\n"
	I "  (char)'e',\n"
	I "  (char)'s',\n"
	I "  (char)'t',\n"
	I " ],\n"
	I " .u = (union) {\n"
	I "  .c = (__u8)78,\n"
	I "  .d = (__u64)12345678,\n"
	I " ...\n"
	I " },\n"
	I "}\n";

START_TEST(test_corpus_trunc)
{
	ctf_dict_t *fp = dict_new();
	ctf_id_t ts = corpus_struct(fp, 1);
	uint8_t d[48];
	dtc_buf out;
	char *got;

	corpus_data(d, "test", 12345678, 0xfeedfacefeedfaceull, 100, 1, 0);
	dtc_buf_init(&out);
	render(&out, fp, ts, 0xffffe8ffffd0d258ull, d, sizeof(d), 8, 0);
	render(&out, fp, ts, 0xffffe8ffffd0d258ull, d, sizeof(d), 24, 0);
	got = ptrsub(out.s, out.len);
	expect_text(got, strlen(got), corpus_trunc);
	free(got);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/* print/tst.print.local.zeroed.r */
START_TEST(test_corpus_zeroed)
{
	ctf_dict_t *fp = dict_new();
	ctf_id_t ts = corpus_struct(fp, 1);
	uint8_t d[48];
	dtc_buf out;
	char *got;

	corpus_data(d, NULL, 0, 0, 0, 1, 0);
	memcpy(d + 4, "\0est", 5);
	dtc_buf_init(&out);
	render(&out, fp, ts, 0xffffe8ffffd0d258ull, d, sizeof(d), NOCUT, 0);
	got = ptrsub(out.s, out.len);
	expect_text(got, strlen(got),
	    "{ptr} = *\n"
	    I "(struct test_struct) {\n"
	    I " .b = (char [5]) [\n"
	    I " ],\n"
	    I " .g = (bool)1,\n"
	    I " .h = (enum eh)FIRSTVAL,\n"
	    I "}\n");
	free(got);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * print/tst.print.local.trunc2.r: eight nested anonymous structs, each
 * a long long x and the next struct; the same record printed with
 * printsize 90 (dtrace rounds it to 96), 64, 56, 48, 40 and 32.
 */
static const char *const trunc2_names[] = { "a", "b", "c", "d", "e", "f",
    "g" };

/*
 * One print of that struct when its first `levels` x members lie before
 * the cut: the struct holding the first x past the cut gets "..." in place
 * of its member line, and the braces close from the deepest x printed.
 */
static void
trunc2_expect(dtc_buf *want, int levels, int dots)
{
	int i;

	dtc_buf_printf(want, "{ptr} = *\n" I "(struct test_struct) {\n");
	for (i = 0; i < levels; i++) {
		dtc_buf_printf(want, I "%*s.x = (long long)%llu,\n", i + 1, "",
		    1111111111111111ull * (unsigned)(i + 1));
		if (i < levels - 1)
			dtc_buf_printf(want, I "%*s.%s = (struct) {\n", i + 1,
			    "", trunc2_names[i]);
	}
	if (dots)
		dtc_buf_printf(want, I "%*s...\n", levels, "");
	for (i = levels - 1; i > 0; i--)
		dtc_buf_printf(want, I "%*s},\n", i, "");
	dtc_buf_printf(want, I "}\n");
}

START_TEST(test_corpus_trunc2)
{
	static const uint64_t sizes[] = { 96, 64, 56, 48, 40, 32 };
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t inner = CTF_ERR, s;
	uint8_t d[64];
	dtc_buf out, want;
	char *got;
	int i;

	/* Innermost (g: just x) outwards; the top one is test_struct. */
	for (i = 7; i >= 0; i--) {
		s = add_sou(fp, CTF_K_STRUCT, i == 0 ? "test_struct" : NULL,
		    (size_t)(64 - 8 * i));
		member(fp, s, "x", b.llng, 0);
		if (inner != CTF_ERR)
			member(fp, s, trunc2_names[i], inner, 64);
		inner = s;
	}
	for (i = 0; i < 8; i++)
		put(d, (size_t)i * 8, 1111111111111111ull * (unsigned)(i + 1),
		    8, 0);

	dtc_buf_init(&out);
	dtc_buf_init(&want);
	for (i = 0; i < 6; i++) {
		render(&out, fp, inner, 0xffffe8ffffd0d258ull, d, sizeof(d),
		    sizes[i], 0);
		/* 96 and 64 print all eight levels; 56 cuts g, 32 cuts d. */
		trunc2_expect(&want, sizes[i] >= 64 ? 8 : (int)sizes[i] / 8,
		    sizes[i] < 64);
	}
	got = ptrsub(out.s, out.len);
	expect_text(got, strlen(got), want.s);
	free(got);
	dtc_buf_free(&out);
	dtc_buf_free(&want);
	ctf_dict_close(fp);
}
END_TEST

/* ------------------------------------------------------------------ */
/* More D-declared types, each checked against the real dtrace         */
/* ------------------------------------------------------------------ */

/*
 * enum ev { ZERO = 0, ONE = 1, MINUS = -1 };
 * struct s1 { char c; bool g; short sh; int neg; unsigned char uc;
 *   signed char sc; unsigned short us; long l; unsigned long ul;
 *   long long ll; enum ev e1; enum ev e2; int *p; int *np; char name[4];
 *   int arr[4]; uint8_t u8a[4]; };
 * BEGIN { t = (struct s1 *)alloca(sizeof (struct s1)); t->c = 'A';
 *   t->g = 1; t->sh = -2; t->neg = -5; t->uc = 200; t->sc = -3;
 *   t->us = 65535; t->l = -1234567890123; t->ul = (unsigned long)-1;
 *   t->ll = -9; t->e1 = 7; t->e2 = MINUS; t->p = (int *)0x1234;
 *   t->np = NULL; t->name[0..3] = 'a','b','c','d';
 *   t->arr[0] = 1; t->arr[1] = 0; t->arr[2] = -3; t->arr[3] = 0;
 *   t->u8a[0] = 1; print(t); exit(0); }
 *
 * dtrace laid e1, e2 and p all at 40: libctf 2.40 places a member after
 * an enum by the enum's encoding width, which is 0.  So e1 and e2 print
 * the low half of p.  A NULL pointer is zero and not printed; zero array
 * elements are skipped; "abcd" has no NUL and prints whole; uint8_t [4]
 * is an array of a typedef, which ends the print after its header.
 */
START_TEST(test_scalars)
{
	static const char *const en[] = { "ZERO", "ONE", "MINUS" };
	static const int ev[] = { 0, 1, -1 };
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t e, s, ip;
	uint8_t d[80];
	dtc_buf out;

	e = add_enum(fp, "ev", en, ev, 3);
	ip = add_ptr(fp, b.int_);
	s = add_sou(fp, CTF_K_STRUCT, "s1", 80);
	member(fp, s, "c", b.chr, 0);
	member(fp, s, "g", add_typedef(fp, "bool", b.bool_), 8);
	member(fp, s, "sh", b.shrt, 16);
	member(fp, s, "neg", b.int_, 32);
	member(fp, s, "uc", b.uchr, 64);
	member(fp, s, "sc", b.schr, 72);
	member(fp, s, "us", b.ushrt, 80);
	member(fp, s, "l", b.lng, 128);
	member(fp, s, "ul", b.ulng, 192);
	member(fp, s, "ll", b.llng, 256);
	member(fp, s, "e1", e, 320);
	member(fp, s, "e2", e, 320);
	member(fp, s, "p", ip, 320);
	member(fp, s, "np", ip, 384);
	member(fp, s, "name", add_array(fp, b.chr, b.int_, 4), 448);
	member(fp, s, "arr", add_array(fp, b.int_, b.int_, 4), 480);
	member(fp, s, "u8a", add_array(fp, add_typedef(fp, "uint8_t", b.uchr),
	    b.int_, 4), 608);

	memset(d, 0, sizeof(d));
	d[0] = 'A';
	d[1] = 1;
	put(d, 2, (uint16_t)-2, 2, 0);
	put(d, 4, (uint32_t)-5, 4, 0);
	d[8] = 200;
	d[9] = (uint8_t)-3;
	put(d, 10, 65535, 2, 0);
	put(d, 16, (uint64_t)-1234567890123ll, 8, 0);
	put(d, 24, UINT64_MAX, 8, 0);
	put(d, 32, (uint64_t)-9ll, 8, 0);
	put(d, 40, 0x1234, 8, 0);	/* e1 = 7, e2 = MINUS, then p */
	memcpy(d + 56, "abcd", 4);
	put(d, 60, 1, 4, 0);
	put(d, 68, (uint32_t)-3, 4, 0);
	d[76] = 1;

	dtc_buf_init(&out);
	render(&out, fp, s, 0xffffe8ffffd0ee08ull, d, sizeof(d), NOCUT, 0);
	expect_buf(&out,
	    "0xffffe8ffffd0ee08 = *\n"
	    I "(struct s1) {\n"
	    I " .c = (char)'A',\n"
	    I " .g = (bool)1,\n"
	    I " .sh = (short)-2,\n"
	    I " .neg = (int)-5,\n"
	    I " .uc = (unsigned char)200,\n"
	    I " .sc = (signed char)-3,\n"
	    I " .us = (unsigned short)65535,\n"
	    I " .l = (long)-1234567890123,\n"
	    I " .ul = (unsigned long)18446744073709551615,\n"
	    I " .ll = (long long)-9,\n"
	    I " .e1 = (enum ev)4660,\n"
	    I " .e2 = (enum ev)4660,\n"
	    I " .p = (int *)0x1234,\n"
	    I " .name = (char [4]) [\n"
	    I "  (char)'a',\n"
	    I "  (char)'b',\n"
	    I "  (char)'c',\n"
	    I "  (char)'d',\n"
	    I " ],\n"
	    I " .arr = (int [4]) [\n"
	    I "  (int)1,\n"
	    I "  (int)-3,\n"
	    I " ],\n"
	    I " .u8a = (uint8_t [4]) [\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * enum ev { ZERO = 0, ONE = 1, TWO = 2 };  struct in { int x; int y; };
 * struct s2 { int a; enum ev ea[3]; struct in z;
 *   union { float f; int i; } u; struct in ia[2]; int after; };
 * t->a = 0x41; t->ea[0] = ONE; t->ea[1] = ZERO; t->ea[2] = 5;
 * t->u.i = 0x3f800000; t->after = 9; print(t);
 * (offsets: a 0 ea 4 z 16 u 24 ia 28 after 44 size 48)
 *
 * A zero enum element is skipped, an unnamed value prints as a number,
 * the zero struct z and zero array ia print nothing, the float prints
 * nothing but i still does.
 */
START_TEST(test_enum_array_union_float)
{
	static const char *const en[] = { "ZERO", "ONE", "TWO" };
	static const int ev[] = { 0, 1, 2 };
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t e, in, un, s;
	uint8_t d[48];
	dtc_buf out;

	e = add_enum(fp, "ev", en, ev, 3);
	in = add_sou(fp, CTF_K_STRUCT, "in", 8);
	member(fp, in, "x", b.int_, 0);
	member(fp, in, "y", b.int_, 32);
	un = add_sou(fp, CTF_K_UNION, NULL, 4);
	member(fp, un, "f", b.flt, 0);
	member(fp, un, "i", b.int_, 0);
	s = add_sou(fp, CTF_K_STRUCT, "s2", 48);
	member(fp, s, "a", b.int_, 0);
	member(fp, s, "ea", add_array(fp, e, b.int_, 3), 32);
	member(fp, s, "z", in, 128);
	member(fp, s, "u", un, 192);
	member(fp, s, "ia", add_array(fp, in, b.int_, 2), 224);
	member(fp, s, "after", b.int_, 352);

	memset(d, 0, sizeof(d));
	put(d, 0, 0x41, 4, 0);
	put(d, 4, 1, 4, 0);
	put(d, 12, 5, 4, 0);
	put(d, 24, 0x3f800000, 4, 0);
	put(d, 44, 9, 4, 0);

	dtc_buf_init(&out);
	render(&out, fp, s, 0xffffe8ffffd0ee08ull, d, sizeof(d), NOCUT, 0);
	expect_buf(&out,
	    "0xffffe8ffffd0ee08 = *\n"
	    I "(struct s2) {\n"
	    I " .a = (int)65,\n"
	    I " .ea = (enum ev [3]) [\n"
	    I "  (enum ev)ONE,\n"
	    I "  (enum ev)5,\n"
	    I " ],\n"
	    I " .u = (union) {\n"
	    I "  .i = (int)1065353216,\n"
	    I " },\n"
	    I " .after = (int)9,\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * struct in { int x; int y; };
 * struct s3 { int a; union { int iai[4]; struct in ia[2]; } w;
 *   int after; };
 * t->a = 3; t->w.iai[0] = 1; t->w.iai[3] = 2; t->after = 9; print(t);
 * (offsets: a 0 w 4 after 20 size 24)
 *
 * An array of structs prints its header and ends the print: after is
 * never printed, and the braces owed are closed at the end.
 */
START_TEST(test_struct_array_stops)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t in, un, s;
	uint8_t d[24];
	dtc_buf out;

	in = add_sou(fp, CTF_K_STRUCT, "in", 8);
	member(fp, in, "x", b.int_, 0);
	member(fp, in, "y", b.int_, 32);
	un = add_sou(fp, CTF_K_UNION, NULL, 16);
	member(fp, un, "iai", add_array(fp, b.int_, b.int_, 4), 0);
	member(fp, un, "ia", add_array(fp, in, b.int_, 2), 0);
	s = add_sou(fp, CTF_K_STRUCT, "s3", 24);
	member(fp, s, "a", b.int_, 0);
	member(fp, s, "w", un, 32);
	member(fp, s, "after", b.int_, 160);

	memset(d, 0, sizeof(d));
	put(d, 0, 3, 4, 0);
	put(d, 4, 1, 4, 0);
	put(d, 16, 2, 4, 0);
	put(d, 20, 9, 4, 0);

	dtc_buf_init(&out);
	render(&out, fp, s, 0xffffe8ffffd0ee08ull, d, sizeof(d), NOCUT, 0);
	expect_buf(&out,
	    "0xffffe8ffffd0ee08 = *\n"
	    I "(struct s3) {\n"
	    I " .a = (int)3,\n"
	    I " .w = (union) {\n"
	    I "  .iai = (int [4]) [\n"
	    I "   (int)1,\n"
	    I "   (int)2,\n"
	    I "  ],\n"
	    I "  .ia = (struct in [2]) [\n"
	    I " },\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * enum ev { ZERO = 0, ONE = 1 };  struct e4 { int a; int b; };
 * struct s4 { int x; char buf[12]; long y; };   (x 0 buf 4 y 16 size 24)
 * i = alloca(int) = -7; print(i);  z = alloca(int); print(z);
 * e = alloca(struct e4); print(e);  en = alloca(enum ev); print(en);
 * c = alloca(1) = 'x'; print(c);
 * s->x = 1; s->buf = "hijkl\nm"; s->y = 5; print(s);
 * setopt("printsize", "8"); print(s); setopt("printsize", "16"); print(s);
 *
 * The top level is printed even when zero, an empty struct still gets
 * "{" and "}", a newline char prints raw, a cut inside an array prints
 * "..." in it and leaves the array open.
 */
START_TEST(test_top_level_and_cuts)
{
	static const char *const en[] = { "ZERO", "ONE" };
	static const int ev[] = { 0, 1 };
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t e, e4, s4;
	uint8_t neg7[4], zero[8] = { 0 }, x = 'x', d[24];
	dtc_buf out;

	e = add_enum(fp, "ev", en, ev, 2);
	e4 = add_sou(fp, CTF_K_STRUCT, "e4", 8);
	member(fp, e4, "a", b.int_, 0);
	member(fp, e4, "b", b.int_, 32);
	s4 = add_sou(fp, CTF_K_STRUCT, "s4", 24);
	member(fp, s4, "x", b.int_, 0);
	member(fp, s4, "buf", add_array(fp, b.chr, b.int_, 12), 32);
	member(fp, s4, "y", b.lng, 128);

	put(neg7, 0, (uint32_t)-7, 4, 0);
	memset(d, 0, sizeof(d));
	put(d, 0, 1, 4, 0);
	memcpy(d + 4, "hijkl\nm", 7);
	put(d, 16, 5, 8, 0);

	dtc_buf_init(&out);
	render(&out, fp, b.int_, 0xffffe8ffffd0ee08ull, neg7, 4, NOCUT, 0);
	render(&out, fp, b.int_, 0xffffe8ffffd0ee10ull, zero, 4, NOCUT, 0);
	render(&out, fp, e4, 0xffffe8ffffd0ee18ull, zero, 8, NOCUT, 0);
	render(&out, fp, e, 0xffffe8ffffd0ee20ull, zero, 4, NOCUT, 0);
	render(&out, fp, b.chr, 0xffffe8ffffd0ee28ull, &x, 1, NOCUT, 0);
	render(&out, fp, s4, 0xffffe8ffffd0ee30ull, d, sizeof(d), NOCUT, 0);
	render(&out, fp, s4, 0xffffe8ffffd0ee30ull, d, sizeof(d), 8, 0);
	render(&out, fp, s4, 0xffffe8ffffd0ee30ull, d, sizeof(d), 16, 0);
	expect_buf(&out,
	    "0xffffe8ffffd0ee08 = *\n"
	    I "(int)-7,\n"
	    "0xffffe8ffffd0ee10 = *\n"
	    I "(int)0,\n"
	    "0xffffe8ffffd0ee18 = *\n"
	    I "(struct e4) {\n"
	    I "}\n"
	    "0xffffe8ffffd0ee20 = *\n"
	    I "(enum ev)ZERO,\n"
	    "0xffffe8ffffd0ee28 = *\n"
	    I "(char)'x',\n"
	    "0xffffe8ffffd0ee30 = *\n"
	    I "(struct s4) {\n"
	    I " .x = (int)1,\n"
	    I " .buf = (char [12]) [\n"
	    I "  (char)'h',\n"
	    I "  (char)'i',\n"
	    I "  (char)'j',\n"
	    I "  (char)'k',\n"
	    I "  (char)'l',\n"
	    I "  (char)'\n"
	    "',\n"
	    I "  (char)'m',\n"
	    I " ],\n"
	    I " .y = (long)5,\n"
	    I "}\n"
	    "0xffffe8ffffd0ee30 = *\n"
	    I "(struct s4) {\n"
	    I " .x = (int)1,\n"
	    I " .buf = (char [12]) [\n"
	    I "  (char)'h',\n"
	    I "  (char)'i',\n"
	    I "  (char)'j',\n"
	    I "  (char)'k',\n"
	    I "  ...\n"
	    I "}\n"
	    "0xffffe8ffffd0ee30 = *\n"
	    I "(struct s4) {\n"
	    I " .x = (int)1,\n"
	    I " .buf = (char [12]) [\n"
	    I "  (char)'h',\n"
	    I "  (char)'i',\n"
	    I "  (char)'j',\n"
	    I "  (char)'k',\n"
	    I "  (char)'l',\n"
	    I "  (char)'\n"
	    "',\n"
	    I "  (char)'m',\n"
	    I " ],\n"
	    I " ...\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * struct s5 { union { struct { char c; int i; } s; int raw[2]; } u;
 *   int after; };
 * struct d10 { int x; struct { struct { ... struct { int deep; int deep2;
 *   } l10; ... } l2; } l1; int tail; };   (ten nested levels)
 * t->u.raw[0] = 0x100; t->after = 4; print(t);
 * d->x = 1; d->l1.l2.l3.l4.l5.l6.l7.l8.l9.l10.deep = 2; d->tail = 3;
 * print(d);
 *
 * s is non-zero only in its padding: it opens "{" but prints no member,
 * and its brace is never closed.  Depth 10 prints "..." and ends it all.
 */
START_TEST(test_padding_and_depth)
{
	static const char *const lv[] = { "l1", "l2", "l3", "l4", "l5", "l6",
	    "l7", "l8", "l9", "l10" };
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t s, un, s5, inner, d10;
	uint8_t d[16];
	dtc_buf out;
	int i;

	s = add_sou(fp, CTF_K_STRUCT, NULL, 8);
	member(fp, s, "c", b.chr, 0);
	member(fp, s, "i", b.int_, 32);
	un = add_sou(fp, CTF_K_UNION, NULL, 8);
	member(fp, un, "s", s, 0);
	member(fp, un, "raw", add_array(fp, b.int_, b.int_, 2), 0);
	s5 = add_sou(fp, CTF_K_STRUCT, "s5", 12);
	member(fp, s5, "u", un, 0);
	member(fp, s5, "after", b.int_, 64);

	inner = add_sou(fp, CTF_K_STRUCT, NULL, 8);
	member(fp, inner, "deep", b.int_, 0);
	member(fp, inner, "deep2", b.int_, 32);
	for (i = 9; i >= 1; i--) {
		s = add_sou(fp, CTF_K_STRUCT, NULL, 8);
		member(fp, s, lv[i], inner, 0);
		inner = s;
	}
	d10 = add_sou(fp, CTF_K_STRUCT, "d10", 16);
	member(fp, d10, "x", b.int_, 0);
	member(fp, d10, "l1", inner, 32);
	member(fp, d10, "tail", b.int_, 96);

	dtc_buf_init(&out);
	memset(d, 0, sizeof(d));
	put(d, 0, 0x100, 4, 0);
	put(d, 8, 4, 4, 0);
	render(&out, fp, s5, 0xffffe8ffffd0ee08ull, d, 12, NOCUT, 0);
	memset(d, 0, sizeof(d));
	put(d, 0, 1, 4, 0);
	put(d, 4, 2, 4, 0);
	put(d, 12, 3, 4, 0);
	render(&out, fp, d10, 0xffffe8ffffd0ee18ull, d, 16, NOCUT, 0);
	expect_buf(&out,
	    "0xffffe8ffffd0ee08 = *\n"
	    I "(struct s5) {\n"
	    I " .u = (union) {\n"
	    I "  .s = (struct) {\n"
	    I "  .raw = (int [2]) [\n"
	    I "   (int)256,\n"
	    I "  ],\n"
	    I " },\n"
	    I " .after = (int)4,\n"
	    I "}\n"
	    "0xffffe8ffffd0ee18 = *\n"
	    I "(struct d10) {\n"
	    I " .x = (int)1,\n"
	    I " .l1 = (struct) {\n"
	    I "  .l2 = (struct) {\n"
	    I "   .l3 = (struct) {\n"
	    I "    .l4 = (struct) {\n"
	    I "     .l5 = (struct) {\n"
	    I "      .l6 = (struct) {\n"
	    I "       .l7 = (struct) {\n"
	    I "        .l8 = (struct) {\n"
	    I "         .l9 = (struct) {\n"
	    I "          ...\n"
	    I "        },\n"
	    I "       },\n"
	    I "      },\n"
	    I "     },\n"
	    I "    },\n"
	    I "   },\n"
	    I "  },\n"
	    I " },\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * struct o128 { int a; union { __u128 x; int xi[4]; } w; int z; };
 * u->a = 1; u->w.xi[1] = 7; u->z = 5; print(u);
 * (offsets: a 0 w 16 z 32 size 36; __u128 is the kernel's typedef)
 */
START_TEST(test_int128)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t u128, un, s;
	uint8_t d[36];
	dtc_buf out;

	u128 = add_typedef(fp, "__u128", add_int(fp, "__int128 unsigned", 0,
	    128));
	un = add_sou(fp, CTF_K_UNION, NULL, 16);
	member(fp, un, "x", u128, 0);
	member(fp, un, "xi", add_array(fp, b.int_, b.int_, 4), 0);
	s = add_sou(fp, CTF_K_STRUCT, "o128", 36);
	member(fp, s, "a", b.int_, 0);
	member(fp, s, "w", un, 128);
	member(fp, s, "z", b.int_, 256);

	memset(d, 0, sizeof(d));
	put(d, 0, 1, 4, 0);
	put(d, 20, 7, 4, 0);
	put(d, 32, 5, 4, 0);
	dtc_buf_init(&out);
	render(&out, fp, s, 0xffffe8ffffd0fc30ull, d, sizeof(d), NOCUT, 0);
	expect_buf(&out,
	    "0xffffe8ffffd0fc30 = *\n"
	    I "(struct o128) {\n"
	    I " .a = (int)1,\n"
	    I " .w = (union) {\n"
	    I "  .x = (__u128)?(128 bit value),\n"
	    I "  .xi = (int [4]) [\n"
	    I "   (int)7,\n"
	    I "  ],\n"
	    I " },\n"
	    I " .z = (int)5,\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Kernel types: bitfields and anonymous members                       */
/* ------------------------------------------------------------------ */

/*
 * union ov { struct bpf_insn insn; uint8_t b[8]; };
 * u->b[0..4] = 0xb7, 0x21, 0xfe, 0xff, 0x2a; print(&u->insn); print(u);
 *
 * struct bpf_insn { __u8 code; __u8 dst_reg:4; __u8 src_reg:4;
 * __s16 off; __s32 imm; }.  dtrace-utils' bitfield arithmetic gives
 * src_reg 15 where C reads 2: the printer must agree with dtrace.
 */
START_TEST(test_bitfields_bpf_insn)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t insn, ov;
	static const uint8_t d[8] = { 0xb7, 0x21, 0xfe, 0xff, 0x2a, 0, 0, 0 };
	dtc_buf out;

	insn = add_sou(fp, CTF_K_STRUCT, "bpf_insn", 8);
	member(fp, insn, "code", add_typedef(fp, "__u8", b.uchr), 0);
	member(fp, insn, "dst_reg", add_bits(fp, b.uchr, 4), 8);
	member(fp, insn, "src_reg", add_bits(fp, b.uchr, 4), 12);
	member(fp, insn, "off", add_typedef(fp, "__s16", b.shrt), 16);
	member(fp, insn, "imm", add_typedef(fp, "__s32", b.int_), 32);
	ov = add_sou(fp, CTF_K_UNION, "ov", 8);
	member(fp, ov, "insn", insn, 0);
	member(fp, ov, "b", add_array(fp, add_typedef(fp, "uint8_t", b.uchr),
	    b.int_, 8), 0);

	dtc_buf_init(&out);
	render(&out, fp, insn, 0xffffe8ffffc0ee08ull, d, 8, NOCUT, 0);
	render(&out, fp, ov, 0xffffe8ffffc0ee08ull, d, 8, NOCUT, 0);
	expect_buf(&out,
	    "0xffffe8ffffc0ee08 = *\n"
	    I "(struct bpf_insn) {\n"
	    I " .code = (__u8)183,\n"
	    I " .dst_reg = (unsigned char)1,\n"
	    I " .src_reg = (unsigned char)15,\n"
	    I " .off = (__s16)-2,\n"
	    I " .imm = (__s32)42,\n"
	    I "}\n"
	    "0xffffe8ffffc0ee08 = *\n"
	    I "(union ov) {\n"
	    I " .insn = (struct bpf_insn) {\n"
	    I "  .code = (__u8)183,\n"
	    I "  .dst_reg = (unsigned char)1,\n"
	    I "  .src_reg = (unsigned char)15,\n"
	    I "  .off = (__s16)-2,\n"
	    I "  .imm = (__s32)42,\n"
	    I " },\n"
	    I " .b = (uint8_t [8]) [\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * union ovd { struct dccp_hdr h; uint8_t b[16]; };
 * union ovn { struct nft_rule_dp r; uint8_t b[8]; };
 * union ovr { struct ring_buffer_event e; uint8_t b[4]; };
 * u->b[0..15] = 01 02 03 04 05 a7 09 0a 0b 0c 0d 0e f1 f2 f3 f4;
 * print(u); print(&u->h);
 * n->b[0..7] = 5b 3c 77 88 99 aa bb cc; print(n);
 * r->b[0..3] = e3 12 34 56; print(r);
 *
 * Bitfields past bit 64 (dccph_x, type, reserved), a 42-bit field in a
 * u64, fields of a u32; a zero-length array member inside the record
 * (nft_rule_dp.data: dtrace's dictionary made that struct 9 bytes) is
 * skipped as zero, one at the record's end (ring_buffer_event.array)
 * prints "...".
 */
START_TEST(test_bitfields_kernel)
{
	static const uint8_t dd[16] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0xa7,
	    0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0xf1, 0xf2, 0xf3, 0xf4 };
	static const uint8_t dn[9] = { 0x5b, 0x3c, 0x77, 0x88, 0x99, 0xaa,
	    0xbb, 0xcc, 0 };
	static const uint8_t dr[4] = { 0xe3, 0x12, 0x34, 0x56 };
	static const char hdr[] =
	    "  .dccph_sport = (__be16)513,\n"
	    "  .dccph_dport = (__be16)1027,\n"
	    "  .dccph_doff = (__u8)5,\n"
	    "  .dccph_cscov = (unsigned char)8,\n"
	    "  .dccph_ccval = (unsigned char)6,\n"
	    "  .dccph_checksum = (__sum16)2569,\n"
	    "  .dccph_x = (unsigned char)1,\n"
	    "  .dccph_type = (unsigned char)12,\n"
	    "  .dccph_reserved = (unsigned char)1,\n"
	    "  .dccph_seq2 = (__u8)12,\n"
	    "  .dccph_seq = (__be16)3597,\n";
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t u8, u16, be16, sum16, u64, u32, u8arr, dccp, nft, rbe, ovd,
	    ovn, ovr;
	dtc_buf out, want;
	const char *p, *nl;

	u8 = add_typedef(fp, "__u8", b.uchr);
	u16 = add_typedef(fp, "__u16", b.ushrt);
	be16 = add_typedef(fp, "__be16", u16);
	sum16 = add_typedef(fp, "__sum16", u16);
	u64 = b.ullng;
	u32 = add_typedef(fp, "u32", b.uint);
	u8arr = add_typedef(fp, "uint8_t", b.uchr);

	dccp = add_sou(fp, CTF_K_STRUCT, "dccp_hdr", 12);
	member(fp, dccp, "dccph_sport", be16, 0);
	member(fp, dccp, "dccph_dport", be16, 16);
	member(fp, dccp, "dccph_doff", u8, 32);
	member(fp, dccp, "dccph_cscov", add_bits(fp, b.uchr, 4), 40);
	member(fp, dccp, "dccph_ccval", add_bits(fp, b.uchr, 4), 44);
	member(fp, dccp, "dccph_checksum", sum16, 48);
	member(fp, dccp, "dccph_x", add_bits(fp, b.uchr, 1), 64);
	member(fp, dccp, "dccph_type", add_bits(fp, b.uchr, 4), 65);
	member(fp, dccp, "dccph_reserved", add_bits(fp, b.uchr, 3), 69);
	member(fp, dccp, "dccph_seq2", u8, 72);
	member(fp, dccp, "dccph_seq", be16, 80);
	ovd = add_sou(fp, CTF_K_UNION, "ovd", 16);
	member(fp, ovd, "h", dccp, 0);
	member(fp, ovd, "b", add_array(fp, u8arr, b.int_, 16), 0);

	nft = add_sou(fp, CTF_K_STRUCT, "nft_rule_dp", 9);
	member(fp, nft, "is_last", add_bits(fp, u64, 1), 0);
	member(fp, nft, "dlen", add_bits(fp, u64, 12), 1);
	member(fp, nft, "handle", add_bits(fp, u64, 42), 13);
	member(fp, nft, "data", add_array(fp, b.uchr, b.int_, 0), 64);
	ovn = add_sou(fp, CTF_K_UNION, "ovn", 9);
	member(fp, ovn, "r", nft, 0);
	member(fp, ovn, "b", add_array(fp, u8arr, b.int_, 8), 0);

	rbe = add_sou(fp, CTF_K_STRUCT, "ring_buffer_event", 4);
	member(fp, rbe, "type_len", add_bits(fp, b.uint, 5), 0);
	member(fp, rbe, "time_delta", add_bits(fp, b.uint, 27), 5);
	member(fp, rbe, "array", add_array(fp, u32, b.int_, 0), 32);
	ovr = add_sou(fp, CTF_K_UNION, "ovr", 4);
	member(fp, ovr, "e", rbe, 0);
	member(fp, ovr, "b", add_array(fp, u8arr, b.int_, 4), 0);
	ck_assert_int_eq(ctf_type_size(fp, ovn), 9);

	dtc_buf_init(&out);
	render(&out, fp, ovd, 0xffffe8ffffd0ee08ull, dd, 16, NOCUT, 0);
	render(&out, fp, dccp, 0xffffe8ffffd0ee08ull, dd, 12, NOCUT, 0);
	render(&out, fp, ovn, 0xffffe8ffffd0ee18ull, dn, 9, NOCUT, 0);
	render(&out, fp, ovr, 0xffffe8ffffd0ee28ull, dr, 4, NOCUT, 0);

	dtc_buf_init(&want);
	dtc_buf_printf(&want, "0xffffe8ffffd0ee08 = *\n" I "(union ovd) {\n"
	    I " .h = (struct dccp_hdr) {\n");
	for (p = hdr; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		dtc_buf_printf(&want, I "%.*s\n", (int)(nl - p), p);
	}
	dtc_buf_printf(&want, I " },\n" I " .b = (uint8_t [16]) [\n" I "}\n"
	    "0xffffe8ffffd0ee08 = *\n" I "(struct dccp_hdr) {\n");
	for (p = hdr; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		dtc_buf_printf(&want, I "%.*s\n", (int)(nl - p - 1), p + 1);
	}
	dtc_buf_printf(&want, "%s", I "}\n"
	    "0xffffe8ffffd0ee18 = *\n"
	    I "(union ovn) {\n"
	    I " .r = (struct nft_rule_dp) {\n"
	    I "  .is_last = (long long unsigned int)1,\n"
	    I "  .dlen = (long long unsigned int)3072,\n"
	    I "  .handle = (long long unsigned int)3795677347840,\n"
	    I " },\n"
	    I " .b = (uint8_t [8]) [\n"
	    I "}\n"
	    "0xffffe8ffffd0ee28 = *\n"
	    I "(union ovr) {\n"
	    I " .e = (struct ring_buffer_event) {\n"
	    I "  .type_len = (unsigned int)16,\n"
	    I "  .time_delta = (unsigned int)73400320,\n"
	    I "  ...\n"
	    I " },\n"
	    I "}\n");
	expect_buf(&out, want.s);
	dtc_buf_free(&want);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * union ovq { struct qspinlock q; uint8_t b[4]; };
 * u->b[0..3] = 01 00 34 12; print(u); print(&u->q);
 *
 * qspinlock's anonymous members print without ".name = ".  (Its first
 * member is an anonymous union in the kernel, but D copied the type with
 * libctf's ctf_add_type, which turns unions into structs: "(struct)".)
 * atomic_t is a typedef of an anonymous struct.
 */
START_TEST(test_anonymous_members)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t u8, u16, at, anon, s1, s2, q, ovq;
	static const uint8_t d[4] = { 0x01, 0x00, 0x34, 0x12 };
	dtc_buf out;

	u8 = add_typedef(fp, "u8", add_typedef(fp, "__u8", b.uchr));
	u16 = add_typedef(fp, "u16", add_typedef(fp, "__u16", b.ushrt));
	at = add_sou(fp, CTF_K_STRUCT, NULL, 4);
	member(fp, at, "counter", b.int_, 0);
	at = add_typedef(fp, "atomic_t", at);
	s1 = add_sou(fp, CTF_K_STRUCT, NULL, 2);
	member(fp, s1, "locked", u8, 0);
	member(fp, s1, "pending", u8, 8);
	s2 = add_sou(fp, CTF_K_STRUCT, NULL, 4);
	member(fp, s2, "locked_pending", u16, 0);
	member(fp, s2, "tail", u16, 16);
	anon = add_sou(fp, CTF_K_STRUCT, NULL, 4);
	member(fp, anon, "val", at, 0);
	member(fp, anon, "", s1, 0);
	member(fp, anon, "", s2, 0);
	q = add_sou(fp, CTF_K_STRUCT, "qspinlock", 4);
	member(fp, q, "", anon, 0);
	ovq = add_sou(fp, CTF_K_UNION, "ovq", 4);
	member(fp, ovq, "q", q, 0);
	member(fp, ovq, "b", add_array(fp, add_typedef(fp, "uint8_t",
	    b.uchr), b.int_, 4), 0);

	dtc_buf_init(&out);
	render(&out, fp, ovq, 0xffffe8ffffd0ee08ull, d, 4, NOCUT, 0);
	render(&out, fp, q, 0xffffe8ffffd0ee08ull, d, 4, NOCUT, 0);
	expect_buf(&out,
	    "0xffffe8ffffd0ee08 = *\n"
	    I "(union ovq) {\n"
	    I " .q = (struct qspinlock) {\n"
	    I "  (struct) {\n"
	    I "   .val = (atomic_t) {\n"
	    I "    .counter = (int)305397761,\n"
	    I "   },\n"
	    I "   (struct) {\n"
	    I "    .locked = (u8)1,\n"
	    I "   },\n"
	    I "   (struct) {\n"
	    I "    .locked_pending = (u16)1,\n"
	    I "    .tail = (u16)4660,\n"
	    I "   },\n"
	    I "  },\n"
	    I " },\n"
	    I " .b = (uint8_t [4]) [\n"
	    I "}\n"
	    "0xffffe8ffffd0ee08 = *\n"
	    I "(struct qspinlock) {\n"
	    I " (struct) {\n"
	    I "  .val = (atomic_t) {\n"
	    I "   .counter = (int)305397761,\n"
	    I "  },\n"
	    I "  (struct) {\n"
	    I "   .locked = (u8)1,\n"
	    I "  },\n"
	    I "  (struct) {\n"
	    I "   .locked_pending = (u16)1,\n"
	    I "   .tail = (u16)4660,\n"
	    I "  },\n"
	    I " },\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Hostile dictionaries and data                                       */
/* ------------------------------------------------------------------ */

static int
fails(ctf_dict_t *fp, ctf_id_t type, const uint8_t *d, size_t size,
    dtc_buf *out, const char **why)
{
	*why = NULL;
	return dtcp_ctfprint_v2(fp, type, 0x1000, d, size, NOCUT, 0, out,
	    SIZE_MAX, why);
}

START_TEST(test_hostile_missing_type)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	uint8_t d[4] = { 1, 0, 0, 0 };
	const char *why;
	dtc_buf out;

	dtc_buf_init(&out);
	ck_assert_int_eq(fails(fp, 12345, d, 4, &out, &why), -1);
	ck_assert(why != NULL && why[0] != '\0');
	ck_assert_int_eq(fails(fp, 0, d, 4, &out, &why), -1);
	ck_assert_int_eq(dtcp_ctfprint_v2(NULL, b.int_, 0, d, 4, NOCUT, 0,
	    &out, SIZE_MAX, &why), -1);
	ck_assert_int_eq(dtcp_ctfprint_v2(fp, b.int_, 0, NULL, 4, NOCUT, 0,
	    &out, SIZE_MAX, &why), -1);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * The type claims far more than the record holds: a member 8000 bytes
 * in, a bitfield whose 8-byte load runs past the 3-byte record, an int
 * that starts inside it and ends outside.  Nothing is read past the
 * record (valgrind/ASan watch the exact-size copy): bytes past it read
 * as zero, the far member is "...".
 */
START_TEST(test_hostile_offsets)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t s;
	uint8_t *d = malloc(3);
	dtc_buf out;

	ck_assert(d != NULL);
	memcpy(d, "\x1e\x00\x07", 3);
	s = add_sou(fp, CTF_K_STRUCT, "big", 8);
	member(fp, s, "c", b.uchr, 0);
	member(fp, s, "bf", add_bits(fp, b.uchr, 4), 4);
	member(fp, s, "i", b.int_, 16);
	member(fp, s, "far", b.int_, 8000 * 8);

	dtc_buf_init(&out);
	render(&out, fp, s, 0, d, 3, NOCUT, 0);
	/* bf: dtrace's shifts keep bits 1-4 of 0x1e. */
	expect_buf(&out,
	    "(nil) = *\n"
	    I "(struct big) {\n"
	    I " .c = (unsigned char)30,\n"
	    I " .bf = (unsigned char)15,\n"
	    I " .i = (int)7,\n"
	    I " ...\n"
	    I "}\n");

	/* No data at all: the top level is already past the cut. */
	dtc_buf_reset(&out);
	render(&out, fp, s, 0x10, NULL, 0, NOCUT, 0);
	expect_buf(&out, "0x10 = *\n" I "...\n");
	free(d);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/* A list node pointing at itself: pointers print, never followed. */
START_TEST(test_hostile_self_pointer)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t node;
	uint8_t d[16];
	dtc_buf out;

	node = add_sou(fp, CTF_K_STRUCT, "node", 16);
	member(fp, node, "v", b.int_, 0);
	member(fp, node, "next", add_ptr(fp, node), 64);
	memset(d, 0, sizeof(d));
	put(d, 0, 7, 4, 0);
	put(d, 8, 0xffff888100001000ull, 8, 0);
	dtc_buf_init(&out);
	render(&out, fp, node, 0xffff888100001000ull, d, 16, NOCUT, 0);
	expect_buf(&out,
	    "0xffff888100001000 = *\n"
	    I "(struct node) {\n"
	    I " .v = (int)7,\n"
	    I " .next = (struct node *)0xffff888100001000,\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * 2^32-1 elements over 16 bytes: the elements stop at the cut ("..."),
 * a char array at the record's end (what follows reads as NUL).  A zero
 * array too big for dtrace's zero check prints its header only.
 */
START_TEST(test_hostile_huge_array)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t ia, ca, s;
	uint8_t d[16];
	dtc_buf out;

	ia = add_array(fp, b.int_, b.int_, UINT32_MAX);
	ca = add_array(fp, b.chr, b.int_, UINT32_MAX);
	s = add_sou(fp, CTF_K_STRUCT, "h", 16);
	member(fp, s, "n", b.int_, 0);
	member(fp, s, "arr", ia, 32);
	memset(d, 0, sizeof(d));
	put(d, 0, 2, 4, 0);
	put(d, 4, 3, 4, 0);
	put(d, 12, 4, 4, 0);

	dtc_buf_init(&out);
	render(&out, fp, s, 0x20, d, sizeof(d), NOCUT, 0);
	render(&out, fp, ia, 0x20, d, 8, NOCUT, 0);
	memset(d, 'z', sizeof(d));
	render(&out, fp, ca, 0x20, d, 3, NOCUT, 0);
	render(&out, fp, ca, 0x20, d, 3, 2, 0);
	memset(d, 0, sizeof(d));
	render(&out, fp, s, 0x20, d, sizeof(d), NOCUT, 0);
	expect_buf(&out,
	    "0x20 = *\n"
	    I "(struct h) {\n"
	    I " .n = (int)2,\n"
	    I " .arr = (int [4294967295]) [\n"
	    I "  (int)3,\n"
	    I "  (int)4,\n"
	    I "  ...\n"
	    I "}\n"
	    "0x20 = *\n"
	    I "(int [4294967295]) [\n"
	    I " (int)2,\n"
	    I " (int)3,\n"
	    I " ...\n"
	    "0x20 = *\n"
	    I "(char [4294967295]) [\n"
	    I " (char)'z',\n"
	    I " (char)'z',\n"
	    I " (char)'z',\n"
	    I "],\n"
	    "0x20 = *\n"
	    I "(char [4294967295]) [\n"
	    I " (char)'z',\n"
	    I " (char)'z',\n"
	    I " ...\n"
	    "0x20 = *\n"
	    I "(struct h) {\n"
	    I " .arr = (int [4294967295]) [\n"
	    I "}\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * Reference loops libctf itself would not survive: an array of itself
 * (its name and size recurse without end in libctf) and a typedef chain
 * longer than any real one.  Both are refused before libctf sees them.
 */
START_TEST(test_hostile_loops)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_arinfo_t ai;
	ctf_id_t arr, s, t;
	uint8_t d[8] = { 1, 0, 0, 0, 1, 0, 0, 0 };
	const char *why;
	dtc_buf out;
	int i;

	/* The member first: libctf sizes it when it is added. */
	arr = add_array(fp, b.int_, b.int_, 2);
	s = add_sou(fp, CTF_K_STRUCT, "loop", 8);
	member(fp, s, "a", b.int_, 0);
	member(fp, s, "self", arr, 32);
	ai.ctr_contents = arr;
	ai.ctr_index = b.int_;
	ai.ctr_nelems = 2;
	ck_assert_int_eq(ctf_set_array(fp, arr, &ai), 0);

	dtc_buf_init(&out);
	ck_assert_int_eq(fails(fp, s, d, 8, &out, &why), -1);
	ck_assert(why != NULL);
	ck_assert_int_eq(fails(fp, arr, d, 8, &out, &why), -1);

	for (t = b.int_, i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", i);
		t = add_typedef(fp, name, t);
	}
	ck_assert_int_eq(fails(fp, t, d, 4, &out, &why), -1);
	ck_assert(why != NULL);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * A struct in itself by value recurses until dtrace's depth limit; one
 * with 400 x 400 members (all zero, so nothing prints) exhausts the visit
 * budget and fails instead of running on.
 */
START_TEST(test_hostile_budget)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t self, inner, outer;
	uint8_t d[8] = { 5, 0, 0, 0, 0, 0, 0, 0 };
	const char *why;
	dtc_buf out, want;
	int i;

	self = add_sou(fp, CTF_K_STRUCT, "self", 4);
	member(fp, self, "v", b.int_, 0);
	member(fp, self, "me", self, 0);
	dtc_buf_init(&out);
	render(&out, fp, self, 0x40, d, 4, NOCUT, 0);
	dtc_buf_init(&want);
	dtc_buf_printf(&want, "0x40 = *\n" I "(struct self) {\n");
	for (i = 1; i < 10; i++)
		dtc_buf_printf(&want, I "%*s.v = (int)5,\n" I
		    "%*s.me = (struct self) {\n", i, "", i, "");
	dtc_buf_printf(&want, I "%*s...\n", 10, "");
	for (i = 8; i > 0; i--)
		dtc_buf_printf(&want, I "%*s},\n", i, "");
	dtc_buf_printf(&want, I "}\n");
	expect_buf(&out, want.s);
	dtc_buf_free(&want);

	inner = add_sou(fp, CTF_K_STRUCT, "inner", 4);
	for (i = 0; i < 400; i++)
		member(fp, inner, "", b.int_, 0);
	outer = add_sou(fp, CTF_K_STRUCT, "outer", 4);
	for (i = 0; i < 400; i++)
		member(fp, outer, "", inner, 0);
	memset(d, 0, sizeof(d));
	dtc_buf_reset(&out);
	ck_assert_int_eq(fails(fp, outer, d, 4, &out, &why), -1);
	ck_assert(why != NULL);
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

/*
 * Failures of libctf in the middle of a print end it the way
 * dtrace-utils ends it (the visitor returns -1, the walk stops, the owed
 * braces close), with success: a member of an incomplete type has no
 * size, and a type name longer than dtrace's 128-byte buffer has none.
 */
START_TEST(test_libctf_errors_end_print)
{
	ctf_dict_t *fp = dict_new();
	struct basics b = basics(fp);
	ctf_id_t fwd, s, longname;
	char name[200];
	uint8_t d[16];
	dtc_buf out;

	fwd = check_id(fp, ctf_add_forward(fp, CTF_ADD_ROOT, "opaque",
	    CTF_K_STRUCT), "forward");
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	longname = add_typedef(fp, name, b.int_);
	s = add_sou(fp, CTF_K_STRUCT, "withfwd", 16);
	member(fp, s, "a", b.int_, 0);
	member(fp, s, "o", fwd, 32);
	member(fp, s, "z", b.int_, 64);
	memset(d, 0, sizeof(d));
	put(d, 0, 1, 4, 0);
	put(d, 8, 2, 4, 0);

	dtc_buf_init(&out);
	render(&out, fp, s, 0x40, d, sizeof(d), NOCUT, 0);
	render(&out, fp, longname, 0x40, d, 4, NOCUT, 0);
	expect_buf(&out,
	    "0x40 = *\n"
	    I "(struct withfwd) {\n"
	    I " .a = (int)1,\n"
	    I "}\n"
	    "0x40 = *\n");
	dtc_buf_free(&out);
	ctf_dict_close(fp);
}
END_TEST

static Suite *
ctfprint_v2_suite(void)
{
	Suite *s = suite_create("ctfprint_v2");
	TCase *tc;

	tc = tcase_create("corpus");
	tcase_add_test(tc, test_corpus_local);
	tcase_add_test(tc, test_corpus_local_swapped);
	tcase_add_test(tc, test_corpus_trunc);
	tcase_add_test(tc, test_corpus_zeroed);
	tcase_add_test(tc, test_corpus_trunc2);
	suite_add_tcase(s, tc);

	tc = tcase_create("dtrace");
	tcase_add_test(tc, test_scalars);
	tcase_add_test(tc, test_enum_array_union_float);
	tcase_add_test(tc, test_struct_array_stops);
	tcase_add_test(tc, test_top_level_and_cuts);
	tcase_add_test(tc, test_padding_and_depth);
	tcase_add_test(tc, test_int128);
	tcase_add_test(tc, test_bitfields_bpf_insn);
	tcase_add_test(tc, test_bitfields_kernel);
	tcase_add_test(tc, test_anonymous_members);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hostile_missing_type);
	tcase_add_test(tc, test_hostile_offsets);
	tcase_add_test(tc, test_hostile_self_pointer);
	tcase_add_test(tc, test_hostile_huge_array);
	tcase_add_test(tc, test_hostile_loops);
	tcase_add_test(tc, test_hostile_budget);
	tcase_add_test(tc, test_libctf_errors_end_print);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return util_run_suite(ctfprint_v2_suite());
}
