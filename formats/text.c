/*
 * text.c - the reference emitter: exactly the bytes dtrace(1) prints.
 *
 * The library hands us events in the order libdtrace's callbacks would
 * fire (ordering, flowindent classification, printf grouping, library
 * actions and aggregation state are its business).  What is left here is
 * what dtrace(1)'s chew()/chewrec() and libdtrace's dt_consume.c printers
 * do with a record: the heading, probe lines, trace() of integers by record
 * size, the string-or-hex-dump heuristic, stacks, symbols, printf output,
 * default aggregation rows (with agghist/aggpack), the end-of-run newline,
 * and drop/error lines on the error stream.
 *
 * Decisions a user can rely on (see also dtconsume(1)):
 *  - system() is never executed and freopen() never opens anything: the
 *    rendered command or file name is reported on the error stream as
 *    "dtconsume: system() not executed: CMD" / "dtconsume: freopen() not
 *    performed: FILE" ("freopen() restore not performed" for freopen("")),
 *    and output keeps going to the normal stream.
 *  - A record that cannot be rendered (data record mismatch) prints
 *    "dtrace: processing aborted: MSG" as dtrace(1) does; the callback then
 *    returns DTC_EMIT_ABORT, which stops dtc_reader_consume(): the program exits 1.
 *    As in dtrace(1), no end-of-run newline or aggregation follows.
 *    The JSON, CBOR and json-freebsd outputs do the same (emitter.h).
 *  - A printf/printa message over the cap (maxmsgsize, printf_render.c) is
 *    printed up to the cap, a prefix of dtrace's bytes, and decoding goes
 *    on; the cut is reported once per statement (emitter.h, dtc_emit_cut)
 *    through the program, which then exits 1.
 *  - Drop and error messages are printed verbatim after "dtrace: ".
 *    dtrace(1) passes them to vfprintf as a format string (a '%' in a probe
 *    name would be interpreted); we do not reproduce that.
 *  - Offline there is no process to grab: a ustack frame prints its symbol
 *    when the capture has the process' maps and symbols, else (illumos
 *    captures) the helper string when there is one, else the raw address.
 *  - aggpack glyphs: UTF-8 blocks unless the encoding option is "ascii" or
 *    TERM is sun, sun-color or dumb, decided once per emitter (dtrace
 *    decides once per process).
 *
 * Hot path: output goes through a 64 KiB buffer of our own (written with
 * one fwrite when full, at the end of a capture and before anything goes
 * to the error stream); integers and padding are formatted by hand; one
 * dtc_buf is reused for every printf/printa/histogram rendering and one
 * for symbol texts.  Nothing is allocated per record.
 */
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "digits.h"
#include "emitter.h"
#include "pccache.h"

#ifndef DTC_EMIT_ABORT
/* A callback's return value when processing must stop (the emitter has
 * already said why on the error stream); dtc_reader_consume() returns it. */
#define DTC_EMIT_ABORT 2
#endif

#define OBUF_SIZE (64 * 1024)
#define STKINDENT_DEFAULT 14         /* _dtrace_stkindent */
#define QUANTIZE_NBUCKETS 127
#define QUANTIZE_ZEROBUCKET 63
#define AGGZOOM_MAX 0.95             /* DTRACE_AGGZOOM_MAX */
#define AGGUTF8_FULL 0x2588
#define AGGUTF8_BASE 0x258f
#define AGGUTF8_LEVELS 8
#define AGGPACK_BASE 0x2581
#define AGGPACK_LEVELS 8

/* dtrace's texts for the errors a printer can raise */
#define MSG_DMISMATCH "Data record list does not match statement"
#define MSG_BADSTACKPC "Invalid stack program counter size"

#define PLINE_SLOTS 64           /* a power of two */
#define PLINE_MAX 112

/* Kernel frame texts kept by pc (pccache.h): one cache line an entry,
 * 4 MiB; the stack benchmark's 47,000 distinct pcs hit 79% of frames. */
#define FTEXT_BITS 16
#define FTEXT_ENTRY 64

typedef struct text_state {
	FILE *out, *err;
	dtc_emitter_opts opts;   /* the program's, for dtc_emit_cut */
	dtc_cutlog cuts;         /* statements whose cut was reported */
	int testing;
	int tty;                 /* out is a terminal, or line-buffered
	                          * (dtconsume -u): flush every event */
	int werr;                /* a write to out failed */
	char *ob;                /* our output buffer */
	size_t olen;
	dtc_buf buf;             /* printf/printa/histogram renderings */
	dtc_buf sym;             /* symbol texts */
	int utf8_checked, utf8;  /* aggpack glyph set, decided once */
	/* per capture */
	int heading;             /* chew()'s static "heading printed" */
	int endnl;               /* the end-of-run "\n" is out */
	int cap_abort;           /* this capture was aborted */
	/* "    ID       FUNCTION:NAME " of each probe, built once: the
	 * same text starts every probe line of a probe (by probe id,
	 * emptied when a capture begins) */
	struct pline {
		const dtc_probedesc *pd;
		size_t len;
		char s[PLINE_MAX];
	} pl[PLINE_SLOTS];
	pccache ft;              /* kernel frame texts by pc */
	const struct text_rules *rules; /* the capture's printer */
	const dtc_event *ev;     /* the record or printing being printed */
	/* the error of a printf() rendering or a symbol's cut, cleared
	 * again only once something was written into it (a clear is 500
	 * bytes: 80-90 instructions that every printf firing and every
	 * uncached kernel frame paid) */
	dtc_error perr;
	const dtc_reader *cap_reader;   /* whose maxmsgsize cap is in cap */
	size_t cap;
} text_state;

/* What agghist/aggpack need to know about a whole printing (one variable):
 * dt_aggregate_total()/dt_aggregate_minmaxbin() of libdtrace. */
typedef struct packinfo {
	int hist, pack;          /* agghist / aggpack apply */
	int hdr;                 /* the header was printed */
	int zoom;
	long double total;
	int positives, negatives;
	int minbin, maxbin;      /* quantize: over every row */
} packinfo;

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static void
oflush(text_state *st)
{
	if (st->olen == 0)
		return;
	if (fwrite(st->ob, 1, st->olen, st->out) != st->olen)
		st->werr = 1;
	st->olen = 0;
}

static void
oput_slow(text_state *st, const void *p, size_t n)
{
	oflush(st);
	if (n >= OBUF_SIZE) {
		if (fwrite(p, 1, n, st->out) != n)
			st->werr = 1;
		return;
	}
	memcpy(st->ob, p, n);
	st->olen = n;
}

static inline void
oput(text_state *st, const void *p, size_t n)
{
	if (n == 0)         /* an empty message may have no buffer at all */
		return;
	if (n > OBUF_SIZE - st->olen) {
		oput_slow(st, p, n);
		return;
	}
	memcpy(st->ob + st->olen, p, n);
	st->olen += n;
}

static inline void
oc(text_state *st, char c)
{
	if (st->olen == OBUF_SIZE)
		oflush(st);
	st->ob[st->olen++] = c;
}

static void
os(text_state *st, const char *s)
{
	oput(st, s, strlen(s));
}

static void
ospaces(text_state *st, size_t n)
{
	while (n > 0) {
		size_t k;

		if (st->olen == OBUF_SIZE)
			oflush(st);
		k = OBUF_SIZE - st->olen;
		if (k > n)
			k = n;
		memset(st->ob + st->olen, ' ', k);
		st->olen += k;
		n -= k;
	}
}

