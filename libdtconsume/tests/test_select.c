/*
 * test_select.c - record selection (dtc_reader_select; select.c, consume.c).
 *
 * The parsers alone (probe descriptions split as dtrace_xstr2desc splits
 * them, globs, CPU lists, times), then a capture built here with the
 * writer, whose every firing (EPID, CPU, timestamp) the test knows,
 * decoded under each kind of selection: the firings expected are worked
 * out by hand from the layout below, not from the decoder.
 *
 *   probes 1 dtrace:::BEGIN         2 syscall:freebsd:read:entry
 *          3 syscall:freebsd:write:entry  4 syscall:freebsd:read:return
 *          5 dtrace:::ERROR
 *   EPIDs  1 BEGIN: setopt("quiet")     2 read:entry: trace(int)
 *          3 write:entry: trace(int)    4 read:return: exit(7)
 *          5 libdtrace's ERROR enabling
 *   CPU 0  epid 1 @1000, epid 2 @2000, epid 3 @3000
 *   CPU 1  epid 2 @1500, epid 4 @2500, ERROR @2600 (fault in epid 3)
 *   CPU 2  epid 3 @1200, epid 2 @4000
 *   clock  hrtime 1000 = walltime 1700000000 s (2023-11-14T22:13:20Z)
 *
 * Without a status item the CPUs are consumed in id order, so the
 * firings come as 1 2 3 | 2 4 (ERROR) | 3 2.
 */
#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"
#include "select.h"
#include "util.h"

#define WALL0 1700000000000000000ull   /* ns: 2023-11-14T22:13:20Z */

/* ------------------------------------------------------------ parsers */

static void
split(const char *desc, const char *p, const char *m, const char *f,
    const char *n)
{
	dtcp_pglob g;
	char why[200];

	ck_assert_msg(dtcp_select_split_probe(desc, &g, why, sizeof(why)),
	    "'%s' refused: %s", desc, why);
	ck_assert_str_eq(g.f[0], p);
	ck_assert_str_eq(g.f[1], m);
	ck_assert_str_eq(g.f[2], f);
	ck_assert_str_eq(g.f[3], n);
	free(g.mem);
}

static void
split_bad(const char *desc, const char *msg)
{
	dtcp_pglob g;
	char why[200];

	ck_assert_msg(!dtcp_select_split_probe(desc, &g, why, sizeof(why)),
	    "'%s' accepted", desc);
	ck_assert_str_eq(why, msg);
}

/* dtrace_xstr2desc: the last field is the name, fields fill from the
 * right, so fewer fields describe the name, function:name, ... */
START_TEST(probe_descriptions)
{
	split("syscall::read:entry", "syscall", "", "read", "entry");
	split("read:entry", "", "", "read", "entry");
	split("BEGIN", "", "", "", "BEGIN");
	split("syscall::read", "", "syscall", "", "read");
	split(":::", "", "", "", "");
	split("fbt:kernel:vm_*:", "fbt", "kernel", "vm_*", "");
	split_bad("a:b:c:d:e", "probe description 'a:b:c:d:e' has more than "
	    "four fields (provider:module:function:name)");
	split_bad("", "an empty probe description (':::' matches every "
	    "probe)");
	split_bad("pid$1:::entry", "probe description 'pid$1:::entry': "
	    "macro variables ($1, $pid, ...) have no value offline");
}
END_TEST

/* dt_gmatch: "" matches anything, else fnmatch(3) without flags */
START_TEST(globs)
{
	ck_assert(dtcp_select_glob("", "anything"));
	ck_assert(dtcp_select_glob("*", ""));
	ck_assert(dtcp_select_glob("read", "read"));
	ck_assert(!dtcp_select_glob("read", "readv"));     /* anchored */
	ck_assert(dtcp_select_glob("read*", "readv"));
	ck_assert(dtcp_select_glob("re?d", "read"));
	ck_assert(!dtcp_select_glob("re?d", "red"));
	ck_assert(dtcp_select_glob("[rw]*", "write"));
	ck_assert(!dtcp_select_glob("[rw]*", "open"));
	ck_assert(dtcp_select_glob("[!rw]*", "open"));
	ck_assert(!dtcp_select_glob("[!rw]*", "read"));
	ck_assert(dtcp_select_glob("[a-c]", "b"));
	ck_assert(dtcp_select_glob("\\*", "*"));
	ck_assert(!dtcp_select_glob("\\*", "x"));
}
END_TEST

static void
add_ok(dtcp_select *s, const char *what, const char *value)
{
	char why[200];

	ck_assert_msg(dtcp_select_add(s, what, value, why, sizeof(why)) ==
	    DTC_OK, "%s '%s' refused: %s", what, value, why);
}

static void
add_bad(const char *what, const char *value, const char *msg)
{
	dtcp_select s;
	char why[200];

	dtcp_select_init(&s);
	ck_assert_msg(dtcp_select_add(&s, what, value, why, sizeof(why)) ==
	    DTC_FAILED, "%s '%s' accepted", what, value);
	ck_assert_str_eq(why, msg);
	dtcp_select_free(&s);
}

