/*
 * test_items.c - the public item-level API (dtc_container(3),
 * dtc_tables(3)) through dtconsume.h alone, as a program uses it: a
 * capture written by the library's writer with known items, read back
 * item by item (kinds, indexes, offsets that tile the bytes, node
 * values), typed getters whose errors name item, key and byte offset,
 * the tables and the walker over a buffer laid out by hand, the raw
 * writer copying items byte for byte, and the zstd layer with a damaged
 * frame.
 */
#include "config.h"

#include <check.h>

#include "util.h"

static dtc_probedesc probe = { .id = 7, .provider = "dtrace", .module = "",
    .function = "", .name = "BEGIN" };
static dtc_recdesc rec = { .action = DTC_ACT_DIFEXPR, .size = 4,
    .offset = 12, .alignment = 4 };
static dtc_eprobedesc eprobe = { .epid = 3, .probeid = 7, .size = 16,
    .nrecs = 1, .recs = &rec };

static int
host_big(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

/* legacy records: EPID, timestamp high and low words, then the data */
static void
put_rec(uint8_t *p, uint32_t epid, uint32_t ts, uint32_t v)
{
	uint32_t w[4] = { epid, 0, ts, v };

	memcpy(p, w, sizeof(w));
}

/* header, probe, eprobe, format, buf (two records and 8 bytes of
 * EPIDNONE), end: 6 items */
static uint8_t *
capture(size_t *len, int level)
{
	dtc_writer_header h = { .os = "freebsd", .ncpu = 2, .producer = "t",
	    .big_endian = host_big() };
	uint8_t data[40] = { 0 };
	dtc_writer_buf b = { .pass = 1, .cpu = 1, .data = data,
	    .size = sizeof(data) };
	dtc_error err = DTC_ERROR_INIT;
	dtc_writer *w;
	char *p = NULL;
	FILE *f;

	put_rec(data, 3, 1000, 11);
	put_rec(data + 16, 3, 2000, 22);
	ck_assert_ptr_nonnull(f = open_memstream(&p, len));
	ck_assert_ptr_nonnull(w = dtc_writer_new_zstd(f, &h, level, &err));
	ck_assert_int_eq(dtc_writer_add_probe(w, &probe, &err), DTC_OK);
	ck_assert_int_eq(dtc_writer_add_eprobe(w, &eprobe, &err), DTC_OK);
	ck_assert_int_eq(dtc_writer_add_format(w, 1, "%d\n", &err), DTC_OK);
	ck_assert_int_eq(dtc_writer_add_buf(w, &b, &err), DTC_OK);
	ck_assert_int_eq(dtc_writer_end(w, 0, &err), DTC_OK); /* frees w */
	fclose(f);
	return (uint8_t *)p;
}

static const char *kinds[] = { "dtsnap", "probe", "eprobe", "format", "buf",
    "end" };

/* Items in order, numbered from 0, tiling the bytes; values by key. */
START_TEST(items_in_order)
{
	dtc_error err = DTC_ERROR_INIT;
	dtc_container *c;
	dtc_item it;
	const dtc_node *n, *k;
	size_t len, next = 0;
	uint8_t *buf = capture(&len, 0);
	int i = 0, rc;

	ck_assert_ptr_nonnull(c = dtc_container_open_memory(buf, len, "mem",
	    &err));
	while ((rc = dtc_container_next(c, &it, &err)) == DTC_OK) {
		ck_assert_int_lt(i, 6);
		ck_assert_str_eq(it.kind, kinds[i]);
		ck_assert_int_eq(it.index, i);
		ck_assert_uint_eq(it.offset, next);
		ck_assert_uint_eq(it.nodes[0].type, DTC_NODE_MAP);
		ck_assert_uint_eq(it.nodes[0].offset, it.offset);
		next = it.offset + it.size;
		/* every item's first key is "t", its value the kind */
		k = dtc_node_child(&it.nodes[0]);
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(k->type, DTC_NODE_TEXT);
		ck_assert_mem_eq(k->ptr, "t", 1);
		n = dtc_node_next(k);
		ck_assert_uint_eq(n->len, strlen(kinds[i]));
		ck_assert_mem_eq(n->ptr, kinds[i], n->len);
		if (i == 0) {
			n = dtc_node_get(it.nodes, "version");
			ck_assert_uint_eq(n->type, DTC_NODE_ARRAY);
			ck_assert_uint_eq(dtc_node_at(n, 0)->u, 1);
			ck_assert_ptr_null(dtc_node_at(n, 2));
			n = dtc_node_get(it.nodes, "ncpu");
			ck_assert_uint_eq(n->type, DTC_NODE_UINT);
			ck_assert_uint_eq(n->u, 2);
		}
		if (i == 1) {
			n = dtc_node_get(it.nodes, "provider");
			ck_assert_uint_eq(n->type, DTC_NODE_TEXT);
			ck_assert_mem_eq(n->ptr, "dtrace", 6);
			ck_assert_ptr_null(dtc_node_get(it.nodes, "nothing"));
		}
		i++;
	}
	ck_assert_int_eq(rc, DTC_EOF);
	ck_assert_int_eq(i, 6);
	ck_assert_uint_eq(next, len);
	dtc_container_close(c);
	free(buf);
}
END_TEST

/* The getters: a value, a missing key (optional and required) and a
 * value of another type, the errors located. */
START_TEST(getters)
{
	dtc_error err = DTC_ERROR_INIT;
	dtc_container *c;
	dtc_item it;
	const char *s;
	size_t len, slen;
	uint64_t u = 99;
	int64_t i64;
	uint8_t *buf = capture(&len, 0);

	ck_assert_ptr_nonnull(c = dtc_container_open_memory(buf, len, "mem",
	    &err));
	ck_assert_int_eq(dtc_container_next(c, &it, &err), DTC_OK);
	ck_assert_int_eq(dtc_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "probe");
	ck_assert_int_eq(dtc_item_get_uint(c, &it, it.nodes, "id", 1, &u,
	    &err), DTC_OK);
	ck_assert_uint_eq(u, 7);
	ck_assert_int_eq(dtc_item_get_int(c, &it, it.nodes, "id", 1, &i64,
	    &err), DTC_OK);
	ck_assert_int_eq(i64, 7);
	ck_assert_int_eq(dtc_item_get_text(c, &it, it.nodes, "name", 1, &s,
	    &slen, &err), DTC_OK);
	ck_assert_uint_eq(slen, 5);
	ck_assert_mem_eq(s, "BEGIN", 5);
	u = 99;
	ck_assert_int_eq(dtc_item_get_uint(c, &it, it.nodes, "absent", 0, &u,
	    &err), DTC_EOF);
	ck_assert_uint_eq(u, 99);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	ck_assert_int_eq(dtc_item_get_uint(c, &it, it.nodes, "absent", 1, &u,
	    &err), DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_MISSINGKEY, 1, (long long)it.offset);
	ck_assert_str_eq(err.source, "mem");
	ck_assert_ptr_nonnull(strstr(err.text, "'absent'"));
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_item_get_uint(c, &it, it.nodes, "provider", 1,
	    &u, &err), DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_KEYTYPE, 1,
	    (long long)dtc_node_get(it.nodes, "provider")->offset);
	dtc_container_close(c);
	free(buf);
}
END_TEST

