/*
 * fuzz_ctf.c - fuzz target: CTF dictionaries as a capture's ctf items
 * carry them (ctf_write_mem output), and print() values of their types.
 *
 * The input is the dictionary's bytes, nothing else: any file GNU
 * libctf's ctf_write_mem wrote is a seed, compressed or not, in either
 * byte order.  It is copied into a buffer of its exact size (aligned as
 * malloc aligns) and opened with dtcp_ctf_open, whose checks stand
 * between the bytes and libctf; a refusal must say why.  Then for each of
 * the first MAXTYPES types of the dictionary, a record of exactly the
 * type's size (at most MAXRECORD bytes), filled from the input, is
 *
 *   walked     with dtcp_ctf_walk, in the other byte order for odd ids;
 *              every node is checked (depth, END pairing, data inside
 *              the record) and its bytes and strings are read, so that a
 *              pointer outside the record shows under AddressSanitizer;
 *              then walked again over a cut copy of the record (an
 *              exact-size buffer of fewer bytes: truncated nodes), with a
 *              callback that stops the walk after some nodes
 *   printed    with dtcp_ctfprint_v2 (printsize the record's size, then
 *              a smaller one) and dtcp_ctfprint_legacy (illumos and
 *              FreeBSD), over the record and over the cut copy
 *
 * How much is cut and where the callback stops come from the input's
 * bytes, so they vary with it.
 *
 * Build with libFuzzer (make fuzz), or with fuzz_replay.c as a plain
 * program that replays files (make check replays testdata/fuzz/ctf).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef HAVE_LIBCTF

#define MAXTYPES 64          /* types of one dictionary walked and printed */
#define MAXRECORD 4096       /* bytes of a record (larger types are cut) */

/* What the walk callback checks and counts. */
struct check {
	const uint8_t *rec;     /* the record walked */
	size_t len;
	int open[DTCP_CTF_MAXDEPTH + 1]; /* kind opened at each depth */
	int depth;              /* depth of the next node, END aside */
	uint32_t nodes;
	uint32_t stop_at;       /* return 7 at this node (0: never) */
	uint8_t sink;
};

/* Read every byte of [p, p + n): ASan checks the walk's pointers. */
static void
touch(struct check *c, const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	size_t i;

	for (i = 0; p != NULL && i < n; i++)
		c->sink ^= b[i];
}

static void
touch_str(struct check *c, const char *s)
{
	if (s != NULL)
		touch(c, s, strlen(s) + 1);
}

static int
node(const dtc_tnode *n, void *arg)
{
	struct check *c = arg;

	if (n->kind < DTC_T_INT || n->kind > DTC_T_OTHER || n->type == NULL)
		abort();
	if (n->data != NULL && (n->data < c->rec || n->size > c->len ||
	    (size_t)(n->data - c->rec) > c->len - n->size))
		abort();
	if (n->data == NULL && !n->truncated)
		abort();
	touch(c, n->data, n->size);
	touch_str(c, n->name);
	touch_str(c, n->type);
	touch_str(c, n->enumerator);
	if (n->kind == DTC_T_END) {
		/* closes what the last open node at this depth opened */
		if (c->depth == 0 || n->depth != c->depth - 1 ||
		    c->open[n->depth] == 0)
			abort();
		c->open[--c->depth] = 0;
	} else {
		if (n->depth != c->depth || n->depth >= DTCP_CTF_MAXDEPTH)
			abort();
		if (n->kind == DTC_T_STRUCT || n->kind == DTC_T_UNION ||
		    n->kind == DTC_T_ARRAY)
			c->open[c->depth++] = n->kind;
	}
	if (++c->nodes == c->stop_at)
		return 7;
	return 0;
}

static void
walk(ctf_dict_t *fp, ctf_id_t id, const uint8_t *rec, size_t len, int swap,
    uint32_t stop_at)
{
	struct check c;
	const char *why = NULL;
	int rc;

	memset(&c, 0, sizeof(c));
	c.rec = rec;
	c.len = len;
	c.stop_at = stop_at;
	rc = dtcp_ctf_walk(fp, id, rec, len, swap, node, &c, &why);
	if (rc == -1 && (why == NULL || why[0] == '\0'))
		abort();
	if (rc == 0 && c.depth != 0)
		abort();    /* a finished walk closes all it opened */
	if (rc == 7 && c.nodes != stop_at)
		abort();
	if (rc != 0 && rc != -1 && rc != 7)
		abort();
}

static void
print(ctf_dict_t *fp, ctf_id_t id, const uint8_t *rec, size_t len, int swap,
    uint64_t printsize)
{
	dtc_buf b;
	const char *why;
	int illumos;

	dtc_buf_init(&b);
	why = NULL;
	if (dtcp_ctfprint_v2(fp, id, 0xffff800012345678ULL, rec, len,
	    printsize, swap, &b, SIZE_MAX, &why) != 0 && why == NULL)
		abort();
	if (b.len > 0 && (b.s == NULL || b.len >= b.cap))
		abort();
	for (illumos = 0; illumos <= 1; illumos++) {
		dtc_buf_reset(&b);
		why = NULL;
		if (dtcp_ctfprint_legacy(fp, id, rec, len, swap, illumos, &b,
		    SIZE_MAX, &why) != 0 && why == NULL)
			abort();
		if (b.len > 0 && (b.s == NULL || b.len >= b.cap))
			abort();
	}
	dtc_buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *dict, *rec, *cut;
	char why[256];
	ctf_dict_t *fp;
	ctf_id_t id;
	size_t i;

	/* an exact-size copy: a read past the input is caught */
	if ((dict = malloc(size ? size : 1)) == NULL)
		abort();
	memcpy(dict, data, size);
	why[0] = '\0';
	if ((fp = dtcp_ctf_open(dict, size, why, sizeof(why), NULL, 0)) == NULL) {
		if (why[0] == '\0')
			abort();
		free(dict);
		return 0;
	}
	for (id = 1; id <= MAXTYPES && ctf_type_kind(fp, id) >= 0; id++) {
		ssize_t tsize = ctf_type_size(fp, id);
		size_t len = tsize < 0 ? 0 : (size_t)tsize, clen;
		int swap = id & 1;
		uint8_t k;

		if (len > MAXRECORD)
			len = MAXRECORD;
		if ((rec = malloc(len ? len : 1)) == NULL)
			abort();
		for (i = 0; i < len; i++)
			rec[i] = size ? data[(i + id) % size] : 0;
		walk(fp, id, rec, len, swap, 0);
		print(fp, id, rec, len, swap, len);

		/* a cut record, and a walk stopped early */
		k = size ? data[id % size] : 0;
		clen = len * (k & 7) / 8;
		if ((cut = malloc(clen ? clen : 1)) == NULL)
			abort();
		memcpy(cut, rec, clen);
		walk(fp, id, cut, clen, !swap, k >> 3);
		print(fp, id, cut, clen, !swap, len);
		print(fp, id, rec, len, swap, clen);
		free(cut);
		free(rec);
	}
	ctf_dict_close(fp);
	free(dict);
	return 0;
}

#else /* !HAVE_LIBCTF */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}

#endif
