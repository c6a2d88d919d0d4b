/*
 * dtconsume.h - decode DTrace buffer snapshots offline.
 *
 * The one public header of libdtconsume.  Outline of a consumer:
 *
 *   1. dtc_reader_open_file() / _open_fd() / _open_memory()  -> dtc_reader *
 *   2. dtc_reader_set_option(r, "quiet", "1") ...  (optional, before 3)
 *   3. loop: dtc_reader_next(r, &ev, &err) until DTC_EOF or DTC_FATAL
 *        (or dtc_reader_consume(r, &handler, arg, &err) with callbacks)
 *   4. dtc_reader_close(r)
 *
 * Everything an event points to is borrowed from the reader and stays valid
 * until the next dtc_reader_next() call (or the return of the callback).
 *
 * The library does no output and never exits; it returns errors in a
 * caller-owned dtc_error.  Layers, one way only:
 *   container -> meta -> walker -> record -> agg/printf -> consume
 * See libdtconsume(3) and dtsnap(5).
 */
#ifndef DTCONSUME_H
#define DTCONSUME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DTC_VERSION_MAJOR 0
#define DTC_VERSION_MINOR 2
#define DTC_VERSION_PATCH 0
const char *dtc_version_string(void);

/* ------------------------------------------------------------------ */
/* Status codes and errors                                             */
/* ------------------------------------------------------------------ */

/* Graded return codes (libarchive style). EOF and FATAL stick. */
#define DTC_OK      0    /* an event (or the call) succeeded */
#define DTC_EOF     1    /* no more events */
#define DTC_WARN   (-20) /* something was skipped; err says what; go on */
#define DTC_FAILED (-25) /* this call could not complete; the reader lives */
#define DTC_FATAL  (-30) /* the reader is dead */

/* Error codes: numbered once, never renumbered. */
enum dtc_errcode {
	DTC_E_NONE = 0,
	DTC_E_NOMEM = 1,       /* out of memory */
	DTC_E_IO = 2,          /* read or open failed (errno in text) */
	DTC_E_NOTCBOR = 3,     /* not a CBOR data item where one was expected */
	DTC_E_BADHEADER = 4,   /* first item is not a dtsnap header */
	DTC_E_VERSION = 5,     /* unknown major version */
	DTC_E_MISSINGKEY = 6,  /* an item lacks a required key */
	DTC_E_KEYTYPE = 7,     /* a key has a value of the wrong type */
	DTC_E_TRUNCATED = 8,   /* capture cut short */
	DTC_E_BADEPID = 9,     /* EPID with no eprobedesc */
	DTC_E_OVERRUN = 10,    /* record runs past the end of its buffer */
	DTC_E_BADRECDESC = 11, /* recdesc offset/size outside the record */
	DTC_E_BADOLDEST = 12,  /* oldest beyond the buffer data */
	DTC_E_LIMIT = 13,      /* absurd size or count */
	DTC_E_BADAGGID = 14,   /* aggregation id with no aggdesc */
	DTC_E_BADFORMAT = 15,  /* unknown format id or bad format string */
	DTC_E_DMISMATCH = 16,  /* data record list does not match statement */
	DTC_E_BADOPTION = 17,  /* unknown option or bad option value */
	DTC_E_BADVALUE = 18,   /* a metadata value is out of range */
	DTC_E_BADAGG = 19,     /* aggregation data inconsistent with its desc */
	DTC_E_DUPLICATE = 20,  /* the same id described twice, differently */
	DTC_E_NOTSUP = 21,     /* valid but not supported (e.g. big-endian bit) */
	DTC_E_INTERNAL = 22
};

/*
 * The caller owns this struct (usually on its stack).  Every function takes
 * NULL for it.  Within a call the first error wins.  dtc_reader_open_*,
 * dtc_reader_next, dtc_reader_consume, dtc_reader_set_option,
 * dtc_reader_select, dtc_writer_new and dtc_aggmerge_new/add clear it
 * first, so what it holds after one of them
 * is that call's; the writer's other calls keep the first error of a
 * sequence.  Fields that do not apply are -1.
 */
typedef struct dtc_error {
	int code;            /* enum dtc_errcode */
	int cpu;             /* CPU of the buffer concerned, or -1 */
	long long item;      /* index of the container item, or -1 */
	long long offset;    /* byte offset (file offset, or buffer offset, see text) */
	char source[256];    /* file name, "<stdin>" or "<memory>" (tail kept) */
	char text[200];      /* lower case, no trailing period */
	/* Zero.  Room for fields to come: they will be added here, so the
	 * size of a dtc_error a program was compiled with never changes. */
	long long reserved[4];
} dtc_error;

/* A cleared error for a declaration: dtc_error err = DTC_ERROR_INIT;
 * (the entry points also clear the error they are given). */
#define DTC_ERROR_INIT { .code = 0, .cpu = -1, .item = -1, .offset = -1 }
/* Room for any dtc_error_format text: source, location and text. */
#define DTC_ERROR_TEXT_MAX 640
void dtc_error_clear(dtc_error *err);
/* Sets err as the library does (unless err is NULL or already set: the
 * first error wins), for a program that reports its own errors the same
 * way; item, offset and cpu -1 when unknown, fmt NULL for the code's
 * name. */
