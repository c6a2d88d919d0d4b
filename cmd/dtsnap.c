/*
 * dtsnap - inspect, check, dump, convert and synthesize .dtsnap
 * captures (dtsnap(1)).
 *
 * info, validate and dump read a capture with the library's own
 * container reader, metadata tables and buffer walker (dtc_private.h),
 * so that they see exactly what a decoder sees; convert maps the CBOR
 * items to JSON Lines and back without losing a bit; synth is in
 * synth*.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "synth.h"
#include "dtc_private.h"

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
	dtcp_container *cont;
	dtcp_meta meta;
	dtcp_walker walker;
	dtcp_item item;
	int swap, illumos, big, ilp32;
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
	dtc_error err;
	va_list ap;

	dtc_error_clear(&err);
	va_start(ap, fmt);
	dtcp_error_vset(&err, code, s->path, item, offset, cpu, fmt, ap);
	va_end(ap);
	problem(s, &err);
}

static void
copy_text(const dtcp_node *map, const char *key, char *buf, size_t len)
{
	const dtcp_node *n = dtcp_map_get(map, key);
	size_t k;

	buf[0] = '\0';
	if (n == NULL || n->type != DTCP_N_TEXT)
		return;
	k = n->len < len - 1 ? n->len : len - 1;
	memcpy(buf, n->ptr, k);
	buf[k] = '\0';
}

static uint64_t
node_u64(const dtcp_node *map, const char *key, uint64_t def)
{
	const dtcp_node *n = dtcp_map_get(map, key);

	return n != NULL && n->type == DTCP_N_UINT ? n->u : def;
}

/* Open and read the header; 0, or -1 when nothing can be read. */
static int
snap_open(snap *s, cli *c, const char *path)
{
	dtc_error err;
	const dtcp_node *h, *v;
	char bo[16], model[16];

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->path = path;
	dtc_error_clear(&err);
	if (strcmp(path, "-") == 0)
		s->cont = dtcp_container_open_fd(0, "<stdin>", &err);
	else
		s->cont = dtcp_container_open_file(path, &err);
	if (s->cont == NULL) {
		problem(s, &err);
		return -1;
	}
	if (dtcp_container_next(s->cont, &s->item, &err) != DTC_OK) {
		problem(s, &err);
		return -1;
	}
	h = &s->item.nodes[0];
	if ((v = dtcp_map_get(h, "version")) != NULL &&
	    v->type == DTCP_N_ARRAY && v->count >= 2) {
		s->vmajor = dtcp_array_at(v, 0)->u;
		s->vminor = dtcp_array_at(v, 1)->u;
	}
	copy_text(h, "byteorder", bo, sizeof(bo));
	copy_text(h, "model", model, sizeof(model));
	copy_text(h, "os", s->os, sizeof(s->os));
	copy_text(h, "release", s->release, sizeof(s->release));
	copy_text(h, "host", s->host, sizeof(s->host));
	copy_text(h, "producer", s->producer, sizeof(s->producer));
	s->big = strcmp(bo, "big") == 0;
	s->ilp32 = strcmp(model, "ILP32") == 0;
	s->swap = s->big != dtcp_host_big();
	s->illumos = strcasecmp(s->os, "illumos") == 0 ||
	    strcasecmp(s->os, "solaris") == 0 ||
	    strcasecmp(s->os, "sunos") == 0;
	s->ncpu = (uint32_t)node_u64(h, "ncpu", 0);
	s->act_base = (uint32_t)node_u64(h, "dt_act_base",
	    s->illumos ? 49 : 55);
	s->walker.meta = &s->meta;
	s->walker.swap = s->swap;
	s->walker.source = s->path;
	return 0;
}

