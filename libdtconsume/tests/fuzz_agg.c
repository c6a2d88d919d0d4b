/*
 * fuzz_agg.c - fuzz target: the aggregation engine on arbitrary
 * aggregation-buffer bytes, with fixed aggregation descriptions.
 *
 * The descriptions (every aggregating function, keys of every kind,
 * several statements of one variable, a variable id taken from the
 * entry, a description check_desc refuses) are written once with the
 * dtc_writer API and loaded through a reader, with kernel symbols, a
 * process and printa formats.  The input:
 *
 *   byte 0   bit 0 big-endian capture, bit 1 illumos, bit 2 aggsortkey,
 *            bit 3 aggsortrev, bit 4 agghist, bit 5 aggpack, bit 6
 *            aggzoom, bit 7 skip the exit printings
 *   byte 1   aggsortpos (low nibble) and aggsortkeypos (high nibble);
 *            15 leaves either unset
 *   then     snapshots separated by the 4 bytes "SNAP"; each starts with
 *            an operation byte and 8 argument bytes, applied after the
 *            snapshot's bytes are merged (dtcp_agg_snap, CPU = op >> 5):
 *            op & 7: 0 none, 1 clear, 2 normalize, 3 denormalize,
 *            4 trunc, 5 printa of one variable, 6 printa of 2-4 joined,
 *            7 printa with a format; variable ids come from the argument
 *
 * Every printing is rendered the way the emitters do: dtc_reader_hist_render,
 * the dtc_aggval_* helpers, dtc_reader_printa_render for formatted ones, and
 * every key and value byte is read.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"
#include "capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAGG 16
#define NFMT 6

static const char *const formats[NFMT] = {
	"%@d\n", "%d %s %@u\n", "%@d %@d %@d\n", "%a %A %@x\n",
	"%k %@d\n", "%-20s %@a %*d\n",
};

/* key kinds */
enum { K_I1, K_I2, K_I4, K_I8, K_STR, K_SYM, K_MOD, K_USYM, K_UMOD, K_UADDR,
	K_STACK, K_USTACK };

static const struct {
	uint32_t id;
	int64_t varid;          /* 0: from the entry's variable id record */
	const char *name;
	uint16_t func;
	uint32_t valsize;
	uint64_t arg;
	int nkeys;
	int keys[3];
} descs[NAGG] = {
	{ 1, 1, "c", DTC_AGG_COUNT, 8, 0, 0, { 0 } },
	{ 2, 2, "s", DTC_AGG_SUM, 8, 0, 2, { K_I4, K_STR } },
	{ 3, 3, "mn", DTC_AGG_MIN, 8, 0, 2, { K_I1, K_I2 } },
	{ 4, 4, "mx", DTC_AGG_MAX, 8, 0, 1, { K_I8 } },
	{ 5, 5, "av", DTC_AGG_AVG, 16, 0, 1, { K_SYM } },
	{ 6, 6, "sd", DTC_AGG_STDDEV, 32, 0, 1, { K_MOD } },
	{ 7, 7, "q", DTC_AGG_QUANTIZE, 127 * 8, 0, 1, { K_USYM } },
	/* lquantize(x, -10, 90, 10): base -10, 10 levels, step 10 */
	{ 8, 8, "lq", DTC_AGG_LQUANTIZE, 13 * 8,
	    (10ULL << 48) | (10ULL << 32) | 0xfffffff6ULL, 1, { K_UMOD } },
	/* llquantize(x, 10, 0, 3, 10) */
	{ 9, 9, "llq", DTC_AGG_LLQUANTIZE, 39 * 8,
	    (10ULL << 48) | (0ULL << 32) | (3ULL << 16) | 10, 1, { K_UADDR } },
	{ 10, 1, "c", DTC_AGG_COUNT, 8, 0, 1, { K_I4 } },  /* @c again */
	{ 11, 2, "s", DTC_AGG_SUM, 8, 0, 2, { K_I4, K_STR } },
	{ 12, 0, "", DTC_AGG_SUM, 8, 0, 1, { K_STACK } },
	{ 13, 13, "ustk", DTC_AGG_COUNT, 8, 0, 1, { K_USTACK } },
	{ 14, 14, "bad", 0x0799, 8, 0, 0, { 0 } },       /* refused */
	/* an lquantize whose value is shorter than its levels say */
	{ 15, 15, "lqs", DTC_AGG_LQUANTIZE, 4 * 8,
	    (1ULL << 48) | (100ULL << 32) | 0, 3, { K_I4, K_I4, K_STR } },
	{ 16, 16, "llqbad", DTC_AGG_LLQUANTIZE, 8 * 8,
	    (1ULL << 48) | (5ULL << 32) | (2ULL << 16) | 0, 0, { 0 } },
};

