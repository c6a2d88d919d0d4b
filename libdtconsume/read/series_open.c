/*
 * series_open.c - dtc_reader_open_series: a reader (consume.c) on the first part
 * of a series, whose items then come through rseries.c.  Apart from
 * rseries.c because it sits on the reader, above the pass engine that
 * calls rseries.c (cmd/tests/layers.sh).
 */
#include "config.h"

#include "reader.h"

dtc_reader *
dtc_reader_open_series(const char *const *paths, size_t n, unsigned flags,
    dtc_error *err)
{
	struct dtcp_rseries *s;
	dtc_reader *r;

	dtc_error_clear(err);
	if ((s = dtcp_rseries_new(paths, n, err)) == NULL)
		return NULL;
	if ((r = dtc_reader_open_file(dtcp_rseries_first(s), flags, err)) == NULL) {
		dtcp_rseries_free(s);
		return NULL;
	}
	dtcp_reader_set_series(r, s);
	return r;
}
