/*
 * test_container.c - the .dtsnap container reader.
 *
 * Inputs are CBOR written out by hand from RFC 8949 (one head per line,
 * offsets counted by hand in the comments), not produced by the writer,
 * so a bug shared by writer and reader cannot hide.
 */
#include <check.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtc_private.h"
#include "util.h"

/*
 * A small complete capture.  Item offsets: 0, 49, 89, 113, 126; 146 bytes.
 */
static const char capture_hex[] =
    /* item 0 @0: {"t":"dtsnap","version":[1,9],"byteorder":"little",
     *             "model":"LP64"} */
    "a4"                          /* @0  map(4) */
    "61 74"                       /* @1  "t" */
    "66 64 74 73 6e 61 70"        /* @3  "dtsnap" */
    "67 76 65 72 73 69 6f 6e"     /* @10 "version" */
    "82 01 09"                    /* @18 [1, 9] */
    "69 62 79 74 65 6f 72 64 65 72" /* @21 "byteorder" */
    "66 6c 69 74 74 6c 65"        /* @31 "little" */
    "65 6d 6f 64 65 6c"           /* @38 "model" */
    "64 4c 50 36 34"              /* @44 "LP64" */
    /* item 1 @49: {"t":"probe","id":1,"provider":"dtrace","name":"BEGIN"} */
    "a4"                          /* @49 */
    "61 74 65 70 72 6f 62 65"     /* @50 "t", @52 "probe" */
    "62 69 64 01"                 /* @58 "id", @61 1 */
    "68 70 72 6f 76 69 64 65 72"  /* @62 "provider" */
    "66 64 74 72 61 63 65"        /* @71 "dtrace" */
    "64 6e 61 6d 65"              /* @78 "name" */
    "65 42 45 47 49 4e"           /* @83 "BEGIN" */
    /* item 2 @89: {"t":"buf","data":h'deadbeef',"zz":[true,null,-2]} */
    "a3"                          /* @89 */
    "61 74 63 62 75 66"           /* @90 "t", @92 "buf" */
    "64 64 61 74 61"              /* @96 "data" */
    "44 de ad be ef"              /* @101 h'deadbeef', bytes at 102 */
    "62 7a 7a"                    /* @106 "zz" */
    "83 f5 f6 21"                 /* @109 [true, null, -2] */
    /* item 3 @113: {"t":"future","x":1} (a kind this reader does not know) */
    "a2 61 74 66 66 75 74 75 72 65 61 78 01"
    /* item 4 @126: {"t":"end","exit_status":0} */
    "a2 61 74 63 65 6e 64 6b 65 78 69 74 5f 73 74 61 74 75 73 00";

static const size_t item_off[] = { 0, 49, 89, 113, 126 };
static const char *const item_kind[] = {
	"dtsnap", "probe", "buf", "future", "end"
};
#define NITEMS 5
#define CAPLEN 146

/* The header alone, to build bad inputs after it. */
#define HEADER_HEX \
    "a4 61 74 66 64 74 73 6e 61 70 67 76 65 72 73 69 6f 6e 82 01 09" \
    "69 62 79 74 65 6f 72 64 65 72 66 6c 69 74 74 6c 65" \
    "65 6d 6f 64 65 6c 64 4c 50 36 34"
#define HEADER_LEN 49

/* {"t":"probe","id":1}: 13 bytes */
#define PROBE_HEX "a2 61 74 65 70 72 6f 62 65 62 69 64 01"
/* {"t":"end","exit_status":0}: 20 bytes */
#define END_HEX "a2 61 74 63 65 6e 64 6b 65 78 69 74 5f 73 74 61 74 75 73 00"

static void
load_capture(uint8_t *cap)
{
	ck_assert_uint_eq(util_unhex(capture_hex, cap, CAPLEN), CAPLEN);
}

static dtcp_container *
open_mem(const uint8_t *p, size_t len)
{
	dtc_error err;
	dtcp_container *c;

	dtc_error_clear(&err);
	c = dtcp_container_open_memory(p, len, NULL, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	return c;
}

/* Decode hex after the header; returns the container (bytes in *buf). */
static dtcp_container *
open_after_header(const char *hex, uint8_t *buf, size_t bufsz, size_t *len)
{
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;

	*len = util_unhex(HEADER_HEX, buf, bufsz);
	ck_assert_uint_eq(*len, HEADER_LEN);
	*len += util_unhex(hex, buf + *len, bufsz - *len);
	c = open_mem(buf, *len);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "dtsnap");
	return c;
}

/*
 * Every node of an item lies inside the input and the preorder tree is
 * consistent: the children of a container end exactly at its span.
 */
static void
check_tree(const dtcp_item *it, const uint8_t *in, size_t len)
{
	size_t i;

	for (i = 0; i < it->nnodes; i++) {
		const dtcp_node *n = &it->nodes[i], *k;
		uint64_t nkids, j;

		ck_assert_uint_ge(n->span, 1);
		ck_assert_uint_le(i + n->span, it->nnodes);
		ck_assert_uint_ge(n->offset, it->offset);
		ck_assert_uint_lt(n->offset, it->offset + it->size);
		if (n->type == DTCP_N_BYTES || n->type == DTCP_N_TEXT) {
			ck_assert(n->ptr >= in && n->ptr <= in + len);
			ck_assert_uint_le(n->len, (size_t)(in + len - n->ptr));
		}
		if (n->type != DTCP_N_ARRAY && n->type != DTCP_N_MAP &&
		    n->type != DTCP_N_TAG)
			continue;
		nkids = n->type == DTCP_N_MAP ? 2 * (uint64_t)n->count :
		    n->type == DTCP_N_TAG ? 1 : n->count;
		for (j = 0, k = n + 1; j < nkids; j++)
			k = dtcp_next_sibling(k);
		ck_assert_ptr_eq(k, n + n->span);
	}
}

/* ------------------------------------------------------------------ */

START_TEST(test_items_and_nodes)
{
	uint8_t cap[CAPLEN];
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	const dtcp_node *n;
	int i;

	load_capture(cap);
	c = open_mem(cap, CAPLEN);
	ck_assert_str_eq(dtcp_container_source(c), "<memory>");
	ck_assert_int_eq(dtcp_container_stable(c), 1);
	for (i = 0; i < NITEMS; i++) {
		dtc_error_clear(&err);
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
		ck_assert_int_eq(it.index, i);
		ck_assert_uint_eq(it.offset, item_off[i]);
		ck_assert_uint_eq(it.size, (i + 1 < NITEMS ? item_off[i + 1] :
		    CAPLEN) - item_off[i]);
		ck_assert_str_eq(it.kind, item_kind[i]);
		check_tree(&it, cap, CAPLEN);
		if (i == 0) {
			/* map, t, dtsnap, version, [, 1, 0, byteorder,
			 * little, model, LP64 */
			ck_assert_uint_eq(it.nnodes, 11);
			ck_assert_int_eq(it.nodes[0].type, DTCP_N_MAP);
			ck_assert_uint_eq(it.nodes[0].count, 4);
			ck_assert_uint_eq(it.nodes[0].span, 11);
			n = &it.nodes[4];
			ck_assert_int_eq(n->type, DTCP_N_ARRAY);
			ck_assert_uint_eq(n->count, 2);
			ck_assert_uint_eq(n->span, 3);
			ck_assert_uint_eq(n->offset, 18);
			ck_assert_uint_eq(it.nodes[5].u, 1);
			ck_assert_uint_eq(it.nodes[5].offset, 19);
			ck_assert_uint_eq(it.nodes[6].u, 9);
			ck_assert_uint_eq(it.nodes[6].offset, 20);
			n = &it.nodes[10];
			ck_assert_int_eq(n->type, DTCP_N_TEXT);
			ck_assert_uint_eq(n->offset, 44);
			ck_assert_uint_eq(n->len, 4);
			ck_assert_ptr_eq(n->ptr, cap + 45);
			ck_assert_ptr_eq(dtcp_map_get(it.nodes, "model"), n);
			ck_assert_ptr_eq(dtcp_map_get(it.nodes, "version"),
			    &it.nodes[4]);
			ck_assert_ptr_eq(dtcp_array_at(&it.nodes[4], 1),
			    &it.nodes[6]);
			ck_assert_ptr_null(dtcp_array_at(&it.nodes[4], 2));
		}
		if (i == 2) {
			/* map, t, buf, data, h'', zz, [, true, null, -2 */
			ck_assert_uint_eq(it.nnodes, 10);
			n = dtcp_map_get(it.nodes, "data");
			ck_assert_ptr_eq(n, &it.nodes[4]);
			ck_assert_int_eq(n->type, DTCP_N_BYTES);
			ck_assert_uint_eq(n->offset, 101);
			ck_assert_uint_eq(n->len, 4);
			/* zero copy: the node points into the input */
			ck_assert_ptr_eq(n->ptr, cap + 102);
			n = dtcp_map_get(it.nodes, "zz");
			ck_assert_int_eq(n->type, DTCP_N_ARRAY);
			ck_assert_uint_eq(n->span, 4);
			ck_assert_uint_eq(n->offset, 109);
			ck_assert_int_eq(n[1].type, DTCP_N_BOOL);
			ck_assert_uint_eq(n[1].u, 1);
			ck_assert_int_eq(n[2].type, DTCP_N_NULL);
			ck_assert_int_eq(n[3].type, DTCP_N_NEGINT);
			ck_assert_uint_eq(n[3].u, 1);  /* -1 - 1 = -2 */
			ck_assert_uint_eq(n[3].offset, 112);
			ck_assert_ptr_eq(dtcp_next_sibling(n), it.nodes + 10);
			ck_assert_ptr_null(dtcp_map_get(it.nodes, "absent"));
		}
	}
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	/* EOF sticks */
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
}
END_TEST

