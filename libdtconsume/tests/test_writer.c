/*
 * test_writer.c - dtc_writer_*: captures written through the public API
 * are read back with the container reader, key by key, and a few items
 * are compared with encodings written by hand from RFC 8949.  Every item
 * says its number (key "seq", dtsnap(5) version 1.3) right after "t".
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"
#include "util.h"

/* A capture being written to memory. */
typedef struct mem {
	char *buf;
	size_t len;
	FILE *f;
} mem;

static void
mem_open(mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
}

/* Bytes written so far (open_memstream updates len on fflush). */
static size_t
mem_size(mem *m)
{
	ck_assert_int_eq(fflush(m->f), 0);
	return m->len;
}

static void
mem_close(mem *m)
{
	fclose(m->f);
}

static const dtc_writer_header hdr = {
	.big_endian = 0, .ilp32 = 0, .os = "freebsd", .release = "14.1",
	.host = "box", .producer = "test_writer", .ncpu = 4,
	.dt_act_base = 55,
};

static dtc_writer *
new_writer(mem *m)
{
	dtc_error err;
	dtc_writer *w;

	mem_open(m);
	dtc_error_clear(&err);
	w = dtc_writer_new(m->f, &hdr, &err);
	ck_assert_msg(w != NULL, "dtc_writer_new: %s", err.text);
	return w;
}

#define OK(call) do {							\
	dtc_error e_;							\
	int rc_;							\
	dtc_error_clear(&e_);						\
	rc_ = (call);							\
	ck_assert_msg(rc_ == DTC_OK, "%s: rc %d: %s", #call, rc_, e_.text); \
} while (0)
/* calls take &e_ as their error argument */
#define E (&e_)

/* ------------------------------------------------------------------ */
/* Reading back                                                        */
/* ------------------------------------------------------------------ */

static int
key_is(const dtcp_node *n, const char *key)
{
	return n->type == DTCP_N_TEXT && n->len == strlen(key) &&
	    memcmp(n->ptr, key, n->len) == 0;
}

/*
 * The item's first two pairs are "t" and "seq", and seq is its index:
 * the resynchronizing reader needs "t" first, and a number anywhere else
 * would say nothing of an item whose tail is lost.
 */
static void
check_seq(const dtcp_item *it, long long index)
{
	const dtcp_node *k = dtcp_first_child(&it->nodes[0]), *v;

	ck_assert_uint_ge(it->nodes[0].count, 2);
	ck_assert_msg(key_is(k, "t"), "item %lld: first key is not 't'",
	    index);
	k = dtcp_next_sibling(dtcp_next_sibling(k));
	v = dtcp_next_sibling(k);
	ck_assert_msg(key_is(k, "seq"), "item %lld: second key is not "
	    "'seq'", index);
	ck_assert_int_eq(v->type, DTCP_N_UINT);
	ck_assert_msg(v->u == (uint64_t)index, "item %lld says seq %llu",
	    index, (unsigned long long)v->u);
}

/* The next item, which must be read without a warning. */
static void
next_kind(dtcp_container *c, dtcp_item *it, long long index,
    const char *kind)
{
	dtc_error err;
	int rc;

	dtc_error_clear(&err);
	rc = dtcp_container_next(c, it, &err);
	ck_assert_msg(rc == DTC_OK, "item %lld: rc %d: %s", index, rc,
	    err.text);
	ck_assert_int_eq(it->index, index);
	ck_assert_str_eq(it->kind, kind);
	check_seq(it, index);
}

static uint64_t
get_u(dtcp_container *c, dtcp_item *it, const dtcp_node *map,
    const char *key)
{
	dtc_error err;
	uint64_t v = 0;

	dtc_error_clear(&err);
	ck_assert_msg(dtcp_get_u64(c, it, map, key, 1, &v, &err) == DTC_OK,
	    "%s", err.text);
	return v;
}

static int64_t
get_i(dtcp_container *c, dtcp_item *it, const dtcp_node *map,
    const char *key)
{
	dtc_error err;
	int64_t v = 0;

	dtc_error_clear(&err);
	ck_assert_msg(dtcp_get_i64(c, it, map, key, 1, &v, &err) == DTC_OK,
	    "%s", err.text);
	return v;
}

static void
check_text(dtcp_container *c, dtcp_item *it, const dtcp_node *map,
    const char *key, const char *want)
{
	dtc_error err;
	const char *s;
	size_t len;

	dtc_error_clear(&err);
	ck_assert_msg(dtcp_get_text(c, it, map, key, 1, &s, &len, &err) ==
	    DTC_OK, "%s", err.text);
	ck_assert_msg(len == strlen(want) && memcmp(s, want, len) == 0,
	    "key '%s': '%.*s', expected '%s'", key, (int)len, s, want);
}

static void
check_bytes(dtcp_container *c, dtcp_item *it, const char *key,
    const void *want, size_t wantlen)
{
	dtc_error err;
	const uint8_t *p;
	size_t len;

	dtc_error_clear(&err);
	ck_assert_msg(dtcp_get_bytes(c, it, it->nodes, key, 1, &p, &len,
	    &err) == DTC_OK, "%s", err.text);
	ck_assert_uint_eq(len, wantlen);
	ck_assert(wantlen == 0 || memcmp(p, want, len) == 0);
}

static const dtcp_node *
get_n(dtcp_container *c, dtcp_item *it, const dtcp_node *map,
    const char *key, int type)
{
	dtc_error err;
	const dtcp_node *n = NULL;

	dtc_error_clear(&err);
	ck_assert_msg(dtcp_get_node(c, it, map, key, type, 1, &n, &err) ==
	    DTC_OK, "%s", err.text);
	return n;
}

/* Number of keys of a map (the writer writes no key it does not document) */
static uint32_t
nkeys(const dtcp_item *it)
{
	return it->nodes[0].count;
}

