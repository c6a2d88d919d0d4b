/*
 * dtconsume/writer.h - writing DTrace captures (.dtsnap): dtc_writer,
 * dtc_series_writer and raw items (dtc_writer_new(3),
 * dtc_series_writer_new(3), dtc_container_open_file(3)).
 *
 * Part of libdtconsume's public interface, installed as
 * <dtconsume/writer.h> beside <dtconsume.h> (pkg-config's -I is the
 * same).  It takes its shared types (dtc_error, the metadata
 * descriptions, dtc_program, dtc_capture) from dtconsume.h, which in
 * turn includes this header: a program may include either.
 */
#ifndef DTCONSUME_WRITER_H
#define DTCONSUME_WRITER_H

#include "../dtconsume.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dtc_writer_header {
	int big_endian, ilp32;
	const char *os, *release, *host, *producer;
	uint32_t ncpu;
	uint32_t dt_act_base;
	/* NULL or "legacy": illumos/FreeBSD buffers; "dtrace-v2": DTrace
	 * for Linux (dtrace-utils) items.  Both are written as container
	 * 1.3 (every item numbered: dtsnap(5)) */
	const char *flavor;
} dtc_writer_header;

typedef struct dtc_writer_status {
	uint32_t pass;
	int began_on, ended_on;      /* -1 when not known */
	int exiting;
	int exit_status;
	uint64_t dynamic, dynrinse, dyndirty, spec, specbusy, specunavail,
	    stkstroverflow, dblerrors, errors;
} dtc_writer_status;

typedef struct dtc_writer_buf {
	uint32_t pass;
	int cpu;
	const void *data;
	size_t size;
	uint64_t drops, errors, oldest, timestamp;
} dtc_writer_buf;

/* out: a stdio stream the caller opened; nothing is closed by the writer. */
dtc_writer *dtc_writer_new(FILE *out, const dtc_writer_header *h,
    dtc_error *err);
/* The same, compressed with zstd at level 1..DTC_ZSTD_LEVEL_MAX in
 * independent frames (0: not compressed).  See dtsnap(5), COMPRESSION. */
#define DTC_ZSTD_LEVEL_MAX 19
dtc_writer *dtc_writer_new_zstd(FILE *out, const dtc_writer_header *h,
    int level, dtc_error *err);
/* Ends the current zstd frame (if compressing) and flushes out: every
 * item written so far can then be read even if nothing more ever is. */
int dtc_writer_flush(dtc_writer *w, dtc_error *err);
int dtc_writer_add_probe(dtc_writer *w, const dtc_probedesc *p, dtc_error *err);
int dtc_writer_add_eprobe(dtc_writer *w, const dtc_eprobedesc *ep,
    dtc_error *err);
int dtc_writer_add_agg(dtc_writer *w, const dtc_aggdesc *ad, dtc_error *err);
int dtc_writer_add_format(dtc_writer *w, uint32_t id, const char *s,
    dtc_error *err);
/* One option; a string value or (value == NULL) the integer ival. */
int dtc_writer_add_option(dtc_writer *w, const char *name, const char *value,
    int64_t ival, dtc_error *err);
int dtc_writer_add_clock(dtc_writer *w, uint64_t hrtime, uint64_t walltime,
    dtc_error *err);
/* DTrace v2: pass >= 0, when that pass was consumed: the time of its
 * records (a stream item, before the pass's first record); pass < 0, the
 * capture's clock pair, saying that every pass with records has one. */
int dtc_writer_add_pass_clock(dtc_writer *w, int64_t pass, uint64_t hrtime,
    uint64_t walltime, dtc_error *err);
/* Kernel symbols: call begin, then add for each, then end. */
int dtc_writer_ksyms_begin(dtc_writer *w, size_t nsyms, dtc_error *err);
int dtc_writer_add_ksym(dtc_writer *w, uint64_t addr, uint64_t size,
    const char *module, const char *name, dtc_error *err);
