/*
 * printf_render.c - a compiled format (printf_compile.c) rendered for one
 * record or printa row: dt_printf_format.  Rendering walks the pieces,
 * builds each libc format on the stack and writes into the caller's
 * dtc_buf; it neither parses nor allocates (beyond growing that buffer).
 * The per-record hot path of printf(), printa() with a format, system()
 * and freopen(); what an aggregating function's value prints as is
 * aggval.c's.
 *
 * Strings (%s %S %a %A %k %T %Y ...) are padded here rather than by the
 * host's snprintf: the legacy libcs (FreeBSD, illumos) pad a string with
 * '0' under the 0 flag where glibc pads with blanks, and doing it here also
 * avoids copying records that have no NUL into a temporary string.
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
 *
 * Most messages cannot reach the cap, and checking it (and the buffer)
 * on every append was most of what printing them cost.  A format made
 * only of text, %s and plain integers (%d %i %u %x %X, l, ll; a static
 * width, '-', for strings also '0' and a precision: printf_compile.c
 * marks it) has a bound known before it is printed: the format's text
 * and integers' widest (printf_compile.c sums them once) plus its
 * strings' record sizes.  render_direct checks that bound against the
 * cap and reserves it, once for the format and once more per string,
 * then writes without further checks; a message whose bound passes the
 * cap, or a record it does not print (mod(), a missing one, a bad
 * size), goes to render() from its start, which cuts or fails as above.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "printf_private.h"

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

/* "00" to "99": two digits a division.  (formats/digits.h has the same
 * table for the emitters; the library may not include the formats'
 * headers, see cmd/tests/layers.sh.) */
#define PAIRS(t) { t, '0' }, { t, '1' }, { t, '2' }, { t, '3' }, \
	{ t, '4' }, { t, '5' }, { t, '6' }, { t, '7' }, { t, '8' }, { t, '9' }
static const char pairs[100][2] = {
	PAIRS('0'), PAIRS('1'), PAIRS('2'), PAIRS('3'), PAIRS('4'),
	PAIRS('5'), PAIRS('6'), PAIRS('7'), PAIRS('8'), PAIRS('9')
};
#undef PAIRS

/*
 * The decimal digits of u, backwards, ending at e; returns their start.
 * Two digits a division, and 32-bit divisions once u fits in 32 bits.
 */
