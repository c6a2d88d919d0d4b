/*
 * fuzz_walker.c - fuzz target: one principal buffer of arbitrary bytes,
 * walked against fixed metadata.
 *
 * The enabled probes are fixed (written once with the dtc_writer API and
 * loaded through a reader, so the tables are exactly what a capture
 * gives): every record kind, the edge cases of their arguments (stack
 * depth 0, a 3-byte pc, a ustack depth of 2^32-1, a string table past
 * the record, a record of header only, a description marked bad).  The
 * input is the buffer:
 *
 *   byte 0      flags: bit 0 the other byte order, bit 1 oldest taken
 *               as is (else reduced modulo the buffer size + 1)
 *   bytes 1..4  oldest (little-endian)
 *   the rest    the buffer bytes, walked twice (with oldest, then from
 *               0 with the same walker: its scratch is reused)
 *
 * Each record found is decoded record by record with dtcp_decode_value
 * (skipping descriptions the metadata marked bad, as consume.c does) and
 * every byte the value points at is read.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"
#include "capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define R(act, sz, off, a) { .action = (act), .size = (sz), .offset = (off), \
	.alignment = 8, .arg = (a) }

static const dtc_recdesc recs1[] = {	/* trace() of every integer size */
	R(DTC_ACT_DIFEXPR, 1, 12, 0), R(DTC_ACT_DIFEXPR, 2, 14, 0),
	R(DTC_ACT_DIFEXPR, 4, 16, 0), R(DTC_ACT_DIFEXPR, 8, 24, 0),
	R(DTC_ACT_DIFEXPR, 3, 32, 0), R(DTC_ACT_DIFEXPR, 32, 35, 0),
};
static const dtc_recdesc recs2[] = {	/* kernel stacks */
	R(DTC_ACT_STACK, 32, 16, 4),	/* 4 pcs of 8 */
	R(DTC_ACT_STACK, 16, 48, 4),	/* 4 pcs of 4 */
	R(DTC_ACT_STACK, 12, 64, 4),	/* pc of 3 bytes: bad */
	R(DTC_ACT_STACK, 8, 76, 0),	/* depth 0 */
	R(DTC_ACT_STACK, 0, 84, 7),	/* no bytes */
};
static const dtc_recdesc recs3[] = {	/* user stacks */
	R(DTC_ACT_USTACK, 56, 16, (16ULL << 32) | 4),
	R(DTC_ACT_JSTACK, 24, 72, (64ULL << 32) | 8),	/* strtab past it */
	R(DTC_ACT_USTACK, 16, 96, 0xffffffffULL),	/* depth 2^32-1 */
	R(DTC_ACT_USTACK, 4, 112, 2),			/* < pid */
	R(DTC_ACT_USTACK, 40, 120, (0xffffffffULL << 32) | 0xfffffffe),
};
static const dtc_recdesc recs4[] = {	/* symbols */
	R(DTC_ACT_SYM, 8, 16, 0), R(DTC_ACT_MOD, 4, 24, 0),
	R(DTC_ACT_USYM, 16, 32, 0), R(DTC_ACT_UMOD, 8, 48, 0),
	R(DTC_ACT_UADDR, 16, 56, 0), R(DTC_ACT_SYM, 12, 72, 0),
};
static const dtc_recdesc recs5[] = {	/* tracemem, exit, printm, ... */
	R(DTC_ACT_TRACEMEM_DYNSIZE, 8, 16, 0), R(DTC_ACT_TRACEMEM, 24, 24, 0),
	R(DTC_ACT_EXIT, 4, 48, 0), R(DTC_ACT_EXIT, 2, 52, 0),
	R(DTC_ACT_PRINTM, 16, 56, 0), R(DTC_ACT_PRINTT, 8, 72, 0),
	R(DTC_ACT_LIBACT, 8, 80, 70), R(DTC_ACT_PRINTF, 16, 88, 0),
	R(DTC_ACT_PRINTA, 8, 104, 0), R(0xffff, 5, 112, 0),
	R(DTC_AGG_QUANTIZE, 8, 120, 0), R(DTC_ACT_SPECULATE, 0, 128, 0),
};
static const dtc_recdesc recs6[] = {	/* outside its record: marked bad */
	R(DTC_ACT_DIFEXPR, 8, 20, 0),
};
static const dtc_recdesc recs7[] = {	/* the ERROR enabling */
	R(DTC_ACT_DIFEXPR, 8, 16, 0), R(DTC_ACT_DIFEXPR, 8, 24, 0),
	R(DTC_ACT_DIFEXPR, 8, 32, 0), R(DTC_ACT_DIFEXPR, 8, 40, 0),
	R(DTC_ACT_DIFEXPR, 8, 48, 0),
};

static const struct {
	uint32_t epid, size, nrecs;
	uint64_t uarg;
	const dtc_recdesc *recs;
} eps[] = {
	{ 1, 68, 6, 0, recs1 },
	{ 2, 88, 5, 0, recs2 },
	{ 3, 160, 5, 0, recs3 },
	{ 4, 88, 6, 0, recs4 },
	{ 5, 128, 12, 0, recs5 },
	{ 6, 24, 1, 0, recs6 },
	{ 7, 56, 5, 1, recs7 },
	{ 8, 12, 0, 0, NULL },		/* header only */
	{ 9, 13, 0, 0, NULL },		/* odd size */
	{ 10, 8, 0, 0, NULL },		/* smaller than the header */
	{ 0xffffff, 16, 1, 0, recs1 + 2 },
	{ 1u << 24, 1u << 20, 0, 0, NULL },	/* huge: always overruns */
};

