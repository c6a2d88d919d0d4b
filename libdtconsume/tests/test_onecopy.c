/*
 * test_onecopy.c - principal buffers of a regular file read when they are
 * walked, not when their pass is read (dtcp_container_defer, pass.c's
 * load): what that changes must not show.
 *
 * The capture: 3 CPUs, 2 passes, every buffer 1.25 MiB of 16-byte
 * records (a trace() of a 4-byte value that says its pass, CPU and
 * place), so that every buffer is left in the file.  Reading the file
 * must give what reading the same bytes from memory gives (memory input
 * is never deferred), answer for answer, intact and with damage next to
 * a buffer's bytes; and a file that shrinks after a pass was read, before
 * its buffers are walked, gives "capture truncated while reading at byte
 * N" naming the file, the buffer's item and N, after the records of the
 * buffer walked before, and no record of what it lost.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define NCPU 3
#define NPASS 2
#define NREC (80 * 1024)          /* 16 bytes each: 1.25 MiB a buffer */
#define NBUF (NCPU * NPASS)

static const dtc_recdesc rec_int = { DTC_ACT_DIFEXPR, 4, 0, 4, 12, 0, 1 };

/* The value of record k of cpu in pass p (1-based). */
static uint32_t
value(int p, int cpu, uint32_t k)
{
	return (uint32_t)p << 28 | (uint32_t)cpu << 24 | k;
}

/* The capture in memory (*len bytes); off[i], item[i]: the data offset
 * and item index of the i-th buffer, in file order (pass, then cpu). */
static char *
make_opt(size_t *len, size_t off[NBUF], long long item[NBUF], int temporal)
{
	static const dtc_probedesc pd = { 2, "syscall", "freebsd", "read",
	    "entry", NULL };
	const dtc_eprobedesc ep = { 2, 2, 0, 16, 1, &rec_int, NULL };
	dtc_writer_header h = { 0, 0, "freebsd", "14.1", "test", "test", NCPU,
	    55, NULL };
	dtc_writer_buf wb = { 1, 0, NULL, 0, 0, 0, 0, 0 };
	dtc_container *c;
	dtc_writer *w;
	dtc_item it;
	uint8_t *b;
	char *mem;
	const uint8_t *p;
	size_t plen;
	int pass, cpu, n = 0;
	uint32_t k, v[4];
	FILE *fp;

	ck_assert_ptr_nonnull(b = malloc((size_t)NREC * 16));
	ck_assert_ptr_nonnull(fp = open_memstream(&mem, len));
	ck_assert_ptr_nonnull(w = dtc_writer_new(fp, &h, NULL));
	ck_assert_int_eq(dtc_writer_add_probe(w, &pd, NULL), DTC_OK);
	ck_assert_int_eq(dtc_writer_add_eprobe(w, &ep, NULL), DTC_OK);
	if (temporal)
		ck_assert_int_eq(dtc_writer_add_option(w, "temporal", NULL, 1,
		    NULL), DTC_OK);
	for (pass = 1; pass <= NPASS; pass++) {
		for (cpu = 0; cpu < NCPU; cpu++) {
			for (k = 0; k < NREC; k++) {
				/* epid, timestamp hi, lo, the value (a
				 * little-endian capture: this host) */
				v[0] = 2;
				v[1] = 0;
				v[2] = k;
				v[3] = value(pass, cpu, k);
				memcpy(b + (size_t)k * 16, v, 16);
			}
			wb.pass = (uint32_t)pass;
			wb.cpu = cpu;
			wb.data = b;
			wb.size = (size_t)NREC * 16;
			ck_assert_int_eq(dtc_writer_add_buf(w, &wb, NULL),
			    DTC_OK);
		}
	}
	ck_assert_int_eq(dtc_writer_end(w, 0, NULL), DTC_OK);
	fclose(fp);
	free(b);
	/* where the buffers are: memory input points into the bytes */
	ck_assert_ptr_nonnull(c = dtc_container_open_memory(mem, *len, "x",
	    NULL));
	while (dtc_container_next(c, &it, NULL) == DTC_OK) {
		if (strcmp(it.kind, "buf") != 0)
			continue;
		ck_assert_int_lt(n, NBUF);
		ck_assert_int_eq(dtc_item_get_bytes(c, &it, it.nodes, "data", 1,
		    &p, &plen, NULL), DTC_OK);
		ck_assert_uint_eq(plen, (size_t)NREC * 16);
		off[n] = (size_t)(p - (const uint8_t *)mem);
		item[n++] = it.index;
	}
	ck_assert_int_eq(n, NBUF);
	dtc_container_close(c);
	return mem;
}

