/*
 * test_batch.c - the batch (columnar) reader, one test per call, on
 * captures written here record by record.  Every expected value is
 * worked out by hand from the layouts below (record header: EPID,
 * timestamp high word, low word; data at the recdesc offsets); the order
 * of rows follows libdtrace's rules (dt_consume_begin: the BEGIN CPU
 * first, the END CPU last; temporal: by timestamp), which the last test
 * also checks against dtc_reader_next on the same capture.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "dtc_private.h"

/* ------------------------------------------------------------ captures */

static const dtc_probedesc p_begin = { 1, "dtrace", "", "", "BEGIN", NULL };
static const dtc_probedesc p_read = { 2, "syscall", "", "read", "entry", NULL };
static const dtc_probedesc p_prof = { 3, "profile", "", "", "tick-1s", NULL };
static const dtc_probedesc p_end = { 4, "dtrace", "", "", "END", NULL };

/* epid 1 (BEGIN): trace((int)x): int32 at 12; 16 bytes */
static const dtc_recdesc r1[] = { { DTC_ACT_DIFEXPR, 4, 0, 4, 12, 0, 1 } };
/* epid 2 (read:entry): printf("%s %d\n", s, n): 16-byte string at 12,
 * int64 at 32 (8-aligned); 40 bytes */
static const dtc_recdesc r2[] = {
	{ DTC_ACT_PRINTF, 1, 1, 16, 12, 0, 2 },
	{ DTC_ACT_PRINTF, 8, 0, 8, 32, 0, 2 },
};
/* epid 3 (tick-1s): stack(): 2 frames of 8 bytes at 16; 32 bytes */
static const dtc_recdesc r3[] = { { DTC_ACT_STACK, 8, 0, 16, 16, 2, 3 } };
/* epid 4 (END): trace(uint8), trace(uint16), trace(int64), exit(int):
 * u8 at 12, u16 at 14, i64 at 16, int32 at 24; 28 bytes */
static const dtc_recdesc r4[] = {
	{ DTC_ACT_DIFEXPR, 1, 0, 1, 12, 0, 4 },
	{ DTC_ACT_DIFEXPR, 2, 0, 2, 14, 0, 4 },
	{ DTC_ACT_DIFEXPR, 8, 0, 8, 16, 0, 4 },
	{ DTC_ACT_EXIT, 4, 0, 4, 24, 0, 4 },
};
/* epid 5 (read:entry): trace(a 6-byte struct): raw bytes at 12; 20 bytes
 * (6 rounded up to 8) */
static const dtc_recdesc r5[] = { { DTC_ACT_DIFEXPR, 1, 0, 6, 12, 0, 5 } };

static const struct { uint32_t epid, probe, size, nrecs;
    const dtc_recdesc *recs; } eps[] = {
	{ 1, 1, 16, 1, r1 }, { 2, 2, 40, 2, r2 }, { 3, 3, 32, 1, r3 },
	{ 4, 4, 28, 4, r4 }, { 5, 2, 20, 1, r5 },
};

/* A principal buffer being laid out. */
typedef struct lbuf {
	uint8_t b[1024];
	size_t n;
} lbuf;

static uint8_t *
rec(lbuf *l, uint32_t epid, uint64_t ts)
{
	uint32_t size = 0, w[3];
	size_t i;
	uint8_t *p;

	for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
		if (eps[i].epid == epid)
			size = eps[i].size;
	ck_assert_uint_ne(size, 0);
	ck_assert_uint_le(l->n + size, sizeof(l->b));
	p = l->b + l->n;
	memset(p, 0, size);
	w[0] = epid;
	w[1] = (uint32_t)(ts >> 32);
	w[2] = (uint32_t)ts;
	memcpy(p, w, 12);
	l->n += size;
	return p;
}

static void
put(uint8_t *p, size_t off, const void *v, size_t n)
{
	memcpy(p + off, v, n);
}

static void
add_buf(dtc_writer *w, uint32_t pass, int cpu, const lbuf *l)
{
	dtc_writer_buf wb;

	memset(&wb, 0, sizeof(wb));
	wb.pass = pass;
	wb.cpu = cpu;
	wb.data = l->b;
	wb.size = l->n;
	ck_assert_int_eq(dtc_writer_add_buf(w, &wb, NULL), DTC_OK);
}

