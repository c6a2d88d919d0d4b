/*
 * record.c - one record description plus its bytes -> a typed dtc_value.
 *
 * The kind is chosen as libdtrace chooses its printer: by action first,
 * and for plain DIFEXPR data by record size alone (facts errata E5: a
 * struct or a string of size 1, 2, 4 or 8 is an integer to libdtrace).
 * Nothing is copied: the value points at the record bytes.
 */
#include <stddef.h>
#include <string.h>

#include "capture.h"

void
dtcp_decode_value(const dtc_recdesc *rd, const uint8_t *data, uint32_t size,
    int swap, dtc_value *v)
{
	dtcp_value_init(v, DTC_V_NONE, rd, data, size, swap);
	/* trace() and printf() arguments, most of all values, go first */
	if (rd->action == DTC_ACT_DIFEXPR || rd->action == DTC_ACT_PRINTF)
		goto data;
	switch (rd->action) {
	case DTC_ACT_STACK: {
		uint32_t depth = (uint32_t)rd->arg;

		v->kind = DTC_V_STACK;
		if (depth == 0 || size % depth != 0) {
			/* libdtrace: EDT_BADSTACKPC; the caller checks pcsize */
			v->pcsize = 0;
			v->nframes = 0;
			break;
		}
		v->pcsize = size / depth;
		v->nframes = (v->pcsize == 4 || v->pcsize == 8) ? depth : 0;
		v->pcs = data;
		break;
	}
	case DTC_ACT_USTACK:
	case DTC_ACT_JSTACK: {
		uint32_t depth = (uint32_t)(rd->arg & 0xffffffffu);
		uint32_t strsize = (uint32_t)(rd->arg >> 32);

		v->kind = DTC_V_USTACK;
		v->pcsize = 8;
		if (size < 8) {
			v->nframes = 0;
			break;
		}
		/* libdtrace takes the word as a pid_t: dtrace-utils' holds
		 * the tgid in both halves (its mask of the upper half is
		 * sign-extended to none), so only the low 32 bits are the pid */
		v->pid = (uint32_t)dtcp_ld64(data, swap);
		/* never trust depth/strsize beyond what the record holds */
		if (((uint64_t)depth + 1) * 8 > size)
			depth = size / 8 - 1;
		v->nframes = depth;
		v->pcs = data + 8;
		v->strsize = strsize;
		if ((uint64_t)(depth + 1) * 8 + strsize > size)
			v->strsize = size - (depth + 1) * 8;
		v->strtab = v->strsize ? data + (depth + 1) * 8 : NULL;
		break;
	}
	case DTC_ACT_SYM:
	case DTC_ACT_MOD:
		v->kind = rd->action == DTC_ACT_SYM ? DTC_V_SYM : DTC_V_MOD;
		v->addr = dtcp_ldsz(data, size <= 8 ? size : 8, swap);
		break;
	case DTC_ACT_USYM:
	case DTC_ACT_UMOD:
	case DTC_ACT_UADDR:
		v->kind = rd->action == DTC_ACT_USYM ? DTC_V_USYM :
		    rd->action == DTC_ACT_UMOD ? DTC_V_UMOD : DTC_V_UADDR;
		if (size >= 16) {
			v->pid = (uint32_t)dtcp_ld64(data, swap); /* as ustack */
			v->addr = dtcp_ld64(data + 8, swap);
		}
		break;
	case DTC_ACT_TRACEMEM:
		v->kind = DTC_V_MEMORY;
		break;
	case DTC_ACT_PRINTM:
		v->kind = DTC_V_PRINTM;
		break;
	case DTC_ACT_EXIT:
		v->kind = DTC_V_EXIT;
		v->u = dtcp_ldsz(data, size == 4 ? 4 : (size >= 8 ? 8 : 0), swap);
		v->i = (int32_t)v->u;
		break;
	default:
	data:
		if (size == 1 || size == 2 || size == 4 || size == 8) {
			dtcp_value_int(v, data, size, swap);
		} else if (rd->action == DTC_ACT_DIFEXPR ||
		    rd->action == DTC_ACT_PRINTF || rd->action == DTC_ACT_PRINTA ||
		    rd->action == DTC_ACT_SYSTEM || rd->action == DTC_ACT_FREOPEN ||
		    rd->action == DTC_ACT_LIBACT || DTC_ACT_ISAGG(rd->action)) {
			v->kind = DTC_V_BYTES;
		} else {
			v->kind = DTC_V_OTHER;
		}
		break;
	}
}