static char *
make(size_t *len, size_t off[NBUF], long long item[NBUF])
{
	return make_opt(len, off, item, 0);
}

static char *
to_file(const void *mem, size_t len)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;

	ck_assert_int_gt(asprintf(&path, "%s/dtc-onecopy.XXXXXX",
	    dir != NULL ? dir : "/tmp"), 0);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_int_eq(write(fd, mem, len), (ssize_t)len);
	close(fd);
	return path;
}

/* One answer of dtc_reader_next, as compared. */
typedef struct answer {
	int rc, type, cpu;
	uint64_t u;
	dtc_error err;
} answer;

static int
next(dtc_reader *r, answer *a)
{
	const dtc_event *ev;

	memset(a, 0, sizeof(*a));
	dtc_error_clear(&a->err);
	a->rc = dtc_reader_next(r, &ev, &a->err);
	if (a->rc == DTC_OK) {
		a->type = ev->type;
		a->cpu = ev->cpu;
		if (ev->type == DTC_EV_RECORD)
			a->u = ev->value->u;
	}
	return a->rc;
}

/* Every answer of reading path and of reading mem (named path) alike. */
static void
same_as_memory(const char *path, const void *mem, size_t len,
    size_t *nrecords)
{
	dtc_reader *f, *m;
	answer a, b;
	size_t n = 0, i = 0;

	ck_assert_ptr_nonnull(f = dtc_reader_open_file(path, 0, NULL));
	ck_assert_ptr_nonnull(m = dtc_reader_open_memory(mem, len, path, 0,
	    NULL));
	for (;; i++) {
		next(f, &a);
		next(m, &b);
		/* (Check reports every assertion to its parent: only the
		 * failing ones are made, in the loops) */
		if (!(a.rc == b.rc && a.type == b.type && a.cpu == b.cpu &&
		    a.u == b.u))
			ck_abort_msg("answer %zu: file %d (event "
		    "%d, cpu %d, value %#llx), memory %d (event %d, cpu %d, "
		    "value %#llx)", i, a.rc, a.type, a.cpu,
		    (unsigned long long)a.u, b.rc, b.type, b.cpu,
		    (unsigned long long)b.u);
		if (!(a.err.code == b.err.code && a.err.item == b.err.item &&
		    a.err.offset == b.err.offset &&
		    strcmp(a.err.text, b.err.text) == 0 &&
		    strcmp(a.err.source, b.err.source) == 0))
			ck_abort_msg("answer %zu: file "
		    "says \"%s\" (%d, item %lld, offset %lld), memory \"%s\" "
		    "(%d, item %lld, offset %lld)", i, a.err.text, a.err.code,
		    a.err.item, a.err.offset, b.err.text, b.err.code,
		    b.err.item, b.err.offset);
		if (a.rc == DTC_OK && a.type == DTC_EV_RECORD)
			n++;
		if (a.rc == DTC_EOF || a.rc == DTC_FATAL)
			break;
	}
	dtc_reader_close(f);
	dtc_reader_close(m);
	*nrecords = n;
}

/* Every record, as memory input gives it. */
static void
whole(int temporal)
{
	size_t len, off[NBUF], n;
	long long item[NBUF];
	char *mem = make_opt(&len, off, item, temporal),
	    *path = to_file(mem, len);

	same_as_memory(path, mem, len, &n);
	ck_assert_uint_eq(n, (size_t)NBUF * NREC);
	unlink(path);
	free(path);
	free(mem);
}

START_TEST(intact)
{
	whole(0);
}
END_TEST

/* With temporal every buffer of a pass is walked at once: each is read
 * into its own slot. */
START_TEST(temporal)
{
	whole(1);
}
END_TEST

