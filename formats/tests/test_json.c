/*
 * test_json.c - the two encoders of the data model (json.c, cbor.c)
 * against bytes worked out by hand from RFC 8259 and RFC 8949.
 *
 * The builder calls are made directly, as model.c makes them, and each
 * line is compared byte for byte.  What matters here is what the
 * conformance fixtures rarely reach: commas in nested and empty
 * containers, the 2^53 limit of JSON numbers, strings that need escapes
 * or are not UTF-8, members dropped with their value (NaN), and the
 * reuse of encoded bytes (so_far/raw).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

typedef struct sink {
	FILE *fp;
	char *buf;
	size_t len;
	model_out *o;
} sink;

static void
sink_open(sink *s, int cbor)
{
	s->buf = NULL;
	s->len = 0;
	s->fp = open_memstream(&s->buf, &s->len);
	ck_assert_ptr_nonnull(s->fp);
	s->o = cbor ? model_cbor_new(s->fp) : model_json_new(s->fp);
	ck_assert_ptr_nonnull(s->o);
}

/* close the stream and check it holds exactly want[0 .. n) */
static void
sink_check(sink *s, const void *want, size_t n)
{
	s->o->ops->free(s->o);
	fclose(s->fp);
	if (s->len != n || memcmp(s->buf, want, n) != 0) {
		size_t i;

		fprintf(stderr, "got %zu bytes:", s->len);
		for (i = 0; i < s->len; i++)
			fprintf(stderr, " %02x", (unsigned char)s->buf[i]);
		fprintf(stderr, "\n  [%.*s]\n", (int)s->len, s->buf);
	}
	ck_assert_uint_eq(s->len, n);
	ck_assert(memcmp(s->buf, want, n) == 0);
	free(s->buf);
}

#define OP(s, op, ...) ((s)->o->ops->op((s)->o, ##__VA_ARGS__))
#define K(s, k) OP(s, key, k, strlen(k))
#define LINE_END(s) ck_assert_int_eq(OP(s, line_end), 0)
#define WANT(s, lit) sink_check((s), (lit), sizeof(lit) - 1)

START_TEST(json_containers)
{
	sink s;

	sink_open(&s, 0);
	OP(&s, map_begin);
	K(&s, "a");
	OP(&s, i64, 1);
	K(&s, "b");
	OP(&s, arr_begin);
	OP(&s, arr_end);
	K(&s, "c");
	OP(&s, map_begin);
	OP(&s, map_end);
	K(&s, "d");
	OP(&s, arr_begin);
	OP(&s, u64, 1);
	OP(&s, u64, 2);
	OP(&s, arr_begin);
	OP(&s, map_begin);
	K(&s, "e");
	OP(&s, null);
	OP(&s, map_end);
	OP(&s, arr_end);
	OP(&s, arr_end);
	K(&s, "t");
	OP(&s, boolean, 1);
	K(&s, "f");
	OP(&s, boolean, 0);
	OP(&s, map_end);
	LINE_END(&s);
	/* a line left open is closed at its end */
	OP(&s, map_begin);
	K(&s, "x");
	OP(&s, arr_begin);
	OP(&s, i64, 0);
	LINE_END(&s);
	WANT(&s, "{\"a\":1,\"b\":[],\"c\":{},\"d\":[1,2,[{\"e\":null}]],"
	    "\"t\":true,\"f\":false}\n{\"x\":[0]}\n");
}
END_TEST

START_TEST(json_integers)
{
	sink s;

	sink_open(&s, 0);
	OP(&s, map_begin);
	K(&s, "a");
	OP(&s, i64, 9007199254740991LL);        /* 2^53 - 1: a number */
	K(&s, "b");
	OP(&s, i64, 9007199254740992LL);        /* 2^53: a string */
	K(&s, "c");
	OP(&s, i64, -9007199254740991LL);
	K(&s, "d");
	OP(&s, i64, -9007199254740992LL);
	K(&s, "e");
	OP(&s, i64, INT64_MIN);
	K(&s, "f");
	OP(&s, u64, UINT64_MAX);
	K(&s, "g");
	OP(&s, u64, 0);
	K(&s, "h");
	OP(&s, i64, -7);
	K(&s, "i");
	OP(&s, u64, 100);
	K(&s, "j");
	OP(&s, u64, 1000000007);
	K(&s, "k");
	OP(&s, addr, 0);
	K(&s, "l");
	OP(&s, addr, 0xffffffff8100dead);
	K(&s, "m");
	OP(&s, u128, 1, 0);                     /* 2^64 */
	K(&s, "n");
	OP(&s, u128, 0, 42);
	K(&s, "o");
	OP(&s, bytes, "\x00\xab\xff", 3);
	K(&s, "p");
	OP(&s, bytes, "", 0);
	OP(&s, map_end);
	LINE_END(&s);
	WANT(&s, "{\"a\":9007199254740991,\"b\":\"9007199254740992\","
	    "\"c\":-9007199254740991,\"d\":\"-9007199254740992\","
	    "\"e\":\"-9223372036854775808\",\"f\":\"18446744073709551615\","
	    "\"g\":0,\"h\":-7,\"i\":100,\"j\":1000000007,\"k\":\"0x0\","
	    "\"l\":\"0xffffffff8100dead\",\"m\":\"18446744073709551616\","
	    "\"n\":42,\"o\":\"00abff\",\"p\":\"\"}\n");
}
END_TEST

