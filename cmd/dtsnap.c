/*
 * dtsnap - inspect, check, dump, convert and synthesize .dtsnap
 * captures (dtsnap(1)).
 *
 * info and dump read a capture with the library's own container
 * reader, metadata tables and buffer walker (dtc_private.h), so that they
 * see exactly what a decoder sees; validate decodes it as dtconsume does
 * (decode.c); convert maps the CBOR items to JSON Lines and back without
 * losing a bit; synth is in synth*.c, dof in dtsnap_dof.c.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "parts.h"
#include "decode.h"
#include "program.h"
#include "dtsnap_dof.h"
#include "synth.h"
#ifdef HAVE_LIBDTRACE
#include "record.h"
#endif
#include "dtconsume.h"

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

static const struct actname {
	uint16_t action;
	const char *name;
} actnames[] = {
	{ DTC_ACT_NONE, "NONE" }, { DTC_ACT_DIFEXPR, "DIFEXPR" },
	{ DTC_ACT_EXIT, "EXIT" }, { DTC_ACT_PRINTF, "PRINTF" },
	{ DTC_ACT_PRINTA, "PRINTA" }, { DTC_ACT_LIBACT, "LIBACT" },
	{ DTC_ACT_TRACEMEM, "TRACEMEM" },
	{ DTC_ACT_TRACEMEM_DYNSIZE, "TRACEMEM_DYNSIZE" },
	{ DTC_ACT_PRINTM, "PRINTM" }, { DTC_ACT_PRINTT, "PRINTT" },
	{ DTC_ACT_USTACK, "USTACK" }, { DTC_ACT_JSTACK, "JSTACK" },
	{ DTC_ACT_USYM, "USYM" }, { DTC_ACT_UMOD, "UMOD" },
	{ DTC_ACT_UADDR, "UADDR" }, { DTC_ACT_STOP, "STOP" },
	{ DTC_ACT_RAISE, "RAISE" }, { DTC_ACT_SYSTEM, "SYSTEM" },
	{ DTC_ACT_FREOPEN, "FREOPEN" }, { DTC_ACT_STACK, "STACK" },
	{ DTC_ACT_SYM, "SYM" }, { DTC_ACT_MOD, "MOD" },
	{ DTC_ACT_BREAKPOINT, "BREAKPOINT" }, { DTC_ACT_PANIC, "PANIC" },
	{ DTC_ACT_CHILL, "CHILL" }, { DTC_ACT_SPECULATE, "SPECULATE" },
	{ DTC_ACT_COMMIT, "COMMIT" }, { DTC_ACT_DISCARD, "DISCARD" },
	{ DTC_AGG_COUNT, "count" }, { DTC_AGG_MIN, "min" },
	{ DTC_AGG_MAX, "max" }, { DTC_AGG_AVG, "avg" },
	{ DTC_AGG_SUM, "sum" }, { DTC_AGG_STDDEV, "stddev" },
	{ DTC_AGG_QUANTIZE, "quantize" }, { DTC_AGG_LQUANTIZE, "lquantize" },
	{ DTC_AGG_LLQUANTIZE, "llquantize" },
};

static const char *
action_name(uint16_t action, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(actnames) / sizeof(actnames[0]); i++)
		if (actnames[i].action == action)
			return actnames[i].name;
	snprintf(buf, len, "0x%04x", action);
	return buf;
}

/* The library actions a consumer acts on, by dt_act_base offset. */
static const char *
libact_name(uint64_t arg, uint32_t base)
{
	switch (arg - base) {
	case DTC_LIBACT_CLEAR: return "clear";
	case DTC_LIBACT_NORMALIZE: return "normalize";
	case DTC_LIBACT_DENORMALIZE: return "denormalize";
	case DTC_LIBACT_TRUNC: return "trunc";
	case DTC_LIBACT_FTRUNCATE: return "ftruncate";
	case DTC_LIBACT_SETOPT: return "setopt";
	}
	return NULL;
}

static void
put_hex(FILE *f, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%02x", i > 0 ? " " : "", p[i]);
}

/* 1 when the host is big-endian */
static int
host_big(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

/* A 32-bit word of a buffer in the capture's byte order. */
static uint32_t
ld32(const uint8_t *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* ------------------------------------------------------------------ */
/* Reading a capture                                                   */
/* ------------------------------------------------------------------ */

/*
 * One capture being read: the container, the metadata seen so far and
 * the header's facts.  Every problem goes through problem(), which
 * prints it and counts it.
 */
typedef struct snap {
	cli *c;
	const char *path;
	dtc_container *cont;
	dtc_tables *tables;
	dtc_walker *walker;
	dtc_item item;
	int swap, illumos, big, ilp32, v2;
	uint32_t ncpu, act_base;
	char os[32], release[64], host[64], producer[64];
	uint64_t vmajor, vminor;
	long long nproblems;
	int have_end;
	long long end_item;
} snap;

static void
problem(snap *s, dtc_error *err)
{
	if (err->code == DTC_E_NONE)
		return;
	if (err->source[0] == '\0')
		snprintf(err->source, sizeof(err->source), "%s", s->path);
	cli_report(s->c, err);
	s->nproblems++;
	dtc_error_clear(err);
}

static void
problemf(snap *s, long long item, long long offset, int cpu, int code,
    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void
problemf(snap *s, long long item, long long offset, int cpu, int code,
    const char *fmt, ...)
{
	char text[DTC_ERROR_TEXT_MAX];
	dtc_error err;
	va_list ap;

	dtc_error_clear(&err);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	dtc_error_set(&err, code, s->path, item, offset, cpu, "%s", text);
	problem(s, &err);
}

static void
copy_text(const dtc_node *map, const char *key, char *buf, size_t len)
{
	const dtc_node *n = dtc_node_get(map, key);
	size_t k;

	buf[0] = '\0';
	if (n == NULL || n->type != DTC_NODE_TEXT)
		return;
	k = n->len < len - 1 ? n->len : len - 1;
	memcpy(buf, n->ptr, k);
	buf[k] = '\0';
}

static uint64_t
node_u64(const dtc_node *map, const char *key, uint64_t def)
{
	const dtc_node *n = dtc_node_get(map, key);

	return n != NULL && n->type == DTC_NODE_UINT ? n->u : def;
}

/* Open and read the header; 0, or -1 when nothing can be read. */
static int
snap_open(snap *s, cli *c, const char *path)
{
	dtc_error err;
	const dtc_node *h, *v;
	char bo[16], model[16];

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->path = path;
	dtc_error_clear(&err);
	if (strcmp(path, "-") == 0)
		s->cont = dtc_container_open_fd(0, "<stdin>", &err);
	else
		s->cont = dtc_container_open_file(path, &err);
	if (s->cont == NULL) {
		problem(s, &err);
		return -1;
	}
	if (dtc_container_next(s->cont, &s->item, &err) != DTC_OK ||
	    (s->tables = dtc_tables_new(&s->item, &err)) == NULL ||
	    (s->walker = dtc_walker_new(s->tables, s->path, &err)) == NULL) {
		problem(s, &err);
		return -1;
	}
	h = &s->item.nodes[0];
	if ((v = dtc_node_get(h, "version")) != NULL &&
	    v->type == DTC_NODE_ARRAY && v->count >= 2) {
		s->vmajor = dtc_node_at(v, 0)->u;
		s->vminor = dtc_node_at(v, 1)->u;
	}
	copy_text(h, "byteorder", bo, sizeof(bo));
	copy_text(h, "model", model, sizeof(model));
	copy_text(h, "os", s->os, sizeof(s->os));
	copy_text(h, "release", s->release, sizeof(s->release));
	copy_text(h, "host", s->host, sizeof(s->host));
	copy_text(h, "producer", s->producer, sizeof(s->producer));
	s->big = strcmp(bo, "big") == 0;
	s->ilp32 = strcmp(model, "ILP32") == 0;
	s->swap = s->big != host_big();
	s->illumos = strcasecmp(s->os, "illumos") == 0 ||
	    strcasecmp(s->os, "solaris") == 0 ||
	    strcasecmp(s->os, "sunos") == 0;
	s->ncpu = (uint32_t)node_u64(h, "ncpu", 0);
	s->act_base = (uint32_t)node_u64(h, "dt_act_base",
	    s->illumos ? 49 : 55);
	{
		char flavor[16] = "";

		copy_text(h, "flavor", flavor, sizeof(flavor));
		/* DTrace v2 items (stmt, aggdesc) load into the same tables,
		 * and their records walk by their own size words (the
		 * tables read the flavor from the header as well) */
		s->v2 = strcmp(flavor, "dtrace-v2") == 0;
	}
	return 0;
}

static void
snap_close(snap *s)
{
	dtc_container_close(s->cont);
	dtc_walker_free(s->walker);
	dtc_tables_free(s->tables);
}

/*
 * The next item after the header, with metadata loaded into the tables
 * (problems reported).  DTC_OK, or DTC_EOF at the end (also after a
 * fatal problem, which is reported).
 */
static int
snap_next(snap *s)
{
	dtc_error err;
	int rc;

	for (;;) {
		dtc_error_clear(&err);
		rc = dtc_container_next(s->cont, &s->item, &err);
		if (rc == DTC_WARN) {
			problem(s, &err);
			continue;
		}
		if (rc != DTC_OK) {
			problem(s, &err);
			return DTC_EOF;
		}
		rc = dtc_tables_add_item(s->tables, s->cont, &s->item, &err);
		if (rc != DTC_OK && rc != DTC_EOF)
			problem(s, &err);
		if (strcmp(s->item.kind, "end") == 0 && !s->have_end) {
			s->have_end = 1;
			s->end_item = s->item.index;
		}
		return DTC_OK;
	}
}

/* Fields of a buf/aggbuf item; -1 when the item cannot be walked. */
typedef struct bufitem {
	uint64_t pass, cpu, drops, errors, oldest, timestamp;
	const uint8_t *data;
	size_t size;
	size_t data_off;     /* file offset of data[0] */
} bufitem;

static int
get_bufitem(snap *s, bufitem *b, int principal)
{
	const dtc_node *map = &s->item.nodes[0], *d;
	dtc_error err;

	memset(b, 0, sizeof(*b));
	dtc_error_clear(&err);
	if (dtc_item_get_uint(s->cont, &s->item, map, "pass", 1, &b->pass,
	    &err) != DTC_OK ||
	    dtc_item_get_uint(s->cont, &s->item, map, "cpu", 1, &b->cpu,
	    &err) != DTC_OK ||
	    dtc_item_get_bytes(s->cont, &s->item, map, "data", 1, &b->data,
	    &b->size, &err) != DTC_OK) {
		problem(s, &err);
		return -1;
	}
	d = dtc_node_get(map, "data");
	/* the bytes follow the string's header */
	b->data_off = d->offset + (size_t)(b->data - d->ptr) +
	    (b->size < 24 ? 1 : b->size < 256 ? 2 : b->size < 65536 ? 3 :
	    b->size < 4294967296ull ? 5 : 9);
	if (dtc_item_get_uint(s->cont, &s->item, map, "drops", 0, &b->drops,
	    &err) == DTC_FAILED ||
	    (principal && (dtc_item_get_uint(s->cont, &s->item, map, "errors", 0,
	    &b->errors, &err) == DTC_FAILED ||
	    dtc_item_get_uint(s->cont, &s->item, map, "oldest", 0, &b->oldest,
	    &err) == DTC_FAILED ||
	    dtc_item_get_uint(s->cont, &s->item, map, "timestamp", 0,
	    &b->timestamp, &err) == DTC_FAILED)))
		problem(s, &err);
	return 0;
}

/* ------------------------------------------------------------------ */
/* dump                                                                */
/* ------------------------------------------------------------------ */

static const char dump_usage[] =
"usage: dtsnap dump [-x] FILE\n"
"\n"
"Print every item of a capture (index, file offset, kind and fields) and\n"
"every principal record (cpu, buffer offset, EPID, timestamp, size and\n"
"each recdesc's offset, size, action and data).  Data longer than 32\n"
"bytes is cut unless -x is given.  Aggregation buffers are shown entry\n"
"by entry.  Problems go to standard error; the exit status is 1 when\n"
"there were any.\n";

/* A scalar or text node as text, for the generic fields. */
/* A key or kind as it is, control bytes as \xNN (capture text: it must
 * not drive the terminal dump writes to). */
static void
put_bare(FILE *f, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] < 0x20 || p[i] == 0x7f)
			fprintf(f, "\\x%02x", p[i]);
		else
			fputc(p[i], f);
	}
}

