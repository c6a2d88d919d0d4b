/*
 * printf_compile.c - a printf format compiled once, when the metadata
 * loader reads it (dtcp_format_compile), so that no record re-parses it.
 *
 * printf(), printa() with a format, system() and freopen() all go through
 * libdtrace's dt_printf_format (dt_printf.c).  A capture holds their
 * formats in the "pickled" form the D compiler wrote into the DOF (facts
 * errata O1), and the consumer re-parses that text with dt_printf_create
 * semantics.  Everything here follows that consumer path, because that is
 * what decides the output: the printer is chosen from the pickled
 * conversion name alone (errata E1/E2), never from D types.
 *
 * A format compiles into a list of pieces (printf_private.h): prefix
 * text, flags, width, precision, conversion and printer.  Apart from the
 * renderer (printf_render.c), which walks the pieces per record, because
 * the two run at different times and share nothing but the pieces.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "printf_private.h"

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

/*
 * The direct path's kind of a piece (printf_private.h, enum fastkind).
 * Only what the general path would print without consulting the cap
 * before the end of the piece: static widths and precisions, strings
 * (whose padding only ever reads the 0 and - flags) and the integers
 * int_plain writes by hand (no flag but -, no precision, no h), and
 * with the same rules %x and %X, which libc would print.
 */
static void
fast_kind(struct pfpiece *p)
{
	char c;

	p->fast = FK_NONE;
	p->fint = 0;
	if (p->flags & (PF_DYNWIDTH | PF_DYNPREC | PF_AGG))
		return;
	switch (p->print) {
	case PR_NONE:
		p->fast = FK_TEXT;
		return;
	case PR_PCT:
		p->fast = FK_PCT;
		return;
	case PR_CSTR:
	case PR_INET:
		p->fast = FK_STR;
		return;
	case PR_SINT:
	case PR_UINT:
	case PR_DINT:
		break;
	default:
		return;
	}
	if ((p->flags & ~PF_LEFT) != 0 || p->prec > 0 || p->conv[0] == 'h' ||
	    (p->argtype != AT_INT && p->argtype != AT_LONG &&
	    p->argtype != AT_LLONG))
		return;
	c = p->conv[strlen(p->conv) - 1];
	if (c == 'd' || c == 'i')
		p->fint |= FI_SIGNED;
	else if (c == 'x')
		p->fint |= FI_HEX;
	else if (c == 'X')
		p->fint |= FI_HEX | FI_UPPER;
	else if (c != 'u')
		return;
	if (p->print == PR_SINT)
		p->fint |= FI_SEXT;
	if (p->argtype == AT_INT)
		p->fint |= FI_INT32;
	p->fast = FK_INT;
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
	f = calloc(1, sizeof(*f) + max * sizeof(struct pfpiece) + len + 1 +
	    PF_STRPAD);
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
		fast_kind(pd);
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
		pd->fast = FK_TEXT;
	}
	/*
	 * What the direct path reserves for a message before its strings'
	 * sizes: a string prints at most max(width, size) <= width + size,
	 * an integer max(width, 20) (a sign and 19 digits, or 20 digits).
	 */
	f->fast = 1;
	for (i = 0; i < f->npieces; i++) {
		const struct pfpiece *pd = &f->pieces[i];

		f->fastmax += pd->preflen + (size_t)pd->width;
		if (pd->fast == FK_NONE)
			f->fast = 0;
		else if (pd->fast == FK_PCT)
			f->fastmax += 1;
		else if (pd->fast == FK_INT)
			f->fastmax += 20;
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
