/*
 * pass.h - the pass engine (pass.c): a capture's items read pass by pass,
 * each pass's principal buffers put in libdtrace's order and walked
 * record by record.  What is not a record comes out as side items: drops,
 * DTrace v2 faults and interrupts queue as notes (dtcp_pass_note), and
 * aggregation snapshots are handed to the caller as they fall due
 * (DTCP_PASS_AGGBUF, DTCP_PASS_AGGSNAP).  The reader (consume.c) turns
 * all of it into events; the batch reader (batch.c) takes the records
 * into columns and lets the side items go.  Internal.
 */
#ifndef DTC_PASS_H
#define DTC_PASS_H

#include "capture.h"
#include "select.h"

/* dtcp_pass_read and dtcp_pass_next_record's answers besides DTC_*: */
#define DTCP_PASS_NOTES  (DTC_WARN + 1)  /* notes wait: take them first */
#define DTCP_PASS_AGGBUF (DTC_WARN + 2)  /* ps->side: a legacy aggbuf */
#define DTCP_PASS_AGGSNAP (DTC_WARN + 3) /* ps->snap: a v2 aggsnap's state */

/* One principal (or aggregation) buffer of the current pass. */
typedef struct dtcp_pbuf {
	int cpu;
	long long item;
	size_t item_offset;      /* of the item, for messages */
	size_t file_offset;      /* of the data bytes, for messages */
	const uint8_t *data;
	size_t size;
	uint64_t drops, errors, oldest, timestamp;
	uint8_t *owned;          /* the read buffer handed over, or a copy */
	size_t owned_cap;
	int infile;              /* the bytes are still in the file (data
	                          * NULL until load(): pass.c) */
	dtcp_walker w;
	int started, done;
	dtcp_walkrec cur;        /* temporal: the next record of this buffer */
} dtcp_pbuf;

/* A consume segment: one buffer, maybe only its BEGIN (or non-BEGIN)
 * records (dt_consume_begin's two-step walk of the BEGIN CPU). */
enum dtcp_filter { DTCP_F_ALL, DTCP_F_BEGIN_ONLY, DTCP_F_NOT_BEGIN };
typedef struct dtcp_segment {
	int buf;
	enum dtcp_filter filter;
	int reset_flow;          /* a CPU's records start: flow state anew */
} dtcp_segment;

typedef struct dtcp_status {
	int have;
	int began_on, ended_on, exiting, exit_status;
	uint64_t c[10];          /* cumulative drop counters, DTC_DROP_* order */
} dtcp_status;

/* A DTrace v2 fault item: the ERROR probe as libdtrace reported it. */
typedef struct dtcp_v2fault {
	uint32_t stid, probe;
	int64_t action, offset, fault;
	uint64_t addr;
} dtcp_v2fault;

/* A side item between records: a drop (kind, cpu, count), a DTrace v2
 * drop or fault with libdtrace's message, or an interrupt. */
typedef struct dtcp_note {
	int kind, cpu;
	uint64_t count;
	char *msg;               /* v2: libdtrace's message (owned) */
	dtcp_v2fault *fault;     /* v2: a fault item (owned) */
	int interrupt;           /* an interrupt item */
} dtcp_note;

#define DTCP_PASS_MAXNOTES 16

typedef struct dtcp_pass {
	dtcp_capture *cap;
	int quiet_options;       /* options items' problems are not said */

	uint32_t pass;           /* current pass number (0 = none yet) */
	dtcp_status st, prev_st;
	dtcp_pbuf *bufs;
	size_t nbufs, capbufs;
	dtcp_segment *segs;
	size_t nsegs, capsegs, seg;
	int temporal;            /* this pass is merged by timestamp */
	dtcp_pbuf **heap;        /* temporal: buffers by their next record */
	size_t nheap, capheap, heap_i;
	int heap_ready;
	dtcp_pbuf *refill;       /* the buffer whose record was just taken */
	int saw_end, eof;
	int exit_status;         /* the end item's, -1 when none */
	int began_consumed;      /* the BEGIN CPU was put first once */
	/* v2: the last buffer's pass and cpu (a new run resets flow) */
	uint32_t flow_pass;
	int flow_cpu;
	int flow_reset;          /* set when a segment with reset_flow starts */

	/* the walk buffer: the bytes of the buffer (held) being walked,
	 * when they were left in the file */
	uint8_t *wbuf;
	size_t wcap;
	const dtcp_pbuf *held;
	int defer_set;           /* the container was told to leave them */

	/* a read-ahead item of the next pass, already parsed */
	int have_pending;
	struct dtcp_pending {
		int kind;        /* 1 aggbuf, 2 buf, 3 status, 5 v2 drop/fault
		                  * or interrupt, 6 v2 aggsnap */
		dtcp_note note;
		dtcp_pbuf b;
		dtcp_status st;
		uint32_t pass;
	} pending;
	const dtcp_pbuf *side;   /* DTCP_PASS_AGGBUF: the buffer */

	/* the record just found */
	dtcp_pbuf *rb;
	dtcp_walkrec rec;

	/* notes queued between records */
	dtcp_note dq[DTCP_PASS_MAXNOTES];
	size_t ndq, dqi;
	/* DTrace v2: the aggsnap waiting for its pass, as legacy entries */
	uint8_t *snap;
	size_t snaplen, snapcap;

	/* options items wait until the pass before them is consumed */
	struct dtcp_popt { char name[64]; char val[256]; long long item;
	    size_t offset; } *popts;
	size_t npopts, cappopts;

	uint64_t position;       /* bytes read: the end of the last item */
	/* the last item read: where a stop outside a record set is */
	long long last_item;
	size_t last_offset;
	/* items after the end item: how many, and the first (reported
	 * once, by dtcp_pass_after_end) */
	uint64_t nafter;
	long long end_item, after_item;
	size_t after_offset;
	char after_kind[24];
	int after_said;

	/* record selection (dtc_reader_select, select.c); NULL: every firing */
	dtcp_select *sel;
	int sel_checked;         /* the capture can honour it (said once) */
} dtcp_pass;

