/*
 * record.h - dtsnap record: the command (record.c) and the recorder
 * behind a system's libdtrace (record_dtrace.c for DTrace for Linux).
 *
 * The command parses dtrace(1)'s options, opens the capture and the tee
 * and owns the capture sink: records batched into per-CPU runs, passes
 * and the writer's errors.  A backend runs the D program as dtrace(1)
 * would and feeds the sink; it is the only code that includes dtrace.h,
 * so that an illumos/FreeBSD backend can sit beside it.
 */
#ifndef DTC_RECORD_H
#define DTC_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dtconsume.h"

/* dtrace(1)'s exit statuses, which the recorder returns as its own. */
#define REC_E_SUCCESS 0
#define REC_E_ERROR 1
#define REC_E_USAGE 2

/* One dtrace(1) option in command-line order: opt is its letter. */
typedef struct rec_arg {
	int opt;
	char *arg;
} rec_arg;

typedef struct rec_sink rec_sink;

typedef struct rec_config {
	const rec_arg *args;
	int nargs;
	/* $0 and the macro arguments ($1 ...) */
	char **dargv;
	int dargc;
	/*
	 * What dtrace(1) would print on its standard output and standard
	 * error, or both NULL without --tee.  With --tee FILE, err shares
	 * out's file offset and is unbuffered: the file then reads as
	 * `dtrace ... >FILE 2>&1` does.
	 */
	FILE *tee_out, *tee_err;
	/* Where messages go without a tee ("dtsnap record: ..."). */
	FILE *diag;
	FILE *capture;
	const char *capture_name;   /* "-" for standard output */
	rec_sink *sink;
	/* -l: list the probes the program matches (all without one) on
	 * standard output as dtrace -l does; no capture, no sink */
	int list;
} rec_config;

/* The command: argv[0] is "record". */
int record_main(int argc, char **argv);

/*
 * The backend: runs the program like dtrace(1) and records it into
 * cfg->sink.  Returns the exit status dtrace(1) would have returned.
 */
int rec_backend_run(const rec_config *cfg);
/* The name of the backend for the header's producer string. */
const char *rec_backend_producer(void);

/*
 * The capture sink.  Items go out as they arrive; records are buffered
 * into a run of one CPU, which becomes one recs item when the CPU
 * changes, when any other stream item is written (rec_sink_writer) and
 * at the end of a pass.  Every function returns 0, or -1 once the
 * writer failed (rec_sink_error says why; later calls do nothing).
 */
rec_sink *rec_sink_new(FILE *out, const char *name);
/* Before rec_sink_start: compress with zstd at level (0: do not). */
void rec_sink_set_zstd(rec_sink *s, int level);
int rec_sink_start(rec_sink *s, const dtc_writer_header *h);
/* The writer for metadata items, which may come between records. */
dtc_writer *rec_sink_meta(rec_sink *s);
/* The writer for a stream item: the pending run is written first. */
dtc_writer *rec_sink_writer(rec_sink *s);
dtc_error *rec_sink_err(rec_sink *s);
int rec_sink_check(rec_sink *s, int rc);
uint32_t rec_sink_pass(const rec_sink *s);
int rec_sink_record(rec_sink *s, int cpu, const void *rec, size_t size);
/* Ends a pass: the run is written, the stream flushed, pass + 1. */
int rec_sink_end_pass(rec_sink *s);
/* Whether the header was written (else the capture holds nothing). */
int rec_sink_started(const rec_sink *s);
/* A clean close: the end item with the exit status. */
int rec_sink_finish(rec_sink *s, int exit_status);
/* Nothing recorded after all: the temporary file of -o FILE removed,
 * FILE as it was (a no-op once the first item went out). */
void rec_sink_discard(rec_sink *s);
/* Whether --max-size was reached: the backend then stops as on SIGINT. */
int rec_sink_full(const rec_sink *s);
/* A capture cut short: what was written stays, without an end item. */
void rec_sink_abandon(rec_sink *s);
const char *rec_sink_error(rec_sink *s, char *buf, size_t len);
void rec_sink_free(rec_sink *s);

/* The backend tells the sink the time of a pass's records (the pass
 * clock's hrtime) and each drop, for what the capture says it holds. */
void rec_sink_note_time(rec_sink *s, uint64_t hrtime);
void rec_sink_note_drops(rec_sink *s, int cpu, uint64_t drops);

/*
 * record_rotate.c: every capture written as a series (dtsnap(5) SERIES),
 * of one part unless --switch-output cuts it into several.  The sink
 * calls these; record.c's command sets them up.
 */
typedef struct rec_rotate rec_rotate;
struct cli;
struct cli_out;
int rec_rotate_parse(const char *arg, uint64_t *size, uint64_t *ns,
    int *sig, const char **why);
/* base NULL: one part (no switching); out: the capture's cli_out, which
 * a switch closes and reopens on the next part's name */
rec_rotate *rec_rotate_new(struct cli *pc, struct cli_out *out,
    const char *base, uint64_t size, uint64_t ns, int onsignal,
    long maxfiles, uint64_t ring);
/* --ring (ring != 0, base: -o's name): parts in memory, the newest
 * holding ring bytes kept, written to base as one window capture on
 * SIGUSR2 and at the end */
void rec_rotate_note_record(rec_rotate *r);
/* The name of part 0 (what -o opens), NULL without switching. */
const char *rec_rotate_first_name(const rec_rotate *r);
dtc_writer *rec_rotate_start(rec_rotate *r, FILE *out,
    const dtc_writer_header *h, int level, dtc_error *err);
void rec_rotate_note_time(rec_rotate *r, uint64_t hrtime);
void rec_rotate_note_drops(rec_rotate *r, int cpu, uint64_t drops);
/* At the end of a pass: whether the part is to end here. */
int rec_rotate_due(rec_rotate *r, FILE *out);
/* The part ends (more follows) and the next begins on *out. */
dtc_writer *rec_rotate_switch(rec_rotate *r, FILE **out, dtc_error *err);
int rec_rotate_finish(rec_rotate *r, int exit_status, dtc_error *err);
void rec_rotate_abandon(rec_rotate *r);
void rec_rotate_free(rec_rotate *r);

/*
 * record_ctf.c: one print() type, and what printing it needs, copied out
 * of libdtrace's dictionary into a dictionary of its own, serialized as
 * ctf_write_mem does (malloc'd; the caller frees it).  *newid is the
 * type's id there.  NULL with *why (static text) when libctf fails.
 */
struct ctf_dict;
unsigned char *rec_ctf_extract(struct ctf_dict *src, unsigned long type,
    size_t *size, unsigned long *newid, const char **why);

#endif
