/*
 * test_pccache.c - the by-pc cache of the text and model emitters:
 * what is kept comes back only for its pc and its epoch.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pccache.h"

static dtc_event
ev(const void *reader, uint32_t pass)
{
	dtc_event e;

	memset(&e, 0, sizeof(e));
	e.reader = reader;
	e.pass = pass;
	return e;
}

START_TEST(test_put_get)
{
	pccache c;
	const char *p;
	size_t n = 0;

	pccache_init(&c, 4, 64);
	ck_assert_uint_eq(pccache_max(&c), 64 - 13);  /* pc, epoch, len */
	ck_assert_ptr_null(pccache_get(&c, 0x1000, &n));
	pccache_put(&c, 0x1000, "genunix`fop_read+0x1f", 21);
	p = pccache_get(&c, 0x1000, &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(n, 21);
	ck_assert_int_eq(memcmp(p, "genunix`fop_read+0x1f", 21), 0);
	/* another pc is not this one, even where it shares the slot */
	ck_assert_ptr_null(pccache_get(&c, 0x1001, &n));
	pccache_free(&c);
}
END_TEST

/* two slots, three pcs: two share a slot, and the last one put wins */
START_TEST(test_collision_replaces)
{
	pccache c;
	size_t n;

	pccache_init(&c, 1, 64);
	pccache_put(&c, 1, "a", 1);
	pccache_put(&c, 2, "bb", 2);
	pccache_put(&c, 3, "ccc", 3);
	ck_assert_uint_le((pccache_get(&c, 1, &n) != NULL) +
	    (pccache_get(&c, 2, &n) != NULL) +
	    (pccache_get(&c, 3, &n) != NULL), 2);
	ck_assert_ptr_nonnull(pccache_get(&c, 3, &n));
	ck_assert_uint_eq(n, 3);
	pccache_free(&c);
}
END_TEST

START_TEST(test_too_long_not_kept)
{
	pccache c;
	char big[200];
	size_t n;

	memset(big, 'x', sizeof(big));
	pccache_init(&c, 4, 64);
	pccache_put(&c, 7, big, 52);
	ck_assert_ptr_null(pccache_get(&c, 7, &n));
	pccache_put(&c, 7, big, 51);
	ck_assert_ptr_nonnull(pccache_get(&c, 7, &n));
	ck_assert_uint_eq(n, 51);
	pccache_free(&c);
}
END_TEST

/* a new reader or pass forgets everything; the same one keeps it */
START_TEST(test_epochs)
{
	pccache c;
	int r1, r2;
	dtc_event e;
	size_t n;

	pccache_init(&c, 4, 64);
	e = ev(&r1, 1);
	pccache_reset(&c, &e);
	pccache_put(&c, 5, "x", 1);
	pccache_sync(&c, &e);
	ck_assert_ptr_nonnull(pccache_get(&c, 5, &n));
	e = ev(&r1, 2);
	pccache_sync(&c, &e);
	ck_assert_ptr_null(pccache_get(&c, 5, &n));
	pccache_put(&c, 5, "y", 1);
	e = ev(&r2, 2);
	pccache_sync(&c, &e);
	ck_assert_ptr_null(pccache_get(&c, 5, &n));
	pccache_put(&c, 5, "z", 1);
	pccache_reset(&c, &e);          /* the end-of-run printing */
	ck_assert_ptr_null(pccache_get(&c, 5, &n));
	/* the epoch counter wraps: entries of epoch 1 must not return */
	pccache_put(&c, 6, "w", 1);
	c.epoch = UINT32_MAX;
	pccache_reset(&c, &e);
	ck_assert_uint_eq(c.epoch, 1);
	ck_assert_ptr_null(pccache_get(&c, 6, &n));
	pccache_free(&c);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pccache");
	TCase *tc = tcase_create("cache");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_put_get);
	tcase_add_test(tc, test_collision_replaces);
	tcase_add_test(tc, test_too_long_not_kept);
	tcase_add_test(tc, test_epochs);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
