/*
 * select.c - record selection (dtc_reader_select): the criteria a caller gives,
 * parsed once, and the tests consume.c makes of a firing.
 *
 * Probe descriptions follow dtrace(1): dtrace_xstr2desc splits
 * "provider:module:function:name" from the right, so "read:entry" is
 * function read, name entry, and fields left out or empty match
 * anything; each field is matched as dt_gmatch does (an empty pattern
 * matches anything, else fnmatch(3) without flags, which is what
 * dtrace-utils' gmatch() is, and what illumos' gmatch(3GEN) agrees with
 * on *, ? and [...]).  A description is matched once per enabling and
 * the verdict cached: firings come by the million, enablings by the
 * dozen.
 *
 * Times are kept as given until the capture says what they mean (its
 * flavor, its clock item, its first record): consume.c resolves them
 * before the first record set is tested.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoders.h"
#include "select.h"

/* Enablings whose verdict is kept; beyond that verdicts are recomputed
 * (a capture has that many enablings only if something is wrong). */
#define MAX_CACHE (1u << 20)
/* CPU ids as read_buf accepts them */
#define MAX_CPU 1000000u

void
dtcp_select_init(dtcp_select *s)
{
	memset(s, 0, sizeof(*s));
	s->last_match = -1;
}

void
dtcp_select_free(dtcp_select *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nprobes; i++)
		free(s->probes[i].mem);
	free(s->probes);
	free(s->cpus);
	free(s->epids);
	free(s->cache);
	dtcp_select_init(s);
}

const dtcp_tbound *
dtcp_select_wall_bound(const dtcp_select *s)
{
	if (s->since.form == DTCP_T_WALL)
		return &s->since;
	if (s->until.form == DTCP_T_WALL)
		return &s->until;
	return NULL;
}

int
dtcp_select_needs_first(const dtcp_select *s)
{
	return s->since.form == DTCP_T_REL || s->until.form == DTCP_T_REL;
}

/* ------------------------------------------------------------ probes */

int
dtcp_select_glob(const char *pattern, const char *s)
{
	return pattern[0] == '\0' || fnmatch(pattern, s, 0) == 0;
}

int
dtcp_select_split_probe(const char *desc, dtcp_pglob *g, char *why,
    size_t whylen)
{
	size_t len = strlen(desc), nf = 1, i;
	char *mem, *p;

	memset(g, 0, sizeof(*g));
	if (len == 0) {
		snprintf(why, whylen, "an empty probe description (':::' "
		    "matches every probe)");
		return 0;
	}
	for (i = 0; i < len; i++)
		nf += desc[i] == ':';
	if (nf > 4) {
		snprintf(why, whylen, "probe description '%.60s' has more than "
		    "four fields (provider:module:function:name)", desc);
		return 0;
	}
	if (strchr(desc, '$') != NULL) {
		snprintf(why, whylen, "probe description '%.60s': macro "
		    "variables ($1, $pid, ...) have no value offline", desc);
		return 0;
	}
	if ((mem = malloc(len + 1)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return 0;
	}
	memcpy(mem, desc, len + 1);
	g->mem = mem;
	/* the last field is the name, the one before it the function ...:
	 * fields not given are "" */
	for (i = 0; i < 4; i++)
		g->f[i] = mem + len;
	i = 4;
	while (i > 0) {
		p = strrchr(mem, ':');
		g->f[--i] = p != NULL ? p + 1 : mem;
		if (p == NULL)
			break;
		*p = '\0';
	}
	return 1;
}

static int
probe_matches(const dtcp_pglob *g, const dtc_probedesc *p)
{
	return dtcp_select_glob(g->f[0], p->provider) &&
	    dtcp_select_glob(g->f[1], p->module) &&
	    dtcp_select_glob(g->f[2], p->function) &&
	    dtcp_select_glob(g->f[3], p->name);
}

/* ------------------------------------------------------------ lists */

static int
in_ranges(const dtcp_range *r, size_t n, uint32_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v >= r[i].lo && v <= r[i].hi)
			return 1;
	return 0;
}

/* A decimal number up to max; 0 and *end past it, or -1. */
static int
number(const char *p, const char **end, uint32_t max, uint32_t *v)
{
	unsigned long long u = 0;
	const char *q = p;

	while (*q >= '0' && *q <= '9') {
		u = u * 10 + (unsigned long long)(*q - '0');
		if (u > max)
			return -1;
		q++;
	}
	if (q == p)
		return -1;
	*end = q;
	*v = (uint32_t)u;
	return 0;
}