static void
add_status(dtc_writer *w, uint32_t pass, int began, int ended)
{
	dtc_writer_status st;

	memset(&st, 0, sizeof(st));
	st.pass = pass;
	st.began_on = began;
	st.ended_on = ended;
	st.exiting = ended >= 0;
	st.exit_status = 0;
	ck_assert_int_eq(dtc_writer_add_status(w, &st, NULL), DTC_OK);
}

typedef struct cap {
	char *buf;
	size_t len;
	FILE *fp;
	dtc_writer *w;
} cap;

/* A legacy capture's metadata: the probes, enabled probes and format. */
static void
cap_begin(cap *c)
{
	dtc_writer_header h;
	dtc_eprobedesc ep;
	const dtc_probedesc *ps[] = { &p_begin, &p_read, &p_prof, &p_end };
	size_t i;

	c->buf = NULL;
	c->len = 0;
	ck_assert_ptr_nonnull(c->fp = open_memstream(&c->buf, &c->len));
	memset(&h, 0, sizeof(h));
	h.os = "FreeBSD";
	h.release = "14.1";
	h.host = "box";
	h.producer = "test_batch";
	h.ncpu = 2;
	h.dt_act_base = 55;
	ck_assert_ptr_nonnull(c->w = dtc_writer_new(c->fp, &h, NULL));
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(dtc_writer_add_probe(c->w, ps[i], NULL), DTC_OK);
	for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		memset(&ep, 0, sizeof(ep));
		ep.epid = eps[i].epid;
		ep.probeid = eps[i].probe;
		ep.size = eps[i].size;
		ep.nrecs = eps[i].nrecs;
		ep.recs = eps[i].recs;
		ck_assert_int_eq(dtc_writer_add_eprobe(c->w, &ep, NULL),
		    DTC_OK);
	}
	ck_assert_int_eq(dtc_writer_add_format(c->w, 1, "%s %d\n", NULL),
	    DTC_OK);
}

static void
cap_end(cap *c)
{
	ck_assert_int_eq(dtc_writer_end(c->w, 0, NULL), DTC_OK);
	fclose(c->fp);
}

/*
 * The main capture, one pass.  CPU 0: read:entry printf("hello", -5) at
 * t=100, stack at t=150, END (255, 65535, -2, exit 7) at t=400.  CPU 1:
 * BEGIN trace(-1) at t=50, read:entry trace(raw 6 bytes) at t=120.
 * BEGIN ran on CPU 1, END on CPU 0: CPU 1 is walked first, CPU 0 last.
 */
static void
main_capture(cap *c)
{
	lbuf l0 = { { 0 }, 0 }, l1 = { { 0 }, 0 };
	const uint8_t raw[6] = { 1, 2, 0, 4, 5, 6 };
	int64_t i64 = -5, m2 = -2;
	int32_t m1 = -1, seven = 7;
	uint16_t ffff = 0xffff;
	uint64_t pcs[2] = { 0xffffffff81000010ULL, 0 };
	uint8_t *p;

	cap_begin(c);
	p = rec(&l0, 2, 100);
	put(p, 12, "hello", 5);
	put(p, 32, &i64, 8);
	p = rec(&l0, 3, 150);
	put(p, 16, pcs, 16);
	p = rec(&l0, 4, 400);
	p[12] = 0xff;
	put(p, 14, &ffff, 2);
	put(p, 16, &m2, 8);
	put(p, 24, &seven, 4);
	p = rec(&l1, 1, 50);
	put(p, 12, &m1, 4);
	p = rec(&l1, 5, 120);
	put(p, 12, raw, 6);
	add_status(c->w, 1, 1, 0);
	add_buf(c->w, 1, 0, &l0);
	add_buf(c->w, 1, 1, &l1);
	cap_end(c);
}

/* Every batch of b concatenated: (epid, index) of each row in order of
 * index, for order checks. */