static void
check_recs(dtcp_container *c, dtcp_item *it, const dtc_recdesc *recs,
    uint32_t nrecs)
{
	const dtcp_node *a = get_n(c, it, it->nodes, "recs", DTCP_N_ARRAY);
	const dtcp_node *r;
	uint32_t i;

	ck_assert_uint_eq(a->count, nrecs);
	for (i = 0, r = dtcp_first_child(a); i < nrecs;
	    i++, r = dtcp_next_sibling(r)) {
		ck_assert_int_eq(r->type, DTCP_N_MAP);
		ck_assert_uint_eq(r->count, 7);
		ck_assert_uint_eq(get_u(c, it, r, "action"), recs[i].action);
		ck_assert_uint_eq(get_u(c, it, r, "size"), recs[i].size);
		ck_assert_uint_eq(get_u(c, it, r, "offset"), recs[i].offset);
		ck_assert_uint_eq(get_u(c, it, r, "alignment"),
		    recs[i].alignment);
		ck_assert_uint_eq(get_u(c, it, r, "format"), recs[i].format);
		ck_assert_uint_eq(get_u(c, it, r, "arg"), recs[i].arg);
		ck_assert_uint_eq(get_u(c, it, r, "uarg"), recs[i].uarg);
	}
}

/* ------------------------------------------------------------------ */