/* "0,2-3": numbers and inclusive ranges, appended to *r. */
static int
parse_ranges(const char *what, const char *value, uint32_t max,
    dtcp_range **r, size_t *n, char *why, size_t whylen)
{
	const char *p = value, *end;
	dtcp_range one;
	size_t cap = *n;

	if (*p == '\0') {
		snprintf(why, whylen, "an empty %s list (give numbers and "
		    "ranges: 0,2-3)", what);
		return DTC_FAILED;
	}
	for (;;) {
		if (number(p, &end, max, &one.lo) != 0)
			goto bad;
		one.hi = one.lo;
		if (*end == '-' && number(end + 1, &end, max, &one.hi) != 0)
			goto bad;
		if (one.hi < one.lo) {
			snprintf(why, whylen, "%s list '%.60s': the range "
			    "%u-%u runs backwards", what, value, one.lo,
			    one.hi);
			return DTC_FAILED;
		}
		if (*end != ',' && *end != '\0')
			goto bad;
		if (*n == cap) {
			dtcp_range *nr;

			cap = cap ? cap * 2 : 4;
			if (cap > 65536 ||
			    (nr = realloc(*r, cap * sizeof(*nr))) == NULL) {
				snprintf(why, whylen, "%s list '%.60s': too "
				    "many items", what, value);
				return DTC_FAILED;
			}
			*r = nr;
		}
		(*r)[(*n)++] = one;
		if (*end == '\0')
			return DTC_OK;
		p = end + 1;
	}
bad:
	snprintf(why, whylen, "%s list '%.60s': give numbers from 0 to %u and "
	    "ranges, separated by commas (0,2-3)", what, value, max);
	return DTC_FAILED;
}

/* ------------------------------------------------------------ times */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil), so no time zone of this host enters. */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* exactly n digits at *p, then the character sep unless it is 0;
 * -1 when not */
static int
digits(const char **p, int n, char sep)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	if (sep != 0) {
		if (**p != sep)
			return -1;
		(*p)++;
	}
	return v;
}

/* YYYY-MM-DDTHH:MM[:SS[.fraction]] then Z or +HH:MM / -HH:MM (or +HHMM) */
static int
parse_wall(const char *s, uint64_t *ns, char *why, size_t whylen)
{
	static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31,
	    30, 31, 30, 31 };
	const char *p = s;
	int y, mo, d, h, mi, sec = 0, oh = 0, om = 0, sign = 0;
	uint64_t frac = 0, scale = 100000000;
	int64_t t;

	if ((y = digits(&p, 4, '-')) < 0 || (mo = digits(&p, 2, '-')) < 0 ||
	    (d = digits(&p, 2, 'T')) < 0 || (h = digits(&p, 2, ':')) < 0 ||
	    (mi = digits(&p, 2, 0)) < 0)
		goto bad;
	if (*p == ':') {
		p++;
		if ((sec = digits(&p, 2, 0)) < 0)
			goto bad;
		if (*p == '.' || *p == ',') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			for (; *p >= '0' && *p <= '9'; p++) {
				frac += (uint64_t)(*p - '0') * scale;
				/* digits past the ns count nothing */
				scale /= 10;
			}
		}
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if ((oh = digits(&p, 2, 0)) < 0)
			goto bad;
		if (*p == ':')
			p++;
		if ((om = digits(&p, 2, 0)) < 0)
			goto bad;
	} else if (*p == '\0') {
		snprintf(why, whylen, "'%.40s' has no time zone: add Z (UTC) "
		    "or an offset such as +01:00", s);
		return DTC_FAILED;
	} else {
		goto bad;
	}
	if (*p != '\0')
		goto bad;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    (unsigned)d > mdays[mo - 1] || (mo == 2 && d == 29 &&
	    (y % 4 != 0 || (y % 100 == 0 && y % 400 != 0))) || h > 23 ||
	    mi > 59 || sec > 59 || oh > 23 || om > 59) {
		snprintf(why, whylen, "'%.40s' is not a valid date and time "
		    "(from 1970 on)", s);
		return DTC_FAILED;
	}
	t = ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 24 + h) * 60 +
	    mi) * 60 + sec - sign * (oh * 3600 + om * 60);
	if (t < 0) {
		snprintf(why, whylen, "'%.40s' is before 1970-01-01T00:00:00Z",
		    s);
		return DTC_FAILED;
	}
	*ns = (uint64_t)t * 1000000000u + frac;
	return DTC_OK;
bad:
	snprintf(why, whylen, "'%.40s' is not a time of the form "
	    "2026-11-25T16:00:00Z", s);
	return DTC_FAILED;
}