/* "%*s": width >= 0 right-justifies, width < 0 left-justifies. */
static void
ostrw(text_state *st, const char *s, size_t n, int width)
{
	size_t w = (size_t)(width < 0 ? -(long)width : width);
	size_t pad = n < w ? w - n : 0;
	char *d;

	if (n + pad > OBUF_SIZE - st->olen) {
		if (width >= 0)
			ospaces(st, pad);
		oput(st, s, n);
		if (width < 0)
			ospaces(st, pad);
		return;
	}
	/* the common case, a column within the buffer: no calls per part */
	d = st->ob + st->olen;
	if (width >= 0) {
		memset(d, ' ', pad);
		memcpy(d + pad, s, n);
	} else {
		memcpy(d, s, n);
		memset(d + n, ' ', pad);
	}
	st->olen += n + pad;
}

/*
 * A number's text: its n <= NUM_BLOCK bytes at p, in a buffer where
 * NUM_BLOCK bytes can be read from p.  With room in the output buffer,
 * the padding and the digits are stored as fixed-size blocks (bytes past
 * the column are overwritten next, or never written out) instead of a
 * memset and a memcpy of their lengths: a call each, per number.
 */
#define NUM_BLOCK	24
#define PAD_BLOCK	32

static inline void
onum(text_state *st, const char *p, size_t n, int width)
{
	size_t w = (size_t)(width < 0 ? -(long)width : width);
	size_t pad = n < w ? w - n : 0;
	char *d = st->ob + st->olen;

	if (pad > PAD_BLOCK || OBUF_SIZE - st->olen < PAD_BLOCK + NUM_BLOCK) {
		ostrw(st, p, n, width);
		return;
	}
	if (width >= 0) {
		memset(d, ' ', PAD_BLOCK);
		memcpy(d + pad, p, NUM_BLOCK);
	} else {
		memcpy(d, p, NUM_BLOCK);
		memset(d + n, ' ', PAD_BLOCK);
	}
	st->olen += n + pad;
}

/* "%*lld" */
static void
olld(text_state *st, long long v, int width)
{
	char b[2 * NUM_BLOCK], *e = b + NUM_BLOCK, *p;

	if (v < 0) {
		p = digits_u64(e, 0ULL - (unsigned long long)v);
		*--p = '-';
	} else {
		p = digits_u64(e, (unsigned long long)v);
	}
	onum(st, p, (size_t)(e - p), width);
}

/* "%*llu" */
static void
ollu(text_state *st, unsigned long long v, int width)
{
	char b[2 * NUM_BLOCK], *e = b + NUM_BLOCK, *p = digits_u64(e, v);

	onum(st, p, (size_t)(e - p), width);
}

/* "%*llx" (lower case) */
static void
ohex(text_state *st, unsigned long long v, int width)
{
	char b[2 * NUM_BLOCK], *e = b + NUM_BLOCK, *p = e;

	do {
		*--p = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v != 0);
	onum(st, p, (size_t)(e - p), width);
}

/* Everything before a message on the error stream: keep the two streams
 * in order when they share a file (2>&1). */
static void
errsync(text_state *st)
{
	oflush(st);
	if (fflush(st->out) != 0)
		st->werr = 1;
}

/* "PREFIX" + msg, and a newline unless msg ends in one. */
static void
errline(text_state *st, const char *prefix, const char *msg)
{
	size_t n;

	if (msg == NULL)
		msg = "";
	n = strlen(msg);
	errsync(st);
	fputs(prefix, st->err);
	fwrite(msg, 1, n, st->err);
	if (n == 0 || msg[n - 1] != '\n')
		putc('\n', st->err);
}

/* dtrace(1)'s dfatal("processing aborted"): the capture stops here. */
static int
abort_capture(text_state *st, const char *what, const char *msg)
{
	errsync(st);
	fprintf(st->err, "dtrace: %s: %s\n", what, msg);
	st->cap_abort = 1;
	return DTC_EMIT_ABORT;
}

static const char *
errmsg(const dtc_error *err)
{
	return dtc_emit_errmsg(err);
}

/* ------------------------------------------------------------------ */
/* Options and raw words                                               */
/* ------------------------------------------------------------------ */

static int
opt_set(const dtc_reader *r, const char *name)
{
	return dtc_reader_get_option(r, name) != DTC_OPT_UNSET;
}

static int
capture_swapped(const dtc_reader *r)
{
	const dtc_header *h = dtc_reader_header(r);
	int host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	return h != NULL && (h->big_endian != 0) != host_big;
}

static int64_t
word(const uint8_t *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	if (swap)
		v = __builtin_bswap64(v);
	return (int64_t)v;
}

static int
encoding_is(const dtc_reader *r, const char *what)
{
	const char *e = dtc_reader_get_option_string(r, "encoding");

	return e != NULL && strcmp(e, what) == 0;
}

/* ------------------------------------------------------------------ */
/* dt_print_bytes                                                      */
/* ------------------------------------------------------------------ */

/* isprint() || isspace() in the C locale with a signed char, or \b \a. */
static inline int
printable(uint8_t c)
{
	return (c >= 0x20 && c <= 0x7e) || (c >= 0x07 && c <= 0x0d);
}

static void
hexdump(text_state *st, const uint8_t *c, size_t n)
{
	size_t i, j;

	os(st, "\n           ");
	for (i = 0; i < 16; i++) {
		oput(st, "  ", 2);
		oc(st, "0123456789abcdef"[i]);
	}
	os(st, "  0123456789abcdef\n");
	for (i = 0; i < n; i += 16) {
		ospaces(st, 5);
		ohex(st, i, 5);
		oc(st, ':');
		for (j = i; j < i + 16 && j < n; j++) {
			oc(st, ' ');
			oc(st, "0123456789abcdef"[c[j] >> 4]);
			oc(st, "0123456789abcdef"[c[j] & 0xf]);
		}
		for (; j % 16 != 0; j++)
			oput(st, "   ", 3);
		oput(st, "  ", 2);
		for (j = i; j < i + 16 && j < n; j++)
			oc(st, c[j] < ' ' || c[j] > '~' ? '.' : (char)c[j]);
		oc(st, '\n');
	}
}

/*
 * A string when the bytes are printable up to a NUL that is not the first
 * byte and only NULs follow, or printable without any NUL; anything else
 * (an empty string included) is dumped in hex.
 */
static void
print_bytes(text_state *st, const dtc_reader *r, const uint8_t *c, size_t n,
    int width, int quiet, int forceraw)
{
	size_t i, j;

	if (n == 0)
		return;
	if (!forceraw && !opt_set(r, "rawbytes")) {
		for (i = 0; i < n; i++) {
			if (printable(c[i]))
				continue;
			if (c[i] == '\0' && i > 0) {
				for (j = i + 1; j < n && c[j] == '\0'; j++)
					continue;
				if (j != n)
					break;
				if (quiet) {
					oput(st, c, i);
				} else {
					oc(st, ' ');
					if (width < 0)
						oc(st, ' ');
					ostrw(st, (const char *)c, i, width);
				}
				return;
			}
			break;
		}
		if (i == n) {
			oput(st, "  ", 2);
			ostrw(st, (const char *)c, n, width < 0 ? width : -width);
			return;
		}
	}
	hexdump(st, c, n);
}

/* ------------------------------------------------------------------ */
/* Stacks and symbols                                                  */
/* ------------------------------------------------------------------ */