static size_t
order(dtc_batch *b, size_t max_rows, uint32_t *epids, uint64_t *idx,
    size_t room)
{
	dtc_error err;
	size_t n = 0, t, r, i, j;
	int rc;

	for (;;) {
		dtc_error_clear(&err);
		rc = dtc_batch_next(b, max_rows, &err);
		ck_assert_msg(rc == DTC_OK || rc == DTC_EOF, "rc %d: %s", rc,
		    err.text);
		if (rc == DTC_EOF)
			break;
		for (t = 0; t < dtc_batch_ntables(b); t++) {
			const dtc_table *tb = dtc_batch_table(b, t);

			for (r = 0; r < tb->nrows; r++) {
				ck_assert_uint_lt(n, room);
				epids[n] = tb->ep->epid;
				idx[n++] = tb->index[r];
			}
		}
	}
	/* by index (insertion sort: a few rows) */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			uint64_t x = idx[j];
			uint32_t e = epids[j];

			idx[j] = idx[j - 1];
			epids[j] = epids[j - 1];
			idx[j - 1] = x;
			epids[j - 1] = e;
		}
	return n;
}

static const dtc_table *
table_of(dtc_batch *b, uint32_t epid)
{
	size_t t;

	for (t = 0; t < dtc_batch_ntables(b); t++)
		if (dtc_batch_table(b, t)->ep->epid == epid)
			return dtc_batch_table(b, t);
	return NULL;
}

/* ------------------------------------------------------------ tests */

START_TEST(test_open_memory)
{
	cap c;
	dtc_batch *b;
	dtc_error err;

	main_capture(&c);
	dtc_error_clear(&err);
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(dtc_batch_source(b), "mem");
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_OK);
	ck_assert_uint_eq(dtc_batch_nrows(b), 5);
	dtc_batch_close(b);
	/* not a capture: the error of the first batch */
	b = dtc_batch_open_memory("xyz", 3, "junk", 0, &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_FATAL);
	ck_assert_int_ne(err.code, DTC_E_NONE);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_FATAL);
	dtc_batch_close(b);
	free(c.buf);
}
END_TEST

START_TEST(test_open_file)
{
	char path[] = "/tmp/test_batch.XXXXXX";
	cap c;
	dtc_batch *b;
	dtc_error err;
	int fd;

	main_capture(&c);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_int_eq(write(fd, c.buf, c.len), (ssize_t)c.len);
	close(fd);
	dtc_error_clear(&err);
	ck_assert_ptr_nonnull(b = dtc_batch_open_file(path, 0, &err));
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_OK);
	ck_assert_uint_eq(dtc_batch_nrows(b), 5);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_EOF);
	dtc_batch_close(b);
	unlink(path);
	/* a file that is not there: NULL and the errno text */
	dtc_error_clear(&err);
	ck_assert_ptr_null(dtc_batch_open_file(path, 0, &err));
	ck_assert_int_eq(err.code, DTC_E_IO);
	free(c.buf);
}
END_TEST

START_TEST(test_open_fd)
{
	cap c;
	dtc_batch *b;
	dtc_error err;
	util_feeder f;

	main_capture(&c);
	/* a pipe, 7 bytes at a time: the streaming container */
	f = util_feed(c.buf, c.len, 7, 0);
	dtc_error_clear(&err);
	ck_assert_ptr_nonnull(b = dtc_batch_open_fd(f.fd, "<pipe>", 0, &err));
	ck_assert_str_eq(dtc_batch_source(b), "<pipe>");
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_OK);
	ck_assert_uint_eq(dtc_batch_nrows(b), 5);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_EOF);
	dtc_batch_close(b);
	util_feed_done(&f);
	free(c.buf);
}
END_TEST