/*
 * Damage right after the bytes left in the file (the key after "data"),
 * or a file that ends there: the item is read again with its bytes, and
 * every answer is memory's.
 */
START_TEST(damaged_after_the_bytes)
{
	static const uint8_t bytes[] = { 0xff, 0xa1, 0x1c, 0x00 };
	size_t len, off[NBUF], n, i;
	long long item[NBUF];
	char *mem = make(&len, off, item), *path;
	size_t end = off[1] + (size_t)NREC * 16;    /* cpu 1's, pass 1 */

	for (i = 0; i < sizeof(bytes); i++) {
		char save = mem[end];

		mem[end] = (char)bytes[i];
		path = to_file(mem, len);
		same_as_memory(path, mem, len, &n);
		ck_assert_uint_gt(n, (size_t)NREC);
		unlink(path);
		free(path);
		mem[end] = save;
	}
	/* cut after the bytes, and cut inside them */
	path = to_file(mem, end + 3);
	same_as_memory(path, mem, end + 3, &n);
	ck_assert_uint_eq(n, (size_t)NREC);
	unlink(path);
	free(path);
	path = to_file(mem, end - 100);
	same_as_memory(path, mem, end - 100, &n);
	ck_assert_uint_eq(n, (size_t)NREC);
	unlink(path);
	free(path);
	free(mem);
}
END_TEST

/*
 * Pass 1 is read (its first record came), then the file is cut inside
 * the bytes of cpu 1's buffer of pass 1, which were not read yet.
 */
START_TEST(shrinks_before_the_walk)
{
	size_t len, off[NBUF], cut, n = 0;
	long long item[NBUF];
	char *mem = make(&len, off, item), *path = to_file(mem, len);
	dtc_reader *r;
	answer a;
	int saw_cut = 0, nbad = 0;

	cut = off[1] + 1000;
	ck_assert_ptr_nonnull(r = dtc_reader_open_file(path, 0, NULL));
	while (next(r, &a) == DTC_OK && a.type != DTC_EV_RECORD)
		continue;
	ck_assert_int_eq(a.rc, DTC_OK);
	ck_assert_int_eq(truncate(path, (off_t)cut), 0);
	/* cpu 0's buffer of pass 1, whole and in order */
	do {
		if (a.rc != DTC_OK)
			ck_abort_msg("answer %d (\"%s\") after %zu records",
			    a.rc, a.err.text, n);
		if (a.type == DTC_EV_RECORD) {
			if (a.u != value(1, 0, (uint32_t)n))
				ck_abort_msg("record %zu is %#llx", n,
				    (unsigned long long)a.u);
			n++;
		}
	} while (n < NREC && next(r, &a) == DTC_OK);
	ck_assert_uint_eq(n, NREC);
	/* then what was lost, said; no record of it */
	while (next(r, &a) != DTC_EOF) {
		if (a.rc == DTC_OK) {
			if (a.type == DTC_EV_RECORD)
				ck_abort_msg("a record (%#llx) of what was lost",
				    (unsigned long long)a.u);
			continue;
		}
		ck_assert_str_eq(a.err.source, path);
		if (!saw_cut) {
			char want[200];

			ck_assert_int_eq(a.rc, DTC_WARN);
			ck_assert_dtc_error(&a.err, DTC_E_TRUNCATED, item[1],
			    (long long)cut);
			snprintf(want, sizeof(want), "capture truncated while "
			    "reading at byte %zu", cut);
			ck_assert_str_eq(a.err.text, want);
			saw_cut = 1;
		} else {
			ck_assert_int_eq(a.err.code, DTC_E_TRUNCATED);
			nbad++;
		}
		if (a.rc == DTC_FATAL)
			break;
	}
	ck_assert(saw_cut);
	ck_assert_int_gt(nbad, 0);
	dtc_reader_close(r);
	unlink(path);
	free(path);
	free(mem);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("onecopy");
	TCase *t = tcase_create("onecopy");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, intact);
	tcase_add_test(t, temporal);
	tcase_add_test(t, damaged_after_the_bytes);
	tcase_add_test(t, shrinks_before_the_walk);
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
