/*
 * reader.h - the reader (consume.c; layer 4 of base.h's list), for what is
 * built on readers (aggmerge.c).  Never installed.
 */
#ifndef DTCP_READER_H
#define DTCP_READER_H

#include "decoders.h"


/* A reader with no input (for merged aggregations): byte order, OS rules,
 * options and symbol tables of `like`, which must outlive it. */
dtc_reader *dtcp_reader_detached(const dtc_reader *like);
dtcp_capture *dtcp_reader_capture_rw(dtc_reader *r);

/* consume.c: the reader reads the parts of a series (series_open.c). */
void dtcp_reader_set_series(dtc_reader *r, struct dtcp_rseries *s);

#endif /* DTCP_READER_H */
