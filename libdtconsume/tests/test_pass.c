/*
 * test_pass.c - dtc_reader_next and the batch reader take their record sets from
 * one pass engine (pass.c), so on every capture of testdata/bad and
 * testdata/live they must agree: the same record sets in the same order
 * (timestamp, CPU, enabled probe, pass), with and without a selection
 * and with option temporal, and the batch reader must give every
 * warning dtc_reader_next gives about items, passes and records, at the same
 * place (code, item, offset, cpu, text), in the same order.
 *
 * The warnings a batch does not give are those of what it does not do:
 * rendering (printf, print(), stacks, setopt(), aggregations) and the
 * options items (applied without complaint, dtc_batch_open_file(3)).  They
 * are told apart here by the dtc_event dtc_reader_next gives right before them
 * and by their text, not by asking the library: see render_warning().
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

typedef struct wrn {
	int code, cpu;
	long long item, offset;
	char text[512];
} wrn;

typedef struct rset {
	uint64_t index, ts;
	int cpu;
	uint32_t pass, epid;
} rset;

typedef struct run {
	wrn *w;
	size_t nw, capw;
	int *isrender;
	rset *s;
	size_t ns, caps;
	int fatal;
} run;

static void
add_warning(run *x, const dtc_error *e, int render)
{
	if (x->nw == x->capw) {
		x->capw = x->capw ? x->capw * 2 : 16;
		x->w = realloc(x->w, x->capw * sizeof(*x->w));
		x->isrender = realloc(x->isrender, x->capw * sizeof(int));
		ck_assert_ptr_nonnull(x->w);
		ck_assert_ptr_nonnull(x->isrender);
	}
	x->w[x->nw].code = e->code;
	x->w[x->nw].cpu = e->cpu;
	x->w[x->nw].item = e->item;
	x->w[x->nw].offset = e->offset;
	snprintf(x->w[x->nw].text, sizeof(x->w[x->nw].text), "%s", e->text);
	x->isrender[x->nw] = render;
	x->nw++;
}

static void
add_set(run *x, uint64_t index, uint64_t ts, int cpu, uint32_t pass,
    uint32_t epid)
{
	if (x->ns == x->caps) {
		x->caps = x->caps ? x->caps * 2 : 64;
		x->s = realloc(x->s, x->caps * sizeof(*x->s));
		ck_assert_ptr_nonnull(x->s);
	}
	x->s[x->ns].index = index;
	x->s[x->ns].ts = ts;
	x->s[x->ns].cpu = cpu;
	x->s[x->ns].pass = pass;
	x->s[x->ns].epid = epid;
	x->ns++;
}

static void
free_run(run *x)
{
	free(x->w);
	free(x->isrender);
	free(x->s);
	memset(x, 0, sizeof(*x));
}

/*
 * A warning dtc_reader_next gives while it renders a record set, or about what
 * a batch does not read: inside a record set (after its PROBE event) a
 * warning is about one of its values (the pass engine's warnings come
 * between record sets); outside one, the options items' and the
 * aggregations'.
 */
static int
render_warning(const dtc_error *e, int in_set)
{
	if (in_set)
		return 1;
	return strstr(e->text, "options item") != NULL ||
	    strstr(e->text, "aggregation") != NULL ||
	    strstr(e->text, "aggsnap") != NULL ||
	    strstr(e->text, "aggbuf") != NULL;
}

static int
apply_sel(int reader, void *h, const char *const *sel)
{
	dtc_error err;

	for (; sel != NULL && sel[0] != NULL; sel += 2) {
		int rc = reader ? dtc_reader_select(h, sel[0], sel[1], &err) :
		    dtc_batch_select(h, sel[0], sel[1], &err);

		ck_assert_msg(rc == DTC_OK, "select %s=%s: %s", sel[0], sel[1],
		    err.text);
	}
	return 0;
}

static void
events(const char *path, unsigned flags, const char *const *sel, run *x)
{
	const dtc_event *ev;
	dtc_reader *r;
	dtc_error err;
	uint64_t n = 0;
	int rc, in_set = 0;

	r = dtc_reader_open_file(path, flags | DTC_OPEN_NOAGGEXIT, &err);
	if (r == NULL) {
		x->fatal = 1;
		add_warning(x, &err, 0);
		return;
	}
	apply_sel(1, r, sel);
	for (;;) {
		rc = dtc_reader_next(r, &ev, &err);
		if (rc == DTC_EOF)
			break;
		if (rc == DTC_WARN || rc == DTC_FATAL) {
			add_warning(x, &err, render_warning(&err, in_set));
			if (rc == DTC_FATAL) {
				x->fatal = 1;
				break;
			}
			continue;
		}
		if (ev->type == DTC_EV_PROBE) {
			add_set(x, n++, ev->timestamp, ev->cpu, ev->pass,
			    ev->ep->epid);
			in_set = 1;
		} else if (ev->type == DTC_EV_PROBE_END) {
			in_set = 0;
		} else if (ev->type == DTC_EV_ERROR && ev->ep != NULL &&
		    !in_set) {
			/* an ERROR record (not a setopt() error, which comes
			 * inside its record set) */
			add_set(x, n++, ev->timestamp, ev->cpu, ev->pass,
			    ev->ep->epid);
		}
	}
	dtc_reader_close(r);
}

static int
by_index(const void *a, const void *b)
{
	const rset *p = a, *q = b;

	return p->index < q->index ? -1 : p->index > q->index;
}

