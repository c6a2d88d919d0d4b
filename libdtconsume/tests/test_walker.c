/*
 * test_walker.c - the principal-buffer walk, on buffers laid out by hand
 * from the ABI facts (section 3): 12-byte record headers with the
 * timestamp's high word first, EPIDNONE padding words, wrapped rings.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"

/* Two enabled probes: epid 1 = header + int32 (16 bytes, 4-aligned);
 * epid 2 = header + int64 at 16 (24 bytes, 8-aligned). */
static dtc_recdesc rec1[] = { { DTC_ACT_DIFEXPR, 4, 0, 4, 12, 0, 0 } };
static dtc_recdesc rec2[] = { { DTC_ACT_DIFEXPR, 8, 0, 8, 16, 0, 0 } };
static dtc_probedesc probe = { 7, "dtrace", "", "", "BEGIN", NULL };
static dtcp_eprobe ep1 = { { 1, 7, 0, 16, 1, rec1, &probe }, 0, NULL };
static dtcp_eprobe ep2 = { { 2, 7, 0, 24, 1, rec2, &probe }, 0, NULL };
/* the same layouts under EPIDs past the dense index, and one added late */
static dtcp_eprobe ep5000 = { { 5000, 7, 0, 16, 1, rec1, &probe }, 0, NULL };
static dtcp_eprobe ep70000 = { { 70000, 7, 0, 24, 1, rec2, &probe }, 0, NULL };
static dtcp_eprobe ep9 = { { 9, 7, 0, 16, 1, rec1, &probe }, 0, NULL };

static dtcp_meta meta;
static dtcp_walker w;
static uint8_t buf[256];

static void
setup(void)
{
	memset(&meta, 0, sizeof(meta));
	ck_assert_int_eq(dtcp_meta_put_eprobe(&meta, &ep1), 0);
	ck_assert_int_eq(dtcp_meta_put_eprobe(&meta, &ep2), 0);
	memset(&w, 0, sizeof(w));
	w.meta = &meta;
	w.source = "test";
	w.item = 5;
	w.cpu = 3;
	w.file_offset = 1000;
	memset(buf, 0, sizeof(buf));
}

static void
teardown(void)
{
	dtcp_walker_free(&w);
	dtcp_idmap_free(&meta.eprobes);
	free(meta.dense);
}

static void
put32(size_t off, uint32_t v)
{
	memcpy(buf + off, &v, 4);
}

/* A record header: epid, then timestamp high word, then low word. */
static void
hdr(size_t off, uint32_t epid, uint64_t ts)
{
	put32(off, epid);
	put32(off + 4, (uint32_t)(ts >> 32));
	put32(off + 8, (uint32_t)ts);
}

START_TEST(test_padding_and_timestamps)
{
	dtcp_walkrec r;
	dtc_error err;

	/* epid 1 at 0 (16 bytes); epid 2 needs 8-alignment: 16 is aligned;
	 * then epid 1 at 40; epid 2 at 56 is 8-aligned; padding word at 56
	 * would be needed only at 4 mod 8: put epid 1 at 80 (ends 96),
	 * EPIDNONE at 96? 96 is aligned. Make one: epid 1 at 100. */
	hdr(0, 1, 0x0000000100000002ULL);
	put32(12, 0xfffffffe);
	hdr(16, 2, 0x123456789aULL);
	hdr(40, 1, 5);
	/* 56..59: EPIDNONE, the kernel's padding before an 8-aligned record */
	hdr(60, 1, 6);  /* a 4-aligned record may follow anywhere */
	/* 76..79 EPIDNONE padding to 80 for epid 2 */
	hdr(80, 2, 7);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_walker_start(&w, buf, 104, 0, &err), DTC_OK);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.offset, 0);
	ck_assert_uint_eq(r.epid, 1);
	/* high word first: 1 << 32 | 2 */
	ck_assert_uint_eq(r.timestamp, 0x0000000100000002ULL);
	ck_assert_ptr_eq(r.data, buf);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.offset, 16);
	ck_assert_uint_eq(r.epid, 2);
	ck_assert_uint_eq(r.timestamp, 0x123456789aULL);
	ck_assert_uint_eq(dtcp_walker_peek_epid(&w), 1);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.offset, 40);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.offset, 60);     /* the EPIDNONE word skipped */
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.offset, 80);
	ck_assert_uint_eq(r.timestamp, 7);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_EOF);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_EOF);
	ck_assert_int_eq(err.code, DTC_E_NONE);
}
END_TEST

START_TEST(test_unknown_epid_skips_rest)
{
	dtcp_walkrec r;
	dtc_error err;

	hdr(0, 1, 1);
	hdr(16, 9, 2);          /* no eprobedesc for 9 */
	hdr(32, 1, 3);
	dtc_error_clear(&err);
	dtcp_walker_start(&w, buf, 48, 0, &err);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_BADEPID);
	ck_assert_int_eq(err.cpu, 3);
	ck_assert_int_eq(err.item, 5);
	ck_assert_int_eq(err.offset, 1016);  /* file offset of the word */
	ck_assert_ptr_nonnull(strstr(err.text, "unknown enabled probe id 9"));
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_EOF);
}
END_TEST