/* Every item kind, written and read back key by key. */
START_TEST(test_roundtrip)
{
	static const dtc_recdesc erecs[] = {
		{ .action = DTC_ACT_DIFEXPR, .alignment = 8, .format = 0,
		  .size = 8, .offset = 16, .arg = 0, .uarg = 1 },
		{ .action = DTC_ACT_PRINTF, .alignment = 1, .format = 3,
		  .size = 256, .offset = 24, .arg = UINT64_MAX,
		  .uarg = 0x8000000000000001ull },
	};
	static const dtc_recdesc arecs[] = {
		{ .action = DTC_ACT_DIFEXPR, .alignment = 8, .size = 8,
		  .offset = 8 },
		{ .action = DTC_AGG_QUANTIZE, .alignment = 8, .size = 512,
		  .offset = 16, .arg = 0 },
	};
	static const dtc_writer_usym usyms[] = {
		{ 0x401000, 64, "main" }, { 0x401040, 16, "" },
	};
	static const dtc_writer_map maps[] = {
		{ 0x400000, 0x410000, "/bin/sh", 2, usyms },
		{ 0x800000000, 0x800100000, "/lib/libc.so.7", 0, NULL },
	};
	dtc_probedesc pd = { 7, "syscall", "freebsd", "read", "entry", NULL };
	dtc_eprobedesc ep = { .epid = 3, .probeid = 7, .uarg = 1, .size = 280,
	    .nrecs = 2, .recs = erecs };
	dtc_aggdesc ad = { .id = 2, .epid = 3, .varid = -5, .name = "lat",
	    .size = 528, .flags = 1, .nrecs = 2, .recs = arecs };
	dtc_writer_status st = { .pass = 1, .began_on = 2, .ended_on = -1,
	    .exiting = 1, .exit_status = -3, .dynamic = 1, .dynrinse = 2,
	    .dyndirty = 3, .spec = 4, .specbusy = 5, .specunavail = 6,
	    .stkstroverflow = 7, .dblerrors = 8, .errors = UINT64_MAX };
	uint8_t small[13], *large;
	const size_t nlarge = 100000;
	dtc_writer_buf ab = { .pass = 1, .cpu = 0, .data = small,
	    .size = sizeof(small), .drops = 9 };
	dtc_writer_buf bb = { .pass = 1, .cpu = 3, .drops = 11, .errors = 12,
	    .oldest = 4096, .timestamp = 123456789012345ull };
	dtc_writer_buf eb = { .pass = 2, .cpu = 1, .data = NULL, .size = 0 };
	dtcp_container *c;
	dtcp_item it;
	const dtcp_node *n, *m, *s;
	dtc_writer *w;
	dtc_error err;
	mem mm;
	size_t i;

	for (i = 0; i < sizeof(small); i++)
		small[i] = (uint8_t)(0xf0 + i);
	large = malloc(nlarge);
	ck_assert_ptr_nonnull(large);
	for (i = 0; i < nlarge; i++)
		large[i] = (uint8_t)(i * 31 + (i >> 8));
	bb.data = large;
	bb.size = nlarge;

	w = new_writer(&mm);
	OK(dtc_writer_add_option(w, "quiet", NULL, 1, E));
	OK(dtc_writer_add_option(w, "bufpolicy", "ring", 0, E));
	OK(dtc_writer_add_option(w, "strsize", NULL, -2, E));
	OK(dtc_writer_add_probe(w, &pd, E));
	OK(dtc_writer_add_eprobe(w, &ep, E));
	OK(dtc_writer_add_agg(w, &ad, E));
	OK(dtc_writer_add_format(w, 3, "%d %s\n", E));
	OK(dtc_writer_add_clock(w, 1000, 1700000000000000000ull, E));
	OK(dtc_writer_ksyms_begin(w, 3, E));
	OK(dtc_writer_add_ksym(w, 0xffffffff80000000ull, 4096, "kernel",
	    "fop_read", E));
	OK(dtc_writer_add_ksym(w, 0xffffffff80001000ull, 16, "zfs", "zio", E));
	OK(dtc_writer_add_ksym(w, 0, 0, NULL, NULL, E));
	OK(dtc_writer_ksyms_end(w, E));
	OK(dtc_writer_add_proc(w, 100, "sh", 2, maps, E));
	OK(dtc_writer_add_status(w, &st, E));
	OK(dtc_writer_add_aggbuf(w, &ab, E));
	OK(dtc_writer_add_buf(w, &bb, E));
	OK(dtc_writer_add_buf(w, &eb, E));
	OK(dtc_writer_add_option(w, "aggsortrev", NULL, 1, E));
	OK(dtc_writer_end(w, -1, E));
	mem_close(&mm);

	dtc_error_clear(&err);
	c = dtcp_container_open_memory(mm.buf, mm.len, "rt", &err);
	ck_assert_ptr_nonnull(c);

	next_kind(c, &it, 0, "dtsnap");
	ck_assert_uint_eq(it.offset, 0);
	ck_assert_uint_eq(nkeys(&it), 11);
	n = get_n(c, &it, it.nodes, "version", DTCP_N_ARRAY);
	ck_assert_uint_eq(n->count, 2);
	ck_assert_uint_eq(dtcp_array_at(n, 0)->u, 1);
	ck_assert_uint_eq(dtcp_array_at(n, 1)->u, 4);
	check_text(c, &it, it.nodes, "byteorder", "little");
	check_text(c, &it, it.nodes, "model", "LP64");
	check_text(c, &it, it.nodes, "os", "freebsd");
	check_text(c, &it, it.nodes, "release", "14.1");
	check_text(c, &it, it.nodes, "host", "box");
	check_text(c, &it, it.nodes, "producer", "test_writer");
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "ncpu"), 4);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "dt_act_base"), 55);

	/* the three options, as one item, before the probe */
	next_kind(c, &it, 1, "options");
	ck_assert_uint_eq(nkeys(&it), 3);
	n = get_n(c, &it, it.nodes, "options", DTCP_N_MAP);
	ck_assert_uint_eq(n->count, 3);
	ck_assert_int_eq(get_i(c, &it, n, "quiet"), 1);
	check_text(c, &it, n, "bufpolicy", "ring");
	ck_assert_int_eq(get_i(c, &it, n, "strsize"), -2);

	next_kind(c, &it, 2, "probe");
	ck_assert_uint_eq(nkeys(&it), 7);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "id"), 7);
	check_text(c, &it, it.nodes, "provider", "syscall");
	check_text(c, &it, it.nodes, "module", "freebsd");
	check_text(c, &it, it.nodes, "function", "read");
	check_text(c, &it, it.nodes, "name", "entry");

	next_kind(c, &it, 3, "eprobe");
	ck_assert_uint_eq(nkeys(&it), 7);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "epid"), 3);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "probe"), 7);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "uarg"), 1);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "size"), 280);
	check_recs(c, &it, erecs, 2);

	next_kind(c, &it, 4, "agg");
	ck_assert_uint_eq(nkeys(&it), 9);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "id"), 2);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "epid"), 3);
	ck_assert_int_eq(get_i(c, &it, it.nodes, "varid"), -5);
	check_text(c, &it, it.nodes, "name", "lat");
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "size"), 528);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "flags"), 1);
	check_recs(c, &it, arecs, 2);

	next_kind(c, &it, 5, "format");
	ck_assert_uint_eq(nkeys(&it), 4);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "id"), 3);
	check_text(c, &it, it.nodes, "string", "%d %s\n");

	next_kind(c, &it, 6, "clock");
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "hrtime"), 1000);
	ck_assert(get_u(c, &it, it.nodes, "walltime") ==
	    1700000000000000000ull);

	next_kind(c, &it, 7, "ksyms");
	ck_assert_uint_eq(nkeys(&it), 3);
	n = get_n(c, &it, it.nodes, "symbols", DTCP_N_ARRAY);
	ck_assert_uint_eq(n->count, 3);
	s = dtcp_array_at(n, 1);
	ck_assert_int_eq(s->type, DTCP_N_ARRAY);
	ck_assert_uint_eq(s->count, 4);
	ck_assert(dtcp_array_at(s, 0)->u == 0xffffffff80001000ull);
	ck_assert_uint_eq(dtcp_array_at(s, 1)->u, 16);
	ck_assert_int_eq(dtcp_array_at(s, 2)->type, DTCP_N_TEXT);
	ck_assert_int_eq(memcmp(dtcp_array_at(s, 2)->ptr, "zfs", 3), 0);
	ck_assert_int_eq(memcmp(dtcp_array_at(s, 3)->ptr, "zio", 3), 0);
	s = dtcp_array_at(n, 2);
	ck_assert_uint_eq(dtcp_array_at(s, 2)->len, 0); /* NULL module: "" */

	next_kind(c, &it, 8, "proc");
	ck_assert_uint_eq(nkeys(&it), 5);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "pid"), 100);
	check_text(c, &it, it.nodes, "execname", "sh");
	n = get_n(c, &it, it.nodes, "maps", DTCP_N_ARRAY);
	ck_assert_uint_eq(n->count, 2);
	m = dtcp_array_at(n, 0);
	ck_assert_uint_eq(m->count, 4);
	ck_assert_uint_eq(get_u(c, &it, m, "start"), 0x400000);
	ck_assert_uint_eq(get_u(c, &it, m, "end"), 0x410000);
	check_text(c, &it, m, "path", "/bin/sh");
	s = get_n(c, &it, m, "symbols", DTCP_N_ARRAY);
	ck_assert_uint_eq(s->count, 2);
	ck_assert_uint_eq(dtcp_array_at(dtcp_array_at(s, 0), 0)->u, 0x401000);
	ck_assert_uint_eq(dtcp_array_at(dtcp_array_at(s, 0), 1)->u, 64);
	ck_assert_int_eq(memcmp(dtcp_array_at(dtcp_array_at(s, 0), 2)->ptr,
	    "main", 4), 0);
	ck_assert_uint_eq(dtcp_array_at(dtcp_array_at(s, 1), 0)->u, 0x401040);
	m = dtcp_array_at(n, 1);
	ck_assert(get_u(c, &it, m, "start") == 0x800000000ull);
	ck_assert(get_u(c, &it, m, "end") == 0x800100000ull);
	check_text(c, &it, m, "path", "/lib/libc.so.7");
	ck_assert_uint_eq(get_n(c, &it, m, "symbols", DTCP_N_ARRAY)->count, 0);

	next_kind(c, &it, 9, "status");
	ck_assert_uint_eq(nkeys(&it), 16);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "pass"), 1);
	ck_assert_int_eq(get_i(c, &it, it.nodes, "began_on"), 2);
	ck_assert_int_eq(get_i(c, &it, it.nodes, "ended_on"), -1);
	ck_assert_int_eq(get_i(c, &it, it.nodes, "exiting"), 1);
	ck_assert_int_eq(get_i(c, &it, it.nodes, "exit_status"), -3);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "dynamic"), 1);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "dynrinse"), 2);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "dyndirty"), 3);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "spec"), 4);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "specbusy"), 5);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "specunavail"), 6);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "stkstroverflow"), 7);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "dblerrors"), 8);
	ck_assert(get_u(c, &it, it.nodes, "errors") == UINT64_MAX);

	next_kind(c, &it, 10, "aggbuf");
	ck_assert_uint_eq(nkeys(&it), 6);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "pass"), 1);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "cpu"), 0);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "drops"), 9);
	check_bytes(c, &it, "data", small, sizeof(small));

	next_kind(c, &it, 11, "buf");
	ck_assert_uint_eq(nkeys(&it), 9);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "pass"), 1);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "cpu"), 3);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "drops"), 11);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "errors"), 12);
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "oldest"), 4096);
	ck_assert(get_u(c, &it, it.nodes, "timestamp") == 123456789012345ull);
	check_bytes(c, &it, "data", large, nlarge);

	next_kind(c, &it, 12, "buf");
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "pass"), 2);
	check_bytes(c, &it, "data", NULL, 0);

	/* an option after the last buffer is written before the end */
	next_kind(c, &it, 13, "options");
	n = get_n(c, &it, it.nodes, "options", DTCP_N_MAP);
	ck_assert_uint_eq(n->count, 1);
	ck_assert_int_eq(get_i(c, &it, n, "aggsortrev"), 1);

	next_kind(c, &it, 14, "end");
	ck_assert_uint_eq(nkeys(&it), 3);
	ck_assert_int_eq(get_i(c, &it, it.nodes, "exit_status"), -1);
	ck_assert_uint_eq(it.offset + it.size, mm.len);

	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
	free(mm.buf);
	free(large);
}
END_TEST