START_TEST(json_strings)
{
	sink s;

	sink_open(&s, 0);
	OP(&s, arr_begin);
	OP(&s, str, "plain text: ok", 14);
	OP(&s, str, "a\"b\\c\nd\te\x01", 10);   /* escapes */
	OP(&s, str, "caf\xc3\xa9", 5);           /* UTF-8 stays as it is */
	OP(&s, str, "caf\xe9", 4);               /* Latin-1 made UTF-8 */
	OP(&s, str, "a\0b", 3);                  /* NUL inside */
	OP(&s, str, "\x7f/", 2);                 /* DEL and / unescaped */
	OP(&s, str, "", 0);
	/* escapes written piecewise: a second time from what was kept, next
	 * to UTF-8, and in a string that turns out not to be UTF-8 after
	 * them (all of it Latin-1 then, the valid part too) */
	OP(&s, str, "x\n\n", 3);
	OP(&s, str, "\xc3\xa9\t\xe2\x82\xac\"", 7);
	OP(&s, str, "\xc3\xa9\n\xe9z", 5);
	OP(&s, str, "\xe2\x82", 2);                 /* cut in the middle */
	OP(&s, arr_end);
	LINE_END(&s);
	WANT(&s, "[\"plain text: ok\",\"a\\\"b\\\\c\\nd\\te\\u0001\","
	    "\"caf\xc3\xa9\",\"caf\xc3\xa9\",\"a\\u0000b\",\"\x7f/\",\"\","
	    "\"x\\n\\n\",\"\xc3\xa9\\t\xe2\x82\xac\\\"\","
	    "\"\xc3\x83\xc2\xa9\\n\xc3\xa9z\",\"\xc3\xa2\xc2\x82\"]\n");
}
END_TEST

START_TEST(json_reals)
{
	sink s;

	sink_open(&s, 0);
	OP(&s, map_begin);
	K(&s, "a");
	OP(&s, dbl, 1.5);
	K(&s, "nan");
	OP(&s, dbl, NAN);                         /* no member at all */
	K(&s, "b");
	OP(&s, dbl, 2.0);
	OP(&s, map_end);
	LINE_END(&s);
	WANT(&s, "{\"a\":1.5,\"b\":2.0}\n");
}
END_TEST

/* bytes of a run of members, reused on the next line */
START_TEST(json_reuse)
{
	sink s;
	size_t mark, n;
	const char *b;
	char *saved;

	sink_open(&s, 0);
	OP(&s, map_begin);
	K(&s, "seq");
	OP(&s, u64, 1);
	ck_assert_ptr_nonnull(OP(&s, so_far, &mark));
	K(&s, "probe");
	OP(&s, str, "dtrace:::BEGIN", 14);
	K(&s, "id");
	OP(&s, u64, 1);
	b = OP(&s, so_far, &n);
	ck_assert_ptr_nonnull(b);
	saved = strndup(b + mark, n - mark);
	ck_assert_str_eq(saved, ",\"probe\":\"dtrace:::BEGIN\",\"id\":1");
	K(&s, "v");
	OP(&s, i64, 5);
	OP(&s, map_end);
	LINE_END(&s);
	OP(&s, map_begin);
	K(&s, "seq");
	OP(&s, u64, 2);
	OP(&s, raw, saved, strlen(saved));
	K(&s, "v");
	OP(&s, i64, 6);
	OP(&s, map_end);
	LINE_END(&s);
	free(saved);
	WANT(&s, "{\"seq\":1,\"probe\":\"dtrace:::BEGIN\",\"id\":1,\"v\":5}\n"
	    "{\"seq\":2,\"probe\":\"dtrace:::BEGIN\",\"id\":1,\"v\":6}\n");
}
END_TEST

/* RFC 8949: indefinite map bf .. ff, text 6x, uint 0x/18, negint 2x,
 * tag 2 bignum c2, bytes 4x, simple values f4 f5 f6 */