void dtc_error_set(dtc_error *err, int code, const char *source,
    long long item, long long offset, int cpu, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
const char *dtc_error_string(int code);
/* "file: item 12, cpu 3, offset 6700: record overruns buffer" into buf
 * (cut to len - 1 bytes, always terminated); returns the length written */
size_t dtc_error_format(const dtc_error *err, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* The DTrace ABI constants a consumer needs                           */
/* ------------------------------------------------------------------ */

#define DTC_ACT_NONE 0
#define DTC_ACT_DIFEXPR 1
#define DTC_ACT_EXIT 2
#define DTC_ACT_PRINTF 3
#define DTC_ACT_PRINTA 4
#define DTC_ACT_LIBACT 5
#define DTC_ACT_TRACEMEM 6
#define DTC_ACT_TRACEMEM_DYNSIZE 7
#define DTC_ACT_PRINTM 8
#define DTC_ACT_PRINTT 9
#define DTC_ACT_USTACK 0x0101
#define DTC_ACT_JSTACK 0x0102
#define DTC_ACT_USYM 0x0103
#define DTC_ACT_UMOD 0x0104
#define DTC_ACT_UADDR 0x0105
#define DTC_ACT_STOP 0x0201
#define DTC_ACT_RAISE 0x0202
#define DTC_ACT_SYSTEM 0x0203
#define DTC_ACT_FREOPEN 0x0204
#define DTC_ACT_STACK 0x0401
#define DTC_ACT_SYM 0x0402
#define DTC_ACT_MOD 0x0403
#define DTC_ACT_BREAKPOINT 0x0501
#define DTC_ACT_PANIC 0x0502
#define DTC_ACT_CHILL 0x0503
#define DTC_ACT_SPECULATE 0x0601
#define DTC_ACT_COMMIT 0x0602
#define DTC_ACT_DISCARD 0x0603
#define DTC_AGG_COUNT 0x0701
#define DTC_AGG_MIN 0x0702
#define DTC_AGG_MAX 0x0703
#define DTC_AGG_AVG 0x0704
#define DTC_AGG_SUM 0x0705
#define DTC_AGG_STDDEV 0x0706
#define DTC_AGG_QUANTIZE 0x0707
#define DTC_AGG_LQUANTIZE 0x0708
#define DTC_AGG_LLQUANTIZE 0x0709
#define DTC_ACT_ISAGG(a) (((a) & 0xff00) == 0x0700)

/* Library actions, relative to the capture's dt_act_base. */
#define DTC_LIBACT_CLEAR 15
#define DTC_LIBACT_NORMALIZE 16
#define DTC_LIBACT_DENORMALIZE 17
#define DTC_LIBACT_TRUNC 18
#define DTC_LIBACT_FTRUNCATE 21
#define DTC_LIBACT_SETOPT 28

/* ------------------------------------------------------------------ */
/* Metadata as the capture describes it                                */
/* ------------------------------------------------------------------ */

typedef struct dtc_recdesc {
	uint16_t action;     /* DTC_ACT_* / DTC_AGG_* */
	uint16_t alignment;
	uint16_t format;     /* format id, 0 = none */
	uint32_t size;
	uint32_t offset;     /* from the start of the record (EPID word) */
	uint64_t arg;
	uint64_t uarg;       /* statement identity: equal uarg = same statement */
} dtc_recdesc;

typedef struct dtc_probedesc {
	uint32_t id;
	const char *provider, *module, *function, *name;
	/* "provider:module:function:name", made once by the reader (NULL in
	 * descriptions a program builds itself; the writer ignores it) */
	const char *fullname;
} dtc_probedesc;

typedef struct dtc_eprobedesc {
	uint32_t epid;
	uint32_t probeid;
	uint64_t uarg;       /* 1 = libdtrace's ERROR enabling */
	uint32_t size;       /* bytes in the buffer, header included */
	uint32_t nrecs;
	const dtc_recdesc *recs;
	const dtc_probedesc *probe; /* NULL when the probe id is unknown */
} dtc_eprobedesc;

typedef struct dtc_aggdesc {
	uint32_t id;         /* aggid */
	uint32_t epid;
	int64_t varid;
	const char *name;    /* without '@'; "" when anonymous */
	uint32_t size;       /* bytes of one entry in the aggregation buffer */
	uint32_t flags;
	uint32_t nrecs;      /* rec[0] varid, keys, rec[nrecs-1] the value */
	const dtc_recdesc *recs;
} dtc_aggdesc;

/* A compiled printf-family format (parsed once per format id). */
typedef struct dtc_format dtc_format;
const char *dtc_format_string(const dtc_format *f);

typedef struct dtc_reader dtc_reader;

/* A growable output string; the caller owns it. */
typedef struct dtc_buf {
	char *s;
	size_t len, cap;
} dtc_buf;

/* ------------------------------------------------------------------ */
/* Decoded values                                                      */
/* ------------------------------------------------------------------ */

enum dtc_vkind {
	DTC_V_NONE = 0,
	DTC_V_INT = 1,      /* scalar of size 1, 2, 4 or 8: see u/i */
	DTC_V_BYTES = 2,    /* any other DIFEXPR size: string or raw bytes */
	DTC_V_STACK = 3,    /* kernel stack: pcs */
	DTC_V_USTACK = 4,   /* ustack/jstack: pid, pcs, string table */
	DTC_V_SYM = 5,      /* sym()/func(): addr */
	DTC_V_MOD = 6,      /* mod(): addr */
	DTC_V_USYM = 7,     /* usym()/ufunc(): pid, addr */
	DTC_V_UMOD = 8,     /* umod(): pid, addr */
	DTC_V_UADDR = 9,    /* uaddr(): pid, addr */
	DTC_V_MEMORY = 10,  /* tracemem(): bytes (size already cut by dynsize) */
	DTC_V_PRINTF = 11,  /* printf/system/freopen: format + args */
	DTC_V_PRINTA = 12,  /* printa: the aggregation printing of that moment */
	DTC_V_EXIT = 13,    /* exit(): i = status */
	DTC_V_PRINTM = 14,  /* FreeBSD printm(): bytes */
	DTC_V_OTHER = 15,   /* a record the decoder shows as raw bytes (e.g. printt) */
	DTC_V_TYPED = 16    /* print(): bytes with a C type from the capture's
	                     * CTF; see dtc_reader_typed_render() and
	                     * dtc_reader_typed_walk() */
};

typedef struct dtc_aggprint dtc_aggprint;

typedef struct dtc_value {
	uint16_t kind;        /* enum dtc_vkind */
	uint16_t action;      /* the recdesc action */
	uint32_t size;        /* bytes at data */
	const uint8_t *data;  /* raw bytes, borrowed (host byte order of the capture) */
	const dtc_recdesc *rd;
	int swapped;          /* 1: data is in the other byte order than this host */
	uint64_t u;           /* INT: value zero-extended; EXIT: status */
	int64_t i;            /* INT: value sign-extended */
	uint64_t pid;         /* USTACK, USYM, UMOD, UADDR: the record's pid_t
	                       * (its process word's low 32 bits) */
	uint64_t addr;        /* SYM, MOD, USYM, UMOD, UADDR */
	uint32_t nframes;     /* STACK, USTACK: frames recorded (depth) */
	uint32_t pcsize;      /* STACK: 4 or 8; USTACK: 8 */
	const uint8_t *pcs;   /* STACK, USTACK: nframes pcs of pcsize bytes */
	const uint8_t *strtab;/* USTACK: string table, strsize bytes (may be NULL) */
	uint32_t strsize;
	/* PRINTF / PRINTA */
	const dtc_format *fmt;       /* NULL for printa without format */
	uint32_t nargs;
	const struct dtc_value *args; /* printf arguments, in order */
	const dtc_aggprint *agg;     /* PRINTA */
	/* TYPED: the C type (data/size: the value's bytes; addr: the address
	 * print() was given, 0 when the flavor records none) */
	const struct dtc_ctype *ctype;
} dtc_value;

/* ------------------------------------------------------------------ */
/* Typed values: print() with the capture's CTF (needs GNU libctf)     */
/* ------------------------------------------------------------------ */

typedef struct dtc_ctype dtc_ctype;
/* "struct point", "int [4]"; the module the type comes from ("D",
 * "vmlinux", "genunix") */
const char *dtc_ctype_name(const dtc_ctype *t);
const char *dtc_ctype_module(const dtc_ctype *t);

enum dtc_tkind {
	DTC_T_INT = 1,      /* integer, char, bool: u/i (is_signed says which) */
	DTC_T_FLOAT = 2,    /* f */
	DTC_T_POINTER = 3,  /* u */
	DTC_T_ENUM = 4,     /* i, and enumerator when the value has a name */
	DTC_T_STRUCT = 5,   /* opens a struct: its members follow, then END */
	DTC_T_UNION = 6,    /* opens a union */
	DTC_T_ARRAY = 7,    /* opens an array: its elements follow, then END */
	DTC_T_END = 8,      /* closes the STRUCT/UNION/ARRAY of the same depth */
	DTC_T_OTHER = 9     /* a type with no value to show (function, void) */
};

/* A typed walk goes no deeper than this (depth 0 is the value). */
#define DTC_TYPED_MAXDEPTH 64

/* One node of a typed value, in layout order. */
typedef struct dtc_tnode {
	int kind;               /* enum dtc_tkind */
	int depth;              /* 0: the value itself */
	const char *name;       /* member name; NULL for the top and for array
	                         * elements; "" for an anonymous member */
	const char *type;       /* C type name as the CTF names it */
	uint64_t index;         /* array element: its index */
	uint64_t nelems;        /* ARRAY: number of elements */
	int is_signed;
	uint64_t u;             /* INT, POINTER, ENUM: zero-extended */
	int64_t i;              /* INT, ENUM: sign-extended */
	double f;               /* FLOAT */
	const char *enumerator; /* ENUM: the value's name, NULL when none */
	int is_char;            /* INT: a char (8-bit CTF_INT_CHAR) */
	const uint8_t *data;    /* the node's bytes in the record (NULL when the
	                         * record ends before the node: truncated) */
	size_t size;            /* bytes of the node (0 for a bit-field) */
	uint32_t bit_offset;    /* from the start of the value */
	uint32_t bits;          /* width of a bit-field or scalar */
	int truncated;          /* the record ends inside or before this node */
} dtc_tnode;

/* Frame i of a STACK/USTACK value (0 ends the stack). */
uint64_t dtc_value_pc(const dtc_value *v, uint32_t i);

/*
 * DTC_V_BYTES means "a string or raw bytes" to dtrace(1); these say
 * which, by libdtrace's rule: printable text ended by a NUL with only NULs
 * after it (or printable text filling the record) is a string of *len
 * bytes (1); anything else is bytes (0).  The structured outputs show
 * values by it.
 */
int dtc_value_string(const dtc_value *v, size_t *len);
int dtc_bytes_string(const void *p, size_t n, size_t *len);
/*
 * The same question for a record of r's capture, by its flavor's printer:
 * legacy as dtc_value_string; dtrace-v2 (dtrace-utils) a string up to its
 * first NUL when the record is by reference and 1-aligned, bytes else.
 */
int dtc_reader_record_string(const dtc_reader *r, const dtc_value *v,
    size_t *len);

/*
 * A TYPED value as dtrace(1) prints print() in the capture's flavor
 * (appended to out), and a walk of its nodes for structured output.
 * Both return DTC_OK, or DTC_FAILED with err set when the type cannot be
 * shown (err says why; the caller then shows the raw bytes).  The text
 * is a message under the maxmsgsize cap, as printf's is: over it, out
 * gets its first maxmsgsize bytes and dtc_reader_typed_render returns
 * DTC_WARN (DTC_E_LIMIT, "print() message cut at N bytes (maxmsgsize)").
 */
int dtc_reader_typed_render(const dtc_reader *r, const dtc_value *v,
    dtc_buf *out, dtc_error *err);
int dtc_reader_typed_walk(const dtc_reader *r, const dtc_value *v,
    int (*fn)(const dtc_tnode *n, void *arg), void *arg, dtc_error *err);

/* ------------------------------------------------------------------ */
/* Aggregations as printed                                             */
/* ------------------------------------------------------------------ */

/* One aggregation variable in a printing. */
typedef struct dtc_aggvar {
	int64_t varid;
	const char *name;
	uint16_t func;       /* DTC_AGG_* */
	uint64_t arg;        /* encoded lquantize/llquantize parameters */
	uint32_t nkeys;
	const dtc_recdesc *keys; /* key recdescs (the aggdesc's recs 1..nrecs-2) */
} dtc_aggvar;

/* One value of one row: the merged aggregation data. */
typedef struct dtc_aggval {
	uint16_t func;
	uint32_t size;       /* bytes at data */
	const uint8_t *data; /* 64-bit words in the capture's byte order;
	                      * lquantize/llquantize: word 0 = the arg */
	uint64_t normal;     /* normalize() factor, 1 by default */
	int swapped;         /* 1: data is in the other byte order than this host */
} dtc_aggval;
/* Word i of the value, in host order (0 past the end). */
uint64_t dtc_aggval_word(const dtc_aggval *v, uint32_t i);

typedef struct dtc_aggrow {
	const dtc_aggvar *var;  /* for a single-variable printing: the variable */
	const dtc_value *keys;  /* nkeys decoded keys */
	const dtc_aggval *vals; /* one per variable of the printing, printa order */
} dtc_aggrow;

struct dtc_aggprint {
	uint32_t nvars;
	const dtc_aggvar *vars;   /* in printa argument order */
	const dtc_format *fmt;    /* NULL: default layout */
	size_t nrows;
	const dtc_aggrow *rows;   /* already sorted as libdtrace sorts */
	int at_exit;              /* 1: the end-of-run printing */
};

/* Scalar results as libdtrace prints them (count/sum/min/max/avg/stddev). */
int64_t dtc_aggval_scalar(const dtc_aggval *v);   /* ÷ normal, avg signed */
uint64_t dtc_aggval_stddev(const dtc_aggval *v);  /* ÷ normal */
/* avg() through printf %@: unsigned division, as dt_printf does */
uint64_t dtc_aggval_avg_unsigned(const dtc_aggval *v);

/* Histogram buckets (quantize/lquantize/llquantize). */
typedef struct dtc_bucket {
	int64_t min, max;    /* inclusive bounds */
	int has_min, has_max;/* 0: open end (underflow/overflow) */
	int64_t count;       /* raw count (not normalized) */
} dtc_bucket;
/* Number of buckets of a histogram value, or 0 if v is not a histogram. */
uint32_t dtc_aggval_nbuckets(const dtc_aggval *v);
int dtc_aggval_bucket(const dtc_aggval *v, uint32_t i, dtc_bucket *b);
/* The histogram block exactly as printa prints it (leading "\n" included). */
int dtc_reader_hist_render(const dtc_reader *r, const dtc_aggval *v,
    dtc_buf *out);

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

enum dtc_evtype {
	DTC_EV_BEGIN = 1,     /* a capture starts: header fields */
	DTC_EV_PROBE = 2,     /* a record set (one EPID firing) starts */
	DTC_EV_RECORD = 3,    /* one record (or printf/printa group) of it */
	DTC_EV_PROBE_END = 4, /* the record set is complete */
	DTC_EV_AGG = 5,       /* aggregation printing at the end of the run */
	DTC_EV_DROP = 6,      /* drops: principal, aggregation, status counters */
	DTC_EV_ERROR = 7,     /* an ERROR-probe record (a fault in D) */
	DTC_EV_NOTICE = 8,    /* decoder notice (system()/freopen() request, ...) */
	DTC_EV_END = 9        /* a capture ends */
};

enum dtc_dropkind {
	DTC_DROP_PRINCIPAL = 0, DTC_DROP_AGGREGATION, DTC_DROP_DYNAMIC,
	DTC_DROP_DYNRINSE, DTC_DROP_DYNDIRTY, DTC_DROP_SPEC, DTC_DROP_SPECBUSY,
	DTC_DROP_SPECUNAVAIL, DTC_DROP_STKSTROVERFLOW, DTC_DROP_DBLERROR
};

enum dtc_flow { DTC_FLOW_NONE = 0, DTC_FLOW_ENTRY = 1, DTC_FLOW_RETURN = 2 };

enum dtc_noticekind {
	DTC_NOTICE_SYSTEM = 1,   /* system(): command NOT executed */
	DTC_NOTICE_FREOPEN = 2,  /* freopen(): file NOT opened */
	DTC_NOTICE_FTRUNCATE = 3,
	DTC_NOTICE_WARNING = 4,  /* a decode problem; see err of dtc_reader_next */
	DTC_NOTICE_LIBERR = 5,   /* library-level fault text (setopt) */
	DTC_NOTICE_INTERRUPT = 6 /* the run was interrupted (SIGINT, SIGTERM):
	                          * dtrace(1) printed a newline here */
};

typedef struct dtc_header {
	int version_major, version_minor;
	int big_endian;          /* capture byte order */
	int ilp32;               /* data model */
	const char *os, *release, *host, *producer;
	uint32_t ncpu;
	uint32_t dt_act_base;
	int os_illumos;          /* 1 when os names illumos/Solaris, else FreeBSD rules */
	/* "legacy" (illumos/FreeBSD buffers) or "dtrace-v2" (DTrace for
	 * Linux, dtrace-utils): which printer's rules the text follows */
	const char *flavor;
	int v2;
} dtc_header;

typedef struct dtc_event {
	int type;                 /* enum dtc_evtype */
	const dtc_reader *reader; /* for symbolization and rendering helpers */
	const char *source;       /* file the event comes from */
	uint32_t pass;            /* consume pass */
	int cpu;                  /* -1 when not per CPU */
	/* BEGIN */
	const dtc_header *header;
	/* PROBE, RECORD, PROBE_END */
	const dtc_eprobedesc *ep;
	const dtc_probedesc *probe;
	uint64_t timestamp;       /* the record's own hrtime */
	int flow;                 /* enum dtc_flow */
	int indent;               /* flowindent indentation */
	uint32_t recindex;        /* RECORD: index of the first recdesc */
	const dtc_value *value;   /* RECORD */
	int quiet, flowindent;    /* option values in force for this record set */
	int rawbytes;             /* RECORD: the rawbytes option is set now */
	/* AGG */
	const dtc_aggprint *agg;
	/* DROP */
	int dropkind;
	uint64_t count;
	/* ERROR */
	uint32_t fault_epid;
	const dtc_eprobedesc *fault_ep;
	const dtc_probedesc *fault_probe;
	uint64_t action;          /* 0 = predicate */
	int64_t difoffset;        /* -1 = none */
	uint64_t fault;           /* DTRACEFLT_* */
	uint64_t fault_addr;
	/* NOTICE */
	int notice;
	/* ERROR, DROP, NOTICE: the text dtrace(1) prints after "dtrace: " */
	const char *message;
	/* END */
	int exit_status;          /* exit() value, or -1 when none was recorded */
	int complete;             /* 1: the capture has its end item */
	uint64_t nrecords, ndrops, nerrors;
} dtc_event;

/* ------------------------------------------------------------------ */
/* The reader                                                          */
/* ------------------------------------------------------------------ */

/* flags for dtc_open_* */
#define DTC_OPEN_TEMPORAL  0x1  /* merge records across CPUs by timestamp */
#define DTC_OPEN_NOAGGEXIT 0x2  /* do not print aggregations at the end */

dtc_reader *dtc_reader_open_file(const char *path, unsigned flags,
    dtc_error *err);
dtc_reader *dtc_reader_open_fd(int fd, const char *name, unsigned flags,
    dtc_error *err);
/* buf must stay valid until dtc_reader_close(); it is used in place. */
dtc_reader *dtc_reader_open_memory(const void *buf, size_t len,
    const char *name, unsigned flags, dtc_error *err);
void dtc_reader_close(dtc_reader *r);

/*
 * Override an option recorded in the capture (names as dtrace -x): quiet,
 * flowindent, temporal, aggsortkey, aggsortrev, aggsortpos,
 * aggsortkeypos, stackindent, rawbytes, aggpack, agghist, aggzoom, droptags,
 * encoding ...  value NULL means "set" (as -x name).  Call before
 * dtc_reader_next.
 * One option is this library's own, not dtrace's: maxmsgsize, the cap on
 * one rendered message (DTC_MAXMSGSIZE_DEFAULT; dtrace sizes such as
 * "16m"; 0: no cap).  Only a caller sets it: a capture that names it
 * (options item, setopt()) gets dtrace's "Invalid option name".
 */
int dtc_reader_set_option(dtc_reader *r, const char *name, const char *value,
    dtc_error *err);
/* Current value of an integer option; DTC_OPT_UNSET (-2) when not set.
 * A flag that is on reads 0 here, as in libdtrace: ask
 * dtc_reader_option_isset. */
#define DTC_OPT_UNSET (-2)
int64_t dtc_reader_get_option(const dtc_reader *r, const char *name);
/* 1 when the option is set now (quiet, flowindent, ... or a value given),
 * 0 when it is not, -1 when name is not an option. */
int dtc_reader_option_isset(const dtc_reader *r, const char *name);
/* Current value of a string option, or NULL. */
const char *dtc_reader_get_option_string(const dtc_reader *r, const char *name);

/* Pull the next event. Returns DTC_OK, DTC_WARN (err says what was
 * skipped; *ev may be NULL), DTC_EOF or DTC_FATAL. */
int dtc_reader_next(dtc_reader *r, const dtc_event **ev, dtc_error *err);

/* Push: callbacks. A non-zero return from a callback stops the loop and is
 * returned. warn, when set, gets every DTC_WARN error and decides whether
 * to go on (return 0); it gets a DTC_FATAL error too, after which
 * dtc_reader_consume returns DTC_FATAL whatever warn returned.  A NULL
 * callback skips its events.
 *
 * Callbacks to come are added at the end of dtc_handler.
 * dtc_reader_consume is a macro that passes the size of the dtc_handler
 * the caller was compiled with (zlib's inflateInit does the same with
 * z_stream), so a program built against this header keeps working with
 * a later library: the callbacks it does not know of are NULL.  The
 * function dtc_reader_consume (called through the macro's parentheses,
 * or by programs built before the macro: as dtc_reader_consume) takes the
 * first layout: the ten callbacks below. */
typedef struct dtc_handler {
	int (*begin)(const dtc_event *ev, void *arg);
	int (*probe)(const dtc_event *ev, void *arg);
	int (*record)(const dtc_event *ev, void *arg);
	int (*probe_end)(const dtc_event *ev, void *arg);
	int (*agg)(const dtc_event *ev, void *arg);
	int (*drop)(const dtc_event *ev, void *arg);
	int (*error)(const dtc_event *ev, void *arg);
	int (*notice)(const dtc_event *ev, void *arg);
	int (*end)(const dtc_event *ev, void *arg);
	int (*warn)(const dtc_error *err, void *arg);
} dtc_handler;
/* When a callback stops it, err says where (code DTC_E_NONE: the record
 * of the event, or the last item read) in place of the first warning. */
int dtc_reader_consume_sized(dtc_reader *r, const dtc_handler *h, size_t hsize,
    void *arg, dtc_error *err);
int (dtc_reader_consume)(dtc_reader *r, const dtc_handler *h, void *arg,
    dtc_error *err);
#define dtc_reader_consume(r, h, arg, err) \
	dtc_reader_consume_sized((r), (h), sizeof(*(h)), (arg), (err))

const dtc_header *dtc_reader_header(const dtc_reader *r);

/*
 * Record selection (dtconsume --probe, --cpu, --since, --until, --epid):
 * what is "probe" (a provider:module:function:name glob, dtrace's rules:
 * fewer fields match from the right; repeatable: any matches), "cpu" or
 * "epid" (a list: "0,2-3"; repeatable; in a dtrace-v2 capture the EPID is
 * the statement id), "since" or "until" (inclusive: ns of the record
 * timestamps, "+1.5s" after the first record, or "2026-11-25T16:00:00Z"
 * through the clock item; libdtconsume(3)).  A firing must meet every
 * criterion given.  Firings (ERROR ones too) outside it are not
 * delivered, but their setopt(), clear(), trunc(), normalize() and exit()
 * still apply; aggregations are not filtered.  The END event's count is
 * the number of firings left out.  Before the first event; DTC_FAILED
 * with err for a bad value; a capture that cannot honour a time (no
 * clock item, a dtrace-v2 capture) makes the reader DTC_FATAL with
 * DTC_E_BADOPTION and item -1.  dtc_reader_set_option "cpu" selects that CPU.
 */
int dtc_reader_select(dtc_reader *r, const char *what, const char *value,
    dtc_error *err);
/* Bytes of the capture read so far (for a progress display). */
uint64_t dtc_reader_position(const dtc_reader *r);
/* 1 when an option (a dtrace -x name) changes what this library decodes
 * or prints, 0 when it is accepted but means nothing offline (bufsize,
 * strsize, ...), -1 when it is not an option. */
int dtc_option_effective(const char *name);

/*
 * Aggregations of several captures merged (dtconsume --merge-aggs): add
 * each reader after its last event (open them with DTC_OPEN_NOAGGEXIT),
 * then pull the merged end-of-run printing as DTC_EV_AGG events until
 * DTC_EOF.  Aggregations merge when name, function, parameters and key
 * layout are equal.  The first reader added must stay open until
 * dtc_aggmerge_free() (its symbol tables are used); others may be closed.
 */
typedef struct dtc_aggmerge dtc_aggmerge;
dtc_aggmerge *dtc_aggmerge_new(dtc_error *err);
int dtc_aggmerge_add(dtc_aggmerge *m, const dtc_reader *r, dtc_error *err);
int dtc_aggmerge_next(dtc_aggmerge *m, const dtc_event **ev);
void dtc_aggmerge_free(dtc_aggmerge *m);
/* Wall-clock ns since the epoch for an hrtime, from the capture's clock
 * item; 0 (and *wall untouched) when the capture has none. */
int dtc_reader_walltime(const dtc_reader *r, uint64_t hrtime, uint64_t *wall);
const char *dtc_reader_source(const dtc_reader *r);

/* ------------------------------------------------------------------ */
/* Batches: the records of a capture as columns (libdtconsume(3))     */
/* ------------------------------------------------------------------ */

/*
 * A batch reader walks the principal buffers as dtc_reader_next does, in the
 * same order, but appends each record set to the table of its enabled
 * probe (a DTrace v2 probe and statement) instead of making events: a
 * row (index, timestamp, CPU, pass) and, for statements of plain data
 * (trace() values, printf() arguments, exit(); library actions such as
 * clear() or setopt() show no value and are passed over), one value per
 * column.  Statements with other records (printa, stacks, print() ...)
 * and the ERROR enabling give rows without columns: take those record
 * sets from dtc_reader_next, by index.  Aggregations, drops and notices are not
 * in batches.
 */
typedef struct dtc_batch dtc_batch;

enum dtc_colkind {
	DTC_COL_INT = 1,     /* i: one int64 a row */
	DTC_COL_BYTES = 2    /* off/bytes/isstr: a string or raw bytes a row */
};

/* One record of a statement, as a column of nrows values. */
typedef struct dtc_column {
	int kind;               /* enum dtc_colkind */
	uint32_t recindex;      /* the record: ep->recs[recindex] */
	const dtc_recdesc *rd;
	uint16_t action;        /* DTC_ACT_DIFEXPR (trace), DTC_ACT_PRINTF (a
	                         * printf argument) or DTC_ACT_EXIT */
	uint32_t size;          /* bytes of the record */
	const dtc_format *fmt;  /* printf argument: the printf's format */
	uint32_t argindex;      /* printf argument: which (0 is the first) */
	/* INT: the value as dtrace(1) and dt2json show it: records of 1 and
	 * 2 bytes unsigned, 4 and 8 bytes signed (an 8-byte value read as
	 * uint64_t is the same bits); exit(): the status */
	const int64_t *i;
	/* BYTES: row k is bytes[off[k] .. off[k+1]); isstr[k] 1 when it is
	 * a string as dtrace prints one (the text, without its NUL padding),
	 * 0 for raw record bytes (all of them) */
	const uint64_t *off;
	const uint8_t *isstr;
	const uint8_t *bytes;
	size_t nbytes;
} dtc_column;

/* The rows of one enabled probe in a batch. */
typedef struct dtc_table {
	const dtc_eprobedesc *ep;   /* the enabled probe; its epid is the
	                             * statement id in DTrace v2 */
	const dtc_probedesc *probe; /* NULL when the probe is unknown */
	int data;                   /* 1: data columns; 0: rows only */
	size_t nrows;
	/* index: the record set's place among all record sets of the
	 * capture (0 first), counted as dtc_reader_next counts its PROBE events and
	 * the ERROR events of ERROR-enabling records: sorting the rows of
	 * every table by index gives dtc_reader_next's order */
	const uint64_t *index;
	const uint64_t *timestamp;  /* 0 in DTrace v2 (records carry none) */
	const int32_t *cpu;
	const uint32_t *pass;
	uint32_t ncols;
	const dtc_column *cols;     /* in record order */
} dtc_table;

dtc_batch *dtc_batch_open_file(const char *path, unsigned flags,
    dtc_error *err);
dtc_batch *dtc_batch_open_fd(int fd, const char *name, unsigned flags,
    dtc_error *err);
dtc_batch *dtc_batch_open_memory(const void *buf, size_t len,
    const char *name, unsigned flags, dtc_error *err);
/*
 * The next batch: at most max_rows record sets (0: no limit), stopping
 * early at a warning.  DTC_OK: rows are ready; DTC_WARN: err says what
 * was skipped, the rows decoded before it are ready, call again;
 * DTC_EOF: no more rows; DTC_FATAL: the reader is dead (rows before it
 * are ready).  Tables, columns and their arrays stay valid until the
 * next call.
 */
int dtc_batch_next(dtc_batch *b, size_t max_rows, dtc_error *err);
/*
 * dtc_reader_select's record selection for a batch reader: the record sets left
 * out get no row (and no index: indexes count the record sets delivered,
 * as the events of a reader with the same selection do).  Before the
 * first dtc_batch_next; DTC_OK or DTC_FAILED with err.  A capture that
 * cannot honour a time makes dtc_batch_next DTC_FATAL with
 * DTC_E_BADOPTION and item -1.
 */
int dtc_batch_select(dtc_batch *b, const char *what, const char *value,
    dtc_error *err);
size_t dtc_batch_nrows(const dtc_batch *b);      /* rows of this batch */
size_t dtc_batch_ntables(const dtc_batch *b);    /* tables with rows */
/* Table i of this batch (in the order of their first rows), or NULL. */
const dtc_table *dtc_batch_table(const dtc_batch *b, size_t i);
/* The capture's header once the first batch was asked for, else NULL. */
const dtc_header *dtc_batch_header(const dtc_batch *b);
const char *dtc_batch_source(const dtc_batch *b);
void dtc_batch_close(dtc_batch *b);

/* ------------------------------------------------------------------ */
/* Formatting helpers shared by every output format                    */
/* ------------------------------------------------------------------ */

void dtc_buf_init(dtc_buf *b);
void dtc_buf_free(dtc_buf *b);
void dtc_buf_reset(dtc_buf *b);
int dtc_buf_printf(dtc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int dtc_buf_append(dtc_buf *b, const void *p, size_t n);

/* Kernel symbolization from the capture's ksyms item. */
typedef struct dtc_symbol {
	const char *module;  /* NULL when unknown */
	const char *name;    /* NULL when unknown */
	uint64_t start, size;
} dtc_symbol;
/* 1 when addr falls in a known symbol (or module: name NULL), 0 otherwise */
int dtc_reader_ksym_lookup(const dtc_reader *r, uint64_t addr, dtc_symbol *sym);
int dtc_reader_usym_lookup(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_symbol *sym);
/* 1 when the capture describes process pid (a proc item): offline, the
 * equivalent of libdtrace having grabbed the process. */
int dtc_reader_proc_known(const dtc_reader *r, uint64_t pid);

/* Text as dtrace(1) would print it for an address (no padding):
 * kernel  "mod`sym+0x1f" / "mod`sym" / "mod`0xaddr" / "0xaddr".
 * The names come from the capture: at most maxmsgsize + 1 bytes of one
 * text are appended (dtc_reader_text_cut then cuts it at the cap and
 * says so). */
void dtc_reader_addr_text(const dtc_reader *r, uint64_t addr, int exact_only,
    dtc_buf *out);   /* exact_only: sym() style, no offset */
void dtc_reader_uaddr_text(const dtc_reader *r, uint64_t pid, uint64_t addr,
    int exact_only, dtc_buf *out);
void dtc_reader_mod_text(const dtc_reader *r, uint64_t addr, dtc_buf *out);
void dtc_reader_umod_text(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_buf *out);
/* One stack frame as dt_print_stack prints it (pc > start adds +0x). */
void dtc_reader_frame_text(const dtc_reader *r, uint64_t pc, dtc_buf *out);

/* Render a printf-family value (PRINTF kind) exactly as libdtrace would. */
int dtc_reader_printf_render(const dtc_reader *r, const dtc_value *v,
    dtc_buf *out, dtc_error *err);
/* Render one printa row through its format. */
int dtc_reader_printa_render(const dtc_reader *r, const dtc_aggprint *ap,
    const dtc_aggrow *row, dtc_buf *out, dtc_error *err);
/*
 * The cap below on a text appended to out from start (a symbol's, or a
 * message an emitter builds): when it has more than maxmsgsize bytes it
 * is cut to them, and DTC_WARN is returned with err (DTC_E_LIMIT, "WHAT
 * message cut at N bytes (maxmsgsize)", located at the record being
 * decoded); else DTC_OK.
 */
int dtc_reader_text_cut(const dtc_reader *r, dtc_buf *out, size_t start,
    const char *what, dtc_error *err);
/*
 * The cap on one message these render (the "maxmsgsize" option, which is
 * this library's, not dtrace's: set it with dtc_reader_set_option, 0 for no
 * cap).  A width or precision of the capture's own (printf("%1000000d"))
 * would otherwise make a few bytes of capture into gigabytes of output
 * and memory.  A message over the cap is cut there: out gets exactly its
 * first maxmsgsize bytes, and the call returns DTC_WARN with err
 * (DTC_E_LIMIT) saying so; rendering stops at the cap, so nothing past it
 * is ever built.
 */
#define DTC_MAXMSGSIZE_DEFAULT ((size_t)4 << 20)

/* ------------------------------------------------------------------ */
/* Writing captures (capture tools, dtsnap synth)                      */
/* ------------------------------------------------------------------ */

typedef struct dtc_writer dtc_writer;

typedef struct dtc_series_writer dtc_series_writer;
/* The writer's declarations: dtconsume/writer.h (included below). */

/* Reading a series: paths are its parts, in any order; they are read
 * in part order as one capture (a part missing is reported where the
 * next one starts, and reading goes on).  dtc_part_probe says whether
 * path is a part: 1 and *pi filled, 0 when not, -1 with err. */
typedef struct dtc_part_info {
	char series[64];
	uint32_t part;
	uint32_t replayed;       /* items after the clock item, repeated */
} dtc_part_info;
int dtc_part_probe(const char *path, dtc_part_info *pi, dtc_error *err);
dtc_reader *dtc_reader_open_series(const char *const *paths, size_t n,
    unsigned flags, dtc_error *err);

/* ------------------------------------------------------------------ */
/* Items: a capture read and written item by item (dtc_container(3))   */
/* ------------------------------------------------------------------ */

/*
 * The container (dtsnap(5)) as its items, for tools that look at a
 * capture rather than decode it (dtsnap dump, convert, split).  An item
 * is a CBOR map; its values are nodes in preorder, each with its type,
 * its value and the byte offset of its head in the input.  What a
 * dtc_item points to is the container's and stays valid until the next
 * dtc_container_next (until dtc_container_close for memory input, whose
 * item bytes are buf + offset).
 */
typedef struct dtc_container dtc_container;

enum dtc_node_type {
	DTC_NODE_UINT = 1,   /* u */
	DTC_NODE_NEGINT,     /* the value is -1 - u */
	DTC_NODE_BYTES,      /* ptr, len */
	DTC_NODE_TEXT,       /* ptr, len (not NUL-terminated) */
	DTC_NODE_ARRAY,      /* count elements follow */
	DTC_NODE_MAP,        /* count pairs (2 * count nodes) follow */
	DTC_NODE_BOOL,       /* u is 0 or 1 */
	DTC_NODE_NULL,
	DTC_NODE_UNDEF,
	DTC_NODE_FLOAT,      /* f */
	DTC_NODE_TAG,        /* u is the tag; one value follows */
	DTC_NODE_SIMPLE,     /* u is an unassigned simple value */
	DTC_NODE_SKIPPED     /* nested too deep: read past, len bytes */
};

typedef struct dtc_node {
	uint8_t type;        /* enum dtc_node_type */
	uint32_t count;      /* ARRAY: elements; MAP: pairs */
	uint32_t span;       /* nodes in this subtree, itself included */
	uint64_t u;
	double f;
	const uint8_t *ptr;
	size_t len;
	size_t offset;       /* byte offset of the node's head in the input */
} dtc_node;

typedef struct dtc_item {
	long long index;     /* 0: the header */
	size_t offset;       /* byte offset of the item in the input */
	size_t size;         /* its bytes */
	const dtc_node *nodes; /* nodes[0]: the item's map */
	size_t nnodes;
	const char *kind;    /* its "t", NUL-terminated */
} dtc_item;

dtc_container *dtc_container_open_file(const char *path, dtc_error *err);
dtc_container *dtc_container_open_fd(int fd, const char *name,
    dtc_error *err);
dtc_container *dtc_container_open_memory(const void *buf, size_t len,
    const char *name, dtc_error *err);
int dtc_container_next(dtc_container *c, dtc_item *item, dtc_error *err);
void dtc_container_close(dtc_container *c);

/* Nodes: a map's value by key, an array's i-th element (NULL when not
 * there), a map's or array's first child and a node's next sibling. */
const dtc_node *dtc_node_get(const dtc_node *map, const char *key);
const dtc_node *dtc_node_at(const dtc_node *array, uint32_t i);
const dtc_node *dtc_node_child(const dtc_node *n);
const dtc_node *dtc_node_next(const dtc_node *n);

/* An item's value by key, typed: DTC_OK; DTC_EOF when missing and not
 * required (*out untouched); DTC_FAILED with err naming the item, the
 * key and the byte offset. */
int dtc_item_get_uint(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, uint64_t *out,
    dtc_error *err);
int dtc_item_get_int(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, int64_t *out,
    dtc_error *err);
int dtc_item_get_text(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, const char **s,
    size_t *len, dtc_error *err);
int dtc_item_get_bytes(const dtc_container *c, const dtc_item *it,
    const dtc_node *map, const char *key, int required, const uint8_t **p,
    size_t *len, dtc_error *err);

/* A capture's metadata tables, filled item by item (dtc_tables(3)):
 * the probes, enabled probes, aggregations and formats described so far,
 * as the reader decodes with them.  header: the capture's header item. */
typedef struct dtc_tables dtc_tables;
enum dtc_tables_kind {
	DTC_TABLES_PROBE, DTC_TABLES_EPROBE, DTC_TABLES_AGG, DTC_TABLES_FORMAT
};
dtc_tables *dtc_tables_new(const dtc_item *header, dtc_error *err);
int dtc_tables_add_item(dtc_tables *t, const dtc_container *c,
    const dtc_item *it, dtc_error *err);
const dtc_probedesc *dtc_tables_probe(const dtc_tables *t, uint32_t id);
const dtc_eprobedesc *dtc_tables_eprobe(const dtc_tables *t, uint32_t epid);
const dtc_aggdesc *dtc_tables_agg(const dtc_tables *t, uint32_t aggid);
const dtc_format *dtc_tables_format(const dtc_tables *t, uint32_t id);
int dtc_tables_ids(const dtc_tables *t, int kind, uint32_t **ids, size_t *n,
    dtc_error *err);
int dtc_tables_walltime(const dtc_tables *t, uint64_t hrtime,
    uint64_t *wall);
int dtc_tables_ctf_item(const dtc_tables *t, size_t i, const char **module,
    size_t *bytes, const uint64_t **ids, size_t *npairs);
const dtc_ctype *dtc_tables_ctf_type(dtc_tables *t, const char *module,
    uint64_t id, const char **why);
int dtc_tables_check_aggsnap(const dtc_tables *t, const dtc_container *c,
    const dtc_item *it, dtc_error *err);
void dtc_tables_free(dtc_tables *t);

/* A principal buffer (buf item) or DTrace v2 recs item, record by
 * record, as the reader walks it (dtc_walker(3)). */
typedef struct dtc_walker dtc_walker;
typedef struct dtc_walkrec {
	size_t offset;       /* in the buffer as the consumer sees it */
	size_t raw_offset;   /* in the captured bytes */
	uint32_t epid;
	uint64_t timestamp;
	const dtc_eprobedesc *ep;
	const uint8_t *data; /* the record, ep->size bytes */
} dtc_walkrec;
dtc_walker *dtc_walker_new(dtc_tables *t, const char *source,
    dtc_error *err);
int dtc_walker_start(dtc_walker *w, long long item, int cpu,
    const uint8_t *data, size_t size, size_t offset, uint64_t oldest,
    dtc_error *err);
int dtc_walker_next(dtc_walker *w, dtc_walkrec *rec, dtc_error *err);
size_t dtc_walker_size(const dtc_walker *w);
void dtc_walker_free(dtc_walker *w);

/* A zstd-compressed capture in memory, decompressed (dtsnap(5),
 * COMPRESSION): a damaged frame is reported and left out. */
typedef struct dtc_zstd dtc_zstd;
int dtc_zstd_is_frame(const void *p, size_t n);
dtc_zstd *dtc_zstd_open_memory(const void *buf, size_t len, dtc_error *err);
int dtc_zstd_read(dtc_zstd *z, void *out, size_t want, size_t *got,
    dtc_error *err);
void dtc_zstd_close(dtc_zstd *z);


/* ------------------------------------------------------------------ */
/* The capture: rendering and symbolization without a reader           */
/* ------------------------------------------------------------------ */

/*
 * What the rendering and symbol helpers need of a capture (its header,
 * tables, options, byte order, aggregations): a reader's or a batch
 * reader's, valid as long as it is.  The helpers above that take a
 * dtc_reader are these on dtc_reader_capture(r), kept for 0.x callers;
 * a batch reader's rows are rendered and symbolized with these (see
 * dtc_capture(3)).
 */
typedef struct dtc_capture dtc_capture;
const dtc_capture *dtc_reader_capture(const dtc_reader *r);
const dtc_capture *dtc_batch_capture(const dtc_batch *b);
int dtc_capture_record_string(const dtc_capture *c, const dtc_value *v,
    size_t *len);
int dtc_capture_typed_render(const dtc_capture *c, const dtc_value *v,
    dtc_buf *out, dtc_error *err);
int dtc_capture_typed_walk(const dtc_capture *c, const dtc_value *v,
    int (*fn)(const dtc_tnode *n, void *arg), void *arg, dtc_error *err);
int dtc_capture_hist_render(const dtc_capture *c, const dtc_aggval *v,
    dtc_buf *out);
int dtc_capture_ksym_lookup(const dtc_capture *c, uint64_t addr,
    dtc_symbol *sym);
int dtc_capture_usym_lookup(const dtc_capture *c, uint64_t pid,
    uint64_t addr, dtc_symbol *sym);
int dtc_capture_proc_known(const dtc_capture *c, uint64_t pid);
void dtc_capture_addr_text(const dtc_capture *c, uint64_t addr,
    int exact_only, dtc_buf *out);
void dtc_capture_uaddr_text(const dtc_capture *c, uint64_t pid,
    uint64_t addr, int exact_only, dtc_buf *out);
void dtc_capture_mod_text(const dtc_capture *c, uint64_t addr,
    dtc_buf *out);
void dtc_capture_umod_text(const dtc_capture *c, uint64_t pid,
    uint64_t addr, dtc_buf *out);
void dtc_capture_frame_text(const dtc_capture *c, uint64_t pc,
    dtc_buf *out);
int dtc_capture_printf_render(const dtc_capture *c, const dtc_value *v,
    dtc_buf *out, dtc_error *err);
int dtc_capture_printa_render(const dtc_capture *c, const dtc_aggprint *ap,
    const dtc_aggrow *row, dtc_buf *out, dtc_error *err);
int dtc_capture_text_cut(const dtc_capture *c, dtc_buf *out, size_t start,
    const char *what, dtc_error *err);

/* ------------------------------------------------------------------ */
/* The program behind a capture (program.c; dtsnap(5), program)        */
/* ------------------------------------------------------------------ */

/* One -s/-n/-P/-m/-f/-i argument: opt its letter, arg the argument (a
 * file name for -s), text the D source compiled (len bytes, NUL-ended). */
typedef struct dtc_prog_source {
	char opt;
	const char *arg;
	const char *text;
	size_t len;
} dtc_prog_source;

/* One other command-line option in order; arg NULL for a flag. */
typedef struct dtc_prog_option {
	char opt;
	const char *arg;
} dtc_prog_option;

/* dtrace_difv_t of a clause's variable table */
typedef struct dtc_prog_var {
	uint32_t name, id, offset, from, to;
	uint8_t kind, scope;
	uint16_t flags;
	uint8_t tkind, tckind, tflags;
	uint32_t tsize;
} dtc_prog_var;

/* dof_relodesc_t: name is a string table offset */
typedef struct dtc_prog_reloc {
	uint32_t name, type;
	uint64_t offset, data;
} dtc_prog_reloc;

/* a translator reference: the translator's id and argument, the member
 * and its type as libdtrace names them */
typedef struct dtc_prog_xlate {
	uint32_t id;
	int32_t arg;
	const char *member, *type;
} dtc_prog_xlate;

/* the name of a BPF helper a clause calls, as the recording host knew it */
typedef struct dtc_prog_helper {
	uint32_t id;
	const char *name;
} dtc_prog_helper;

/* One clause as libdtrace compiled it: insns holds ninsns BPF
 * instructions of 8 bytes (dtsnap(5), program); probe[] is set when the
 * clause starts a new probe description (has_probe). */
typedef struct dtc_prog_clause {
	uint32_t source;
	const char *name;
	int has_probe;
	const char *probe[4];
	const uint8_t *insns;
	size_t ninsns;
	const char *strtab;
	size_t strlen;
	const dtc_prog_var *vars;
	size_t nvars;
	const dtc_prog_reloc *brel, *krel, *urel;
	size_t nbrel, nkrel, nurel;
	const dtc_prog_xlate *xlate;
	size_t nxlate;
	const dtc_prog_helper *helpers;
	size_t nhelpers;
} dtc_prog_clause;

/* libdtrace's code generator constants the disassembler's comments
 * depend on (dtsnap(5), program: abi) */
typedef struct dtc_prog_abi {
	int64_t stk_dctx, stk_spill_base, stk_slot, stk_nregs;
	int64_t dctx_strtab, dctx_gvars, dctx_lvars;
	uint64_t ident_undef;
} dtc_prog_abi;

typedef struct dtc_program {
	const dtc_prog_source *sources;
	size_t nsources;
	const dtc_prog_option *options;
	size_t noptions;
	const char *const *macros;       /* $0, $1, ... */
	size_t nmacros;
	const dtc_prog_clause *clauses;
	size_t nclauses;
	int has_abi;
	dtc_prog_abi abi;
	unsigned listings;               /* -x disasm= levels held (1) */
} dtc_program;

/*
 * The first program item of a capture: DTC_OK with *out (free it with
 * dtc_program_free), DTC_EOF when the capture has none, else an error
 * naming the item and byte offset.
 */
int dtc_program_read_file(const char *path, dtc_program **out,
    dtc_error *err);
int dtc_program_read_fd(int fd, const char *name, dtc_program **out,
    dtc_error *err);
int dtc_program_read_memory(const void *buf, size_t len, const char *name,
    dtc_program **out, dtc_error *err);
void dtc_program_free(dtc_program *p);
/* The clause listing as `dtrace -S` prints it (dt_dis.c's layout);
 * DTC_FAILED with err when the program has no abi or a clause is bad. */
int dtc_program_disasm(const dtc_program *p, dtc_buf *out, dtc_error *err);

/* ------------------------------------------------------------------ */
/* DOF, the DTrace Object Format (dof.c, dif.c; dtc_dof_open(3))       */
/* ------------------------------------------------------------------ */

/*
 * A DOF object parsed from bytes (the contents of an ELF object's
 * .SUNW_dof section, or a raw DOF file): header, sections, providers and
 * their probes, ECB descriptions with their actions, and DIF objects.
 * Damage is not fatal: every problem found is kept as a dtc_error (text
 * naming the section, offset the byte offset in the DOF) and the rest is
 * still parsed.  Everything returned is owned by the dtc_dof.
 */
typedef struct dtc_dof dtc_dof;

typedef struct dtc_dof_header {
	uint8_t ident[16];   /* magic, model, encoding, version, difvers, ... */
	uint32_t flags, hdrsize, secsize, secnum;
	uint64_t secoff, loadsz, filesz;
} dtc_dof_header;

typedef struct dtc_dof_section {
	uint32_t type, align, flags, entsize;
	uint64_t offset, size;
	int ok;              /* 1: data inside the DOF and usable */
} dtc_dof_section;

typedef struct dtc_dof_probe {
	uint32_t provsec;    /* provider section */
	uint32_t probesec;   /* probes section, and this probe's index there */
	uint32_t index;
	const char *provider, *function, *name;
	uint32_t attr[5];    /* provider, module, function, name, args */
	uint64_t addr;
	unsigned nargc, xargc;
	const char **nargv;  /* nargc native argument types */
	const char **xargv;  /* xargc translated argument types */
	const uint8_t *argmap; /* xargc: the native argument of each */
	size_t noffs, nenoffs;
	const uint32_t *offs, *enoffs;
} dtc_dof_probe;

typedef struct dtc_dof_action {
	uint32_t kind, ntuple;
	uint64_t arg, uarg;
	long difo;           /* index for dtc_dof_difo, or -1 */
	const char *str;     /* arg as a string (printf format...), or NULL */
} dtc_dof_action;

typedef struct dtc_dof_ecb {
	uint32_t section;
	const char *provider, *module, *function, *name;
	uint32_t id;
	uint64_t uarg;
	long pred;           /* predicate: index for dtc_dof_difo, or -1 */
	size_t nactions;
	const dtc_dof_action *actions;
} dtc_dof_ecb;

typedef struct dtc_dof_var {
	uint32_t name, id;   /* name: offset in the DIFO's string table */
	uint8_t kind, scope;
	uint16_t flags;
	uint8_t tkind, tckind, tflags;
	uint32_t tsize;
} dtc_dof_var;

typedef struct dtc_dof_reloc {
	uint32_t name, type; /* name: offset in the relocation's strtab */
	uint64_t offset, data;
	const char *str;     /* the name, or NULL */
} dtc_dof_reloc;

typedef struct dtc_dof_difo {
	uint32_t section;    /* its DIFOHDR section */
	uint8_t rkind, rckind, rflags;
	uint32_t rsize;
	const uint32_t *text; size_t len;      /* instructions */
	const char *strtab; size_t strlen;     /* NUL-ended at strlen */
	const uint64_t *inttab; size_t intlen;
	const dtc_dof_var *vars; size_t nvars;
	const dtc_dof_reloc *krel; size_t nkrel;
	const dtc_dof_reloc *urel; size_t nurel;
} dtc_dof_difo;

/* Parse len bytes (copied: data need not outlive the call).  NULL when
 * they are no DOF at all (err says why); otherwise the object, whose
 * problems dtc_dof_nproblems() counts.  source names it in errors. */
dtc_dof *dtc_dof_open(const void *data, size_t len, const char *source,
    dtc_error *err);
void dtc_dof_close(dtc_dof *d);
const dtc_dof_header *dtc_dof_header_get(const dtc_dof *d);
size_t dtc_dof_nsections(const dtc_dof *d);
const dtc_dof_section *dtc_dof_section_get(const dtc_dof *d, size_t i);
size_t dtc_dof_nprobes(const dtc_dof *d);
const dtc_dof_probe *dtc_dof_probe_get(const dtc_dof *d, size_t i);
size_t dtc_dof_necbs(const dtc_dof *d);
const dtc_dof_ecb *dtc_dof_ecb_get(const dtc_dof *d, size_t i);
size_t dtc_dof_ndifos(const dtc_dof *d);
const dtc_dof_difo *dtc_dof_difo_get(const dtc_dof *d, size_t i);
size_t dtc_dof_nproblems(const dtc_dof *d);
const dtc_error *dtc_dof_problem(const dtc_dof *d, size_t i);
/* "strtab", "probes"... for a section type; NULL when unknown */
const char *dtc_dof_secname(uint32_t type);
/* A DIF object as illumos dtrace -S prints it (dt_dis.c), after the
 * "DIFO 0x... returns" line, which the caller writes. */
int dtc_dif_dis(const dtc_dof_difo *difo, dtc_buf *out);
/* "D type (integer) (size 4)": a DIF type as dt_dis.c names it */
int dtc_dif_typestr(uint8_t kind, uint8_t ckind, uint8_t flags,
    uint32_t size, dtc_buf *out);
/* The name of subroutine subr (illumos numbering), "unknown" else. */
const char *dtc_dif_subrname(unsigned subr);

/* ---- dof items of a capture (dofitem.c; dtsnap(5), dof) ---- */

/* One dof item: its number and byte offset in the capture, the offset
 * of the DOF's first byte, its name ("" without one) and the DOF. */
typedef struct dtc_dof_item {
	long long index;
	long long offset;
	long long data_offset;
	const char *source;
	const char *name;
	const void *data;
	size_t len;
} dtc_dof_item;
/* Called with each dof item in file order (warning NULL), or with a
 * problem of the capture met on the way (item NULL); nonzero stops. */
typedef int (*dtc_dof_item_fn)(void *arg, const dtc_dof_item *item,
    const dtc_error *warning);
/* DTC_OK (or DTC_EOF: the capture has no dof item), else an error. */
int dtc_dof_items_file(const char *path, dtc_dof_item_fn fn, void *arg,
    dtc_error *err);
int dtc_dof_items_memory(const void *buf, size_t len, const char *name,
    dtc_dof_item_fn fn, void *arg, dtc_error *err);
/* dtc_dof_open on the item's bytes, err located in the capture; the
 * object's problems are the DOF's: dtc_dof_item_locate places them. */
dtc_dof *dtc_dof_item_open(const dtc_dof_item *item, dtc_error *err);
/* A problem of the item's DOF as the capture's: source, item, and the
 * byte offset in the capture, the DOF's offset kept in the text. */
void dtc_dof_item_locate(const dtc_dof_item *item, const dtc_error *problem,
    dtc_error *out);

/* The writer (dtc_writer_new(3)): its own header, included here so that
 * a 0.x program that includes dtconsume.h alone still builds. */
#include "dtconsume/writer.h"

/* ------------------------------------------------------------------ */
/* The 0.x names (libdtconsume(3), NAMES): every call is                */
/* dtc_<object>_<verb>; a call named otherwise before 0.3 keeps its old */
/* name here, and the library still exports it, so that 0.x programs    */
/* build and 0.x binaries run.  The COMPATIBILITY section of each page  */
/* lists them.                                                          */
/* ------------------------------------------------------------------ */

#define dtc_open_file            dtc_reader_open_file
#define dtc_open_fd              dtc_reader_open_fd
#define dtc_open_memory          dtc_reader_open_memory
#define dtc_open_series          dtc_reader_open_series
#define dtc_close                dtc_reader_close
#define dtc_next                 dtc_reader_next
#define dtc_consume              dtc_reader_consume
#define dtc_consume_sized        dtc_reader_consume_sized
#define dtc_set_option           dtc_reader_set_option
#define dtc_get_option           dtc_reader_get_option
#define dtc_get_option_string    dtc_reader_get_option_string
#define dtc_option_isset         dtc_reader_option_isset
#define dtc_select               dtc_reader_select
#define dtc_record_string        dtc_reader_record_string
#define dtc_typed_render         dtc_reader_typed_render
#define dtc_typed_walk           dtc_reader_typed_walk
#define dtc_hist_render          dtc_reader_hist_render
#define dtc_ksym_lookup          dtc_reader_ksym_lookup
#define dtc_usym_lookup          dtc_reader_usym_lookup
#define dtc_proc_known           dtc_reader_proc_known
#define dtc_addr_text            dtc_reader_addr_text
#define dtc_uaddr_text           dtc_reader_uaddr_text
#define dtc_mod_text             dtc_reader_mod_text
#define dtc_umod_text            dtc_reader_umod_text
#define dtc_frame_text           dtc_reader_frame_text
#define dtc_printf_render        dtc_reader_printf_render
#define dtc_printa_render        dtc_reader_printa_render
#define dtc_text_cut             dtc_reader_text_cut
#define dtc_strerror             dtc_error_string
#define dtc_series_part          dtc_series_begin_part
#define dtc_writer_ksym          dtc_writer_add_ksym
#define dtc_writer_aggsnap_entry dtc_writer_add_aggsnap_entry

#ifdef __cplusplus
}
#endif
#endif /* DTCONSUME_H */