START_TEST(test_getters)
{
	uint8_t cap[CAPLEN];
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	uint64_t u = 77;
	int64_t i = 77;
	const char *s;
	const uint8_t *p;
	const dtcp_node *n;
	size_t len;
	char buf[256];

	load_capture(cap);
	c = open_mem(cap, CAPLEN);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_str_eq(it.kind, "probe");

	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_u64(c, &it, it.nodes, "id", 1, &u, &err),
	    DTC_OK);
	ck_assert_uint_eq(u, 1);
	ck_assert_int_eq(dtcp_get_i64(c, &it, it.nodes, "id", 1, &i, &err),
	    DTC_OK);
	ck_assert_int_eq(i, 1);
	ck_assert_int_eq(dtcp_get_text(c, &it, it.nodes, "name", 1, &s, &len,
	    &err), DTC_OK);
	ck_assert_uint_eq(len, 5);
	ck_assert_ptr_eq(s, (const char *)cap + 84);
	ck_assert_int_eq(memcmp(s, "BEGIN", 5), 0);

	/* optional and missing: DTC_EOF, value untouched, no error */
	u = 77;
	ck_assert_int_eq(dtcp_get_u64(c, &it, it.nodes, "module", 0, &u, &err),
	    DTC_EOF);
	ck_assert_uint_eq(u, 77);
	ck_assert_int_eq(err.code, DTC_E_NONE);

	/* required and missing */
	ck_assert_int_eq(dtcp_get_text(c, &it, it.nodes, "function", 1, &s,
	    &len, &err), DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_MISSINGKEY, 1, 49);
	ck_assert_str_eq(err.text, "probe item 1 has no key 'function'");
	ck_assert_str_eq(err.source, "<memory>");

	/* wrong type: the offset is the value's */
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_u64(c, &it, it.nodes, "provider", 1, &u,
	    &err), DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_KEYTYPE, 1, 71);
	ck_assert_str_eq(err.text,
	    "key 'provider' of probe item 1 is text, not an unsigned integer");
	dtc_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "<memory>: item 1, offset 71: key 'provider' "
	    "of probe item 1 is text, not an unsigned integer");
	/* a wrong type fails even for an optional key */
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_bytes(c, &it, it.nodes, "id", 0, &p, &len,
	    &err), DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_KEYTYPE, 1, 61);
	ck_assert_str_eq(err.text,
	    "key 'id' of probe item 1 is an unsigned integer, not a byte string");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_node(c, &it, it.nodes, "name", DTCP_N_ARRAY,
	    1, &n, &err), DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_KEYTYPE, 1, 83);

	/* buf item: bytes, a signed value, nodes */
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_str_eq(it.kind, "buf");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_bytes(c, &it, it.nodes, "data", 1, &p, &len,
	    &err), DTC_OK);
	ck_assert_ptr_eq(p, cap + 102);
	ck_assert_uint_eq(len, 4);
	ck_assert_int_eq(dtcp_get_node(c, &it, it.nodes, "zz", DTCP_N_ARRAY,
	    1, &n, &err), DTC_OK);
	ck_assert_uint_eq(n->count, 3);
	ck_assert_uint_eq(n->offset, 109);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_i64(c, &it, it.nodes, "zz", 1, &i, &err),
	    DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_KEYTYPE, 2, 109);
	ck_assert_str_eq(err.text,
	    "key 'zz' of buf item 2 is an array, not an integer");
	dtcp_container_close(c);
}
END_TEST

/* Signed values at the edges of int64, and beyond. */
START_TEST(test_getters_signed)
{
	uint8_t buf[256];
	size_t len;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	int64_t v;
	uint64_t u;

	c = open_after_header(
	    "a5 61 74 61 73"                        /* @49 {"t":"s", */
	    "61 61 3b 7f ff ff ff ff ff ff ff"      /* @54 "a": INT64_MIN */
	    "61 62 3b 80 00 00 00 00 00 00 00"      /* @65 "b": -2^63-1 */
	    "61 63 1b ff ff ff ff ff ff ff ff"      /* @76 "c": UINT64_MAX */
	    "61 64 20",                             /* @87 "d": -1} */
	    buf, sizeof(buf), &len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_i64(c, &it, it.nodes, "a", 1, &v, &err),
	    DTC_OK);
	ck_assert(v == INT64_MIN);
	ck_assert_int_eq(dtcp_get_i64(c, &it, it.nodes, "d", 1, &v, &err),
	    DTC_OK);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(dtcp_get_u64(c, &it, it.nodes, "c", 1, &u, &err),
	    DTC_OK);
	ck_assert(u == UINT64_MAX);
	ck_assert_int_eq(dtcp_get_i64(c, &it, it.nodes, "b", 1, &v, &err),
	    DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_BADVALUE, 1, 67);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_i64(c, &it, it.nodes, "c", 1, &v, &err),
	    DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_BADVALUE, 1, 78);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_u64(c, &it, it.nodes, "d", 1, &u, &err),
	    DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_KEYTYPE, 1, 89);
	ck_assert_str_eq(err.text, "key 'd' of s item 1 is a negative "
	    "integer, not an unsigned integer");
	dtcp_container_close(c);
}
END_TEST

/* Indefinite-length maps and arrays are read; counts and spans are set. */
START_TEST(test_indefinite_containers)
{
	uint8_t buf[256];
	size_t len;
	dtcp_container *c;
	dtcp_item it;
	const dtcp_node *n;

	c = open_after_header(
	    "bf"                     /* @49 {_ */
	    "61 74 61 70"            /* "t": "p" */
	    "61 61 9f 01 02 03 ff"   /* @54 "a": [_ 1, 2, 3] (array @56) */
	    "61 62 80"               /* @61 "b": [] */
	    "ff"                     /* @64 } */
	    "a1 61 74 61 71",        /* @65 {"t":"q"} */
	    buf, sizeof(buf), &len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_str_eq(it.kind, "p");
	ck_assert_uint_eq(it.size, 16);
	ck_assert_uint_eq(it.nodes[0].count, 3);
	ck_assert_uint_eq(it.nodes[0].span, 10);
	n = dtcp_map_get(it.nodes, "a");
	ck_assert_uint_eq(n->offset, 56);
	ck_assert_uint_eq(n->count, 3);
	ck_assert_uint_eq(n->span, 4);
	ck_assert_uint_eq(dtcp_array_at(n, 2)->u, 3);
	n = dtcp_map_get(it.nodes, "b");
	ck_assert_uint_eq(n->count, 0);
	ck_assert_uint_eq(n->span, 1);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_str_eq(it.kind, "q");
	ck_assert_uint_eq(it.offset, 65);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_EOF);
	dtcp_container_close(c);
}
END_TEST

