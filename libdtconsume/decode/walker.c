/*
 * walker.c - one principal buffer, record by record, as dt_consume_cpu
 * walks it: EPIDNONE words are 4 bytes of padding, every other word
 * starts a record whose size comes from its eprobedesc.
 *
 * A wrapped ring buffer is un-rung first the way dt_unring_buf does it,
 * with `oldest & 7` zero bytes in front so that 8-byte data stays 8-byte
 * aligned; those bytes read as EPIDNONE.  The copy goes into one scratch
 * area reused for every buffer.
 *
 * Once an EPID is unknown, the sizes of everything after it are unknown
 * too, so the rest of the buffer is skipped (and said so); a record that
 * would run past the end likewise ends the buffer.  Nothing is read
 * outside [data, data + size).
 */
#include <stdlib.h>
#include <string.h>

#include "decoders.h"

#define RECHDR_SIZE 12   /* dtrace_rechdr_t: epid, timestamp hi, lo */

int
dtcp_walker_start(dtcp_walker *w, const uint8_t *data, size_t size,
    uint64_t oldest, dtc_error *err)
{
	int rc = DTC_OK;

	w->data = data;
	w->size = size;
	w->pos = 0;
	w->oldest = 0;
	w->misalign = 0;
	/* the tables may have grown since the last buffer */
	w->last_epid = 0;
	w->last_ep = NULL;
	if (oldest > size) {
		dtcp_error_set(err, DTC_E_BADOLDEST, w->source, w->item,
		    (long long)w->file_offset, w->cpu, "oldest offset %llu "
		    "lies beyond the %zu bytes of buffer data; walked from 0",
		    (unsigned long long)oldest, size);
		return DTC_WARN;
	}
	if (oldest == 0 || oldest == size)
		return rc;
	w->oldest = oldest;
	w->misalign = (size_t)(oldest & 7);
	if (w->scratch_cap < size + w->misalign) {
		uint8_t *p = realloc(w->scratch, size + w->misalign);

		if (p == NULL) {
			dtcp_error_set(err, DTC_E_NOMEM, w->source, w->item,
			    (long long)w->file_offset, w->cpu,
			    "out of memory un-ringing a %zu-byte buffer", size);
			w->size = 0;
			return DTC_FATAL;
		}
		w->scratch = p;
		w->scratch_cap = size + w->misalign;
	}
	memset(w->scratch, 0, w->misalign);
	memcpy(w->scratch + w->misalign, data + oldest, size - oldest);
	memcpy(w->scratch + w->misalign + (size - oldest), data, oldest);
	w->data = w->scratch;
	w->size = size + w->misalign;
	return rc;
}

/* Where an un-rung offset came from in the captured bytes. */
static size_t
raw_offset(const dtcp_walker *w, size_t pos)
{
	size_t q, size;

	if (w->oldest == 0)
		return pos;
	if (pos < w->misalign)
		return (size_t)w->oldest;
	q = pos - w->misalign;
	size = w->size - w->misalign;
	return q < size - w->oldest ? (size_t)w->oldest + q :
	    q - (size - (size_t)w->oldest);
}

static int
stop(dtcp_walker *w, dtc_error *err, int code, size_t pos, const char *fmt,
    ...) __attribute__((format(printf, 5, 6)));
static int
stop(dtcp_walker *w, dtc_error *err, int code, size_t pos, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, w->source, w->item,
	    (long long)(w->file_offset + raw_offset(w, pos)), w->cpu, fmt, ap);
	va_end(ap);
	w->pos = w->size;
	return DTC_WARN;
}

/*
 * A DTrace v2 recs item: records back to back, each its size word (the
 * bytes after it), specid, probe id, statement id and data, as libdtrace
 * read them from the perf ring.  Sizes are in the records, so an unknown
 * statement skips one record, not the rest.
 */