static void
put_node(FILE *f, const dtc_node *n)
{
	size_t i;

	switch (n->type) {
	case DTC_NODE_UINT:
		fprintf(f, "%" PRIu64, n->u);
		break;
	case DTC_NODE_NEGINT:
		if (n->u < (uint64_t)INT64_MAX + 1)
			fprintf(f, "%" PRId64, -(int64_t)n->u - 1);
		else
			fprintf(f, "-1-%" PRIu64, n->u);
		break;
	case DTC_NODE_TEXT:
		fputc('"', f);
		for (i = 0; i < n->len; i++) {
			unsigned char ch = n->ptr[i];

			if (ch == '"' || ch == '\\')
				fprintf(f, "\\%c", ch);
			else if (ch < 0x20 || ch == 0x7f)
				fprintf(f, "\\x%02x", ch);
			else
				fputc(ch, f);
		}
		fputc('"', f);
		break;
	case DTC_NODE_BYTES:
		fprintf(f, "<%zu bytes>", n->len);
		break;
	case DTC_NODE_BOOL:
		fputs(n->u ? "true" : "false", f);
		break;
	case DTC_NODE_NULL:
		fputs("null", f);
		break;
	case DTC_NODE_ARRAY:
	case DTC_NODE_MAP: {
		/* short lists of scalars inline (version, options) */
		const dtc_node *c = dtc_node_child(n);
		uint32_t k, nc = n->type == DTC_NODE_MAP ? n->count * 2 : n->count;

		for (k = 0; k < nc && c->span == 1; k++)
			c = dtc_node_next(c);
		if (nc > 32 || k < nc) {
			fprintf(f, n->type == DTC_NODE_MAP ? "{%u keys}" :
			    "[%u elements]", n->count);
			break;
		}
		fputc(n->type == DTC_NODE_MAP ? '{' : '[', f);
		c = dtc_node_child(n);
		for (k = 0; k < nc; k++, c = dtc_node_next(c)) {
			if (k > 0)
				fputs(n->type == DTC_NODE_MAP && k % 2 == 1 ?
				    "=" : ", ", f);
			if (n->type == DTC_NODE_MAP && k % 2 == 0 &&
			    c->type == DTC_NODE_TEXT)
				put_bare(f, c->ptr, c->len);
			else
				put_node(f, c);
		}
		fputc(n->type == DTC_NODE_MAP ? '}' : ']', f);
		break;
	}
	default:
		fputs("?", f);
		break;
	}
}

/* Every key of an item but "t", as key=value. */
static void
put_fields(FILE *f, const dtc_node *map)
{
	const dtc_node *k = dtc_node_child(map), *v;
	uint32_t i;
	int first = 1;

	for (i = 0; i < map->count; i++, k = dtc_node_next(v)) {
		v = dtc_node_next(k);
		if (k->type == DTC_NODE_TEXT && k->len == 1 && k->ptr[0] == 't')
			continue;
		fputs(first ? " " : ", ", f);
		first = 0;
		if (k->type == DTC_NODE_TEXT)
			put_bare(f, k->ptr, k->len);
		else
			put_node(f, k);
		fputc('=', f);
		put_node(f, v);
	}
}

static void
put_recs(snap *s, FILE *f, uint32_t nrecs, const dtc_recdesc *r)
{
	char buf[16];
	const char *la;
	uint32_t i;

	for (i = 0; i < nrecs; i++, r++) {
		fprintf(f, "    rec %u: offset %u, size %u, alignment %u, %s",
		    i, r->offset, r->size, r->alignment,
		    action_name(r->action, buf, sizeof(buf)));
		if (r->action == DTC_ACT_LIBACT &&
		    (la = libact_name(r->arg, s->act_base)) != NULL)
			fprintf(f, " (%s)", la);
		fprintf(f, ", format %u, arg %" PRIu64 ", uarg %" PRIu64 "\n",
		    r->format, r->arg, r->uarg);
	}
}

static void
put_data(FILE *f, const uint8_t *p, size_t n, int all)
{
	size_t k = all || n <= 32 ? n : 32;

	fputs(n > 0 ? ": " : "", f);
	put_hex(f, p, k);
	if (k < n)
		fprintf(f, " ... (%zu bytes)", n);
	fputc('\n', f);
}

static void
dump_buf(snap *s, FILE *f, int all)
{
	const dtc_recdesc *r;
	dtc_walkrec rec;
	dtc_error err;
	bufitem b;
	size_t end = 0;
	uint32_t i;
	int rc, stopped = 0;

	if (get_bufitem(s, &b, 1) != 0)
		return;
	dtc_error_clear(&err);
	if (dtc_walker_start(s->walker, s->item.index, (int)b.cpu, b.data,
	    b.size, b.data_off, b.oldest, &err) != DTC_OK)
		problem(s, &err);
	for (;;) {
		dtc_error_clear(&err);
		rc = dtc_walker_next(s->walker, &rec, &err);
		if (rc == DTC_EOF)
			break;
		if (rc != DTC_OK) {
			problem(s, &err);
			stopped = 1;
			if (rc == DTC_FATAL)
				break;
			continue;
		}
		fprintf(f, "  cpu %d offset 0x%04zx: epid %u, timestamp %" PRIu64
		    ", size %u", (int)b.cpu, rec.raw_offset, rec.epid,
		    rec.timestamp, rec.ep->size);
		if (rec.ep->probe != NULL)
			fprintf(f, " (%s:%s:%s:%s)", rec.ep->probe->provider,
			    rec.ep->probe->module, rec.ep->probe->function,
			    rec.ep->probe->name);
		if (rec.offset > end)
			fprintf(f, ", after %zu bytes of EPIDNONE",
			    rec.offset - end);
		fputc('\n', f);
		end = rec.offset + rec.ep->size;
		for (i = 0, r = rec.ep->recs; i < rec.ep->nrecs; i++, r++) {
			char buf[16];

			fprintf(f, "      rec %u offset %u size %u %s", i,
			    r->offset, r->size,
			    action_name(r->action, buf, sizeof(buf)));
			if ((uint64_t)r->offset + r->size > rec.ep->size) {
				fputs(": outside the record\n", f);
				continue;
			}
			put_data(f, rec.data + r->offset, r->size, all);
		}
	}
	if (dtc_walker_size(s->walker) > end && !stopped)
		fprintf(f, "  cpu %d: %zu bytes of EPIDNONE at the end\n",
		    (int)b.cpu, dtc_walker_size(s->walker) - end);
}