/* +DURATION: decimal (a fraction allowed) and a unit */
static int
parse_duration(const char *s, uint64_t *ns, char *why, size_t whylen)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
		{ "min", 60000000000ull }, { "h", 3600000000000ull },
	};
	const char *p = s + 1, *unit;
	uint64_t whole = 0, frac = 0, fscale = 1, mul = 0;
	size_t i;

	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			goto big;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			goto bad;
		for (; *p >= '0' && *p <= '9'; p++)
			if (fscale < 1000000000000000000ull) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
			}
	}
	unit = p;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(unit, units[i].name) == 0)
			mul = units[i].ns;
	if (mul == 0) {
		snprintf(why, whylen, "'%.40s': a duration needs a unit: ns, "
		    "us, ms, s, m or h (+1.5s, +200ms)", s);
		return DTC_FAILED;
	}
	if (whole > UINT64_MAX / mul)
		goto big;
	/* the fraction to the nanosecond, rounded down */
	frac = (uint64_t)((unsigned __int128)frac * mul / fscale);
	if (whole * mul > UINT64_MAX - frac)
		goto big;
	*ns = whole * mul + frac;
	return DTC_OK;
bad:
	snprintf(why, whylen, "'%.40s' is not a duration such as +1.5s or "
	    "+200ms", s);
	return DTC_FAILED;
big:
	snprintf(why, whylen, "'%.40s': the duration is too long", s);
	return DTC_FAILED;
}

int
dtcp_select_parse_time(const char *value, dtcp_tbound *b, char *why,
    size_t whylen)
{
	const char *p;
	unsigned long long u;
	char *end;
	int rc;

	memset(b, 0, sizeof(*b));
	snprintf(b->text, sizeof(b->text), "%s", value);
	if (value[0] == '+') {
		b->form = DTCP_T_REL;
		return parse_duration(value, &b->v, why, whylen);
	}
	for (p = value; *p >= '0' && *p <= '9'; p++)
		;
	if (p != value && *p == '\0') {
		errno = 0;
		u = strtoull(value, &end, 10);
		if (errno != 0) {
			snprintf(why, whylen, "'%.40s': more nanoseconds "
			    "than a timestamp holds", value);
			return DTC_FAILED;
		}
		b->form = DTCP_T_NS;
		b->v = u;
		return DTC_OK;
	}
	if (p - value == 4 && *p == '-') {
		b->form = DTCP_T_WALL;
		if ((rc = parse_wall(value, &b->v, why, whylen)) != DTC_OK)
			b->form = DTCP_T_NONE;
		return rc;
	}
	if (value[0] == '-')
		snprintf(why, whylen, "'%.40s': a duration counts forward from "
		    "the first record (+1.5s)", value);
	else
		snprintf(why, whylen, "'%.40s' is not a time: give nanoseconds "
		    "of the record timestamps, +DURATION (+1.5s) or "
		    "2026-11-25T16:00:00Z", value);
	b->form = DTCP_T_NONE;
	return DTC_FAILED;
}

/* A bound as a record timestamp, as a wide signed number (a wall-clock
 * time may come before the clock's zero, an hrtime + duration past
 * 2^64). */
static __int128
bound_ts(const dtcp_tbound *b, uint64_t clock_hr, uint64_t clock_wall,
    uint64_t first)
{
	switch (b->form) {
	case DTCP_T_REL:
		return (__int128)first + b->v;
	case DTCP_T_WALL:
		return (__int128)clock_hr + ((__int128)b->v - clock_wall);
	default:
		return b->v;
	}
}

void
dtcp_select_resolve(dtcp_select *s, uint64_t clock_hr, uint64_t clock_wall,
    uint64_t first)
{
	__int128 t;

	s->lo = 0;
	s->hi = UINT64_MAX;
	s->empty = 0;
	if (s->since.form != DTCP_T_NONE) {
		t = bound_ts(&s->since, clock_hr, clock_wall, first);
		if (t > (__int128)UINT64_MAX)
			s->empty = 1;
		else if (t > 0)
			s->lo = (uint64_t)t;
	}
	if (s->until.form != DTCP_T_NONE) {
		t = bound_ts(&s->until, clock_hr, clock_wall, first);
		if (t < 0)
			s->empty = 1;
		else if (t < (__int128)UINT64_MAX)
			s->hi = (uint64_t)t;
	}
	if (s->lo > s->hi)
		s->empty = 1;
	s->time_ready = 1;
}

/* ------------------------------------------------------------ add */

/* A probe or EPID criterion was added: the verdicts kept are void. */
static void
forget_verdicts(dtcp_select *s)
{
	s->by_enabling = 1;
	s->ncache = 0;
	s->last_match = -1;
	if (s->cache != NULL)
		memset(s->cache, 0, s->capcache * sizeof(*s->cache));
}