/* Kinds are bounded copies; a NUL or great length makes them unknown. */
START_TEST(test_kind_copy)
{
	uint8_t buf[256];
	size_t len;
	dtcp_container *c;
	dtcp_item it;

	c = open_after_header(
	    "a1 61 74 66 70 72 6f 62 00 65"   /* @49 {"t":"prob\0e"} */
	    "a1 61 74 78 28"                  /* @59 {"t": 40 x "a"} */
	    "61616161616161616161 61616161616161616161"
	    "61616161616161616161 61616161616161616161",
	    buf, sizeof(buf), &len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_str_eq(it.kind, "prob?e");
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_uint_eq(strlen(it.kind), 31);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_EOF);
	dtcp_container_close(c);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Truncation: every cut length of a valid capture                     */
/* ------------------------------------------------------------------ */

enum via { VIA_MEMORY, VIA_FILE, VIA_PIPE, VIA_FD };

/*
 * Read the first cut bytes of cap via the given input and check that
 * every item completed before the cut comes back, then EOF at an item
 * boundary or "capture cut short" naming the cut item and its offset.
 */
static void
check_cut(const uint8_t *cap, size_t cut, enum via via)
{
	char path[64], want[sizeof(((dtc_error *)0)->text)];
	dtcp_container *c;
	util_feeder f = { -1, -1 };
	dtcp_item it;
	dtc_error err;
	size_t complete = 0, k;
	int rc, fd = -1;

	while (complete < NITEMS && (complete + 1 < NITEMS ?
	    item_off[complete + 1] : CAPLEN) <= cut)
		complete++;
	dtc_error_clear(&err);
	switch (via) {
	case VIA_MEMORY:
		c = dtcp_container_open_memory(cap, cut, "cut", &err);
		break;
	case VIA_FILE:
		util_tmpfile(cap, cut, path);
		c = dtcp_container_open_file(path, &err);
		unlink(path);
		break;
	case VIA_FD:
		util_tmpfile(cap, cut, path);
		fd = open(path, O_RDONLY);
		ck_assert_int_ge(fd, 0);
		c = dtcp_container_open_fd(fd, "cut", &err);
		unlink(path);
		break;
	default:
		f = util_feed(cap, cut, 7, 0);
		c = dtcp_container_open_fd(f.fd, "cut", &err);
		break;
	}
	ck_assert_ptr_nonnull(c);
	/* only the caller's memory stays: files are read, not mapped */
	ck_assert_int_eq(dtcp_container_stable(c), via == VIA_MEMORY);
	if (cut == 0) {
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_FATAL);
		ck_assert_dtc_error(&err, DTC_E_BADHEADER, 0, 0);
		ck_assert_str_eq(err.text, "empty file (0 bytes): not a "
		    "capture");
		goto done;
	}
	for (k = 0; k < complete; k++) {
		rc = dtcp_container_next(c, &it, &err);
		ck_assert_msg(rc == DTC_OK, "cut %zu via %d: item %zu: rc %d "
		    "(%s)", cut, via, k, rc, err.text);
		ck_assert_int_eq(it.index, (long long)k);
		ck_assert_uint_eq(it.offset, item_off[k]);
		ck_assert_str_eq(it.kind, item_kind[k]);
	}
	rc = dtcp_container_next(c, &it, &err);
	if (cut > 0 && (complete == NITEMS || item_off[complete] == cut)) {
		ck_assert_msg(rc == DTC_EOF, "cut %zu via %d: rc %d (%s)", cut,
		    via, rc, err.text);
		ck_assert_int_eq(err.code, DTC_E_NONE);
	} else {
		ck_assert_msg(rc == DTC_FATAL, "cut %zu via %d: rc %d", cut,
		    via, rc);
		ck_assert_dtc_error(&err, DTC_E_TRUNCATED, (long long)complete,
		    (long long)item_off[complete]);
		/* what was declared and is missing follows (exact texts in
		 * test_absurd_sizes and testdata/bad) */
		snprintf(want, sizeof(want), "capture cut short at byte %zu",
		    item_off[complete]);
		ck_assert_msg(strncmp(err.text, want, strlen(want)) == 0 &&
		    (err.text[strlen(want)] == '\0' ||
		    err.text[strlen(want)] == ':'), "cut %zu: %s", cut,
		    err.text);
		snprintf(want, sizeof(want), "%s", err.text);
		ck_assert_str_eq(err.source, via == VIA_FILE ? path : "cut");
		/* FATAL sticks, with the same error */
		dtc_error_clear(&err);
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_FATAL);
		ck_assert_int_eq(err.code, DTC_E_TRUNCATED);
		ck_assert_str_eq(err.text, want);
	}
done:
	dtcp_container_close(c);
	if (fd >= 0)
		close(fd);
	if (via == VIA_PIPE)
		util_feed_done(&f);
}

START_TEST(test_truncated_every_length)
{
	uint8_t cap[CAPLEN];
	size_t cut;

	load_capture(cap);
	for (cut = 0; cut <= CAPLEN; cut++) {
		check_cut(cap, cut, VIA_MEMORY);
		check_cut(cap, cut, VIA_FILE);
		check_cut(cap, cut, VIA_FD);
		check_cut(cap, cut, VIA_PIPE);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Pipes                                                               */
/* ------------------------------------------------------------------ */

/* One byte per write: every head may arrive split. */
START_TEST(test_pipe_bytewise)
{
	uint8_t cap[CAPLEN];
	util_feeder f;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	const uint8_t *p;
	size_t len;
	char name[32];
	int i;

	load_capture(cap);
	f = util_feed(cap, CAPLEN, 1, 200);
	dtc_error_clear(&err);
	c = dtcp_container_open_fd(f.fd, NULL, &err);
	ck_assert_ptr_nonnull(c);
	snprintf(name, sizeof(name), "<fd %d>", f.fd);
	ck_assert_str_eq(dtcp_container_source(c), name);
	for (i = 0; i < NITEMS; i++) {
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
		ck_assert_uint_eq(it.offset, item_off[i]);
		ck_assert_str_eq(it.kind, item_kind[i]);
		if (i == 2) {
			ck_assert_int_eq(dtcp_get_bytes(c, &it, it.nodes,
			    "data", 1, &p, &len, &err), DTC_OK);
			ck_assert_uint_eq(len, 4);
			ck_assert_int_eq(memcmp(p, cap + 102, 4), 0);
			ck_assert_uint_eq(dtcp_map_get(it.nodes, "data")->offset,
			    101);
		}
	}
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
	util_feed_done(&f);
}
END_TEST

/* A 3 MiB byte string through a pipe: the buffer grows to hold it. */
START_TEST(test_pipe_large_item)
{
	const size_t big = 3u << 20;
	uint8_t *in, *data;
	size_t len, hlen, i;
	util_feeder f;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	const uint8_t *p;

	in = malloc(HEADER_LEN + 32 + big + 32);
	ck_assert_ptr_nonnull(in);
	hlen = util_unhex(HEADER_HEX, in, HEADER_LEN);
	len = hlen + util_unhex(
	    "a2 61 74 63 62 75 66"      /* @49 {"t":"buf", */
	    "64 64 61 74 61"            /* @56 "data": */
	    "5a 00 30 00 00",           /* @61 h'...' (3 MiB) */
	    in + hlen, 32);
	data = in + len;
	for (i = 0; i < big; i++)
		data[i] = (uint8_t)(i * 7 + (i >> 13));
	len += big;
	/* then {"t":"end","exit_status":0} */
	len += util_unhex("a2 61 74 63 65 6e 64 6b 65 78 69 74 5f 73 74 61 74"
	    "75 73 00", in + len, 32);

	f = util_feed(in, len, 65536 + 3, 0);
	dtc_error_clear(&err);
	c = dtcp_container_open_fd(f.fd, "<stdin>", &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(dtcp_container_source(c), "<stdin>");
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "buf");
	ck_assert_uint_eq(it.size, 17 + big);
	ck_assert_int_eq(dtcp_get_bytes(c, &it, it.nodes, "data", 1, &p,
	    &len, &err), DTC_OK);
	ck_assert_uint_eq(len, big);
	ck_assert_int_eq(memcmp(p, data, big), 0);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "end");
	ck_assert_uint_eq(it.offset, 66 + big);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
	util_feed_done(&f);
	free(in);
}
END_TEST

/*
 * A regular file: read, not mapped, so an item's bytes are the reader's
 * until the next call (not stable); a directory is refused at open.
 */
START_TEST(test_file_read)
{
	uint8_t cap[CAPLEN];
	char path[64];
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	const uint8_t *p0;
	size_t len;

	load_capture(cap);
	util_tmpfile(cap, CAPLEN, path);
	dtc_error_clear(&err);
	c = dtcp_container_open_file(path, &err);
	unlink(path);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(dtcp_container_stable(c), 0);
	ck_assert_str_eq(dtcp_container_source(c), path);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_int_eq(dtcp_get_bytes(c, &it, it.nodes, "data", 1, &p0,
	    &len, &err), DTC_OK);
	ck_assert_uint_eq(len, 4);
	ck_assert_int_eq(memcmp(p0, "\xde\xad\xbe\xef", 4), 0);
	ck_assert_uint_eq(dtcp_map_get(it.nodes, "data")->offset, 101);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "end");
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);

	dtc_error_clear(&err);
	ck_assert_ptr_null(dtcp_container_open_file("/nonexistent/x.dtsnap",
	    &err));
	ck_assert_int_eq(err.code, DTC_E_IO);
	ck_assert_str_eq(err.source, "/nonexistent/x.dtsnap");
	ck_assert_str_eq(err.text, "cannot open: No such file or directory");

	dtc_error_clear(&err);
	ck_assert_ptr_null(dtcp_container_open_file("/", &err));
	ck_assert_int_eq(err.code, DTC_E_IO);
	ck_assert_str_eq(err.text, "is a directory");
}
END_TEST

/*
 * A capture of header, one buf item of big bytes and an end item, in a
 * file: more than the reader's first read (64 KiB) takes.
 */
#define BIG (200u * 1024)
static size_t
big_capture(uint8_t *in)
{
	size_t len = util_unhex(HEADER_HEX, in, HEADER_LEN), i;

	len += util_unhex(
	    "a2 61 74 63 62 75 66"      /* @49 {"t":"buf", */
	    "64 64 61 74 61"            /* @56 "data": */
	    "5a 00 03 20 00",           /* @61 h'...' (200 KiB) at 66 */
	    in + len, 32);
	for (i = 0; i < BIG; i++)
		in[len + i] = (uint8_t)(i * 13 + 5);
	len += BIG;
	/* @66+BIG: {"t":"end","exit_status":0} (20 bytes) */
	len += util_unhex("a2 61 74 63 65 6e 64 6b 65 78 69 74 5f 73 74 61 74"
	    "75 73 00", in + len, 32);
	return len;
}

/*
 * Another process truncates the file while it is read: no SIGBUS (files
 * are not mapped), but "capture truncated while reading at byte N" where
 * the bytes ran out, after every item read before.
 */
START_TEST(test_file_truncated_while_read)
{
	uint8_t *in = malloc(HEADER_LEN + 64 + BIG);
	char path[64];
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	size_t len;

	ck_assert_ptr_nonnull(in);
	len = big_capture(in);
	util_tmpfile(in, len, path);
	dtc_error_clear(&err);
	c = dtcp_container_open_file(path, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "dtsnap");
	/* the first read took 64 KiB; the buf item needs 200 more */
	ck_assert_int_eq(truncate(path, 100000), 0);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_FATAL);
	ck_assert_dtc_error(&err, DTC_E_TRUNCATED, 1, 100000);
	ck_assert_str_eq(err.text, "capture truncated while reading at byte "
	    "100000");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_FATAL);
	ck_assert_str_eq(err.text, "capture truncated while reading at byte "
	    "100000");
	dtcp_container_close(c);
	unlink(path);
	free(in);
}
END_TEST