void dtcp_pass_init(dtcp_pass *ps, dtcp_capture *cap);
void dtcp_pass_free(dtcp_pass *ps);
/* A selection to add to (made at first use); DTC_OK or DTC_FAILED. */
int dtcp_pass_select(dtcp_pass *ps, const char *what, const char *value,
    dtc_error *err);

/* The header, from the first item: DTC_OK (err may hold a warning about
 * it, for the caller to give after its first answer), DTC_FATAL. */
int dtcp_pass_header(dtcp_pass *ps, dtc_error *err);
/*
 * Read items until the current pass is complete.  DTC_OK: a pass is ready
 * (nbufs > 0), or the capture ended (eof).  DTC_WARN: err says what was
 * skipped; call again.  DTCP_PASS_NOTES: notes wait (dtcp_pass_note);
 * DTCP_PASS_AGGBUF, DTCP_PASS_AGGSNAP: a snapshot falls due (ps->side,
 * ps->snap): take it, then call again.  DTC_FATAL (eof is set: the pass
 * read so far can still be consumed).
 */
int dtcp_pass_read(dtcp_pass *ps, dtc_error *err);
/* Order the pass's buffers; then DTC_OK, or DTC_WARN for damage in the
 * pass (two buffers of one CPU), or DTC_FATAL (out of memory). */
int dtcp_pass_plan(dtcp_pass *ps, dtc_error *err);
/* Refuse a selection the capture cannot honour, resolve its times; at
 * each pass start until done.  DTC_OK or DTC_FATAL. */
int dtcp_pass_select_prepare(dtcp_pass *ps, dtc_error *err);
/*
 * The next record of the pass into ps->rec (its buffer ps->rb).  DTC_OK,
 * DTC_EOF at the end of the pass (then dtcp_pass_done), DTC_WARN (skip;
 * call again), DTCP_PASS_NOTES (a buffer's drops: take them; call again).
 */
int dtcp_pass_next_record(dtcp_pass *ps, dtc_error *err);
/*
 * The same, with the usual case inline: the next record of a buffer being
 * walked whole (consume.c and batch.c take every record through here;
 * the call into pass.c per record was a tenth of the decoding cost of a
 * small trace() record).  A walker at its end says so again, so the
 * end of a segment is left to dtcp_pass_next_record.
 */
static inline int __attribute__((always_inline))
dtcp_pass_next_record_fast(dtcp_pass *ps, dtc_error *err)
{
	if (!ps->temporal && ps->seg < ps->nsegs) {
		const dtcp_segment *s = &ps->segs[ps->seg];
		dtcp_pbuf *b = &ps->bufs[s->buf];

		if (b->started && s->filter == DTCP_F_ALL) {
			int rc = dtcp_walker_next(&b->w, &ps->rec, err);

			if (rc == DTC_OK) {
				ps->rb = b;
				return DTC_OK;
			}
			if (rc != DTC_EOF)
				return rc;
		}
	}
	return dtcp_pass_next_record(ps, err);
}
/* The pass is consumed: its buffers can go. */
void dtcp_pass_done(dtcp_pass *ps);
/* The enabling an ERROR record names (its first record), or NULL. */
const dtc_eprobedesc *dtcp_pass_fault_eprobe(const dtcp_pass *ps);
/* The selection's verdict on the record set in ps->rec (1: in). */
int dtcp_pass_selected(dtcp_pass *ps);
/* The next note, NULL when none waits; the caller frees its msg and
 * fault.  dtcp_pass_drop_notes lets every one waiting go. */
dtcp_note *dtcp_pass_note(dtcp_pass *ps);
void dtcp_pass_drop_notes(dtcp_pass *ps);
/* The one warning for the items after the end item, once every item is
 * read: DTC_WARN, or DTC_OK (none, or said). */
int dtcp_pass_after_end(dtcp_pass *ps, dtc_error *err);

/* The position is read by a caller's progress thread while the reader
 * runs (dtconsume's progress line): atomic, relaxed. */
static inline uint64_t
dtcp_pass_position(const dtcp_pass *ps)
{
	return __atomic_load_n(&ps->position, __ATOMIC_RELAXED);
}

#endif /* DTC_PASS_H */