static int
stackindent(const dtc_reader *r)
{
	int64_t v = dtc_reader_get_option(r, "stackindent");

	if (v == DTC_OPT_UNSET)
		return STKINDENT_DEFAULT;
	/* "%*s" of "": a negative width pads the same */
	if (v < 0)
		v = -v;
	return v > 4096 ? 4096 : (int)v;
}

/*
 * The symbol text in st->sym under the message cap (a name in the
 * capture may be of any length): cut at maxmsgsize and said once for the
 * record (key: its recdesc), as a printf message is.
 */
static void
sym_cap(text_state *st, const dtc_reader *r, const void *key)
{
	/* only a text past the cap can need a cut (dtc_emit_cap): the
	 * library's check, a lookup of the cap and a clear of perr cost
	 * 270-430 instructions a stack firing where none was cut */
	if (st->sym.len <= dtc_emit_cap(r, &st->cap_reader, &st->cap))
		return;
	if (st->perr.code != DTC_E_NONE)
		dtc_error_clear(&st->perr);
	if (dtc_reader_text_cut(r, &st->sym, 0, "symbol", &st->perr) == DTC_WARN &&
	    st->ev != NULL) {
		errsync(st);
		dtc_emit_cut(&st->opts, &st->cuts, st->ev, key, &st->perr);
	}
}

/* dtc_reader_frame_text(r, pc) appended to the output, from the cache when it
 * holds it */
static void
frame_text(text_state *st, const dtc_reader *r, uint64_t pc, const void *key)
{
	const void *p;
	size_t n;

	if ((p = pccache_get(&st->ft, pc, &n)) != NULL) {
		oput(st, p, n);
		return;
	}
	dtc_buf_reset(&st->sym);
	dtc_reader_frame_text(r, pc, &st->sym);
	sym_cap(st, r, key);
	oput(st, st->sym.s, st->sym.len);
	pccache_put(&st->ft, pc, st->sym.s, st->sym.len);
}

/* dt_print_stack: returns 0, or -1 for a bad pc size (after the "\n"). */
static int
print_stack(text_state *st, const dtc_reader *r, const dtc_value *v)
{
	int indent = stackindent(r);
	uint32_t i;
	uint64_t pc;

	oc(st, '\n');
	if (v->nframes == 0)
		return 0;
	if (v->pcsize != 4 && v->pcsize != 8)
		return -1;
	for (i = 0; i < v->nframes; i++) {
		if ((pc = dtc_value_pc(v, i)) == 0)
			break;
		ospaces(st, (size_t)indent);
		frame_text(st, r, pc, v->rd);
		oc(st, '\n');
	}
	return 0;
}

/*
 * One user frame.  libdtrace would grab the live process; offline the
 * capture's proc maps play that part: a symbol wins; the helper string is
 * used on illumos when the process or the pc's mapping is unknown, on
 * FreeBSD only when the process is known and the pc lies in no mapping;
 * else obj`0x... or 0x....  (Mapping permissions are not captured: a pc
 * in a known mapping is taken to be in a read-only one.)  DTrace v2 takes
 * the FreeBSD rule, which is dtrace-utils' dt_print_ustack too; its
 * records carry no strings (the record ends after the pcs, so the
 * strsize of ustack(n, strsize) never reaches a string here).
 */
static void
ustack_frame(text_state *st, const dtc_reader *r, uint64_t pid, uint64_t pc,
    const char *str, size_t strn, int illumos, int proc_known,
    const void *key)
{
	dtc_symbol sym;
	int found = dtc_reader_usym_lookup(r, pid, pc, &sym);
	int helper;

	dtc_buf_reset(&st->sym);
	if (found && sym.name != NULL) {
		dtc_reader_uaddr_text(r, pid, pc, 0, &st->sym);
		sym_cap(st, r, key);
		oput(st, st->sym.s, st->sym.len);
		return;
	}
	helper = str != NULL && strn > 0 && str[0] != '@' &&
	    (illumos ? !found : (proc_known && !found));
	if (helper) {
		oput(st, str, strn);
	} else if (found) {
		dtc_reader_uaddr_text(r, pid, pc, 0, &st->sym);
		sym_cap(st, r, key);
		oput(st, st->sym.s, st->sym.len);
	} else {
		oput(st, "0x", 2);
		ohex(st, pc, 0);
	}
}

/* dt_print_ustack */
static void
print_ustack(text_state *st, const dtc_reader *r, const dtc_value *v)
{
	const dtc_header *h = dtc_reader_header(r);
	int illumos = h != NULL && h->os_illumos;
	int indent, proc_known = 0;
	const char *strbase = (const char *)v->strtab;
	const char *str = v->strsize != 0 ? strbase : NULL;
	/* no string table: no pointer arithmetic on NULL either */
	const char *strend = strbase != NULL ? strbase + v->strsize : NULL;
	uint32_t i;
	uint64_t pc;
	dtc_symbol sym;

	if (v->nframes == 0)
		return;
	oc(st, '\n');
	indent = stackindent(r);
	if (!illumos) {
		/* the process "can be grabbed" when we know any of its pcs */
		for (i = 0; i < v->nframes && (pc = dtc_value_pc(v, i)) != 0;
		    i++) {
			if (dtc_reader_usym_lookup(r, v->pid, pc, &sym)) {
				proc_known = 1;
				break;
			}
		}
	}
	for (i = 0; i < v->nframes && (pc = dtc_value_pc(v, i)) != 0; i++) {
		size_t sn = str != NULL ? strnlen(str, (size_t)(strend - str)) : 0;

		ospaces(st, (size_t)indent);
		ustack_frame(st, r, v->pid, pc, str, sn, illumos, proc_known,
		    v->rd);
		oc(st, '\n');
		if (str != NULL && sn > 0 && str[0] == '@') {
			/* an annotation, under the frame */
			ospaces(st, (size_t)indent);
			oput(st, "  [ ", 4);
			oput(st, str + 1, sn - 1);
			oput(st, " ]", 2);
			oc(st, '\n');
		}
		if (str != NULL) {
			str += sn + 1;
			if (str >= strend)
				str = NULL;
		}
	}
}

/* "  %-50s" of the text the symbolizer left in st->sym */
static void
sym50(text_state *st)
{
	oput(st, "  ", 2);
	ostrw(st, st->sym.s != NULL ? st->sym.s : "", st->sym.len, -50);
}

static void
print_symbolic(text_state *st, const dtc_reader *r, const dtc_value *v)
{
	dtc_buf_reset(&st->sym);
	switch (v->kind) {
	case DTC_V_SYM:
		dtc_reader_addr_text(r, v->addr, 1, &st->sym);
		break;
	case DTC_V_MOD:
		dtc_reader_mod_text(r, v->addr, &st->sym);
		break;
	case DTC_V_USYM:
		dtc_reader_uaddr_text(r, v->pid, v->addr, 1, &st->sym);
		break;
	case DTC_V_UADDR:
		dtc_reader_uaddr_text(r, v->pid, v->addr, 0, &st->sym);
		break;
	case DTC_V_UMOD:
		dtc_reader_umod_text(r, v->pid, v->addr, &st->sym);
		break;
	}
	sym_cap(st, r, v->rd);
	sym50(st);
}

/* ------------------------------------------------------------------ */
/* Histogram bars of agghist/aggpack (dt_print_quantline, ..._packed)  */
/* ------------------------------------------------------------------ */

