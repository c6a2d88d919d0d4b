/*
 * batch.c - decode-only through the batch (columnar) reader: every batch
 * of a capture, every value touched once (summed, so that the compiler
 * cannot drop the decoding), as `dtconsume -f none` decodes every record
 * through the per-event interface.  bench/python.sh times both in one run.
 *
 *   bench/batch [-t] [-n MAXROWS] FILE      (-t: DTC_OPEN_TEMPORAL)
 *
 * prints "rows=R values=V tables=T sum=S warnings=W" (values: data
 * values in columns; rows of "other" statements count as rows only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dtconsume.h"

int
main(int argc, char **argv)
{
	size_t maxrows = 1 << 16, t, r, rows = 0, values = 0, tables = 0;
	uint64_t sum = 0;
	unsigned warnings = 0;
	dtc_batch *b;
	dtc_error err;
	uint32_t k;
	unsigned flags = 0;
	int ch, rc;

	while ((ch = getopt(argc, argv, "tn:")) != -1) {
		if (ch == 't') {
			flags |= DTC_OPEN_TEMPORAL;
			continue;
		}
		if (ch != 'n') {
			fprintf(stderr, "usage: batch [-t] [-n MAXROWS] FILE\n");
			return 2;
		}
		maxrows = strtoul(optarg, NULL, 10);
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: batch [-t] [-n MAXROWS] FILE\n");
		return 2;
	}
	dtc_error_clear(&err);
	if ((b = dtc_batch_open_file(argv[optind], flags, &err)) == NULL) {
		fprintf(stderr, "batch: %s\n", err.text);
		return 1;
	}
	for (;;) {
		dtc_error_clear(&err);
		rc = dtc_batch_next(b, maxrows, &err);
		if (rc == DTC_EOF)
			break;
		if (rc == DTC_WARN || rc == DTC_FATAL) {
			warnings++;
			fprintf(stderr, "batch: %s\n", err.text);
		}
		rows += dtc_batch_nrows(b);
		for (t = 0; t < dtc_batch_ntables(b); t++) {
			const dtc_table *tb = dtc_batch_table(b, t);

			tables++;
			for (k = 0; k < tb->ncols; k++) {
				const dtc_column *c = &tb->cols[k];

				values += tb->nrows;
				if (c->kind == DTC_COL_INT)
					for (r = 0; r < tb->nrows; r++)
						sum += (uint64_t)c->i[r];
				else
					sum += c->nbytes;
			}
			for (r = 0; r < tb->nrows; r++)
				sum += tb->timestamp[r];
		}
		if (rc == DTC_FATAL)
			break;
	}
	dtc_batch_close(b);
	printf("rows=%zu values=%zu tables=%zu sum=%llu warnings=%u\n", rows,
	    values, tables, (unsigned long long)sum, warnings);
	return warnings ? 1 : 0;
}
