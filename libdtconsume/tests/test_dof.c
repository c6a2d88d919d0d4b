/*
 * test_dof.c - dof.c and dif.c through their API, on DOF built here byte
 * by byte (the layouts of the specification's chapter 6): what is no DOF
 * at all, the problem list's cap, the accessors' bounds, and dif.c's
 * type and subroutine names against dt_dis.c's and illumos' tables.
 * Whole objects (every opcode, providers, ECBs, damage) are cmd/tests/
 * dof.sh's.
 */
#include "config.h"

#include <check.h>

#include "util.h"

/* A DOF header of n section headers, each (type, offset, size). */
static size_t
mkdof(uint8_t *b, size_t cap, unsigned nsec, const uint32_t (*sec)[3],
    size_t filesz)
{
	size_t i, len = 64 + 32 * (size_t)nsec;

	ck_assert_uint_le(len, cap);
	memset(b, 0, len);
	memcpy(b, "\177DOF", 4);
	b[4] = 2;               /* LP64 */
	b[5] = 1;               /* LSB */
	b[6] = 2;               /* DOF version 2 */
	b[7] = 2;               /* DIF version 2 */
	b[8] = b[9] = 8;
#define P32(o, v) do { uint32_t v_ = (v); memcpy(b + (o), &v_, 4); } while (0)
#define P64(o, v) do { uint64_t v_ = (v); memcpy(b + (o), &v_, 8); } while (0)
	P32(20, 64);
	P32(24, 32);
	P32(28, nsec);
	P64(32, 64);
	P64(40, filesz ? filesz : len);
	P64(48, filesz ? filesz : len);
	for (i = 0; i < nsec; i++) {
		P32(64 + 32 * i, sec[i][0]);
		P32(64 + 32 * i + 4, 1);
		P64(64 + 32 * i + 16, sec[i][1]);
		P64(64 + 32 * i + 24, sec[i][2]);
	}
	return len;
}

START_TEST(not_dof)
{
	uint8_t b[64];
	dtc_error err = DTC_ERROR_INIT;

	ck_assert_ptr_null(dtc_dof_open("hello, world", 12, "x", &err));
	ck_assert_dtc_error(&err, DTC_E_BADHEADER, -1, 0);
	ck_assert_str_eq(err.text, "no DOF magic (\\177DOF)");
	ck_assert_ptr_null(dtc_dof_open("\177DOF\2\1", 6, "x", &err));
	ck_assert_str_eq(err.text, "DOF header cut short (6 of 64 bytes)");
	mkdof(b, sizeof(b), 0, NULL, 0);
	b[5] = 3;
	ck_assert_ptr_null(dtc_dof_open(b, 64, "x", &err));
	ck_assert_dtc_error(&err, DTC_E_BADHEADER, -1, 5);
	ck_assert_ptr_null(dtc_dof_open(NULL, 0, NULL, &err));
	ck_assert_str_eq(err.source, "<memory>");
}
END_TEST

START_TEST(empty)
{
	uint8_t b[64];
	dtc_error err = DTC_ERROR_INIT;
	dtc_dof *d;

	mkdof(b, sizeof(b), 0, NULL, 0);
	ck_assert_ptr_nonnull(d = dtc_dof_open(b, 64, "x", &err));
	ck_assert_int_eq(err.code, DTC_E_NONE);
	ck_assert_uint_eq(dtc_dof_nsections(d), 0);
	ck_assert_uint_eq(dtc_dof_nproblems(d), 0);
	ck_assert_uint_eq(dtc_dof_nprobes(d), 0);
	ck_assert_uint_eq(dtc_dof_necbs(d), 0);
	ck_assert_uint_eq(dtc_dof_ndifos(d), 0);
	ck_assert_ptr_null(dtc_dof_section_get(d, 0));
	ck_assert_ptr_null(dtc_dof_probe_get(d, 0));
	ck_assert_ptr_null(dtc_dof_ecb_get(d, 0));
	ck_assert_ptr_null(dtc_dof_difo_get(d, 0));
	ck_assert_ptr_null(dtc_dof_problem(d, 0));
	ck_assert_uint_eq(dtc_dof_header_get(d)->secnum, 0);
	dtc_dof_close(d);
	dtc_dof_close(NULL);
}
END_TEST