/* A file that grows while it is read: what it held at open is decoded,
 * what was appended after is not read (dtsnap(5)). */
START_TEST(test_file_grown_while_read)
{
	uint8_t *in = malloc(HEADER_LEN + 64 + BIG), more[32];
	char path[64];
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	size_t len, n;
	int fd;

	ck_assert_ptr_nonnull(in);
	len = big_capture(in);
	util_tmpfile(in, len, path);
	dtc_error_clear(&err);
	c = dtcp_container_open_file(path, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	/* {"t":"future","x":1}, appended */
	n = util_unhex("a2 61 74 66 66 75 74 75 72 65 61 78 01", more,
	    sizeof(more));
	fd = open(path, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, more, n), (ssize_t)n);
	close(fd);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "buf");
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "end");
	ck_assert_uint_eq(it.offset, 66 + BIG);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	dtcp_container_close(c);
	unlink(path);
	free(in);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad input, one class at a time                                      */
/* ------------------------------------------------------------------ */

/* The first error of decoding header + hex: (rc, code, item, offset). */
static void
expect_after_header(const char *hex, int rc, int code, long long item,
    long long offset, const char *text)
{
	uint8_t buf[512];
	size_t len;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	int r;

	c = open_after_header(hex, buf, sizeof(buf), &len);
	dtc_error_clear(&err);
	while ((r = dtcp_container_next(c, &it, &err)) == DTC_OK)
		;
	ck_assert_msg(r == rc, "rc %d, expected %d (%s)", r, rc, err.text);
	ck_assert_dtc_error(&err, code, item, offset);
	if (text != NULL)
		ck_assert_str_eq(err.text, text);
	dtcp_container_close(c);
}

START_TEST(test_not_cbor)
{
	/* 0x1c is a reserved head (RFC 8949 3.3); nothing follows it, so
	 * the warning says so and the capture ends there */
	expect_after_header("1c", DTC_WARN, DTC_E_NOTCBOR, 1, 49,
	    "not CBOR at byte 49; sync lost at byte 49, no item after it up "
	    "to the end at byte 50");
	/* inside an item: {"t": <reserved> */
	expect_after_header("a2 61 74 1c", DTC_WARN, DTC_E_NOTCBOR, 1, 52,
	    "not CBOR at byte 52; sync lost at byte 49, no item after it up "
	    "to the end at byte 53");
	/* a break outside an indefinite-length item */
	expect_after_header("a1 61 74 ff", DTC_WARN, DTC_E_NOTCBOR, 1, 52,
	    "not CBOR at byte 52: unexpected break; sync lost at byte 49, no "
	    "item after it up to the end at byte 53");
	/* an indefinite map whose last key has no value */
	expect_after_header("bf 61 74 61 78 61 61 ff", DTC_WARN,
	    DTC_E_NOTCBOR, 1, 49, "not CBOR at byte 49: indefinite-length "
	    "map with a key but no value; sync lost at byte 49, no item after "
	    "it up to the end at byte 57");
	/* 0xf8 with a value below 32 is not well formed (RFC 8949 3.3) */
	expect_after_header("a2 61 74 61 78 61 61 f8 10", DTC_WARN,
	    DTC_E_NOTCBOR, 1, 56, "not CBOR at byte 56; sync lost at byte 49, "
	    "no item after it up to the end at byte 58");
}
END_TEST

static void
expect_first(const char *hex, int code, long long offset, const char *text)
{
	uint8_t buf[256];
	size_t len = util_unhex(hex, buf, sizeof(buf));
	dtcp_container *c = open_mem(buf, len);
	dtcp_item it;
	dtc_error err;

	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_FATAL);
	ck_assert_dtc_error(&err, code, 0, offset);
	ck_assert_str_eq(err.text, text);
	dtcp_container_close(c);
}

START_TEST(test_bad_first_item)
{
	/* a probe item first */
	expect_first("a2 61 74 65 70 72 6f 62 65 62 69 64 01",
	    DTC_E_BADHEADER, 0, "not a dtsnap capture: its first item is of "
	    "kind 'probe', not the dtsnap header");
	/* a text file */
	expect_first("68 65 6c 6c 6f 0a", DTC_E_BADHEADER, 0,
	    "not a dtsnap capture: it does not start with a CBOR map");
	/* a map without "t" */
	expect_first("a1 61 78 01", DTC_E_BADHEADER, 0,
	    "not a dtsnap capture: the first item has no text key 't'");
	/* a header without version, or with a text version */
	expect_first("a1 61 74 66 64 74 73 6e 61 70", DTC_E_BADHEADER, 0,
	    "dtsnap header has no version [major, minor]");
	expect_first("a2 61 74 66 64 74 73 6e 61 70"
	    "67 76 65 72 73 69 6f 6e 63 31 2e 30", DTC_E_BADHEADER, 18,
	    "dtsnap header has no version [major, minor]");
	/* an indefinite-length string in the header */
	expect_first("a1 61 74 7f 62 64 74 64 73 6e 61 70 ff",
	    DTC_E_NOTCBOR, 3,
	    "indefinite-length text string at byte 3 is not supported");
}
END_TEST

START_TEST(test_version)
{
	/* {"t":"dtsnap","version":[2,0]} */
	expect_first("a2 61 74 66 64 74 73 6e 61 70"
	    "67 76 65 72 73 69 6f 6e 82 02 00", DTC_E_VERSION, 18,
	    "unsupported capture version 2.0 (this reader knows 1.x)");
	expect_first("a2 61 74 66 64 74 73 6e 61 70"
	    "67 76 65 72 73 69 6f 6e 82 00 05", DTC_E_VERSION, 18,
	    "unsupported capture version 0.5 (this reader knows 1.x)");
}
END_TEST

/* A later minor version with unknown keys is read. */
START_TEST(test_minor_version)
{
	uint8_t buf[128];
	size_t len = util_unhex("a3 61 74 66 64 74 73 6e 61 70"
	    "67 76 65 72 73 69 6f 6e 82 01 18 63"   /* [1, 99] */
	    "63 6e 65 77 f5",                       /* "new": true */
	    buf, sizeof(buf));
	dtcp_container *c = open_mem(buf, len);
	dtcp_item it;

	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_str_eq(it.kind, "dtsnap");
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_EOF);
	dtcp_container_close(c);
}
END_TEST

/*
 * Whole maps that are not items are skipped one by one (DTC_WARN), and
 * the next item is still found.  (A value that is not a map at all is
 * lost sync: test_resync.)
 */
START_TEST(test_skipped_items)
{
	uint8_t buf[256];
	size_t len;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;

	c = open_after_header(
	    "a1 61 78 01"                /* @49 item 1: {"x":1} */
	    "a1 61 74 01"                /* @53 item 2: {"t":1} */
	    "a2 61 74 61 78 61 73 5f 41 61 41 62 ff" /* @57 item 3, 5f @64 */
	    "a2 61 74 66 64 74 73 6e 61 70 67 76 65 72 73 69 6f 6e 82 01 00"
	                                 /* @70 item 4: a second header */
	    "a1 61 74 61 6b",            /* @91 item 5: {"t":"k"} */
	    buf, sizeof(buf), &len);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_WARN);
	ck_assert_dtc_error(&err, DTC_E_MISSINGKEY, 1, 49);
	ck_assert_str_eq(err.text, "item at byte 49 has no text key 't'; "
	    "skipped");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_WARN);
	ck_assert_dtc_error(&err, DTC_E_KEYTYPE, 2, 53);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_WARN);
	ck_assert_dtc_error(&err, DTC_E_NOTCBOR, 3, 64);
	ck_assert_str_eq(err.text, "indefinite-length byte string at byte 64 "
	    "is not supported; item skipped");
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_WARN);
	ck_assert_dtc_error(&err, DTC_E_DUPLICATE, 4, 70);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_int_eq(err.code, DTC_E_NONE);
	ck_assert_int_eq(it.index, 5);
	ck_assert_uint_eq(it.offset, 91);
	ck_assert_str_eq(it.kind, "k");
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
}
END_TEST

/* Heads that claim more than the input holds are truncations. */
/* Lengths no item may have are refused at their head (offsets by hand:
 * the header is bytes 0-48, the item starts at 49). */
static const struct absurd {
	const char *hex;
	long long offset;
	const char *text;
} absurd[] = {
	/* {"t":"buf","data": h'' of 2^60 bytes (head at 61), then 3 bytes */
	{ "a2 61 74 63 62 75 66 64 64 61 74 61"
	  "5b 10 00 00 00 00 00 00 00 01 02 03", 61,
	  "a byte string of 1152921504606846976 bytes at byte 61 is larger "
	  "than an item may be (4294967296 bytes)" },
	/* text of 2^64-1 bytes at 58 (libcbor's "required" wraps around) */
	{ "a2 61 74 63 62 75 66 61 73"
	  "7b ff ff ff ff ff ff ff ff 41", 58,
	  "a text string of 18446744073709551615 bytes at byte 58 is larger "
	  "than an item may be (4294967296 bytes)" },
	/* a map of 2^60 pairs at 49, an array of 2^64-1 elements at 56 */
	{ "bb 10 00 00 00 00 00 00 00 61 74 61 78", 49,
	  "a map of 1152921504606846976 pairs at byte 49: more than the "
	  "67108864 data items an item may hold" },
	{ "a2 61 74 61 78 61 61"
	  "9b ff ff ff ff ff ff ff ff 01 02", 56,
	  "an array of 18446744073709551615 elements at byte 56: more than "
	  "the 67108864 data items an item may hold" },
};

