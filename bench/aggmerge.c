/*
 * aggmerge.c - time the aggregation merge of a capture alone: every event
 * is read (as -f none does) but the end-of-run printing is not built
 * (DTC_OPEN_NOAGGEXIT), so what is left is reading the container and
 * merging the aggregation snapshots.  Then the same capture again with
 * the end-of-run printing (sorting every row), for comparison.
 * Not installed; used by bench/run.sh.
 *
 * Output, one line per mode: "merge wall=S cpu=S events=N".
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dtconsume.h"

static double
now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
run(const char *path, unsigned flags, const char *what)
{
	dtc_reader *r;
	dtc_error err;
	const dtc_event *ev;
	unsigned long long n = 0;
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	int rc;

	dtc_error_clear(&err);
	if ((r = dtc_reader_open_file(path, flags, &err)) == NULL) {
		fprintf(stderr, "aggmerge: %s: %s\n", path, err.text);
		return 1;
	}
	while ((rc = dtc_reader_next(r, &ev, &err)) != DTC_EOF) {
		if (rc == DTC_FATAL) {
			fprintf(stderr, "aggmerge: %s: %s\n", path, err.text);
			dtc_reader_close(r);
			return 1;
		}
		dtc_error_clear(&err);
		n++;
	}
	dtc_reader_close(r);
	printf("%s wall=%.3f cpu=%.3f events=%llu\n", what,
	    now(CLOCK_MONOTONIC) - w0, now(CLOCK_PROCESS_CPUTIME_ID) - c0, n);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: aggmerge CAPTURE\n");
		return 2;
	}
	if (run(argv[1], DTC_OPEN_NOAGGEXIT, "merge") != 0 ||
	    run(argv[1], 0, "merge+sort") != 0)
		return 1;
	return 0;
}
