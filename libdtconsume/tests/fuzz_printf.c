/*
 * fuzz_printf.c - fuzz target: the printf engine.
 *
 * An arbitrary format is compiled with dtcp_format_compile (the metadata
 * loader's call), then rendered with dtc_reader_printf_render over arbitrary
 * argument records, or with dtc_reader_printa_render over arbitrary aggregation
 * values.  The input:
 *
 *   byte 0     bit 0 illumos rules, bit 1 the other byte order, bit 2
 *              printa (else printf), bit 3 big-endian reader (symbols),
 *              bits 4-6 the maxmsgsize cap (caps[] below): a message
 *              longer than its cap must come out cut to exactly it
 *   byte 1-2   format length (little-endian, at most the bytes left)
 *   ...        the format bytes
 *   then       argument records, each: action index, size index, one
 *              argument byte, then `size` data bytes (a record whose
 *              bytes run out ends the list); for printa, first one byte
 *              of 1-4 values, each: function index, size index, the
 *              normalization byte, then its bytes
 *
 * Records are decoded with dtcp_decode_value, as consume.c decodes them,
 * and each gets an exact-size copy of its bytes, so that a read past a
 * record is caught.  The number of records is whatever the input gives,
 * so too few and too many both happen.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXARGS 24

static const uint16_t actions[16] = {
	DTC_ACT_PRINTF, DTC_ACT_PRINTF, DTC_ACT_PRINTF, DTC_ACT_DIFEXPR,
	DTC_ACT_STACK, DTC_ACT_USTACK, DTC_ACT_SYM, DTC_ACT_MOD,
	DTC_ACT_USYM, DTC_ACT_UMOD, DTC_ACT_UADDR, DTC_ACT_JSTACK,
	DTC_ACT_SYSTEM, DTC_ACT_FREOPEN, DTC_ACT_TRACEMEM, DTC_ACT_PRINTA,
};
static const uint32_t sizes[16] = {
	1, 2, 4, 8, 8, 4, 16, 32, 0, 3, 5, 12, 24, 64, 127 * 8, 256,
};
static const uint16_t funcs[8] = {
	DTC_AGG_COUNT, DTC_AGG_SUM, DTC_AGG_MIN, DTC_AGG_AVG, DTC_AGG_STDDEV,
	DTC_AGG_QUANTIZE, DTC_AGG_LQUANTIZE, DTC_AGG_LLQUANTIZE,
};

static uint8_t *
capture(size_t *len, int big)
{
	static const dtc_writer_usym usyms[] = { { 0x401000, 0x40, "main" },
	    { 0x401040, 0x20, "eval" } };
	dtc_writer_map map = { 0x400000, 0x410000, "/bin/sh", 2, usyms };
	dtc_writer_header h;
	dtc_writer *w;
	char *buf = NULL;
	size_t n = 0;
	FILE *fp;

	if ((fp = open_memstream(&buf, &n)) == NULL)
		abort();
	memset(&h, 0, sizeof(h));
	h.big_endian = big;
	h.os = "FreeBSD";
	h.ncpu = 1;
	if ((w = dtc_writer_new(fp, &h, NULL)) == NULL ||
	    dtc_writer_add_clock(w, 1000, 1700000000000000000ULL, NULL) !=
	    DTC_OK ||
	    dtc_writer_ksyms_begin(w, 3, NULL) != DTC_OK ||
	    dtc_writer_add_ksym(w, 0xffffffff80001000ULL, 0x100, "kernel",
	    "fop_read", NULL) != DTC_OK ||
	    dtc_writer_add_ksym(w, 0xffffffff80001100ULL, 0x80, "kernel", "read",
	    NULL) != DTC_OK ||
	    dtc_writer_add_ksym(w, 0x1000, 0x40, "zfs", "zio_wait",
	    NULL) != DTC_OK ||
	    dtc_writer_ksyms_end(w, NULL) != DTC_OK ||
	    dtc_writer_add_proc(w, 100, "sh", 1, &map, NULL) != DTC_OK ||
	    dtc_writer_add_option(w, "stackindent", NULL, 3, NULL) != DTC_OK ||
	    dtc_writer_end(w, 0, NULL) != DTC_OK)
		abort();
	fclose(fp);
	*len = n;
	return (uint8_t *)buf;
}

/*
 * maxmsgsize: the default, small caps that cut inside conversions, a
 * large one.  Not 0 (no cap): a width of 2^31 from the input is then
 * 2 GiB of output, as the user who lifted the cap asked, and the
 * fuzzer's memory limit would call that a finding.
 */
static const char *const caps[8] = {
	"4m", "1", "7", "64", "1000", "4096", "16m", "65536",
};

static size_t
cap_bytes(const char *c)
{
	size_t n = (size_t)atol(c);

	return strchr(c, 'm') != NULL ? n << 20 : n;
}

static const dtc_reader *
reader(int big, const char *maxmsg)
{
	static uint8_t *cap[2];
	static size_t caplen[2];
	static dtc_reader *r[2];
	const dtc_event *ev;
	dtc_error err;
	int rc;

	if (r[big] == NULL) {
		cap[big] = capture(&caplen[big], big);
		if ((r[big] = dtc_reader_open_memory(cap[big], caplen[big], "fuzz", 0,
		    NULL)) == NULL)
			abort();
		do {
			dtc_error_clear(&err);
			rc = dtc_reader_next(r[big], &ev, &err);
		} while (rc != DTC_EOF && rc != DTC_FATAL);
	}
	if (dtc_reader_set_option(r[big], "maxmsgsize", maxmsg, NULL) != DTC_OK)
		abort();
	return r[big];
}