static void
snap_close(snap *s)
{
	if (s->cont != NULL)
		dtcp_container_close(s->cont);
	dtcp_walker_free(&s->walker);
	dtcp_meta_free(&s->meta);
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
		rc = dtcp_container_next(s->cont, &s->item, &err);
		if (rc == DTC_WARN) {
			problem(s, &err);
			continue;
		}
		if (rc != DTC_OK) {
			problem(s, &err);
			return DTC_EOF;
		}
		rc = dtcp_meta_add_item(&s->meta, s->cont, &s->item,
		    s->illumos, &err);
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
	const dtcp_node *map = &s->item.nodes[0], *d;
	dtc_error err;

	memset(b, 0, sizeof(*b));
	dtc_error_clear(&err);
	if (dtcp_get_u64(s->cont, &s->item, map, "pass", 1, &b->pass,
	    &err) != DTC_OK ||
	    dtcp_get_u64(s->cont, &s->item, map, "cpu", 1, &b->cpu,
	    &err) != DTC_OK ||
	    dtcp_get_bytes(s->cont, &s->item, map, "data", 1, &b->data,
	    &b->size, &err) != DTC_OK) {
		problem(s, &err);
		return -1;
	}
	d = dtcp_map_get(map, "data");
	/* the bytes follow the string's header */
	b->data_off = d->offset + (size_t)(b->data - d->ptr) +
	    (b->size < 24 ? 1 : b->size < 256 ? 2 : b->size < 65536 ? 3 :
	    b->size < 4294967296ull ? 5 : 9);
	if (dtcp_get_u64(s->cont, &s->item, map, "drops", 0, &b->drops,
	    &err) == DTC_FAILED ||
	    (principal && (dtcp_get_u64(s->cont, &s->item, map, "errors", 0,
	    &b->errors, &err) == DTC_FAILED ||
	    dtcp_get_u64(s->cont, &s->item, map, "oldest", 0, &b->oldest,
	    &err) == DTC_FAILED ||
	    dtcp_get_u64(s->cont, &s->item, map, "timestamp", 0,
	    &b->timestamp, &err) == DTC_FAILED)))
		problem(s, &err);
	if (b->cpu >= s->ncpu)
		problemf(s, s->item.index, (long long)s->item.offset, -1,
		    DTC_E_BADVALUE, "%s for cpu %" PRIu64 ", but the header "
		    "says %" PRIu32 " cpu%s", s->item.kind, b->cpu, s->ncpu,
		    s->ncpu == 1 ? "" : "s");
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
static void
put_node(FILE *f, const dtcp_node *n)
{
	size_t i;

	switch (n->type) {
	case DTCP_N_UINT:
		fprintf(f, "%" PRIu64, n->u);
		break;
	case DTCP_N_NEGINT:
		if (n->u < (uint64_t)INT64_MAX + 1)
			fprintf(f, "%" PRId64, -(int64_t)n->u - 1);
		else
			fprintf(f, "-1-%" PRIu64, n->u);
		break;
	case DTCP_N_TEXT:
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
	case DTCP_N_BYTES:
		fprintf(f, "<%zu bytes>", n->len);
		break;
	case DTCP_N_BOOL:
		fputs(n->u ? "true" : "false", f);
		break;
	case DTCP_N_NULL:
		fputs("null", f);
		break;
	case DTCP_N_ARRAY:
	case DTCP_N_MAP: {
		/* short lists of scalars inline (version, options) */
		const dtcp_node *c = dtcp_first_child(n);
		uint32_t k, nc = n->type == DTCP_N_MAP ? n->count * 2 : n->count;

		for (k = 0; k < nc && c->span == 1; k++)
			c = dtcp_next_sibling(c);
		if (nc > 32 || k < nc) {
			fprintf(f, n->type == DTCP_N_MAP ? "{%u keys}" :
			    "[%u elements]", n->count);
			break;
		}
		fputc(n->type == DTCP_N_MAP ? '{' : '[', f);
		c = dtcp_first_child(n);
		for (k = 0; k < nc; k++, c = dtcp_next_sibling(c)) {
			if (k > 0)
				fputs(n->type == DTCP_N_MAP && k % 2 == 1 ?
				    "=" : ", ", f);
			if (n->type == DTCP_N_MAP && k % 2 == 0 &&
			    c->type == DTCP_N_TEXT)
				fprintf(f, "%.*s", (int)c->len,
				    (const char *)c->ptr);
			else
				put_node(f, c);
		}
		fputc(n->type == DTCP_N_MAP ? '}' : ']', f);
		break;
	}
	default:
		fputs("?", f);
		break;
	}
}

/* Every key of an item but "t", as key=value. */
static void
put_fields(FILE *f, const dtcp_node *map)
{
	const dtcp_node *k = dtcp_first_child(map), *v;
	uint32_t i;
	int first = 1;

	for (i = 0; i < map->count; i++, k = dtcp_next_sibling(v)) {
		v = dtcp_next_sibling(k);
		if (k->type == DTCP_N_TEXT && k->len == 1 && k->ptr[0] == 't')
			continue;
		fputs(first ? " " : ", ", f);
		first = 0;
		if (k->type == DTCP_N_TEXT)
			fprintf(f, "%.*s", (int)k->len, (const char *)k->ptr);
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
	dtcp_walkrec rec;
	dtc_error err;
	bufitem b;
	size_t end = 0;
	uint32_t i;
	int rc;

	if (get_bufitem(s, &b, 1) != 0)
		return;
	s->walker.cpu = (int)b.cpu;
	s->walker.item = s->item.index;
	s->walker.file_offset = b.data_off;
	dtc_error_clear(&err);
	if (dtcp_walker_start(&s->walker, b.data, b.size, b.oldest, &err) !=
	    DTC_OK)
		problem(s, &err);
	for (;;) {
		dtc_error_clear(&err);
		rc = dtcp_walker_next(&s->walker, &rec, &err);
		if (rc == DTC_EOF)
			break;
		if (rc != DTC_OK) {
			problem(s, &err);
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
	if (s->walker.size > end && s->walker.pos >= s->walker.size &&
	    err.code == DTC_E_NONE)
		fprintf(f, "  cpu %d: %zu bytes of EPIDNONE at the end\n",
		    (int)b.cpu, s->walker.size - end);
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
		aggid = dtcp_ld32(b.data + pos, s->swap);
		if (aggid == 0) {
			pos += 4;
			continue;
		}
		if ((ad = dtcp_meta_agg(&s->meta, aggid)) == NULL) {
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
	const dtcp_node *map = &s->item.nodes[0];
	const dtc_eprobedesc *ep;
	const dtc_aggdesc *ad;

	fprintf(f, "item %lld, offset %zu: %s", s->item.index, s->item.offset,
	    s->item.kind);
	put_fields(f, map);
	fputc('\n', f);
	if (strcmp(s->item.kind, "eprobe") == 0 &&
	    (ep = dtcp_meta_eprobe(&s->meta, (uint32_t)node_u64(map, "epid",
	    0))) != NULL)
		put_recs(s, f, ep->nrecs, ep->recs);
	else if (strcmp(s->item.kind, "agg") == 0 &&
	    (ad = dtcp_meta_agg(&s->meta, (uint32_t)node_u64(map, "id",
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
	FILE *out = stdout;
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
	if (outpath != NULL && strcmp(outpath, "-") != 0 &&
	    (out = fopen(outpath, "wb")) == NULL) {
		cli_warn(c, "%s: %s", outpath, strerror(errno));
		return CLI_EXIT_WARN;
	}
	dtc_error_clear(&err);
	rc = synth_run(in, out, &err);
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		cli_warn(c, "%s: %s", outpath, strerror(errno));
		rc = -1;
	}
	if (rc != 0) {
		if (err.code != DTC_E_NONE)
			cli_report(c, &err);
		/* a half-written capture would pass for one cut short */
		if (out != stdout)
			(void)unlink(outpath);
		return CLI_EXIT_WARN;
	}
	return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static const char main_usage[] =
"usage: dtsnap COMMAND [ARGS]\n"
"\n"
"Commands:\n"
"  info FILE                       header, CPUs, passes, probes, aggregations\n"
"  validate FILE                   check every item and record\n"
"  dump FILE                       every item and principal record\n"
"  convert [-f json|cbor] IN [-o OUT]  CBOR <-> JSON Lines\n"
"  synth DESC.json [-o OUT]        write the capture a description stands for\n"
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
	if (strcmp(argv[1], "synth") == 0)
		return cmd_synth(&c, argc - 1, argv + 1);
	if (strcmp(argv[1], "dump") == 0)
		return cmd_dump(&c, argc - 1, argv + 1);
	cli_usage_error(&c, "unknown command '%s'", argv[1]);
}
