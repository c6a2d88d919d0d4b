/*
 * buf.c - dtc_buf, the growable string every formatter writes into.
 * One buffer is reused for a whole run, so formatting a record allocates
 * only while the buffer is still growing to its working size.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

void
dtc_buf_init(dtc_buf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void
dtc_buf_free(dtc_buf *b)
{
	free(b->s);
	dtc_buf_init(b);
}

void
dtc_buf_reset(dtc_buf *b)
{
	b->len = 0;
	if (b->s != NULL)
		b->s[0] = '\0';
}

/* The slow half of dtcp_buf_reserve (base.h): a buffer that must grow. */
int
dtcp_buf_grow(dtc_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1, cap;
	char *s;

	if (extra > SIZE_MAX - 1 - b->len)
		return -1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	if ((s = realloc(b->s, cap)) == NULL)
		return -1;
	b->s = s;
	b->cap = cap;
	return 0;
}

int
dtc_buf_append(dtc_buf *b, const void *p, size_t n)
{
	if (dtcp_buf_reserve(b, n) != 0)
		return -1;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int
dtc_buf_printf(dtc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room = b->cap > b->len ? b->cap - b->len : 0;

	va_start(ap, fmt);
	n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n >= room) {
		if (dtcp_buf_reserve(b, (size_t)n) != 0)
			return -1;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
	return n;
}
