/*
 * rseries.c - reading a capture written in parts (dtsnap(5), SERIES) as
 * the one capture it was cut from: dtc_reader_open_series, dtc_part_probe.
 *
 * The reader of the first part given is an ordinary one (consume.c);
 * from then on its items come through dtcp_rseries_next, which takes
 * them from the part being read and, at a part's end item, goes on with
 * the next part.  What a part repeats (its clock item and the items it
 * says it replayed) was read already in the part before it, and is
 * skipped, so that the items handed on are those of the unrotated
 * capture: the output is the same, aggregations included, since even a
 * repeated aggregation snapshot would replace a state that records of
 * the part before may have changed since (clear(), trunc()).  The end
 * item of every part but the last is the seam, not the run's end.
 *
 * A part missing (the index after the last one read is not the next
 * one given) is reported where the next part starts; that part's
 * repeated items are then read, not skipped: they describe what the
 * missing parts described and carry the aggregation state at its start.
 * A part cut short (no end item) is reported and reading goes on with
 * the next one the same way.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decoders.h"

struct part {
	char *path;
	dtc_part_info info;
};

struct dtcp_rseries {
	struct part *p;
	size_t n, cur;
	long long skip_upto;  /* items 1 .. this of the part: repeated */
	bool ended;           /* the part read last had its end item */
	bool switching;       /* go on with the next part */
	bool held;            /* item below comes after a warning */
	dtcp_item hold;
};

/* The clock item after the header: a part names its series there. */
static int
part_item(const dtcp_container *c, const dtcp_item *it, dtc_part_info *pi,
    dtc_error *err)
{
	const char *s;
	size_t len;
	uint64_t part, rep = 0;

	if (strcmp(it->kind, "clock") != 0 || dtcp_get_text(c, it,
	    &it->nodes[0], "series", 0, &s, &len, err) != DTC_OK)
		return 0;
	if (len == 0 || len >= sizeof(pi->series) || dtcp_get_u64(c, it,
	    &it->nodes[0], "part", 1, &part, err) != DTC_OK ||
	    part > UINT32_MAX || dtcp_get_u64(c, it, &it->nodes[0],
	    "replayed", 0, &rep, err) == DTC_FAILED || rep > UINT32_MAX) {
		dtc_error_clear(err);
		return 0;
	}
	memcpy(pi->series, s, len);
	pi->series[len] = '\0';
	pi->part = (uint32_t)part;
	pi->replayed = (uint32_t)rep;
	return 1;
}

int
dtc_part_probe(const char *path, dtc_part_info *pi, dtc_error *err)
{
	dtcp_container *c;
	dtcp_item it;
	struct stat sb;
	int rc, found = 0;

	dtc_error_clear(err);
	memset(pi, 0, sizeof(*pi));
	/* a pipe read here would lose what it read: never a part */
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return 0;
	if ((c = dtcp_container_open_file(path, err)) == NULL)
		return -1;
	rc = dtcp_container_next(c, &it, err);
	if (rc == DTC_OK && it.index == 0) {
		dtc_error_clear(err);
		if (dtcp_container_next(c, &it, err) == DTC_OK &&
		    it.index == 1)
			found = part_item(c, &it, pi, err);
		dtc_error_clear(err);
	} else if (rc == DTC_FATAL) {
		dtcp_container_close(c);
		return -1;
	}
	dtc_error_clear(err);
	dtcp_container_close(c);
	return found;
}

static int
bypart(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	return x->info.part < y->info.part ? -1 : x->info.part > y->info.part;
}

static void
series_free(struct dtcp_rseries *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		free(s->p[i].path);
	free(s->p);
	free(s);
}

void
dtcp_rseries_free(struct dtcp_rseries *s)
{
	series_free(s);
}

struct dtcp_rseries *
dtcp_rseries_new(const char *const *paths, size_t n, dtc_error *err)
{
	struct dtcp_rseries *s;
	size_t i;
	int rc;

	dtc_error_clear(err);
	if (paths == NULL || n == 0) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "no parts to read");
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->p = calloc(n, sizeof(*s->p))) == NULL) {
		free(s);
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if ((s->p[i].path = strdup(paths[i])) == NULL) {
			s->n = i;
			series_free(s);
			dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
			    "out of memory");
			return NULL;
		}
		s->n = i + 1;
		if ((rc = dtc_part_probe(paths[i], &s->p[i].info, err)) != 1) {
			if (rc == 0)
				dtcp_error_set(err, DTC_E_BADVALUE, paths[i],
				    1, -1, -1, "not a part of a series: its "
				    "item 1 is no clock item naming one");
			series_free(s);
			return NULL;
		}
		if (strcmp(s->p[i].info.series, s->p[0].info.series) != 0) {
			dtcp_error_set(err, DTC_E_BADVALUE, paths[i], 1, -1,
			    -1, "part %u of series '%s', not of series '%s' "
			    "(%s)", s->p[i].info.part, s->p[i].info.series,
			    s->p[0].info.series, paths[0]);
			series_free(s);
			return NULL;
		}
	}
	qsort(s->p, n, sizeof(*s->p), bypart);
	for (i = 1; i < n; i++)
		if (s->p[i].info.part == s->p[i - 1].info.part) {
			dtcp_error_set(err, DTC_E_DUPLICATE, s->p[i].path, 1,
			    -1, -1, "part %u of series '%s' given twice (also "
			    "%s)", s->p[i].info.part, s->p[i].info.series,
			    s->p[i - 1].path);
			series_free(s);
			return NULL;
		}
	return s;
}

