/* decode.h - the shared main of dtconsume and dt2json, and the decode
 * dtsnap validate runs. */
#ifndef DTC_DECODE_H
#define DTC_DECODE_H

#include <stdint.h>

#include "cli.h"

/* Warnings of one kind (one dtc_error code) written per capture; the
 * rest are counted in one line at its end. */
#define DECODE_MAXWARN 100
/* The cap in force: the environment's DTCONSUME_MAX_WARNINGS (a number,
 * 0 for none), else DECODE_MAXWARN. */
unsigned decode_maxwarn(void);

/*
 * decode_series.c: the operands as the captures to decode, in order.  A
 * file that is a part of a series (dtsnap(5), SERIES) takes the other
 * parts of that series named after it, which are read with it as one
 * capture (dtc_reader_open_series), at its place.  One malloc'd block (free
 * it); NULL when out of memory.
 */
typedef struct decode_unit {
	char **paths;
	size_t n;
} decode_unit;
decode_unit *decode_units(char **files, int nfiles, int *nunits);

/* deffmt: the output format when -f is not given ("text", "json"). */
int decode_main(int argc, char **argv, const char *deffmt);

/* What decode_check saw of a capture. */
typedef struct decode_totals {
	uint64_t firings;        /* probe firings (record sets) */
	uint64_t records;        /* records in them */
	uint64_t aggs;           /* aggregation printings at the end */
	uint64_t problems;       /* warnings (shown or not), an abort, a
	                          * capture that could not be opened */
	int complete;            /* the capture has its end item */
} decode_totals;

/*
 * dtsnap validate: decode the capture at path ("-": standard input) as
 * `dtconsume path` does, its text output thrown away, and report every
 * complaint on stderr as dtconsume words it (c->progname in front).
 * maxwarn: warnings of one kind shown (0: all).  Returns the status
 * dtconsume would exit with (c->status is raised with it); t gets the
 * totals.
 */
int decode_check(cli *c, const char *path, unsigned maxwarn,
    decode_totals *t);

#endif