int
dtcp_select_add(dtcp_select *s, const char *what, const char *value,
    char *why, size_t whylen)
{
	dtcp_pglob g;
	dtcp_tbound b;

	if (what == NULL || value == NULL) {
		snprintf(why, whylen, "selection: %s without a value",
		    what != NULL ? what : "(null)");
		return DTC_FAILED;
	}
	if (strcmp(what, "probe") == 0) {
		dtcp_pglob *np;

		if (!dtcp_select_split_probe(value, &g, why, whylen))
			return DTC_FAILED;
		if (s->nprobes >= 4096 || (np = realloc(s->probes,
		    (s->nprobes + 1) * sizeof(*np))) == NULL) {
			free(g.mem);
			snprintf(why, whylen, "too many probe descriptions");
			return DTC_FAILED;
		}
		s->probes = np;
		s->probes[s->nprobes++] = g;
		forget_verdicts(s);
		return DTC_OK;
	}
	if (strcmp(what, "cpu") == 0)
		return parse_ranges("cpu", value, MAX_CPU, &s->cpus, &s->ncpus,
		    why, whylen);
	if (strcmp(what, "epid") == 0) {
		int rc = parse_ranges("epid", value, UINT32_MAX, &s->epids,
		    &s->nepids, why, whylen);

		forget_verdicts(s);
		s->by_enabling = s->nepids > 0 || s->nprobes > 0;
		return rc;
	}
	if (strcmp(what, "since") == 0 || strcmp(what, "until") == 0) {
		dtcp_tbound *other = what[0] == 's' ? &s->until : &s->since;

		if (dtcp_select_parse_time(value, &b, why, whylen) != DTC_OK)
			return DTC_FAILED;
		/* both in one form: a window that closes before it opens is
		 * a mistake worth saying at once */
		if (other->form == b.form && (what[0] == 's' ?
		    b.v > other->v : b.v < other->v)) {
			snprintf(why, whylen, "since %.40s comes after until "
			    "%.40s", what[0] == 's' ? b.text : other->text,
			    what[0] == 's' ? other->text : b.text);
			return DTC_FAILED;
		}
		if (what[0] == 's')
			s->since = b;
		else
			s->until = b;
		s->time_ready = 0;
		s->has_time = 1;
		return DTC_OK;
	}
	snprintf(why, whylen, "selection: '%.40s' is not probe, cpu, epid, "
	    "since or until", what);
	return DTC_FAILED;
}

/* ------------------------------------------------------------ match */

static int
enabling_matches(const dtcp_select *s, uint32_t epid,
    const dtc_probedesc *probe)
{
	size_t i;

	if (s->nepids > 0 && !in_ranges(s->epids, s->nepids, epid))
		return 0;
	if (s->nprobes == 0)
		return 1;
	if (probe == NULL)
		return 0;
	for (i = 0; i < s->nprobes; i++)
		if (probe_matches(&s->probes[i], probe))
			return 1;
	return 0;
}

/* The key's bits mixed (murmur3's finalizer), so that keys that differ
 * only in a few low bits of each half land far apart. */
static size_t
slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

/* Keep a verdict; when the table cannot grow the verdict is simply not
 * kept. */
static void
remember(dtcp_select *s, uint64_t key, int match)
{
	size_t i;

	if ((s->ncache + 1) * 2 > s->capcache) {
		size_t cap = s->capcache ? s->capcache * 2 : 64, j;
		dtcp_vslot *nc;

		if (cap > MAX_CACHE || (nc = calloc(cap, sizeof(*nc))) == NULL)
			return;
		for (j = 0; j < s->capcache; j++) {
			if (s->cache[j].match == 0)
				continue;
			i = slot_of(s->cache[j].key, cap);
			while (nc[i].match != 0)
				i = (i + 1) & (cap - 1);
			nc[i] = s->cache[j];
		}
		free(s->cache);
		s->cache = nc;
		s->capcache = cap;
	}
	for (i = slot_of(key, s->capcache); s->cache[i].match != 0;
	    i = (i + 1) & (s->capcache - 1))
		;
	s->cache[i].key = key;
	s->cache[i].match = match ? 2 : 1;
	s->ncache++;
}

int
dtcp_select_lookup(dtcp_select *s, uint32_t epid, uint32_t probeid,
    const dtc_probedesc *probe)
{
	uint64_t key = (uint64_t)probeid << 32 | epid;
	size_t i;
	int m = -1;

	if (s->capcache > 0)
		for (i = slot_of(key, s->capcache); s->cache[i].match != 0;
		    i = (i + 1) & (s->capcache - 1))
			if (s->cache[i].key == key) {
				m = s->cache[i].match == 2;
				break;
			}
	if (m < 0) {
		m = enabling_matches(s, epid, probe);
		/* an unknown probe may still be described later (a damaged
		 * capture): its verdict is not kept */
		if (probe == NULL)
			return m;
		remember(s, key, m);
	}
	s->last_key = key;
	s->last_match = m;
	return m;
}
