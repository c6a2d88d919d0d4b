/*
 * error.c - filling and formatting dtc_error.
 *
 * The struct is caller-owned and fixed-size, so reporting never allocates
 * (it must work when memory has run out), and the first error wins so a
 * cascade cannot hide its cause.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base.h"

static const char *const errtext[] = {
	[DTC_E_NONE] = "no error",
	[DTC_E_NOMEM] = "out of memory",
	[DTC_E_IO] = "input/output error",
	[DTC_E_NOTCBOR] = "not a CBOR data item",
	[DTC_E_BADHEADER] = "not a dtsnap capture",
	[DTC_E_VERSION] = "unsupported capture version",
	[DTC_E_MISSINGKEY] = "required key missing",
	[DTC_E_KEYTYPE] = "key has the wrong type",
	[DTC_E_TRUNCATED] = "capture cut short",
	[DTC_E_BADEPID] = "unknown enabled probe id",
	[DTC_E_OVERRUN] = "record overruns buffer",
	[DTC_E_BADRECDESC] = "record description outside the record",
	[DTC_E_BADOLDEST] = "oldest offset beyond the buffer data",
	[DTC_E_LIMIT] = "size or count out of bounds",
	[DTC_E_BADAGGID] = "unknown aggregation id",
	[DTC_E_BADFORMAT] = "bad format",
	[DTC_E_DMISMATCH] = "data record list does not match statement",
	[DTC_E_BADOPTION] = "bad option",
	[DTC_E_BADVALUE] = "value out of range",
	[DTC_E_BADAGG] = "aggregation data inconsistent with its description",
	[DTC_E_DUPLICATE] = "described twice",
	[DTC_E_NOTSUP] = "not supported",
	[DTC_E_INTERNAL] = "internal error",
};

const char *
dtc_error_string(int code)
{
	if (code < 0 || (size_t)code >= sizeof(errtext) / sizeof(errtext[0]) ||
	    errtext[code] == NULL)
		return "unknown error";
	return errtext[code];
}

void
dtc_error_clear(dtc_error *err)
{
	if (err == NULL)
		return;
	memset(err, 0, sizeof(*err));
	err->cpu = -1;
	err->item = -1;
	err->offset = -1;
}

/* Keep the tail of a long path: the file name is the useful part. */
static void
set_source(dtc_error *err, const char *source)
{
	size_t n, max = sizeof(err->source) - 1;

	if (source == NULL) {
		err->source[0] = '\0';
		return;
	}
	n = strlen(source);
	if (n <= max) {
		memcpy(err->source, source, n + 1);
		return;
	}
	memcpy(err->source, "...", 3);
	memcpy(err->source + 3, source + n - (max - 3), max - 3 + 1);
}

void
dtcp_error_vset(dtc_error *err, int code, const char *source, long long item,
    long long offset, int cpu, const char *fmt, va_list ap)
{
	if (err == NULL || err->code != DTC_E_NONE)
		return;
	err->code = code;
	err->item = item;
	err->offset = offset;
	err->cpu = cpu;
	set_source(err, source);
	if (fmt != NULL)
		vsnprintf(err->text, sizeof(err->text), fmt, ap);
	else
		snprintf(err->text, sizeof(err->text), "%s", dtc_error_string(code));
}

void
dtcp_error_set(dtc_error *err, int code, const char *source, long long item,
    long long offset, int cpu, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, source, item, offset, cpu, fmt, ap);
	va_end(ap);
}

/* The public name of dtcp_error_set, for programs (dtsnap synth). */
void
dtc_error_set(dtc_error *err, int code, const char *source, long long item,
    long long offset, int cpu, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dtcp_error_vset(err, code, source, item, offset, cpu, fmt, ap);
	va_end(ap);
}

size_t
dtc_error_format(const dtc_error *err, char *buf, size_t len)
{
	int n = 0, k;

	if (buf == NULL || len == 0)
		return 0;
	buf[0] = '\0';
	if (err == NULL)
		return 0;
#define ADD(...) do { \
	k = snprintf(buf + n, (size_t)n < len ? len - (size_t)n : 0, __VA_ARGS__); \
	if (k > 0) n += k; \
} while (0)
	if (err->source[0] != '\0')
		ADD("%s: ", err->source);
	if (err->item >= 0)
		ADD("item %lld", err->item);
	if (err->cpu >= 0)
		ADD("%scpu %d", err->item >= 0 ? ", " : "", err->cpu);
	if (err->offset >= 0)
		ADD("%soffset %lld", (err->item >= 0 || err->cpu >= 0) ? ", " : "",
		    err->offset);
	if (err->item >= 0 || err->cpu >= 0 || err->offset >= 0)
		ADD(": ");
	ADD("%s", err->text[0] != '\0' ? err->text : dtc_error_string(err->code));
#undef ADD
	if ((size_t)n >= len)
		n = (int)len - 1;
	return (size_t)n;
}

const char *
dtc_version_string(void)
{
	return PACKAGE_VERSION;
}