/* The capture with the metadata, written once. */
static uint8_t *
capture(size_t *len, int big)
{
	dtc_writer_header h;
	dtc_probedesc p = { 1, "fbt", "kernel", "f", "entry", NULL };
	dtc_eprobedesc ep;
	dtc_writer *w;
	char *buf = NULL;
	size_t n = 0, i;
	FILE *fp;

	if ((fp = open_memstream(&buf, &n)) == NULL)
		abort();
	memset(&h, 0, sizeof(h));
	h.big_endian = big;
	h.os = "FreeBSD";
	h.ncpu = 1;
	if ((w = dtc_writer_new(fp, &h, NULL)) == NULL ||
	    dtc_writer_add_probe(w, &p, NULL) != DTC_OK)
		abort();
	for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		memset(&ep, 0, sizeof(ep));
		ep.epid = eps[i].epid;
		ep.probeid = 1;
		ep.uarg = eps[i].uarg;
		ep.size = eps[i].size;
		ep.nrecs = eps[i].nrecs;
		ep.recs = eps[i].recs;
		/* eprobe 6 is refused by design: marked bad, still stored */
		(void)dtc_writer_add_eprobe(w, &ep, NULL);
	}
	if (dtc_writer_end(w, 0, NULL) != DTC_OK)
		abort();
	fclose(fp);
	*len = n;
	return (uint8_t *)buf;
}

/* A reader that has read the metadata (and nothing else). */
static dtc_reader *
reader(int big)
{
	static uint8_t *cap[2];
	static size_t caplen[2];
	static dtc_reader *r[2];
	const dtc_event *ev;
	dtc_error err;
	int rc;

	if (r[big] != NULL)
		return r[big];
	cap[big] = capture(&caplen[big], big);
	r[big] = dtc_reader_open_memory(cap[big], caplen[big], "fuzz", 0, NULL);
	if (r[big] == NULL)
		abort();
	do {
		dtc_error_clear(&err);
		rc = dtc_reader_next(r[big], &ev, &err);
	} while (rc != DTC_EOF && rc != DTC_FATAL);
	return r[big];
}

static volatile uint8_t sink;

static void
touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	uint8_t x = 0;
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < n; i++)
		x ^= b[i];
	sink ^= x;
}

static void
decode(const dtcp_meta *m, const dtcp_walkrec *rec, int swap)
{
	const dtc_eprobedesc *ep = rec->ep;
	dtc_value v;
	uint32_t i;

	touch(rec->data, ep->size);
	if (dtcp_meta_is_bad(m, rec->epid))
		return;
	for (i = 0; i < ep->nrecs; i++) {
		const dtc_recdesc *rd = &ep->recs[i];

		/* as consume.c: a record of size 0 stores nothing (its offset
		 * may lie past a record that stores nothing) */
		if (rd->size == 0)
			continue;
		dtcp_decode_value(rd, rec->data + rd->offset, rd->size, swap,
		    &v);
		touch(v.data, v.size);
		touch(v.pcs, (size_t)v.nframes * v.pcsize);
		touch(v.strtab, v.strsize);
		if (v.nframes > 0)
			sink ^= (uint8_t)dtc_value_pc(&v, v.nframes - 1);
	}
}

static void
walk(dtcp_walker *w, const dtcp_meta *m, const uint8_t *buf, size_t len,
    uint64_t oldest)
{
	dtcp_walkrec rec;
	dtc_error err;
	size_t n = 0;
	int rc;

	dtc_error_clear(&err);
	rc = dtcp_walker_start(w, buf, len, oldest, &err);
	if (rc == DTC_FATAL)
		return;
	if (rc == DTC_WARN && err.code == DTC_E_NONE)
		abort();
	for (;;) {
		dtc_error_clear(&err);
		rc = dtcp_walker_next(w, &rec, &err);
		if (rc == DTC_EOF)
			break;
		if (rc == DTC_WARN) {
			if (err.code == DTC_E_NONE || err.offset < 0)
				abort();
			continue;
		}
		if (rc != DTC_OK)
			abort();
		/* the record lies inside what was walked */
		if (rec.data < w->data || rec.ep->size > w->size ||
		    rec.data > w->data + w->size - rec.ep->size ||
		    rec.raw_offset >= len + 1)
			abort();
		decode(m, &rec, w->swap);
		(void)dtcp_walker_peek_epid(w);
		/* every record is at least 4 bytes: the walk ends */
		if (++n > len / 4 + 2)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dtcp_walker w;
	const dtcp_meta *m;
	dtc_reader *r;
	uint64_t oldest;
	uint8_t *buf;
	size_t len;
	int big;

	if (size < 5)
		return 0;
	big = data[0] & 1;
	oldest = (uint64_t)data[1] | (uint64_t)data[2] << 8 |
	    (uint64_t)data[3] << 16 | (uint64_t)data[4] << 24;
	len = size - 5;
	if (!(data[0] & 2))
		oldest %= len + 1;
	/* an exact copy: a read past the end is caught */
	if ((buf = malloc(len ? len : 1)) == NULL)
		return 0;
	memcpy(buf, data + 5, len);

	r = reader(big);
	m = &dtc_reader_capture(r)->meta;
	memset(&w, 0, sizeof(w));
	w.meta = &dtcp_reader_capture_rw(r)->meta;
	w.swap = dtc_reader_capture(r)->swap;
	w.cpu = 0;
	w.source = "fuzz";
	w.item = 1;
	w.file_offset = 100;
	walk(&w, m, buf, len, oldest);
	walk(&w, m, buf, len, 0);
	dtcp_walker_free(&w);
	free(buf);
	return 0;
}