static const char ats40[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

/*
 * (long long) of a long double total, as x86 converts: a value outside
 * the range gives LLONG_MIN ("integer indefinite"), which is what
 * libdtrace's own cast prints there; done explicitly because the C cast
 * is undefined for it.
 */
static long long
ld_to_ll(long double x)
{
	if (!(x >= -9223372036854775808.0L && x < 9223372036854775808.0L))
		return LLONG_MIN;
	return (long long)x;
}

/*
 * (unsigned int) of a long double, as x86 converts it: through a 64-bit
 * integer, so a value outside that range gives 0 and a larger one in it
 * its low 32 bits.  A capture's counts can make a bar's |val| exceed the
 * total (signed sums) or the total 0, where libdtrace's own casts are
 * undefined; this is what they give on x86.
 */
static unsigned int
ld_to_uint(long double x)
{
	return (unsigned int)(unsigned long long)ld_to_ll(x);
}

static long double
fabsld(long double x)
{
	return x < 0 ? -x : x;
}

static void
utf8_glyph(text_state *st, unsigned int cp)
{
	oc(st, (char)(0xe0 | (cp >> 12)));
	oc(st, (char)(0x80 | ((cp >> 6) & 0x3f)));
	oc(st, (char)(0x80 | (cp & 0x3f)));
}

/* count / normal: normal is unsigned in libdtrace, so is the division */
static long long
normalized(int64_t val, uint64_t normal)
{
	if (normal == 0)
		normal = 1;
	return (long long)((uint64_t)val / normal);
}

static void
quantline(text_state *st, const dtc_reader *r, int64_t val, uint64_t normal,
    long double total, int positives, int negatives)
{
	unsigned int depth, len = 40;
	long double f;

	if (!negatives) {
		if (positives && encoding_is(r, "utf8")) {
			unsigned int whole, partial, i;

			f = fabsld((long double)val) * len / total;
			whole = ld_to_uint(f);
			partial = ld_to_uint((f - (long double)whole) *
			    (long double)AGGUTF8_LEVELS);
			oc(st, '|');
			for (i = 0; i < whole; i++)
				utf8_glyph(st, AGGUTF8_FULL);
			if (partial != 0) {
				utf8_glyph(st, AGGUTF8_BASE - (partial - 1));
				i++;
			}
			ospaces(st, i < len ? len - i : 0);
			oc(st, ' ');
			olld(st, normalized(val, normal), -9);
			oc(st, '\n');
			return;
		}
		depth = 0;
		if (positives) {
			f = fabsld((long double)val) * len / total;
			depth = ld_to_uint(f + 0.5);
		}
		if (depth > len)
			depth = len;
		oc(st, '|');
		oput(st, ats40, depth);
		ospaces(st, len - depth);
	} else if (!positives) {
		f = fabsld((long double)val) * len / total;
		depth = ld_to_uint(f + 0.5);
		if (depth > len)
			depth = len;
		ospaces(st, len - depth);
		oput(st, ats40, depth);
		oc(st, '|');
	} else {
		/* both signs: half bars either side of the axis */
		len /= 2;
		f = fabsld((long double)val) * len / total;
		depth = ld_to_uint(f + 0.5);
		if (depth > len)
			depth = len;
		if (val <= 0) {
			ospaces(st, len - depth);
			oput(st, ats40, depth);
			oc(st, '|');
			ospaces(st, len);
		} else {
			ospaces(st, 20);
			oc(st, '|');
			oput(st, ats40, depth);
			ospaces(st, len - depth);
		}
	}
	oc(st, ' ');
	olld(st, normalized(val, normal), -9);
	oc(st, '\n');
}

static int
pack_utf8(text_state *st, const dtc_reader *r)
{
	const char *term;

	if (!st->utf8_checked) {
		st->utf8_checked = 1;
		if (encoding_is(r, "ascii"))
			st->utf8 = 0;
		else if (encoding_is(r, "utf8"))
			st->utf8 = 1;
		else if ((term = getenv("TERM")) != NULL &&
		    (strcmp(term, "sun") == 0 ||
		    strcmp(term, "sun-color") == 0 || strcmp(term, "dumb") == 0))
			st->utf8 = 0;
		else
			st->utf8 = 1;
	}
	return st->utf8;
}

static void
packed_glyph(text_state *st, const dtc_reader *r, long double datum,
    long double total)
{
	static const char ascii[] = "__xxxxXX", neg[] = "vvvvVV";
	unsigned int k;

	if (datum == 0) {
		oc(st, ' ');
		return;
	}
	if (datum < 0) {
		k = ld_to_uint(fabsld(datum * (sizeof(neg) - 2)) / total +
		    0.5);
		oc(st, neg[k < sizeof(neg) - 1 ? k : sizeof(neg) - 2]);
		return;
	}
	k = ld_to_uint(datum * (AGGPACK_LEVELS - 1) / total + 0.5);
	if (k > AGGPACK_LEVELS - 1)
		k = AGGPACK_LEVELS - 1;
	if (pack_utf8(st, r))
		utf8_glyph(st, AGGPACK_BASE + k);
	else
		oc(st, ascii[k]);
}

/* dt_quantize_total */
static void
quantize_total(const packinfo *pk, int64_t datum, long double *total)
{
	long double val = fabsld((long double)datum);

	if (!pk->zoom) {
		*total += val;
		return;
	}
	val *= 1 / AGGZOOM_MAX;
	if (*total < val)
		*total = val;
}


/* dt_ndigits, quirks included (10000 counts 4 digits) */
static int
ndigits(long long val)
{
	int rval = 1;
	long long cmp = 10;

	if (val < 0) {
		val = val == INT64_MIN ? INT64_MAX : -val;
		rval++;
	}
	while (val > cmp && cmp > 0) {
		rval++;
		cmp = cmp > INT64_MAX / 10 ? -1 : cmp * 10;
	}
	return rval < 4 ? 4 : rval;
}

static long long
quantize_bucketval(int i)
{
	if (i < QUANTIZE_ZEROBUCKET)
		return -(1LL << (QUANTIZE_ZEROBUCKET - 1 - i));
	if (i == QUANTIZE_ZEROBUCKET)
		return 0;
	return 1LL << (i - QUANTIZE_ZEROBUCKET - 1);
}

static void
lquantize_params(uint64_t arg, int *base, unsigned *step, unsigned *levels)
{
	*base = (int32_t)(uint32_t)(arg & 0xffffffffULL);
	*levels = (unsigned)((arg >> 32) & 0xffff);
	*step = (unsigned)((arg >> 48) & 0xffff);
}

static void
quantize_packed_range(const packinfo *pk, int *min, int *max)
{
	*min = pk->minbin;
	*max = pk->maxbin;
	if (*min != 0 && *min != QUANTIZE_ZEROBUCKET)
		(*min)--;
	if (*max < QUANTIZE_NBUCKETS - 1)
		(*max)++;
}

/* dt_print_quantize_packed */
static int
quantize_packed(text_state *st, const dtc_reader *r, const dtc_aggval *v,
    const packinfo *pk)
{
	long double total = 0, count = 0;
	long long minval, maxval;
	int min, max, i;

	if (v->size != QUANTIZE_NBUCKETS * 8)
		return -1;
	quantize_packed_range(pk, &min, &max);
	minval = quantize_bucketval(min);
	maxval = quantize_bucketval(max);
	oc(st, ' ');
	olld(st, minval, ndigits(minval));
	oput(st, " :", 2);
	for (i = min; i <= max; i++) {
		int64_t d = (int64_t)dtc_aggval_word(v, (uint32_t)i);

		quantize_total(pk, d, &total);
		count += d;
	}
	for (i = min; i <= max; i++)
		packed_glyph(st, r, (int64_t)dtc_aggval_word(v, (uint32_t)i),
		    total);
	oput(st, ": ", 2);
	olld(st, maxval, -ndigits(maxval));
	oput(st, " | ", 3);
	olld(st, ld_to_ll(count), 0);
	oc(st, '\n');
	return 0;
}

/* dt_print_lquantize_packed */
static int
lquantize_packed(text_state *st, const dtc_reader *r, const dtc_aggval *v,
    const packinfo *pk)
{
	long double total = 0, count = 0;
	char c[32];
	unsigned step, levels, i;
	int base, n;

	if (v->size < 8)
		return -1;
	lquantize_params(dtc_aggval_word(v, 0), &base, &step, &levels);
	if (v->size - 8 != 8 * (levels + 2))
		return -1;
	n = snprintf(c, sizeof(c), "< %d", base);
	ostrw(st, c, (size_t)n, 8);
	oput(st, " :", 2);
	for (i = 0; i <= levels + 1; i++) {
		int64_t d = (int64_t)dtc_aggval_word(v, 1 + i);

		quantize_total(pk, d, &total);
		count += d;
	}
	for (i = 0; i <= levels + 1; i++)
		packed_glyph(st, r, (int64_t)dtc_aggval_word(v, 1 + i), total);
	n = snprintf(c, sizeof(c), ">= %d",
	    (int)(int32_t)((uint32_t)base + levels * step));
	oput(st, ": ", 2);
	ostrw(st, c, (size_t)n, -8);
	oput(st, " | ", 3);
	olld(st, ld_to_ll(count), 0);
	oc(st, '\n');
	return 0;
}

/* ------------------------------------------------------------------ */
/* Default aggregation rows (dt_print_aggs / dt_print_datum)           */
/* ------------------------------------------------------------------ */

/* Field width of a key record by size: 1, 2, 4, 8 bytes, else -50
 * (packed: 16). */
static int
datum_width(uint32_t size, int packed)
{
	switch (size) {
	case 1:
		return 3;
	case 2:
		return 5;
	case 4:
		return 8;
	case 8:
		return 16;
	default:
		return packed ? 16 : -50;
	}
}

static int
is_scalar_func(uint16_t f)
{
	return f == DTC_AGG_COUNT || f == DTC_AGG_SUM || f == DTC_AGG_AVG ||
	    f == DTC_AGG_STDDEV;
}

/* The value dt_aggregate_total() adds up for one row. */
static int64_t
total_value(const dtc_aggval *v)
{
	dtc_aggval one;
	int64_t n, s;

	if (v->size < 8)
		return 0;
	switch (v->func) {
	case DTC_AGG_STDDEV:
		one = *v;
		one.normal = 1;
		return (int64_t)dtc_aggval_stddev(&one);
	case DTC_AGG_AVG:
		if (v->size < 16 || (n = (int64_t)dtc_aggval_word(v, 0)) == 0)
			return 0;
		s = (int64_t)dtc_aggval_word(v, 1);
		if (n == -1 && s == INT64_MIN)
			return INT64_MIN;
		return s / n;
	default:
		return (int64_t)dtc_aggval_word(v, 0);
	}
}

static void
packinfo_init(packinfo *pk, const dtc_reader *r, const dtc_aggprint *ap)
{
	const dtc_aggvar *var;
	size_t i;
	int j;

	memset(pk, 0, sizeof(*pk));
	/* a joined printa walks without totals or min/max bins */
	if (ap->nvars != 1 || ap->fmt != NULL)
		return;
	var = &ap->vars[0];
	pk->hist = opt_set(r, "agghist") && is_scalar_func(var->func);
	pk->pack = opt_set(r, "aggpack") &&
	    (var->func == DTC_AGG_QUANTIZE || var->func == DTC_AGG_LQUANTIZE);
	if (!pk->hist && !pk->pack)
		return;
	pk->zoom = opt_set(r, "aggzoom");
	if (pk->hist) {
		long double total = 0;

		for (i = 0; i < ap->nrows; i++) {
			int64_t val = total_value(&ap->rows[i].vals[0]);

			if (val > 0)
				pk->positives = 1;
			if (val < 0) {
				pk->negatives = 1;
				val = val == INT64_MIN ? INT64_MAX : -val;
			}
			if (pk->zoom) {
				val = ld_to_ll((long double)val *
				    (1 / AGGZOOM_MAX));
				if (val > total)
					total = val;
			} else {
				total += val;
			}
		}
		pk->total = total;
	}
	if (pk->pack && var->func == DTC_AGG_QUANTIZE) {
		pk->minbin = pk->maxbin = -1;
		for (i = 0; i < ap->nrows; i++) {
			const dtc_aggval *v = &ap->rows[i].vals[0];
			int min = -1, max = -1;

			if (v->size != QUANTIZE_NBUCKETS * 8)
				continue;
			for (j = 0; j < QUANTIZE_NBUCKETS; j++) {
				if (dtc_aggval_word(v, (uint32_t)j) == 0)
					continue;
				if (min == -1)
					min = j;
				max = j;
			}
			if (min == -1)
				min = max = QUANTIZE_ZEROBUCKET;
			if (pk->minbin == -1 || min < pk->minbin)
				pk->minbin = min;
			if (max > pk->maxbin)
				pk->maxbin = max;
		}
		if (pk->minbin == -1)
			pk->minbin = pk->maxbin = QUANTIZE_ZEROBUCKET;
	}
}

/* The agghist/aggpack header, once per variable and printing. */
static void
packed_header(text_state *st, const dtc_aggprint *ap, packinfo *pk)
{
	const dtc_aggvar *var = &ap->vars[0];
	static const char dist[] = "------------- Distribution -------------";
	int width = 0, minwidth, maxwidth, min, max, i;
	uint32_t k;

	pk->hdr = 1;
	for (k = 0; k < var->nkeys; k++)
		width += datum_width(var->keys[k].size, 1) + 1;
	if (pk->hist) {
		oc(st, '\n');
		if (width != 0)
			ostrw(st, "key", 3, width);
		else
			ostrw(st, "value", 5, 16);
		oc(st, ' ');
		ostrw(st, dist, sizeof(dist) - 1, 41);
		oc(st, ' ');
		ostrw(st, "count", 5, -9);
		oc(st, '\n');
		return;
	}
	if (var->func == DTC_AGG_QUANTIZE) {
		quantize_packed_range(pk, &min, &max);
		minwidth = ndigits(quantize_bucketval(min));
		maxwidth = ndigits(quantize_bucketval(max));
	} else {
		unsigned step, levels;
		int base;

		lquantize_params(var->arg, &base, &step, &levels);
		maxwidth = 8;
		minwidth = maxwidth - 1;
		min = 1;
		max = (int)levels + 2;
	}
	oc(st, '\n');
	ostrw(st, width > 0 ? "key" : "", width > 0 ? 3 : 0, width);
	oc(st, ' ');
	ostrw(st, "min", 3, minwidth);
	oput(st, " .", 2);
	for (i = min; i <= max; i++)
		oc(st, '-');
	oput(st, ". ", 2);
	ostrw(st, "max", 3, -maxwidth);
	os(st, " | count\n");
}

/* The integer a 1, 2, 4 or 8-byte key prints as. */
static long long
key_int(const dtc_reader *r, const dtc_value *k)
{
	uint64_t u;
	uint32_t u32;
	uint16_t u16;

	if (k->kind == DTC_V_INT || k->data == NULL) {
		u = k->u;
	} else {
		int swap = capture_swapped(r);

		switch (k->size) {
		case 8:
			u = (uint64_t)word(k->data, swap);
			break;
		case 4:
			memcpy(&u32, k->data, 4);
			u = swap ? __builtin_bswap32(u32) : u32;
			break;
		case 2:
			memcpy(&u16, k->data, 2);
			u = swap ? __builtin_bswap16(u16) : u16;
			break;
		default:
			u = k->data[0];
			break;
		}
	}
	switch (k->size) {
	case 8:
		return (long long)(int64_t)u;
	case 4:
		return (int32_t)(uint32_t)u;
	case 2:
		return (uint16_t)u;
	default:
		return (uint8_t)u;
	}
}

/* A key of a default printa row.  Returns 0 or -1 (bad stack). */
static int
print_key(text_state *st, const dtc_reader *r, const dtc_value *k,
    int packed)
{
	int width = datum_width(k->size, packed);

	switch (k->kind) {
	case DTC_V_STACK:
		return print_stack(st, r, k);
	case DTC_V_USTACK:
		print_ustack(st, r, k);
		return 0;
	case DTC_V_SYM:
	case DTC_V_MOD:
	case DTC_V_USYM:
	case DTC_V_UADDR:
	case DTC_V_UMOD:
		print_symbolic(st, r, k);
		return 0;
	default:
		break;
	}
	/* keys are never normalized; any 1, 2, 4 or 8-byte record is an
	 * integer (whatever its D type), 1 and 2 bytes unsigned */
	switch (k->size) {
	case 1:
	case 2:
	case 4:
	case 8:
		oc(st, ' ');
		olld(st, key_int(r, k), width);
		return 0;
	default:
		print_bytes(st, r, k->data, k->size, width, 0, 0);
		return 0;
	}
}

/* A value of a default printa row. */
static int
print_val(text_state *st, const dtc_reader *r, const dtc_aggval *v,
    packinfo *pk)
{
	switch (v->func) {
	case DTC_AGG_QUANTIZE:
	case DTC_AGG_LQUANTIZE:
		if (pk->pack) {
			return v->func == DTC_AGG_QUANTIZE ?
			    quantize_packed(st, r, v, pk) :
			    lquantize_packed(st, r, v, pk);
		}
		/* FALLTHROUGH */
	case DTC_AGG_LLQUANTIZE:
		dtc_buf_reset(&st->buf);
		if (dtc_reader_hist_render(r, v, &st->buf) != 0)
			return -1;
		oput(st, st->buf.s, st->buf.len);
		return 0;
	default:
		break;
	}
	if (pk->hist) {
		oc(st, ' ');
		quantline(st, r, (int64_t)dtc_aggval_word(v, 0), v->normal,
		    pk->total, pk->positives, pk->negatives);
		return 0;
	}
	oc(st, ' ');
	if (v->func == DTC_AGG_STDDEV)
		ollu(st, dtc_aggval_stddev(v), 16);
	else
		olld(st, dtc_aggval_scalar(v), 16);
	return 0;
}

/* Every row of a printing in the default layout.  Returns 0, or the
 * message of the error that stopped it. */
static const char *
print_rows(text_state *st, const dtc_reader *r, const dtc_aggprint *ap)
{
	packinfo pk;
	size_t i;
	uint32_t k, j;

	if (ap->nvars == 0)
		return NULL;
	packinfo_init(&pk, r, ap);
	for (i = 0; i < ap->nrows; i++) {
		const dtc_aggrow *row = &ap->rows[i];
		const dtc_aggvar *var = row->var != NULL ? row->var :
		    &ap->vars[0];
		int packed = pk.hist || pk.pack;

		if (packed && !pk.hdr)
			packed_header(st, ap, &pk);
		for (k = 0; k < var->nkeys; k++) {
			if (print_key(st, r, &row->keys[k], packed) != 0)
				return MSG_BADSTACKPC;
		}
		for (j = 0; j < ap->nvars; j++) {
			if (print_val(st, r, &row->vals[j], &pk) != 0)
				return MSG_DMISMATCH;
		}
		if (!packed)
			oc(st, '\n');
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

/* An unsigned integer of 1, 2, 4 or 8 bytes in the capture's order. */
static unsigned long long
load_uint(const uint8_t *p, uint32_t size, int swap)
{
	uint64_t v8 = 0;
	uint32_t v4 = 0;
	uint16_t v2 = 0;

	switch (size) {
	case 8:
		memcpy(&v8, p, 8);
		return swap ? __builtin_bswap64(v8) : v8;
	case 4:
		memcpy(&v4, p, 4);
		return swap ? __builtin_bswap32(v4) : v4;
	case 2:
		memcpy(&v2, p, 2);
		return swap ? __builtin_bswap16(v2) : v2;
	default:
		return p[0];
	}
}

static int
print_int(text_state *st, const dtc_value *v, int quiet)
{
	long long x;
	int width;

	switch (v->size) {
	case 8:
		x = (long long)v->i;
		width = 16;
		break;
	case 4:
		x = (int32_t)(uint32_t)v->u;
		width = 8;
		break;
	case 2:
		x = (uint16_t)v->u;
		width = 5;
		break;
	case 1:
		x = (uint8_t)v->u;
		width = 3;
		break;
	default:
		return -1;
	}
	if (quiet) {
		olld(st, x, 0);
	} else {
		oc(st, ' ');
		olld(st, x, width);
	}
	return 0;
}

/*
 * Where the two printers differ, one entry each: legacy (illumos and
 * FreeBSD libdtrace) and DTrace v2 (dtrace-utils), chosen per capture by
 * its flavor (dtsnap(5)).  The library applies the rules that change
 * values or messages; these are the ones that change only the text.
 */
typedef struct text_rules {
	/* trace() of one DIFEXPR record (an integer, string or bytes) */
	void (*trace)(text_state *st, const dtc_event *ev, const dtc_value *v);
} text_rules;

/* legacy dt_print_bytes/dt_print_datum: the kind decides */
static void
trace_legacy(text_state *st, const dtc_event *ev, const dtc_value *v)
{
	if (v->kind == DTC_V_INT && print_int(st, v, ev->quiet) == 0)
		return;
	print_bytes(st, ev->reader, v->data, v->size, -33, ev->quiet, 0);
}

/* dt_print_trace's record flags (dt_impl.h DT_NF_*) */
#define V2_NF_SIGNED 0x01
#define V2_NF_REF    0x04

/*
 * dtrace-utils' dt_print_trace: rawbytes dumps every record; a by-ref
 * record is a string when 1-aligned (printed up to its NUL, no printable
 * test) and dumped otherwise; integers print by the sign of their D type.
 */
static void
trace_v2(text_state *st, const dtc_event *ev, const dtc_value *v)
{
	const dtc_recdesc *rd = v->rd;
	int quiet = ev->quiet, swap = v->swapped, w;
	long long x;
	unsigned long long u;

	if (ev->rawbytes || rd == NULL) {
		if (v->size > 0)
			hexdump(st, v->data, v->size);
		return;
	}
	if (rd->arg == V2_NF_REF) {
		if (rd->alignment > 1) {
			if (v->size > 0)
				hexdump(st, v->data, v->size);
		} else if (quiet) {
			oput(st, v->data, strnlen((const char *)v->data,
			    v->size));
		} else {
			oput(st, "  ", 2);
			ostrw(st, (const char *)v->data,
			    strnlen((const char *)v->data, v->size), -33);
		}
		return;
	}
	switch (v->size) {
	case 1: case 2: case 4: case 8:
		break;
	default:
		if (v->size > 0)
			hexdump(st, v->data, v->size);
		return;
	}
	u = load_uint(v->data, v->size, swap);
	if (rd->arg == V2_NF_SIGNED) {
		switch (v->size) {
		case 8: x = (long long)u; w = 19; break;
		case 4: x = (int32_t)(uint32_t)u; w = 10; break;
		case 2: x = (int16_t)(uint16_t)u; w = 5; break;
		default: x = (int8_t)(uint8_t)u; w = 3; break;
		}
		if (!quiet)
			oc(st, ' ');
		olld(st, x, quiet ? 0 : w);
	} else {
		w = v->size == 8 ? 20 : v->size == 4 ? 10 : v->size == 2 ? 5 : 3;
		if (!quiet)
			oc(st, ' ');
		ollu(st, u, quiet ? 0 : w);
	}
}

static const text_rules rules_legacy = { trace_legacy };
static const text_rules rules_v2 = { trace_v2 };

/* system()/freopen(): rendered, reported, never performed. */
static void
notice_request(text_state *st, const dtc_value *v)
{
	const char *what;
	size_t n = st->buf.len, i;

	if (v->action == DTC_ACT_SYSTEM) {
		what = "dtconsume: system() not executed: ";
	} else if (n == 0 || (n == 1 && st->buf.s[0] == '.')) {
		/* "" is compiled to DT_FREOPEN_RESTORE, "." */
		what = "dtconsume: freopen() restore not performed";
		n = 0;
	} else {
		what = "dtconsume: freopen() not performed: ";
	}
	errsync(st);
	fputs(what, st->err);
	/* one message, one line: a newline inside the command would start
	 * a line that looks like a message of its own (the programs' error
	 * stream escapes every other control byte, and keeps newlines, which
	 * end messages) */
	for (i = 0; i < n; i++) {
		if (st->buf.s[i] == '\n' && i + 1 < n)
			fputs("\\x0a", st->err);
		else
			putc(st->buf.s[i], st->err);
	}
	if (n == 0 || st->buf.s[n - 1] != '\n')
		putc('\n', st->err);
}

/* A message cut at the cap: the output so far first, as the two streams
 * may be one file. */
static void
report_cut(text_state *st, const dtc_event *ev, const dtc_format *fmt,
    const dtc_error *err)
{
	errsync(st);
	dtc_emit_cut(&st->opts, &st->cuts, ev, fmt, err);
}

static int
record(const dtc_event *ev, void *arg)
{
	text_state *st = arg;
	const dtc_reader *r = ev->reader;
	const dtc_value *v = ev->value;
	const char *msg;
	dtc_error err;
	size_t i;
	int rc;

	st->ev = ev;
	if (st->cap_abort)
		return DTC_EMIT_ABORT;
	if (v == NULL)
		return 0;
	switch (v->kind) {
	case DTC_V_INT:
	case DTC_V_BYTES:
	case DTC_V_OTHER:
		/* the legacy printer called directly: inlined, where most
		 * records are integers */
		if (st->rules == &rules_legacy)
			trace_legacy(st, ev, v);
		else
			st->rules->trace(st, ev, v);
		break;
	case DTC_V_MEMORY:
		print_bytes(st, r, v->data, v->size, -33, ev->quiet, 1);
		break;
	case DTC_V_PRINTM:
		print_bytes(st, r, v->data, v->size, 50, ev->quiet, 1);
		break;
	case DTC_V_STACK:
		if (print_stack(st, r, v) != 0)
			return abort_capture(st, "processing aborted",
			    MSG_BADSTACKPC);
		break;
	case DTC_V_USTACK:
		print_ustack(st, r, v);
		break;
	case DTC_V_SYM:
	case DTC_V_MOD:
	case DTC_V_USYM:
	case DTC_V_UMOD:
	case DTC_V_UADDR:
		print_symbolic(st, r, v);
		break;
	case DTC_V_PRINTF:
		/* dtc_buf_reset without the call: the renderer writes from
		 * len and terminates what it writes */
		st->buf.len = 0;
		if (st->perr.code != DTC_E_NONE)
			dtc_error_clear(&st->perr);
		rc = dtc_reader_printf_render(r, v, &st->buf, &st->perr);
		if (rc != DTC_OK && rc != DTC_WARN)
			return abort_capture(st, "processing aborted",
			    errmsg(&st->perr));
		if (v->action == DTC_ACT_SYSTEM || v->action == DTC_ACT_FREOPEN)
			notice_request(st, v);
		else
			oput(st, st->buf.s, st->buf.len);
		/* cut at the cap: what is there went out, then this says so */
		if (rc == DTC_WARN)
			report_cut(st, ev, v->fmt, &st->perr);
		break;
	case DTC_V_PRINTA:
		if (v->agg == NULL)
			break;
		if (v->agg->fmt == NULL) {
			oc(st, '\n');
			if ((msg = print_rows(st, r, v->agg)) != NULL)
				return abort_capture(st, "processing aborted",
				    msg);
			break;
		}
		for (i = 0; i < v->agg->nrows; i++) {
			dtc_buf_reset(&st->buf);
			dtc_error_clear(&err);
			rc = dtc_reader_printa_render(r, v->agg, &v->agg->rows[i],
			    &st->buf, &err);
			if (rc != DTC_OK && rc != DTC_WARN)
				return abort_capture(st, "processing aborted",
				    errmsg(&err));
			oput(st, st->buf.s, st->buf.len);
			if (rc == DTC_WARN)
				report_cut(st, ev, v->agg->fmt, &err);
		}
		break;
	case DTC_V_TYPED:
		dtc_buf_reset(&st->buf);
		memset(&err, 0, sizeof(err));
		rc = dtc_reader_typed_render(r, v, &st->buf, &err);
		if (rc == DTC_OK || rc == DTC_WARN) {
			oput(st, st->buf.s, st->buf.len);
			/* cut at the cap, as a printf message is */
			if (rc == DTC_WARN) {
				errsync(st);
				dtc_emit_cut(&st->opts, &st->cuts, ev, v->rd,
				    &err);
			}
		} else {
			/* a type that cannot be shown: its bytes, as
			 * libdtrace shows a record it has no type for */
			dtc_value raw = *v;

			raw.kind = DTC_V_OTHER;
			st->rules->trace(st, ev, &raw);
		}
		break;
	case DTC_V_EXIT:
	case DTC_V_NONE:
	default:
		break;
	}
	if (st->tty)
		oflush(st);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The other events                                                    */
/* ------------------------------------------------------------------ */

static int
begin(const dtc_event *ev, void *arg)
{
	text_state *st = arg;

	st->heading = 0;
	st->endnl = 0;
	st->cap_abort = 0;
	st->cuts.n = 0;
	st->cap_reader = NULL;  /* a new reader may sit where an old one was */
	st->rules = ev->header != NULL && ev->header->v2 ? &rules_v2 :
	    &rules_legacy;
	memset(st->pl, 0, sizeof(st->pl));
	pccache_reset(&st->ft, ev);
	return 0;
}

static void
flow_name(text_state *st, const dtc_event *ev, const char *prov,
    const char *func, const char *name)
{
	size_t n = (size_t)(ev->indent > 0 ? ev->indent : 0);
	const char *prefix;
	int syscall = strcmp(prov, "syscall") == 0;

	switch (ev->flow) {
	case DTC_FLOW_ENTRY:
		prefix = syscall ? " => " : " -> ";
		break;
	case DTC_FLOW_RETURN:
		prefix = syscall ? " <= " : " <- ";
		break;
	default:
		prefix = "| ";
		break;
	}
	ospaces(st, n);
	os(st, prefix);
	n += strlen(prefix);
	os(st, func);
	n += strlen(func);
	if (ev->flow != DTC_FLOW_ENTRY && ev->flow != DTC_FLOW_RETURN) {
		oc(st, ':');
		os(st, name);
		n += 1 + strlen(name);
	}
	if (n < 41)
		ospaces(st, 41 - n);
	oc(st, ' ');
}

/* The probe line after the CPU column: "%6d %32s " of id and func:name
 * (only the second without the ID column in testing mode). */
static void
probe_name(text_state *st, const dtc_probedesc *pd, long long id,
    const char *func, const char *name)
{
	struct pline *p = pd != NULL ?
	    &st->pl[(unsigned long long)id & (PLINE_SLOTS - 1)] : NULL;
	size_t lf, ln, start;

	if (p != NULL && p->pd == pd) {
		oput(st, p->s, p->len);
		return;
	}
	lf = strlen(func);
	ln = strlen(name);
	/* room for the whole text, so that it is built without a flush */
	if (p != NULL && lf + ln + 48 <= PLINE_MAX &&
	    OBUF_SIZE - st->olen < PLINE_MAX)
		oflush(st);
	start = st->olen;
	if (!st->testing) {
		olld(st, id, 6);
		oc(st, ' ');
	}
	if (lf + 1 + ln < 32)
		ospaces(st, 32 - (lf + 1 + ln));
	oput(st, func, lf);
	oc(st, ':');
	oput(st, name, ln);
	oc(st, ' ');
	if (p != NULL && lf + ln + 48 <= PLINE_MAX && st->olen > start &&
	    st->olen - start <= PLINE_MAX) {
		p->len = st->olen - start;
		memcpy(p->s, st->ob + start, p->len);
		p->pd = pd;
	}
}

static int
probe(const dtc_event *ev, void *arg)
{
	text_state *st = arg;
	const dtc_probedesc *pd = ev->probe;
	const char *prov = "", *func = "", *name = "";
	long long id = ev->ep != NULL ? (long long)ev->ep->probeid : 0;

	if (st->cap_abort)
		return DTC_EMIT_ABORT;
	pccache_sync(&st->ft, ev);
	if (pd == NULL && ev->ep != NULL)
		pd = ev->ep->probe;
	if (pd != NULL) {
		prov = pd->provider != NULL ? pd->provider : "";
		func = pd->function != NULL ? pd->function : "";
		name = pd->name != NULL ? pd->name : "";
		id = pd->id;
	}
	if (!st->heading) {
		st->heading = 1;
		if (ev->flowindent) {
			if (!st->testing)
				os(st, "CPU ");
			ostrw(st, "FUNCTION", 8, -41);
			oc(st, '\n');
		} else if (!ev->quiet) {
			if (!st->testing)
				os(st, "CPU     ID ");
			ostrw(st, "FUNCTION:NAME", 13, 32);
			oc(st, '\n');
		}
	}
	if (ev->flowindent) {
		if (!st->testing) {
			olld(st, ev->cpu, 3);
			oc(st, ' ');
		}
		flow_name(st, ev, prov, func, name);
	} else if (!ev->quiet) {
		if (!st->testing) {
			olld(st, ev->cpu, 3);
			oc(st, ' ');
		}
		probe_name(st, pd, id, func, name);
	}
	return 0;
}

static int
probe_end(const dtc_event *ev, void *arg)
{
	text_state *st = arg;

	if (st->cap_abort)
		return DTC_EMIT_ABORT;
	if (!ev->quiet)
		oc(st, '\n');
	if (st->tty)
		oflush(st);
	return 0;
}

/* dtrace(1) prints "\n" when the run ends, before the aggregations. */
static void
end_newline(text_state *st)
{
	if (!st->endnl) {
		st->endnl = 1;
		oc(st, '\n');
	}
}

static int
agg(const dtc_event *ev, void *arg)
{
	text_state *st = arg;
	const char *msg;

	st->ev = ev;
	if (st->cap_abort)
		return DTC_EMIT_ABORT;
	pccache_reset(&st->ft, ev);
	end_newline(st);
	if (ev->agg != NULL && (msg = print_rows(st, ev->reader, ev->agg)) !=
	    NULL)
		return abort_capture(st, "failed to print aggregations", msg);
	if (st->tty)
		oflush(st);
	return 0;
}

static int
drop(const dtc_event *ev, void *arg)
{
	if (((text_state *)arg)->cap_abort)
		return DTC_EMIT_ABORT;
	errline(arg, "dtrace: ", ev->message);
	return 0;
}

static int
error(const dtc_event *ev, void *arg)
{
	if (((text_state *)arg)->cap_abort)
		return DTC_EMIT_ABORT;
	errline(arg, "dtrace: ", ev->message);
	return 0;
}

static int
notice(const dtc_event *ev, void *arg)
{
	if (((text_state *)arg)->cap_abort)
		return DTC_EMIT_ABORT;
	switch (ev->notice) {
	case DTC_NOTICE_SYSTEM:
	case DTC_NOTICE_FREOPEN:
		/* reported with the record itself */
		return 0;
	case DTC_NOTICE_LIBERR:
		/* libdtrace's own text (setopt failures) */
		errline(arg, "dtrace: ", ev->message);
		return 0;
	case DTC_NOTICE_INTERRUPT:
		/* dtrace(1)'s newline after ^C, on its output */
		oc(arg, '\n');
		return 0;
	default:
		errline(arg, "dtconsume: ", ev->message);
		return 0;
	}
}

static int
end(const dtc_event *ev, void *arg)
{
	text_state *st = arg;

	if (!st->cap_abort)
		end_newline(st);
	oflush(st);
	if (fflush(st->out) != 0)
		st->werr = 1;
	return st->cap_abort ? DTC_EMIT_ABORT : 0;
}

static void *
text_create(const dtc_emitter_opts *o)
{
	text_state *st;

	if (o == NULL || o->out == NULL || (st = calloc(1, sizeof(*st))) == NULL)
		return NULL;
	if ((st->ob = malloc(OBUF_SIZE)) == NULL) {
		free(st);
		return NULL;
	}
	st->out = o->out;
	st->err = o->err != NULL ? o->err : stderr;
	st->opts = *o;
	dtc_error_clear(&st->perr);
	st->opts.err = st->err;
	st->testing = o->testing;
	st->rules = &rules_legacy;
	st->tty = isatty(fileno(o->out)) || __flbf(o->out);
	dtc_buf_init(&st->buf);
	dtc_buf_init(&st->sym);
	pccache_init(&st->ft, FTEXT_BITS, FTEXT_ENTRY);
	return st;
}

static int
text_destroy(void *state)
{
	text_state *st = state;
	int rv;

	if (st == NULL)
		return 0;
	oflush(st);
	if (fflush(st->out) != 0 || ferror(st->out))
		st->werr = 1;
	rv = st->werr ? -1 : 0;
	dtc_buf_free(&st->buf);
	dtc_buf_free(&st->sym);
	pccache_free(&st->ft);
	free(st->ob);
	free(st);
	return rv;
}

const dtc_emitter dtc_fmt_text = {
	.name = "text",
	.description = "what dtrace(1) prints, byte for byte",
	.create = text_create,
	.destroy = text_destroy,
	.handler = {
		.begin = begin,
		.probe = probe,
		.record = record,
		.probe_end = probe_end,
		.agg = agg,
		.drop = drop,
		.error = error,
		.notice = notice,
		.end = end,
	},
};
