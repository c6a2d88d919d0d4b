/*
 * info_part.c - dtsnap info on a capture written as a part of a series
 * (dtsnap(5) SERIES): which series and part, the clock pair at its
 * start, how many items it repeats, and what its end item says it holds
 * (first and last record time, drops so far by CPU, a window's losses).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "dtconsume.h"
#include "parts.h"

static uint64_t
u(const dtc_node *map, const char *key)
{
	const dtc_node *n = dtc_node_get(map, key);

	return n != NULL && n->type == DTC_NODE_UINT ? n->u : 0;
}

void
part_note(partstat *p, const char *kind, long long index,
    const dtc_node *map)
{
	const dtc_node *n, *e;
	uint32_t i;

	if (strcmp(kind, "clock") == 0 && index == 1 &&
	    (n = dtc_node_get(map, "series")) != NULL &&
	    n->type == DTC_NODE_TEXT && n->len < sizeof(p->series)) {
		p->is_part = 1;
		memcpy(p->series, n->ptr, n->len);
		p->series[n->len] = '\0';
		p->part = u(map, "part");
		p->replayed = u(map, "replayed");
		p->hrtime = u(map, "hrtime");
		p->walltime = u(map, "walltime");
	} else if (strcmp(kind, "end") == 0 && p->is_part) {
		p->has_end = 1;
		p->more = u(map, "more");
		p->first = u(map, "first");
		p->last = u(map, "last");
		p->window = u(map, "window") != 0;
		p->let_go_records = u(map, "let_go_records");
		p->let_go_bytes = u(map, "let_go_bytes");
		p->ncpu = 0;
		if ((n = dtc_node_get(map, "drops")) != NULL &&
		    n->type == DTC_NODE_ARRAY)
			for (i = 0, e = dtc_node_child(n); i < n->count;
			    i++, e = dtc_node_next(e))
				if (i < PART_CPUS)
					p->drops[p->ncpu++] =
					    e->type == DTC_NODE_UINT ? e->u : 0;
	}
}

static void
utc(FILE *f, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[32];

	if (gmtime_r(&sec, &tm) == NULL)
		return;
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "%s.%09" PRIu64 " UTC", buf, ns % 1000000000u);
}

void
part_print(FILE *f, const partstat *p)
{
	uint32_t i;

	if (!p->is_part)
		return;
	fprintf(f, "series       %s, part %" PRIu64 " (%" PRIu64 " items "
	    "repeated from the parts before)\n", p->series, p->part,
	    p->replayed);
	fprintf(f, "part start   hrtime %" PRIu64 " = ", p->hrtime);
	utc(f, p->walltime);
	fputc('\n', f);
	if (!p->has_end)
		return;
	if (p->first != 0) {
		/* on the wall clock through the part's own clock pair */
		fprintf(f, "part records hrtime %" PRIu64 " .. %" PRIu64 " = ",
		    p->first, p->last);
		utc(f, p->walltime + (p->first - p->hrtime));
		fputs(" .. ", f);
		utc(f, p->walltime + (p->last - p->hrtime));
		fputc('\n', f);
	} else
		fputs("part records none\n", f);
	fprintf(f, "part end     %s\n", p->window ? "a window of the run's "
	    "newest records (--ring)" : p->more ? "the run goes on in the "
	    "next part" : "the run's end");
	if (p->window)
		fprintf(f, "let go       %" PRIu64 " records (%" PRIu64
		    " bytes) before the window\n", p->let_go_records,
		    p->let_go_bytes);
	fputs("drops so far", f);
	for (i = 0; i < p->ncpu; i++)
		fprintf(f, "%s cpu %u: %" PRIu64, i ? "," : "", i, p->drops[i]);
	fputs(p->ncpu == 0 ? " none counted\n" : "\n", f);
}