const char *
dtcp_rseries_first(const struct dtcp_rseries *s)
{
	return s->p[0].path;
}

/* The next part: its header read, what it repeats skipped or not. */
static int
next_part(struct dtcp_rseries *s, dtcp_container **cont, char **source,
    dtc_error *err)
{
	const struct part *prev = &s->p[s->cur], *p = &s->p[s->cur + 1];
	dtcp_container *c;
	dtcp_item it;
	char *name;
	int rc;

	s->cur++;
	s->switching = false;
	if ((c = dtcp_container_open_file(p->path, err)) == NULL)
		return DTC_FATAL;
	rc = dtcp_container_next(c, &it, err);
	if (rc != DTC_OK || it.index != 0) {
		dtcp_container_close(c);
		return rc == DTC_OK ? DTC_FATAL : rc;
	}
	if ((name = strdup(p->path)) == NULL) {
		dtcp_container_close(c);
		dtcp_error_set(err, DTC_E_NOMEM, p->path, -1, -1, -1,
		    "out of memory");
		return DTC_FATAL;
	}
	dtcp_container_close(*cont);
	*cont = c;
	free(*source);
	*source = name;
	if (s->ended && p->info.part == prev->info.part + 1) {
		s->skip_upto = 1 + (long long)p->info.replayed;
		return DTC_OK;
	}
	/* its clock pair is its own start's, not the run's */
	s->skip_upto = 1;
	if (p->info.part == prev->info.part + 1)
		return DTC_OK;
	dtcp_error_set(err, DTC_E_TRUNCATED, p->path, 1,
	    (long long)(it.offset + it.size), -1, "part%s %u%s%.0u of series "
	    "'%s' missing before this one (after part %u, %s): its records "
	    "are lost; the metadata and aggregation state this part repeats "
	    "are read", p->info.part - prev->info.part > 2 ? "s" : "",
	    prev->info.part + 1, p->info.part - prev->info.part > 2 ? " to " :
	    "", p->info.part - prev->info.part > 2 ? p->info.part - 1 : 0,
	    p->info.series, prev->info.part, prev->path);
	return DTC_WARN;
}

int
dtcp_rseries_next(struct dtcp_rseries *s, dtcp_container **cont,
    char **source, dtcp_item *item, dtc_error *err)
{
	uint64_t more = 0;
	int rc;

	if (s->held) {
		s->held = false;
		*item = s->hold;
		return DTC_OK;
	}
	for (;;) {
		if (s->switching) {
			rc = next_part(s, cont, source, err);
			if (rc == DTC_WARN)
				return rc;
			if (rc != DTC_OK) {
				/* this part cannot be read: on to the next */
				if (s->cur + 1 < s->n) {
					s->ended = false;
					s->switching = true;
					return DTC_WARN;
				}
				return rc;
			}
		}
		rc = dtcp_container_next(*cont, item, err);
		if (rc == DTC_OK && item->index >= 1 &&
		    item->index <= s->skip_upto)
			continue;
		if (rc == DTC_OK && strcmp(item->kind, "end") == 0) {
			s->ended = true;
			(void)dtcp_get_u64(*cont, item, &item->nodes[0], "more",
			    0, &more, NULL);
			if (s->cur + 1 < s->n) {
				s->switching = true;
				continue;
			}
			if (more != 0) {
				/* the run went on: say so before its end */
				s->hold = *item;
				s->held = true;
				dtcp_error_set(err, DTC_E_TRUNCATED, *source,
				    item->index, (long long)item->offset, -1,
				    "the run goes on after this part (part %u "
				    "of series '%s'), in parts not given: "
				    "their records are not read",
				    s->p[s->cur].info.part,
				    s->p[s->cur].info.series);
				return DTC_WARN;
			}
			return DTC_OK;
		}
		if (rc == DTC_OK || s->cur + 1 >= s->n)
			return rc;
		if (rc == DTC_EOF) {
			s->ended = false;
			s->switching = true;
			dtcp_error_set(err, DTC_E_TRUNCATED, *source, -1, -1, -1,
			    "part %u of series '%s' ends without its end item; "
			    "reading goes on with part %u (%s)",
			    s->p[s->cur].info.part, s->p[s->cur].info.series,
			    s->p[s->cur + 1].info.part, s->p[s->cur + 1].path);
			return DTC_WARN;
		}
		if (rc == DTC_FATAL) {
			/* a part cut short or unreadable: the next one goes
			 * on (the error says where this one stopped) */
			s->ended = false;
			s->switching = true;
			return DTC_WARN;
		}
		return rc;
	}
}