/* The cap holds, and a message cut at it is exactly the cap long. */
static void
check_cap(const dtc_buf *b, int rc, const dtc_error *err, size_t limit)
{
	if (limit > 0 && (b->len > limit || (rc == DTC_WARN &&
	    err->code == DTC_E_LIMIT && b->len != limit)))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const dtc_reader *r;
	dtc_format *f;
	dtc_error err;
	dtc_recdesc rds[MAXARGS];
	dtc_value vals[MAXARGS], pv;
	uint8_t *bytes[MAXARGS + 4];
	dtc_aggval av[4];
	dtc_aggvar var;
	dtc_aggrow row;
	dtc_aggprint ap;
	dtc_buf b;
	size_t pos, flen, limit;
	uint32_t n = 0, nav = 0, nb = 0, i;
	int swap, rc;

	if (size < 3)
		return 0;
	flen = (size_t)data[1] | (size_t)data[2] << 8;
	if (flen > size - 3)
		flen = size - 3;
	dtc_error_clear(&err);
	f = dtcp_format_compile((const char *)data + 3, flen, data[0] & 1,
	    &err);
	if (f == NULL) {
		if (err.code == DTC_E_NONE || err.text[0] == '\0')
			abort();
		return 0;
	}
	if (dtcp_format_nrecs(f) == 0)
		abort();
	(void)dtc_format_string(f);
	r = reader((data[0] >> 3) & 1, caps[(data[0] >> 4) & 7]);
	limit = cap_bytes(caps[(data[0] >> 4) & 7]);
	swap = (data[0] >> 1) & 1;
	pos = 3 + flen;

	if (data[0] & 4) {
		uint32_t want = pos < size ? data[pos++] % 4 + 1 : 1;

		for (; nav < want && size - pos >= 3; nav++) {
			uint32_t sz = sizes[data[pos + 1] & 15];

			memset(&av[nav], 0, sizeof(av[nav]));
			av[nav].func = funcs[data[pos] & 7];
			av[nav].normal = data[pos + 2] == 0xff ? 0 :
			    data[pos + 2] + 1;
			av[nav].swapped = swap;
			pos += 3;
			if (size - pos < sz)
				break;
			if ((bytes[nb] = malloc(sz ? sz : 1)) == NULL)
				abort();
			memcpy(bytes[nb], data + pos, sz);
			av[nav].data = bytes[nb++];
			av[nav].size = sz;
			pos += sz;
		}
	}
	while (n < MAXARGS && size - pos >= 3) {
		uint32_t sz = sizes[data[pos + 1] & 15];
		uint8_t arg = data[pos + 2];

		memset(&rds[n], 0, sizeof(rds[n]));
		rds[n].action = actions[data[pos] & 15];
		rds[n].size = sz;
		rds[n].offset = 12;
		rds[n].format = 1;
		/* stack depth, or ustack depth and string table size */
		rds[n].arg = rds[n].action == DTC_ACT_USTACK ||
		    rds[n].action == DTC_ACT_JSTACK ?
		    ((uint64_t)(arg >> 4) * 8) << 32 | (arg & 15) : arg;
		pos += 3;
		if (size - pos < sz)
			break;
		if ((bytes[nb] = malloc(sz ? sz : 1)) == NULL)
			abort();
		memcpy(bytes[nb], data + pos, sz);
		dtcp_decode_value(&rds[n], bytes[nb++], sz, swap, &vals[n]);
		pos += sz;
		n++;
	}

	dtc_buf_init(&b);
	dtc_error_clear(&err);
	if (data[0] & 4) {
		memset(&var, 0, sizeof(var));
		var.varid = 1;
		var.name = "a";
		var.func = nav > 0 ? av[0].func : DTC_AGG_COUNT;
		var.nkeys = n;
		var.keys = rds;
		row.var = &var;
		row.keys = vals;
		row.vals = av;
		memset(&ap, 0, sizeof(ap));
		ap.nvars = nav;
		ap.vars = &var;
		ap.fmt = f;
		ap.nrows = 1;
		ap.rows = &row;
		rc = dtc_reader_printa_render(r, &ap, &row, &b, &err);
		check_cap(&b, rc, &err, limit);
		for (i = 0; i < nav; i++) {
			dtc_buf_reset(&b);
			(void)dtc_reader_hist_render(r, &av[i], &b);
		}
	} else {
		memset(&pv, 0, sizeof(pv));
		pv.kind = DTC_V_PRINTF;
		pv.action = DTC_ACT_PRINTF;
		pv.fmt = f;
		pv.nargs = n;
		pv.args = vals;
		pv.swapped = swap;
		rc = dtc_reader_printf_render(r, &pv, &b, &err);
		check_cap(&b, rc, &err, limit);
	}
	if (rc != DTC_OK && err.code == DTC_E_NONE)
		abort();
	if (b.len > 0 && (b.s == NULL || b.len >= b.cap))
		abort();
	dtc_buf_free(&b);
	for (i = 0; i < nb; i++)
		free(bytes[i]);
	dtcp_format_free(f);
	return 0;
}