static void
keyrec(dtc_recdesc *rd, int kind, uint32_t *off)
{
	static const struct { uint16_t action; uint32_t size, align;
	    uint64_t arg; } k[] = {
		[K_I1] = { DTC_ACT_DIFEXPR, 1, 1, 0 },
		[K_I2] = { DTC_ACT_DIFEXPR, 2, 2, 0 },
		[K_I4] = { DTC_ACT_DIFEXPR, 4, 4, 0 },
		[K_I8] = { DTC_ACT_DIFEXPR, 8, 8, 0 },
		[K_STR] = { DTC_ACT_DIFEXPR, 20, 1, 0 },
		[K_SYM] = { DTC_ACT_SYM, 8, 8, 0 },
		[K_MOD] = { DTC_ACT_MOD, 8, 8, 0 },
		[K_USYM] = { DTC_ACT_USYM, 16, 8, 0 },
		[K_UMOD] = { DTC_ACT_UMOD, 16, 8, 0 },
		[K_UADDR] = { DTC_ACT_UADDR, 16, 8, 0 },
		[K_STACK] = { DTC_ACT_STACK, 32, 8, 4 },
		[K_USTACK] = { DTC_ACT_USTACK, 48, 8, (16ULL << 32) | 3 },
	};

	*off = (*off + k[kind].align - 1) / k[kind].align * k[kind].align;
	memset(rd, 0, sizeof(*rd));
	rd->action = k[kind].action;
	rd->size = k[kind].size;
	rd->alignment = (uint16_t)k[kind].align;
	rd->offset = *off;
	rd->arg = k[kind].arg;
	*off += k[kind].size;
}

static uint8_t *
capture(size_t *len, int big, int illumos)
{
	static const dtc_writer_usym usyms[] = { { 0x401000, 0x40, "main" },
	    { 0x401040, 0x20, "eval" } };
	dtc_writer_map map = { 0x400000, 0x410000, "/bin/sh", 2, usyms };
	dtc_writer_header h;
	dtc_probedesc p = { 1, "profile", "", "", "tick-1s", NULL };
	dtc_eprobedesc ep;
	dtc_recdesc ep_rec = { .action = DTC_ACT_DIFEXPR, .size = 4,
	    .offset = 12, .alignment = 4 };
	dtc_recdesc recs[6];
	dtc_aggdesc ad;
	dtc_writer *w;
	char *buf = NULL;
	size_t n = 0, i;
	uint32_t off;
	int k;
	FILE *fp;

	if ((fp = open_memstream(&buf, &n)) == NULL)
		abort();
	memset(&h, 0, sizeof(h));
	h.big_endian = big;
	h.os = illumos ? "illumos" : "FreeBSD";
	h.ncpu = 8;
	if ((w = dtc_writer_new(fp, &h, NULL)) == NULL ||
	    dtc_writer_add_probe(w, &p, NULL) != DTC_OK)
		abort();
	memset(&ep, 0, sizeof(ep));
	ep.epid = 1;
	ep.probeid = 1;
	ep.size = 16;
	ep.nrecs = 1;
	ep.recs = &ep_rec;
	if (dtc_writer_add_eprobe(w, &ep, NULL) != DTC_OK)
		abort();
	for (i = 0; i < NAGG; i++) {
		memset(recs, 0, sizeof(recs));
		recs[0].action = DTC_ACT_DIFEXPR;
		recs[0].size = 8;
		recs[0].alignment = 8;
		recs[0].offset = 8;
		off = 16;
		for (k = 0; k < descs[i].nkeys; k++)
			keyrec(&recs[k + 1], descs[i].keys[k], &off);
		off = (off + 7) / 8 * 8;
		recs[k + 1].action = descs[i].func;
		recs[k + 1].size = descs[i].valsize;
		recs[k + 1].alignment = 8;
		recs[k + 1].offset = off;
		recs[k + 1].arg = descs[i].arg;
		memset(&ad, 0, sizeof(ad));
		ad.id = descs[i].id;
		ad.epid = 1;
		ad.varid = descs[i].varid;
		ad.name = descs[i].name;
		ad.size = off + descs[i].valsize;
		ad.nrecs = (uint32_t)descs[i].nkeys + 2;
		ad.recs = recs;
		if (dtc_writer_add_agg(w, &ad, NULL) != DTC_OK)
			abort();
	}
	for (i = 0; i < NFMT; i++)
		if (dtc_writer_add_format(w, (uint32_t)i + 1, formats[i],
		    NULL) != DTC_OK)
			abort();
	if (dtc_writer_ksyms_begin(w, 3, NULL) != DTC_OK ||
	    dtc_writer_add_ksym(w, 0xffffffff80001000ULL, 0x100, "kernel",
	    "fop_read", NULL) != DTC_OK ||
	    dtc_writer_add_ksym(w, 0xffffffff80001100ULL, 0x80, "kernel", "read",
	    NULL) != DTC_OK ||
	    dtc_writer_add_ksym(w, 0xffffffff82000000ULL, 0x40, "zfs", "zio_wait",
	    NULL) != DTC_OK ||
	    dtc_writer_ksyms_end(w, NULL) != DTC_OK ||
	    dtc_writer_add_proc(w, 100, "sh", 1, &map, NULL) != DTC_OK ||
	    dtc_writer_end(w, 0, NULL) != DTC_OK)
		abort();
	fclose(fp);
	*len = n;
	return (uint8_t *)buf;
}