/* What follows each absurd item's diagnosis: no item comes after it. */
static const char *const absurd_sync[] = {
	"; sync lost at byte 49, no item after it up to the end at byte 73",
	"; sync lost at byte 49, no item after it up to the end at byte 68",
	"; sync lost at byte 49, no item after it up to the end at byte 62",
	"; sync lost at byte 49, no item after it up to the end at byte 67",
};

START_TEST(test_absurd_sizes)
{
	char want[256];
	size_t i;

	for (i = 0; i < sizeof(absurd) / sizeof(absurd[0]); i++) {
		snprintf(want, sizeof(want), "%s%s", absurd[i].text,
		    absurd_sync[i]);
		expect_after_header(absurd[i].hex, DTC_WARN, DTC_E_LIMIT, 1,
		    absurd[i].offset, want);
	}
	/* counts that fit the limits but not the bytes left: a map of 3
	 * pairs at 49 with 5 bytes left from its head; a byte string of 9
	 * bytes at 54 with 2 left after its 1-byte head */
	expect_after_header("a3 61 74 61 78", DTC_FATAL, DTC_E_TRUNCATED, 1,
	    49, "capture cut short at byte 49: a map of 3 pairs at byte 49 "
	    "cannot fit in the 5 bytes left");
	expect_after_header("a2 61 74 61 78 49 01 02", DTC_FATAL,
	    DTC_E_TRUNCATED, 1, 49, "capture cut short at byte 49: a byte "
	    "string of 9 bytes at byte 54 runs past the end (2 bytes left)");
}
END_TEST

/* The same through a pipe: the same errors, from only what came. */
START_TEST(test_absurd_sizes_pipe)
{
	uint8_t buf[128];
	size_t len, i;
	util_feeder f;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	char want[256];

	for (i = 0; i < sizeof(absurd) / sizeof(absurd[0]); i++) {
		len = util_unhex(HEADER_HEX, buf, sizeof(buf));
		len += util_unhex(absurd[i].hex, buf + len, sizeof(buf) - len);
		f = util_feed(buf, len, 5, 0);
		dtc_error_clear(&err);
		c = dtcp_container_open_fd(f.fd, "pipe", &err);
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_WARN);
		ck_assert_dtc_error(&err, DTC_E_LIMIT, 1, absurd[i].offset);
		snprintf(want, sizeof(want), "%s%s", absurd[i].text,
		    absurd_sync[i]);
		ck_assert_str_eq(err.text, want);
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
		dtcp_container_close(c);
		util_feed_done(&f);
	}
}
END_TEST

/* Nesting: 64 levels (the item map and 63 arrays) pass, 65 do not. */
static size_t
nested(uint8_t *buf, size_t bufsz, int narrays)
{
	size_t len = util_unhex(HEADER_HEX
	    "a2 61 74 64 64 65 65 70 61 61",   /* @49 {"t":"deep","a": */
	    buf, bufsz);
	int i;

	ck_assert_uint_eq(len, 59);
	for (i = 0; i < narrays; i++)
		buf[len++] = 0x81;               /* [ */
	buf[len++] = 0x01;
	return len;
}

START_TEST(test_depth)
{
	uint8_t buf[256];
	size_t len;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;

	len = nested(buf, sizeof(buf), DTCP_MAX_DEPTH - 1);
	c = open_mem(buf, len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_str_eq(it.kind, "deep");
	/* map, "t", "deep", "a", 63 arrays, 1 */
	ck_assert_uint_eq(it.nnodes, 4 + (DTCP_MAX_DEPTH - 1) + 1);
	ck_assert_uint_eq(it.nodes[0].span, it.nnodes);
	dtcp_container_close(c);

	/* the 64th array opens level 65 at 59 + 63: that value (the array
	 * and its 1) is read past as one node, and the item kept */
	len = nested(buf, sizeof(buf), DTCP_MAX_DEPTH);
	c = open_mem(buf, len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "deep");
	ck_assert_uint_eq(it.nnodes, 4 + (DTCP_MAX_DEPTH - 1) + 1);
	ck_assert_uint_eq(it.nodes[0].span, it.nnodes);
	ck_assert_int_eq(it.nodes[it.nnodes - 1].type, DTCP_N_SKIPPED);
	ck_assert_uint_eq(it.nodes[it.nnodes - 1].offset, 122);
	ck_assert_uint_eq(it.nodes[it.nnodes - 1].len, 2);
	ck_assert_uint_eq(it.nodes[it.nnodes - 2].count, 1);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_WARN);
	ck_assert_dtc_error(&err, DTC_E_NOTSUP, 1, 122);
	ck_assert_str_eq(err.text, "a value nested deeper than 64 levels "
	    "(bytes 122-123) is not a dtsnap value; read past it");
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
}
END_TEST

/*
 * Past DTCP_MAX_SKIP_DEPTH levels even the skip walker stops: the item
 * cannot be read to its end, so it is skipped to the next item found.
 */
START_TEST(test_depth_skip_limit)
{
	const size_t n = DTCP_MAX_SKIP_DEPTH + 1;
	uint8_t *buf = malloc(n + 128);
	size_t len, end;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	char want[200];

	ck_assert_ptr_nonnull(buf);
	/* header, {"t":"deep","a": 65537 arrays around 1, then an end item */
	len = nested(buf, n + 128, (int)n - 1);
	end = len;
	len += util_unhex("a2 61 74 63 65 6e 64 6b 65 78 69 74 5f 73 74 61 74"
	    "75 73 00", buf + len, 32);
	c = open_mem(buf, len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_WARN);
	/* the array that opens level 65537 is the 65536th, at 59 + 65535 */
	ck_assert_dtc_error(&err, DTC_E_LIMIT, 1, 59 + 65535);
	snprintf(want, sizeof(want), "nesting deeper than 65536 levels at "
	    "byte %d; sync lost at byte 49, found again at byte %zu",
	    59 + 65535, end);
	ck_assert_str_eq(err.text, want);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
	ck_assert_str_eq(it.kind, "end");
	ck_assert_int_eq(it.index, 2);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_EOF);
	dtcp_container_close(c);
	free(buf);
}
END_TEST


/* ------------------------------------------------------------------ */
/* Damage and resynchronization (dtsnap(5))                            */
/* ------------------------------------------------------------------ */

/* One answer of dtcp_container_next: rc, and for DTC_OK the item's
 * index, offset and kind (in text), else the error's code, item, offset
 * and text. */
struct step {
	int rc;
	int code;
	long long item;
	long long offset;
	const char *text;
};

/*
 * Header + hex, decoded from memory, from a file, and from pipes that
 * deliver 1 and 4096 bytes at a time: each must give exactly the steps,
 * then EOF (unless the last step is DTC_FATAL, which must stick).  The
 * same damage must be found at the same bytes however the input comes.
 */
static void
expect_steps_after(const char *header, const char *hex,
    const struct step *st, size_t nst)
{
	static const size_t chunks[] = { 1, 4096 };
	uint8_t buf[1024];
	char path[64];
	size_t len, k;
	int via, rc;
	util_feeder f = { -1, -1 };
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;

	len = util_unhex(header, buf, sizeof(buf));
	len += util_unhex(hex, buf + len, sizeof(buf) - len);
	for (via = 0; via < 4; via++) {
		dtc_error_clear(&err);
		if (via == 0) {
			c = dtcp_container_open_memory(buf, len, "in", &err);
		} else if (via == 1) {
			util_tmpfile(buf, len, path);
			c = dtcp_container_open_file(path, &err);
			unlink(path);
		} else {
			f = util_feed(buf, len, chunks[via - 2], 0);
			c = dtcp_container_open_fd(f.fd, "in", &err);
		}
		ck_assert_ptr_nonnull(c);
		ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_OK);
		for (k = 0; k < nst; k++) {
			dtc_error_clear(&err);
			rc = dtcp_container_next(c, &it, &err);
			ck_assert_msg(rc == st[k].rc, "via %d, step %zu: rc %d, "
			    "want %d (%s)", via, k, rc, st[k].rc, err.text);
			if (rc == DTC_OK) {
				ck_assert_int_eq(it.index, st[k].item);
				ck_assert_uint_eq(it.offset, st[k].offset);
				ck_assert_str_eq(it.kind, st[k].text);
				continue;
			}
			ck_assert_dtc_error(&err, st[k].code, st[k].item,
			    st[k].offset);
			ck_assert_msg(strcmp(err.text, st[k].text) == 0,
			    "via %d, step %zu: \"%s\", want \"%s\"", via, k,
			    err.text, st[k].text);
		}
		dtc_error_clear(&err);
		rc = dtcp_container_next(c, &it, &err);
		if (nst > 0 && st[nst - 1].rc == DTC_FATAL) {
			ck_assert_int_eq(rc, DTC_FATAL);
			ck_assert_str_eq(err.text, st[nst - 1].text);
		} else {
			ck_assert_msg(rc == DTC_EOF, "via %d: rc %d at the end "
			    "(%s)", via, rc, err.text);
		}
		dtcp_container_close(c);
		if (via >= 2)
			util_feed_done(&f);
	}
}