/* Exact bytes, written out by hand from RFC 8949. */
START_TEST(test_exact_bytes)
{
	uint8_t want[160];
	size_t n, before, after;
	dtc_writer *w;
	mem mm;

	w = new_writer(&mm);
	/* the whole legacy header, version 1.4 (numbered items, 1.3, and
	 * the program and dof kinds), the header itself item 0 */
	n = util_unhex(
	    "ab"                                /* map(11) */
	    "61 74 66 64 74 73 6e 61 70"        /* "t": "dtsnap" */
	    "63 73 65 71 00"                    /* "seq": 0 */
	    "67 76 65 72 73 69 6f 6e 82 01 04"  /* "version": [1, 4] */
	    "69 62 79 74 65 6f 72 64 65 72"     /* "byteorder" */
	    "66 6c 69 74 74 6c 65"              /* "little" */
	    "65 6d 6f 64 65 6c 64 4c 50 36 34"  /* "model": "LP64" */
	    "62 6f 73 67 66 72 65 65 62 73 64"  /* "os": "freebsd" */
	    "67 72 65 6c 65 61 73 65"           /* "release" */
	    "64 31 34 2e 31"                    /* "14.1" */
	    "64 68 6f 73 74 63 62 6f 78"        /* "host": "box" */
	    "64 6e 63 70 75 04"                 /* "ncpu": 4 */
	    "6b 64 74 5f 61 63 74 5f 62 61 73 65"
	    "18 37"                             /* "dt_act_base": 55 */
	    "68 70 72 6f 64 75 63 65 72"        /* "producer" */
	    "6b 74 65 73 74 5f 77 72 69 74 65 72", /* "test_writer" */
	    want, sizeof(want));
	before = mem_size(&mm);
	ck_assert_uint_eq(before, n);
	ck_assert_int_eq(memcmp(mm.buf, want, n), 0);

	/* {"t":"clock","seq":1,"hrtime":1000,"walltime":1700000000000000000} */
	OK(dtc_writer_add_clock(w, 1000, 1700000000000000000ull, E));
	after = mem_size(&mm);
	n = util_unhex(
	    "a4"                            /* map(4) */
	    "61 74"                         /* "t" */
	    "65 63 6c 6f 63 6b"             /* "clock" */
	    "63 73 65 71 01"                /* "seq": 1 */
	    "66 68 72 74 69 6d 65"          /* "hrtime" */
	    "19 03 e8"                      /* 1000 */
	    "68 77 61 6c 6c 74 69 6d 65"    /* "walltime" */
	    "1b 17 97 9c fe 36 2a 00 00",   /* 0x17979cfe362a0000 */
	    want, sizeof(want));
	ck_assert_uint_eq(after - before, n);
	ck_assert_int_eq(memcmp(mm.buf + before, want, n), 0);

	/* {"t":"end","seq":2,"exit_status":0} */
	OK(dtc_writer_end(w, 0, E));
	n = util_unhex("a3 61 74 63 65 6e 64 63 73 65 71 02"
	    "6b 65 78 69 74 5f 73 74 61 74 75 73 00", want, sizeof(want));
	ck_assert_uint_eq(mm.len - after, n);
	ck_assert_int_eq(memcmp(mm.buf + after, want, n), 0);
	mem_close(&mm);
	free(mm.buf);
}
END_TEST

/* A negative integer and a byte string: RFC 8949 3.1 major types 1, 2. */
START_TEST(test_exact_bytes_buf)
{
	static const uint8_t data[3] = { 0x01, 0x02, 0x03 };
	dtc_writer_buf b = { .pass = 1, .cpu = 0, .data = data, .size = 3,
	    .drops = 0 };
	dtc_writer_status st = { .pass = 24, .began_on = -1, .ended_on = -25,
	    .exiting = 0, .exit_status = 0 };
	uint8_t want[160];
	size_t n, before, after;
	dtc_writer *w;
	mem mm;

	w = new_writer(&mm);
	before = mem_size(&mm);
	OK(dtc_writer_add_aggbuf(w, &b, E));
	after = mem_size(&mm);
	n = util_unhex("a6 61 74 66 61 67 67 62 75 66"  /* "t":"aggbuf" */
	    "63 73 65 71 01"                            /* "seq": 1 */
	    "64 70 61 73 73 01"                         /* "pass": 1 */
	    "63 63 70 75 00"                            /* "cpu": 0 */
	    "64 64 61 74 61 43 01 02 03"                /* "data": h'010203' */
	    "65 64 72 6f 70 73 00",                     /* "drops": 0 */
	    want, sizeof(want));
	ck_assert_uint_eq(after - before, n);
	ck_assert_int_eq(memcmp(mm.buf + before, want, n), 0);

	OK(dtc_writer_add_status(w, &st, E));
	before = after;
	after = mem_size(&mm);
	n = util_unhex("b0 61 74 66 73 74 61 74 75 73"   /* "t":"status" */
	    "63 73 65 71 02"                             /* "seq": 2 */
	    "64 70 61 73 73 18 18"                       /* "pass": 24 */
	    "68 62 65 67 61 6e 5f 6f 6e 20"              /* "began_on": -1 */
	    "68 65 6e 64 65 64 5f 6f 6e 38 18"           /* "ended_on": -25 */
	    "67 65 78 69 74 69 6e 67 00"                 /* "exiting": 0 */
	    "6b 65 78 69 74 5f 73 74 61 74 75 73 00"     /* "exit_status": 0 */
	    "67 64 79 6e 61 6d 69 63 00"                 /* "dynamic": 0 */
	    "68 64 79 6e 72 69 6e 73 65 00"              /* "dynrinse": 0 */
	    "68 64 79 6e 64 69 72 74 79 00"              /* "dyndirty": 0 */
	    "64 73 70 65 63 00"                          /* "spec": 0 */
	    "68 73 70 65 63 62 75 73 79 00"              /* "specbusy": 0 */
	    "6b 73 70 65 63 75 6e 61 76 61 69 6c 00"     /* "specunavail": 0 */
	    "6e 73 74 6b 73 74 72 6f 76 65 72 66 6c 6f 77 00"
	                                                 /* "stkstroverflow" */
	    "69 64 62 6c 65 72 72 6f 72 73 00"           /* "dblerrors": 0 */
	    "66 65 72 72 6f 72 73 00",                   /* "errors": 0 */
	    want, sizeof(want));
	ck_assert_uint_eq(after - before, n);
	ck_assert_int_eq(memcmp(mm.buf + before, want, n), 0);
	dtc_writer_free(w);
	mem_close(&mm);
	free(mm.buf);
}
END_TEST