START_TEST(cpu_lists)
{
	dtcp_select s;
	int cpu, want[8] = { 1, 0, 1, 1, 0, 0, 0, 1 };

	dtcp_select_init(&s);
	add_ok(&s, "cpu", "0,2-3");
	add_ok(&s, "cpu", "7");         /* repeated: either */
	for (cpu = 0; cpu < 8; cpu++)
		ck_assert_msg(dtcp_select_where(&s, cpu, 0) == want[cpu],
		    "cpu %d", cpu);
	ck_assert(!dtcp_select_where(&s, -1, 0));   /* not a CPU */
	dtcp_select_free(&s);
	add_bad("cpu", "", "an empty cpu list (give numbers and ranges: "
	    "0,2-3)");
	add_bad("cpu", "3-2", "cpu list '3-2': the range 3-2 runs backwards");
	add_bad("cpu", "0,", "cpu list '0,': give numbers from 0 to 1000000 "
	    "and ranges, separated by commas (0,2-3)");
	add_bad("cpu", "x", "cpu list 'x': give numbers from 0 to 1000000 "
	    "and ranges, separated by commas (0,2-3)");
	add_bad("cpu", "0 ,1", "cpu list '0 ,1': give numbers from 0 to "
	    "1000000 and ranges, separated by commas (0,2-3)");
	add_bad("cpu", "1000001", "cpu list '1000001': give numbers from 0 "
	    "to 1000000 and ranges, separated by commas (0,2-3)");
	add_bad("epid", "1-", "epid list '1-': give numbers from 0 to "
	    "4294967295 and ranges, separated by commas (0,2-3)");
	add_bad("cpus", "1", "selection: 'cpus' is not probe, cpu, epid, "
	    "since or until");
}
END_TEST

static void
time_ok(const char *v, enum dtcp_tform form, uint64_t ns)
{
	dtcp_tbound b;
	char why[200];

	ck_assert_msg(dtcp_select_parse_time(v, &b, why, sizeof(why)) ==
	    DTC_OK, "'%s' refused: %s", v, why);
	ck_assert_int_eq(b.form, form);
	ck_assert_msg(b.v == ns, "'%s' is %llu, not %llu", v,
	    (unsigned long long)b.v, (unsigned long long)ns);
}

static void
time_bad(const char *v, const char *msg)
{
	dtcp_tbound b;
	char why[200];

	ck_assert_msg(dtcp_select_parse_time(v, &b, why, sizeof(why)) ==
	    DTC_FAILED, "'%s' accepted", v);
	ck_assert_str_eq(why, msg);
}

/* wall-clock seconds from Python's calendar.timegm (UTC, no time zone
 * of this host) */
START_TEST(time_forms)
{
	time_ok("0", DTCP_T_NS, 0);
	time_ok("123456789000", DTCP_T_NS, 123456789000ull);
	time_ok("18446744073709551615", DTCP_T_NS, UINT64_MAX);
	time_ok("+1.5s", DTCP_T_REL, 1500000000ull);
	time_ok("+200ms", DTCP_T_REL, 200000000ull);
	time_ok("+10us", DTCP_T_REL, 10000ull);
	time_ok("+7ns", DTCP_T_REL, 7);
	time_ok("+2m", DTCP_T_REL, 120000000000ull);
	time_ok("+2min", DTCP_T_REL, 120000000000ull);
	time_ok("+1h", DTCP_T_REL, 3600000000000ull);
	time_ok("+0.000000001s", DTCP_T_REL, 1);
	time_ok("+1.0000000019s", DTCP_T_REL, 1000000001ull); /* down */
	time_ok("+0.25ms", DTCP_T_REL, 250000ull);
	time_ok("2026-11-25T16:00:00Z", DTCP_T_WALL, 1795622400ull *
	    1000000000u);
	time_ok("2026-11-25T17:00:00+01:00", DTCP_T_WALL, 1795622400ull *
	    1000000000u);
	time_ok("2026-11-25T10:30:00-0530", DTCP_T_WALL, 1795622400ull *
	    1000000000u);
	time_ok("2026-11-25T16:00Z", DTCP_T_WALL, 1795622400ull * 1000000000u);
	time_ok("2023-11-14T22:13:20.000001Z", DTCP_T_WALL, WALL0 + 1000);
	time_ok("2024-02-29T00:00:00Z", DTCP_T_WALL, 1709164800ull *
	    1000000000u);
	time_ok("1970-01-01T00:00:00Z", DTCP_T_WALL, 0);
	time_bad("+5", "'+5': a duration needs a unit: ns, us, ms, s, m or h "
	    "(+1.5s, +200ms)");
	time_bad("+1.5 s", "'+1.5 s': a duration needs a unit: ns, us, ms, "
	    "s, m or h (+1.5s, +200ms)");
	time_bad("+.5s", "'+.5s' is not a duration such as +1.5s or +200ms");
	time_bad("-1s", "'-1s': a duration counts forward from the first "
	    "record (+1.5s)");
	time_bad("2026-11-25T16:00:00", "'2026-11-25T16:00:00' has no time "
	    "zone: add Z (UTC) or an offset such as +01:00");
	time_bad("2026-02-29T00:00:00Z", "'2026-02-29T00:00:00Z' is not a "
	    "valid date and time (from 1970 on)");
	time_bad("2026-11-25T24:00:00Z", "'2026-11-25T24:00:00Z' is not a "
	    "valid date and time (from 1970 on)");
	time_bad("1969-12-31T23:59:59Z", "'1969-12-31T23:59:59Z' is not a "
	    "valid date and time (from 1970 on)");
	time_bad("1970-01-01T00:30:00+01:00", "'1970-01-01T00:30:00+01:00' "
	    "is before 1970-01-01T00:00:00Z");
	time_bad("2026-11-25 16:00:00Z", "'2026-11-25 16:00:00Z' is not a "
	    "time of the form 2026-11-25T16:00:00Z");
	time_bad("18446744073709551616", "'18446744073709551616': more "
	    "nanoseconds than a timestamp holds");
	time_bad("noon", "'noon' is not a time: give nanoseconds of the "
	    "record timestamps, +DURATION (+1.5s) or 2026-11-25T16:00:00Z");
}
END_TEST