uint64_t
dtc_value_pc(const dtc_value *v, uint32_t i)
{
	if (v->pcs == NULL || i >= v->nframes)
		return 0;
	if (v->pcsize == 4)
		return dtcp_ld32(v->pcs + (size_t)i * 4, v->swapped);
	return dtcp_ld64(v->pcs + (size_t)i * 8, v->swapped);
}

uint64_t
dtc_aggval_word(const dtc_aggval *v, uint32_t i)
{
	if ((uint64_t)(i + 1) * 8 > v->size)
		return 0;
	return dtcp_ld64(v->data + (size_t)i * 8, v->swapped);
}

/* bytes of a string libdtrace prints: 1 printable, 2 NUL, 0 neither */
static const unsigned char strclass[256] = {
	2, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
};

/* A record libdtrace would print as a string (JSON, CBOR and bindings
 * show it as one, else as bytes): printable text ended by a
 * NUL with only NULs after it (or printable text filling the record).
 * String records are mostly padding (execname in a 256-byte record):
 * the NULs are checked 32 bytes at a time, then 8, then the last 8
 * overlapping (a byte loop over the last 31 cost 140 instructions a
 * printf firing in -f json and cbor).  Inline in the calls below: the
 * exported name is a call through the PLT from inside the library. */
static inline int
bytes_string(const uint8_t *p, size_t n, size_t *lenp)
{
	size_t i, len;
	uint64_t w[4], x;

	for (i = 0; i < n && strclass[p[i]] == 1; i++)
		continue;
	len = i;
	if (i < n && p[i] != '\0')
		return 0;
	if (len == 0 && n > 0)
		return 0;
	if (n - i >= sizeof(x)) {
		for (; n - i >= sizeof(w); i += sizeof(w)) {
			memcpy(w, p + i, sizeof(w));
			if ((w[0] | w[1] | w[2] | w[3]) != 0)
				return 0;
		}
		for (; n - i >= sizeof(x); i += sizeof(x)) {
			memcpy(&x, p + i, sizeof(x));
			if (x != 0)
				return 0;
		}
		/* n - 8 >= len: these eight lie past the text */
		memcpy(&x, p + n - sizeof(x), sizeof(x));
		if (x != 0)
			return 0;
	} else {
		for (; i < n; i++)
			if (p[i] != '\0')
				return 0;
	}
	*lenp = len;
	return 1;
}

int
dtc_bytes_string(const void *data, size_t n, size_t *lenp)
{
	return bytes_string(data, n, lenp);
}

int
dtc_value_string(const dtc_value *v, size_t *len)
{
	if (v == NULL || (v->kind != DTC_V_BYTES && v->kind != DTC_V_OTHER))
		return 0;
	return bytes_string(v->data, v->size, len);
}

/* dtrace-utils' dt_print_trace flag of a by-reference record (dt_impl.h
 * DT_NF_REF), which v2.c keeps in dtrd_arg */
#define V2_NF_REF 0x04

/* trace(): dt_print_trace's test; a printf() argument: the record of a
 * string, the only 1-aligned one dt_cg_store_val makes with data */
int
dtcp_v2_string(const dtc_recdesc *rd)
{
	if (rd == NULL)
		return 0;
	if (rd->action == DTC_ACT_DIFEXPR)
		return rd->arg == V2_NF_REF && rd->alignment <= 1;
	return rd->alignment == 1;
}

/*
 * dtrace-utils prints a by-reference record of alignment 1 as a C string
 * (up to its NUL, no printable test): copyinstr() leaves whatever the
 * buffer held after the NUL, which the legacy rule would call bytes.
 */
int
dtc_capture_record_string(const dtcp_capture *r, const dtc_value *v,
    size_t *len)
{
	const dtc_header *h;

	if (v == NULL || (v->kind != DTC_V_BYTES && v->kind != DTC_V_OTHER))
		return 0;
	h = r != NULL ? (&r->hdr) : NULL;
	if (h == NULL || !h->v2)
		return bytes_string(v->data, v->size, len);
	if (!dtcp_v2_string(v->rd))
		return 0;
	*len = v->size > 0 ? strnlen((const char *)v->data, v->size) : 0;
	return 1;
}