/* Aggregation buffer: entries back to back, 0 words are AGGIDNONE. */
static void
dump_aggbuf(snap *s, FILE *f, int all)
{
	const dtc_aggdesc *ad;
	bufitem b;
	size_t pos = 0;
	uint32_t i, aggid;

	if (get_bufitem(s, &b, 0) != 0)
		return;
	while (pos + 4 <= b.size) {
		aggid = ld32(b.data + pos, s->swap);
		if (aggid == 0) {
			pos += 4;
			continue;
		}
		if ((ad = dtc_tables_agg(s->tables, aggid)) == NULL) {
			problemf(s, s->item.index, (long long)(b.data_off + pos),
			    (int)b.cpu, DTC_E_BADAGGID, "unknown aggregation "
			    "id %u at buffer offset %zu; the rest of this "
			    "buffer is skipped", aggid, pos);
			return;
		}
		if (ad->size > b.size - pos) {
			problemf(s, s->item.index, (long long)(b.data_off + pos),
			    (int)b.cpu, DTC_E_OVERRUN, "entry of aggregation "
			    "%u (%u bytes) at buffer offset %zu overruns the "
			    "buffer", aggid, ad->size, pos);
			return;
		}
		fprintf(f, "  cpu %d offset 0x%04zx: aggid %u (@%s, varid %"
		    PRId64 "), size %u\n", (int)b.cpu, pos, aggid, ad->name,
		    ad->varid, ad->size);
		for (i = 0; i < ad->nrecs; i++) {
			const dtc_recdesc *r = &ad->recs[i];
			char buf[16];

			fprintf(f, "      %s %u offset %u size %u %s",
			    i == 0 ? "varid" : i + 1 == ad->nrecs ? "value" :
			    "key", i, r->offset, r->size,
			    action_name(r->action, buf, sizeof(buf)));
			if ((uint64_t)r->offset + r->size > ad->size) {
				fputs(": outside the entry\n", f);
				continue;
			}
			put_data(f, b.data + pos + r->offset, r->size, all);
		}
		pos += ad->size;
	}
	if (pos < b.size)
		problemf(s, s->item.index, (long long)(b.data_off + pos),
		    (int)b.cpu, DTC_E_OVERRUN, "%zu stray bytes at the end of "
		    "the aggregation buffer", b.size - pos);
}

static void
dump_item(snap *s, FILE *f, int all)
{
	const dtc_node *map = &s->item.nodes[0];
	const dtc_eprobedesc *ep;
	const dtc_aggdesc *ad;

	fprintf(f, "item %lld, offset %zu: ", s->item.index, s->item.offset);
	put_bare(f, (const uint8_t *)s->item.kind, strlen(s->item.kind));
	put_fields(f, map);
	fputc('\n', f);
	if (strcmp(s->item.kind, "eprobe") == 0 &&
	    (ep = dtc_tables_eprobe(s->tables, (uint32_t)node_u64(map, "epid",
	    0))) != NULL)
		put_recs(s, f, ep->nrecs, ep->recs);
	else if (strcmp(s->item.kind, "agg") == 0 &&
	    (ad = dtc_tables_agg(s->tables, (uint32_t)node_u64(map, "id",
	    0))) != NULL)
		put_recs(s, f, ad->nrecs, ad->recs);
	else if (strcmp(s->item.kind, "buf") == 0)
		dump_buf(s, f, all);
	else if (strcmp(s->item.kind, "aggbuf") == 0)
		dump_aggbuf(s, f, all);
}

static int
cmd_dump(cli *c, int argc, char **argv)
{
	const char *path = NULL;
	int i, all = 0;
	snap s;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(dump_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "-x") == 0)
			all = 1;
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			cli_usage_error(c, "dump: unknown option '%s'", argv[i]);
		else if (path == NULL)
			path = argv[i];
		else
			cli_usage_error(c, "dump: one file at a time");
	}
	if (path == NULL)
		cli_usage_error(c, "dump: no file given");
	if (snap_open(&s, c, path) == 0) {
		dump_item(&s, stdout, all);
		while (snap_next(&s) == DTC_OK)
			dump_item(&s, stdout, all);
	}
	snap_close(&s);
	return s.nproblems > 0 ? CLI_EXIT_WARN : CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* info: one walk over everything                                      */
/* ------------------------------------------------------------------ */

/* What info shows per CPU. */
typedef struct cpustat {
	uint64_t bufs, bytes, records, drops, errors;
	uint64_t aggbufs, aggbytes, entries, aggdrops;
} cpustat;

typedef struct kindcount {
	char kind[24];
	uint64_t n;
} kindcount;

/* Everything a walk learns (info prints it). */
typedef struct walkstat {
	cpustat *cpus;
	uint32_t ncpus;
	kindcount kinds[32];
	size_t nkinds;
	uint64_t items, records, entries, maxpass;
	uint64_t tsmin, tsmax;
	int have_ts;
	int end_status_known;
	int64_t exit_status;
	/* options as the last options item set them */
	struct { char name[32], value[64]; } opts[64];
	size_t nopts;
	partstat part;       /* a part of a series (info_part.c) */
} walkstat;

static void
node_text(const dtc_node *n, char *buf, size_t len)
{
	if (n->type == DTC_NODE_UINT)
		snprintf(buf, len, "%" PRIu64, n->u);
	else if (n->type == DTC_NODE_NEGINT && n->u <= (uint64_t)INT64_MAX)
		snprintf(buf, len, "%" PRId64, -(int64_t)n->u - 1);
	else if (n->type == DTC_NODE_TEXT)
		snprintf(buf, len, "%.*s", (int)n->len, (const char *)n->ptr);
	else
		snprintf(buf, len, "?");
}

static void
collect_options(snap *s, walkstat *w)
{
	const dtc_node *o = dtc_node_get(&s->item.nodes[0], "options"), *k, *v;
	char name[32];
	uint32_t i;
	size_t j;

	if (o == NULL || o->type != DTC_NODE_MAP)
		return;
	for (i = 0, k = o + 1; i < o->count; i++, k = dtc_node_next(v)) {
		v = dtc_node_next(k);
		if (k->type != DTC_NODE_TEXT)
			continue;
		node_text(k, name, sizeof(name));
		for (j = 0; j < w->nopts; j++)
			if (strcmp(w->opts[j].name, name) == 0)
				break;
		if (j == w->nopts) {
			if (w->nopts == sizeof(w->opts) / sizeof(w->opts[0]))
				continue;
			w->nopts++;
			snprintf(w->opts[j].name, sizeof(w->opts[j].name), "%s",
			    name);
		}
		node_text(v, w->opts[j].value, sizeof(w->opts[j].value));
	}
}

static void
count_kind(walkstat *w, const char *kind)
{
	size_t i;

	w->items++;
	for (i = 0; i < w->nkinds; i++)
		if (strcmp(w->kinds[i].kind, kind) == 0)
			break;
	if (i == w->nkinds) {
		if (w->nkinds == sizeof(w->kinds) / sizeof(w->kinds[0]))
			return;
		snprintf(w->kinds[i].kind, sizeof(w->kinds[i].kind), "%s",
		    kind);
		w->nkinds++;
	}
	w->kinds[i].n++;
}

static void
walk_buf(snap *s, walkstat *w)
{
	dtc_walkrec rec;
	dtc_error err;
	bufitem b;
	cpustat *cs;
	int rc;

	if (get_bufitem(s, &b, 1) != 0)
		return;
	cs = b.cpu < w->ncpus ? &w->cpus[b.cpu] : NULL;
	if (cs != NULL) {
		cs->bufs++;
		cs->bytes += b.size;
		cs->drops += b.drops;
		cs->errors += b.errors;
	}
	dtc_error_clear(&err);
	if (dtc_walker_start(s->walker, s->item.index, (int)b.cpu, b.data,
	    b.size, b.data_off, b.oldest, &err) != DTC_OK)
		problem(s, &err);
	for (;;) {
		dtc_error_clear(&err);
		rc = dtc_walker_next(s->walker, &rec, &err);
		if (rc == DTC_EOF)
			break;
		if (rc != DTC_OK) {
			problem(s, &err);
			if (rc == DTC_FATAL)
				break;
			continue;
		}
		w->records++;
		if (cs != NULL)
			cs->records++;
		/* speculative records never committed carry UINT64_MAX;
		 * v2 records carry no timestamp */
		if (rec.timestamp == UINT64_MAX || s->v2)
			continue;
		if (!w->have_ts || rec.timestamp < w->tsmin)
			w->tsmin = rec.timestamp;
		if (!w->have_ts || rec.timestamp > w->tsmax)
			w->tsmax = rec.timestamp;
		w->have_ts = 1;
	}
}