static void
batches(const char *path, unsigned flags, const char *const *sel, run *x)
{
	dtc_batch *b;
	dtc_error err;
	size_t i, k;
	int rc;

	b = dtc_batch_open_file(path, flags, &err);
	if (b == NULL) {
		x->fatal = 1;
		add_warning(x, &err, 0);
		return;
	}
	apply_sel(0, b, sel);
	for (;;) {
		/* small batches: a pass is walked across several calls */
		rc = dtc_batch_next(b, 7, &err);
		if (rc == DTC_EOF)
			break;
		for (i = 0; i < dtc_batch_ntables(b); i++) {
			const dtc_table *t = dtc_batch_table(b, i);

			for (k = 0; k < t->nrows; k++)
				add_set(x, t->index[k], t->timestamp[k],
				    t->cpu[k], t->pass[k], t->ep->epid);
		}
		if (rc == DTC_WARN || rc == DTC_FATAL) {
			add_warning(x, &err, 0);
			if (rc == DTC_FATAL) {
				x->fatal = 1;
				break;
			}
		}
	}
	dtc_batch_close(b);
	if (x->ns > 1)	/* a capture without record sets has no array (UBSan) */
		qsort(x->s, x->ns, sizeof(*x->s), by_index);
}

/* Disagreements found so far: every one is printed, then the test fails
 * (one capture's difference must not hide another's). */
static unsigned nbad;

#define expect(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		nbad++;							\
		goto out;						\
	}								\
} while (0)

static int
same_warning(const wrn *a, const wrn *b)
{
	return a->code == b->code && a->item == b->item &&
	    a->offset == b->offset && a->cpu == b->cpu &&
	    strcmp(a->text, b->text) == 0;
}

/* The two runs of one capture under one flags/selection: agree, or say
 * where they part. */
static void
compare(const char *path, unsigned flags, const char *const *sel)
{
	run e, bt;
	size_t i, j;

	memset(&e, 0, sizeof(e));
	memset(&bt, 0, sizeof(bt));
	events(path, flags, sel, &e);
	batches(path, flags, sel, &bt);
	expect(e.ns == bt.ns, "%s (flags %u%s%s): dtc_reader_next gives %zu "
	    "record sets, the batch reader %zu", path, flags,
	    sel ? ", select " : "", sel ? sel[0] : "", e.ns, bt.ns);
	for (i = 0; i < e.ns; i++) {
		const rset *p = &e.s[i], *q = &bt.s[i];

		expect(q->index == i && p->ts == q->ts &&
		    p->cpu == q->cpu && p->pass == q->pass && p->epid == q->epid,
		    "%s (flags %u): record set %zu: dtc_reader_next (ts %llu, cpu %d, "
		    "pass %u, epid %u), batch #%llu (ts %llu, cpu %d, pass %u, "
		    "epid %u)", path, flags, i, (unsigned long long)p->ts,
		    p->cpu, p->pass, p->epid, (unsigned long long)q->index,
		    (unsigned long long)q->ts, q->cpu, q->pass, q->epid);
	}
	/* the batch's warnings: dtc_reader_next's that are not about rendering,
	 * all of them, in order */
	for (i = j = 0; i < e.nw; i++) {
		if (e.isrender[i]) {
			/* a batch may not give it: skip it there too */
			if (j < bt.nw && same_warning(&e.w[i], &bt.w[j]))
				j++;
			continue;
		}
		expect(j < bt.nw && same_warning(&e.w[i], &bt.w[j]),
		    "%s (flags %u): dtc_reader_next warns \"%s\" (code %d, item %lld, "
		    "offset %lld, cpu %d); the batch reader %s%s", path, flags,
		    e.w[i].text, e.w[i].code, e.w[i].item, e.w[i].offset,
		    e.w[i].cpu, j < bt.nw ? "instead: " : "does not",
		    j < bt.nw ? bt.w[j].text : "");
		j++;
	}
	expect(j == bt.nw, "%s (flags %u): the batch reader warns "
	    "\"%s\", which dtc_reader_next does not", path, flags,
	    j < bt.nw ? bt.w[j].text : "");
out:
	free_run(&e);
	free_run(&bt);
}

/* Every capture under dir: d/input.dtsnap (bad) or d/cap.dtsnap (live). */
static size_t
each_capture(const char *dir, const char *file, void (*f)(const char *))
{
	char path[4096];
	struct dirent **ents;
	struct stat st;
	size_t found = 0;
	int n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	ck_assert_msg(n >= 0, "%s: cannot list", dir);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, ents[i]->d_name,
		    file);
		if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0) {
			f(path);
			found++;
		}
		free(ents[i]);
	}
	free(ents);
	return found;
}

static const char *const sel_cpu[] = { "cpu", "0", NULL };
static const char *const sel_probe[] = { "probe", "syscall::*", NULL };
static const char *const sel_epid[] = { "epid", "2-3", NULL };

static void
all_ways(const char *path)
{
	compare(path, 0, NULL);
	compare(path, DTC_OPEN_TEMPORAL, NULL);
	compare(path, 0, sel_cpu);
	compare(path, 0, sel_probe);
	compare(path, DTC_OPEN_TEMPORAL, sel_epid);
}

static const char *
top(void)
{
	const char *t = getenv("top_srcdir");

	return t != NULL ? t : "../..";
}

START_TEST(test_bad_captures)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/testdata/bad", top());
	nbad = 0;
	ck_assert_uint_gt(each_capture(dir, "input.dtsnap", all_ways), 100);
	ck_assert_msg(nbad == 0, "%u disagreements (above)", nbad);
}
END_TEST

START_TEST(test_live_captures)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/testdata/live/captures", top());
	nbad = 0;
	ck_assert_uint_gt(each_capture(dir, "cap.dtsnap", all_ways), 30);
	ck_assert_msg(nbad == 0, "%u disagreements (above)", nbad);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pass");
	TCase *tc = tcase_create("agree");
	SRunner *sr;
	int nfail;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_bad_captures);
	tcase_add_test(tc, test_live_captures);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