/*
 * EPIDs at and past the dense index (4096) are found like small ones,
 * and a description added between two buffers is seen by the next one
 * (the walker remembers the last EPID it looked up, also when unknown).
 */
START_TEST(test_large_and_late_epids)
{
	dtcp_walkrec r;
	dtc_error err;

	ck_assert_int_eq(dtcp_meta_put_eprobe(&meta, &ep5000), 0);
	ck_assert_int_eq(dtcp_meta_put_eprobe(&meta, &ep70000), 0);
	hdr(0, 5000, 10);
	put32(12, 0xaabbccdd);
	hdr(16, 70000, 11);     /* its int64 at 32: 8-aligned */
	put32(32, 5);
	hdr(40, 1, 12);
	dtc_error_clear(&err);
	dtcp_walker_start(&w, buf, 56, 0, &err);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.epid, 5000);
	ck_assert_ptr_eq(r.ep, &ep5000.d);
	ck_assert_uint_eq(r.timestamp, 10);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.epid, 70000);
	ck_assert_ptr_eq(r.ep, &ep70000.d);
	ck_assert_uint_eq(r.offset, 16);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_ptr_eq(r.ep, &ep1.d);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_EOF);
	ck_assert_int_eq(err.code, DTC_E_NONE);

	/* 9 is unknown in the first buffer, described before the second */
	memset(buf, 0, sizeof(buf));
	hdr(0, 9, 1);
	dtcp_walker_start(&w, buf, 16, 0, &err);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_BADEPID);
	ck_assert_int_eq(dtcp_meta_put_eprobe(&meta, &ep9), 0);
	dtc_error_clear(&err);
	dtcp_walker_start(&w, buf, 16, 0, &err);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_ptr_eq(r.ep, &ep9.d);
	ck_assert_int_eq(err.code, DTC_E_NONE);
}
END_TEST

START_TEST(test_overrun)
{
	dtcp_walkrec r;
	dtc_error err;

	hdr(0, 1, 1);
	hdr(16, 2, 2);          /* 24 bytes, but only 20 left */
	dtc_error_clear(&err);
	dtcp_walker_start(&w, buf, 36, 0, &err);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_OVERRUN);
	ck_assert_int_eq(err.offset, 1016);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_EOF);
}
END_TEST

START_TEST(test_stray_bytes)
{
	dtcp_walkrec r;
	dtc_error err;

	hdr(0, 1, 1);
	dtc_error_clear(&err);
	dtcp_walker_start(&w, buf, 18, 0, &err);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_OVERRUN);
}
END_TEST

/*
 * A 64-byte ring that wrapped: the kernel wrote records at 0, 16 and 40
 * (epid 1, 2, 1 = 16+24+16 = 56 bytes), then the next epid-2 record did
 * not fit before the end (56 + 24 > 64): it zero-filled 56..63, wrapped,
 * and wrote at 0 (24 bytes), overwriting the records at 0 and 16. The
 * oldest surviving record is the one at 40; oldest = 40. Un-ringing puts
 * 40 & 7 = 0 zero bytes first, then [40, 64), then [0, 40).
 */
START_TEST(test_ring_unwrap)
{
	dtcp_walkrec r;
	dtc_error err;
	uint32_t order[4], n = 0;

	hdr(0, 2, 40);          /* the newest record */
	/* 24..39: remains of the overwritten epid-2 record at 16: in a real
	 * ring the kernel's next write would land here; leave it zero */
	hdr(40, 1, 30);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_walker_start(&w, buf, 64, 40, &err), DTC_OK);
	while (dtcp_walker_next(&w, &r, &err) == DTC_OK)
		order[n++] = (uint32_t)r.timestamp;
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(order[0], 30);   /* oldest first */
	ck_assert_uint_eq(order[1], 40);
	ck_assert_int_eq(err.code, DTC_E_NONE);
}
END_TEST

/* oldest at a 4-mod-8 offset: one zero word is put in front so the
 * 8-byte data of later records stays 8-aligned. */
START_TEST(test_ring_misaligned_oldest)
{
	dtcp_walkrec r;
	dtc_error err;

	hdr(20, 1, 1);          /* oldest record at 20 (20 & 7 = 4) */
	/* 36..39 zero pad, then epid 2 at 40 would be 8-aligned in the
	 * un-rung buffer only with the 4-byte prefix: 4 + (40-20) = 24 */
	hdr(40, 2, 2);
	hdr(0, 1, 3);           /* wrapped part */
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_walker_start(&w, buf, 64, 20, &err), DTC_OK);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.offset, 4);
	ck_assert_uint_eq(r.raw_offset, 20);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.offset, 24);
	ck_assert_uint_eq(r.offset % 8, 0);
	ck_assert_uint_eq(r.raw_offset, 40);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_OK);
	ck_assert_uint_eq(r.raw_offset, 0);
	ck_assert_uint_eq(r.timestamp, 3);
	ck_assert_int_eq(dtcp_walker_next(&w, &r, &err), DTC_EOF);
}
END_TEST

