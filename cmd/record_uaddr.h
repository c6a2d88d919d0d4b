/*
 * record_uaddr.h - the DTrace for Linux backend's files among
 * themselves: record_uaddr.c (user addresses as libdtrace answered them)
 * and what it uses of record_dtrace.c.  Includes dtrace.h's types, so
 * only a backend file includes it.
 */
#ifndef DTC_RECORD_UADDR_H
#define DTC_RECORD_UADDR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* record_dtrace.c: *pp (an array of *n elements) grown to hold index
 * need, the new elements zeroed; -1 when out of memory. */
int rec_grow(void *pp, size_t *n, size_t need, size_t elsize);

/* After dtrace_open(): the handle to ask and the sink to write to. */
void rec_uaddr_init(dtrace_hdl_t *dtp, rec_sink *sink);
/* The stream libdtrace prints into, before anything is printed: its
 * buffer becomes ours, so that what libdtrace prints can be read. */
FILE *rec_uaddr_stream(FILE *ofp);
/* Just before libdtrace prints the record set rec (from its size word,
 * size bytes) of statement dd, which this writes into the capture (now,
 * or once it has been printed): its user addresses and those of the
 * aggregations its printa()s print.  -1 when the capture failed. */
int rec_uaddr_record(const dtrace_datadesc_t *dd, int cpu,
    const uint8_t *rec, size_t size);
/* The record callback: libdtrace prints rec next (NULL: the record set
 * is done). */
int rec_uaddr_chewrec(const dtrace_recdesc_t *rec);
/* Before any other stream item: the record set held back, written. */
int rec_uaddr_flush(void);
/* Just before the final aggregation print. */
int rec_uaddr_final(void);
void rec_uaddr_free(void);

#endif
