/*
 * split.c - dtsnap split: a capture cut into a series of parts at pass
 * boundaries, each a capture on its own, through the same series writer
 * as dtsnap record --switch-output (libdtconsume/container/series.c): what a part
 * repeats is exactly what a recorder's part would repeat.  Items are
 * copied as they are, renumbered.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dtconsume.h"
#include "parts.h"

static const char split_usage[] =
"usage: dtsnap split [--passes N] [-z[LEVEL]] capture -o OUT\n"
"\n"
"Cut a capture into a series of parts, N consume passes each (default\n"
"1), as dtsnap record writes them when it switches output:\n"
"OUT.000000.dtsnap, OUT.000001.dtsnap, ... (OUT.000000 ... when OUT does\n"
"not end in .dtsnap).  Each part is a capture on its own; dtconsume of\n"
"all the parts prints what dtconsume of the capture prints.  -z\n"
"compresses the parts with zstd.  The capture must not be compressed\n"
"(decompress it with dtsnap convert first).  See dtsnap(5), SERIES.\n";

int
part_path(char *buf, size_t len, const char *base, long index)
{
	static const char sfx[] = ".dtsnap";
	size_t bl = strlen(base), sl = sizeof(sfx) - 1;
	int n;

	if (bl > sl && strcmp(base + bl - sl, sfx) == 0)
		n = snprintf(buf, len, "%.*s.%06ld%s", (int)(bl - sl), base,
		    index, sfx);
	else
		n = snprintf(buf, len, "%s.%06ld", base, index);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

void
series_name(char *buf, size_t len)
{
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint64_t)time(NULL) << 24 ^ (uint64_t)getpid();
	snprintf(buf, len, "%016" PRIx64, r);
}

/* The state of the part being written. */
struct split {
	cli *c;
	const char *in, *out;
	dtc_series_writer *s;
	cli_out o;
	int open;
	char name[4096];
	uint64_t hr, wall;      /* the newest clock pair: a part's start */
	dtc_part_end e;
	uint64_t *drops;
	uint32_t ncpu;
	long long passes;       /* in this part */
	uint64_t pass;          /* the last pass seen */
	int seen_pass;
};

/* A message names the part (its tail when long, as the library does). */
static void
set_source(dtc_error *err, const char *name)
{
	size_t n = strlen(name);

	if (n >= sizeof(err->source)) {
		name += n - (sizeof(err->source) - 1);
		n = sizeof(err->source) - 1;
	}
	memcpy(err->source, name, n);
	err->source[n] = '\0';
}

static int
open_part(struct split *sp)
{
	dtc_error err = DTC_ERROR_INIT;

	if (part_path(sp->name, sizeof(sp->name), sp->out,
	    dtc_series_index(sp->s) + 1) != 0) {
		cli_warn(sp->c, "%s: name too long for its parts", sp->out);
		return -1;
	}
	if (cli_out_open(sp->c, &sp->o, sp->name) != 0)
		return -1;
	if (dtc_series_begin_part(sp->s, sp->o.fp, sp->hr, sp->wall, &err) == NULL) {
		set_source(&err, sp->name);
		cli_report(sp->c, &err);
		(void)cli_out_close(sp->c, &sp->o, 0, 0, 0);
		return -1;
	}
	sp->open = 1;
	sp->passes = 0;
	sp->e.first = sp->e.last = 0;
	return 0;
}

static int
close_part(struct split *sp, int more, int exit_status)
{
	dtc_error err = DTC_ERROR_INIT;
	int rc;

	sp->open = 0;
	sp->e.more = more;
	sp->e.exit_status = exit_status;
	sp->e.ncpu = sp->ncpu;
	sp->e.drops = sp->drops;
	rc = dtc_series_end_part(sp->s, &sp->e, &err);
	if (rc != DTC_OK) {
		set_source(&err, sp->name);
		cli_report(sp->c, &err);
	}
	return cli_out_close(sp->c, &sp->o, rc == DTC_OK, rc != DTC_OK, 0) ||
	    rc != DTC_OK ? -1 : 0;
}