START_TEST(window)
{
	dtcp_select s;
	char why[200];

	dtcp_select_init(&s);
	add_ok(&s, "until", "+1s");
	ck_assert_int_eq(dtcp_select_add(&s, "since", "+2s", why, sizeof(why)),
	    DTC_FAILED);
	ck_assert_str_eq(why, "since +2s comes after until +1s");
	/* forms that differ are compared once resolved: no error here */
	add_ok(&s, "since", "5000");
	dtcp_select_free(&s);

	/* resolution: clock hrtime 1000 = WALL0, first record at 5000 */
	dtcp_select_init(&s);
	add_ok(&s, "since", "2023-11-14T22:13:20.000000500Z");
	add_ok(&s, "until", "+200ns");
	dtcp_select_resolve(&s, 1000, WALL0, 5000);
	ck_assert(s.time_ready && !s.empty);
	ck_assert_uint_eq(s.lo, 1500);
	ck_assert_uint_eq(s.hi, 5200);
	ck_assert(!dtcp_select_where(&s, 0, 1499));
	ck_assert(dtcp_select_where(&s, 0, 1500));    /* inclusive */
	ck_assert(dtcp_select_where(&s, 0, 5200));
	ck_assert(!dtcp_select_where(&s, 0, 5201));
	dtcp_select_free(&s);

	/* a wall-clock time before the clock's zero: since clamps to 0,
	 * until selects nothing */
	dtcp_select_init(&s);
	add_ok(&s, "since", "2023-11-14T22:13:19Z");
	dtcp_select_resolve(&s, 1000, WALL0, 0);
	ck_assert(!s.empty);
	ck_assert_uint_eq(s.lo, 0);
	dtcp_select_free(&s);
	dtcp_select_init(&s);
	add_ok(&s, "until", "2023-11-14T22:13:19Z");
	dtcp_select_resolve(&s, 1000, WALL0, 0);
	ck_assert(s.empty);
	ck_assert(!dtcp_select_where(&s, 0, 0));
	dtcp_select_free(&s);
}
END_TEST

/* ------------------------------------------------------------ capture */

#define ACT_BASE 55

static const dtc_recdesc rec_int = { DTC_ACT_DIFEXPR, 4, 0, 4, 12, 0, 1 };
static const dtc_recdesc rec_exit = { DTC_ACT_EXIT, 4, 0, 4, 12, 0, 1 };
static const dtc_recdesc rec_setopt[2] = {
	{ DTC_ACT_LIBACT, 8, 0, 8, 16, ACT_BASE + DTC_LIBACT_SETOPT, 1 },
	{ DTC_ACT_LIBACT, 8, 0, 8, 24, ACT_BASE + DTC_LIBACT_SETOPT, 1 },
};
static const dtc_recdesc rec_error[5] = {
	{ DTC_ACT_DIFEXPR, 8, 0, 8, 16, 0, 1 },
	{ DTC_ACT_DIFEXPR, 8, 0, 8, 24, 0, 1 },
	{ DTC_ACT_DIFEXPR, 8, 0, 8, 32, 0, 1 },
	{ DTC_ACT_DIFEXPR, 8, 0, 8, 40, 0, 1 },
	{ DTC_ACT_DIFEXPR, 8, 0, 8, 48, 0, 1 },
};

typedef struct cbuf {
	uint8_t b[512];
	size_t n;
} cbuf;

static void
put32(cbuf *c, uint32_t v)
{
	memcpy(c->b + c->n, &v, 4);     /* a little-endian capture: this host */
	c->n += 4;
}

static void
put64(cbuf *c, uint64_t v)
{
	memcpy(c->b + c->n, &v, 8);
	c->n += 8;
}

/* the 12-byte record header; a record with 8-byte data starts 8-aligned
 * (an EPIDNONE word before it when needed) and its data at 16 */
static void
header(cbuf *c, uint32_t epid, uint64_t ts, int align8)
{
	if (align8 && c->n % 8 != 0)
		put32(c, 0);
	put32(c, epid);
	put32(c, (uint32_t)(ts >> 32));
	put32(c, (uint32_t)ts);
	if (align8)
		put32(c, 0);
}

static void
rec4(cbuf *c, uint32_t epid, uint64_t ts, uint32_t v)
{
	header(c, epid, ts, 0);
	put32(c, v);
}

enum { WITH_END = 1, WITH_CLOCK = 2, BAD_RECORD = 4 };

/* The capture of the comment at the top, in memory (free *mem; *lenp
 * its bytes when not NULL). */
