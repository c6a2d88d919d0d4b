/*
 * printf.c - the printf engine, and how libdtrace prints aggregation values.
 *
 * printf(), printa() with a format, system() and freopen() all go through
 * libdtrace's dt_printf_format (dt_printf.c).  A capture holds their
 * formats in the "pickled" form the D compiler wrote into the DOF (facts
 * errata O1), and the consumer re-parses that text with dt_printf_create
 * semantics.  Everything here follows that consumer path, because that is
 * what decides the output: the printer is chosen from the pickled
 * conversion name alone (errata E1/E2), never from D types.
 *
 * A format is compiled once per format id (the metadata loader calls
 * dtcp_format_compile) into a list of pieces: prefix text, flags, width,
 * precision, conversion and printer.  Rendering walks the pieces, builds
 * each libc format on the stack and writes into the caller's dtc_buf; it
 * neither parses nor allocates (beyond growing that buffer).
 *
 * Strings (%s %S %a %A %k %T %Y ...) are padded here rather than by the
 * host's snprintf: the legacy libcs (FreeBSD, illumos) pad a string with
 * '0' under the 0 flag where glibc pads with blanks, and doing it here also
 * avoids copying records that have no NUL into a temporary string.
 *
 * The same file holds the value rules of default printa: stddev (128-bit),
 * avg, the normalization quirks and the histogram blocks, exported for the
 * text emitter as dtc_capture_hist_render() and the dtc_aggval_* helpers.
 *
 * The message cap (option maxmsgsize, DTC_MAXMSGSIZE_DEFAULT: 4 MiB).
 * Widths and precisions come from the capture, in the format text or in
 * a record: printf("%1000000d") is 1 MB of output for 4 bytes of record,
 * and 3,000 such conversions in one format were a 3 GB message built in
 * memory before a byte of it was written.  dtrace formats straight into
 * its FILE, so its memory stays small whatever the width; here a message
 * is built whole in the caller's dtc_buf (the structured outputs need it
 * as one string), so its size must be bounded.  One message may have
 * at most maxmsgsize bytes: the writers below take a limit (pfspec.lim,
 * one byte past the cap) and write no further, libc is given widths and
 * precisions that keep the bytes before the limit exactly what the
 * real ones give (libc_spec), and render() stops at the first piece that
 * reaches the limit.  The message is then cut to its first maxmsgsize
 * bytes, a prefix of dtrace's, byte for byte, and the call returns
 * DTC_WARN with err saying so: the caller prints what there is and says
 * that it was cut.  Cutting, rather than dropping the message, keeps the
 * output a prefix of dtrace's, so what comes before the cut is still
 * exact.  Below the cap, and with maxmsgsize=0 (no cap), widths and
 * precisions are libdtrace's ints, and the output is dtrace's.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#define OS_ANY		0
#define OS_ILLUMOS	1
#define OS_FREEBSD	2

struct pfconv {
	const char *name;	/* as written after the flags */
	const char *ofmt;	/* the table's output conversion */
	uint8_t print;
	uint8_t os;
};

/*
 * _dtrace_conversions of illumos and FreeBSD side by side: %i is signed
 * only on FreeBSD, %I and %P exist only there, and %wc/%ws are printed as
 * wide characters on both (FreeBSD's table says lc/ls; glibc has no w).
 */
static const struct pfconv conversions[] = {
	{ "a", "s", PR_ADDR, OS_ANY },
	{ "A", "s", PR_UADDR, OS_ANY },
	{ "c", "c", PR_SINT, OS_ANY },
	{ "C", "s", PR_ECHR, OS_ANY },
	{ "d", "d", PR_DINT, OS_ANY },
	{ "e", "e", PR_FP, OS_ANY },
	{ "E", "E", PR_FP, OS_ANY },
	{ "f", "f", PR_FP, OS_ANY },
	{ "g", "g", PR_FP, OS_ANY },
	{ "G", "G", PR_FP, OS_ANY },
	{ "hd", "d", PR_SINT, OS_ANY },
	{ "hi", "i", PR_SINT, OS_ANY },
	{ "ho", "o", PR_UINT, OS_ANY },
	{ "hu", "u", PR_UINT, OS_ANY },
	{ "hx", "x", PR_UINT, OS_ANY },
	{ "hX", "X", PR_UINT, OS_ANY },
	{ "i", "i", PR_DINT, OS_ILLUMOS },
	{ "i", "i", PR_SINT, OS_FREEBSD },
	{ "I", "s", PR_INET, OS_FREEBSD },
	{ "k", "s", PR_STACK, OS_ANY },
	{ "lc", "lc", PR_SINT, OS_ANY },
	{ "ld", "d", PR_SINT, OS_ANY },
	{ "li", "i", PR_SINT, OS_ANY },
	{ "lo", "o", PR_UINT, OS_ANY },
	{ "lu", "u", PR_UINT, OS_ANY },
	{ "ls", "ls", PR_WSTR, OS_ANY },
	{ "lx", "x", PR_UINT, OS_ANY },
	{ "lX", "X", PR_UINT, OS_ANY },
	{ "lld", "d", PR_SINT, OS_ANY },
	{ "lli", "i", PR_SINT, OS_ANY },
	{ "llo", "o", PR_UINT, OS_ANY },
	{ "llu", "u", PR_UINT, OS_ANY },
	{ "llx", "x", PR_UINT, OS_ANY },
	{ "llX", "X", PR_UINT, OS_ANY },
	{ "Le", "e", PR_FP, OS_ANY },
	{ "LE", "E", PR_FP, OS_ANY },
	{ "Lf", "f", PR_FP, OS_ANY },
	{ "Lg", "g", PR_FP, OS_ANY },
	{ "LG", "G", PR_FP, OS_ANY },
	{ "o", "o", PR_UINT, OS_ANY },
	{ "p", "x", PR_UINT, OS_ANY },
	{ "P", "s", PR_PORT, OS_FREEBSD },
	{ "s", "s", PR_CSTR, OS_ANY },
	{ "S", "s", PR_ESTR, OS_ANY },
	{ "T", "s", PR_TIME822, OS_ANY },
	{ "u", "u", PR_UINT, OS_ANY },
	{ "wc", "wc", PR_SINT, OS_ANY },
	{ "ws", "ws", PR_WSTR, OS_ANY },
	{ "x", "x", PR_UINT, OS_ANY },
	{ "X", "X", PR_UINT, OS_ANY },
	{ "Y", "s", PR_TIME, OS_ANY },
	{ "%", "%", PR_PCT, OS_ANY },
};

/* One piece of a compiled format: prefix text, then maybe a conversion. */
struct pfpiece {
	uint32_t prefix, preflen;	/* text before the conversion, in str */
	uint32_t flags;			/* PF_* */
	int32_t width, prec;		/* from the text; 0 = none */
	uint8_t print;			/* enum printer; PR_NONE: text only */
	uint8_t argtype;		/* enum argtype */
	char conv[4];			/* libc conversion (numbers) */
	char name[8];			/* the D conversion name */
};

struct dtc_format {
	char *str;			/* the format, NUL-terminated */
	uint32_t len;
	uint32_t npieces;
	uint32_t nrecs;			/* records a printf consumes */
	int illumos;
	struct pfpiece pieces[];	/* str follows the pieces */
};

/* ------------------------------------------------------------------ */
/* Compiling a format (dt_printf_create + dtrace_printf_create)        */
/* ------------------------------------------------------------------ */

/*
 * dtrace-utils' table is FreeBSD's without %I and %P, and its %d takes
 * the sign of the argument's D type (pfcheck_dint sets the SIGNED flag on
 * the live descriptor and turns an unsigned one into %u, which is what a
 * v2 capture's format string says): a signed narrow value sign-extends.
 */
static const struct pfconv v2_d = { "d", "d", PR_SINT, OS_ANY };

static const struct pfconv *
conv_lookup(const char *name, int illumos)
{
	size_t i;

	if (illumos == DTCP_PRINTF_V2) {
		if (strcmp(name, "d") == 0)
			return &v2_d;
		if (strcmp(name, "I") == 0 || strcmp(name, "P") == 0)
			return NULL;
		illumos = 0;
	}

	for (i = 0; i < sizeof(conversions) / sizeof(conversions[0]); i++) {
		const struct pfconv *c = &conversions[i];

		if (c->os == OS_ILLUMOS && !illumos)
			continue;
		if (c->os == OS_FREEBSD && illumos)
			continue;
		if (strcmp(c->name, name) == 0)
			return c;
	}
	return NULL;
}

/*
 * The libc conversion and C argument type of an integer or float printer.
 * dtrace_printf_create passes the D name itself to libc when the table's
 * output format is not "s", so a pickled "%lld" stays "lld".  Three names
 * are not glibc's: %p (pickled formats never hold it: the compiler writes
 * %x or %llx; given raw, print that), %wc and %ws (illumos libc's spelling
 * of %lc and %ls).
 */
static void
conv_ctype(struct pfpiece *p, const struct pfconv *c)
{
	const char *n = c->name;

	p->argtype = AT_NONE;
	if (c->print == PR_SINT || c->print == PR_UINT ||
	    c->print == PR_DINT) {
		if (strcmp(n, "c") == 0) {
			p->argtype = AT_CHAR;
			strcpy(p->conv, "c");
		} else if (strcmp(n, "lc") == 0 || strcmp(n, "wc") == 0) {
			p->argtype = AT_WCHAR;
			strcpy(p->conv, "c");
		} else if (strcmp(n, "p") == 0) {
			p->argtype = AT_PTR;
			strcpy(p->conv, "x");
		} else {
			if (n[0] == 'l' && n[1] == 'l')
				p->argtype = AT_LLONG;
			else if (n[0] == 'l')
				p->argtype = AT_LONG;
			else
				p->argtype = AT_INT;
			snprintf(p->conv, sizeof(p->conv), "%s", n);
		}
	} else if (c->print == PR_FP) {
		p->argtype = n[0] == 'L' ? AT_LDBL : AT_DBL;
		snprintf(p->conv, sizeof(p->conv), "%s", n);
	} else {
		strcpy(p->conv, "s");
	}
}

