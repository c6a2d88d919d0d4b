/*
 * printf_private.h - the compiled form of a printf format, which the
 * compiler (printf_compile.c) writes once per format id and the renderer
 * (printf_render.c) reads per record, and the value rules of the
 * aggregating functions (aggval.c) that the renderer's %@ and avg/stddev/
 * histogram records call.  Private to those three files: the rest of the
 * library sees a dtc_format only through decoders.h's calls.
 */
#ifndef DTC_PRINTF_PRIVATE_H
#define DTC_PRINTF_PRIVATE_H

#include <limits.h>

#include "capture.h"

/* Conversion flags, as dt_printf_create records them. */
#define PF_ALT		0x001	/* # */
#define PF_ZPAD		0x002	/* 0 */
#define PF_LEFT		0x004	/* - */
#define PF_SPOS		0x008	/* + */
#define PF_DYNWIDTH	0x010	/* * */
#define PF_DYNPREC	0x020	/* .* */
#define PF_GROUP	0x040	/* ' */
#define PF_SPACE	0x080	/* space */
#define PF_AGG		0x100	/* @ */

/*
 * libdtrace takes widths and precisions as C ints from the format text and
 * from the data; so do we.  What keeps a width of two billion from writing
 * two gigabytes is the message cap (above), which the caller may lift.
 */
#define PF_MAXWIDTH	INT_MAX

/* The printers of libdtrace's conversion table, plus the record-kind
 * overrides dt_printf_format applies. */
enum printer {
	PR_NONE = 0,	/* a text-only piece */
	PR_PCT,		/* %% */
	PR_SINT,	/* pfprint_sint */
	PR_UINT,	/* pfprint_uint */
	PR_DINT,	/* pfprint_dint: unsigned, as the SIGNED flag is never
			 * pickled (errata E1) */
	PR_FP,
	PR_ADDR,	/* %a */
	PR_UADDR,	/* %A */
	PR_STACK,	/* %k */
	PR_TIME,	/* %Y */
	PR_TIME822,	/* %T */
	PR_PORT,	/* FreeBSD %P */
	PR_INET,	/* FreeBSD %I */
	PR_CSTR,	/* %s */
	PR_WSTR,	/* %ls %ws */
	PR_ESTR,	/* %S */
	PR_ECHR,	/* %C */
	/* overrides by record kind */
	PR_MOD, PR_UMOD, PR_AVG, PR_STDDEV, PR_QUANT, PR_LQUANT, PR_LLQUANT
};

/* How an integer or float printer passes its value to libc. */
enum argtype {
	AT_NONE = 0,
	AT_INT,		/* no length modifier, or h: an int */
	AT_LONG,	/* l */
	AT_LLONG,	/* ll */
	AT_PTR,		/* %p given as such: hex of the record's width */
	AT_CHAR,	/* %c */
	AT_WCHAR,	/* %lc %wc */
	AT_DBL,
	AT_LDBL		/* L */
};


/*
 * How the renderer's direct path (printf_render.c, render_direct) writes a
 * piece, decided when the format is compiled: the common conversions whose
 * output is bounded by the format and the record's size alone, so that a
 * message is checked against the cap and the buffer once per piece rather
 * than per byte appended.  FK_NONE: only the general path can print it.
 */
enum fastkind {
	FK_NONE = 0,
	FK_TEXT,	/* the prefix alone */
	FK_PCT,		/* %% */
	FK_STR,		/* %s (and FreeBSD's %I): no dynamic width or precision */
	FK_INT		/* %d %i %u %x %X, l and ll, no flag but - */
};

/* FK_INT: what pr_int and int_plain do with the record's bits */
#define FI_SEXT		0x1	/* the printer sign-extends the record */
#define FI_SIGNED	0x2	/* the conversion prints it signed */
#define FI_INT32	0x4	/* libc takes it as a 32-bit int */
#define FI_HEX		0x8	/* %x: hexadecimal */
#define FI_UPPER	0x10	/* %X: in capitals */

/* One piece of a compiled format: prefix text, then maybe a conversion. */
struct pfpiece {
	uint32_t prefix, preflen;	/* text before the conversion, in str */
	uint32_t flags;			/* PF_* */
	int32_t width, prec;		/* from the text; 0 = none */
	uint8_t print;			/* enum printer; PR_NONE: text only */
	uint8_t argtype;		/* enum argtype */
	uint8_t fast;			/* enum fastkind */
	uint8_t fint;			/* FI_*, for FK_INT */
	char conv[4];			/* libc conversion (numbers) */
	char name[8];			/* the D conversion name */
};

/* NULs after a format's text: the renderer copies a short prefix as one
 * block of this size (printf_render.c, prefix). */
#define PF_STRPAD	8

struct dtc_format {
	char *str;			/* the format, NUL-terminated, then
					 * PF_STRPAD more NULs */
	uint32_t len;
	uint32_t npieces;
	uint32_t nrecs;			/* records a printf consumes */
	int illumos;
	int fast;			/* every piece has a fast kind */
	size_t fastmax;			/* fast: the most its pieces print
					 * but the bytes of string records */
	struct pfpiece pieces[];	/* str follows the pieces */
};

/* The errors every part reports the same way. */
static inline int
nomem(dtc_error *err)
{
	dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1, NULL);
	return DTC_FAILED;
}

static inline int
mismatch(dtc_error *err)
{
	dtcp_error_set(err, DTC_E_DMISMATCH, NULL, -1, -1, -1,
	    "data record list does not match statement");
	return DTC_FAILED;
}

static inline int
append(dtc_buf *out, const void *p, size_t n)
{
	return n == 0 ? 0 : dtc_buf_append(out, p, n);
}

/* Divisions that cannot trap: libdtrace would die on these. */
static inline int32_t
sdiv32(int32_t a, int32_t b)
{
	if (b == 0)
		return a;
	if (b == -1)
		return (int32_t)(0u - (uint32_t)a);
	return a / b;
}

static inline int64_t
sdiv64(int64_t a, int64_t b)
{
	if (b == 0)
		return a;
	if (b == -1)
		return (int64_t)(0 - (uint64_t)a);
	return a / b;
}

static inline uint64_t
udiv64(uint64_t a, uint64_t b)
{
	return b == 0 ? a : a / b;
}

/*
 * aggval.c, for the renderer: the n 64-bit words of an aggregation value
 * (-1 when it holds fewer), dt_stddev of a stddev's four words, and the
 * histogram of a quantize, lquantize or llquantize value.
 */
int dtcp_agg_words(const uint8_t *d, uint32_t size, int swap, uint64_t *w,
    int n);
uint64_t dtcp_stddev_words(const uint64_t w[4], uint64_t normal);
int dtcp_hist_render(const dtcp_capture *r, uint16_t func, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_buf *out, dtc_error *err);

#endif /* DTC_PRINTF_PRIVATE_H */