static const dtc_writer_header hdr_v2 = {
	.big_endian = 0, .ilp32 = 0, .os = "freebsd", .release = "14.1",
	.host = "box", .producer = "test_writer", .ncpu = 4,
	.dt_act_base = 55, .flavor = "dtrace-v2",
};

static dtc_writer *
new_writer_v2(mem *m)
{
	dtc_error err;
	dtc_writer *w;

	mem_open(m);
	dtc_error_clear(&err);
	w = dtc_writer_new(m->f, &hdr_v2, &err);
	ck_assert_msg(w != NULL, "dtc_writer_new: %s", err.text);
	return w;
}

/* A dtrace-v2 capture is numbered and 1.3 as a legacy one is. */
START_TEST(test_exact_bytes_v2)
{
	static const uint8_t data[2] = { 0x01, 0x02 };
	uint8_t want[160];
	size_t n, before, after;
	dtc_writer *w;
	mem mm;

	w = new_writer_v2(&mm);
	n = util_unhex(
	    "ac"                                /* map(12) */
	    "61 74 66 64 74 73 6e 61 70"        /* "t": "dtsnap" */
	    "63 73 65 71 00"                    /* "seq": 0 */
	    "67 76 65 72 73 69 6f 6e 82 01 04"  /* "version": [1, 4] */
	    "66 66 6c 61 76 6f 72"              /* "flavor" */
	    "69 64 74 72 61 63 65 2d 76 32"     /* "dtrace-v2" */
	    "69 62 79 74 65 6f 72 64 65 72"     /* "byteorder" */
	    "66 6c 69 74 74 6c 65"              /* "little" */
	    "65 6d 6f 64 65 6c 64 4c 50 36 34"  /* "model": "LP64" */
	    "62 6f 73 67 66 72 65 65 62 73 64"  /* "os": "freebsd" */
	    "67 72 65 6c 65 61 73 65"           /* "release" */
	    "64 31 34 2e 31"                    /* "14.1" */
	    "64 68 6f 73 74 63 62 6f 78"        /* "host": "box" */
	    "64 6e 63 70 75 04"                 /* "ncpu": 4 */
	    "6b 64 74 5f 61 63 74 5f 62 61 73 65"
	    "18 37"                             /* "dt_act_base": 55 */
	    "68 70 72 6f 64 75 63 65 72"        /* "producer" */
	    "6b 74 65 73 74 5f 77 72 69 74 65 72", /* "test_writer" */
	    want, sizeof(want));
	before = mem_size(&mm);
	ck_assert_uint_eq(before, n);
	ck_assert_int_eq(memcmp(mm.buf, want, n), 0);

	OK(dtc_writer_add_recs(w, 1, 0, data, sizeof(data), E));
	after = mem_size(&mm);
	n = util_unhex(
	    "a5 61 74 64 72 65 63 73"           /* map(5) "t": "recs" */
	    "63 73 65 71 01"                    /* "seq": 1 */
	    "64 70 61 73 73 01"                 /* "pass": 1 */
	    "63 63 70 75 00"                    /* "cpu": 0 */
	    "64 64 61 74 61 42 01 02",          /* "data": h'0102' */
	    want, sizeof(want));
	ck_assert_uint_eq(after - before, n);
	ck_assert_int_eq(memcmp(mm.buf + before, want, n), 0);

	OK(dtc_writer_add_drop(w, 1, 0, 1, 2, 3, "x", E));
	before = after;
	after = mem_size(&mm);
	n = util_unhex(
	    "a8 61 74 64 64 72 6f 70"           /* map(8) "t": "drop" */
	    "63 73 65 71 02"                    /* "seq": 2 */
	    "64 70 61 73 73 01"                 /* "pass": 1 */
	    "63 63 70 75 00"                    /* "cpu": 0 */
	    "64 6b 69 6e 64 01"                 /* "kind": 1 */
	    "65 64 72 6f 70 73 02"              /* "drops": 2 */
	    "65 74 6f 74 61 6c 03"              /* "total": 3 */
	    "63 6d 73 67 61 78",                /* "msg": "x" */
	    want, sizeof(want));
	ck_assert_uint_eq(after - before, n);
	ck_assert_int_eq(memcmp(mm.buf + before, want, n), 0);
	dtc_writer_free(w);
	mem_close(&mm);
	free(mm.buf);
}
END_TEST

/*
 * Every kind a dtrace-v2 capture holds, numbered in file order: options
 * written on the writer's own initiative take a number too, the streamed
 * aggsnap (flushed while its entries are added) one number, and past 23
 * the number takes two bytes (RFC 8949: 24 is 18 18).
 */
