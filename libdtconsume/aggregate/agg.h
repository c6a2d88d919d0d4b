/*
 * agg.h - the aggregation engine (agg.c; layer 2 of base.h's list): the
 * running state of a capture's aggregations, merged from its snapshots,
 * and its printing.  Never installed.
 */
#ifndef DTCP_AGG_H
#define DTCP_AGG_H

#include "decoders.h"

dtcp_aggstate *dtcp_agg_new(void);
void dtcp_agg_free(dtcp_aggstate *a);
/*
 * Merge one CPU's aggregation snapshot into the running state (in file
 * order). Entries whose aggid is unknown, or which overrun the buffer,
 * give DTC_WARN with err set (cpu, buffer offset) and the walk goes on
 * with what is intact where it can (an unknown aggid: the rest of that
 * buffer is skipped, as its entry size is unknown).
 */
int dtcp_agg_snap(dtcp_aggstate *a, const dtcp_capture *r, int cpu,
    const uint8_t *buf, size_t len, dtc_error *err);
/* Library actions (by variable id). n: trunc count (0 = all). */
/* DTrace v2: the whole state after a snapshot (legacy-layout entries,
 * oldest first) replaces the current one; see agg.c. */
int dtcp_agg_replace(dtcp_aggstate *a, const dtcp_capture *r,
    const uint8_t *buf, size_t len, dtc_error *err);
void dtcp_agg_clear(dtcp_aggstate *a, const dtcp_capture *r, int64_t varid);
void dtcp_agg_normalize(dtcp_aggstate *a, int64_t varid, uint64_t normal);
void dtcp_agg_denormalize(dtcp_aggstate *a, int64_t varid);
void dtcp_agg_trunc(dtcp_aggstate *a, const dtcp_capture *r, int64_t varid,
    int64_t n);
/*
 * Build the printing of a printa() of nvars variables (joined when > 1),
 * sorted under the options in force. Marks the aggdescs printed.
 * The result is valid until the next call on a.
 */
const dtc_aggprint *dtcp_agg_printa(dtcp_aggstate *a, const dtcp_capture *r,
    const int64_t *varids, uint32_t nvars, const dtc_format *fmt,
    dtc_error *err);
/*
 * End of run: the next variable (in varid order) with entries not yet
 * printed; NULL when none is left. *cursor starts at 0.
 */
const dtc_aggprint *dtcp_agg_exit_next(dtcp_aggstate *a, const dtcp_capture *r,
    size_t *cursor);
/* Visit every live entry: its aggdesc (of the first sighting), the merged
 * bytes (desc->size of them, capture byte order) and normal. */
typedef void dtcp_agg_visit_f(const dtc_aggdesc *desc, const uint8_t *data,
    uint32_t size, uint64_t normal, void *arg);
void dtcp_agg_foreach(const dtcp_aggstate *a, dtcp_agg_visit_f *visit,
    void *arg);

#endif /* DTCP_AGG_H */