/* A new reader over the capture, its metadata read. */
static dtc_reader *
reader(int big, int illumos)
{
	static uint8_t *cap[4];
	static size_t caplen[4];
	const dtc_event *ev;
	dtc_reader *r;
	dtc_error err;
	int v = big | illumos << 1, rc;

	if (cap[v] == NULL)
		cap[v] = capture(&caplen[v], big, illumos);
	if ((r = dtc_reader_open_memory(cap[v], caplen[v], "fuzz", 0, NULL)) == NULL)
		abort();
	do {
		dtc_error_clear(&err);
		rc = dtc_reader_next(r, &ev, &err);
	} while (rc != DTC_EOF && rc != DTC_FATAL);
	return r;
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
render(const dtc_reader *r, const dtc_aggprint *ap, dtc_buf *b)
{
	dtc_bucket bk;
	size_t i;
	uint32_t j, k, n;
	dtc_error err;

	for (j = 0; j < ap->nvars; j++)
		touch(ap->vars[j].keys,
		    (size_t)ap->vars[j].nkeys * sizeof(dtc_recdesc));
	for (i = 0; i < ap->nrows; i++) {
		const dtc_aggrow *row = &ap->rows[i];

		if (row->var == NULL)
			abort();
		for (k = 0; k < row->var->nkeys; k++) {
			const dtc_value *v = &row->keys[k];

			touch(v->data, v->size);
			touch(v->pcs, (size_t)v->nframes * v->pcsize);
			touch(v->strtab, v->strsize);
		}
		for (j = 0; j < ap->nvars; j++) {
			const dtc_aggval *v = &row->vals[j];

			touch(v->data, v->size);
			sink ^= (uint8_t)dtc_aggval_scalar(v);
			sink ^= (uint8_t)dtc_aggval_stddev(v);
			sink ^= (uint8_t)dtc_aggval_avg_unsigned(v);
			sink ^= (uint8_t)dtc_aggval_word(v, 1);
			n = dtc_aggval_nbuckets(v);
			for (k = 0; k < n; k++)
				if (dtc_aggval_bucket(v, k, &bk) == DTC_OK)
					sink ^= (uint8_t)bk.count;
			dtc_buf_reset(b);
			(void)dtc_reader_hist_render(r, v, b);
		}
		if (ap->fmt != NULL) {
			dtc_buf_reset(b);
			dtc_error_clear(&err);
			(void)dtc_reader_printa_render(r, ap, row, b, &err);
		}
	}
}

static const uint8_t sep[4] = { 'S', 'N', 'A', 'P' };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dtcp_aggstate *a;
	const dtc_aggprint *ap;
	const dtcp_meta *m;
	dtc_reader *r;
	dtc_buf b;
	dtc_error err;
	size_t pos, end, cursor;
	int64_t varids[4];
	uint8_t *copy;
	uint64_t arg;
	uint32_t nv, i;
	int op, cpu;

	if (size < 2)
		return 0;
	r = reader(data[0] & 1, (data[0] >> 1) & 1);
	m = &dtc_reader_capture(r)->meta;
	if (data[0] & 4)
		dtc_reader_set_option(r, "aggsortkey", NULL, NULL);
	if (data[0] & 8)
		dtc_reader_set_option(r, "aggsortrev", NULL, NULL);
	if (data[0] & 16)
		dtc_reader_set_option(r, "agghist", NULL, NULL);
	if (data[0] & 32)
		dtc_reader_set_option(r, "aggpack", NULL, NULL);
	if (data[0] & 64)
		dtc_reader_set_option(r, "aggzoom", NULL, NULL);
	if ((data[1] & 15) != 15) {
		char v[4];

		snprintf(v, sizeof(v), "%d", data[1] & 15);
		dtc_reader_set_option(r, "aggsortpos", v, NULL);
	}
	if ((data[1] >> 4) != 15) {
		char v[4];

		snprintf(v, sizeof(v), "%d", data[1] >> 4);
		dtc_reader_set_option(r, "aggsortkeypos", v, NULL);
	}
	if ((a = dtcp_agg_new()) == NULL)
		return 0;
	dtc_buf_init(&b);
	for (pos = 2; pos < size; pos = end + sizeof(sep)) {
		const uint8_t *s = memmem(data + pos, size - pos, sep,
		    sizeof(sep));

		end = s != NULL ? (size_t)(s - data) : size;
		op = 0;
		arg = 0;
		if (end - pos >= 9) {
			op = data[pos];
			memcpy(&arg, data + pos + 1, 8);
			pos += 9;
		}
		cpu = op >> 5;
		/* an exact copy: a read past the snapshot is caught */
		if ((copy = malloc(end - pos + 1)) == NULL)
			break;
		memcpy(copy, data + pos, end - pos);
		dtc_error_clear(&err);
		if (dtcp_agg_snap(a, dtc_reader_capture(r), cpu, copy,
		    end - pos, &err) != DTC_OK &&
		    err.code == DTC_E_NONE)
			abort();
		switch (op & 7) {
		case 1:
			dtcp_agg_clear(a, dtc_reader_capture(r),
			    (int64_t)(arg & 31));
			break;
		case 2:
			dtcp_agg_normalize(a, (int64_t)(arg & 31), arg >> 8);
			break;
		case 3:
			dtcp_agg_denormalize(a, (int64_t)(arg & 31));
			break;
		case 4:
			dtcp_agg_trunc(a, dtc_reader_capture(r), (int64_t)(arg & 31),
			    (int64_t)arg >> 8);
			break;
		case 5:
		case 6:
		case 7:
			nv = (op & 7) == 5 ? 1 : 2 + (uint32_t)(arg >> 62) % 3;
			for (i = 0; i < nv; i++)
				varids[i] = (int64_t)((arg >> (8 * i)) & 31) - 1;
			dtc_error_clear(&err);
			ap = dtcp_agg_printa(a, dtc_reader_capture(r), varids,
			    nv, (op & 7) == 7 ?
			    dtcp_meta_format(m, (uint32_t)(arg >> 40) % NFMT +
			    1) : NULL, &err);
			if (ap != NULL)
				render(r, ap, &b);
			else if (err.code == DTC_E_NONE)
				abort();
			break;
		}
		free(copy);
		if (s == NULL)
			break;
	}
	if (!(data[0] & 128)) {
		cursor = 0;
		while ((ap = dtcp_agg_exit_next(a, dtc_reader_capture(r), &cursor)) != NULL) {
			if (!ap->at_exit)
				abort();
			render(r, ap, &b);
		}
	}
	dtc_buf_free(&b);
	dtcp_agg_free(a);
	dtc_reader_close(r);
	return 0;
}
