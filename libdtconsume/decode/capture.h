/*
 * capture.h - the state every decoder of one capture shares (capture.c):
 * its container, header, metadata tables, options, byte order and OS
 * rules.  The pass engine (pass.h) reads items into it; the reader
 * (consume.c) and the batch reader (batch.c) each own one.  Internal:
 * never installed, never included by cmd/, formats/ or python/.
 */
#ifndef DTC_CAPTURE_H
#define DTC_CAPTURE_H

#include "decoders.h"

struct dtc_capture {
	dtcp_container *cont;
	char *source;            /* the container's name, for messages */
	struct dtcp_rseries *series;  /* a capture in parts (rseries.c) */
	dtc_header hdr;
	int swap;                /* capture byte order != host */
	int illumos;             /* illumos rules (%d, llquantize...) */
	dtcp_meta meta;
	dtcp_options opts;
	/* the header's ncpu as written (hdr.ncpu is capped at 65536);
	 * have_ncpu: it gave one, so a buffer's cpu can be checked */
	uint64_t ncpu;
	int have_ncpu;
	/* the aggregation state (agg.c), when a reader keeps one */
	dtcp_aggstate *agg;
	/* where the record being rendered is (dtcp_capture_where): the
	 * reader's answer, so that the engines below it need not know it */
	void (*where)(const void *arg, dtc_error *err);
	const void *where_arg;
};

/* Take cont (closed by dtcp_capture_free, and here on failure); flags as
 * dtc_reader_open_file's.  0, or -1 out of memory (err set). */
int dtcp_capture_init(dtcp_capture *c, dtcp_container *cont, unsigned flags,
    dtc_error *err);
void dtcp_capture_free(dtcp_capture *c);
/* The header item (item 0): DTC_OK, perhaps with err set for a value of
 * the wrong type read past (a warning the caller delivers), or DTC_FATAL
 * when it is not a header this reader can read. */
int dtcp_capture_read_header(dtcp_capture *c, const dtcp_item *it,
    dtc_error *err);
/* 1 (err set) when it is an item of the other flavor: skipped. */
int dtcp_capture_foreign(const dtcp_capture *c, const dtcp_item *it,
    dtc_error *err);

#endif /* DTC_CAPTURE_H */