static __attribute__((noinline)) int
next_v2(dtcp_walker *w, dtcp_walkrec *rec, dtc_error *err)
{
	const dtc_eprobedesc *ep;
	uint32_t size, prid, stid;
	size_t len;
	int nomem;

	for (;;) {
		if (w->pos >= w->size)
			return DTC_EOF;
		if (w->size - w->pos < DTCP_V2_RECHDR)
			return stop(w, err, DTC_E_OVERRUN, w->pos, "%zu stray "
			    "bytes at the end of the records (offset %zu)",
			    w->size - w->pos, w->pos);
		size = dtcp_ld32(w->data + w->pos, w->swap);
		len = (size_t)size + 4;
		if (len < DTCP_V2_RECHDR || len > w->size - w->pos)
			return stop(w, err, DTC_E_OVERRUN, w->pos, "record at "
			    "offset %zu claims %u bytes, %zu are left; the rest "
			    "of these records (%zu bytes) is skipped", w->pos,
			    size, w->size - w->pos - 4, w->size - w->pos);
		prid = dtcp_ld32(w->data + w->pos + 8, w->swap);
		stid = dtcp_ld32(w->data + w->pos + 12, w->swap);
		if (stid == w->last_epid && w->last_ep != NULL &&
		    w->last_ep->probeid == prid) {
			ep = w->last_ep;
		} else {
			ep = dtcp_v2_eprobe(w->meta, prid, stid, &nomem);
			if (nomem) {
				dtcp_error_set(err, DTC_E_NOMEM, w->source,
				    w->item, (long long)(w->file_offset + w->pos),
				    w->cpu, "out of memory");
				w->pos = w->size;
				return DTC_FATAL;
			}
			w->last_epid = stid;
			w->last_ep = ep;
		}
		if (ep == NULL) {
			dtcp_error_set(err, DTC_E_BADEPID, w->source, w->item,
			    (long long)(w->file_offset + w->pos), w->cpu,
			    "record of unknown statement %u (probe %u) at "
			    "offset %zu skipped", stid, prid, w->pos);
			w->pos += len;
			return DTC_WARN;
		}
		if (ep->size > len) {
			dtcp_error_set(err, DTC_E_OVERRUN, w->source, w->item,
			    (long long)(w->file_offset + w->pos), w->cpu,
			    "record of statement %u at offset %zu has %zu bytes, "
			    "its records need %u; skipped", stid, w->pos, len,
			    ep->size);
			w->pos += len;
			return DTC_WARN;
		}
		/* the recorder writes every probe it enabled: a record of
		 * one it did not describe decodes, with a notice once per
		 * (probe, statement) and the record next (pos unchanged) */
		if (ep->probe == NULL && err != NULL &&
		    dtcp_v2_tell_noprobe(w->meta, ep)) {
			dtcp_error_set(err, DTC_E_BADVALUE, w->source, w->item,
			    (long long)(w->file_offset + w->pos), w->cpu,
			    "record of statement %u names probe %u, which no "
			    "probe item describes; decoded without its names",
			    stid, prid);
			return DTC_WARN;
		}
		break;
	}
	rec->offset = w->pos;
	rec->raw_offset = w->pos;
	rec->epid = stid;
	rec->ep = ep;
	rec->data = w->data + w->pos;
	/* v2 records carry none: their pass's time (dtsnap(5) clock) */
	rec->timestamp = dtcp_meta_pass_time(w->meta, w->item);
	w->pos += len;
	return DTC_OK;
}

int
dtcp_walker_next(dtcp_walker *w, dtcp_walkrec *rec, dtc_error *err)
{
	const dtc_eprobedesc *ep;
	uint32_t epid;

	if (w->v2)
		return next_v2(w, rec, err);
	for (;;) {
		if (w->pos >= w->size)
			return DTC_EOF;
		if (w->size - w->pos < 4)
			return stop(w, err, DTC_E_OVERRUN, w->pos, "%zu stray "
			    "bytes at the end of the buffer (offset %zu)",
			    w->size - w->pos, raw_offset(w, w->pos));
		epid = dtcp_ld32(w->data + w->pos, w->swap);
		if (epid != 0)
			break;
		w->pos += 4;
	}
	if (epid == w->last_epid) {
		ep = w->last_ep;
	} else {
		ep = dtcp_meta_eprobe(w->meta, epid);
		w->last_epid = epid;
		w->last_ep = ep;
	}
	if (ep == NULL)
		return stop(w, err, DTC_E_BADEPID, w->pos, "unknown enabled "
		    "probe id %u at buffer offset %zu; the rest of this buffer "
		    "(%zu bytes) is skipped", epid, raw_offset(w, w->pos),
		    w->size - w->pos);
	if (ep->size < RECHDR_SIZE)
		return stop(w, err, DTC_E_BADVALUE, w->pos, "enabled probe %u "
		    "has a record size of %u, less than the 12-byte record "
		    "header; the rest of this buffer is skipped", epid,
		    ep->size);
	if (ep->size > w->size - w->pos)
		return stop(w, err, DTC_E_OVERRUN, w->pos, "record of enabled "
		    "probe %u (%u bytes) at buffer offset %zu overruns the "
		    "buffer (%zu bytes left); the rest of this buffer is "
		    "skipped", epid, ep->size, raw_offset(w, w->pos),
		    w->size - w->pos);
	rec->offset = w->pos;
	rec->raw_offset = raw_offset(w, w->pos);
	rec->epid = epid;
	rec->ep = ep;
	rec->data = w->data + w->pos;
	rec->timestamp = (uint64_t)dtcp_ld32(rec->data + 4, w->swap) << 32 |
	    dtcp_ld32(rec->data + 8, w->swap);
	w->pos += ep->size;
	return DTC_OK;
}

uint32_t
dtcp_walker_peek_epid(const dtcp_walker *w)
{
	size_t pos;
	uint32_t epid;

	if (w->v2)
		return w->size - w->pos >= DTCP_V2_RECHDR ?
		    dtcp_ld32(w->data + w->pos + 12, w->swap) : 0;
	for (pos = w->pos; pos + 4 <= w->size; pos += 4) {
		epid = dtcp_ld32(w->data + pos, w->swap);
		if (epid != 0)
			return epid;
	}
	return 0;
}

void
dtcp_walker_free(dtcp_walker *w)
{
	free(w->scratch);
	w->scratch = NULL;
	w->scratch_cap = 0;
}