int dtc_writer_ksyms_end(dtc_writer *w, dtc_error *err);
typedef struct dtc_writer_usym {
	uint64_t addr, size;
	const char *name;
} dtc_writer_usym;
typedef struct dtc_writer_map {
	uint64_t start, end;
	const char *path;
	size_t nsyms;
	const dtc_writer_usym *syms;
} dtc_writer_map;
int dtc_writer_add_proc(dtc_writer *w, uint64_t pid, const char *execname,
    size_t nmaps, const dtc_writer_map *maps, dtc_error *err);
int dtc_writer_add_status(dtc_writer *w, const dtc_writer_status *st,
    dtc_error *err);
int dtc_writer_add_aggbuf(dtc_writer *w, const dtc_writer_buf *b,
    dtc_error *err);
int dtc_writer_add_buf(dtc_writer *w, const dtc_writer_buf *b, dtc_error *err);
/*
 * DTrace v2 (DTrace for Linux, dtrace-utils) items: a writer made with
 * flavor "dtrace-v2" takes these instead of eprobe/agg/aggbuf/buf items
 * (dtsnap(5), DTRACE V2 ITEMS).  recdesc actions are dtrace-utils'
 * action codes; offsets of statement records count from the record's
 * size word, offsets of aggregation records from the start of the key
 * (krecs) or of the data (drecs).
 */
typedef struct dtc_stmtdesc {
	uint32_t id;         /* statement id (dtrace_stid_t) */
	uint64_t uarg;       /* dtdd_uarg: 0 = an ordinary clause */
	uint32_t size;       /* dtdd_size */
	uint32_t nrecs;
	const dtc_recdesc *recs;
} dtc_stmtdesc;
int dtc_writer_add_stmt(dtc_writer *w, const dtc_stmtdesc *sd, dtc_error *err);

typedef struct dtc_aggdesc_v2 {
	uint32_t id;         /* aggregation id: the first word of each key */
	int64_t varid;
	const char *name;    /* without '@'; "" when anonymous */
	uint32_t flags;
	uint64_t sig, normal;
	uint32_t ksize, dsize;
	uint32_t nkrecs;
	const dtc_recdesc *krecs;
	uint32_t ndrecs;
	const dtc_recdesc *drecs;
} dtc_aggdesc_v2;
int dtc_writer_add_aggdesc_v2(dtc_writer *w, const dtc_aggdesc_v2 *ad,
    dtc_error *err);

/* Records of one CPU in the order libdtrace delivered them: each starts
 * with its 32-bit size word (bytes after it), then specid, probe id,
 * statement id and the data, exactly as BPF wrote it. */
int dtc_writer_add_recs(dtc_writer *w, uint32_t pass, int cpu,
    const void *data, size_t size, dtc_error *err);

/* libdtrace's aggregation state right after a snapshot: begin, one entry
 * per hash entry (key of the aggregation's ksize, data of its dsize),
 * end.  A snapshot replaces the state the previous one left. */
int dtc_writer_aggsnap_begin(dtc_writer *w, uint32_t pass, size_t nentries,
    dtc_error *err);
int dtc_writer_add_aggsnap_entry(dtc_writer *w, uint32_t aggid, const void *key,
    size_t ksize, const void *data, size_t dsize, dtc_error *err);
int dtc_writer_aggsnap_end(dtc_writer *w, dtc_error *err);

/* A drop as libdtrace reported it (dtrace_dropdata_t); kind is
 * dtrace-utils' dtrace_dropkind_t, msg its preconstructed message. */
int dtc_writer_add_drop(dtc_writer *w, uint32_t pass, int cpu, uint32_t kind,
    uint64_t drops, uint64_t total, const char *msg, dtc_error *err);
/* A fault in D (the ERROR probe; dtrace_errdata_t): the statement and
 * probe that faulted, the action index, DIF offset, fault and address,
 * and libdtrace's preconstructed message. */
typedef struct dtc_writer_fault {
	uint32_t pass;
	int cpu;
	uint32_t stid, probe;
	int action, offset, fault;
	uint64_t addr;
	const char *msg;
} dtc_writer_fault;
int dtc_writer_add_fault(dtc_writer *w, const dtc_writer_fault *f,
    dtc_error *err);