START_TEST(test_seq_v2)
{
	static const dtc_recdesc srecs[] = {
		{ .action = DTC_ACT_DIFEXPR, .size = 8, .offset = 16,
		  .alignment = 8 },
	};
	static const dtc_recdesc krecs[] = {
		{ .action = DTC_ACT_DIFEXPR, .size = 4, .offset = 0,
		  .alignment = 4 },
		{ .action = DTC_ACT_DIFEXPR, .size = 4, .offset = 4,
		  .alignment = 4 },
	};
	static const dtc_recdesc drecs[] = {
		{ .action = 0x701, .size = 8, .offset = 8, .alignment = 8 },
	};
	static const dtc_writer_usym usyms[] = { { 0x401000, 64, "main" } };
	static const dtc_writer_map maps[] = {
		{ 0x400000, 0x410000, "/bin/sh", 1, usyms },
	};
	static const uint64_t ids[] = { 5, 1 };
	static const char *const kinds[] = {
		"dtsnap", "options", "probe", "stmt", "aggdesc", "format",
		"ctf", "clock", "ksyms", "proc", "aggsnap", "recs", "drop",
		"fault", "recs", "recs", "recs", "recs", "recs", "recs", "recs",
		"recs", "recs", "recs", "interrupt", "options", "end"
	};
	const size_t nentries = 3000;
	dtc_probedesc pd = { 7, "profile", "", "", "tick-1s", NULL };
	dtc_stmtdesc sd = { .id = 1, .size = 24, .nrecs = 1, .recs = srecs };
	dtc_aggdesc_v2 ad = { .id = 1, .varid = 1, .name = "c", .ksize = 8,
	    .dsize = 16, .nkrecs = 2, .krecs = krecs, .ndrecs = 1,
	    .drecs = drecs };
	dtc_writer_fault f = { .pass = 1, .cpu = 0, .stid = 1, .probe = 7,
	    .action = 0, .offset = -1, .fault = 1, .addr = 0, .msg = "m" };
	uint8_t key[8] = { 1, 0, 0, 0 }, val[16] = { 0 }, rec[24] = { 20 };
	uint8_t want[32];
	dtcp_container *c;
	dtcp_item it;
	dtc_writer *w;
	dtc_error err;
	mem mm;
	size_t i, n;

	w = new_writer_v2(&mm);
	OK(dtc_writer_add_option(w, "quiet", NULL, 0, E));
	OK(dtc_writer_add_probe(w, &pd, E));
	OK(dtc_writer_add_stmt(w, &sd, E));
	OK(dtc_writer_add_aggdesc_v2(w, &ad, E));
	OK(dtc_writer_add_format(w, 1, "%d\n", E));
	OK(dtc_writer_add_ctf(w, "D", "ctf", 3, ids, 1, E));
	OK(dtc_writer_add_clock(w, 1000, 2000, E));
	OK(dtc_writer_ksyms_begin(w, 1, E));
	OK(dtc_writer_add_ksym(w, 0xffffffff80000000ull, 16, "vmlinux", "f", E));
	OK(dtc_writer_ksyms_end(w, E));
	OK(dtc_writer_add_proc(w, 100, "sh", 1, maps, E));
	OK(dtc_writer_aggsnap_begin(w, 1, nentries, E));
	for (i = 0; i < nentries; i++) {
		key[4] = (uint8_t)i;
		key[5] = (uint8_t)(i >> 8);
		OK(dtc_writer_add_aggsnap_entry(w, 1, key, sizeof(key), val,
		    sizeof(val), E));
	}
	OK(dtc_writer_aggsnap_end(w, E));
	OK(dtc_writer_add_recs(w, 1, 0, rec, sizeof(rec), E));
	OK(dtc_writer_add_drop(w, 1, 0, 1, 2, 2, "drops", E));
	OK(dtc_writer_add_fault(w, &f, E));
	for (i = 0; i < 10; i++)
		OK(dtc_writer_add_recs(w, 2, (int)i % 4, rec, sizeof(rec), E));
	OK(dtc_writer_add_interrupt(w, 3, E));
	OK(dtc_writer_add_option(w, "quiet", NULL, -2, E));
	OK(dtc_writer_end(w, 0, E));
	mem_close(&mm);

	dtc_error_clear(&err);
	c = dtcp_container_open_memory(mm.buf, mm.len, "v2", &err);
	ck_assert_ptr_nonnull(c);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		next_kind(c, &it, (long long)i, kinds[i]);
		if (strcmp(kinds[i], "aggsnap") == 0) {
			ck_assert_uint_gt(it.size, 64 * 1024);
			ck_assert_uint_eq(get_n(c, &it, it.nodes, "entries",
			    DTCP_N_ARRAY)->count, nentries);
		}
		if (i != 24)
			continue;
		/* {"t":"interrupt","seq":24,"pass":3} */
		n = util_unhex("a3 61 74 69 69 6e 74 65 72 72 75 70 74"
		    "63 73 65 71 18 18"
		    "64 70 61 73 73 03", want, sizeof(want));
		ck_assert_uint_eq(it.size, n);
		ck_assert_int_eq(memcmp(mm.buf + it.offset, want, n), 0);
	}
	ck_assert_uint_eq(it.offset + it.size, mm.len);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
	free(mm.buf);
}
END_TEST

/* The decoder takes the 1.4 capture of either flavor the writer writes
 * without a word. */
START_TEST(test_v13_decodes)
{
	dtc_probedesc pd = { 1, "dtrace", "", "", "BEGIN", NULL };
	const dtc_header *h;
	const dtc_event *ev;
	dtc_error err;
	dtc_reader *r;
	dtc_writer *w;
	mem mm;
	int rc, v2;

	for (v2 = 0; v2 <= 1; v2++) {
		w = v2 ? new_writer_v2(&mm) : new_writer(&mm);
		OK(dtc_writer_add_probe(w, &pd, E));
		OK(dtc_writer_end(w, 0, E));
		mem_close(&mm);
		dtc_error_clear(&err);
		r = dtc_reader_open_memory(mm.buf, mm.len, "mem", 0, &err);
		ck_assert_msg(r != NULL, "%s", err.text);
		do {
			dtc_error_clear(&err);
			rc = dtc_reader_next(r, &ev, &err);
		} while (rc == DTC_OK);
		ck_assert_msg(rc == DTC_EOF, "v2 %d: rc %d: %s", v2, rc,
		    err.text);
		/* read with the first item, so known only now */
		h = dtc_reader_header(r);
		ck_assert_int_eq(h->version_major, 1);
		ck_assert_int_eq(h->version_minor, 4);
		ck_assert_int_eq(h->v2, v2);
		dtc_reader_close(r);
		free(mm.buf);
	}
}
END_TEST