START_TEST(test_next_columns)
{
	cap c;
	dtc_batch *b;
	dtc_error err;
	const dtc_table *t;
	const dtc_column *k;

	main_capture(&c);
	dtc_error_clear(&err);
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_OK);
	ck_assert_int_eq(err.code, DTC_E_NONE);

	/* BEGIN: CPU 1 first, so index 0 */
	ck_assert_ptr_nonnull(t = table_of(b, 1));
	ck_assert_str_eq(t->probe->name, "BEGIN");
	ck_assert_int_eq(t->data, 1);
	ck_assert_uint_eq(t->nrows, 1);
	ck_assert_uint_eq(t->index[0], 0);
	ck_assert_uint_eq(t->timestamp[0], 50);
	ck_assert_int_eq(t->cpu[0], 1);
	ck_assert_uint_eq(t->pass[0], 1);
	ck_assert_uint_eq(t->ncols, 1);
	ck_assert_int_eq(t->cols[0].kind, DTC_COL_INT);
	ck_assert_int_eq(t->cols[0].i[0], -1);

	/* the raw struct on CPU 1: index 1, bytes (a NUL inside, then data) */
	ck_assert_ptr_nonnull(t = table_of(b, 5));
	ck_assert_uint_eq(t->index[0], 1);
	k = &t->cols[0];
	ck_assert_int_eq(k->kind, DTC_COL_BYTES);
	ck_assert_uint_eq(k->off[0], 0);
	ck_assert_uint_eq(k->off[1], 6);
	ck_assert_uint_eq(k->isstr[0], 0);
	ck_assert_mem_eq(k->bytes, "\1\2\0\4\5\6", 6);

	/* printf on CPU 0: index 2; its arguments as two columns */
	ck_assert_ptr_nonnull(t = table_of(b, 2));
	ck_assert_uint_eq(t->index[0], 2);
	ck_assert_uint_eq(t->timestamp[0], 100);
	ck_assert_int_eq(t->cpu[0], 0);
	ck_assert_uint_eq(t->ncols, 2);
	k = &t->cols[0];
	ck_assert_int_eq(k->kind, DTC_COL_BYTES);
	ck_assert_int_eq(k->action, DTC_ACT_PRINTF);
	ck_assert_uint_eq(k->argindex, 0);
	ck_assert_str_eq(dtc_format_string(k->fmt), "%s %d\n");
	ck_assert_uint_eq(k->isstr[0], 1);
	ck_assert_uint_eq(k->off[1] - k->off[0], 5);
	ck_assert_mem_eq(k->bytes + k->off[0], "hello", 5);
	ck_assert_uint_eq(k->size, 16);
	k = &t->cols[1];
	ck_assert_int_eq(k->kind, DTC_COL_INT);
	ck_assert_uint_eq(k->argindex, 1);
	ck_assert_uint_eq(k->recindex, 1);
	ck_assert_int_eq(k->i[0], -5);

	/* stack(): not plain data, a row without columns */
	ck_assert_ptr_nonnull(t = table_of(b, 3));
	ck_assert_int_eq(t->data, 0);
	ck_assert_uint_eq(t->ncols, 0);
	ck_assert_uint_eq(t->index[0], 3);
	ck_assert_uint_eq(t->timestamp[0], 150);

	/* END: 1 and 2 bytes unsigned, 8 signed, exit()'s status */
	ck_assert_ptr_nonnull(t = table_of(b, 4));
	ck_assert_uint_eq(t->index[0], 4);
	ck_assert_uint_eq(t->ncols, 4);
	ck_assert_int_eq(t->cols[0].i[0], 255);
	ck_assert_int_eq(t->cols[1].i[0], 65535);
	ck_assert_int_eq(t->cols[2].i[0], -2);
	ck_assert_int_eq(t->cols[3].action, DTC_ACT_EXIT);
	ck_assert_int_eq(t->cols[3].i[0], 7);

	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_EOF);
	ck_assert_uint_eq(dtc_batch_nrows(b), 0);
	ck_assert_uint_eq(dtc_batch_ntables(b), 0);
	/* EOF sticks */
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_EOF);
	dtc_batch_close(b);
	free(c.buf);
}
END_TEST