/* model_as_string: dtrace's string test, over records of padding */
START_TEST(as_string)
{
	uint8_t rec[77];
	size_t i;
	int is;

	memset(rec, 0, sizeof(rec));
	memcpy(rec, "sshd\t", 5);
	ck_assert_uint_eq(model_as_string(rec, sizeof(rec), &is), 5);
	ck_assert_int_eq(is, 1);
	/* one byte after the NUL, wherever it is, makes it data */
	for (i = 6; i < sizeof(rec); i++) {
		rec[i] = 1;
		model_as_string(rec, sizeof(rec), &is);
		ck_assert_int_eq(is, 0);
		rec[i] = 0;
	}
	rec[2] = 0x7f;
	model_as_string(rec, sizeof(rec), &is);
	ck_assert_int_eq(is, 0);
	rec[2] = 0x80;
	model_as_string(rec, sizeof(rec), &is);
	ck_assert_int_eq(is, 0);
	rec[2] = 0x1f;
	model_as_string(rec, sizeof(rec), &is);
	ck_assert_int_eq(is, 0);
	rec[0] = 0;
	model_as_string(rec, sizeof(rec), &is);
	ck_assert_int_eq(is, 0);
	/* text filling its record, and the empty record */
	ck_assert_uint_eq(model_as_string((const uint8_t *)"abc", 3, &is), 3);
	ck_assert_int_eq(is, 1);
	ck_assert_uint_eq(model_as_string(rec, 0, &is), 0);
	ck_assert_int_eq(is, 1);
}
END_TEST

/*
 * A message cut at the cap may end inside a UTF-8 character; the encoders
 * take a text that is not UTF-8 for Latin-1 as a whole, so the structured
 * outputs drop the incomplete character (and only an incomplete one).
 */
START_TEST(utf8_cut)
{
	/* "a\u00e9\u20ac\U0001f600": 1, 2, 3 and 4 bytes */
	static const char s[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	static const size_t whole[] = { 0, 1, 3, 6, 10 };
	size_t n, i, want;
	sink k;

	for (n = 0; n <= 10; n++) {
		for (i = 0, want = 0; i < 5; i++)
			if (whole[i] <= n)
				want = whole[i];
		ck_assert_msg(model_utf8_cut(s, n) == want, "%zu: %zu, want %zu",
		    n, model_utf8_cut(s, n), want);
	}
	/* bytes that are not UTF-8 at all are left as they are */
	ck_assert_uint_eq(model_utf8_cut("ab\xff", 3), 3);
	ck_assert_uint_eq(model_utf8_cut("\x80\x80\x80\x80", 4), 4);
	ck_assert_uint_eq(model_utf8_cut("x\x80\x80\x80", 4), 4);
	/* so a cut message stays UTF-8 in JSON, not Latin-1 */
	sink_open(&k, 0);
	OP(&k, str, s, model_utf8_cut(s, 8));
	LINE_END(&k);
	WANT(&k, "\"a\xc3\xa9\xe2\x82\xac\"\n");
}
END_TEST

START_TEST(cbor_items)
{
	static const unsigned char want[] = {
		0xbf,
		0x61, 'a', 0x20,                    /* -1 */
		0x61, 'b', 0x18, 0x18,              /* 24 */
		0x61, 'c', 0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff,                               /* INT64_MIN */
		0x61, 'd', 0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff,                               /* UINT64_MAX */
		0x61, 'e', 0xc2, 0x49, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, /* 2^64 */
		0x61, 'f', 0x43, 0x00, 0xab, 0xff,
		0x61, 'g', 0x9f, 0xf6, 0xf5, 0xf4, 0xff,
		0x61, 'h', 0x63, 'c', 'a', 'f',
		0x61, 'i', 0x1a, 0xde, 0xad, 0xbe, 0xef, /* an address */
		0xff,
	};
	sink s;

	sink_open(&s, 1);
	OP(&s, map_begin);
	K(&s, "a");
	OP(&s, i64, -1);
	K(&s, "b");
	OP(&s, u64, 24);
	K(&s, "c");
	OP(&s, i64, INT64_MIN);
	K(&s, "d");
	OP(&s, u64, UINT64_MAX);
	K(&s, "e");
	OP(&s, u128, 1, 0);
	K(&s, "f");
	OP(&s, bytes, "\x00\xab\xff", 3);
	K(&s, "g");
	OP(&s, arr_begin);
	OP(&s, null);
	OP(&s, boolean, 1);
	OP(&s, boolean, 0);
	OP(&s, arr_end);
	K(&s, "h");
	OP(&s, str, "caf", 3);
	K(&s, "i");
	OP(&s, addr, 0xdeadbeef);
	OP(&s, map_end);
	LINE_END(&s);
	sink_check(&s, want, sizeof(want));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("json");
	TCase *t = tcase_create("encoders");

	tcase_add_test(t, json_containers);
	tcase_add_test(t, json_integers);
	tcase_add_test(t, json_strings);
	tcase_add_test(t, json_reals);
	tcase_add_test(t, json_reuse);
	tcase_add_test(t, cbor_items);
	tcase_add_test(t, as_string);
	tcase_add_test(t, utf8_cut);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