static void
expect_steps(const char *hex, const struct step *st, size_t nst)
{
	expect_steps_after(HEADER_HEX, hex, st, nst);
}


/* Bytes that are no item between items: one warning for all of them,
 * naming where sync was lost and found again; nothing else is lost. */
START_TEST(test_resync_stray)
{
	static const struct step stray[] = {
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "item at byte 49 is an "
		  "unsigned integer, not a map; sync lost at byte 49, found "
		  "again at byte 52" },
		{ DTC_OK, 0, 2, 52, "probe" },
		{ DTC_OK, 0, 3, 65, "end" },
	};
	static const struct step brk[] = {
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "not CBOR at byte 49: "
		  "unexpected break; sync lost at byte 49, found again at "
		  "byte 50" },
		{ DTC_OK, 0, 2, 50, "probe" },
	};
	/* a map head alone before an item: the item would be its key */
	static const struct step maphead[] = {
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "item at byte 49 has no text "
		  "key 't'; sync lost at byte 49, found again at byte 50" },
		{ DTC_OK, 0, 2, 50, "probe" },
	};
	/* trailing damage after the last item */
	static const struct step tail[] = {
		{ DTC_OK, 0, 1, 49, "probe" },
		{ DTC_WARN, DTC_E_NOTCBOR, 2, 62, "not CBOR at byte 62; sync "
		  "lost at byte 62, no item after it up to the end at byte 64" },
	};

	expect_steps("01 02 03" PROBE_HEX END_HEX, stray,
	    sizeof(stray) / sizeof(stray[0]));
	expect_steps("ff" PROBE_HEX, brk, sizeof(brk) / sizeof(brk[0]));
	expect_steps("a1" PROBE_HEX, maphead,
	    sizeof(maphead) / sizeof(maphead[0]));
	expect_steps(PROBE_HEX "1c 1c", tail, sizeof(tail) / sizeof(tail[0]));
}
END_TEST

/*
 * The scan takes only what starts like an item (a map head, "t", a known
 * kind) and decodes whole: a candidate that fails is passed over, one
 * that would run past the end is the capture's cut item if nothing
 * better follows.
 */
START_TEST(test_resync_candidates)
{
	/* @50 {"t":"buf" then a reserved head @57: not an item */
	static const struct step failed[] = {
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "item at byte 49 is an "
		  "unsigned integer, not a map; sync lost at byte 49, found "
		  "again at byte 59" },
		{ DTC_OK, 0, 2, 59, "probe" },
	};
	/* {"t":"x"} is not a known kind: no candidate, passed over */
	static const struct step unknown[] = {
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "item at byte 49 is an "
		  "unsigned integer, not a map; sync lost at byte 49, found "
		  "again at byte 55" },
		{ DTC_OK, 0, 2, 55, "probe" },
	};
	/* @50 {"t":"buf","data": h'01' of 4 bytes, cut: the last item */
	static const struct step cut[] = {
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "item at byte 49 is an "
		  "unsigned integer, not a map; sync lost at byte 49, found "
		  "again at byte 50" },
		{ DTC_FATAL, DTC_E_TRUNCATED, 2, 50, "capture cut short at "
		  "byte 50: a byte string of 4 bytes at byte 62 runs past the "
		  "end (1 bytes left)" },
	};
	/* the item itself runs past the end, but an item follows inside
	 * what it claims: damage, not a cut */
	static const struct step claim[] = {
		{ DTC_WARN, DTC_E_TRUNCATED, 1, 49, "a byte string of 64 "
		  "bytes at byte 61 runs past the end (33 bytes left); sync "
		  "lost at byte 49, found again at byte 63" },
		{ DTC_OK, 0, 2, 63, "probe" },
		{ DTC_OK, 0, 3, 76, "end" },
	};

	expect_steps("01 a2 61 74 63 62 75 66 1c 00" PROBE_HEX, failed,
	    sizeof(failed) / sizeof(failed[0]));
	expect_steps("01 a1 61 74 61 78" PROBE_HEX, unknown,
	    sizeof(unknown) / sizeof(unknown[0]));
	expect_steps("01 a2 61 74 63 62 75 66 64 64 61 74 61 44 01", cut,
	    sizeof(cut) / sizeof(cut[0]));
	/* @49 {"t":"buf","data": h'...' claiming 64 bytes @61 */
	expect_steps("a2 61 74 63 62 75 66 64 64 61 74 61 58 40"
	    PROBE_HEX END_HEX, claim, sizeof(claim) / sizeof(claim[0]));
}
END_TEST

/*
 * A map head that claims more pairs than its item holds runs into the
 * next item: a map inside an item that starts as an item does is the
 * next item, the first one keeps its complete pairs.
 */
START_TEST(test_resync_map_count)
{
	static const struct step more[] = {
		{ DTC_OK, 0, 1, 49, "probe" },
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "a map of 3 pairs at byte 49 "
		  "runs into the item at byte 62: read as the 2 pairs before "
		  "it" },
		{ DTC_OK, 0, 2, 62, "end" },
	};
	/* an array count too large inside: the partial pair is dropped */
	static const struct step arr[] = {
		{ DTC_OK, 0, 1, 49, "probe" },
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "a map of 3 pairs at byte 49 "
		  "runs into the item at byte 67: read as the 2 pairs before "
		  "it" },
		{ DTC_OK, 0, 2, 67, "end" },
	};
	/* an indefinite-length map without its break */
	static const struct step indef[] = {
		{ DTC_OK, 0, 1, 49, "probe" },
		{ DTC_WARN, DTC_E_NOTCBOR, 1, 49, "an indefinite-length map at "
		  "byte 49 runs into the item at byte 62: read as the 2 pairs "
		  "before it" },
		{ DTC_OK, 0, 2, 62, "end" },
	};
	uint8_t buf[256];
	size_t len;
	dtcp_container *c;
	dtcp_item it;
	const dtcp_node *n;

	expect_steps("a3 61 74 65 70 72 6f 62 65 62 69 64 01" END_HEX, more,
	    sizeof(more) / sizeof(more[0]));
	/* @49 {"t":"probe","id":1,"a":[1, 2, <end item> */
	expect_steps("a3 61 74 65 70 72 6f 62 65 62 69 64 01"
	    "61 61 83 01 02" END_HEX, arr, sizeof(arr) / sizeof(arr[0]));
	expect_steps("bf 61 74 65 70 72 6f 62 65 62 69 64 01" END_HEX, indef,
	    sizeof(indef) / sizeof(indef[0]));

	/* the item read as its pairs: a tree of 5 nodes, id 1 */
	c = open_after_header("a3 61 74 65 70 72 6f 62 65 62 69 64 01"
	    "61 61 83 01 02" END_HEX, buf, sizeof(buf), &len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	ck_assert_uint_eq(it.size, 18);
	ck_assert_uint_eq(it.nodes[0].count, 2);
	ck_assert_uint_eq(it.nnodes, 5);
	ck_assert_uint_eq(it.nodes[0].span, 5);
	check_tree(&it, buf, len);
	n = dtcp_map_get(it.nodes, "id");
	ck_assert_ptr_nonnull(n);
	ck_assert_uint_eq(n->u, 1);
	ck_assert_ptr_null(dtcp_map_get(it.nodes, "a"));
	dtcp_container_close(c);
}
END_TEST

/*
 * Tags, unassigned simple values (some of which libcbor 0.8 refuses) are
 * read as nodes of their own, the item kept, one warning for the item.
 */
START_TEST(test_odd_values)
{
	/* @49 {"t":"probe","a":6(1),"b":simple(16),"c":simple(32)}:
	 * c6 @60, f0 @64, f8 20 @67 */
#define ODD_HEX "a4 61 74 65 70 72 6f 62 65 61 61 c6 01 61 62 f0 61 63 f8 20"
	static const struct step st[] = {
		{ DTC_OK, 0, 1, 49, "probe" },
		{ DTC_WARN, DTC_E_NOTSUP, 1, 60, "a CBOR tag (6) at byte 60 and "
		  "2 more values in this item are not dtsnap values; read past "
		  "them" },
		{ DTC_OK, 0, 2, 69, "end" },
	};
	static const struct step one[] = {
		{ DTC_OK, 0, 1, 49, "probe" },
		{ DTC_WARN, DTC_E_NOTSUP, 1, 60, "a CBOR tag (24) at byte 60 is "
		  "not a dtsnap value; read past it" },
	};
	uint8_t buf[256];
	size_t len;
	dtcp_container *c;
	dtcp_item it;
	const dtcp_node *n;
	dtc_error err;
	uint64_t u;

	expect_steps(ODD_HEX END_HEX, st, sizeof(st) / sizeof(st[0]));
	/* tag 24 (0xd8 0x18) libcbor reads itself: the same warning */
	expect_steps("a2 61 74 65 70 72 6f 62 65 61 61 d8 18 41 00", one,
	    sizeof(one) / sizeof(one[0]));

	c = open_after_header(ODD_HEX, buf, sizeof(buf), &len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	check_tree(&it, buf, len);
	n = dtcp_map_get(it.nodes, "a");
	ck_assert_int_eq(n->type, DTCP_N_TAG);
	ck_assert_uint_eq(n->u, 6);
	ck_assert_uint_eq(n->span, 2);
	ck_assert_uint_eq(n[1].u, 1);
	n = dtcp_map_get(it.nodes, "b");
	ck_assert_int_eq(n->type, DTCP_N_SIMPLE);
	ck_assert_uint_eq(n->u, 16);
	n = dtcp_map_get(it.nodes, "c");
	ck_assert_int_eq(n->type, DTCP_N_SIMPLE);
	ck_assert_uint_eq(n->u, 32);
	ck_assert_uint_eq(n->offset, 67);
	/* under a key the item needs, a type error as any other */
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_get_u64(c, &it, it.nodes, "b", 1, &u, &err),
	    DTC_FAILED);
	ck_assert_str_eq(err.text, "key 'b' of probe item 1 is a simple "
	    "value, not an unsigned integer");
	dtcp_container_close(c);
#undef ODD_HEX
}
END_TEST