/* Three passes of 4 trace() rows each, taken 3 rows at a time. */
START_TEST(test_next_max_rows)
{
	cap c;
	dtc_batch *b;
	dtc_error err;
	uint32_t pass, i, total = 0, calls = 0;
	uint64_t expect = 0;
	size_t t, r;
	int rc;

	cap_begin(&c);
	for (pass = 1; pass <= 3; pass++) {
		lbuf l = { { 0 }, 0 };

		for (i = 0; i < 4; i++) {
			int32_t v = (int32_t)(pass * 10 + i);

			put(rec(&l, 1, pass * 1000 + i), 12, &v, 4);
		}
		add_buf(c.w, pass, 0, &l);
	}
	cap_end(&c);
	dtc_error_clear(&err);
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	while ((rc = dtc_batch_next(b, 3, &err)) == DTC_OK) {
		calls++;
		ck_assert_uint_le(dtc_batch_nrows(b), 3);
		ck_assert_uint_eq(dtc_batch_ntables(b), 1);
		for (t = 0; t < dtc_batch_ntables(b); t++) {
			const dtc_table *tb = dtc_batch_table(b, t);

			for (r = 0; r < tb->nrows; r++, expect++) {
				/* rows in order across batches and passes */
				ck_assert_uint_eq(tb->index[r], expect);
				ck_assert_uint_eq(tb->pass[r], expect / 4 + 1);
				ck_assert_int_eq(tb->cols[0].i[r],
				    (int64_t)((expect / 4 + 1) * 10 + expect % 4));
				ck_assert_uint_eq(tb->timestamp[r],
				    (expect / 4 + 1) * 1000 + expect % 4);
			}
			total += (uint32_t)tb->nrows;
		}
	}
	ck_assert_int_eq(rc, DTC_EOF);
	ck_assert_uint_eq(total, 12);
	ck_assert_uint_eq(calls, 4);
	dtc_batch_close(b);
	free(c.buf);
}
END_TEST

START_TEST(test_nrows_ntables_table)
{
	cap c;
	dtc_batch *b;
	dtc_error err;
	size_t t, sum = 0;

	main_capture(&c);
	dtc_error_clear(&err);
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	/* before the first batch: nothing */
	ck_assert_uint_eq(dtc_batch_nrows(b), 0);
	ck_assert_uint_eq(dtc_batch_ntables(b), 0);
	ck_assert_ptr_null(dtc_batch_table(b, 0));
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_OK);
	/* five enabled probes fired once each: tables by first row */
	ck_assert_uint_eq(dtc_batch_ntables(b), 5);
	ck_assert_uint_eq(dtc_batch_table(b, 0)->ep->epid, 1);
	ck_assert_uint_eq(dtc_batch_table(b, 1)->ep->epid, 5);
	ck_assert_uint_eq(dtc_batch_table(b, 2)->ep->epid, 2);
	ck_assert_uint_eq(dtc_batch_table(b, 3)->ep->epid, 3);
	ck_assert_uint_eq(dtc_batch_table(b, 4)->ep->epid, 4);
	ck_assert_ptr_null(dtc_batch_table(b, 5));
	for (t = 0; t < 5; t++)
		sum += dtc_batch_table(b, t)->nrows;
	ck_assert_uint_eq(sum, dtc_batch_nrows(b));
	dtc_batch_close(b);
	free(c.buf);
}
END_TEST

START_TEST(test_header_source_close)
{
	cap c;
	dtc_batch *b;
	dtc_error err;
	const dtc_header *h;

	main_capture(&c);
	dtc_error_clear(&err);
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	ck_assert_ptr_null(dtc_batch_header(b));
	ck_assert_str_eq(dtc_batch_source(b), "mem");
	ck_assert_int_eq(dtc_batch_next(b, 1, &err), DTC_OK);
	ck_assert_ptr_nonnull(h = dtc_batch_header(b));
	ck_assert_str_eq(h->os, "FreeBSD");
	ck_assert_str_eq(h->host, "box");
	ck_assert_str_eq(h->flavor, "legacy");
	ck_assert_uint_eq(h->ncpu, 2);
	ck_assert_int_eq(h->v2, 0);
	/* closed in the middle of the capture; and NULL is nothing */
	dtc_batch_close(b);
	dtc_batch_close(NULL);
	free(c.buf);
}
END_TEST

/*
 * Ordering: BEGIN and END on the same CPU (1) in one pass: its BEGIN
 * records first, CPU 0, then the rest of CPU 1 (dt_consume_begin).  With
 * temporal, by timestamp alone.
 */