static dtc_reader *
capture_len(unsigned how, char **mem, size_t *lenp)
{
	static const dtc_probedesc probes[] = {
		{ 1, "dtrace", "", "", "BEGIN", NULL },
		{ 2, "syscall", "freebsd", "read", "entry", NULL },
		{ 3, "syscall", "freebsd", "write", "entry", NULL },
		{ 4, "syscall", "freebsd", "read", "return", NULL },
		{ 5, "dtrace", "", "", "ERROR", NULL },
	};
	const dtc_eprobedesc eps[] = {
		{ 1, 1, 0, 32, 2, rec_setopt, NULL },
		{ 2, 2, 0, 16, 1, &rec_int, NULL },
		{ 3, 3, 0, 16, 1, &rec_int, NULL },
		{ 4, 4, 0, 16, 1, &rec_exit, NULL },
		{ 5, 5, 1, 56, 5, rec_error, NULL },
	};
	dtc_writer_header h = { 0, 0, "freebsd", "14.1", "test", "test", 4,
	    ACT_BASE, NULL };
	dtc_writer_buf wb = { 1, 0, NULL, 0, 0, 0, 0, 0 };
	dtc_writer *w;
	dtc_reader *r;
	cbuf c[3];
	size_t len, i;
	FILE *fp;

	ck_assert_int_eq(dtcp_host_big(), 0);
	memset(c, 0, sizeof(c));
	/* CPU 0: BEGIN's setopt("quiet") (no value: an 8-byte 0), then */
	header(&c[0], 1, 1000, 1);
	memcpy(c[0].b + c[0].n, "quiet\0\0\0", 8);
	c[0].n += 8;
	put64(&c[0], 0);
	rec4(&c[0], 2, 2000, 21);
	rec4(&c[0], 3, 3000, 31);
	/* CPU 1, with the ERROR record of a fault in epid 3 */
	rec4(&c[1], 2, 1500, 22);
	rec4(&c[1], 4, 2500, 7);
	header(&c[1], 5, 2600, 1);
	put64(&c[1], 3);          /* the EPID that faulted */
	put64(&c[1], 1);          /* action */
	put64(&c[1], 16);         /* DIF offset */
	put64(&c[1], 4);          /* DTRACEFLT_DIVZERO */
	put64(&c[1], 0);
	/* CPU 2 */
	rec4(&c[2], 3, 1200, 32);
	rec4(&c[2], 2, 4000, 23);
	if (how & BAD_RECORD)
		rec4(&c[2], 99, 5000, 0);   /* unknown EPID: a warning */

	ck_assert_ptr_nonnull(fp = open_memstream(mem, &len));
	ck_assert_ptr_nonnull(w = dtc_writer_new(fp, &h, NULL));
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(dtc_writer_add_probe(w, &probes[i], NULL),
		    DTC_OK);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(dtc_writer_add_eprobe(w, &eps[i], NULL),
		    DTC_OK);
	if (how & WITH_CLOCK)
		ck_assert_int_eq(dtc_writer_add_clock(w, 1000, WALL0, NULL),
		    DTC_OK);
	for (i = 0; i < 3; i++) {
		wb.cpu = (int)i;
		wb.data = c[i].b;
		wb.size = c[i].n;
		wb.timestamp = 9000;
		ck_assert_int_eq(dtc_writer_add_buf(w, &wb, NULL), DTC_OK);
	}
	if (how & WITH_END)
		ck_assert_int_eq(dtc_writer_end(w, 7, NULL), DTC_OK);
	else
		dtc_writer_free(w);    /* cut short: no end item */
	fclose(fp);
	ck_assert_ptr_nonnull(r = dtc_reader_open_memory(*mem, len, "sel", 0, NULL));
	if (lenp != NULL)
		*lenp = len;
	return r;
}

static dtc_reader *
capture(unsigned how, char **mem)
{
	return capture_len(how, mem, NULL);
}

/* What a decode delivered: "epid@cpu" per firing, "E<fault epid>@cpu"
 * per ERROR event, in order; the END event's numbers. */
typedef struct seen {
	char firings[256];
	int quiet_all, indent[8];
	size_t nindent;
	uint64_t nrecords, nerrors, skipped;
	int exit_status, end, rc;
	dtc_error err;
} seen;

static void
decode(dtc_reader *r, seen *s)
{
	const dtc_event *ev;
	size_t n = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	s->quiet_all = 1;
	dtc_error_clear(&s->err);
	while ((rc = dtc_reader_next(r, &ev, &s->err)) != DTC_EOF) {
		if (rc == DTC_FATAL) {
			s->rc = rc;
			return;
		}
		if (rc != DTC_OK)
			continue;
		if (ev->type == DTC_EV_PROBE) {
			n += (size_t)snprintf(s->firings + n,
			    sizeof(s->firings) - n, "%s%u@%d", n ? " " : "",
			    ev->ep->epid, ev->cpu);
			s->quiet_all &= ev->quiet;
			if (s->nindent < 8)
				s->indent[s->nindent++] = ev->indent;
		} else if (ev->type == DTC_EV_ERROR) {
			n += (size_t)snprintf(s->firings + n,
			    sizeof(s->firings) - n, "%sE%u@%d", n ? " " : "",
			    ev->fault_epid, ev->cpu);
		} else if (ev->type == DTC_EV_END) {
			s->end = 1;
			s->nrecords = ev->nrecords;
			s->nerrors = ev->nerrors;
			s->skipped = ev->count;
			s->exit_status = ev->exit_status;
		}
	}
}

/* Decode the capture under the selections given ("what", "value", ...,
 * NULL) and compare the firings delivered. */
