/*
 * capture.c - the state every decoder of one capture shares: the header
 * item read into a dtc_header, the byte order and OS rules it implies,
 * the metadata tables and the options in force (capture.h).  Both
 * readers (consume.c's events, batch.c's columns) read the header here,
 * so that they agree on every value and every warning about it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capture.h"

int
dtcp_capture_init(dtcp_capture *c, dtcp_container *cont, unsigned flags,
    dtc_error *err)
{
	memset(c, 0, sizeof(*c));
	if ((c->source = strdup(dtcp_container_source(cont))) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, dtcp_container_source(cont),
		    -1, -1, -1, "out of memory");
		dtcp_container_close(cont);
		return -1;
	}
	c->cont = cont;
	dtcp_options_init(&c->opts);
	if (flags & DTC_OPEN_TEMPORAL) {
		c->opts.v[DTCP_OPT_TEMPORAL] = 1;
		c->opts.pinned[DTCP_OPT_TEMPORAL] = 1;
	}
	return 0;
}

void
dtcp_capture_free(dtcp_capture *c)
{
	dtcp_meta_free(&c->meta);
	free((char *)c->hdr.os);
	free((char *)c->hdr.release);
	free((char *)c->hdr.host);
	free((char *)c->hdr.producer);
	if (c->cont != NULL)
		dtcp_container_close(c->cont);
	dtcp_rseries_free(c->series);
	free(c->source);
}

static char *
dup_text(const dtcp_container *c, const dtcp_item *it, const dtcp_node *map,
    const char *key, const char *dflt, dtc_error *err)
{
	const char *s = dflt;
	size_t len = strlen(dflt);
	char *p;

	if (dtcp_get_text(c, it, map, key, 0, &s, &len, err) == DTC_FAILED) {
		s = dflt;
		len = strlen(dflt);
	}
	if ((p = malloc(len + 1)) != NULL) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

int
dtcp_capture_read_header(dtcp_capture *c, const dtcp_item *it,
    dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0], *v;
	const char *s;
	size_t len;
	uint64_t u;
	int rc;

	if (strcmp(it->kind, "dtsnap") != 0) {
		dtcp_error_set(err, DTC_E_BADHEADER, c->source, it->index,
		    (long long)it->offset, -1, "the first item is a \"%s\" "
		    "item, not the dtsnap header", it->kind);
		return DTC_FATAL;
	}
	if ((v = dtcp_map_get(map, "version")) != NULL &&
	    v->type == DTCP_N_ARRAY && v->count >= 2) {
		c->hdr.version_major = (int)dtcp_array_at(v, 0)->u;
		c->hdr.version_minor = (int)dtcp_array_at(v, 1)->u;
	}
	if (dtcp_get_text(c->cont, it, map, "byteorder", 0, &s, &len, err) ==
	    DTC_OK)
		c->hdr.big_endian = len == 3 && memcmp(s, "big", 3) == 0;
	if (dtcp_get_text(c->cont, it, map, "model", 0, &s, &len, err) ==
	    DTC_OK)
		c->hdr.ilp32 = len == 5 && memcmp(s, "ILP32", 5) == 0;
	c->hdr.os = dup_text(c->cont, it, map, "os", "", err);
	c->hdr.release = dup_text(c->cont, it, map, "release", "", err);
	c->hdr.host = dup_text(c->cont, it, map, "host", "", err);
	c->hdr.producer = dup_text(c->cont, it, map, "producer", "", err);
	if (c->hdr.os == NULL || c->hdr.release == NULL ||
	    c->hdr.host == NULL || c->hdr.producer == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, c->source, -1, -1, -1,
		    "out of memory");
		return DTC_FATAL;
	}
	c->hdr.os_illumos = strcasecmp(c->hdr.os, "illumos") == 0 ||
	    strcasecmp(c->hdr.os, "solaris") == 0 ||
	    strcasecmp(c->hdr.os, "sunos") == 0;
	c->illumos = c->hdr.os_illumos;
	c->hdr.flavor = "legacy";
	rc = dtcp_get_text(c->cont, it, map, "flavor", 0, &s, &len, err);
	if (rc == DTC_FAILED)
		return DTC_FATAL;   /* read as legacy, every item would be lost */
	if (rc == DTC_OK) {
		if (len == 9 && memcmp(s, "dtrace-v2", 9) == 0) {
			c->hdr.flavor = "dtrace-v2";
			c->hdr.v2 = 1;
		} else if (!(len == 6 && memcmp(s, "legacy", 6) == 0)) {
			dtcp_error_set(err, DTC_E_VERSION, c->source, it->index,
			    (long long)it->offset, -1, "capture flavor '%.*s' is "
			    "not one this reader knows (legacy, dtrace-v2)",
			    (int)(len > 40 ? 40 : len), s);
			return DTC_FATAL;
		}
	}
	if (c->hdr.v2 && c->hdr.version_major == 1 && c->hdr.version_minor < 1) {
		dtcp_error_set(err, DTC_E_VERSION, c->source, it->index,
		    (long long)it->offset, -1, "a dtrace-v2 capture needs "
		    "container version 1.1 or later, the header says %d.%d",
		    c->hdr.version_major, c->hdr.version_minor);
		return DTC_FATAL;
	}
	c->meta.v2 = c->hdr.v2;
	u = 0;
	if (dtcp_get_u64(c->cont, it, map, "ncpu", 0, &u, err) == DTC_OK) {
		c->hdr.ncpu = u > 65536 ? 65536 : (uint32_t)u;
		c->ncpu = u;
		c->have_ncpu = 1;
	}
	u = c->illumos ? 49 : 55;
	if (dtcp_get_u64(c->cont, it, map, "dt_act_base", 0, &u, err) ==
	    DTC_FAILED)
		u = c->illumos ? 49 : 55;
	c->hdr.dt_act_base = (uint32_t)u;
	/* ILP32: pc_t and pointers are 4 bytes; record sizes carry it
	 * (stack pcsize = size / depth), so nothing more to do here */
	c->swap = c->hdr.big_endian != dtcp_host_big();
	return DTC_OK;
}

/*
 * Items of the other flavor would be misdecoded (a legacy buf walked as v2
 * records, or the reverse): refused, and said so.
 */
int
dtcp_capture_foreign(const dtcp_capture *c, const dtcp_item *it,
    dtc_error *err)
{
	if (!dtcp_kind_foreign(it->kind, c->hdr.v2))
		return 0;
	dtcp_error_set(err, DTC_E_BADVALUE, c->source, it->index,
	    (long long)it->offset, -1, "%s item in a %s capture (it belongs "
	    "to %s captures); skipped", it->kind, c->hdr.flavor,
	    c->hdr.v2 ? "legacy" : "dtrace-v2");
	return 1;
}

void
dtcp_capture_where(const dtcp_capture *c, dtc_error *err)
{
	if (err != NULL && c != NULL && c->where != NULL)
		c->where(c->where_arg, err);
}