START_TEST(test_order)
{
	cap c;
	lbuf l0 = { { 0 }, 0 }, l1 = { { 0 }, 0 };
	dtc_batch *b;
	dtc_error err;
	uint32_t epids[8];
	uint64_t idx[8];
	size_t n;
	static const uint32_t plain[] = { 1, 2, 5, 4 };
	static const uint32_t temporal[] = { 5, 1, 2, 4 };

	cap_begin(&c);
	rec(&l0, 2, 30);
	rec(&l1, 5, 10);     /* before BEGIN in the buffer, after in time */
	rec(&l1, 1, 20);
	rec(&l1, 4, 40);
	add_status(c.w, 1, 1, 1);
	add_buf(c.w, 1, 1, &l1);
	add_buf(c.w, 1, 0, &l0);
	cap_end(&c);

	dtc_error_clear(&err);
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	n = order(b, 0, epids, idx, 8);
	ck_assert_uint_eq(n, 4);
	ck_assert_mem_eq(epids, plain, sizeof(plain));
	dtc_batch_close(b);

	b = dtc_batch_open_memory(c.buf, c.len, "mem", DTC_OPEN_TEMPORAL, &err);
	n = order(b, 2, epids, idx, 8);
	ck_assert_uint_eq(n, 4);
	ck_assert_mem_eq(epids, temporal, sizeof(temporal));
	dtc_batch_close(b);
	free(c.buf);
}
END_TEST

/*
 * An unknown EPID: the walker skips the rest of that buffer (a warning
 * with its item, file offset and CPU); the rows before it come with the
 * warning, the other buffer's after it.
 */
START_TEST(test_next_warning)
{
	cap c;
	lbuf l0 = { { 0 }, 0 }, l1 = { { 0 }, 0 };
	dtc_batch *b;
	dtc_error err;
	uint32_t bad = 99;
	int32_t v = 3, v2 = 4;
	const uint8_t *data;

	cap_begin(&c);
	put(rec(&l0, 1, 1), 12, &v, 4);
	memcpy(l0.b + l0.n, &bad, 4);
	l0.n += 16;
	put(rec(&l1, 1, 2), 12, &v2, 4);
	add_buf(c.w, 1, 0, &l0);
	add_buf(c.w, 1, 1, &l1);
	cap_end(&c);
	/* where CPU 0's bytes are in the file: the unknown EPID is 16 bytes
	 * into them */
	data = memmem(c.buf, c.len, l0.b, l0.n);
	ck_assert_ptr_nonnull(data);

	dtc_error_clear(&err);
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_WARN);
	ck_assert_int_eq(err.code, DTC_E_BADEPID);
	ck_assert_int_eq(err.cpu, 0);
	/* items: header, 4 probes, 5 eprobes, format; CPU 0's buf is 11 */
	ck_assert_int_eq(err.item, 11);
	ck_assert_int_eq(err.offset, (long long)(data - (uint8_t *)c.buf) + 16);
	ck_assert_uint_eq(dtc_batch_nrows(b), 1);
	ck_assert_int_eq(dtc_batch_table(b, 0)->cols[0].i[0], 3);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_OK);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	ck_assert_uint_eq(dtc_batch_nrows(b), 1);
	ck_assert_int_eq(dtc_batch_table(b, 0)->cols[0].i[0], 4);
	ck_assert_uint_eq(dtc_batch_table(b, 0)->index[0], 1);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_EOF);
	dtc_batch_close(b);
	free(c.buf);
}
END_TEST