static void
expect(unsigned how, const char *firings, uint64_t skipped, ...)
{
	va_list ap;
	const char *what, *value;
	dtc_reader *r;
	dtc_error err;
	char *mem = NULL;
	seen s;

	r = capture(how, &mem);
	va_start(ap, skipped);
	while ((what = va_arg(ap, const char *)) != NULL) {
		value = va_arg(ap, const char *);
		dtc_error_clear(&err);
		ck_assert_msg(dtc_reader_select(r, what, value, &err) == DTC_OK,
		    "%s %s: %s", what, value, err.text);
	}
	va_end(ap);
	decode(r, &s);
	ck_assert_msg(s.end, "no END event (%s)", s.err.text);
	ck_assert_str_eq(s.firings, firings);
	ck_assert_uint_eq(s.skipped, skipped);
	dtc_reader_close(r);
	free(mem);
}

START_TEST(no_selection)
{
	expect(WITH_END, "1@0 2@0 3@0 2@1 4@1 E3@1 3@2 2@2", 0, NULL);
}
END_TEST

/* the partial descriptions of dtrace: from the right */
START_TEST(by_probe)
{
	expect(WITH_END, "2@0 2@1 4@1 2@2", 4, "probe", "syscall::read:*",
	    NULL);
	expect(WITH_END, "2@0 2@1 2@2", 5, "probe", "read:entry", NULL);
	/* one field is the name: both entry probes; the ERROR record is
	 * in as its fault is write:entry's */
	expect(WITH_END, "2@0 3@0 2@1 E3@1 3@2 2@2", 2, "probe", "entry",
	    NULL);
	expect(WITH_END, "1@0", 7, "probe", "BEGIN", NULL);
	/* "syscall" alone is a name, "syscall::read" module and name */
	expect(WITH_END, "", 8, "probe", "syscall", NULL);
	expect(WITH_END, "", 8, "probe", "syscall::read", NULL);
	expect(WITH_END, "2@0 3@0 2@1 4@1 E3@1 3@2 2@2", 1, "probe",
	    "syscall:::", NULL);
	expect(WITH_END, "3@0 E3@1 3@2", 5, "probe", "*:fr[e]e*:[!r]*:*",
	    NULL);
	/* repeated: any */
	expect(WITH_END, "1@0 4@1", 6, "probe", "BEGIN", "probe",
	    "read:return", NULL);
	/* every ERROR record through dtrace:::ERROR */
	expect(WITH_END, "E3@1", 7, "probe", "dtrace:::ERROR", NULL);
}
END_TEST

START_TEST(by_cpu_and_epid)
{
	expect(WITH_END, "2@1 4@1 E3@1", 5, "cpu", "1", NULL);
	expect(WITH_END, "1@0 2@0 3@0 3@2 2@2", 3, "cpu", "0,2", NULL);
	expect(WITH_END, "2@1 4@1 E3@1 3@2 2@2", 3, "cpu", "1-2", NULL);
	expect(WITH_END, "2@0 2@1 2@2", 5, "epid", "2", NULL);
	expect(WITH_END, "3@0 E3@1 3@2", 5, "epid", "3", NULL);
	expect(WITH_END, "E3@1", 7, "epid", "5", NULL);
	expect(WITH_END, "3@0 4@1 E3@1 3@2", 4, "epid", "3-4", NULL);
	/* criteria together: all of them */
	expect(WITH_END, "2@1 4@1", 6, "probe", "syscall::read:*", "cpu",
	    "1", NULL);
	expect(WITH_END, "", 8, "epid", "1", "cpu", "1", NULL);
}
END_TEST

START_TEST(by_time)
{
	/* ns of the record timestamps, inclusive */
	expect(WITH_END, "2@0 3@0 4@1 E3@1 2@2", 3, "since", "2000", NULL);
	expect(WITH_END, "1@0 2@1 3@2", 5, "until", "1500", NULL);
	expect(WITH_END, "2@0 4@1 E3@1", 5, "since", "2000", "until", "2600",
	    NULL);
	/* after the first record, 1000 (CPU 0's; CPU 2's first is 1200) */
	expect(WITH_END, "2@0 3@0 4@1 E3@1 2@2", 3, "since", "+1us", NULL);
	expect(WITH_END, "3@0 4@1 E3@1 2@2", 4, "since", "+1.5us", NULL);
	expect(WITH_END, "1@0 3@2", 6, "until", "+200ns", NULL);
	/* the wall clock: hrtime 1000 is 2023-11-14T22:13:20Z */
	expect(WITH_END | WITH_CLOCK, "2@0 3@0 4@1 E3@1 2@2", 3, "since",
	    "2023-11-14T22:13:20.000001Z", NULL);
	expect(WITH_END | WITH_CLOCK, "2@0 3@0 4@1 E3@1 2@2", 3, "since",
	    "2023-11-14T23:13:20.000001+01:00", NULL);
	expect(WITH_END | WITH_CLOCK, "", 8, "until",
	    "2023-11-14T22:13:19Z", NULL);
}
END_TEST