/* {"t":"status","pass":1}: 16 bytes */
#define STATUS_HEX "a2 61 74 66 73 74 61 74 75 73 64 70 61 73 73 01"

/* An item of a kind never repeated, the same bytes as the one before:
 * a duplicated item, skipped.  Metadata may be repeated. */
START_TEST(test_copies)
{
	static const struct step st[] = {
		{ DTC_OK, 0, 1, 49, "status" },
		{ DTC_WARN, DTC_E_DUPLICATE, 2, 65, "item at byte 65 is a copy "
		  "of the status item before it; skipped" },
		{ DTC_OK, 0, 3, 81, "probe" },
		{ DTC_OK, 0, 4, 94, "probe" },
	};

	expect_steps(STATUS_HEX STATUS_HEX PROBE_HEX PROBE_HEX, st,
	    sizeof(st) / sizeof(st[0]));
}
END_TEST

/* Version 1.3 items say their number ("seq"): items lost and repeated
 * are named. {"t":"probe","seq":N} is 14 bytes. */
START_TEST(test_seq)
{
	/* item 3 comes before item 2, which follows it: 3 is out of place
	 * (a copy of a later item, or one of two swapped), 2 is read */
	static const struct step st[] = {
		{ DTC_OK, 0, 1, 49, "probe" },
		{ DTC_WARN, DTC_E_DUPLICATE, 2, 63, "item at byte 63 says it is "
		  "item 3, but item 2 follows it: out of place; skipped" },
		{ DTC_OK, 0, 3, 77, "probe" },
		{ DTC_WARN, DTC_E_TRUNCATED, 4, 91, "items 3 to 6 are missing "
		  "before byte 91 (the item there says it is item 7)" },
		{ DTC_OK, 0, 4, 91, "probe" },
		{ DTC_OK, 0, 5, 105, "probe" },
	};

	expect_steps("a2 61 74 65 70 72 6f 62 65 63 73 65 71 01"
	    "a2 61 74 65 70 72 6f 62 65 63 73 65 71 03"
	    "a2 61 74 65 70 72 6f 62 65 63 73 65 71 02"
	    "a2 61 74 65 70 72 6f 62 65 63 73 65 71 07"
	    "a2 61 74 65 70 72 6f 62 65 63 73 65 71 08", st,
	    sizeof(st) / sizeof(st[0]));
}
END_TEST

/* {"t":"dtsnap","seq":0,"version":[1,3]} (26 bytes); with [1,2] */
#define HEADER13_HEX "a3 61 74 66 64 74 73 6e 61 70 63 73 65 71 00" \
    "67 76 65 72 73 69 6f 6e 82 01 03"
#define HEADER12_HEX "a3 61 74 66 64 74 73 6e 61 70 63 73 65 71 00" \
    "67 76 65 72 73 69 6f 6e 82 01 02"
/* {"t":"probe","seq":N} (14 bytes) */
#define PROBE_SEQ(n) "a2 61 74 65 70 72 6f 62 65 63 73 65 71 " n

/*
 * An item whose number cannot be read, or that is not one of this
 * capture's, costs the numbers nothing (issue 24: an unknown item with a
 * tag took the number of the format item after it, which was then
 * skipped as a repeat).  A repeat is a number an item taken had; an item
 * reported missing that comes later is late, not a repeat.
 */
START_TEST(test_seq_unread)
{
	static const struct step st[] = {
		{ DTC_OK, 0, 1, 26, "probe" },
		{ DTC_WARN, DTC_E_BADVALUE, 2, 40, "item at byte 40 is of kind "
		  "'zzz', which no capture of version 1.3 has; skipped" },
		{ DTC_OK, 0, 3, 55, "probe" },
		{ DTC_OK, 0, 4, 64, "probe" },
		{ DTC_OK, 0, 5, 79, "recs" },
		{ DTC_OK, 0, 6, 92, "probe" },
		{ DTC_WARN, DTC_E_TRUNCATED, 7, 106, "items 3 to 4 are missing "
		  "before byte 106 (the item there says it is item 5)" },
		{ DTC_OK, 0, 7, 106, "probe" },
		{ DTC_OK, 0, 8, 120, "probe" },
		{ DTC_WARN, DTC_E_DUPLICATE, 9, 134, "item at byte 134 is item "
		  "3, reported missing before byte 106: it comes late, out of "
		  "order; skipped" },
		{ DTC_WARN, DTC_E_DUPLICATE, 10, 148, "item at byte 148 repeats "
		  "item 2 (its seq); skipped" },
	};

	expect_steps_after(HEADER13_HEX,
	    PROBE_SEQ("01")                              /* @26 */
	    "a3 61 74 63 7a 7a 7a 61 61 c6 01 61 62 f8 40" /* @40 zzz, 6(1) */
	    "a1 61 74 65 70 72 6f 62 65"                 /* @55 no seq */
	    "a2 61 74 65 70 72 6f 62 65 63 73 65 71 61 78" /* @64 "x" */
	    "a2 61 74 64 72 65 63 73 63 73 65 71 02"     /* @79 recs, 2 */
	    PROBE_SEQ("02") PROBE_SEQ("05") PROBE_SEQ("06")
	    PROBE_SEQ("03") PROBE_SEQ("02"), st, sizeof(st) / sizeof(st[0]));
}
END_TEST

/*
 * A second header: a copy of the first is skipped alone; another
 * capture's starts a capture spliced in, whose items (going on with its
 * own numbers) are skipped and counted, up to its end item, an item that
 * does not go on with them, or the end of the input.
 */
START_TEST(test_seq_splice)
{
	static const struct step st[] = {
		{ DTC_OK, 0, 1, 26, "probe" },
		{ DTC_WARN, DTC_E_DUPLICATE, 2, 40, "item at byte 40 is a copy "
		  "of the dtsnap header; skipped" },
		{ DTC_WARN, DTC_E_DUPLICATE, 3, 66, "second dtsnap header at "
		  "byte 66: another capture starts there; the items that go on "
		  "with its numbers (seq) are skipped" },
		{ DTC_WARN, DTC_E_DUPLICATE, 3, 66, "4 items of the capture "
		  "inserted at byte 66 skipped, up to byte 146" },
		{ DTC_OK, 0, 8, 146, "probe" },
		{ DTC_WARN, DTC_E_DUPLICATE, 9, 160, "second dtsnap header at "
		  "byte 160: another capture starts there; the items that go on "
		  "with its numbers (seq) are skipped" },
		{ DTC_WARN, DTC_E_DUPLICATE, 9, 160, "1 item of the capture "
		  "inserted at byte 160 skipped, up to byte 200" },
		{ DTC_OK, 0, 11, 200, "probe" },
		{ DTC_WARN, DTC_E_DUPLICATE, 12, 214, "second dtsnap header at "
		  "byte 214: another capture starts there; the items that go on "
		  "with its numbers (seq) are skipped" },
		{ DTC_WARN, DTC_E_DUPLICATE, 12, 214, "1 item of the capture "
		  "inserted at byte 214 skipped, up to byte 254" },
	};

	expect_steps_after(HEADER13_HEX,
	    PROBE_SEQ("01") HEADER13_HEX               /* @26, @40 */
	    HEADER12_HEX PROBE_SEQ("01") PROBE_SEQ("02") PROBE_SEQ("03")
	    "a2 61 74 63 65 6e 64 63 73 65 71 04"      /* @134 its end */
	    PROBE_SEQ("02")                            /* @146 */
	    HEADER12_HEX PROBE_SEQ("01") PROBE_SEQ("03") /* @160 */
	    HEADER12_HEX PROBE_SEQ("01"),              /* @214 */
	    st, sizeof(st) / sizeof(st[0]));
}
END_TEST

/*
 * A 4 GiB string claim from a pipe: refused at its head at once (with
 * its head the item would pass the limit), not buffered, and the next
 * item is found right after it.
 */
START_TEST(test_pipe_4g_claim)
{
	static const struct step st[] = {
		{ DTC_WARN, DTC_E_LIMIT, 1, 61, "a byte string of 4294967296 "
		  "bytes at byte 61 makes the item at byte 49 larger than an "
		  "item may be (4294967296 bytes); sync lost at byte 49, found "
		  "again at byte 70" },
		{ DTC_OK, 0, 2, 70, "end" },
	};

	expect_steps("a2 61 74 63 62 75 66 64 64 61 74 61"
	    "5b 00 00 00 01 00 00 00 00" END_HEX, st,
	    sizeof(st) / sizeof(st[0]));
}
END_TEST