/*
 * What the numbers are for: an item cut out of a written capture whole,
 * leaving no damaged byte, is named by the reader.
 */
START_TEST(test_seq_names_a_deleted_item)
{
	dtc_probedesc pd[3] = {
		{ 1, "dtrace", "", "", "BEGIN", NULL },
		{ 2, "dtrace", "", "", "END", NULL },
		{ 3, "dtrace", "", "", "ERROR", NULL },
	};
	size_t off[5], i;
	dtcp_container *c;
	dtcp_item it;
	dtc_writer *w;
	dtc_error err;
	char *cut;
	mem mm;
	int rc;

	w = new_writer(&mm);
	off[0] = 0;
	for (i = 0; i < 3; i++) {
		off[i + 1] = mem_size(&mm);
		OK(dtc_writer_add_probe(w, &pd[i], E));
	}
	off[4] = mem_size(&mm);
	OK(dtc_writer_end(w, 0, E));
	mem_close(&mm);

	/* item 2 (the END probe) cut out */
	cut = malloc(mm.len);
	ck_assert_ptr_nonnull(cut);
	memcpy(cut, mm.buf, off[2]);
	memcpy(cut + off[2], mm.buf + off[3], mm.len - off[3]);
	c = dtcp_container_open_memory(cut, mm.len - (off[3] - off[2]), "cut",
	    NULL);
	ck_assert_ptr_nonnull(c);
	next_kind(c, &it, 0, "dtsnap");
	next_kind(c, &it, 1, "probe");
	dtc_error_clear(&err);
	rc = dtcp_container_next(c, &it, &err);
	ck_assert_int_eq(rc, DTC_WARN);
	ck_assert_dtc_error(&err, DTC_E_TRUNCATED, 2, (long long)off[2]);
	{
		char msg[128];

		snprintf(msg, sizeof(msg), "item 2 is missing before byte %zu "
		    "(the item there says it is item 3)", off[2]);
		ck_assert_str_eq(err.text, msg);
	}
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "probe");
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "id"), 3);
	dtcp_container_close(c);
	free(cut);
	free(mm.buf);
}
END_TEST

/* Without dtc_writer_end there is no end item; options still go out. */
START_TEST(test_no_end)
{
	dtc_probedesc pd = { 1, "dtrace", "", "", "BEGIN", NULL };
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	const dtcp_node *n;
	dtc_writer *w;
	mem mm;

	w = new_writer(&mm);
	OK(dtc_writer_add_probe(w, &pd, E));
	OK(dtc_writer_add_option(w, "quiet", NULL, 0, E));
	OK(dtc_writer_add_option(w, "quiet", "yes", 0, E));  /* replaces */
	dtc_writer_free(w);
	mem_close(&mm);

	c = dtcp_container_open_memory(mm.buf, mm.len, NULL, NULL);
	next_kind(c, &it, 0, "dtsnap");
	next_kind(c, &it, 1, "probe");
	next_kind(c, &it, 2, "options");
	n = get_n(c, &it, it.nodes, "options", DTCP_N_MAP);
	ck_assert_uint_eq(n->count, 1);
	check_text(c, &it, n, "quiet", "yes");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
	free(mm.buf);
}
END_TEST

/* A caller's dtc_error full of stack garbage (libdtconsume(3)'s example
 * once declared one without clearing it, and the first error wins): the
 * entry points clear it, so what it holds is the call's own result. */