/* what a firing left out changes still changes */
START_TEST(side_effects)
{
	dtc_reader *r;
	char *mem = NULL;
	seen s;

	/* BEGIN's setopt("quiet") applies to the read:entry firings */
	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_select(r, "probe", "read:entry", NULL), DTC_OK);
	decode(r, &s);
	ck_assert_str_eq(s.firings, "2@0 2@1 2@2");
	ck_assert_int_eq(s.quiet_all, 1);
	dtc_reader_close(r);
	free(mem);
	/* the capture is cut short (no end item with its status): the exit
	 * status is the exit(7) of read:return, which is left out */
	r = capture(0, &mem);
	ck_assert_int_eq(dtc_reader_select(r, "probe", "BEGIN", NULL), DTC_OK);
	decode(r, &s);
	ck_assert_str_eq(s.firings, "1@0");
	ck_assert_int_eq(s.exit_status, 7);
	ck_assert_uint_eq(s.nrecords, 1);
	ck_assert_uint_eq(s.nerrors, 0);
	ck_assert_uint_eq(s.skipped, 7);
	dtc_reader_close(r);
	free(mem);
	/* flow indentation counts the entries left out: on CPU 0 write:entry
	 * follows read:entry, one level in; on CPU 2 it comes first */
	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_set_option(r, "flowindent", NULL, NULL), DTC_OK);
	ck_assert_int_eq(dtc_reader_select(r, "epid", "3", NULL), DTC_OK);
	decode(r, &s);
	ck_assert_str_eq(s.firings, "3@0 E3@1 3@2");
	ck_assert_uint_eq(s.nindent, 2);
	ck_assert_int_eq(s.indent[0], 2);
	ck_assert_int_eq(s.indent[1], 0);
	dtc_reader_close(r);
	free(mem);
}
END_TEST

START_TEST(refusals)
{
	const dtc_event *ev;
	dtc_reader *r;
	dtc_error err;
	char *mem = NULL;
	seen s;

	/* a wall-clock time without a clock item: at the first pass */
	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_select(r, "since", "2026-11-25T16:00:00Z", NULL),
	    DTC_OK);
	decode(r, &s);
	ck_assert_int_eq(s.rc, DTC_FATAL);
	ck_assert_str_eq(s.firings, "");
	ck_assert_dtc_error(&s.err, DTC_E_BADOPTION, -1, -1);
	ck_assert_str_eq(s.err.text, "cannot select since "
	    "2026-11-25T16:00:00Z: wall-clock times need the capture's clock "
	    "item, and it has none (give ns or +DURATION)");
	dtc_reader_close(r);
	free(mem);
	/* too late: an event was delivered */
	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_next(r, &ev, NULL), DTC_OK);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_reader_select(r, "cpu", "0", &err), DTC_FAILED);
	ck_assert_str_eq(err.text, "a selection after the first event: too "
	    "late, a firing delivered cannot be taken back");
	dtc_reader_close(r);
	free(mem);
	/* a bad value names itself */
	r = capture(WITH_END, &mem);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_reader_select(r, "since", "+5", &err), DTC_FAILED);
	ck_assert_dtc_error(&err, DTC_E_BADOPTION, -1, -1);
	ck_assert_str_eq(err.text, "'+5': a duration needs a unit: ns, us, "
	    "ms, s, m or h (+1.5s, +200ms)");
	dtc_reader_close(r);
	free(mem);
}
END_TEST

/* a dtrace-v2 capture without pass clocks has no record timestamps:
 * refused at its first pass */
START_TEST(v2_has_no_time)
{
	dtc_writer_header h = { 0, 0, "Linux", "6", "test", "test", 1, 46,
	    "dtrace-v2" };
	dtc_writer *w;
	dtc_reader *r;
	dtc_error err;
	const dtc_event *ev;
	char *mem = NULL;
	size_t len;
	FILE *fp;

	ck_assert_ptr_nonnull(fp = open_memstream(&mem, &len));
	ck_assert_ptr_nonnull(w = dtc_writer_new(fp, &h, NULL));
	ck_assert_int_eq(dtc_writer_end(w, 0, NULL), DTC_OK);
	fclose(fp);
	r = dtc_reader_open_memory(mem, len, "v2", 0, NULL);
	ck_assert_int_eq(dtc_reader_select(r, "until", "+1s", NULL), DTC_OK);
	dtc_error_clear(&err);
	/* found where the reader looks for the capture's clocks */
	ck_assert_int_eq(dtc_reader_next(r, &ev, &err), DTC_OK);
	ck_assert_int_eq(ev->type, DTC_EV_BEGIN);
	ck_assert_int_eq(dtc_reader_next(r, &ev, &err), DTC_FATAL);
	ck_assert_dtc_error(&err, DTC_E_BADOPTION, -1, -1);
	ck_assert_str_eq(err.text, "cannot select by time (since, until): the "
	    "records of this dtrace-v2 capture carry no timestamps (it has no "
	    "pass clocks)");
	dtc_reader_close(r);
	/* the other criteria are fine there */
	r = dtc_reader_open_memory(mem, len, "v2", 0, NULL);
	ck_assert_int_eq(dtc_reader_select(r, "cpu", "0", NULL), DTC_OK);
	ck_assert_int_eq(dtc_reader_next(r, &ev, NULL), DTC_OK);
	ck_assert_int_eq(ev->type, DTC_EV_BEGIN);
	dtc_reader_close(r);
	free(mem);
}
END_TEST

/*
 * dtsnap record's pass clocks: a v2 record's timestamp is the hrtime of
 * the newest pass clock before its recs item (not a later one of the
 * next pass, read ahead), and time selections use it.
 */