static uint64_t
u64(const dtc_container *cont, const dtc_item *it, const char *key)
{
	uint64_t v = 0;

	(void)dtc_item_get_uint(cont, it, &it->nodes[0], key, 0, &v, NULL);
	return v;
}

/* What the end item says of the part: times and drops so far. */
static void
note_item(struct split *sp, const dtc_container *cont, const dtc_item *it)
{
	uint64_t cpu, t = 0;

	if (strcmp(it->kind, "clock") == 0) {
		sp->hr = u64(cont, it, "hrtime");
		sp->wall = u64(cont, it, "walltime");
		if (dtc_node_get(&it->nodes[0], "pass") != NULL)
			t = sp->hr;
	} else if (strcmp(it->kind, "buf") == 0) {
		t = u64(cont, it, "timestamp");
	}
	if (t != 0) {
		if (sp->e.first == 0)
			sp->e.first = t;
		sp->e.last = t;
	}
	if ((strcmp(it->kind, "drop") == 0 || strcmp(it->kind, "buf") == 0) &&
	    (cpu = u64(cont, it, "cpu")) < sp->ncpu)
		sp->drops[cpu] += u64(cont, it, "drops");
}

/* Stream items carry the pass they belong to. */
static int
pass_of(const dtc_container *cont, const dtc_item *it, uint64_t *pass)
{
	static const char *const kinds[] = { "recs", "aggsnap", "buf",
	    "aggbuf", "status", "clock", "drop", "fault", "interrupt" };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(it->kind, kinds[i]) == 0)
			return dtc_item_get_uint(cont, it, &it->nodes[0], "pass", 0,
			    pass, NULL) == DTC_OK;
	return 0;
}