/* The tables as the items describe them; the walker's two records of
 * the buffer laid out by hand, at buffer offsets 0 and 16. */
START_TEST(tables_and_walker)
{
	dtc_error err = DTC_ERROR_INIT;
	dtc_container *c;
	dtc_tables *t;
	dtc_walker *w;
	dtc_walkrec r;
	dtc_item it;
	const dtc_eprobedesc *ep;
	const uint8_t *data;
	uint32_t *ids;
	size_t len, n, size;
	uint64_t wall;
	uint8_t *buf = capture(&len, 0);
	int nbuf = 0;

	ck_assert_ptr_nonnull(c = dtc_container_open_memory(buf, len, "mem",
	    &err));
	ck_assert_int_eq(dtc_container_next(c, &it, &err), DTC_OK);
	ck_assert_ptr_nonnull(t = dtc_tables_new(&it, &err));
	ck_assert_ptr_nonnull(w = dtc_walker_new(t, "mem", &err));
	while (dtc_container_next(c, &it, &err) == DTC_OK) {
		int rc = dtc_tables_add_item(t, c, &it, &err);

		if (strcmp(it.kind, "buf") != 0) {
			ck_assert_int_eq(rc, strcmp(it.kind, "end") == 0 ?
			    DTC_EOF : DTC_OK);
			continue;
		}
		ck_assert_int_eq(rc, DTC_EOF);
		nbuf++;
		ck_assert_int_eq(dtc_item_get_bytes(c, &it, it.nodes, "data",
		    1, &data, &size, &err), DTC_OK);
		ck_assert_uint_eq(size, 40);
		ck_assert_int_eq(dtc_walker_start(w, it.index, 1, data, size,
		    1000, 0, &err), DTC_OK);
		ck_assert_int_eq(dtc_walker_next(w, &r, &err), DTC_OK);
		ck_assert_uint_eq(r.epid, 3);
		ck_assert_uint_eq(r.raw_offset, 0);
		ck_assert_uint_eq(r.timestamp, 1000);
		ck_assert_ptr_eq(r.ep, dtc_tables_eprobe(t, 3));
		ck_assert_int_eq(dtc_walker_next(w, &r, &err), DTC_OK);
		ck_assert_uint_eq(r.raw_offset, 16);
		ck_assert_uint_eq(r.timestamp, 2000);
		ck_assert_uint_eq(r.data[12], 22);
		ck_assert_int_eq(dtc_walker_next(w, &r, &err), DTC_EOF);
		ck_assert_uint_eq(dtc_walker_size(w), 40);
	}
	ck_assert_int_eq(nbuf, 1);
	ck_assert_int_eq(dtc_tables_ids(t, DTC_TABLES_PROBE, &ids, &n, &err),
	    DTC_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ids[0], 7);
	free(ids);
	ck_assert_int_eq(dtc_tables_ids(t, DTC_TABLES_EPROBE, &ids, &n, &err),
	    DTC_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ids[0], 3);
	free(ids);
	ck_assert_int_eq(dtc_tables_ids(t, 42, &ids, &n, &err), DTC_FAILED);
	ck_assert_int_eq(err.code, DTC_E_BADVALUE);
	ep = dtc_tables_eprobe(t, 3);
	ck_assert_ptr_nonnull(ep->probe);
	ck_assert_str_eq(ep->probe->name, "BEGIN");
	ck_assert_ptr_null(dtc_tables_eprobe(t, 4));
	ck_assert_str_eq(dtc_format_string(dtc_tables_format(t, 1)), "%d\n");
	/* no clock item was written */
	ck_assert_int_eq(dtc_tables_walltime(t, 5, &wall), DTC_EOF);
	dtc_walker_free(w);
	dtc_tables_free(t);
	dtc_container_close(c);
	free(buf);
}
END_TEST