START_TEST(v2_pass_clocks)
{
	static const dtc_recdesc sr[] = {
		{ DTC_ACT_DIFEXPR, 8, 0, 8, 16, 0, 0 },
	};
	dtc_stmtdesc sd = { 7, 0, 24, 1, sr };
	dtc_probedesc pd = { 2, "syscall", "", "read", "entry", NULL };
	dtc_writer_header h;
	dtc_writer *w;
	dtc_reader *r;
	dtc_error err;
	const dtc_event *ev;
	uint8_t rec[24];
	uint32_t w32[4] = { 20, 0, 2, 7 };
	uint64_t got[3];
	char *mem = NULL;
	size_t len, n;
	FILE *fp;
	int pass, sel;

	memset(&h, 0, sizeof(h));
	h.os = "Linux";
	h.flavor = "dtrace-v2";
	h.ncpu = 1;
	memset(rec, 0, sizeof(rec));
	memcpy(rec, w32, 16);
	ck_assert_ptr_nonnull(fp = open_memstream(&mem, &len));
	ck_assert_ptr_nonnull(w = dtc_writer_new(fp, &h, NULL));
	ck_assert_int_eq(dtc_writer_add_pass_clock(w, -1, 5000, 9000, NULL),
	    DTC_OK);
	ck_assert_int_eq(dtc_writer_add_probe(w, &pd, NULL), DTC_OK);
	ck_assert_int_eq(dtc_writer_add_stmt(w, &sd, NULL), DTC_OK);
	/* passes 0, 1, 2 at 1 s, 2 s, 3 s after the capture's clock */
	for (pass = 0; pass < 3; pass++) {
		ck_assert_int_eq(dtc_writer_add_pass_clock(w, pass,
		    5000 + (uint64_t)(pass + 1) * 1000000000u, 0, NULL), DTC_OK);
		rec[16] = (uint8_t)pass;
		ck_assert_int_eq(dtc_writer_add_recs(w, (uint32_t)pass, 0, rec,
		    sizeof(rec), NULL), DTC_OK);
	}
	ck_assert_int_eq(dtc_writer_end(w, 0, NULL), DTC_OK);
	fclose(fp);

	for (sel = 0; sel < 2; sel++) {
		r = dtc_reader_open_memory(mem, len, "v2", 0, NULL);
		/* from the first record: passes 0 and 1 */
		if (sel)
			ck_assert_int_eq(dtc_reader_select(r, "until", "+1s", NULL),
			    DTC_OK);
		n = 0;
		dtc_error_clear(&err);
		while (dtc_reader_next(r, &ev, &err) == DTC_OK)
			if (ev->type == DTC_EV_PROBE && n < 3)
				got[n++] = ev->timestamp;
		ck_assert_int_eq(err.code, DTC_E_NONE);
		ck_assert_uint_eq(n, sel ? 2 : 3);
		ck_assert_uint_eq(got[0], 1000005000u);
		ck_assert_uint_eq(got[1], 2000005000u);
		if (!sel)
			ck_assert_uint_eq(got[2], 3000005000u);
		dtc_reader_close(r);
	}
	free(mem);
}
END_TEST

/* -x cpu=N: dtrace traces CPU N; offline, its firings are selected */
START_TEST(option_cpu)
{
	dtc_reader *r;
	dtc_error err;
	char *mem = NULL;
	seen s;

	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_set_option(r, "cpu", "1", NULL), DTC_OK);
	decode(r, &s);
	ck_assert_str_eq(s.firings, "2@1 4@1 E3@1");
	dtc_reader_close(r);
	free(mem);
	/* no value is CPU 0, as dt_opt_runtime reads it */
	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_set_option(r, "cpu", NULL, NULL), DTC_OK);
	decode(r, &s);
	ck_assert_str_eq(s.firings, "1@0 2@0 3@0");
	dtc_reader_close(r);
	free(mem);
	/* "" unsets it: every CPU */
	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_set_option(r, "cpu", "", NULL), DTC_OK);
	decode(r, &s);
	ck_assert_str_eq(s.firings, "1@0 2@0 3@0 2@1 4@1 E3@1 3@2 2@2");
	dtc_reader_close(r);
	free(mem);
	r = capture(WITH_END, &mem);
	dtc_error_clear(&err);
	ck_assert_int_eq(dtc_reader_set_option(r, "cpu", "one", &err), DTC_FAILED);
	ck_assert_str_eq(err.text, "couldn't set option \"cpu\" to \"one\": "
	    "Invalid value for specified option");
	dtc_reader_close(r);
	free(mem);
}
END_TEST

START_TEST(option_effect)
{
	ck_assert_int_eq(dtc_option_effective("quiet"), 1);
	ck_assert_int_eq(dtc_option_effective("aggsortrev"), 1);
	ck_assert_int_eq(dtc_option_effective("printsize"), 1);
	ck_assert_int_eq(dtc_option_effective("cpu"), 1);
	ck_assert_int_eq(dtc_option_effective("strsize"), 0);
	ck_assert_int_eq(dtc_option_effective("bufsize"), 0);
	ck_assert_int_eq(dtc_option_effective("switchrate"), 0);
	ck_assert_int_eq(dtc_option_effective("nosuchoption"), -1);
	ck_assert_int_eq(dtc_option_effective(""), -1);
}
END_TEST