/* DTrace v2: records by statement, in file order, no timestamps. */
START_TEST(test_v2)
{
	static const dtc_recdesc sr[] = {
		{ DTC_ACT_DIFEXPR, 8, 0, 8, 16, 0, 0 },
		{ DTC_ACT_DIFEXPR, 1, 0, 6, 24, 0, 0 },   /* a string */
	};
	dtc_stmtdesc sd = { 7, 0, 32, 2, sr };
	dtc_writer_header h;
	dtc_batch *b;
	dtc_error err;
	const dtc_table *t;
	uint8_t recs[64];
	uint32_t w32[4];
	int64_t v;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;
	dtc_writer *w;

	ck_assert_ptr_nonnull(fp = open_memstream(&buf, &len));
	memset(&h, 0, sizeof(h));
	h.os = "Linux";
	h.flavor = "dtrace-v2";
	h.ncpu = 1;
	ck_assert_ptr_nonnull(w = dtc_writer_new(fp, &h, NULL));
	ck_assert_int_eq(dtc_writer_add_probe(w, &p_read, NULL), DTC_OK);
	ck_assert_int_eq(dtc_writer_add_stmt(w, &sd, NULL), DTC_OK);
	memset(recs, 0, sizeof(recs));
	for (i = 0; i < 2; i++) {
		uint8_t *p = recs + 32 * i;

		w32[0] = 28;            /* bytes after the size word */
		w32[1] = 0;             /* specid */
		w32[2] = 2;             /* probe */
		w32[3] = 7;             /* statement */
		memcpy(p, w32, 16);
		v = -(int64_t)i - 1;
		memcpy(p + 16, &v, 8);
		memcpy(p + 24, i == 0 ? "ab" : "cde", i == 0 ? 2 : 3);
	}
	ck_assert_int_eq(dtc_writer_add_recs(w, 1, 0, recs, 64, NULL), DTC_OK);
	ck_assert_int_eq(dtc_writer_end(w, 0, NULL), DTC_OK);
	fclose(fp);

	dtc_error_clear(&err);
	b = dtc_batch_open_memory(buf, len, "v2", 0, &err);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_OK);
	ck_assert_str_eq(dtc_batch_header(b)->flavor, "dtrace-v2");
	ck_assert_uint_eq(dtc_batch_ntables(b), 1);
	t = dtc_batch_table(b, 0);
	ck_assert_uint_eq(t->ep->epid, 7);       /* the statement id */
	ck_assert_uint_eq(t->ep->probeid, 2);
	ck_assert_uint_eq(t->nrows, 2);
	ck_assert_uint_eq(t->timestamp[0], 0);
	ck_assert_int_eq(t->cols[0].i[0], -1);
	ck_assert_int_eq(t->cols[0].i[1], -2);
	ck_assert_int_eq(t->cols[1].kind, DTC_COL_BYTES);
	ck_assert_uint_eq(t->cols[1].off[1], 2);
	ck_assert_uint_eq(t->cols[1].off[2], 5);
	ck_assert_mem_eq(t->cols[1].bytes, "abcde", 5);
	ck_assert_uint_eq(t->cols[1].isstr[1], 1);
	dtc_batch_close(b);
	free(buf);
}
END_TEST

/* The order of rows is dtc_reader_next's order of PROBE events (and ERROR
 * events of records), here on the main capture and temporal. */
START_TEST(test_same_order_as_dtc_next)
{
	cap c;
	dtc_batch *b;
	dtc_reader *r;
	dtc_error err;
	const dtc_event *ev;
	uint32_t epids[16], evs[16];
	uint64_t idx[16];
	size_t n, m = 0, i;
	unsigned flags;
	int rc;

	main_capture(&c);
	for (flags = 0; flags <= DTC_OPEN_TEMPORAL; flags += DTC_OPEN_TEMPORAL) {
		dtc_error_clear(&err);
		b = dtc_batch_open_memory(c.buf, c.len, "mem", flags, &err);
		n = order(b, 1, epids, idx, 16);
		dtc_batch_close(b);
		r = dtc_reader_open_memory(c.buf, c.len, "mem", flags, &err);
		m = 0;
		while ((rc = dtc_reader_next(r, &ev, &err)) != DTC_EOF) {
			ck_assert_int_ne(rc, DTC_FATAL);
			if (ev != NULL && ev->type == DTC_EV_PROBE)
				evs[m++] = ev->ep->epid;
		}
		dtc_reader_close(r);
		ck_assert_uint_eq(n, m);
		for (i = 0; i < n; i++) {
			ck_assert_uint_eq(idx[i], i);
			ck_assert_uint_eq(epids[i], evs[i]);
		}
	}
	free(c.buf);
}
END_TEST

