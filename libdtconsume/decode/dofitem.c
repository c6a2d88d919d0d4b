/*
 * dofitem.c - the dof items of a capture (dtsnap(5), dof): found with the
 * container alone, handed to the caller one by one, and their DOF's
 * problems placed in the capture.
 *
 * Like the program item (program.c) a dof item is asked about without
 * decoding a trace, so the capture is scanned item by item and damage
 * elsewhere is handed on as a warning, not a reason to stop: what is
 * intact is still listed.  The DOF itself is dof.c's: this file only
 * says where its bytes are.  A problem dof.c finds is located by its
 * offset in the DOF; in a capture that is the item's data offset plus
 * that, and the DOF's own offset stays in the text so that it can be
 * matched with the listing's section table.
 *
 * Decoders ignore dof items; dtcp_dof_check_item (meta.c's hook) checks
 * one when a capture is decoded, so that a damaged one is reported where
 * it is, once, and decoding goes on.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoders.h"

/*
 * Where a byte string's bytes start: its head's offset plus the head's
 * length, which dtsnap(5) writes in the shortest form (RFC 8949 4.2.1).
 */
static long long
data_offset(const dtcp_node *n)
{
	size_t head = n->len < 24 ? 1 : n->len <= UINT8_MAX ? 2 :
	    n->len <= UINT16_MAX ? 3 : n->len <= UINT32_MAX ? 5 : 9;

	return (long long)(n->offset + head);
}

/* The item's keys: data required and bytes, name optional text. */
static int
read_keys(const dtcp_container *c, const dtcp_item *it, dtc_dof_item *out,
    char **name, dtc_error *err)
{
	const dtcp_node *map = &it->nodes[0], *n;
	const char *s = "";
	size_t len = 0;
	const uint8_t *p;
	int rc;

	if ((rc = dtcp_get_bytes(c, it, map, "data", 1, &p, &out->len,
	    err)) != DTC_OK)
		return rc;
	if (dtcp_get_text(c, it, map, "name", 0, &s, &len, err) ==
	    DTC_FAILED)
		return DTC_FAILED;
	n = dtcp_map_get(map, "data");
	out->index = it->index;
	out->offset = (long long)it->offset;
	out->data_offset = data_offset(n);
	out->source = dtcp_container_source(c);
	out->data = p;
	*name = NULL;
	if (len > 0 && (*name = malloc(len + 1)) != NULL) {
		memcpy(*name, s, len);
		(*name)[len] = '\0';
	}
	out->name = *name != NULL ? *name : "";
	return DTC_OK;
}

static int
scan(dtcp_container *c, dtc_dof_item_fn fn, void *arg, dtc_error *err)
{
	dtc_dof_item di;
	dtcp_item it;
	char *name;
	int rc, found = 0, stop = 0;

	if (c == NULL)
		return DTC_FATAL;
	while (!stop) {
		dtc_error_clear(err);
		rc = dtcp_container_next(c, &it, err);
		if (rc == DTC_WARN) {
			/* damage elsewhere does not hide the dof items */
			stop = fn(arg, NULL, err);
			continue;
		}
		if (rc != DTC_OK)
			break;
		if (strcmp(it.kind, "dof") != 0)
			continue;
		memset(&di, 0, sizeof(di));
		if (read_keys(c, &it, &di, &name, err) != DTC_OK) {
			stop = fn(arg, NULL, err);
			continue;
		}
		found = 1;
		stop = fn(arg, &di, NULL);
		free(name);
	}
	dtcp_container_close(c);
	if (stop)
		rc = DTC_OK;
	else if (rc == DTC_EOF)
		rc = found ? DTC_OK : DTC_EOF;
	if (rc == DTC_OK || rc == DTC_EOF)
		dtc_error_clear(err);
	return rc;
}

int
dtc_dof_items_file(const char *path, dtc_dof_item_fn fn, void *arg,
    dtc_error *err)
{
	dtc_error_clear(err);
	return scan(dtcp_container_open_file(path, err), fn, arg, err);
}

int
dtc_dof_items_memory(const void *buf, size_t len, const char *name,
    dtc_dof_item_fn fn, void *arg, dtc_error *err)
{
	dtc_error_clear(err);
	return scan(dtcp_container_open_memory(buf, len, name, err), fn, arg,
	    err);
}

void
dtc_dof_item_locate(const dtc_dof_item *item, const dtc_error *problem,
    dtc_error *out)
{
	dtc_error_clear(out);
	if (problem->offset >= 0)
		dtcp_error_set(out, problem->code, item->source, item->index,
		    item->data_offset + problem->offset, -1,
		    "dof item, DOF offset %lld: %s", problem->offset,
		    problem->text);
	else
		dtcp_error_set(out, problem->code, item->source, item->index,
		    item->offset, -1, "dof item: %s", problem->text);
}

dtc_dof *
dtc_dof_item_open(const dtc_dof_item *item, dtc_error *err)
{
	dtc_error e = DTC_ERROR_INIT;
	dtc_dof *d;

	dtc_error_clear(err);
	if ((d = dtc_dof_open(item->data, item->len, item->source, &e)) ==
	    NULL)
		dtc_dof_item_locate(item, &e, err);
	return d;
}

/*
 * meta.c's hook: a dof item met while decoding is checked whole (it is
 * read once, so this costs what listing it would) and its first problem
 * reported, with how many more there are; the item is then dropped.
 */
int
dtcp_dof_check_item(const dtcp_container *c, const dtcp_item *it,
    dtc_error *err)
{
	dtc_dof_item di;
	dtc_dof *d;
	char *name = NULL;
	size_t n;
	int rc;

	memset(&di, 0, sizeof(di));
	if ((rc = read_keys(c, it, &di, &name, err)) != DTC_OK)
		return rc == DTC_FAILED ? DTC_WARN : rc;
	free(name);
	if ((d = dtc_dof_item_open(&di, err)) == NULL)
		return err->code == DTC_E_NOMEM ? DTC_FATAL : DTC_WARN;
	n = dtc_dof_nproblems(d);
	rc = DTC_OK;
	if (n > 0) {
		dtc_dof_item_locate(&di, dtc_dof_problem(d, 0), err);
		if (n > 1) {
			size_t l = strlen(err->text);

			snprintf(err->text + l, sizeof(err->text) - l,
			    " (and %zu more problems)", n - 1);
		}
		rc = DTC_WARN;
	}
	dtc_dof_close(d);
	return rc;
}