static int
parse_fail(dtc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
parse_fail(dtc_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, DTC_E_BADFORMAT, NULL, -1, -1, -1, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * One conversion, with s[*pp] its '%': flags, width, precision and name,
 * in any order until the name, as dt_printf_create takes them.  On return
 * *pp is at the conversion's last character.
 */
static int
parse_conv(const char *s, size_t len, size_t *pp, uint32_t argc,
    struct pfpiece *pd, char name[8], dtc_error *err)
{
	size_t p = *pp;
	unsigned namelen = 0;
	int digits = 0, dot = 0;
	char c;

	for (;;) {
		c = ++p < len ? s[p] : '\0';
		if (c >= '0' && c <= '9') {
			long n;

			/* a 0 before any digit is the flag, and cancels -
			 * (as - cancels it) */
			if (dot == 0 && digits == 0 && c == '0') {
				pd->flags |= PF_ZPAD;
				pd->flags &= ~PF_LEFT;
				continue;
			}
			/* saturating at PF_MAXWIDTH, without overflow */
			for (n = 0; p < len && s[p] >= '0' && s[p] <= '9'; p++)
				n = n <= (PF_MAXWIDTH - 9) / 10 ?
				    n * 10 + (s[p] - '0') : PF_MAXWIDTH;
			if (dot)
				pd->prec = (int32_t)n;
			else
				pd->width = (int32_t)n;
			p--;
			digits++;
			continue;
		}
		switch (c) {
		case '#':
			pd->flags |= PF_ALT;
			continue;
		case '*': {
			uint32_t n = dot ? PF_DYNPREC : PF_DYNWIDTH;

			if (pd->flags & n)
				return parse_fail(err, "format conversion #%u "
				    "has more than one '*' specified for the "
				    "output %s", argc, dot ? "precision" :
				    "width");
			pd->flags |= n;
			continue;
		}
		case '+':
			pd->flags |= PF_SPOS;
			continue;
		case '-':
			pd->flags |= PF_LEFT;
			pd->flags &= ~PF_ZPAD;
			continue;
		case '.':
			if (dot++ != 0)
				return parse_fail(err, "format conversion #%u "
				    "has more than one '.' specified", argc);
			digits = 0;
			continue;
		case '?':
			/*
			 * The pointer width of the traced kernel.  Pickled
			 * formats have it resolved already (errata O1); a raw
			 * one is taken as LP64.
			 */
			pd->width = 16;
			continue;
		case '@':
			pd->flags |= PF_AGG;
			continue;
		case '\'':
			pd->flags |= PF_GROUP;
			continue;
		case ' ':
			pd->flags |= PF_SPACE;
			continue;
		case '$':
			return parse_fail(err, "format conversion #%u uses "
			    "unsupported positional format (%%n$)", argc);
		case '%':
			if (s[p - 1] == '%')
				break;
			return parse_fail(err, "format conversion #%u cannot "
			    "be combined with other format flags: %%%%", argc);
		case '\0':
			return parse_fail(err, "format conversion #%u name "
			    "expected before end of format string", argc);
		case 'h':
		case 'l':
		case 'L':
		case 'w':
			/* extra length letters are dropped, as in libdtrace's
			 * 8-byte name buffer */
			if (namelen < 8 - 2)
				name[namelen++] = c;
			continue;
		default:
			break;
		}
		break;
	}
	name[namelen++] = c;
	name[namelen] = '\0';
	*pp = p;
	return 0;
}

dtc_format *
dtcp_format_compile(const char *s, size_t len, int illumos, dtc_error *err)
{
	dtc_format *f;
	size_t npct = 0, i, q, p = 0, max;
	uint32_t argc = 0, nrecs = 0;

	/* dt_printf_create works on a C string: stop at a NUL */
	len = strnlen(s, len);
	if (len > UINT32_MAX / 2) {
		dtcp_error_set(err, DTC_E_LIMIT, NULL, -1, -1, -1,
		    "format string of %zu bytes is too long", len);
		return NULL;
	}
	for (i = 0; i < len; i++)
		npct += s[i] == '%';
	max = npct + 1;
	f = calloc(1, sizeof(*f) + max * sizeof(struct pfpiece) + len + 1);
	if (f == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1, NULL);
		return NULL;
	}
	f->str = (char *)&f->pieces[max];
	memcpy(f->str, s, len);
	f->str[len] = '\0';
	f->len = (uint32_t)len;
	f->illumos = illumos == 1;
	s = f->str;

	for (q = 0; q < len; q = p + 1) {
		const char *pct = memchr(s + q, '%', len - q);
		const struct pfconv *conv;
		struct pfpiece *pd;
		char name[8];

		if (pct == NULL)
			break;
		p = (size_t)(pct - s);
		pd = &f->pieces[f->npieces++];
		argc++;
		pd->prefix = (uint32_t)q;
		pd->preflen = (uint32_t)(p - q);
		if (parse_conv(s, len, &p, argc, pd, name, err) != 0) {
			free(f);
			return NULL;
		}
		if ((conv = conv_lookup(name, illumos)) == NULL) {
			parse_fail(err, "format conversion #%u is undefined: "
			    "%%%s", argc, name);
			free(f);
			return NULL;
		}
		pd->print = conv->print;
		memcpy(pd->name, name, sizeof(pd->name));
		conv_ctype(pd, conv);
		if (conv->print != PR_PCT) {
			nrecs += (pd->flags & PF_DYNWIDTH) != 0;
			nrecs += (pd->flags & PF_DYNPREC) != 0;
			nrecs += (pd->flags & PF_AGG) == 0;
		}
	}

	/* trailing text, or the single empty piece of an empty format */
	if (q < len || len == 0) {
		struct pfpiece *pd = &f->pieces[f->npieces++];

		pd->prefix = (uint32_t)q;
		pd->preflen = (uint32_t)(len - q);
	}

	/*
	 * dt_printf_format returns the records it used, and the consumer
	 * steps over at least one (a format without conversions uses the
	 * placeholder record the compiler emits).
	 */
	f->nrecs = nrecs ? nrecs : 1;
	return f;
}

void
dtcp_format_free(dtc_format *f)
{
	free(f);
}

uint32_t
dtcp_format_nrecs(const dtc_format *f)
{
	return f != NULL ? f->nrecs : 1;
}

const char *
dtc_format_string(const dtc_format *f)
{
	return f != NULL ? f->str : NULL;
}

/* ------------------------------------------------------------------ */
/* Output helpers                                                      */
/* ------------------------------------------------------------------ */

/* The effective flags of one conversion, once dynamic values are in. */
struct pfspec {
	uint32_t flags;
	int left;	/* '-', or a negative width */
	int width;	/* absolute; 0 = none */
	int prec;	/* > 0, or 0 = none (an explicit .0 is dropped) */
	size_t lim;	/* out->len the writers stop at: one byte past the
			 * message cap (render() then knows the message is
			 * over it), SIZE_MAX without a cap */
};

static int
nomem(dtc_error *err)
{
	dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1, NULL);
	return DTC_FAILED;
}

static int
mismatch(dtc_error *err)
{
	dtcp_error_set(err, DTC_E_DMISMATCH, NULL, -1, -1, -1,
	    "data record list does not match statement");
	return DTC_FAILED;
}

static int
append(dtc_buf *out, const void *p, size_t n)
{
	return n == 0 ? 0 : dtc_buf_append(out, p, n);
}

/* Bytes out may still take before lim. */
static size_t
room_to(const dtc_buf *out, size_t lim)
{
	return out->len < lim ? lim - out->len : 0;
}

/* append, of which no byte goes past lim */
static int
append_lim(dtc_buf *out, const void *p, size_t n, size_t lim)
{
	size_t r = room_to(out, lim);

	return append(out, p, n < r ? n : r);
}

/* n bytes c, of which none goes past lim */
static int
append_fill(dtc_buf *out, char c, size_t n, size_t lim)
{
	char chunk[64];
	size_t r = room_to(out, lim);

	if (n > r)
		n = r;
	memset(chunk, c, sizeof(chunk));
	while (n > 0) {
		size_t k = n < sizeof(chunk) ? n : sizeof(chunk);

		if (dtc_buf_append(out, chunk, k) != 0)
			return -1;
		n -= k;
	}
	return 0;
}

/* out->len cut back to len, still terminated */
static void
cut_to(dtc_buf *out, size_t len)
{
	if (out->len > len) {
		out->len = len;
		out->s[len] = '\0';
	}
}

/*
 * Apply %<flags><width>.<prec>s to a text of n bytes appended at
 * out->s[start..]: the precision cuts it, the width pads it.  The legacy
 * libcs pad with '0' under the 0 flag even for strings (glibc would not).
 * Nothing goes past sp->lim: out may hold fewer than n bytes of the text
 * (the writer stopped at the limit), and of the padded text only what
 * lies before the limit is made (padding first, when it is on the left);
 * the padding is the whole text's, n, not that of the bytes there are.
 */
static int
pad_to(dtc_buf *out, size_t start, size_t n, const struct pfspec *sp)
{
	size_t have = out->len - start, w, keep, avail;
	char pad = (sp->flags & PF_ZPAD) ? '0' : ' ';

	if (sp->prec > 0 && n > (size_t)sp->prec) {
		n = (size_t)sp->prec;
		if (have > n) {
			cut_to(out, start + n);
			have = n;
		}
	}
	if (sp->width <= 0 || n >= (size_t)sp->width)
		return 0;
	w = (size_t)sp->width - n;
	if (sp->left)
		return append_fill(out, ' ', w, sp->lim);
	avail = sp->lim > start ? sp->lim - start : 0;
	if (w >= avail) {
		/* only padding before the limit */
		cut_to(out, start);
		return append_fill(out, pad, avail, SIZE_MAX);
	}
	keep = have < avail - w ? have : avail - w;
	cut_to(out, start + keep);
	if (append_fill(out, ' ', w, SIZE_MAX) != 0)
		return -1;
	memmove(out->s + start + w, out->s + start, keep);
	memset(out->s + start, pad, w);
	return 0;
}

/* pad_to of the text from start, whole in out */
static int
pad_text(dtc_buf *out, size_t start, const struct pfspec *sp)
{
	return pad_to(out, start, out->len - start, sp);
}

/* "%" + flags in dt_printf_format's fixed order + width + .prec + conv */
static void
build_fmt(char *buf, size_t len, const struct pfspec *sp, const char *conv)
{
	char *f = buf;

	*f++ = '%';
	if (sp->flags & PF_ALT)
		*f++ = '#';
	if (sp->flags & PF_ZPAD)
		*f++ = '0';
	if (sp->left)
		*f++ = '-';
	if (sp->flags & PF_SPOS)
		*f++ = '+';
	if (sp->flags & PF_GROUP)
		*f++ = '\'';
	if (sp->flags & PF_SPACE)
		*f++ = ' ';
	*f = '\0';
	if (sp->width != 0)
		f += snprintf(f, len - (size_t)(f - buf), "%d", sp->width);
	if (sp->prec > 0)
		f += snprintf(f, len - (size_t)(f - buf), ".%d", sp->prec);
	snprintf(f, len - (size_t)(f - buf), "%s", conv);
}

/*
 * %d, %i and %u with at most a width and '-' (most integers printed),
 * written directly: the digits libc's vsnprintf gives, without building
 * a format for it per value.  0 when the conversion is not one of these.
 */