/*
 * dtc_batch_select leaves out what dtc_reader_select leaves out, and indexes
 * count what is left.  The main capture's rows in walking order are
 * epid 1 (CPU 1, t=50), 5 (CPU 1, 120), 2 (CPU 0, 100), 3 (CPU 0, 150),
 * 4 (CPU 0, 400); epids 2 and 5 are syscall::read:entry.
 */
START_TEST(test_select)
{
	static const struct {
		const char *what[2], *value[2];
		size_t n;
		uint32_t want[5];
	} cases[] = {
		{ { "cpu" }, { "1" }, 2, { 1, 5 } },
		{ { "probe" }, { "read:entry" }, 2, { 5, 2 } },
		{ { "probe", "cpu" }, { "syscall:::", "0" }, 1, { 2 } },
		{ { "since", "until" }, { "110", "200" }, 2, { 5, 3 } },
		{ { "since" }, { "+60ns" }, 3, { 5, 3, 4 } },
		{ { "epid" }, { "4,1" }, 2, { 1, 4 } },
		{ { "probe" }, { "nosuch:::" }, 0, { 0 } },
	};
	cap c;
	dtc_batch *b;
	dtc_reader *r;
	dtc_error err;
	const dtc_event *ev;
	uint32_t epids[16], evs[16];
	uint64_t idx[16];
	size_t k, j, n, m;
	int rc;

	main_capture(&c);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
		r = dtc_reader_open_memory(c.buf, c.len, "mem", 0, &err);
		for (j = 0; j < 2 && cases[k].what[j] != NULL; j++) {
			ck_assert_int_eq(dtc_batch_select(b, cases[k].what[j],
			    cases[k].value[j], &err), DTC_OK);
			ck_assert_int_eq(dtc_reader_select(r, cases[k].what[j],
			    cases[k].value[j], &err), DTC_OK);
		}
		n = order(b, 2, epids, idx, 16);
		ck_assert_msg(n == cases[k].n, "case %zu: %zu rows", k, n);
		for (j = 0; j < n; j++) {
			ck_assert_uint_eq(idx[j], j);
			ck_assert_uint_eq(epids[j], cases[k].want[j]);
		}
		/* too late once a batch was asked for */
		ck_assert_int_eq(dtc_batch_select(b, "cpu", "0", &err),
		    DTC_FAILED);
		ck_assert_int_eq(err.code, DTC_E_BADOPTION);
		dtc_batch_close(b);
		m = 0;
		while ((rc = dtc_reader_next(r, &ev, &err)) != DTC_EOF) {
			ck_assert_int_ne(rc, DTC_FATAL);
			if (ev != NULL && ev->type == DTC_EV_PROBE)
				evs[m++] = ev->ep->epid;
		}
		dtc_reader_close(r);
		ck_assert_uint_eq(m, n);
		for (j = 0; j < n; j++)
			ck_assert_uint_eq(evs[j], epids[j]);
	}

	/* a bad value, and a wall-clock time without a clock item */
	b = dtc_batch_open_memory(c.buf, c.len, "mem", 0, &err);
	ck_assert_int_eq(dtc_batch_select(b, "cpu", "x", &err), DTC_FAILED);
	ck_assert_int_eq(err.code, DTC_E_BADOPTION);
	ck_assert_int_eq(dtc_batch_select(b, "since",
	    "2026-11-25T16:00:00Z", &err), DTC_OK);
	ck_assert_int_eq(dtc_batch_next(b, 0, &err), DTC_FATAL);
	ck_assert_int_eq(err.code, DTC_E_BADOPTION);
	ck_assert_int_eq(err.item, -1);
	ck_assert_ptr_nonnull(strstr(err.text, "clock item"));
	dtc_batch_close(b);
	free(c.buf);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_open_memory);
	tcase_add_test(tc, test_open_file);
	tcase_add_test(tc, test_open_fd);
	tcase_add_test(tc, test_next_columns);
	tcase_add_test(tc, test_next_max_rows);
	tcase_add_test(tc, test_nrows_ntables_table);
	tcase_add_test(tc, test_header_source_close);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_next_warning);
	tcase_add_test(tc, test_v2);
	tcase_add_test(tc, test_same_order_as_dtc_next);
	tcase_add_test(tc, test_select);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