static void
walk_aggbuf(snap *s, walkstat *w)
{
	const dtc_aggdesc *ad;
	bufitem b;
	cpustat *cs;
	size_t pos = 0;
	uint32_t aggid, i;

	if (get_bufitem(s, &b, 0) != 0)
		return;
	cs = b.cpu < w->ncpus ? &w->cpus[b.cpu] : NULL;
	if (cs != NULL) {
		cs->aggbufs++;
		cs->aggbytes += b.size;
		cs->aggdrops += b.drops;
	}
	while (pos + 4 <= b.size) {
		if ((aggid = ld32(b.data + pos, s->swap)) == 0) {
			pos += 4;
			continue;
		}
		if ((ad = dtc_tables_agg(s->tables, aggid)) == NULL) {
			problemf(s, s->item.index, (long long)(b.data_off + pos),
			    (int)b.cpu, DTC_E_BADAGGID, "unknown aggregation "
			    "id %u at buffer offset %zu; the rest of this "
			    "buffer is skipped", aggid, pos);
			return;
		}
		if (ad->size < 16 || ad->size > b.size - pos) {
			problemf(s, s->item.index, (long long)(b.data_off + pos),
			    (int)b.cpu, DTC_E_OVERRUN, "entry of aggregation "
			    "%u (%u bytes) at buffer offset %zu %s", aggid,
			    ad->size, pos, ad->size < 16 ? "is too small" :
			    "overruns the buffer");
			return;
		}
		for (i = 0; i < ad->nrecs; i++)
			if ((uint64_t)ad->recs[i].offset + ad->recs[i].size >
			    ad->size)
				break;
		if (i < ad->nrecs) {
			problemf(s, s->item.index, (long long)(b.data_off + pos),
			    (int)b.cpu, DTC_E_BADRECDESC, "aggregation %u: "
			    "record %u lies outside its %u-byte entry", aggid,
			    i, ad->size);
			return;
		}
		w->entries++;
		if (cs != NULL)
			cs->entries++;
		pos += ad->size;
	}
	if (pos < b.size)
		problemf(s, s->item.index, (long long)(b.data_off + pos),
		    (int)b.cpu, DTC_E_OVERRUN, "%zu stray bytes at the end of "
		    "the aggregation buffer", b.size - pos);
}

/* The passes of the capture (the highest pass number). */
static void
count_pass(snap *s, walkstat *w)
{
	uint64_t pass;

	if (strcmp(s->item.kind, "buf") != 0 &&
	    strcmp(s->item.kind, "aggbuf") != 0 &&
	    strcmp(s->item.kind, "status") != 0 &&
	    strcmp(s->item.kind, "recs") != 0 &&
	    strcmp(s->item.kind, "aggsnap") != 0)
		return;
	pass = node_u64(&s->item.nodes[0], "pass", 0);
	if (pass > w->maxpass)
		w->maxpass = pass;
}

/*
 * A DTrace v2 aggregation snapshot: the engine's own check of its entries
 * (v2.c), and their count.
 */
static void
walk_aggsnap(snap *s, walkstat *w)
{
	const dtc_node *e;
	dtc_error err;

	dtc_error_clear(&err);
	if (dtc_tables_check_aggsnap(s->tables, s->cont, &s->item, &err) !=
	    DTC_OK)
		problem(s, &err);
	e = dtc_node_get(&s->item.nodes[0], "entries");
	if (e != NULL && e->type == DTC_NODE_ARRAY)
		w->entries += e->count;
}

/*
 * Walk every item, for info's tables; 0 when the capture could be read
 * at all.  Only what reading meets is reported (items, metadata, records
 * the walker cannot follow): what a capture must be is checked by the
 * library's decode, which dtsnap validate runs.
 */
static int
walk_all(snap *s, walkstat *w)
{
	const dtc_node *es;

	memset(w, 0, sizeof(*w));
	w->ncpus = s->ncpu > 65536 ? 65536 : s->ncpu;
	w->cpus = calloc(w->ncpus + 1, sizeof(*w->cpus));
	if (w->cpus == NULL) {
		problemf(s, -1, -1, -1, DTC_E_NOMEM, "out of memory");
		return -1;
	}
	count_kind(w, s->item.kind);
	while (snap_next(s) == DTC_OK) {
		count_kind(w, s->item.kind);
		count_pass(s, w);
		part_note(&w->part, s->item.kind, s->item.index,
		    &s->item.nodes[0]);
		if (strcmp(s->item.kind, "buf") == 0 ||
		    (s->v2 && strcmp(s->item.kind, "recs") == 0))
			walk_buf(s, w);
		else if (s->v2 && strcmp(s->item.kind, "aggsnap") == 0)
			walk_aggsnap(s, w);
		else if (strcmp(s->item.kind, "aggbuf") == 0)
			walk_aggbuf(s, w);
		else if (strcmp(s->item.kind, "options") == 0)
			collect_options(s, w);
		else if (strcmp(s->item.kind, "end") == 0 &&
		    s->item.index == s->end_item &&
		    (es = dtc_node_get(&s->item.nodes[0], "exit_status")) !=
		    NULL) {
			w->end_status_known = 1;
			w->exit_status = es->type == DTC_NODE_NEGINT ?
			    -(int64_t)es->u - 1 : (int64_t)es->u;
		}
	}
	return 0;
}

static void
walk_free(walkstat *w)
{
	free(w->cpus);
}

/* ------------------------------------------------------------------ */
/* validate                                                            */
/* ------------------------------------------------------------------ */

static const char validate_usage[] =
"usage: dtsnap validate [-a] FILE\n"
"\n"
"Decode a capture as dtconsume does, the output thrown away, and report\n"
"every problem dtconsume would report, in its words (one line each, on\n"
"standard error: file, item, cpu, offset).  Past 100 warnings of one\n"
"kind (or DTCONSUME_MAX_WARNINGS), one line counts the rest; -a shows\n"
"every one.  Prints a summary; the exit status is dtconsume's: 0 when the\n"
"capture decodes cleanly, 1 otherwise.  FILE - reads standard input.\n";

/*
 * validate is dtconsume without the output: the same decode (decode_check
 * in decode.c), so that it fails exactly where dtconsume exits 1, with
 * the same located messages.  Checks of its own would be a second set to
 * keep in step; what a capture must be is checked in the library, once.
 */
static int
cmd_validate(cli *c, int argc, char **argv)
{
	const char *path = NULL;
	decode_totals t;
	unsigned maxwarn = decode_maxwarn();
	int i, status;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(validate_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "-a") == 0 ||
		    strcmp(argv[i], "--all-warnings") == 0) {
			maxwarn = 0;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			cli_usage_error(c, "validate: unknown option '%s'",
			    argv[i]);
		if (path != NULL)
			cli_usage_error(c, "validate: one file at a time");
		path = argv[i];
	}
	if (path == NULL)
		cli_usage_error(c, "validate: no file given");
	status = decode_check(c, path, maxwarn, &t);
	printf("%s: %" PRIu64 " probe firing%s, %" PRIu64 " record%s, %"
	    PRIu64 " aggregation printing%s at the end: ", path, t.firings,
	    t.firings == 1 ? "" : "s", t.records, t.records == 1 ? "" : "s",
	    t.aggs, t.aggs == 1 ? "" : "s");
	/* (a capture without its end item is a problem: the decoder says
	 * so, dtsnap(5) end) */
	if (status != CLI_EXIT_OK)
		printf("%" PRIu64 " problem%s\n", t.problems,
		    t.problems == 1 ? "" : "s");
	else
		printf("ok\n");
	return status;
}

/* ------------------------------------------------------------------ */
/* convert: CBOR <-> JSON Lines                                        */
/* ------------------------------------------------------------------ */

static const char convert_usage[] =
"usage: dtsnap convert [-f json|cbor] [--zstd[=LEVEL]|--no-zstd] IN [-o OUT]\n"
"\n"
"Convert a capture between its CBOR form and a lossless JSON Lines form:\n"
"one JSON object per item and line, byte strings as {\"hex\": \"...\"},\n"
"integers exact (to 2^64 - 1 and down to -2^64).  The input form is\n"
"recognised; the output defaults to the other one.  IN or OUT \"-\" (or no\n"
"OUT) is standard input or output.\n"
"\n"
"A compressed (zstd) input is recognised too.  --zstd (LEVEL 1-19,\n"
"default 3) and --no-zstd ask for CBOR output, compressed or not; without\n"
"either, CBOR output is compressed when the input was (at level 3).\n";

/* A growable output buffer for CBOR. */
typedef struct obuf {
	uint8_t *p;
	size_t len, cap;
	int nomem;
} obuf;