static int
read_file(cli *c, const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 0, n;
	uint8_t *p = NULL, *np;

	*len = 0;
	if (f == NULL) {
		cli_warn(c, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (cap - *len < 65536) {
			cap = cap ? 2 * cap : 1 << 20;
			if ((np = realloc(p, cap)) == NULL) {
				cli_warn(c, "%s: out of memory", path);
				break;
			}
			p = np;
		}
		n = fread(p + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(f) || (cap != 0 && p == NULL)) {
		cli_warn(c, "%s: read error", path);
		free(p);
		p = NULL;
	}
	if (f != stdin)
		fclose(f);
	*buf = p;
	return p == NULL ? -1 : 0;
}

int
cmd_split(cli *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "passes", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct split sp;
	dtc_error err = DTC_ERROR_INIT;
	dtc_container *cont;
	dtc_item it;
	const char *flavor;
	size_t flen, len;
	uint8_t *buf;
	char id[32], *end;
	long long per = 1;
	uint64_t pass, v;
	int ch, level = 0, rc, exit_status = 0, saw_end = 0, bad = 0;

	memset(&sp, 0, sizeof(sp));
	sp.c = c;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:z::h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			sp.out = optarg;
			break;
		case 'p':
			errno = 0;
			per = strtoll(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || per < 1)
				cli_usage_error(c, "split: --passes takes a "
				    "number of passes from 1, not '%s'", optarg);
			break;
		case 'z':
			level = 1;
			if (optarg != NULL && ((level = atoi(optarg)) < 1 ||
			    level > DTC_ZSTD_LEVEL_MAX))
				cli_usage_error(c, "split: -z takes a zstd "
				    "level from 1 to %d", DTC_ZSTD_LEVEL_MAX);
			break;
		case 'h':
			fputs(split_usage, stdout);
			return CLI_EXIT_OK;
		default:
			cli_usage_error(c, "split: bad option");
		}
	}
	if (optind + 1 != argc)
		cli_usage_error(c, "split: one capture, please");
	if (sp.out == NULL || strcmp(sp.out, "-") == 0)
		cli_usage_error(c, "split: -o OUT names the parts (OUT.000000"
		    ".dtsnap, ...): no standard output");
	sp.in = argv[optind];
	if (read_file(c, sp.in, &buf, &len) != 0)
		return CLI_EXIT_WARN;
	if (len >= 4 && memcmp(buf, "\x28\xb5\x2f\xfd", 4) == 0) {
		free(buf);
		cli_warn(c, "%s: a compressed capture: dtsnap convert "
		    "--no-zstd it first", sp.in);
		return CLI_EXIT_WARN;
	}
	if ((cont = dtc_container_open_memory(buf, len, sp.in, &err)) ==
	    NULL || dtc_container_next(cont, &it, &err) != DTC_OK) {
		cli_report(c, &err);
		dtc_container_close(cont);
		free(buf);
		return CLI_EXIT_WARN;
	}
	series_name(id, sizeof(id));
	flavor = NULL;
	(void)dtc_item_get_text(cont, &it, &it.nodes[0], "flavor", 0, &flavor,
	    &flen, NULL);
	sp.ncpu = (uint32_t)u64(cont, &it, "ncpu");
	if (sp.ncpu > 65536)
		sp.ncpu = 65536;
	sp.s = dtc_series_writer_new_raw(buf + it.offset, it.size,
	    flavor != NULL && flen == 9 && memcmp(flavor, "dtrace-v2", 9) == 0,
	    level, id, &err);
	if (sp.s == NULL || (sp.drops = calloc(sp.ncpu + 1,
	    sizeof(*sp.drops))) == NULL) {
		if (sp.s == NULL)
			cli_report(c, &err);
		else
			cli_warn(c, "out of memory");
		dtc_series_writer_free(sp.s);
		dtc_container_close(cont);
		free(buf);
		return CLI_EXIT_WARN;
	}
	rc = 0;
	while (rc == 0) {
		dtc_error_clear(&err);
		ch = dtc_container_next(cont, &it, &err);
		if (ch == DTC_EOF)
			break;
		if (ch != DTC_OK) {
			cli_report(c, &err);
			bad = 1;
			if (ch == DTC_FATAL)
				break;
			continue;
		}
		/* a part's own clock item and end: the split writes its own */
		if (strcmp(it.kind, "clock") == 0 && it.index == 1 &&
		    dtc_node_get(&it.nodes[0], "series") != NULL)
			continue;
		if (strcmp(it.kind, "end") == 0) {
			v = 0;
			(void)dtc_item_get_uint(cont, &it, &it.nodes[0],
			    "exit_status", 0, &v, NULL);
			exit_status = (int)v;
			saw_end = 1;
			break;
		}
		if (pass_of(cont, &it, &pass)) {
			if (sp.seen_pass && pass != sp.pass &&
			    sp.passes >= per && sp.open)
				rc = close_part(&sp, 1, 0);
			if (!sp.seen_pass || pass != sp.pass)
				sp.passes++;
			sp.seen_pass = 1;
			sp.pass = pass;
		}
		if (rc == 0 && !sp.open) {
			rc = open_part(&sp);
			if (sp.passes == 0 && sp.seen_pass)
				sp.passes = 1;
		}
		note_item(&sp, cont, &it);
		if (rc == 0 && dtc_series_put_item(sp.s, buf + it.offset,
		    it.size, &err) != DTC_OK) {
			set_source(&err, sp.name);
			cli_report(c, &err);
			rc = -1;
		}
	}
	if (rc == 0 && !sp.open)
		rc = open_part(&sp);
	if (rc == 0 && saw_end)
		rc = close_part(&sp, 0, exit_status);
	else if (sp.open) {
		/* the capture was cut short: so is its last part */
		dtc_series_writer_free(sp.s);
		sp.s = NULL;
		(void)cli_out_close(c, &sp.o, 1, 0, 0);
	}
	dtc_series_writer_free(sp.s);
	dtc_container_close(cont);
	free(sp.drops);
	free(buf);
	return rc != 0 || bad ? CLI_EXIT_WARN : CLI_EXIT_OK;
}