static int
int_plain(dtc_buf *out, const struct pfpiece *p, const struct pfspec *sp,
    uint64_t x, int *rc)
{
	char tmp[24], *e = tmp + sizeof(tmp), *d = e;
	uint64_t u;
	size_t start = out->len;
	int neg = 0;
	char c;

	/* conv is the D name: d, ld, lld, ...; h narrows in libc: not here */
	if ((sp->flags & (PF_ALT | PF_ZPAD | PF_SPOS | PF_GROUP | PF_SPACE)) ||
	    sp->prec > 0 || p->conv[0] == 'h' ||
	    (p->argtype != AT_INT && p->argtype != AT_LONG &&
	    p->argtype != AT_LLONG))
		return 0;
	c = p->conv[strlen(p->conv) - 1];
	if (c == 'd' || c == 'i') {
		int64_t v = p->argtype == AT_INT ? (int32_t)(uint32_t)x :
		    p->argtype == AT_LONG ? (int64_t)(long)x : (int64_t)x;

		neg = v < 0;
		u = neg ? -(uint64_t)v : (uint64_t)v;
	} else if (c == 'u') {
		u = p->argtype == AT_INT ? (uint32_t)x :
		    p->argtype == AT_LONG ? (uint64_t)(unsigned long)x : x;
	} else {
		return 0;
	}
	do {
		*--d = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (neg)
		*--d = '-';
	*rc = append(out, d, (size_t)(e - d)) != 0 ||
	    pad_text(out, start, sp) != 0 ? DTC_FAILED : DTC_OK;
	return 1;
}

/*
 * The width and precision libc is given for a number under the cap, in
 * lc.  Only the bytes before sp->lim are kept of the conversion; a huge
 * width or precision is made smaller where that leaves those bytes as
 * they are, so that libc neither pads two billion blanks to throw them
 * away nor allocates a work buffer the size of the precision.
 *   room: bytes still wanted (the writer stops at sp->lim).
 *   Precision P > T (T = room + 64, more than any sign, 0x and digits
 *   need): the output has more than room bytes anyway, and its first
 *   room are padding, sign and P - digits zeros (integers); with T the
 *   zeros before the limit are the same, provided the padding is: so the
 *   width loses what the precision lost (padding = width - natural,
 *   natural = P + a constant).  Floats: digits past the exact decimal
 *   expansion are zeros (a long double's ends within 16445 places), so
 *   any T >= 16500 changes no digit, no rounding and no %g style choice
 *   (the exponent is below 4933); %g without # strips the zeros, so its
 *   natural length does not change with P and neither may the width.
 *   Width W > room + P + 8192 (more than any natural length: a long
 *   double's 4933 integer digits, sign, point, exponent): the padding
 *   alone covers the room, and so it does with that width.
 */
static void
libc_spec(struct pfspec *lc, const struct pfspec *sp, const dtc_buf *out,
    int fp, const char *conv)
{
	size_t room, t;

	*lc = *sp;
	if (sp->lim == SIZE_MAX)
		return;
	room = room_to(out, sp->lim);
	if (room > INT_MAX / 2)
		return;
	t = room + 64;
	if (fp && t < 16500)
		t = 16500;
	if ((size_t)lc->prec > t) {
		size_t d = (size_t)lc->prec - t;
		int gstrip = fp && (conv[strlen(conv) - 1] == 'g' ||
		    conv[strlen(conv) - 1] == 'G') && !(sp->flags & PF_ALT);

		lc->prec = (int)t;
		if (!gstrip)
			lc->width = (size_t)lc->width > d ?
			    (int)((size_t)lc->width - d) : 0;
	}
	t = room + (size_t)lc->prec + 8192;
	if ((size_t)lc->width > t)
		lc->width = (int)t;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/*
 * dtc_buf_printf that writes nothing past lim: the bytes of the
 * conversion that lie before it are appended, the rest only counted.
 */
static int
bprintf(dtc_buf *out, size_t lim, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
bprintf(dtc_buf *out, size_t lim, const char *fmt, ...)
{
	va_list ap;
	size_t room = room_to(out, lim), have, want;
	int n;

	/* what the buffer has already, its terminating NUL included */
	have = out->cap > out->len ? out->cap - out->len : 0;
	if (have > room + 1)
		have = room + 1;
	va_start(ap, fmt);
	n = vsnprintf(have > 0 ? out->s + out->len : NULL, have, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n < have) {
		out->len += (size_t)n;
		return 0;
	}
	want = (size_t)n < room ? (size_t)n : room;
	if (want == 0)
		return 0;
	/* grow to want more bytes, then print into exactly those */
	if (append_fill(out, ' ', want, SIZE_MAX) != 0)
		return -1;
	out->len -= want;
	va_start(ap, fmt);
	vsnprintf(out->s + out->len, want + 1, fmt, ap);
	va_end(ap);
	out->len += want;
	return 0;
}

/*
 * An integer as libc gets it from pfprint_sint/uint: x holds the value the
 * printer computed, already extended to 64 bits the way the printer's C
 * type would be (sign for sint, zero for uint).  A 64-bit value given to a
 * conversion without ll is cut to its low 32 bits, as va_arg(int) does on
 * the LP64 hosts dtrace runs on.
 */
static int
emit_int(dtc_buf *out, const struct pfpiece *p, const struct pfspec *sp0,
    uint64_t x, uint32_t size, dtc_error *err)
{
	struct pfspec lc, *sp = &lc;   /* what libc is given */
	char fmt[64];
	int n;

	if (int_plain(out, p, sp0, x, &n))
		return n == DTC_OK ? DTC_OK : nomem(err);
	libc_spec(&lc, sp0, out, 0, p->conv);
	switch (p->argtype) {
	case AT_CHAR:
	case AT_WCHAR: {
		size_t start = out->len;
		unsigned char ch;

		/*
		 * A wide character goes through wcrtomb() in the C locale,
		 * where the legacy libcs take one byte per value below 256
		 * and fail (EILSEQ) above it.
		 */
		if (p->argtype == AT_WCHAR && (uint32_t)x > 0xff) {
			dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
			    "illegal byte sequence");
			return DTC_FAILED;
		}
		ch = (unsigned char)x;
		if (append(out, &ch, 1) != 0 || pad_text(out, start, sp0) != 0)
			return nomem(err);
		return DTC_OK;
	}
	case AT_PTR:
		build_fmt(fmt, sizeof(fmt), sp, size == 8 ? "llx" : "x");
		if (size == 8)
			n = bprintf(out, sp->lim, fmt, (unsigned long long)x);
		else
			n = bprintf(out, sp->lim, fmt, (unsigned int)x);
		break;
	case AT_LLONG:
		build_fmt(fmt, sizeof(fmt), sp, p->conv);
		n = bprintf(out, sp->lim, fmt, (long long)x);
		break;
	case AT_LONG:
		build_fmt(fmt, sizeof(fmt), sp, p->conv);
		n = bprintf(out, sp->lim, fmt, (long)x);
		break;
	case AT_INT:
		build_fmt(fmt, sizeof(fmt), sp, p->conv);
		n = bprintf(out, sp->lim, fmt, (int)(uint32_t)x);
		break;
	default:
		/* avg/stddev/count under a non-integer conversion: the D
		 * compiler refuses it, libdtrace would crash */
		return mismatch(err);
	}
	return n < 0 ? nomem(err) : DTC_OK;
}

static int
emit_fp(dtc_buf *out, const struct pfpiece *p, const struct pfspec *sp,
    long double v, dtc_error *err)
{
	struct pfspec lc;
	char fmt[64];
	int n;

	libc_spec(&lc, sp, out, 1, p->conv);
	build_fmt(fmt, sizeof(fmt), &lc, p->conv);
	if (p->argtype == AT_LDBL)
		n = bprintf(out, lc.lim, fmt, v);
	else
		n = bprintf(out, lc.lim, fmt, (double)v);
	return n < 0 ? nomem(err) : DTC_OK;
}

#pragma GCC diagnostic pop

/* ------------------------------------------------------------------ */
/* Arguments                                                           */
/* ------------------------------------------------------------------ */

/* One record (or aggregation value) as a printer sees it. */
struct pfarg {
	const dtc_value *v;	/* a record; NULL for an aggregation value */
	const dtc_aggval *av;	/* a %@ value */
	const uint8_t *data;
	uint32_t size;
	int swap;
	uint64_t normal;
	uint8_t tmp[8];		/* bytes of an INT value built by hand */
};

static void
arg_from_value(struct pfarg *a, const dtc_value *v)
{
	memset(a, 0, sizeof(*a));
	a->v = v;
	a->size = v->size;
	a->data = v->data;
	a->swap = v->swapped;
	a->normal = 1;
	if (a->data == NULL && v->kind == DTC_V_INT &&
	    (v->size == 1 || v->size == 2 || v->size == 4 || v->size == 8)) {
		/* a value without its bytes: lay u out in host order */
		uint64_t u = v->u;
		uint32_t u32 = (uint32_t)u;
		uint16_t u16 = (uint16_t)u;

		switch (v->size) {
		case 1: a->tmp[0] = (uint8_t)u; break;
		case 2: memcpy(a->tmp, &u16, 2); break;
		case 4: memcpy(a->tmp, &u32, 4); break;
		default: memcpy(a->tmp, &u, 8); break;
		}
		a->data = a->tmp;
		a->swap = 0;
	}
}

static void
arg_from_aggval(struct pfarg *a, const dtcp_capture *r, const dtc_aggval *av)
{
	memset(a, 0, sizeof(*a));
	a->av = av;
	a->data = av->data;
	a->size = av->data != NULL ? av->size : 0;
	a->swap = av->swapped;
	a->normal = av->normal;
}

/* The record as an unsigned integer of its size (1, 2, 4 or 8). */
static int
arg_uint(const struct pfarg *a, uint64_t *u)
{
	switch (a->size) {
	case 1: case 2: case 4: case 8:
		break;
	default:
		return -1;
	}
	if (a->data == NULL)
		return -1;
	*u = dtcp_ldsz(a->data, a->size, a->swap);
	return 0;
}

static int64_t
sext(uint64_t u, uint32_t size)
{
	switch (size) {
	case 1: return (int8_t)u;
	case 2: return (int16_t)u;
	case 4: return (int32_t)u;
	}
	return (int64_t)u;
}

/* dt_printf_getint: a dynamic width or precision, any integer size */
static int
arg_getint(const dtc_value *v, int *ip, dtc_error *err)
{
	struct pfarg a;
	uint64_t u;
	int64_t x;

	arg_from_value(&a, v);
	if (arg_uint(&a, &u) != 0)
		return mismatch(err);
	x = sext(u, a.size);
	/* an int, as libdtrace truncates; INT_MIN as -INT_MAX, whose
	 * absolute value an int holds */
	x = (int32_t)(uint32_t)x;
	if (x > PF_MAXWIDTH)
		x = PF_MAXWIDTH;
	if (x < -PF_MAXWIDTH)
		x = -PF_MAXWIDTH;
	*ip = (int)x;
	return DTC_OK;
}

/* Divisions that cannot trap: libdtrace would die on these. */
static int32_t
sdiv32(int32_t a, int32_t b)
{
	if (b == 0)
		return a;
	if (b == -1)
		return (int32_t)(0u - (uint32_t)a);
	return a / b;
}

static int64_t
sdiv64(int64_t a, int64_t b)
{
	if (b == 0)
		return a;
	if (b == -1)
		return (int64_t)(0 - (uint64_t)a);
	return a / b;
}

static uint64_t
udiv64(uint64_t a, uint64_t b)
{
	return b == 0 ? a : a / b;
}

/* ------------------------------------------------------------------ */
/* The printers                                                        */
/* ------------------------------------------------------------------ */

/* pfprint_sint / pfprint_uint, with the normalization of %@ values */
static int
pr_int(const struct pfpiece *p, const struct pfspec *sp, const struct pfarg *a,
    int is_signed, dtc_buf *out, dtc_error *err)
{
	uint64_t u, x;

	if (arg_uint(a, &u) != 0)
		return mismatch(err);
	if (is_signed) {
		int64_t normal = (int64_t)a->normal;

		if (a->size < 8)
			x = (uint64_t)(int64_t)sdiv32((int32_t)sext(u, a->size),
			    (int32_t)normal);
		else
			x = (uint64_t)sdiv64((int64_t)u, normal);
	} else {
		if (a->size < 8) {
			uint32_t n = (uint32_t)a->normal;

			x = n == 0 ? u : (uint32_t)u / n;
		} else {
			x = udiv64(u, a->normal);
		}
	}
	return emit_int(out, p, sp, x, a->size, err);
}

/* pfprint_fp: float and double records, and long double when the host
 * has the traced kernel's 80-bit format */
static int
pr_fp(const struct pfpiece *p, const struct pfspec *sp, const struct pfarg *a,
    dtc_buf *out, dtc_error *err)
{
	long double v;

	if (a->data == NULL)
		return mismatch(err);
	switch (a->size) {
	case 4: {
		uint32_t bits = dtcp_ld32(a->data, a->swap);
		float fl;

		memcpy(&fl, &bits, 4);
		v = (double)fl / (double)a->normal;
		break;
	}
	case 8: {
		uint64_t bits = dtcp_ld64(a->data, a->swap);
		double d;

		memcpy(&d, &bits, 8);
		v = d / (double)a->normal;
		break;
	}
	case 16:
#if defined(__x86_64__) || defined(__i386__)
		if (!a->swap) {
			long double ld = 0;

			memcpy(&ld, a->data, 10);
			v = ld / (long double)a->normal;
			break;
		}
#endif
		dtcp_error_set(err, DTC_E_NOTSUP, NULL, -1, -1, -1,
		    "long double records of this capture cannot be printed "
		    "on this host");
		return DTC_FAILED;
	default:
		return mismatch(err);
	}
	return emit_fp(out, p, sp, v, err);
}

/* %s: the record's bytes up to the first NUL (pfprint_cstr copies the
 * record and terminates it at its size) */
static int
pr_cstr(const struct pfspec *sp, const struct pfarg *a, dtc_buf *out,
    dtc_error *err)
{
	size_t start = out->len, n;

	if (a->data == NULL && a->size != 0)
		return mismatch(err);
	n = a->size ? strnlen((const char *)a->data, a->size) : 0;
	if (sp->prec > 0 && n > (size_t)sp->prec)
		n = (size_t)sp->prec;
	if (append_lim(out, a->data, n, sp->lim) != 0 ||
	    pad_to(out, start, n, sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* The bytes escape() makes of s[0..n) when nothing stops it. */
static size_t
escaped_len(const uint8_t *s, size_t n)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == ' ' || (c >= '!' && c <= '~'))
			len += c == '"' || c == '\\' ? 2 : 1;
		else if (c == '\0' || c == '\a' || c == '\b' || c == '\f' ||
		    c == '\n' || c == '\r' || c == '\t' || c == '\v')
			len += 2;
		else
			len += 4;
		if (c == '\0')
			break;
	}
	return len;
}

/* strchr2esc: C escapes; stops after the first NUL, which shows as \0,
 * or at lim */
static int
escape(dtc_buf *out, const uint8_t *s, size_t n, size_t lim)
{
	size_t i;

	for (i = 0; i < n && out->len < lim; i++) {
		char e[5];
		size_t k = 2;
		unsigned char c = s[i];

		e[0] = '\\';
		switch (c) {
		case '\0': e[1] = '0'; break;
		case '\a': e[1] = 'a'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		case '\v': e[1] = 'v'; break;
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		default:
			if (c == ' ' || (c >= '!' && c <= '~')) {
				e[0] = (char)c;
				k = 1;
			} else {
				e[1] = (char)('0' + ((c >> 6) & 3));
				e[2] = (char)('0' + ((c >> 3) & 7));
				e[3] = (char)('0' + (c & 7));
				k = 4;
			}
			break;
		}
		if (dtc_buf_append(out, e, k) != 0)
			return -1;
		if (c == '\0')
			break;
	}
	return 0;
}

static int
pr_estr(const struct pfspec *sp, const struct pfarg *a, dtc_buf *out,
    dtc_error *err)
{
	size_t start = out->len;

	if (a->data == NULL && a->size != 0)
		return mismatch(err);
	if (escape(out, a->data, a->size, sp->lim) != 0 ||
	    pad_to(out, start, escaped_len(a->data, a->size), sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* %C: pfprint_echr keeps the low byte of a 1, 2 or 4-byte record */
static int
pr_echr(const struct pfspec *sp, const struct pfarg *a, dtc_buf *out,
    dtc_error *err)
{
	size_t start = out->len;
	uint64_t u;
	uint8_t c;

	if (a->size == 8 || arg_uint(a, &u) != 0)
		return mismatch(err);
	c = (uint8_t)u;
	if (escape(out, &c, 1, sp->lim) != 0 ||
	    pad_to(out, start, escaped_len(&c, 1), sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* %ls / %ws: 32-bit wide characters up to the first zero */
static int
pr_wstr(const struct pfspec *sp, const struct pfarg *a, dtc_buf *out,
    dtc_error *err)
{
	size_t start = out->len, i, k = 0;

	if (a->data == NULL && a->size != 0)
		return mismatch(err);
	/* past the limit the characters are still read: one that libc
	 * cannot convert fails the whole conversion */
	for (i = 0; i + 4 <= a->size; i += 4, k++) {
		uint32_t wc = dtcp_ld32(a->data + i, a->swap);
		unsigned char c = (unsigned char)wc;

		if (wc == 0)
			break;
		if (sp->prec > 0 && k >= (size_t)sp->prec)
			break;
		if (wc > 0xff) {
			/* nothing of it reaches the output, as vfprintf
			 * fails before writing */
			out->len = start;
			if (out->s != NULL)
				out->s[start] = '\0';
			dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
			    "illegal byte sequence");
			return DTC_FAILED;
		}
		if (append_lim(out, &c, 1, sp->lim) != 0)
			return nomem(err);
	}
	if (pad_to(out, start, k, sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* %a: dtrace_addr2str of a 4 or 8-byte record */
static int
pr_addr(const dtcp_capture *r, const struct pfspec *sp, const struct pfarg *a,
    dtc_buf *out, dtc_error *err)
{
	size_t start = out->len;
	uint64_t addr;

	if ((a->size != 4 && a->size != 8) || arg_uint(a, &addr) != 0)
		return mismatch(err);
	dtc_capture_addr_text(r, addr, 0, out);
	if (pad_text(out, start, sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* %A: a (pid, address) pair of 16 bytes, or a bare address with pid 0
 * (offline there is no $target to fall back on) */
static int
pr_uaddr(const dtcp_capture *r, const struct pfspec *sp, const struct pfarg *a,
    dtc_buf *out, dtc_error *err)
{
	size_t start = out->len;
	uint64_t pid = 0, addr;

	if (a->size == 16 && a->data != NULL) {
		pid = dtcp_ld64(a->data, a->swap);
		addr = dtcp_ld64(a->data + 8, a->swap);
	} else if ((a->size != 4 && a->size != 8) || arg_uint(a, &addr) != 0) {
		return mismatch(err);
	}
	dtc_capture_uaddr_text(r, pid, addr, 0, out);
	if (pad_text(out, start, sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* mod() and umod() records print their module text through the format */
static int
pr_mod(const dtcp_capture *r, const struct pfspec *sp, const struct pfarg *a,
    int user, dtc_buf *out, dtc_error *err)
{
	size_t start = out->len;
	uint64_t pid = 0, addr;

	if (user) {
		if (a->size < 16 || a->data == NULL)
			return mismatch(err);
		pid = dtcp_ld64(a->data, a->swap);
		addr = dtcp_ld64(a->data + 8, a->swap);
		dtc_capture_umod_text(r, pid, addr, out);
	} else {
		if (a->size < 8 || a->data == NULL)
			return mismatch(err);
		addr = dtcp_ld64(a->data, a->swap);
		dtc_capture_mod_text(r, addr, out);
	}
	if (pad_text(out, start, sp) != 0)
		return nomem(err);
	return DTC_OK;
}

static const char wdays[7][4] = {
	"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"
};
static const char months[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
	"Nov", "Dec"
};

/*
 * %Y: ctime_r() text rearranged to "YYYY Mon dd hh:mm:ss" by copying its
 * bytes 20..23 and 3..18; %T: strftime "%a, %d %b %G %T %Z" (ISO week
 * year).  Both in local time; the record is a signed hrtime in ns.
 */
static int
pr_time(const struct pfspec *sp, const struct pfarg *a, int rfc822,
    dtc_buf *out, dtc_error *err)
{
	size_t start = out->len;
	char src[40], buf[64];
	time_t sec;
	struct tm tm;
	int ok, i, k = 0;

	if (a->size < 8 || a->data == NULL)
		return mismatch(err);
	sec = (time_t)((int64_t)dtcp_ld64(a->data, a->swap) / 1000000000);
	memset(&tm, 0, sizeof(tm));
	ok = localtime_r(&sec, &tm) != NULL;
	if (rfc822) {
		if (strftime(buf, sizeof(buf), "%a, %d %b %G %T %Z", &tm) == 0)
			buf[0] = '\0';
	} else {
		/* the asctime layout ctime_r writes; zeros when it fails */
		memset(src, 0, sizeof(src));
		if (ok && tm.tm_wday >= 0 && tm.tm_wday < 7 &&
		    tm.tm_mon >= 0 && tm.tm_mon < 12)
			snprintf(src, sizeof(src),
			    "%.3s %.3s%3d %.2d:%.2d:%.2d %d\n",
			    wdays[tm.tm_wday], months[tm.tm_mon], tm.tm_mday,
			    tm.tm_hour, tm.tm_min, tm.tm_sec,
			    tm.tm_year + 1900);
		for (i = 20; i < 24; i++)
			buf[k++] = src[i];
		for (i = 3; i < 19; i++)
			buf[k++] = src[i];
		buf[k] = '\0';
	}
	if (append(out, buf, strlen(buf)) != 0 || pad_text(out, start, sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* FreeBSD %P: the decimal of the raw uint16 (errata E12) */
static int
pr_port(const struct pfspec *sp, const struct pfarg *a, dtc_buf *out,
    dtc_error *err)
{
	size_t start = out->len;

	if (a->size < 2 || a->data == NULL)
		return mismatch(err);
	if (dtc_buf_printf(out, "%d", dtcp_ld16(a->data, a->swap)) < 0 ||
	    pad_text(out, start, sp) != 0)
		return nomem(err);
	return DTC_OK;
}

/* The user-stack frame rule of dt_print_ustack, offline. */
static int
proc_known(const dtcp_capture *r, uint64_t pid)
{
	const dtcp_meta *m = r != NULL ? (&r->meta) : NULL;
	size_t i;

	if (m == NULL)
		return 0;
	for (i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return 1;
	return 0;
}

static void
uframe_text(const dtcp_capture *r, int illumos, uint64_t pid, int known,
    uint64_t pc, const char *str, size_t strn, dtc_buf *out)
{
	dtc_symbol sym;
	int found;

	memset(&sym, 0, sizeof(sym));
	found = r != NULL && dtc_capture_usym_lookup(r, pid, pc, &sym);
	if (found && sym.name != NULL) {
		dtc_capture_uaddr_text(r, pid, pc, 0, out);
		return;
	}
	/*
	 * A helper string is used where the process is not there to ask
	 * (illumos), or only for a pc in no mapping (FreeBSD needs the
	 * process); the captured maps carry no write permission, so a pc in
	 * a known mapping never takes the string.
	 */
	if (str != NULL && strn > 0 && str[0] != '@' &&
	    (illumos ? (!known || !found) : (known && !found))) {
		dtc_buf_append(out, str, strn);
		return;
	}
	if (r != NULL)
		dtc_capture_uaddr_text(r, pid, pc, 0, out);
	else
		dtc_buf_printf(out, "0x%llx", (unsigned long long)pc);
}

/*
 * %k: pfprint_stack.  The indent is 0 unless the conversion is left
 * justified: then the width (or a negative dynamic width) is the indent.
 * An explicit '-' also drops the width from each frame's format, a
 * negative dynamic width does not (errata E6).
 */
static int
pr_stack(const dtcp_capture *r, const struct pfpiece *p,
    const struct pfspec *sp0, int dynwidth, const struct pfarg *a, int illumos, dtc_buf *out,
    dtc_error *err)
{
	const dtc_value *v = a->v;
	struct pfspec sp = *sp0;
	int indent;
	uint32_t i;

	if (v == NULL || (v->kind != DTC_V_STACK && v->kind != DTC_V_USTACK))
		return mismatch(err);
	if (dynwidth < 0)
		indent = -dynwidth;
	else if (p->flags & PF_LEFT)
		indent = dynwidth ? dynwidth : p->width;
	else
		indent = 0;
	if (p->flags & PF_LEFT)
		sp.width = 0;

	if (v->kind == DTC_V_STACK) {
		if (v->pcsize != 4 && v->pcsize != 8 &&
		    (v->nframes > 0 || (v->rd != NULL && v->rd->arg != 0))) {
			dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
			    "invalid stack program counter size");
			return DTC_FAILED;
		}
		if (append(out, "\n", 1) != 0)
			return nomem(err);
		/* frame by frame, until the limit: the indent and width
		 * of each are the format's */
		for (i = 0; i < v->nframes && v->pcs != NULL &&
		    out->len < sp.lim; i++) {
			uint64_t pc = dtcp_ldsz(v->pcs + (size_t)i * v->pcsize,
			    v->pcsize, v->swapped);
			size_t start;

			if (pc == 0)
				break;
			if (append_fill(out, ' ', (size_t)indent, sp.lim) != 0)
				return nomem(err);
			start = out->len;
			dtc_capture_frame_text(r, pc, out);
			if (pad_text(out, start, &sp) != 0 ||
			    append(out, "\n", 1) != 0)
				return nomem(err);
		}
		return DTC_OK;
	} else {
		const char *str = NULL, *strend = NULL;
		int known;

		if (v->nframes == 0)
			return DTC_OK;
		if (v->strtab != NULL && v->strsize != 0) {
			str = (const char *)v->strtab;
			strend = str + v->strsize;
		}
		known = proc_known(r, v->pid);
		if (append(out, "\n", 1) != 0)
			return nomem(err);
		for (i = 0; i < v->nframes && v->pcs != NULL &&
		    out->len < sp.lim; i++) {
			uint64_t pc = dtcp_ld64(v->pcs + (size_t)i * 8,
			    v->swapped);
			size_t start, strn = 0;

			if (pc == 0)
				break;
			if (str != NULL)
				strn = strnlen(str, (size_t)(strend - str));
			if (append_fill(out, ' ', (size_t)indent, sp.lim) != 0)
				return nomem(err);
			start = out->len;
			uframe_text(r, illumos, v->pid, known, pc, str, strn,
			    out);
			if (pad_text(out, start, &sp) != 0 ||
			    append(out, "\n", 1) != 0)
				return nomem(err);
			if (str != NULL && strn > 0 && str[0] == '@') {
				if (append_fill(out, ' ', (size_t)indent,
				    sp.lim) != 0)
					return nomem(err);
				start = out->len;
				if (append(out, "  [ ", 4) != 0 ||
				    append(out, str + 1, strn - 1) != 0 ||
				    append(out, " ]", 2) != 0 ||
				    pad_text(out, start, &sp) != 0 ||
				    append(out, "\n", 1) != 0)
					return nomem(err);
			}
			if (str != NULL) {
				/* one string per frame, while any is left */
				if ((size_t)(strend - str) <= strn + 1)
					str = NULL;
				else
					str += strn + 1;
			}
		}
		return DTC_OK;
	}
}

/* ------------------------------------------------------------------ */
/* Aggregation values                                                  */
/* ------------------------------------------------------------------ */

#define QNBUCKETS	127
#define QZERO		63

typedef unsigned __int128 u128;

/* Exact floor(sqrt(x)), as dt_sqrt_128's long-hand method computes it. */
static uint64_t
isqrt128(u128 x)
{
	u128 res = 0, one = (u128)1 << 126;

	while (one > x)
		one >>= 2;
	while (one != 0) {
		if (x >= res + one) {
			x -= res + one;
			res = (res >> 1) + one;
		} else {
			res >>= 1;
		}
		one >>= 2;
	}
	return (uint64_t)res;
}

/*
 * dt_stddev: sqrt(E[x^2] - E[x]^2) with the 128-bit sum of squares divided
 * by normal twice and by the count (unsigned), the mean in signed 64-bit
 * arithmetic, and a 128-bit subtraction that wraps when it goes negative.
 */
static uint64_t
stddev_words(const uint64_t w[4], uint64_t normal)
{
	u128 sq, avgsq, sqavg;
	int64_t mean;
	uint64_t amean;

	if (w[0] == 0)
		return 0;
	if (normal == 0)
		normal = 1;
	sq = ((u128)w[3] << 64) | w[2];
	avgsq = sq / normal / normal / w[0];
	mean = sdiv64(sdiv64((int64_t)w[1], (int64_t)normal), (int64_t)w[0]);
	amean = mean < 0 ? 0 - (uint64_t)mean : (uint64_t)mean;
	sqavg = (u128)amean * amean;
	return isqrt128(avgsq - sqavg);
}

static int
load_words(const uint8_t *d, uint32_t size, int swap, uint64_t *w, int n)
{
	int i;

	if (d == NULL || size < (uint32_t)n * 8)
		return -1;
	for (i = 0; i < n; i++)
		w[i] = dtcp_ld64(d + 8 * i, swap);
	return 0;
}

static int64_t
word(const uint8_t *d, uint32_t i, int swap)
{
	return (int64_t)dtcp_ld64(d + (size_t)i * 8, swap);
}

/* The drawing options of a histogram (aggzoom, encoding=utf8). */
struct histopt {
	int zoom, utf8;
	/* dtrace-utils scans every bucket for data; legacy stops one
	 * short of the last (dt_print_quantize) */
	int qscan_all;
};

static void
hist_opts(const dtcp_capture *r, struct histopt *ho)
{
	const dtcp_options *o = r != NULL ? (&r->opts) : NULL;

	ho->zoom = o != NULL && dtcp_opt_isset(o, DTCP_OPT_AGGZOOM);
	ho->utf8 = o != NULL && strcmp(o->encoding, "utf8") == 0;
	ho->qscan_all = r != NULL &&
	    r->hdr.v2;
}

/* dt_quantize_total: the sum of |v|, or with aggzoom the largest |v|
 * scaled so that it fills 95% of the bar */
static void
qtotal(const struct histopt *ho, int64_t v, long double *total)
{
	long double x = v < 0 ? -(long double)v : (long double)v;

	if (!ho->zoom) {
		*total += x;
		return;
	}
	x *= 1 / 0.95;
	if (*total < x)
		*total = x;
}

static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
static const char spaces[] = "                                        ";

/* dt_print_quantline: the bar and the count of one row */
static int
quantline(dtc_buf *out, const struct histopt *ho, int64_t val,
    uint64_t normal, long double total, int pos, int neg)
{
	unsigned len = 40, depth;
	long double f = 0;
	long long cnt = (long long)udiv64((uint64_t)val, normal);

	if (total != 0)
		f = ((val < 0 ? -(long double)val : (long double)val) * len) /
		    total;
	if (!neg) {
		if (pos && ho->utf8) {
			unsigned whole = (unsigned)f, part, i;

			part = (unsigned)((f - (long double)(unsigned)f) * 8);
			if (append(out, "|", 1) != 0)
				return -1;
			for (i = 0; i < whole && i < len; i++)
				if (append(out, "\xe2\x96\x88", 3) != 0)
					return -1;
			if (part != 0) {
				unsigned cp = 0x258f - (part - 1);
				char u[3];

				u[0] = (char)(0xe0 | (cp >> 12));
				u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[2] = (char)(0x80 | (cp & 0x3f));
				if (append(out, u, 3) != 0)
					return -1;
				i++;
			}
			if (i > len)
				i = len;
			return dtc_buf_printf(out, "%s %-9lld\n", spaces + i,
			    cnt) < 0 ? -1 : 0;
		}
		depth = pos ? (unsigned)(f + 0.5) : 0;
		if (depth > len)
			depth = len;
		return dtc_buf_printf(out, "|%s%s %-9lld\n", ats + len - depth,
		    spaces + depth, cnt) < 0 ? -1 : 0;
	}
	if (!pos) {
		depth = (unsigned)(f + 0.5);
		if (depth > len)
			depth = len;
		return dtc_buf_printf(out, "%s%s| %-9lld\n", spaces + depth,
		    ats + len - depth, cnt) < 0 ? -1 : 0;
	}
	/* both signs: half bars either side of the axis */
	len /= 2;
	f = ((val < 0 ? -(long double)val : (long double)val) * len) / total;
	depth = (unsigned)(f + 0.5);
	if (depth > len)
		depth = len;
	if (val <= 0)
		return dtc_buf_printf(out, "%s%s|%*s %-9lld\n",
		    spaces + 20 + depth, ats + 20 + len - depth, (int)len, "",
		    cnt) < 0 ? -1 : 0;
	return dtc_buf_printf(out, "%20s|%s%s %-9lld\n", "",
	    ats + 20 + len - depth, spaces + 20 + depth, cnt) < 0 ? -1 : 0;
}

static const char quanthdr[] = "------------- Distribution -------------";

static void
hist_rows_total(const struct histopt *ho, const uint8_t *d, int swap,
    int first, int last, long double *total, int *pos, int *neg)
{
	int i;

	*total = 0;
	*pos = *neg = 0;
	for (i = first; i <= last; i++) {
		int64_t v = word(d, (uint32_t)i, swap);

		*pos |= v > 0;
		*neg |= v < 0;
		qtotal(ho, v, total);
	}
}

/* The displayed range: first non-zero - 1 .. last non-zero + 1. */
static void
hist_range(const uint8_t *d, int swap, int nb, int *first, int *last)
{
	int f = 0, l = nb - 1;

	while (f < nb && word(d, (uint32_t)f, swap) == 0)
		f++;
	if (f == nb) {
		*first = -1;
		return;
	}
	if (f > 0)
		f--;
	while (l > 0 && word(d, (uint32_t)l, swap) == 0)
		l--;
	if (l < nb - 1)
		l++;
	*first = f;
	*last = l;
}

static int64_t
qbucketval(int i)
{
	if (i < QZERO)
		return -(int64_t)((uint64_t)1 << (QZERO - 1 - i));
	if (i == QZERO)
		return 0;
	return (int64_t)((uint64_t)1 << (i - QZERO - 1));
}

/* dt_print_quantize */
static int
hist_quantize(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	int first = 0, last = QNBUCKETS - 1, i, pos, neg;
	long double total;

	if (size != QNBUCKETS * 8 || d == NULL)
		return mismatch(err);
	/*
	 * libdtrace stops its scan for the first non-zero bucket one short
	 * of the end, so data in the last bucket alone reads as "no data"
	 * and the rows around zero are printed.
	 */
	while (first < QNBUCKETS - 1 + ho->qscan_all &&
	    word(d, (uint32_t)first, swap) == 0)
		first++;
	if (first == QNBUCKETS - 1 + ho->qscan_all) {
		first = QZERO - 1;
		last = QZERO + 1;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && word(d, (uint32_t)last, swap) == 0)
			last--;
		if (last < QNBUCKETS - 1)
			last++;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	for (i = first; i <= last; i++) {
		if (dtc_buf_printf(out, "%16lld ",
		    (long long)qbucketval(i)) < 0 ||
		    quantline(out, ho, word(d, (uint32_t)i, swap), normal,
		    total,
		    pos, neg) != 0)
			return nomem(err);
	}
	return DTC_OK;
}

/* The lquantize parameters packed in word 0. */
static int
lq_params(const uint8_t *d, uint32_t size, int swap, int32_t *base,
    uint16_t *step, uint16_t *levels)
{
	uint64_t arg;

	if (d == NULL || size < 8)
		return -1;
	arg = dtcp_ld64(d, swap);
	*base = (int32_t)(uint32_t)(arg & 0xffffffffu);
	*step = (uint16_t)(arg >> 48);
	*levels = (uint16_t)(arg >> 32);
	if (size - 8 != (uint32_t)(*levels + 2) * 8)
		return -1;
	return 0;
}

/* dt_print_lquantize */
static int
hist_lquantize(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	int32_t base;
	uint16_t step, levels;
	int first, last, i, pos, neg;
	long double total;

	if (lq_params(d, size, swap, &base, &step, &levels) != 0)
		return mismatch(err);
	d += 8;
	hist_range(d, swap, levels + 2, &first, &last);
	if (first < 0) {
		first = 0;
		last = 2 < levels + 1 ? 2 : levels + 1;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	for (i = first; i <= last; i++) {
		char c[32];
		int n;

		/* int arithmetic as in libdtrace; wraps like it */
		if (i == 0) {
			snprintf(c, sizeof(c), "< %d", base);
			n = dtc_buf_printf(out, "%16s ", c);
		} else if (i == levels + 1) {
			snprintf(c, sizeof(c), ">= %d", (int32_t)(uint32_t)
			    ((int64_t)base + (int64_t)levels * step));
			n = dtc_buf_printf(out, "%16s ", c);
		} else {
			n = dtc_buf_printf(out, "%16d ", (int32_t)(uint32_t)
			    ((int64_t)base + (int64_t)(i - 1) * step));
		}
		if (n < 0 || quantline(out, ho, word(d, (uint32_t)i, swap),
		    normal, total, pos, neg) != 0)
			return nomem(err);
	}
	return DTC_OK;
}

/* The llquantize parameters packed in word 0, checked as libdtrace does. */
static int
llq_params(const uint8_t *d, uint32_t size, int swap, uint16_t *factor,
    uint16_t *low, uint16_t *high, uint16_t *nsteps)
{
	uint64_t arg;

	if (d == NULL || size < 8 || size % 8 != 0)
		return -1;
	arg = dtcp_ld64(d, swap);
	*factor = (uint16_t)(arg >> 48);
	*low = (uint16_t)(arg >> 32);
	*high = (uint16_t)(arg >> 16);
	*nsteps = (uint16_t)arg;
	if (size - 8 > INT32_MAX || *factor < 2 || *low >= *high ||
	    *nsteps == 0 || *factor > *nsteps)
		return -1;
	return 0;
}

/*
 * Walks the llquantize labels: bucket 0 is "< factor^low", then each order
 * from low to high in steps of factor^(order+1)/nsteps (at least 1), then
 * the overflow bucket.  libdtrace assumes the steps land on each power of
 * the factor; parameters for which they do not (or that overflow) would
 * loop for ever there, and are refused here.
 */
struct llqwalk {
	int64_t value, next, step;
	int order, high;
	int factor, nsteps;
};

static int
llq_start(struct llqwalk *w, uint16_t factor, uint16_t low, uint16_t high,
    uint16_t nsteps)
{
	int o;

	w->value = 1;
	for (o = 0; o < low; o++)
		if (__builtin_mul_overflow(w->value, (int64_t)factor,
		    &w->value))
			return -1;
	w->order = low;
	w->high = high;
	w->factor = factor;
	w->nsteps = nsteps;
	if (__builtin_mul_overflow(w->value, (int64_t)factor, &w->next))
		return -1;
	w->step = w->next > nsteps ? w->next / nsteps : 1;
	return 0;
}

/* Advance past one bucket; -1 when the walk cannot go on. */
static int
llq_step(struct llqwalk *w)
{
	if (__builtin_add_overflow(w->value, w->step, &w->value) ||
	    w->value > w->next)
		return -1;
	if (w->value != w->next)
		return 0;
	w->order++;
	if (w->order > w->high)
		return 0;
	if (__builtin_mul_overflow(w->value, (int64_t)w->factor, &w->next))
		return -1;
	w->step = w->next > w->nsteps ? w->next / w->nsteps : 1;
	return 0;
}

/* dt_print_llquantize */
static int
hist_llquantize(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	uint16_t factor, low, high, nsteps;
	struct llqwalk w;
	int levels, first, last, bin = 1, pos, neg;
	long double total;
	char c[32];

	if (llq_params(d, size, swap, &factor, &low, &high, &nsteps) != 0 ||
	    llq_start(&w, factor, low, high, nsteps) != 0)
		return mismatch(err);
	d += 8;
	levels = (int)((size - 8) / 8);
	if (levels == 0)
		return mismatch(err);
	hist_range(d, swap, levels, &first, &last);
	if (first < 0) {
		first = 0;
		last = levels > 1 ? 1 : 0;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	if (first == 0) {
		snprintf(c, sizeof(c), "< %lld", (long long)w.value);
		if (dtc_buf_printf(out, "%16s ", c) < 0 ||
		    quantline(out, ho, word(d, 0, swap), normal, total, pos,
		    neg) != 0)
			return nomem(err);
	}
	while (w.order <= w.high) {
		if (bin >= first && bin <= last) {
			if (dtc_buf_printf(out, "%16lld ",
			    (long long)w.value) < 0 ||
			    quantline(out, ho, word(d, (uint32_t)bin, swap),
			    normal, total, pos, neg) != 0)
				return nomem(err);
		}
		bin++;
		if (llq_step(&w) != 0)
			return mismatch(err);
	}
	if (last < bin)
		return DTC_OK;
	snprintf(c, sizeof(c), ">= %lld", (long long)w.value);
	if (dtc_buf_printf(out, "%16s ", c) < 0 ||
	    quantline(out, ho, word(d, (uint32_t)bin, swap), normal, total,
	    pos, neg) != 0)
		return nomem(err);
	return DTC_OK;
}

/*
 * DTrace v2 (dtrace-utils) llquantize.  Its value is symmetric around
 * zero: bucket 0 takes v <= -factor^(hmag+1), then the negative ranges
 * (largest magnitude first), bin0 takes abs(v) < factor^lmag, then the
 * positive ranges and the overflow bucket.  Each range has steps - sf
 * buckets, sf = steps/factor of its steps falling in the range below.
 * With lmag 0 and steps > factor, the buckets of range 0 that no integer
 * reaches ("ghost bins") have no label and are not printed.
 */
static uint64_t
upow(uint64_t f, uint32_t n)
{
	uint64_t v = 1;

	while (n-- > 0)
		v *= f;
	return v;
}

/*
 * The lower bound of positive bucket bin0 + i (1 <= i <= bin0, bin0 + bin0
 * being the overflow bucket), as dt_print_llquantize labels it: -1 for a
 * ghost bin.  Every label is exact, the compiler's divisibility rules
 * making factor^(m+1)/steps an integer wherever it is used.
 */
static int
llq2_lower(const dtcp_llq2 *p, uint32_t i, uint64_t *lo)
{
	uint32_t per = p->steps - p->sf, r = (i - 1) / per, j = (i - 1) % per;
	uint32_t m = p->lmag + r;

	if (p->lmag == 0 && p->steps > p->factor && r == 0) {
		/* range 0 counts 1, 2, .. factor-1, one label every sf */
		if (j % p->sf != 0)
			return -1;
		*lo = j / p->sf + 1;
		return 0;
	}
	if (j == 0)
		*lo = upow(p->factor, m);
	else
		*lo = (p->sf + j) * (upow(p->factor, m + 1) / p->steps);
	return 0;
}

/* The label of bucket b (dt_print_llquantize's CPRINTs); "" for none. */
static void
llq2_label(const dtcp_llq2 *p, int b, int first, char *c, size_t len)
{
	uint64_t scale = upow(p->factor, p->lmag), lo;
	uint32_t i;

	c[0] = '\0';
	if (b < 0 || (uint32_t)b >= p->nbins)
		return;
	if ((uint32_t)b == 0)
		snprintf(c, len, "<= -%llu",
		    (unsigned long long)upow(p->factor, p->hmag + 1u));
	else if ((uint32_t)b == p->nbins - 1)
		snprintf(c, len, ">= %llu",
		    (unsigned long long)upow(p->factor, p->hmag + 1u));
	else if ((uint32_t)b == p->bin0) {
		/* no data below bin0 shown: "abs()" would say nothing */
		if (scale == 1)
			snprintf(c, len, "%d", 0);
		else if (first >= (int)p->bin0)
			snprintf(c, len, "< %llu", (unsigned long long)scale);
		else
			snprintf(c, len, "abs() < %llu",
			    (unsigned long long)scale);
	} else {
		i = (uint32_t)b > p->bin0 ? (uint32_t)b - p->bin0 :
		    p->bin0 - (uint32_t)b;
		if (llq2_lower(p, i, &lo) != 0)
			return;
		snprintf(c, len, (uint32_t)b < p->bin0 ? "-%llu" : "%llu",
		    (unsigned long long)lo);
	}
}

/* dt_print_llquantize of dtrace-utils */
static int
hist_llquantize_v2(dtc_buf *out, const struct histopt *ho, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_error *err)
{
	/* dtrace-utils writes each label into 16 bytes: 15 chars at most */
	enum { CWIDTH = 16 };
	dtcp_llq2 p;
	int first, last, nb, pad = 0, i, j, pos, neg;
	long double total;
	char c[CWIDTH];

	if (d == NULL || size < 8 || size % 8 != 0 ||
	    dtcp_llq2_params(dtcp_ld64(d, swap), size / 8, &p) != 0)
		return mismatch(err);
	d += 8;
	nb = (int)p.nbins;
	/* no data: the rows around bin0 + 1, broadened as data would be */
	hist_range(d, swap, nb, &first, &last);
	if (first < 0) {
		first = (int)p.bin0;
		last = (int)p.bin0 + 2;
	}
	hist_rows_total(ho, d, swap, first, last, &total, &pos, &neg);
	if (dtc_buf_printf(out, "\n%16s %41s %-9s\n", "value", quanthdr,
	    "count") < 0)
		return nomem(err);
	if (p.lmag == 0 && p.steps > p.factor)
		pad = (int)p.sf;
	for (i = first; i <= last; i++) {
		llq2_label(&p, i, first, c, sizeof(c));
		/*
		 * A ghost bin at either end of the range borrows the label of
		 * its nearest labelled neighbour outside the range, as
		 * dtrace-utils patches its label array.
		 */
		if (c[0] == '\0' && pad > 0 && (i == first || i == last)) {
			for (j = 1; j < pad; j++) {
				llq2_label(&p, i == first ? i - j : i + j,
				    first, c, sizeof(c));
				if (c[0] != '\0')
					break;
			}
		}
		if (c[0] == '\0')
			continue;
		if (dtc_buf_printf(out, "%16s ", c) < 0 ||
		    quantline(out, ho, word(d, (uint32_t)i, swap), normal,
		    total, pos, neg) != 0)
			return nomem(err);
	}
	return DTC_OK;
}

/*
 * The two llquantize flavors differ in their parameter packing and bucket
 * layout: everything that reads an llquantize value goes through one of
 * these, chosen once per value.
 */
typedef int llq_render_f(dtc_buf *, const struct histopt *,
    const uint8_t *, uint32_t, int, uint64_t, dtc_error *);
typedef uint32_t llq_nbuckets_f(const uint8_t *, uint32_t, int);
typedef int llq_bucket_f(const uint8_t *, uint32_t, int, uint32_t,
    dtc_bucket *);

struct llqops {
	llq_render_f *render;
	llq_nbuckets_f *nbuckets;
	llq_bucket_f *bucket;
};

static llq_nbuckets_f llq_nbuckets_legacy, llq_nbuckets_v2;
static llq_bucket_f llq_bucket_legacy, llq_bucket_v2;

static const struct llqops llq_legacy = {
	hist_llquantize, llq_nbuckets_legacy, llq_bucket_legacy
};
static const struct llqops llq_v2 = {
	hist_llquantize_v2, llq_nbuckets_v2, llq_bucket_v2
};

static const struct llqops *
llq_ops(const dtcp_capture *r)
{
	return r != NULL && (&r->hdr)->v2 ? &llq_v2 : &llq_legacy;
}

static uint32_t
llq_nbuckets_legacy(const uint8_t *d, uint32_t size, int swap)
{
	uint16_t factor, low, high, nsteps;

	if (llq_params(d, size, swap, &factor, &low, &high, &nsteps) != 0)
		return 0;
	return (size - 8) / 8;
}

/* Bucket 0 is "< factor^low", then the linear steps, then the overflow. */
static int
llq_bucket_legacy(const uint8_t *d, uint32_t size, int swap, uint32_t i,
    dtc_bucket *b)
{
	uint16_t factor = 0, low = 0, high = 0, nsteps = 0;
	struct llqwalk w;
	uint32_t bin = 1;

	if (llq_params(d, size, swap, &factor, &low, &high, &nsteps) != 0 ||
	    llq_start(&w, factor, low, high, nsteps) != 0)
		return DTC_FAILED;
	b->count = word(d, i + 1, swap);
	if (i == 0) {
		b->has_min = 0;
		b->max = w.value - 1;
		return DTC_OK;
	}
	while (w.order <= w.high) {
		if (bin == i) {
			b->min = w.value;
			b->max = w.value + w.step - 1;
			return DTC_OK;
		}
		bin++;
		if (llq_step(&w) != 0)
			return DTC_FAILED;
	}
	if (bin != i)
		return DTC_FAILED;
	b->min = w.value;
	b->has_max = 0;
	return DTC_OK;
}

static uint32_t
llq_nbuckets_v2(const uint8_t *d, uint32_t size, int swap)
{
	dtcp_llq2 p;

	if (d == NULL || size < 8 || size % 8 != 0 ||
	    dtcp_llq2_params(dtcp_ld64(d, swap), size / 8, &p) != 0)
		return 0;
	return p.nbins;
}

/* A bound beyond int64 (factor^(hmag+1) may be 2^63 or more) clamps. */
static int64_t
llq2_pos(uint64_t x)
{
	return x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x;
}

static int64_t
llq2_neg(uint64_t x)
{
	return x > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)x;
}

/*
 * Bucket bin0 + k holds [lower(k), lower(next labelled) - 1]; bin0 - k is
 * its mirror image.  A ghost bin holds no integer and has no bucket
 * (DTC_FAILED), as it has no row in dtrace's text.
 */
static int
llq_bucket_v2(const uint8_t *d, uint32_t size, int swap, uint32_t i,
    dtc_bucket *b)
{
	dtcp_llq2 p;
	uint64_t lo, hi, scale;
	uint32_t k, n;

	if (d == NULL || size < 8 || size % 8 != 0 ||
	    dtcp_llq2_params(dtcp_ld64(d, swap), size / 8, &p) != 0 ||
	    i >= p.nbins)
		return DTC_FAILED;
	b->count = word(d, i + 1, swap);
	scale = upow(p.factor, p.lmag);
	if (i == p.bin0) {
		b->min = -(int64_t)(scale - 1);
		b->max = (int64_t)(scale - 1);
		return DTC_OK;
	}
	k = i > p.bin0 ? i - p.bin0 : p.bin0 - i;
	if (k == p.bin0) {
		/* the overflow buckets: abs(v) >= factor^(hmag+1) */
		lo = upow(p.factor, p.hmag + 1u);
		if (i == 0) {
			b->has_min = 0;
			b->max = llq2_neg(lo);
		} else {
			b->min = llq2_pos(lo);
			b->has_max = 0;
		}
		return DTC_OK;
	}
	if (llq2_lower(&p, k, &lo) != 0)
		return DTC_FAILED;
	for (n = k + 1; llq2_lower(&p, n, &hi) != 0; n++)
		;
	hi--;
	if (i > p.bin0) {
		b->min = llq2_pos(lo);
		b->max = llq2_pos(hi);
	} else {
		b->min = llq2_neg(hi);
		b->max = llq2_neg(lo);
	}
	return DTC_OK;
}

/*
 * The public bucket functions have no reader to ask for the flavor, so
 * they go by the parameter word: no word passes both checks, legacy
 * needing bits 32-47 < bits 16-31 (low < high) and v2 bits 16-31 <=
 * bits 32-47 (lmag <= hmag), and v2 pinning the size as well.
 */
static const struct llqops *
llq_ops_of(const dtc_aggval *v)
{
	dtcp_llq2 p;

	if (v->data != NULL && v->size >= 8 && v->size % 8 == 0 &&
	    dtcp_llq2_params(dtcp_ld64(v->data, v->swapped), v->size / 8,
	    &p) == 0)
		return &llq_v2;
	return &llq_legacy;
}

static int
hist_render(const dtcp_capture *r, uint16_t func, const uint8_t *d,
    uint32_t size, int swap, uint64_t normal, dtc_buf *out, dtc_error *err)
{
	struct histopt ho;

	hist_opts(r, &ho);
	switch (func) {
	case DTC_AGG_QUANTIZE:
		return hist_quantize(out, &ho, d, size, swap, normal, err);
	case DTC_AGG_LQUANTIZE:
		return hist_lquantize(out, &ho, d, size, swap, normal, err);
	case DTC_AGG_LLQUANTIZE:
		return llq_ops(r)->render(out, &ho, d, size, swap, normal,
		    err);
	}
	return mismatch(err);
}

int
dtc_capture_hist_render(const dtcp_capture *r, const dtc_aggval *v,
    dtc_buf *out)
{
	if (v == NULL || out == NULL)
		return DTC_FAILED;
	return hist_render(r, v->func, v->data, v->size, v->swapped,
	    v->normal, out, NULL);
}

int64_t
dtc_aggval_scalar(const dtc_aggval *v)
{
	uint64_t w[4];

	if (v == NULL)
		return 0;
	switch (v->func) {
	case DTC_AGG_COUNT:
	case DTC_AGG_SUM:
	case DTC_AGG_MIN:
	case DTC_AGG_MAX:
		/* (long long)v / normal: normal is unsigned, so is the
		 * division */
		if (load_words(v->data, v->size, v->swapped, w, 1) != 0)
			return 0;
		return (int64_t)udiv64(w[0], v->normal);
	case DTC_AGG_AVG:
		if (load_words(v->data, v->size, v->swapped, w, 2) != 0 ||
		    w[0] == 0)
			return 0;
		return sdiv64(sdiv64((int64_t)w[1], (int64_t)v->normal),
		    (int64_t)w[0]);
	case DTC_AGG_STDDEV:
		if (load_words(v->data, v->size, v->swapped, w, 4) != 0)
			return 0;
		return (int64_t)stddev_words(w, v->normal);
	}
	return 0;
}

uint64_t
dtc_aggval_stddev(const dtc_aggval *v)
{
	uint64_t w[4];

	if (v == NULL || v->func != DTC_AGG_STDDEV ||
	    load_words(v->data, v->size, v->swapped, w, 4) != 0)
		return 0;
	return stddev_words(w, v->normal);
}

uint64_t
dtc_aggval_avg_unsigned(const dtc_aggval *v)
{
	uint64_t w[2];

	if (v == NULL || v->func != DTC_AGG_AVG ||
	    load_words(v->data, v->size, v->swapped, w, 2) != 0 || w[0] == 0)
		return 0;
	return udiv64(udiv64(w[1], v->normal), w[0]);
}

uint32_t
dtc_aggval_nbuckets(const dtc_aggval *v)
{
	int32_t base;
	uint16_t a, b;

	if (v == NULL || v->data == NULL)
		return 0;
	switch (v->func) {
	case DTC_AGG_QUANTIZE:
		return v->size == QNBUCKETS * 8 ? QNBUCKETS : 0;
	case DTC_AGG_LQUANTIZE:
		if (lq_params(v->data, v->size, v->swapped, &base, &a, &b) != 0)
			return 0;
		return (uint32_t)b + 2;
	case DTC_AGG_LLQUANTIZE:
		return llq_ops_of(v)->nbuckets(v->data, v->size, v->swapped);
	}
	return 0;
}

int
dtc_aggval_bucket(const dtc_aggval *v, uint32_t i, dtc_bucket *b)
{
	uint32_t n = dtc_aggval_nbuckets(v);

	if (b == NULL || i >= n)
		return DTC_FAILED;
	memset(b, 0, sizeof(*b));
	b->has_min = b->has_max = 1;
	switch (v->func) {
	case DTC_AGG_QUANTIZE:
		b->count = word(v->data, i, v->swapped);
		if (i < QZERO) {
			/* value -2^k holds -2^(k+1) < x <= -2^k; the lowest
			 * bucket also takes INT64_MIN */
			int k = QZERO - 1 - (int)i;

			b->max = -(int64_t)((uint64_t)1 << k);
			b->min = i == 0 ? INT64_MIN :
			    -(int64_t)((uint64_t)1 << (k + 1)) + 1;
		} else if (i == QZERO) {
			b->min = b->max = 0;
		} else {
			int k = (int)i - QZERO - 1;

			b->min = (int64_t)((uint64_t)1 << k);
			b->max = i == QNBUCKETS - 1 ? INT64_MAX :
			    (int64_t)((uint64_t)1 << (k + 1)) - 1;
		}
		return DTC_OK;
	case DTC_AGG_LQUANTIZE: {
		int32_t base = 0;
		uint16_t step = 0, levels = 0;

		if (lq_params(v->data, v->size, v->swapped, &base, &step,
		    &levels) != 0)
			return DTC_FAILED;
		b->count = word(v->data, i + 1, v->swapped);
		if (i == 0) {
			b->has_min = 0;
			b->max = (int64_t)base - 1;
		} else if (i == (uint32_t)levels + 1) {
			b->min = (int64_t)base + (int64_t)levels * step;
			b->has_max = 0;
		} else {
			b->min = (int64_t)base + (int64_t)(i - 1) * step;
			b->max = b->min + step - 1;
		}
		return DTC_OK;
	}
	case DTC_AGG_LLQUANTIZE:
		return llq_ops_of(v)->bucket(v->data, v->size, v->swapped, i,
		    b);
	}
	return DTC_FAILED;
}

/* ------------------------------------------------------------------ */
/* dt_printf_format                                                    */
/* ------------------------------------------------------------------ */

/*
 * The printer dt_printf_format uses: the conversion's, unless the record
 * is an avg/stddev/histogram value or a mod()/umod() record (illumos has
 * no llquantize override; its %@ of an llquantize then fails on size).
 */
static int
choose_printer(const struct pfpiece *p, const struct pfarg *a, int illumos)
{
	if (a->av != NULL) {
		switch (a->av->func) {
		case DTC_AGG_AVG: return PR_AVG;
		case DTC_AGG_STDDEV: return PR_STDDEV;
		case DTC_AGG_QUANTIZE: return PR_QUANT;
		case DTC_AGG_LQUANTIZE: return PR_LQUANT;
		case DTC_AGG_LLQUANTIZE:
			if (!illumos)
				return PR_LLQUANT;
			break;
		}
	} else if (a->v != NULL) {
		if (a->v->kind == DTC_V_MOD || a->v->action == DTC_ACT_MOD)
			return PR_MOD;
		if (a->v->kind == DTC_V_UMOD || a->v->action == DTC_ACT_UMOD)
			return PR_UMOD;
	}
	return p->print;
}

static int
print_one(const dtcp_capture *r, const dtc_format *f, const struct pfpiece *p,
    const struct pfspec *sp, int dynwidth, const struct pfarg *a,
    dtc_buf *out, dtc_error *err)
{
	uint64_t w[4];

	switch (choose_printer(p, a, f->illumos)) {
	case PR_SINT:
		return pr_int(p, sp, a, 1, out, err);
	case PR_UINT:
	case PR_DINT:
		return pr_int(p, sp, a, 0, out, err);
	case PR_FP:
		return pr_fp(p, sp, a, out, err);
	case PR_ADDR:
		return pr_addr(r, sp, a, out, err);
	case PR_UADDR:
		return pr_uaddr(r, sp, a, out, err);
	case PR_STACK:
		return pr_stack(r, p, sp, dynwidth, a, f->illumos, out, err);
	case PR_TIME:
		return pr_time(sp, a, 0, out, err);
	case PR_TIME822:
		return pr_time(sp, a, 1, out, err);
	case PR_PORT:
		return pr_port(sp, a, out, err);
	case PR_INET:
	case PR_CSTR:
		return pr_cstr(sp, a, out, err);
	case PR_WSTR:
		return pr_wstr(sp, a, out, err);
	case PR_ESTR:
		return pr_estr(sp, a, out, err);
	case PR_ECHR:
		return pr_echr(sp, a, out, err);
	case PR_MOD:
		return pr_mod(r, sp, a, 0, out, err);
	case PR_UMOD:
		return pr_mod(r, sp, a, 1, out, err);
	case PR_AVG:
		/* pfprint_average: unsigned sum / normal / count */
		if (a->size != 16 || load_words(a->data, a->size, a->swap, w,
		    2) != 0)
			return mismatch(err);
		return emit_int(out, p, sp, w[0] ?
		    udiv64(udiv64(w[1], a->normal), w[0]) : 0, 8, err);
	case PR_STDDEV:
		if (a->size != 32 || load_words(a->data, a->size, a->swap, w,
		    4) != 0)
			return mismatch(err);
		return emit_int(out, p, sp, stddev_words(w, a->normal), 8, err);
	case PR_QUANT:
		return hist_render(r, DTC_AGG_QUANTIZE, a->data, a->size,
		    a->swap, a->normal, out, err);
	case PR_LQUANT:
		return hist_render(r, DTC_AGG_LQUANTIZE, a->data, a->size,
		    a->swap, a->normal, out, err);
	case PR_LLQUANT:
		return hist_render(r, DTC_AGG_LLQUANTIZE, a->data, a->size,
		    a->swap, a->normal, out, err);
	}
	return mismatch(err);
}

/*
 * The message cap in force: maxmsgsize, DTC_MAXMSGSIZE_DEFAULT when the
 * caller set none; 0: none.
 */
size_t
dtcp_msg_cap(const dtcp_capture *r)
{
	const dtcp_options *o = r != NULL ? (&r->opts) : NULL;
	int64_t v = o != NULL ? o->v[DTCP_OPT_MAXMSGSIZE] : DTC_OPT_UNSET;

	if (v < 0)
		return DTC_MAXMSGSIZE_DEFAULT;
	return (uint64_t)v >= SIZE_MAX / 2 ? 0 : (size_t)v;
}

/*
 * dt_printf_format: args are the records in order (printf arguments, or
 * printa keys); vals the aggregation values for %@ (printa only).  Text
 * written before an error stays in out, as it stays on dtrace's stdout.
 * A message that would pass the cap is cut at it (DTC_WARN, err says
 * so; what is the action's name for it): the pieces stop at the first
 * that reaches one byte past the cap, so a width of a billion or a
 * thousand wide conversions cost no more than the cap.
 */
static int
render(const dtcp_capture *r, const dtc_format *f, const dtc_value *args,
    uint32_t nargs, const dtc_aggval *vals, uint32_t nvals, dtc_buf *out,
    const char *what, dtc_error *err)
{
	uint32_t i, rec = 0, curagg = 0;
	size_t start = out->len, cap = dtcp_msg_cap(r), lim;
	int rv;

	lim = cap == 0 || cap > SIZE_MAX - 2 - start ? SIZE_MAX :
	    start + cap + 1;
	for (i = 0; i < f->npieces && out->len < lim; i++) {
		const struct pfpiece *p = &f->pieces[i];
		struct pfspec sp;
		struct pfarg a;
		int width = p->width, prec = p->prec, dynwidth = 0;

		if (append_lim(out, f->str + p->prefix, p->preflen, lim) != 0) {
			rv = nomem(err);
			goto fail;
		}
		if (p->print == PR_NONE)
			continue;
		if (p->print == PR_PCT) {
			if (append_lim(out, "%", 1, lim) != 0) {
				rv = nomem(err);
				goto fail;
			}
			continue;
		}
		if (out->len >= lim)
			break;
		if (p->flags & PF_DYNWIDTH) {
			if (rec >= nargs) {
				rv = mismatch(err);
				goto fail;
			}
			if ((rv = arg_getint(&args[rec++], &width, err)) != 0)
				goto fail;
			dynwidth = width;
		}
		if (p->flags & PF_DYNPREC) {
			if (rec >= nargs) {
				rv = mismatch(err);
				goto fail;
			}
			if ((rv = arg_getint(&args[rec++], &prec, err)) != 0)
				goto fail;
		}
		if (p->flags & PF_AGG) {
			/* the k-th %@ takes the k-th aggregation, and the
			 * last one again past the end */
			if (vals == NULL || nvals == 0) {
				rv = mismatch(err);
				goto fail;
			}
			arg_from_aggval(&a, r, &vals[curagg]);
			if (curagg < nvals - 1)
				curagg++;
		} else {
			if (rec >= nargs) {
				rv = mismatch(err);
				goto fail;
			}
			arg_from_value(&a, &args[rec++]);
		}

		sp.flags = p->flags;
		sp.left = width < 0 || (p->flags & PF_LEFT);
		sp.width = width < 0 ? -width : width;
		sp.prec = prec > 0 ? prec : 0;
		sp.lim = lim;

		if ((rv = print_one(r, f, p, &sp, dynwidth, &a, out, err)) != 0)
			goto fail;
	}
	return dtc_capture_text_cut(r, out, start, what, err);
fail:
	/* what was printed before the error stays, as libdtrace's does,
	 * but no more than the cap (a histogram's %@ is printed whole) */
	if (cap != 0 && out->len > start + cap)
		cut_to(out, start + cap);
	return rv;
}

/* Over the cap, its first cap bytes are dtrace's, byte for byte: every
 * writer of a message stops past the cap, this cuts it there. */
int
dtc_capture_text_cut(const dtcp_capture *r, dtc_buf *out, size_t start,
    const char *what, dtc_error *err)
{
	size_t cap = dtcp_msg_cap(r);

	if (out == NULL || cap == 0 || out->len <= start ||
	    out->len - start <= cap)
		return DTC_OK;
	cut_to(out, start + cap);
	dtcp_error_set(err, DTC_E_LIMIT, r != NULL ? r->source :
	    NULL, -1, -1, -1, "%s message cut at %zu bytes (maxmsgsize)",
	    what != NULL ? what : "a", cap);
	if (r != NULL && err != NULL && err->code == DTC_E_LIMIT)
		dtcp_capture_where(r, err);    /* the record being printed */
	return DTC_WARN;
}

/* The name of a printf-family action, for messages. */
static const char *
act_what(uint16_t action)
{
	switch (action) {
	case DTC_ACT_SYSTEM: return "system()";
	case DTC_ACT_FREOPEN: return "freopen()";
	default: return "printf()";
	}
}

int
dtc_capture_printf_render(const dtcp_capture *r, const dtc_value *v,
    dtc_buf *out, dtc_error *err)
{
	if (v == NULL || out == NULL || v->fmt == NULL) {
		dtcp_error_set(err, DTC_E_BADFORMAT, NULL, -1, -1, -1,
		    "printf record without a format");
		return DTC_FAILED;
	}
	return render(r, v->fmt, v->args, v->nargs, NULL, 0, out,
	    act_what(v->action), err);
}

int
dtc_capture_printa_render(const dtcp_capture *r, const dtc_aggprint *ap,
    const dtc_aggrow *row, dtc_buf *out, dtc_error *err)
{
	const dtc_aggvar *var;

	if (ap == NULL || row == NULL || out == NULL || ap->fmt == NULL) {
		dtcp_error_set(err, DTC_E_BADFORMAT, NULL, -1, -1, -1,
		    "printa row without a format");
		return DTC_FAILED;
	}
	var = row->var != NULL ? row->var : (ap->nvars > 0 ? &ap->vars[0] :
	    NULL);
	return render(r, ap->fmt, row->keys, var != NULL ? var->nkeys : 0,
	    row->vals, ap->nvars, out, "printa()", err);
}