START_TEST(test_bad_oldest)
{
	dtc_error err;

	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_walker_start(&w, buf, 64, 65, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_BADOLDEST);
	ck_assert_int_eq(err.offset, 1000);
}
END_TEST

/* Record decoding: sizes choose the kind (errata E5), 1/2 bytes unsigned. */
START_TEST(test_decode_values)
{
	dtc_recdesc rd = { DTC_ACT_DIFEXPR, 1, 0, 2, 0, 0, 0 };
	uint8_t b[16] = { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	dtc_value v;

	dtcp_decode_value(&rd, b, 1, 0, &v);
	ck_assert_int_eq(v.kind, DTC_V_INT);
	ck_assert_uint_eq(v.u, 254);
	ck_assert_int_eq(v.i, -2);
	rd.size = 2;
	dtcp_decode_value(&rd, b, 2, 0, &v);
	ck_assert_uint_eq(v.u, 65534);
	rd.size = 8;
	dtcp_decode_value(&rd, b, 8, 0, &v);
	ck_assert_int_eq(v.i, -2);
	rd.size = 3;
	dtcp_decode_value(&rd, b, 3, 0, &v);
	ck_assert_int_eq(v.kind, DTC_V_BYTES);
	/* stack of 2 frames: pcsize = size / depth */
	rd.action = DTC_ACT_STACK;
	rd.size = 16;
	rd.arg = 2;
	dtcp_decode_value(&rd, b, 16, 0, &v);
	ck_assert_int_eq(v.kind, DTC_V_STACK);
	ck_assert_uint_eq(v.nframes, 2);
	ck_assert_uint_eq(v.pcsize, 8);
	ck_assert_uint_eq(dtc_value_pc(&v, 0), 0xfffffffffffffffeULL);
	ck_assert_uint_eq(dtc_value_pc(&v, 1), 0);
	/* byte-swapped capture */
	rd.action = DTC_ACT_DIFEXPR;
	rd.size = 4;
	b[0] = 0; b[1] = 0; b[2] = 1; b[3] = 2;
	dtcp_decode_value(&rd, b, 4, 1, &v);
	ck_assert_uint_eq(v.u, 0x0102);
}
END_TEST

/* String or bytes, as the structured outputs decide (dtc_bytes_string):
 * cases derived from the rule in dtconsume.h. */
START_TEST(test_string_or_bytes)
{
	static const uint8_t rec[8] = { 'a', 'b', 'c', 0, 0, 0, 0, 0 };
	dtc_value v;
	size_t len = 99;

	ck_assert_int_eq(dtc_bytes_string("abc\0\0", 5, &len), 1);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(dtc_bytes_string("abcd", 4, &len), 1); /* fills it */
	ck_assert_uint_eq(len, 4);
	ck_assert_int_eq(dtc_bytes_string("abc\0x", 5, &len), 0);
	ck_assert_int_eq(dtc_bytes_string("\0\0\0", 3, &len), 0);
	ck_assert_int_eq(dtc_bytes_string("\001abc", 4, &len), 0);
	ck_assert_int_eq(dtc_bytes_string("a\tb\n", 4, &len), 1);
	memset(&v, 0, sizeof(v));
	v.kind = DTC_V_BYTES;
	v.data = rec;
	v.size = sizeof(rec);
	ck_assert_int_eq(dtc_value_string(&v, &len), 1);
	ck_assert_uint_eq(len, 3);
	v.kind = DTC_V_INT;
	ck_assert_int_eq(dtc_value_string(&v, &len), 0);
}
END_TEST

/* The padding after a string's NUL is checked by words of 32 and 8 bytes
 * and an overlapping last word: every size from 1 to 100, every text
 * length, a stray byte at every position of the padding (the rule: the
 * record is a string only when all of the padding is NUL). */
START_TEST(test_string_padding)
{
	uint8_t rec[100];
	size_t n, t, k, len;

	for (n = 1; n <= sizeof(rec); n++) {
		for (t = 1; t <= n; t++) {
			memset(rec, 0, sizeof(rec));
			memset(rec, 'a', t);
			len = 0;
			ck_assert_int_eq(dtc_bytes_string(rec, n, &len), 1);
			ck_assert_uint_eq(len, t);
			for (k = t + 1; k < n; k++) {
				rec[k] = 'x';
				ck_assert_msg(dtc_bytes_string(rec, n, &len) == 0,
				    "size %zu, text %zu, stray byte at %zu", n,
				    t, k);
				rec[k] = 0;
			}
		}
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("walker");
	TCase *tc = tcase_create("walk");
	SRunner *sr;
	int nf;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_padding_and_timestamps);
	tcase_add_test(tc, test_unknown_epid_skips_rest);
	tcase_add_test(tc, test_large_and_late_epids);
	tcase_add_test(tc, test_overrun);
	tcase_add_test(tc, test_stray_bytes);
	tcase_add_test(tc, test_ring_unwrap);
	tcase_add_test(tc, test_ring_misaligned_oldest);
	tcase_add_test(tc, test_bad_oldest);
	tcase_add_test(tc, test_decode_values);
	tcase_add_test(tc, test_string_or_bytes);
	tcase_add_test(tc, test_string_padding);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