START_TEST(test_error_cleared_on_entry)
{
	dtc_probedesc pd = { 1, "dtrace", "", "", "BEGIN", NULL };
	dtc_error init = DTC_ERROR_INIT;
	const dtc_event *ev;
	dtc_error err;
	dtc_reader *r;
	dtc_writer *w;
	mem mm;
	int rc, n = 0;

	ck_assert_int_eq(init.code, DTC_E_NONE);
	ck_assert_int_eq(init.cpu, -1);
	ck_assert_int_eq(init.item, -1);
	ck_assert_int_eq(init.offset, -1);
	ck_assert_str_eq(init.text, "");

	memset(&err, 'A', sizeof(err));
	ck_assert_ptr_null(dtc_reader_open_file("/nonexistent/x.dtsnap", 0, &err));
	ck_assert_int_eq(err.code, DTC_E_IO);

	w = new_writer(&mm);
	OK(dtc_writer_add_probe(w, &pd, E));
	ck_assert_int_eq(dtc_writer_end(w, 0, NULL), DTC_OK);
	mem_close(&mm);
	memset(&err, 'A', sizeof(err));
	r = dtc_reader_open_memory(mm.buf, mm.len, "mem", 0, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	for (;;) {
		memset(&err, 'A', sizeof(err));
		rc = dtc_reader_next(r, &ev, &err);
		if (rc != DTC_OK)
			break;
		ck_assert_int_eq(err.code, DTC_E_NONE);
		n++;
	}
	ck_assert_int_eq(rc, DTC_EOF);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	ck_assert_int_ge(n, 2);      /* BEGIN and END at least */
	memset(&err, 'A', sizeof(err));
	ck_assert_int_ne(dtc_reader_set_option(r, "no-such-option", NULL, &err),
	    DTC_OK);
	ck_assert_int_eq(err.code, DTC_E_BADOPTION);
	dtc_reader_close(r);
	free(mm.buf);
}
END_TEST

/* An option that is on, as a flag, reads 0 from dtc_reader_get_option (libdtrace
 * keeps set flags as 0): dtc_reader_option_isset says set or not plainly. */
START_TEST(test_option_isset)
{
	dtc_probedesc pd = { 1, "dtrace", "", "", "BEGIN", NULL };
	dtc_error err = DTC_ERROR_INIT;
	dtc_reader *r;
	dtc_writer *w;
	mem mm;

	w = new_writer(&mm);
	OK(dtc_writer_add_probe(w, &pd, E));
	ck_assert_int_eq(dtc_writer_end(w, 0, NULL), DTC_OK);
	mem_close(&mm);
	r = dtc_reader_open_memory(mm.buf, mm.len, "mem", 0, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(dtc_reader_option_isset(r, "quiet"), 0);
	ck_assert_int_eq(dtc_reader_get_option(r, "quiet"), DTC_OPT_UNSET);
	ck_assert_int_eq(dtc_reader_set_option(r, "quiet", NULL, &err), DTC_OK);
	ck_assert_int_eq(dtc_reader_option_isset(r, "quiet"), 1);
	ck_assert_int_eq(dtc_reader_get_option(r, "quiet"), 0);
	ck_assert_int_eq(dtc_reader_option_isset(r, "no-such-option"), -1);
	ck_assert_int_eq(dtc_reader_option_isset(r, "encoding"), 0);
	dtc_reader_close(r);
	free(mm.buf);
}
END_TEST

/* Header defaults: producer, dt_act_base by os, big-endian ILP32. */
START_TEST(test_header_defaults)
{
	dtc_writer_header h = { .big_endian = 1, .ilp32 = 1, .os = "illumos",
	    .ncpu = 1 };
	dtcp_container *c;
	dtcp_item it;
	dtc_writer *w;
	dtc_error err;
	char want[64];
	mem mm;

	mem_open(&mm);
	dtc_error_clear(&err);
	w = dtc_writer_new(mm.f, &h, &err);
	ck_assert_ptr_nonnull(w);
	dtc_writer_free(w);
	mem_close(&mm);
	c = dtcp_container_open_memory(mm.buf, mm.len, NULL, NULL);
	next_kind(c, &it, 0, "dtsnap");
	check_text(c, &it, it.nodes, "byteorder", "big");
	check_text(c, &it, it.nodes, "model", "ILP32");
	check_text(c, &it, it.nodes, "release", "");
	check_text(c, &it, it.nodes, "host", "");
	ck_assert_uint_eq(get_u(c, &it, it.nodes, "dt_act_base"), 49);
	snprintf(want, sizeof(want), "libdtconsume %s", dtc_version_string());
	check_text(c, &it, it.nodes, "producer", want);
	dtcp_container_close(c);
	free(mm.buf);
}
END_TEST

/* Short writes are DTC_E_IO and kill the writer. */
START_TEST(test_io_errors)
{
	dtc_probedesc pd = { 1, "dtrace", "", "", "BEGIN", NULL };
	dtc_writer *w;
	dtc_error err;
	FILE *f;

	f = fopen("/dev/full", "w");
	if (f == NULL)
		return;  /* no /dev/full here */
	setvbuf(f, NULL, _IONBF, 0);
	dtc_error_clear(&err);
	ck_assert_ptr_null(dtc_writer_new(f, &hdr, &err));
	ck_assert_int_eq(err.code, DTC_E_IO);
	ck_assert_int_eq(err.item, 0);
	ck_assert_int_eq(err.offset, 0);
	ck_assert_str_eq(err.text, "write failed at byte 0: No space left "
	    "on device");
	fclose(f);

	/* buffered: the failure shows when the end flushes */
	f = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(f);
	dtc_error_clear(&err);
	w = dtc_writer_new(f, &hdr, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(dtc_writer_add_probe(w, &pd, &err), DTC_OK);
	ck_assert_int_eq(dtc_writer_end(w, 0, &err), DTC_FATAL);
	ck_assert_int_eq(err.code, DTC_E_IO);
	ck_assert_int_eq(err.item, -1);
	ck_assert_str_eq(err.text, "write failed flushing the capture: "
	    "No space left on device");
	fclose(f);
}
END_TEST

START_TEST(test_misuse)
{
	dtc_probedesc pd = { 1, "dtrace", "", "", "BEGIN", NULL };
	dtc_writer *w;
	dtc_error err;
	mem mm;

	w = new_writer(&mm);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_writer_add_probe(w, NULL, &err), DTC_FAILED);
	ck_assert_int_eq(err.code, DTC_E_BADVALUE);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_writer_add_ksym(w, 1, 1, "m", "s", &err), DTC_FAILED);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_writer_add_option(w, NULL, "x", 0, &err),
	    DTC_FAILED);
	OK(dtc_writer_ksyms_begin(w, 2, E));
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_writer_add_probe(w, &pd, &err), DTC_FAILED);
	ck_assert_str_eq(err.text, "probe item while the ksyms item is open "
	    "(0 of 2 symbols written)");
	OK(dtc_writer_add_ksym(w, 1, 1, "m", "s", E));
	/* one symbol short: the item cannot be completed any more */
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_writer_ksyms_end(w, &err), DTC_FATAL);
	ck_assert_int_eq(err.code, DTC_E_BADVALUE);
	ck_assert_int_eq(err.item, 1);
	ck_assert_str_eq(err.text,
	    "ksyms item ended after 1 of the 2 symbols announced");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_writer_add_probe(w, &pd, &err), DTC_FATAL);
	ck_assert_str_eq(err.text,
	    "ksyms item ended after 1 of the 2 symbols announced");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_writer_end(w, 0, &err), DTC_FATAL);
	mem_close(&mm);
	free(mm.buf);

	dtc_error_clear(&err);
	ck_assert_ptr_null(dtc_writer_new(NULL, &hdr, &err));
	ck_assert_int_eq(err.code, DTC_E_BADVALUE);
	dtc_writer_free(NULL);
}
END_TEST

static Suite *
writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("writer");

	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_exact_bytes);
	tcase_add_test(tc, test_exact_bytes_buf);
	tcase_add_test(tc, test_exact_bytes_v2);
	tcase_add_test(tc, test_seq_v2);
	tcase_add_test(tc, test_v13_decodes);
	tcase_add_test(tc, test_seq_names_a_deleted_item);
	tcase_add_test(tc, test_no_end);
	tcase_add_test(tc, test_header_defaults);
	tcase_add_test(tc, test_io_errors);
	tcase_add_test(tc, test_misuse);
	tcase_add_test(tc, test_error_cleared_on_entry);
	tcase_add_test(tc, test_option_isset);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return util_run_suite(writer_suite());
}