/* The run was interrupted at this point of the stream (the first SIGINT
 * or SIGTERM): dtrace(1) prints a newline here, at the top of its next
 * consume pass.  Either flavor. */
int dtc_writer_add_interrupt(dtc_writer *w, uint32_t pass, dtc_error *err);

/* The C types print() records of one module are shown by: a CTF
 * dictionary (GNU libctf's ctf_write_mem output) and, when its ids are
 * not the ones the records give, npairs pairs (record's id, dictionary's
 * id) in ids (NULL: the same ids).  Either flavor; before the first
 * record that needs it. */
int dtc_writer_add_ctf(dtc_writer *w, const char *module, const void *data,
    size_t size, const uint64_t *ids, size_t npairs, dtc_error *err);

/* Writes the end item (a clean close) and frees w. */
int dtc_writer_end(dtc_writer *w, int exit_status, dtc_error *err);
/* Frees w without writing the end item (a capture cut short). */
void dtc_writer_free(dtc_writer *w);

/*
 * A capture in parts (dtsnap(5), SERIES; series.c): each part a capture
 * on its own.  A part starts with the header, a clock item naming the
 * series and the part (the clock pair at its start), and the metadata
 * and aggregation snapshot the parts before it wrote, repeated; it ends
 * with an end item saying what it holds.  dtc_series_begin_part opens part 0,
 * 1, ... on out and returns its writer (the series' own: do not end or
 * free it); dtc_series_end_part closes it.  id: the series' name, the
 * same text in every part (at most 63 bytes).
 */
typedef struct dtc_part_end {
	int exit_status;
	int more;                /* 1: the run goes on in the next part */
	uint64_t first, last;    /* first and last record time (0: none) */
	uint32_t ncpu;           /* drops[]: drops so far, by cpu */
	const uint64_t *drops;
	/* a window (--ring): records let go before it; 0 for a part */
	int window;
	uint64_t let_go_records, let_go_bytes;
} dtc_part_end;
dtc_series_writer *dtc_series_writer_new(const dtc_writer_header *h,
    int level, const char *id, dtc_error *err);
dtc_writer *dtc_series_begin_part(dtc_series_writer *s, FILE *out,
    uint64_t hrtime, uint64_t walltime, dtc_error *err);
int dtc_series_end_part(dtc_series_writer *s, const dtc_part_end *e,
    dtc_error *err);
/* The index of the part open or last ended (-1 before the first). */
long dtc_series_index(const dtc_series_writer *s);
void dtc_series_writer_free(dtc_series_writer *s);

/* Items written as they are (a capture's own bytes): a writer that
 * writes no header item, a series whose header is the item hdr, and one
 * encoded item through either (a series renumbers its seq). */
dtc_writer *dtc_writer_new_raw(FILE *out, int level, dtc_error *err);
int dtc_writer_put_item(dtc_writer *w, const void *p, size_t n,
    dtc_error *err);
dtc_series_writer *dtc_series_writer_new_raw(const void *hdr, size_t n,
    int v2, int level, const char *id, dtc_error *err);
int dtc_series_put_item(dtc_series_writer *s, const void *p, size_t n,
    dtc_error *err);
/* The part open is the last one: keep nothing for a next part. */
int dtc_series_keep_nothing(dtc_series_writer *s, dtc_error *err);

/* The kernel symbols and process mappings of c written to w (as
 * dtc_writer_add_ksym and dtc_writer_add_proc would), so that a capture
 * derived from another symbolizes as its source did. */
int dtc_writer_copy_symbols(dtc_writer *w, const dtc_capture *c,
    dtc_error *err);

/* Writes p as a program item (either flavor; after the header). */
int dtc_writer_add_program(dtc_writer *w, const dtc_program *p,
    dtc_error *err);

/* Writes a dof item (name NULL: none). */
int dtc_writer_add_dof(dtc_writer *w, const char *name, const void *data,
    size_t size, dtc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* DTCONSUME_WRITER_H */