static inline char *
udigits(char *e, uint64_t u)
{
	uint32_t v;

	while (u > UINT32_MAX) {
		e -= 2;
		memcpy(e, pairs[u % 100], 2);
		u /= 100;
	}
	for (v = (uint32_t)u; v >= 100; v /= 100) {
		e -= 2;
		memcpy(e, pairs[v % 100], 2);
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, pairs[v], 2);
		return e;
	}
	*--e = (char)('0' + v);
	return e;
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
	d = udigits(e, u);
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
		if (a->size != 16 || dtcp_agg_words(a->data, a->size, a->swap, w,
		    2) != 0)
			return mismatch(err);
		return emit_int(out, p, sp, w[0] ?
		    udiv64(udiv64(w[1], a->normal), w[0]) : 0, 8, err);
	case PR_STDDEV:
		if (a->size != 32 || dtcp_agg_words(a->data, a->size, a->swap, w,
		    4) != 0)
			return mismatch(err);
		return emit_int(out, p, sp, dtcp_stddev_words(w, a->normal), 8, err);
	case PR_QUANT:
		return dtcp_hist_render(r, DTC_AGG_QUANTIZE, a->data, a->size,
		    a->swap, a->normal, out, err);
	case PR_LQUANT:
		return dtcp_hist_render(r, DTC_AGG_LQUANTIZE, a->data, a->size,
		    a->swap, a->normal, out, err);
	case PR_LLQUANT:
		return dtcp_hist_render(r, DTC_AGG_LLQUANTIZE, a->data, a->size,
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

static inline char *
fill(char *o, char c, size_t n)
{
	memset(o, c, n);
	return o + n;
}

/* The bytes the direct path may store past a piece's output: a block of
 * digits, or of a prefix (it needs no more than PF_STRPAD). */
#define INT_BLOCK	24

/* The hexadecimal digits of x, backwards, ending at e (%x, or %X):
 * out of line, to keep int_direct's decimal path as short as it was. */
static __attribute__((noinline)) char *
xdigits(char *e, uint64_t x, int upper)
{
	const char *hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	do {
		*--e = hex[x & 0xf];
		x >>= 4;
	} while (x != 0);
	return e;
}

/*
 * An FK_INT conversion at o, with room for max(width, 20) + INT_BLOCK
 * bytes: pr_int then int_plain (or libc's %x, %X), with a record's
 * normalization (1).
 */
static inline char *
int_direct(char *o, const struct pfpiece *p, uint64_t u, uint32_t size)
{
	char tmp[2 * INT_BLOCK], *e = tmp + INT_BLOCK, *d;
	uint64_t x = u;
	size_t n;

	if ((p->fint & FI_SEXT) && size < 8)
		x = (uint64_t)sext(u, size);
	if (p->fint & FI_SIGNED) {
		int64_t v = (p->fint & FI_INT32) ? (int32_t)(uint32_t)x :
		    (int64_t)x;

		d = udigits(e, v < 0 ? -(uint64_t)v : (uint64_t)v);
		if (v < 0)
			*--d = '-';
	} else {
		if (p->fint & FI_INT32)
			x = (uint32_t)x;
		d = (p->fint & FI_HEX) ? xdigits(e, x, p->fint & FI_UPPER) :
		    udigits(e, x);
	}
	n = (size_t)(e - d);
	if ((size_t)p->width > n && !(p->flags & PF_LEFT))
		o = fill(o, ' ', (size_t)p->width - n);
	/* a whole block, a fixed-size copy: the bytes past n are
	 * overwritten next or lie past the end of the message */
	memcpy(o, d, INT_BLOCK);
	o += n;
	if ((size_t)p->width > n && (p->flags & PF_LEFT))
		o = fill(o, ' ', (size_t)p->width - n);
	return o;
}

/* The prefix of p at o: a block of PF_STRPAD bytes (the format's text
 * is followed by as many NULs) where it fits in one, as most prefixes
 * (a blank, a newline) do, rather than a call to memcpy. */
static inline char *
prefix(char *o, const dtc_format *f, const struct pfpiece *p)
{
	if (p->preflen <= PF_STRPAD)
		memcpy(o, f->str + p->prefix, PF_STRPAD);
	else
		memcpy(o, f->str + p->prefix, p->preflen);
	return o + p->preflen;
}

/*
 * The direct path of a printf message, for a format of fast pieces only
 * (printf_compile.c, fast_kind): the same bytes as render(), written into
 * room taken once for the most the message can print (known from the
 * format and its records' sizes), where render() checks the buffer and
 * the cap on every append.  1 when it printed the message, which then has
 * no more than cap bytes (cap 0: none); 0 when the message could pass the
 * cap, a record is not one it prints, or memory runs out: out is then as
 * it was, and render() prints the message, cuts it or fails.
 */
static inline int
render_direct(const dtc_format *f, const dtc_value *args, uint32_t nargs,
    dtc_buf *out, size_t cap)
{
	size_t start = out->len, need = f->fastmax;
	uint32_t i, rec = 0;
	char *o;

	/* the one test of the cap and the one of the buffer (which also
	 * takes the blocks stored past the end) for all but the strings,
	 * then one more of each for every string, whose size bounds it */
	if ((cap != 0 && need > cap) ||
	    dtcp_buf_reserve(out, need + INT_BLOCK) != 0)
		return 0;
	o = out->s + start;
	for (i = 0; i < f->npieces; i++) {
		const struct pfpiece *p = &f->pieces[i];
		const dtc_value *v = NULL;
		size_t w = (size_t)p->width, n, lim;
		const char *d;
		uint64_t u;

		if (p->fast >= FK_STR) {
			/* a record, and not one that choose_printer gives
			 * another printer (mod(), umod()) */
			if (rec >= nargs)
				goto general;
			v = &args[rec++];
			if (v->kind == DTC_V_MOD || v->kind == DTC_V_UMOD ||
			    v->action == DTC_ACT_MOD ||
			    v->action == DTC_ACT_UMOD)
				goto general;
		}
		o = prefix(o, f, p);
		switch (p->fast) {
		case FK_TEXT:
			break;
		case FK_PCT:
			*o++ = '%';
			break;
		case FK_STR:
			/* pr_cstr: up to the first NUL, then pad_to */
			if (v->data == NULL && v->size != 0)
				goto general;
			need += v->size;
			if (cap != 0 && need > cap)
				goto general;
			n = (size_t)(o - out->s);
			if (dtcp_buf_reserve(out, need + INT_BLOCK) != 0)
				goto general;
			o = out->s + n;
			d = (const char *)v->data;
			lim = p->prec > 0 && (size_t)p->prec < v->size ?
			    (size_t)p->prec : v->size;
			if (w != 0 && !(p->flags & PF_LEFT)) {
				n = lim != 0 ? strnlen(d, lim) : 0;
				if (w > n)
					o = fill(o, (p->flags & PF_ZPAD) ?
					    '0' : ' ', w - n);
				if (n != 0)
					memcpy(o, d, n);
				o += n;
				break;
			}
			/* names and paths are short: copied as scanned */
			for (n = 0; n < lim && d[n] != '\0'; n++)
				o[n] = d[n];
			o += n;
			if (w > n)
				o = fill(o, ' ', w - n);
			break;
		case FK_INT:
			/* pr_int: arg_from_value's bytes, arg_uint's sizes */
			if ((v->size != 1 && v->size != 2 && v->size != 4 &&
			    v->size != 8) || (v->data == NULL &&
			    v->kind != DTC_V_INT))
				goto general;
			if (v->data != NULL)
				u = dtcp_ldsz(v->data, v->size, v->swapped);
			else
				u = v->size == 8 ? v->u :
				    v->u & ((1ULL << (8 * v->size)) - 1);
			o = int_direct(o, p, u, v->size);
			break;
		default:
			goto general;
		}
	}
	out->len = (size_t)(o - out->s);
	/* the blocks stored may lie past the end */
	*o = '\0';
	return 1;
general:
	out->s[start] = '\0';
	return 0;
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
	if (v->fmt->fast && render_direct(v->fmt, v->args, v->nargs, out,
	    dtcp_msg_cap(r)))
		return DTC_OK;
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
	if (ap->fmt->fast && render_direct(ap->fmt, row->keys, var != NULL ?
	    var->nkeys : 0, out, dtcp_msg_cap(r)))
		return DTC_OK;
	return render(r, ap->fmt, row->keys, var != NULL ? var->nkeys : 0,
	    row->vals, ap->nvars, out, "printa()", err);
}