static void
ob_put(obuf *b, const void *p, size_t n)
{
	if (b->nomem || n == 0)
		return;
	if (b->len + n > b->cap) {
		size_t ncap = b->cap ? b->cap : 4096;
		uint8_t *np;

		while (ncap < b->len + n)
			ncap *= 2;
		if ((np = realloc(b->p, ncap)) == NULL) {
			b->nomem = 1;
			return;
		}
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* A CBOR head in its shortest form, as the writer encodes it. */
static void
cb_head(obuf *b, unsigned major, uint64_t v)
{
	uint8_t h[9];
	size_t n, i;

	if (v < 24) {
		h[0] = (uint8_t)(major << 5 | v);
		n = 1;
	} else {
		unsigned ai = v < 0x100 ? 24 : v < 0x10000 ? 25 :
		    v < 0x100000000ull ? 26 : 27;

		n = (size_t)1 << (ai - 24);
		h[0] = (uint8_t)(major << 5 | ai);
		for (i = 0; i < n; i++)
			h[1 + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
		n++;
	}
	ob_put(b, h, n);
}

/* ---- JSON to CBOR ---- */

typedef struct jparse {
	const char *p, *end, *start;
	obuf *out;
	const char *err;
	int depth;
} jparse;

static void
j_ws(jparse *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int
j_fail(jparse *j, const char *msg)
{
	if (j->err == NULL)
		j->err = msg;
	return -1;
}

static int j_value(jparse *j);

static int
hexdig(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A JSON string, decoded to UTF-8 in *s (caller frees). */
static int
j_string(jparse *j, char **s, size_t *len)
{
	obuf b = { NULL, 0, 0, 0 };
	uint32_t cp, lo;
	uint8_t u[4];
	int k, d;

	if (j->p >= j->end || *j->p != '"')
		return j_fail(j, "expected a string");
	j->p++;
	for (;;) {
		if (j->p >= j->end) {
			free(b.p);
			return j_fail(j, "unterminated string");
		}
		if (*j->p == '"')
			break;
		if ((unsigned char)*j->p < 0x20) {
			free(b.p);
			return j_fail(j, "control character in a string");
		}
		if (*j->p != '\\') {
			ob_put(&b, j->p++, 1);
			continue;
		}
		if (++j->p >= j->end)
			break;
		switch (*j->p++) {
		case '"': ob_put(&b, "\"", 1); continue;
		case '\\': ob_put(&b, "\\", 1); continue;
		case '/': ob_put(&b, "/", 1); continue;
		case 'b': ob_put(&b, "\b", 1); continue;
		case 'f': ob_put(&b, "\f", 1); continue;
		case 'n': ob_put(&b, "\n", 1); continue;
		case 'r': ob_put(&b, "\r", 1); continue;
		case 't': ob_put(&b, "\t", 1); continue;
		case 'u': break;
		default:
			free(b.p);
			return j_fail(j, "bad escape in a string");
		}
		for (cp = 0, k = 0; k < 4; k++) {
			if (j->p >= j->end || (d = hexdig(*j->p++)) < 0) {
				free(b.p);
				return j_fail(j, "bad \\u escape");
			}
			cp = cp << 4 | (uint32_t)d;
		}
		if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 &&
		    j->p[0] == '\\' && j->p[1] == 'u') {
			for (lo = 0, k = 2; k < 6; k++) {
				if ((d = hexdig(j->p[k])) < 0)
					break;
				lo = lo << 4 | (uint32_t)d;
			}
			if (k == 6 && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				j->p += 6;
			}
		}
		if (cp < 0x80) {
			u[0] = (uint8_t)cp;
			k = 1;
		} else if (cp < 0x800) {
			u[0] = (uint8_t)(0xc0 | cp >> 6);
			u[1] = (uint8_t)(0x80 | (cp & 0x3f));
			k = 2;
		} else if (cp < 0x10000) {
			u[0] = (uint8_t)(0xe0 | cp >> 12);
			u[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
			u[2] = (uint8_t)(0x80 | (cp & 0x3f));
			k = 3;
		} else {
			u[0] = (uint8_t)(0xf0 | cp >> 18);
			u[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
			u[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
			u[3] = (uint8_t)(0x80 | (cp & 0x3f));
			k = 4;
		}
		ob_put(&b, u, (size_t)k);
	}
	j->p++;
	if (b.nomem) {
		free(b.p);
		return j_fail(j, "out of memory");
	}
	ob_put(&b, "", 1);      /* a NUL, not counted */
	if (b.nomem) {
		free(b.p);
		return j_fail(j, "out of memory");
	}
	*s = (char *)b.p;
	*len = b.len - 1;
	return 0;
}

/* Integers exactly (CBOR uint or negint); anything else as a double. */
static int
j_number(jparse *j)
{
	const char *q = j->p;
	int neg = 0, isreal = 0;
	uint64_t u = 0;
	char buf[64], *e;
	double d;

	if (q < j->end && *q == '-') {
		neg = 1;
		q++;
	}
	if (q >= j->end || *q < '0' || *q > '9')
		return j_fail(j, "bad number");
	for (; q < j->end && *q >= '0' && *q <= '9'; q++) {
		if (u > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
			isreal = 1;
		u = u * 10 + (uint64_t)(*q - '0');
	}
	if (q < j->end && (*q == '.' || *q == 'e' || *q == 'E'))
		isreal = 1;
	else if (neg && q - j->p == 21 &&
	    memcmp(j->p + 1, "18446744073709551616", 20) == 0) {
		cb_head(j->out, 1, UINT64_MAX);     /* -2^64 */
		j->p = q;
		return 0;
	}
	/* -2^64 is the smallest CBOR integer: -1 - (2^64 - 1) */
	if (!isreal) {
		if (neg && u == 0)
			cb_head(j->out, 0, 0);
		else
			cb_head(j->out, neg ? 1 : 0, neg ? u - 1 : u);
		j->p = q;
		return 0;
	}
	while (q < j->end && strchr("0123456789.eE+-", *q) != NULL)
		q++;
	if ((size_t)(q - j->p) >= sizeof(buf))
		return j_fail(j, "number too long");
	memcpy(buf, j->p, (size_t)(q - j->p));
	buf[q - j->p] = '\0';
	d = strtod(buf, &e);
	if (*e != '\0')
		return j_fail(j, "bad number");
	{
		uint8_t f[9];
		uint64_t bits;
		int i;

		memcpy(&bits, &d, 8);
		f[0] = 0xfb;
		for (i = 0; i < 8; i++)
			f[1 + i] = (uint8_t)(bits >> (56 - 8 * i));
		ob_put(j->out, f, 9);
	}
	j->p = q;
	return 0;
}

/* {"hex": "..."} alone is a byte string; try it, else rewind. */
static int
j_try_hex(jparse *j)
{
	const char *save = j->p, *err = j->err;
	char *key = NULL, *hex = NULL;
	size_t klen, hlen, i;
	obuf b = { NULL, 0, 0, 0 };
	int ok = 0, hi, lo;

	j_ws(j);
	if (j_string(j, &key, &klen) != 0 || klen != 3 ||
	    memcmp(key, "hex", 3) != 0)
		goto no;
	j_ws(j);
	if (j->p >= j->end || *j->p++ != ':')
		goto no;
	j_ws(j);
	if (j_string(j, &hex, &hlen) != 0)
		goto no;
	j_ws(j);
	if (j->p >= j->end || *j->p != '}' || hlen % 2 != 0)
		goto no;
	for (i = 0; i < hlen; i += 2) {
		if ((hi = hexdig(hex[i])) < 0 || (lo = hexdig(hex[i + 1])) < 0)
			goto no;
		ob_put(&b, &(uint8_t){ (uint8_t)(hi << 4 | lo) }, 1);
	}
	if (b.nomem)
		goto no;
	j->p++;
	cb_head(j->out, 2, b.len);
	ob_put(j->out, b.p, b.len);
	ok = 1;
no:
	free(key);
	free(hex);
	free(b.p);
	if (!ok) {
		j->p = save;
		j->err = err;
	}
	return ok;
}

/* Arrays and maps have a definite length: members go to a side buffer. */
static int
j_container(jparse *j, int obj)
{
	obuf *outer = j->out, inner = { NULL, 0, 0, 0 };
	uint64_t n = 0;
	char *key;
	size_t klen;
	int rc = -1;

	j->p++;
	if (obj && j_try_hex(j))
		return 0;
	if (++j->depth > 64)
		return j_fail(j, "nesting too deep");
	j->out = &inner;
	j_ws(j);
	if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
		j->p++;
		goto done;
	}
	for (;;) {
		j_ws(j);
		if (obj) {
			if (j_string(j, &key, &klen) != 0)
				goto out;
			cb_head(&inner, 3, klen);
			ob_put(&inner, key, klen);
			free(key);
			j_ws(j);
			if (j->p >= j->end || *j->p++ != ':') {
				j_fail(j, "expected ':'");
				goto out;
			}
		}
		if (j_value(j) != 0)
			goto out;
		n++;
		j_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
			j->p++;
			break;
		}
		j_fail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		goto out;
	}
done:
	if (inner.nomem) {
		j_fail(j, "out of memory");
		goto out;
	}
	cb_head(outer, obj ? 5 : 4, n);
	ob_put(outer, inner.p, inner.len);
	rc = 0;
out:
	j->out = outer;
	j->depth--;
	free(inner.p);
	return rc;
}

static int
j_value(jparse *j)
{
	char *s;
	size_t len;

	j_ws(j);
	if (j->p >= j->end)
		return j_fail(j, "unexpected end of input");
	switch (*j->p) {
	case '{':
		return j_container(j, 1);
	case '[':
		return j_container(j, 0);
	case '"':
		if (j_string(j, &s, &len) != 0)
			return -1;
		cb_head(j->out, 3, len);
		ob_put(j->out, s, len);
		free(s);
		return 0;
	}
	if (j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0) {
		ob_put(j->out, "\xf5", 1);
		j->p += 4;
		return 0;
	}
	if (j->end - j->p >= 5 && memcmp(j->p, "false", 5) == 0) {
		ob_put(j->out, "\xf4", 1);
		j->p += 5;
		return 0;
	}
	if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
		ob_put(j->out, "\xf6", 1);
		j->p += 4;
		return 0;
	}
	return j_number(j);
}

/* All JSON values of the input (JSON Lines, or any layout) to CBOR. */
static int
json_to_cbor(cli *c, const char *name, const char *buf, size_t len,
    obuf *out)
{
	jparse j;
	size_t line = 1;
	const char *q;

	memset(&j, 0, sizeof(j));
	j.p = j.start = buf;
	j.end = buf + len;
	j.out = out;
	for (;;) {
		j_ws(&j);
		if (j.p >= j.end)
			break;
		if (*j.p != '{')
			j_fail(&j, "expected an object (one item per line)");
		else
			j_value(&j);
		if (j.err != NULL || out->nomem) {
			for (q = buf; q < j.p; q++)
				line += *q == '\n';
			cli_warn(c, "%s: line %zu: %s", name, line,
			    out->nomem ? "out of memory" : j.err);
			return -1;
		}
	}
	return 0;
}

/* ---- CBOR to JSON ---- */

static void
json_text(FILE *f, const uint8_t *p, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		switch (p[i]) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (p[i] < 0x20 || p[i] == 0x7f)
				fprintf(f, "\\u%04x", p[i]);
			else
				fputc(p[i], f);
		}
	}
	fputc('"', f);
}

/* One node and its subtree; returns the node after it, NULL when a
 * value has no JSON form (tags, undefined, non-text map keys). */
static const dtc_node *
json_node(FILE *f, const dtc_node *n, const char **why)
{
	const dtc_node *c;
	uint32_t i;
	size_t k;

	switch (n->type) {
	case DTC_NODE_UINT:
		fprintf(f, "%" PRIu64, n->u);
		return n + 1;
	case DTC_NODE_NEGINT:
		/* -1 - u, exactly, down to -2^64 */
		if (n->u == UINT64_MAX)
			fputs("-18446744073709551616", f);
		else
			fprintf(f, "-%" PRIu64, n->u + 1);
		return n + 1;
	case DTC_NODE_TEXT:
		json_text(f, n->ptr, n->len);
		return n + 1;
	case DTC_NODE_BYTES:
		fputs("{\"hex\":\"", f);
		for (k = 0; k < n->len; k++)
			fprintf(f, "%02x", n->ptr[k]);
		fputs("\"}", f);
		return n + 1;
	case DTC_NODE_BOOL:
		fputs(n->u ? "true" : "false", f);
		return n + 1;
	case DTC_NODE_NULL:
		fputs("null", f);
		return n + 1;
	case DTC_NODE_FLOAT: {
		char buf[40];

		snprintf(buf, sizeof(buf), "%.17g", n->f);
		/* keep it a real number when read back */
		if (strpbrk(buf, ".eEn") == NULL)
			strcat(buf, ".0");
		if (strpbrk(buf, "ni") != NULL) {
			*why = "a NaN or infinite float";
			return NULL;
		}
		fputs(buf, f);
		return n + 1;
	}
	case DTC_NODE_ARRAY:
		fputc('[', f);
		for (i = 0, c = n + 1; i < n->count; i++) {
			if (i > 0)
				fputc(',', f);
			if ((c = json_node(f, c, why)) == NULL)
				return NULL;
		}
		fputc(']', f);
		return c;
	case DTC_NODE_MAP:
		fputc('{', f);
		for (i = 0, c = n + 1; i < n->count; i++) {
			if (c->type != DTC_NODE_TEXT) {
				*why = "a map key that is not text";
				return NULL;
			}
			if (i > 0)
				fputc(',', f);
			json_text(f, c->ptr, c->len);
			fputc(':', f);
			if ((c = json_node(f, c + 1, why)) == NULL)
				return NULL;
		}
		fputc('}', f);
		return c;
	}
	*why = n->type == DTC_NODE_TAG ? "a CBOR tag" :
	    n->type == DTC_NODE_SIMPLE ? "a CBOR simple value" :
	    n->type == DTC_NODE_SKIPPED ? "a value nested too deep" :
	    "an undefined value";
	return NULL;
}

/* Every item of a capture as a JSON line (or its raw bytes through w,
 * cbor). */
static int
cbor_out(cli *c, dtc_container *cont, const char *name, const uint8_t *raw,
    FILE *out, dtc_writer *w)
{
	dtc_item it;
	dtc_error err;
	const char *why;
	int rc, bad = 0;

	for (;;) {
		dtc_error_clear(&err);
		rc = dtc_container_next(cont, &it, &err);
		if (rc == DTC_EOF)
			break;
		if (rc != DTC_OK) {
			if (err.source[0] == '\0')
				snprintf(err.source, sizeof(err.source), "%s",
				    name);
			cli_report(c, &err);
			bad = 1;
			if (rc == DTC_FATAL)
				break;
			continue;
		}
		if (w != NULL) {
			/* CBOR to CBOR: the item's own bytes */
			if (dtc_writer_put_item(w, raw + it.offset, it.size,
			    &err) != DTC_OK) {
				snprintf(err.source, sizeof(err.source), "%s",
				    "output");
				cli_report(c, &err);
				return -1;
			}
			continue;
		}
		why = NULL;
		if (json_node(out, &it.nodes[0], &why) == NULL) {
			cli_warn(c, "%s: item %lld, offset %zu: %s has no JSON "
			    "form", name, it.index, it.offset, why);
			bad = 1;
		}
		fputc('\n', out);
	}
	return bad ? -1 : 0;
}

/*
 * A compressed input, decompressed whole (convert copies items out of
 * one buffer); damaged frames are reported and left out, as every reader
 * does.  -1: out of memory or a read error (reported); 1: damage.
 */
static int
unzstd(cli *c, const char *name, uint8_t **buf, size_t *len)
{
	obuf b = { NULL, 0, 0, 0 };
	dtc_zstd *z;
	uint8_t chunk[65536];
	dtc_error err;
	size_t n;
	int rc, damaged = 0;

	if ((z = dtc_zstd_open_memory(*buf, *len, &err)) == NULL) {
		cli_warn(c, "%s: out of memory", name);
		return -1;
	}
	for (;;) {
		dtc_error_clear(&err);
		rc = dtc_zstd_read(z, chunk, sizeof(chunk), &n, &err);
		if (rc == DTC_OK) {
			ob_put(&b, chunk, n);
			continue;
		}
		if (rc == DTC_EOF)
			break;
		if (rc != DTC_WARN) {
			b.nomem = 1;
			break;
		}
		cli_warn(c, "%s: offset %lld: %s", name, err.offset, err.text);
		damaged = 1;
	}
	dtc_zstd_close(z);
	if (b.nomem) {
		cli_warn(c, "%s: out of memory", name);
		free(b.p);
		return -1;
	}
	free(*buf);
	*buf = b.p;
	*len = b.len;
	return damaged;
}

/* The whole input: files are small enough, and stdin cannot be mapped. */
static int
read_all(cli *c, const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rbe");
	obuf b = { NULL, 0, 0, 0 };
	uint8_t chunk[65536];
	size_t n;

	if (f == NULL) {
		cli_warn(c, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ob_put(&b, chunk, n);
	if (ferror(f) || b.nomem) {
		cli_warn(c, "%s: %s", path, b.nomem ? "out of memory" :
		    strerror(errno));
		if (f != stdin)
			fclose(f);
		free(b.p);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	*buf = b.p;
	*len = b.len;
	return 0;
}

static int
cmd_convert(cli *c, int argc, char **argv)
{
	const char *in = NULL, *outpath = NULL, *fmt = NULL, *name;
	uint8_t *buf = NULL;
	size_t len = 0, k;
	obuf cb = { NULL, 0, 0, 0 };
	dtc_container *cont;
	dtc_error err;
	cli_out o;
	dtc_writer *w = NULL;
	FILE *out = stdout;
	int i, injson, tojson, rc = -1, wrote = 0, zlevel = -1, inzstd;
	int zbad = 0;
	char *end;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(convert_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "--no-zstd") == 0) {
			zlevel = 0;
		} else if (strcmp(argv[i], "--zstd") == 0) {
			zlevel = 3;
		} else if (strncmp(argv[i], "--zstd=", 7) == 0) {
			errno = 0;
			zlevel = (int)strtol(argv[i] + 7, &end, 10);
			if (errno != 0 || end == argv[i] + 7 || *end != '\0' ||
			    zlevel < 1 || zlevel > DTC_ZSTD_LEVEL_MAX)
				cli_usage_error(c, "convert: --zstd takes a "
				    "level from 1 to %d, not '%s'",
				    DTC_ZSTD_LEVEL_MAX, argv[i] + 7);
		} else if (strcmp(argv[i], "-f") == 0 ||
		    strcmp(argv[i], "-o") == 0) {
			if (i + 1 == argc)
				cli_usage_error(c, "convert: %s needs a value",
				    argv[i]);
			if (argv[i][1] == 'f')
				fmt = argv[++i];
			else
				outpath = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			cli_usage_error(c, "convert: unknown option '%s'",
			    argv[i]);
		} else if (in == NULL) {
			in = argv[i];
		} else {
			cli_usage_error(c, "convert: one input at a time");
		}
	}
	if (in == NULL)
		cli_usage_error(c, "convert: no input given");
	if (fmt != NULL && strcmp(fmt, "json") != 0 && strcmp(fmt, "cbor") != 0)
		cli_usage_error(c, "convert: -f takes json or cbor, not '%s'",
		    fmt);
	if (read_all(c, in, &buf, &len) != 0)
		return CLI_EXIT_WARN;
	name = strcmp(in, "-") == 0 ? "<stdin>" : in;
	if ((inzstd = dtc_zstd_is_frame(buf, len)) &&
	    (zbad = unzstd(c, name, &buf, &len)) < 0) {
		free(buf);
		return CLI_EXIT_WARN;
	}
	for (k = 0; k < len && strchr(" \t\r\n", buf[k]) != NULL; k++)
		;
	injson = k < len && buf[k] == '{';
	/* --zstd and --no-zstd are about CBOR output: they ask for it */
	tojson = fmt != NULL ? fmt[0] == 'j' : !injson && zlevel < 0;
	if (tojson && zlevel > 0)
		cli_usage_error(c, "convert: --zstd compresses CBOR output, "
		    "not JSON Lines");
	if (zlevel < 0)
		zlevel = inzstd ? 3 : 0;
	if (cli_out_open(c, &o, outpath != NULL && strcmp(outpath, "-") != 0 ?
	    outpath : NULL) != 0) {
		free(buf);
		return CLI_EXIT_WARN;
	}
	out = o.fp;
	if (injson) {
		if (json_to_cbor(c, name, (const char *)buf, len, &cb) != 0)
			goto out;
		free(buf);
		buf = cb.p;
		len = cb.len;
		cb.p = NULL;
		if (!tojson && zlevel == 0) {
			fwrite(buf, 1, len, out);
			rc = 0;
			goto out;
		}
	}
	if (!tojson && (w = dtc_writer_new_raw(out, zlevel, &err)) == NULL) {
		cli_report(c, &err);
		goto out;
	}
	dtc_error_clear(&err);
	if ((cont = dtc_container_open_memory(buf, len, name, &err)) == NULL) {
		cli_report(c, &err);
		goto out;
	}
	rc = cbor_out(c, cont, name, buf, out, w);
	/* damaged items were said: the rest is converted, as dtconsume
	 * keeps a damaged capture's output */
	wrote = 1;
	dtc_container_close(cont);
	if (w != NULL && rc == 0 && dtc_writer_flush(w, &err) != DTC_OK) {
		cli_report(c, &err);
		rc = -1;
	}
out:
	/* the writer ends its last frame into OUT before OUT is closed */
	dtc_writer_free(w);
	/* an input that could not be converted leaves OUT as it was */
	if (cli_out_close(c, &o, rc == 0 || wrote, 0, 0) != 0)
		rc = -1;
	free(buf);
	free(cb.p);
	return rc == 0 && zbad == 0 ? CLI_EXIT_OK : CLI_EXIT_WARN;
}

/* ------------------------------------------------------------------ */
/* info                                                                */
/* ------------------------------------------------------------------ */

static const char info_usage[] =
"usage: dtsnap info FILE\n"
"\n"
"Describe a capture: its header, items, passes, time span, options, the\n"
"principal and aggregation buffers of every CPU (bytes, records, drops),\n"
"the probes (as dtrace -l lists them), the enabled probes, the\n"
"aggregations and the format strings.  Problems met on the way (what\n"
"cannot be read) go to standard error and make the exit status 1;\n"
"dtsnap validate checks the capture as dtconsume does.\n";

/* The ids of a table, ascending; caller frees (NULL: no memory). */
static uint32_t *
table_ids(const snap *s, int kind, size_t *n)
{
	uint32_t *ids;

	return dtc_tables_ids(s->tables, kind, &ids, n, NULL) == DTC_OK ?
	    ids : NULL;
}

static void
put_duration(FILE *f, uint64_t ns)
{
	if (ns >= 1000000000ull)
		fprintf(f, "%.3f s", ns / 1e9);
	else if (ns >= 1000000)
		fprintf(f, "%.3f ms", ns / 1e6);
	else if (ns >= 1000)
		fprintf(f, "%.3f us", ns / 1e3);
	else
		fprintf(f, "%" PRIu64 " ns", ns);
}

/*
 * Capture text (names, options, the producer) as info prints it: control
 * characters as \xNN, so that a hostile capture cannot move the cursor or
 * recolour the terminal of whoever inspects it.  Into buf (cut to fit).
 */
static const char *
esc(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s != '\0' && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return buf;
}

/* hrtime -> UTC through the clock item (hrtime/walltime pair). */
static void
put_wall(FILE *f, uint64_t w)
{
	int64_t wall = (int64_t)w;
	time_t sec = (time_t)(wall / 1000000000);
	long ns = (long)(wall % 1000000000);
	struct tm tm;
	char buf[32];

	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	if (gmtime_r(&sec, &tm) == NULL)
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "%s.%09ld UTC", buf, ns);
}

static void info_types(snap *s, FILE *f);

static void
info_tables(snap *s, FILE *f)
{
	const dtc_probedesc *p;
	const dtc_eprobedesc *ep;
	const dtc_aggdesc *ad;
	const dtc_format *fm;
	uint32_t *ids;
	size_t n, i;
	char buf[16];

	if ((ids = table_ids(s, DTC_TABLES_PROBE, &n)) != NULL && n > 0) {
		fprintf(f, "\n%5s %10s %17s %33s %s\n", "ID", "PROVIDER",
		    "MODULE", "FUNCTION", "NAME");
		for (i = 0; i < n; i++) {
			char e1[256], e2[256], e3[256], e4[256];

			p = dtc_tables_probe(s->tables, ids[i]);
			fprintf(f, "%5u %10s %17s %33s %s\n", p->id,
			    esc(e1, sizeof(e1), p->provider),
			    esc(e2, sizeof(e2), p->module),
			    esc(e3, sizeof(e3), p->function),
			    esc(e4, sizeof(e4), p->name));
		}
	}
	free(ids);
	if ((ids = table_ids(s, DTC_TABLES_EPROBE, &n)) != NULL && n > 0) {
		fprintf(f, "\n%5s %5s %6s %5s %s\n", "EPID", "ID", "SIZE",
		    "RECS", "PROBE");
		for (i = 0; i < n; i++) {
			ep = dtc_tables_eprobe(s->tables, ids[i]);
			fprintf(f, "%5u %5u %6u %5u ", ep->epid, ep->probeid,
			    ep->size, ep->nrecs);
			if (ep->probe != NULL) {
				char e1[256], e2[256], e3[256], e4[256];

				fprintf(f, "%s:%s:%s:%s",
				    esc(e1, sizeof(e1), ep->probe->provider),
				    esc(e2, sizeof(e2), ep->probe->module),
				    esc(e3, sizeof(e3), ep->probe->function),
				    esc(e4, sizeof(e4), ep->probe->name));
			}
			else
				fputs("(unknown probe)", f);
			fputs(ep->uarg == 1 ? " (the ERROR enabling)\n" :
			    ep->size == 0 ? " (records nothing)\n" : "\n", f);
		}
	}
	free(ids);
	if ((ids = table_ids(s, DTC_TABLES_AGG, &n)) != NULL && n > 0) {
		fprintf(f, "\n%5s %5s %6s %-11s %4s %6s %s\n", "AGGID", "EPID",
		    "VARID", "FUNCTION", "KEYS", "SIZE", "NAME");
		for (i = 0; i < n; i++) {
			char e1[256];

			ad = dtc_tables_agg(s->tables, ids[i]);
			fprintf(f, "%5u %5u %6" PRId64 " %-11s %4u %6u @%s\n",
			    ad->id, ad->epid, ad->varid, ad->nrecs > 0 ?
			    action_name(ad->recs[ad->nrecs - 1].action, buf,
			    sizeof(buf)) : "-", ad->nrecs > 2 ? ad->nrecs - 2 : 0,
			    ad->size, esc(e1, sizeof(e1), ad->name));
		}
	}
	free(ids);
	if ((ids = table_ids(s, DTC_TABLES_FORMAT, &n)) != NULL && n > 0) {
		fprintf(f, "\n%5s %s\n", "FMT", "STRING");
		for (i = 0; i < n; i++) {
			const char *str;

			fm = dtc_tables_format(s->tables, ids[i]);
			str = dtc_format_string(fm);
			fprintf(f, "%5u ", ids[i]);
			json_text(f, (const uint8_t *)str, strlen(str));
			fputc('\n', f);
		}
	}
	free(ids);
	info_types(s, f);
}

/* print()'s types: each ctf item's module and the types its ids name
 * (names come from the capture: quoted and escaped like format strings). */
static void
info_types(snap *s, FILE *f)
{
	const char *module, *why, *name;
	const uint64_t *ids;
	size_t i, k, bytes, npairs;

	for (i = 0; dtc_tables_ctf_item(s->tables, i, &module, &bytes, &ids,
	    &npairs) == DTC_OK; i++) {
		if (i == 0)
			fprintf(f, "\n%7s %10s %s\n", "BYTES", "ID",
			    "MODULE TYPE");
		if (npairs == 0) {
			fprintf(f, "%7zu %10s ", bytes, "-");
			json_text(f, (const uint8_t *)module, strlen(module));
			fputs(" (ids as the records give them)\n", f);
		}
		for (k = 0; k < npairs; k++) {
			const dtc_ctype *t = dtc_tables_ctf_type(s->tables, module,
			    ids[2 * k], &why);

			fprintf(f, "%7zu %10" PRIu64 " ", bytes, ids[2 * k]);
			json_text(f, (const uint8_t *)module, strlen(module));
			fputc(' ', f);
			if (t != NULL) {
				name = dtc_ctype_name(t);
				json_text(f, (const uint8_t *)name,
				    strlen(name));
				fputc('\n', f);
			} else {
				fprintf(f, "(unreadable: %s)\n", why);
			}
		}
	}
}

static void
info_print(snap *s, walkstat *w, FILE *f)
{
	uint64_t wmin, wmax;
	uint32_t i;
	size_t k;

	char e1[256], e2[256], e3[256];

	fprintf(f, "file         %s\n", s->path);
	fprintf(f, "format       dtsnap %" PRIu64 ".%" PRIu64 ", written by "
	    "%s\n", s->vmajor, s->vminor, s->producer[0] ?
	    esc(e1, sizeof(e1), s->producer) : "?");
	fprintf(f, "host         %s (%s%s%s), %s-endian %s, %u CPU%s, "
	    "dt_act_base %u\n", s->host[0] ? esc(e1, sizeof(e1), s->host) :
	    "?", esc(e2, sizeof(e2), s->os), s->release[0] ? " " : "",
	    esc(e3, sizeof(e3), s->release), s->big ? "big" : "little",
	    s->ilp32 ? "ILP32" : "LP64", s->ncpu, s->ncpu == 1 ? "" : "s",
	    s->act_base);
	fprintf(f, "items        %" PRIu64 " (", w->items);
	for (k = 0; k < w->nkinds; k++)
		fprintf(f, "%s%" PRIu64 " %s", k > 0 ? ", " : "",
		    w->kinds[k].n, w->kinds[k].kind);
	fprintf(f, ")\n");
	fprintf(f, "passes       %" PRIu64 "\n", w->maxpass);
	fprintf(f, "records      %" PRIu64 "; aggregation entries %" PRIu64
	    "\n", w->records, w->entries);
	if (w->have_ts) {
		fprintf(f, "time span    %" PRIu64 " .. %" PRIu64 " (",
		    w->tsmin, w->tsmax);
		put_duration(f, w->tsmax - w->tsmin);
		fputs(")\n", f);
		/* modulo 2^64, as the kernel's counters wrap: a capture
		 * may pair any two values */
		if (dtc_tables_walltime(s->tables, w->tsmin, &wmin) ==
		    DTC_OK &&
		    dtc_tables_walltime(s->tables, w->tsmax, &wmax) ==
		    DTC_OK) {
			fputs("wall clock   ", f);
			put_wall(f, wmin);
			fputs(" .. ", f);
			put_wall(f, wmax);
			fputc('\n', f);
		}
	}
	if (s->have_end && w->end_status_known)
		fprintf(f, "end          exit status %" PRId64 "\n",
		    w->exit_status);
	else
		fprintf(f, "end          none: the capture was cut short\n");
	part_print(f, &w->part);
	if (w->nopts > 0) {
		fputs("options     ", f);
		for (k = 0; k < w->nopts; k++)
			fprintf(f, " %s=%s", esc(e1, sizeof(e1),
			    w->opts[k].name), esc(e2, sizeof(e2),
			    w->opts[k].value));
		fputc('\n', f);
	}
	fprintf(f, "\n%3s %5s %10s %8s %7s %6s %7s %10s %7s %8s\n", "CPU",
	    "BUFS", "BYTES", "RECORDS", "DROPS", "ERRORS", "AGGBUFS",
	    "AGGBYTES", "ENTRIES", "AGGDROPS");
	for (i = 0; i < w->ncpus; i++) {
		const cpustat *c = &w->cpus[i];

		fprintf(f, "%3u %5" PRIu64 " %10" PRIu64 " %8" PRIu64 " %7"
		    PRIu64 " %6" PRIu64 " %7" PRIu64 " %10" PRIu64 " %7" PRIu64
		    " %8" PRIu64 "\n", i, c->bufs, c->bytes, c->records,
		    c->drops, c->errors, c->aggbufs, c->aggbytes, c->entries,
		    c->aggdrops);
	}
	info_tables(s, f);
}

static int
cmd_info(cli *c, int argc, char **argv)
{
	const char *path = NULL;
	walkstat w;
	snap s;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(info_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			cli_usage_error(c, "info: unknown option '%s'", argv[i]);
		if (path != NULL)
			cli_usage_error(c, "info: one file at a time");
		path = argv[i];
	}
	if (path == NULL)
		cli_usage_error(c, "info: no file given");
	memset(&w, 0, sizeof(w));
	if (snap_open(&s, c, path) == 0 && walk_all(&s, &w) == 0)
		info_print(&s, &w, stdout);
	walk_free(&w);
	snap_close(&s);
	return s.nproblems > 0 ? CLI_EXIT_WARN : CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* synth                                                               */
/* ------------------------------------------------------------------ */

static const char synth_usage[] =
"usage: dtsnap synth DESC.json [-o OUT.dtsnap]\n"
"\n"
"Write the capture a JSON description stands for (testdata/SYNTH.md,\n"
"dtsnap(1)).  DESC \"-\" reads standard input; OUT defaults to standard\n"
"output.  Records and aggregation entries are laid out as the kernel\n"
"lays them out.\n";

static int
cmd_synth(cli *c, int argc, char **argv)
{
	const char *in = NULL, *outpath = NULL;
	cli_out o;
	dtc_error err;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(synth_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "-o") == 0) {
			if (++i == argc)
				cli_usage_error(c, "synth: -o needs a file name");
			outpath = argv[i];
		} else if (strncmp(argv[i], "-o", 2) == 0) {
			outpath = argv[i] + 2;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			cli_usage_error(c, "synth: unknown option '%s'", argv[i]);
		} else if (in == NULL) {
			in = argv[i];
		} else {
			cli_usage_error(c, "synth: one description at a time");
		}
	}
	if (in == NULL)
		cli_usage_error(c, "synth: no description given");
	if (cli_out_open(c, &o, outpath != NULL && strcmp(outpath, "-") != 0 ?
	    outpath : NULL) != 0)
		return CLI_EXIT_WARN;
	dtc_error_clear(&err);
	rc = synth_run(in, o.fp, &err);
	if (rc != 0 && err.code != DTC_E_NONE)
		cli_report(c, &err);
	/* a half-written capture would pass for one cut short: it never
	 * replaces OUT */
	if (cli_out_close(c, &o, rc == 0, 0, 0) != 0 || rc != 0)
		return CLI_EXIT_WARN;
	return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static const char main_usage[] =
"usage: dtsnap COMMAND [ARGS]\n"
"       dtsnap --version\n"
"\n"
"Commands:\n"
"  info FILE                       header, CPUs, passes, probes, aggregations\n"
"  validate FILE                   check every item and record\n"
"  dump FILE                       every item and principal record\n"
"  convert [-f json|cbor] IN [-o OUT]  CBOR <-> JSON Lines, zstd (--zstd)\n"
"  synth DESC.json [-o OUT]        write the capture a description stands for\n"
"  program [-S] FILE               the D source and options, or dtrace -S\n"
"  dof [-f text|json] FILE         list a DOF object (dtrace -G, .SUNW_dof)\n"
"  record [dtrace options] -o OUT  run D like dtrace(1), capture it (--tee)\n"
"  split [--passes N] IN -o OUT    cut a capture into a series of parts\n"
"\n"
"'dtsnap COMMAND --help' describes one command.  See dtsnap(1).\n";

int
main(int argc, char **argv)
{
	cli c;

	cli_init(&c, argv[0]);
	if (argc < 2)
		cli_usage_error(&c, "no command given");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(main_usage, stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		/* the same line as dtconsume --version */
		printf("dtsnap %s\n", dtc_version_string());
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "synth") == 0)
		return cmd_synth(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "dump") == 0)
		return cmd_dump(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "convert") == 0)
		return cmd_convert(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "validate") == 0)
		return cmd_validate(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "info") == 0)
		return cmd_info(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "program") == 0)
		return program_main(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "dof") == 0)
		return dtsnap_dof_main(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "split") == 0)
		return cmd_split(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "record") == 0) {
#ifdef HAVE_LIBDTRACE
		return record_main(argc - 1, argv + 1);
#else
		fputs("dtsnap record: this dtsnap was built without libdtrace "
		    "(configure --with-libdtrace=DIR)\n", stderr);
		return CLI_EXIT_USAGE;
#endif
	}
	cli_usage_error(&c, "unknown command '%s'", argv[1]);
}
