/*
 * select.h - record selection (dtc_reader_select): what select.c (the criteria:
 * parsing them, matching a firing against them) and consume.c (where the
 * reader applies them) share.  Private to the library.
 *
 * A firing is selected when it meets every criterion given; a criterion
 * given several times (or as a list) is met by any of its values.
 */
#ifndef DTC_SELECT_H
#define DTC_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "dtconsume.h"

/* A time bound as the caller wrote it; a record timestamp once resolved. */
enum dtcp_tform {
	DTCP_T_NONE = 0,
	DTCP_T_NS,      /* nanoseconds of the record timestamps */
	DTCP_T_REL,     /* +DURATION after the capture's first record */
	DTCP_T_WALL     /* wall-clock ns since the epoch (needs a clock item) */
};

typedef struct dtcp_tbound {
	enum dtcp_tform form;
	uint64_t v;              /* ns, in the form's terms */
	char text[40];           /* as given (cut), for messages */
} dtcp_tbound;

/* An inclusive range of numbers (CPUs, EPIDs). */
typedef struct dtcp_range {
	uint32_t lo, hi;
} dtcp_range;

/* A probe description split as dtrace splits one: provider, module,
 * function, name; "" matches anything. */
typedef struct dtcp_pglob {
	const char *f[4];        /* into mem */
	char *mem;               /* one allocation: the four fields */
} dtcp_pglob;

/* A cached verdict for one enabling (probe id, EPID). */
typedef struct dtcp_vslot {
	uint64_t key;            /* 0: empty; else (probeid << 32 | epid) + 1 */
	int match;
} dtcp_vslot;

typedef struct dtcp_select {
	dtcp_pglob *probes;
	size_t nprobes;
	dtcp_range *cpus, *epids;
	size_t ncpus, nepids;
	dtcp_tbound since, until;
	/* resolved time window [lo, hi]; empty: nothing can be in it */
	int time_ready, empty;
	uint64_t lo, hi;
	/* verdicts of the probe and EPID criteria by enabling: the globs
	 * are matched once per enabling, not once per firing; the last one
	 * apart, as firings of one enabling come in runs */
	dtcp_vslot *cache;
	size_t ncache, capcache;
	uint64_t last_key;
	int last_match;          /* -1: none yet */
	int by_enabling;         /* a probe or EPID criterion is set */
	int has_time;            /* since or until is set */
} dtcp_select;

void dtcp_select_init(dtcp_select *s);
void dtcp_select_free(dtcp_select *s);

/*
 * Add one criterion: what is "probe", "cpu", "epid", "since" or "until"
 * (dtc_reader_select's).  DTC_OK, or DTC_FAILED with the reason in why (lower
 * case, no period, it names the value).
 */
int dtcp_select_add(dtcp_select *s, const char *what, const char *value,
    char *why, size_t whylen);

/* 1 when since or until is set. */
static inline int
dtcp_select_has_time(const dtcp_select *s)
{
	return s->has_time;
}
/* The bound that is a wall-clock time (since first), or NULL. */
const dtcp_tbound *dtcp_select_wall_bound(const dtcp_select *s);
/* 1 when a bound counts from the first record. */
int dtcp_select_needs_first(const dtcp_select *s);

/*
 * Turn the bounds into record timestamps: clock_hr and clock_wall are
 * the capture's clock item (wall-clock bounds need one: the caller
 * checks dtcp_select_wall_bound first), first the timestamp of the
 * capture's first record (+DURATION bounds count from it).
 */
void dtcp_select_resolve(dtcp_select *s, uint64_t clock_hr,
    uint64_t clock_wall, uint64_t first);

/* The verdict for an enabling not just seen (select.c). */
int dtcp_select_lookup(dtcp_select *s, uint32_t epid, uint32_t probeid,
    const dtc_probedesc *probe);

/*
 * The probe and EPID criteria for one enabling: 1 when met.  probe may be
 * NULL (an unknown probe id: a probe criterion is then not met).  Called
 * for every firing: the common cases inline.
 */
static inline int
dtcp_select_enabling(dtcp_select *s, uint32_t epid, uint32_t probeid,
    const dtc_probedesc *probe)
{
	if (!s->by_enabling)
		return 1;
	if (s->last_match >= 0 && s->last_key == ((uint64_t)probeid << 32 |
	    epid))
		return s->last_match;
	return dtcp_select_lookup(s, epid, probeid, probe);
}

/* The CPU and time criteria for one record (time: resolve first). */
static inline int
dtcp_select_where(const dtcp_select *s, int cpu, uint64_t ts)
{
	size_t i;

	if (s->ncpus > 0) {
		for (i = 0; i < s->ncpus; i++)
			if (cpu >= 0 && (uint32_t)cpu >= s->cpus[i].lo &&
			    (uint32_t)cpu <= s->cpus[i].hi)
				break;
		if (i == s->ncpus)
			return 0;
	}
	if (s->time_ready && (s->empty || ts < s->lo || ts > s->hi))
		return 0;
	return 1;
}

/* Exposed for the unit tests: dtrace's probe description split (1 with
 * g filled, 0 with why) and the glob of one field. */
int dtcp_select_split_probe(const char *desc, dtcp_pglob *g, char *why,
    size_t whylen);
int dtcp_select_glob(const char *pattern, const char *s);
/* a time as since/until take it: DTC_OK or DTC_FAILED with why */
int dtcp_select_parse_time(const char *value, dtcp_tbound *b, char *why,
    size_t whylen);

#endif