/* Every item put raw through a raw writer: the same bytes; through zstd
 * and back: the same bytes again. */
START_TEST(raw_copy)
{
	dtc_error err = DTC_ERROR_INIT;
	dtc_container *c;
	dtc_writer *w;
	dtc_zstd *z;
	dtc_item it;
	char *out = NULL;
	uint8_t back[4096];
	size_t len, olen, got, blen = 0;
	uint8_t *buf = capture(&len, 0);
	int level, rc;
	FILE *f;

	for (level = 0; level <= 3; level += 3) {
		ck_assert_ptr_nonnull(f = open_memstream(&out, &olen));
		ck_assert_ptr_nonnull(w = dtc_writer_new_raw(f, level, &err));
		ck_assert_ptr_nonnull(c = dtc_container_open_memory(buf, len,
		    "mem", &err));
		while (dtc_container_next(c, &it, &err) == DTC_OK)
			ck_assert_int_eq(dtc_writer_put_item(w, buf + it.offset,
			    it.size, &err), DTC_OK);
		dtc_container_close(c);
		ck_assert_int_eq(dtc_writer_flush(w, &err), DTC_OK);
		dtc_writer_free(w);
		fclose(f);
		ck_assert_int_eq(dtc_zstd_is_frame(out, olen), level > 0);
		if (level == 0) {
			ck_assert_uint_eq(olen, len);
			ck_assert_mem_eq(out, buf, len);
		} else {
			ck_assert_ptr_nonnull(z = dtc_zstd_open_memory(out,
			    olen, &err));
			blen = 0;
			while ((rc = dtc_zstd_read(z, back + blen,
			    sizeof(back) - blen, &got, &err)) == DTC_OK)
				blen += got;
			ck_assert_int_eq(rc, DTC_EOF);
			dtc_zstd_close(z);
			ck_assert_uint_eq(blen, len);
			ck_assert_mem_eq(back, buf, len);
		}
		free(out);
		out = NULL;
	}
	free(buf);
}
END_TEST

/* A damaged frame: DTC_WARN with its reason and offset, then the end. */
START_TEST(zstd_damage)
{
	dtc_error err = DTC_ERROR_INIT;
	dtc_zstd *z;
	uint8_t back[4096];
	size_t len, got;
	uint8_t *buf = capture(&len, 3);
	int rc, nwarn = 0;

	ck_assert(dtc_zstd_is_frame(buf, len));
	ck_assert_uint_gt(len, 20);
	buf[len - 6] ^= 0xff;	/* inside the frame, before its checksum */
	ck_assert_ptr_nonnull(z = dtc_zstd_open_memory(buf, len, &err));
	while ((rc = dtc_zstd_read(z, back, sizeof(back), &got, &err)) !=
	    DTC_EOF) {
		ck_assert_int_ne(rc, DTC_FATAL);
		if (rc == DTC_WARN) {
			nwarn++;
			ck_assert_int_eq(err.offset, 0);
			ck_assert_str_ne(err.text, "");
			dtc_error_clear(&err);
		}
	}
	ck_assert_int_eq(nwarn, 1);
	dtc_zstd_close(z);
	free(buf);
}
END_TEST

static Suite *
items_suite(void)
{
	Suite *s = suite_create("items");
	TCase *tc = tcase_create("items");

	tcase_add_test(tc, items_in_order);
	tcase_add_test(tc, getters);
	tcase_add_test(tc, tables_and_walker);
	tcase_add_test(tc, raw_copy);
	tcase_add_test(tc, zstd_damage);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return util_run_suite(items_suite());
}
