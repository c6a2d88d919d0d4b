/*
 * items.c - the container item by item for programs (dtc_container(3)):
 * dtc_container_* and dtc_node_*, the public face of container.c's
 * reader, so that dtsnap's dump, convert, info and split read a capture's
 * items without a private header.  dtc_node and dtc_item are the very
 * structs container.c fills (base.h), so nothing is copied; the
 * container itself stays opaque (struct dtcp_container is container.c's).
 */
#include "config.h"

#include "base.h"

dtc_container *
dtc_container_open_file(const char *path, dtc_error *err)
{
	return (dtc_container *)dtcp_container_open_file(path, err);
}

dtc_container *
dtc_container_open_fd(int fd, const char *name, dtc_error *err)
{
	return (dtc_container *)dtcp_container_open_fd(fd, name, err);
}

dtc_container *
dtc_container_open_memory(const void *buf, size_t len, const char *name,
    dtc_error *err)
{
	return (dtc_container *)dtcp_container_open_memory(buf, len, name,
	    err);
}

int
dtc_container_next(dtc_container *c, dtc_item *item, dtc_error *err)
{
	if (c == NULL || item == NULL) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "dtc_container_next: no container or no item");
		return DTC_FATAL;
	}
	return dtcp_container_next((dtcp_container *)c, item, err);
}

void
dtc_container_close(dtc_container *c)
{
	if (c != NULL)
		dtcp_container_close((dtcp_container *)c);
}

const dtc_node *
dtc_node_get(const dtc_node *map, const char *key)
{
	return map != NULL && key != NULL ? dtcp_map_get(map, key) : NULL;
}

const dtc_node *
dtc_node_at(const dtc_node *array, uint32_t i)
{
	return dtcp_array_at(array, i);
}

const dtc_node *
dtc_node_child(const dtc_node *n)
{
	if (n == NULL || (n->type != DTC_NODE_ARRAY &&
	    n->type != DTC_NODE_MAP && n->type != DTC_NODE_TAG) ||
	    n->span < 2)
		return NULL;
	return dtcp_first_child(n);
}

/* A sibling past the parent's last child is the caller's to avoid: it
 * counts children by the parent's count, as CBOR does. */
const dtc_node *
dtc_node_next(const dtc_node *n)
{
	return n != NULL ? dtcp_next_sibling(n) : NULL;
}

int
dtc_item_get_uint(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, uint64_t *out,
    dtc_error *err)
{
	return dtcp_get_u64((const dtcp_container *)c, it, map, key, required,
	    out, err);
}

int
dtc_item_get_int(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, int64_t *out,
    dtc_error *err)
{
	return dtcp_get_i64((const dtcp_container *)c, it, map, key, required,
	    out, err);
}

int
dtc_item_get_text(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, const char **s,
    size_t *len, dtc_error *err)
{
	return dtcp_get_text((const dtcp_container *)c, it, map, key,
	    required, s, len, err);
}

int
dtc_item_get_bytes(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, const uint8_t **p,
    size_t *len, dtc_error *err)
{
	return dtcp_get_bytes((const dtcp_container *)c, it, map, key,
	    required, p, len, err);
}

/* ------------------------------------------------------------------ */
/* The zstd layer on its own (dtsnap convert copies items out of one    */
/* decompressed buffer)                                                 */
/* ------------------------------------------------------------------ */

int
dtc_zstd_is_frame(const void *p, size_t n)
{
	return p != NULL && dtcp_zsource_is_frame(p, n);
}

dtc_zstd *
dtc_zstd_open_memory(const void *buf, size_t len, dtc_error *err)
{
	dtcp_zsource *z;

	dtc_error_clear(err);
	if ((z = dtcp_zsource_new(-1, buf, len, NULL, 0)) == NULL)
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory");
	return (dtc_zstd *)z;
}

/* A damaged frame is DTC_WARN with its compressed offset, as the
 * container reports it; reading goes on at the next frame. */
int
dtc_zstd_read(dtc_zstd *z, void *out, size_t want, size_t *got,
    dtc_error *err)
{
	char msg[200];
	long long off;
	ssize_t n;
	int st;

	*got = 0;
	n = dtcp_zsource_read((dtcp_zsource *)z, out, want, &st);
	if (n > 0) {
		*got = (size_t)n;
		return DTC_OK;
	}
	if (n == 0)
		return DTC_EOF;
	if (st == DTCP_ZS_DAMAGE &&
	    dtcp_zsource_damage((dtcp_zsource *)z, msg, sizeof(msg), &off)) {
		dtcp_error_set(err, DTC_E_TRUNCATED, NULL, -1, off, -1, "%s",
		    msg);
		return DTC_WARN;
	}
	if (st == DTCP_ZS_IOERR)
		dtcp_error_set(err, DTC_E_IO, NULL, -1, -1, -1, "%s",
		    dtcp_zsource_ioerror((dtcp_zsource *)z));
	else
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory");
	return DTC_FATAL;
}

void
dtc_zstd_close(dtc_zstd *z)
{
	if (z != NULL)
		dtcp_zsource_free((dtcp_zsource *)z);
}