/*
 * Input made so that every candidate decodes a long way before failing
 * (each one's byte string hides the later ones, then all share 100000
 * array elements and a reserved head): the scan gives up within its
 * budget instead of taking time quadratic in the input.
 */
START_TEST(test_resync_budget)
{
	const size_t ncand = 4000, nel = 100000, unit = 16;
	size_t len, k, region;
	uint8_t *buf = malloc(HEADER_LEN + 1 + ncand * unit + nel + 64);
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	const char *want = "item at byte 49 is an unsigned integer, not a "
	    "map; sync lost at byte 49 and not found again by byte ";

	ck_assert_ptr_nonnull(buf);
	len = util_unhex(HEADER_HEX "01", buf, HEADER_LEN + 1);
	region = len + ncand * unit;
	for (k = 0; k < ncand; k++) {
		/* {"t":"buf","x": h'<the later candidates>', "y": ... */
		size_t l = region - (len + unit);

		len += util_unhex("a3 61 74 63 62 75 66 61 78 5a", buf + len,
		    16);
		buf[len++] = (uint8_t)(l >> 24);
		buf[len++] = (uint8_t)(l >> 16);
		buf[len++] = (uint8_t)(l >> 8);
		buf[len++] = (uint8_t)l;
		len += util_unhex("00 00", buf + len, 4);
	}
	/* ... "y": [100001 elements: 100000 zeros, then a reserved head */
	len -= 2;
	len += util_unhex("61 79 9a 00 01 86 a1", buf + len, 16);
	memset(buf + len, 0, nel);
	len += nel;
	buf[len++] = 0x1c;
	c = open_mem(buf, len);
	ck_assert_int_eq(dtcp_container_next(c, &it, NULL), DTC_OK);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_FATAL);
	ck_assert_dtc_error(&err, DTC_E_NOTCBOR, 1, 49);
	ck_assert_msg(strncmp(err.text, want, strlen(want)) == 0, "%s",
	    err.text);
	dtcp_container_close(c);
	free(buf);
}
END_TEST

/*
 * Damage: one to three bytes of a valid capture changed (a seeded LCG,
 * so failures reproduce).  Whatever comes back must be well formed and
 * in bounds, and decoding must end in EOF or FATAL.
 */
START_TEST(test_damaged)
{
	uint8_t cap[CAPLEN], in[CAPLEN];
	uint32_t seed = 12345, nflip, k;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	const char *s;
	const uint8_t *p;
	size_t len;
	uint64_t u;
	int round, rc, steps;

	load_capture(cap);
	for (round = 0; round < 5000; round++) {
		memcpy(in, cap, CAPLEN);
		seed = seed * 1103515245u + 12345u;
		nflip = 1 + (seed >> 16) % 3;
		for (k = 0; k < nflip; k++) {
			seed = seed * 1103515245u + 12345u;
			in[(seed >> 8) % CAPLEN] = (uint8_t)(seed >> 24);
		}
		c = open_mem(in, CAPLEN);
		for (steps = 0; steps < 8 * CAPLEN; steps++) {
			dtc_error_clear(&err);
			rc = dtcp_container_next(c, &it, &err);
			if (rc == DTC_EOF || rc == DTC_FATAL)
				break;
			ck_assert_msg(rc == DTC_OK || rc == DTC_WARN,
			    "round %d: rc %d", round, rc);
			if (rc == DTC_WARN) {
				ck_assert_int_ne(err.code, DTC_E_NONE);
				continue;
			}
			check_tree(&it, in, CAPLEN);
			(void)dtcp_get_u64(c, &it, it.nodes, "id", 0, &u, NULL);
			(void)dtcp_get_text(c, &it, it.nodes, "name", 0, &s,
			    &len, NULL);
			(void)dtcp_get_bytes(c, &it, it.nodes, "data", 0, &p,
			    &len, NULL);
		}
		ck_assert_int_lt(steps, 8 * CAPLEN);
		if (rc == DTC_FATAL)
			ck_assert_int_ne(err.code, DTC_E_NONE);
		dtcp_container_close(c);
	}
}
END_TEST

/*
 * testdata/invalid/container-*: a bad-input case is a directory holding
 * "input" and "error" ("code item offset", then the message), so a new
 * case needs no code.  The fixture is read through the file path.  The
 * first problem reported (a warning or the fatal error) is the one
 * named; the message is the diagnosis, which a resynchronization may
 * follow ("...; sync lost at byte S, ...").
 */
static void
run_fixture(const char *dir)
{
	char path[1024], line[512], msg[256];
	int code, rc, n;
	long long item, offset;
	dtcp_container *c;
	dtcp_item it;
	dtc_error err;
	FILE *f;

	snprintf(path, sizeof(path), "%s/error", dir);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_int_eq(sscanf(line, "%d %lld %lld", &code, &item, &offset),
	    3);
	ck_assert_ptr_nonnull(fgets(msg, sizeof(msg), f));
	msg[strcspn(msg, "\n")] = '\0';
	fclose(f);

	snprintf(path, sizeof(path), "%s/input", dir);
	dtc_error_clear(&err);
	c = dtcp_container_open_file(path, &err);
	ck_assert_msg(c != NULL, "%s: %s", path, err.text);
	for (n = 0; n < 1000000; n++) {
		dtc_error_clear(&err);
		rc = dtcp_container_next(c, &it, &err);
		if (rc != DTC_OK)
			break;
	}
	ck_assert_msg(rc == DTC_FATAL || rc == DTC_WARN, "%s: rc %d", dir, rc);
	ck_assert_msg(err.code == code && err.item == item &&
	    err.offset == offset && strncmp(err.text, msg, strlen(msg)) == 0 &&
	    (err.text[strlen(msg)] == '\0' ||
	    strncmp(err.text + strlen(msg), "; ", 2) == 0),
	    "%s: got \"%d %lld %lld %s\", expected \"%d %lld %lld %s\"", dir,
	    err.code, err.item, err.offset, err.text, code, item, offset, msg);
	/* a long path keeps its tail after "..." (error.c) */
	if (strlen(path) < sizeof(err.source))
		ck_assert_str_eq(err.source, path);
	else
		ck_assert_str_eq(err.source + 3,
		    path + strlen(path) - strlen(err.source + 3));
	dtcp_container_close(c);
}

START_TEST(test_fixtures)
{
	const char *top = getenv("top_srcdir");
	char pattern[1024];
	glob_t g;
	size_t i;

	/* outside make check there is no source tree to look in */
	if (top == NULL)
		return;
	snprintf(pattern, sizeof(pattern), "%s/testdata/invalid/container-*",
	    top);
	ck_assert_int_eq(glob(pattern, GLOB_ONLYDIR, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 1);
	for (i = 0; i < g.gl_pathc; i++)
		run_fixture(g.gl_pathv[i]);
	globfree(&g);
}
END_TEST

/* Memory inputs use the caller's bytes; NULL with a length is empty. */
START_TEST(test_empty)
{
	dtcp_container *c = open_mem(NULL, 10);
	dtcp_item it;
	dtc_error err;

	dtc_error_clear(&err);
	ck_assert_int_eq(dtcp_container_next(c, &it, &err), DTC_FATAL);
	ck_assert_dtc_error(&err, DTC_E_BADHEADER, 0, 0);
	ck_assert_str_eq(err.text, "empty file (0 bytes): not a capture");
	dtcp_container_close(c);
	dtcp_container_close(NULL);
}
END_TEST

static Suite *
container_suite(void)
{
	Suite *s = suite_create("container");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, test_items_and_nodes);
	tcase_add_test(tc, test_getters);
	tcase_add_test(tc, test_getters_signed);
	tcase_add_test(tc, test_indefinite_containers);
	tcase_add_test(tc, test_kind_copy);
	suite_add_tcase(s, tc);

	tc = tcase_create("inputs");
	tcase_add_test(tc, test_pipe_bytewise);
	tcase_add_test(tc, test_pipe_large_item);
	tcase_add_test(tc, test_file_read);
	tcase_add_test(tc, test_file_truncated_while_read);
	tcase_add_test(tc, test_file_grown_while_read);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad input");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_not_cbor);
	tcase_add_test(tc, test_bad_first_item);
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_minor_version);
	tcase_add_test(tc, test_skipped_items);
	tcase_add_test(tc, test_truncated_every_length);
	tcase_add_test(tc, test_absurd_sizes);
	tcase_add_test(tc, test_absurd_sizes_pipe);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_depth_skip_limit);
	tcase_add_test(tc, test_damaged);
	tcase_add_test(tc, test_fixtures);
	suite_add_tcase(s, tc);

	tc = tcase_create("resynchronization");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_resync_stray);
	tcase_add_test(tc, test_resync_candidates);
	tcase_add_test(tc, test_resync_map_count);
	tcase_add_test(tc, test_odd_values);
	tcase_add_test(tc, test_copies);
	tcase_add_test(tc, test_seq);
	tcase_add_test(tc, test_seq_unread);
	tcase_add_test(tc, test_seq_splice);
	tcase_add_test(tc, test_pipe_4g_claim);
	tcase_add_test(tc, test_resync_budget);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return util_run_suite(container_suite());
}