static int
count_probe(const dtc_event *ev, void *arg)
{
	(void)ev;
	++*(int *)arg;
	return 0;
}

/* dtc_reader_consume: DTC_WARN at the end when something was skipped or the
 * capture was cut short; a selection is not something skipped */
START_TEST(consume_status)
{
	static const dtc_handler h = { .probe = count_probe };
	dtc_reader *r;
	char *mem = NULL;
	int n;

	r = capture(WITH_END, &mem);
	n = 0;
	ck_assert_int_eq(dtc_reader_consume(r, &h, &n, NULL), DTC_OK);
	ck_assert_int_eq(n, 7);
	dtc_reader_close(r);
	free(mem);
	r = capture(WITH_END, &mem);
	ck_assert_int_eq(dtc_reader_select(r, "cpu", "2", NULL), DTC_OK);
	n = 0;
	ck_assert_int_eq(dtc_reader_consume(r, &h, &n, NULL), DTC_OK);
	ck_assert_int_eq(n, 2);
	dtc_reader_close(r);
	free(mem);
	r = capture(0, &mem);
	n = 0;
	ck_assert_int_eq(dtc_reader_consume(r, &h, &n, NULL), DTC_WARN);
	ck_assert_int_eq(n, 7);
	dtc_reader_close(r);
	free(mem);
	r = capture(WITH_END | BAD_RECORD, &mem);
	n = 0;
	ck_assert_int_eq(dtc_reader_consume(r, &h, &n, NULL), DTC_WARN);
	ck_assert_int_eq(n, 7);
	dtc_reader_close(r);
	free(mem);
}
END_TEST

static int
must_not_run(const dtc_event *ev, void *arg)
{
	(void)ev;
	(void)arg;
	ck_abort_msg("a callback beyond the handler's size was called");
	return 1;
}

/*
 * A program built against an older header hands a shorter dtc_handler:
 * what lies past its size is not a callback (here: one that must not run)
 * and is not read.  A NULL handler decodes for the status only.
 */
START_TEST(consume_handler_size)
{
	struct {
		dtc_handler h;
		void *after;
	} mem_h;
	dtc_reader *r;
	char *mem = NULL;
	int n;

	memset(&mem_h, 0, sizeof(mem_h));
	mem_h.h.probe = count_probe;
	mem_h.h.end = must_not_run;   /* past the size given below */
	r = capture(WITH_END, &mem);
	n = 0;
	ck_assert_int_eq(dtc_reader_consume_sized(r, &mem_h.h,
	    offsetof(dtc_handler, end), &n, NULL), DTC_OK);
	ck_assert_int_eq(n, 7);
	dtc_reader_close(r);
	free(mem);

	/* a size that is not a whole number of callbacks: end's half is
	 * not taken for a callback */
	mem_h.h.end = must_not_run;
	r = capture(WITH_END, &mem);
	n = 0;
	ck_assert_int_eq(dtc_reader_consume_sized(r, &mem_h.h,
	    offsetof(dtc_handler, end) + sizeof(void *) / 2, &n, NULL),
	    DTC_OK);
	ck_assert_int_eq(n, 7);
	dtc_reader_close(r);
	free(mem);

	/* the whole first layout through the function, not the macro */
	mem_h.h.end = NULL;
	r = capture(WITH_END, &mem);
	n = 0;
	ck_assert_int_eq((dtc_reader_consume)(r, &mem_h.h, &n, NULL), DTC_OK);
	ck_assert_int_eq(n, 7);
	dtc_reader_close(r);
	free(mem);

	r = capture(WITH_END | BAD_RECORD, &mem);
	ck_assert_int_eq(dtc_reader_consume(r, (const dtc_handler *)NULL, NULL, NULL),
	    DTC_WARN);
	dtc_reader_close(r);
	free(mem);
}
END_TEST

/* the position only grows, from 0 to the capture's size */
START_TEST(position)
{
	const dtc_event *ev;
	dtc_reader *r;
	char *mem = NULL;
	uint64_t last = 0, pos;
	size_t len;

	r = capture_len(WITH_END, &mem, &len);
	ck_assert_uint_eq(dtc_reader_position(r), 0);
	while (dtc_reader_next(r, &ev, NULL) == DTC_OK) {
		pos = dtc_reader_position(r);
		ck_assert_uint_ge(pos, last);
		ck_assert_uint_le(pos, len);
		last = pos;
	}
	ck_assert_uint_eq(last, len);
	dtc_reader_close(r);
	free(mem);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("select");
	TCase *t = tcase_create("select");

	tcase_add_test(t, probe_descriptions);
	tcase_add_test(t, globs);
	tcase_add_test(t, cpu_lists);
	tcase_add_test(t, time_forms);
	tcase_add_test(t, window);
	tcase_add_test(t, no_selection);
	tcase_add_test(t, by_probe);
	tcase_add_test(t, by_cpu_and_epid);
	tcase_add_test(t, by_time);
	tcase_add_test(t, side_effects);
	tcase_add_test(t, refusals);
	tcase_add_test(t, v2_has_no_time);
	tcase_add_test(t, v2_pass_clocks);
	tcase_add_test(t, option_cpu);
	tcase_add_test(t, option_effect);
	tcase_add_test(t, consume_status);
	tcase_add_test(t, consume_handler_size);
	tcase_add_test(t, position);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return util_run_suite(suite());
}