/* 400 sections whose data lies past the end: 255 problems said, then
 * one saying that more were found; every section still listed */
START_TEST(problem_cap)
{
	static uint8_t b[64 + 32 * 400];
	static uint32_t sec[400][3];
	dtc_error err = DTC_ERROR_INIT;
	const dtc_error *e;
	dtc_dof *d;
	size_t len;
	unsigned i;

	for (i = 0; i < 400; i++) {
		sec[i][0] = 8;
		sec[i][1] = 100000 + i;
		sec[i][2] = 1;
	}
	len = mkdof(b, sizeof(b), 400, sec, 0);
	ck_assert_ptr_nonnull(d = dtc_dof_open(b, len, "cap.dof", &err));
	ck_assert_uint_eq(dtc_dof_nsections(d), 400);
	ck_assert_int_eq(dtc_dof_section_get(d, 399)->ok, 0);
	ck_assert_uint_eq(dtc_dof_nproblems(d), 256);
	e = dtc_dof_problem(d, 0);
	ck_assert_dtc_error(e, DTC_E_OVERRUN, -1, 64);
	ck_assert_str_eq(e->text, "section 0 (strtab): data at offset 100000, "
	    "1 bytes, runs past the end of the DOF (12864 bytes)");
	ck_assert_str_eq(e->source, "cap.dof");
	e = dtc_dof_problem(d, 254);
	ck_assert_int_eq(e->offset, 64 + 32 * 254);
	e = dtc_dof_problem(d, 255);
	ck_assert_int_eq(e->code, DTC_E_LIMIT);
	ck_assert_str_eq(e->text, "more problems, not listed");
	dtc_dof_close(d);
}
END_TEST

START_TEST(typestr)
{
	dtc_buf b;

	dtc_buf_init(&b);
	ck_assert_int_eq(dtc_dif_typestr(1, 0, 1, 256, &b), 0);
	ck_assert_str_eq(b.s, "string (unknown) by ref (size 256)");
	dtc_buf_reset(&b);
	dtc_dif_typestr(0, 14, 0, 4, &b);
	ck_assert_str_eq(b.s, "D type (0xe) (size 4)");
	dtc_buf_reset(&b);
	dtc_dif_typestr(2, 1, 2, 8, &b);
	ck_assert_str_eq(b.s, "0x2 (integer) by user ref (size 8)");
	dtc_buf_reset(&b);
	dtc_dif_typestr(0, 13, 0, 0, &b);
	ck_assert_str_eq(b.s, "D type (restrict) (size 0)");
	dtc_buf_free(&b);
}
END_TEST

/* illumos sys/dtrace.h DIF_SUBR_* */
START_TEST(subrnames)
{
	ck_assert_str_eq(dtc_dif_subrname(0), "rand");
	ck_assert_str_eq(dtc_dif_subrname(9), "copyinstr");
	ck_assert_str_eq(dtc_dif_subrname(23), "strjoin");
	ck_assert_str_eq(dtc_dif_subrname(41), "inet_ntop");
	ck_assert_str_eq(dtc_dif_subrname(46), "getf");
	ck_assert_str_eq(dtc_dif_subrname(48), "strtoll");
	ck_assert_str_eq(dtc_dif_subrname(49), "unknown");
	ck_assert_str_eq(dtc_dif_subrname(0xffff), "unknown");
	ck_assert_str_eq(dtc_dof_secname(26), "prenoffs");
	ck_assert_ptr_null(dtc_dof_secname(27));
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("dof");
	TCase *t = tcase_create("dof");

	tcase_add_test(t, not_dof);
	tcase_add_test(t, empty);
	tcase_add_test(t, problem_cap);
	tcase_add_test(t, typestr);
	tcase_add_test(t, subrnames);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return util_run_suite(suite());
}
