/*
 * synth_records.c - principal-buffer records as the kernel lays them
 * out: recdescs from the description's RECs (dtrace_ecb_action_add),
 * offsets, alignment and record size (dtrace_ecb_resize), the data of
 * each record (dtrace_probe, dtrace_store_by_ref), EPIDNONE padding and
 * the ring policy (dtrace_buffer_reserve, dtrace_buffer_polish).
 *
 * Facts: ../shared/reference/libdtrace-abi-facts.md sections 1, 3 and 7
 * (facts-errata.md wins).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "synth_private.h"

#define RECHDR_SIZE 12      /* dtrace_rechdr_t: epid, ts high, ts low */

uint16_t
sy_natural_align(uint32_t size)
{
	if (size == 0)
		return 1;
	if (size % 8 == 0)
		return 8;
	if (size % 4 == 0)
		return 4;
	if (size % 2 == 0)
		return 2;
	return 1;
}

void
sy_rds_free(sy_rd *rds, uint32_t n)
{
	uint32_t i;

	if (rds == NULL)
		return;
	for (i = 0; i < n; i++)
		free(rds[i].fixed);
	free(rds);
}

/* ------------------------------------------------------------------ */
/* RECs -> recdescs                                                    */
/* ------------------------------------------------------------------ */

/* Append one record; its offset is set later by the layout. */
static sy_rd *
add_rd(synth *s, sy_rd **rds, uint32_t *n, uint16_t action, uint32_t size,
    int enc, uint64_t arg, uint64_t uarg)
{
	sy_rd *rd;

	if (*n >= SY_MAX_RECS) {
		sy_fail(s, "more than %d records", SY_MAX_RECS);
		return NULL;
	}
	if (size > SY_MAX_BUF) {
		sy_fail(s, "record of %" PRIu32 " bytes is too large", size);
		return NULL;
	}
	/* grow at powers of two */
	if ((*n & (*n - 1)) == 0) {
		size_t ncap = *n == 0 ? 4 : (size_t)*n * 2;
		sy_rd *nr = realloc(*rds, ncap * sizeof(*nr));

		if (nr == NULL) {
			sy_nomem(s);
			return NULL;
		}
		*rds = nr;
	}
	rd = &(*rds)[(*n)++];
	memset(rd, 0, sizeof(*rd));
	rd->rd.action = action;
	rd->rd.size = size;
	rd->rd.alignment = sy_natural_align(size);
	rd->rd.arg = arg;
	rd->rd.uarg = uarg;
	rd->enc = enc;
	return rd;
}

/* A record whose bytes come from the description, not from the data. */
static sy_rd *
add_fixed(synth *s, sy_rd **rds, uint32_t *n, uint16_t action,
    uint32_t size, uint64_t arg, uint64_t uarg, const void *p, size_t plen)
{
	sy_rd *rd = add_rd(s, rds, n, action, size, SY_ENC_FIXED, arg, uarg);

	if (rd == NULL)
		return NULL;
	if ((rd->fixed = calloc(1, size ? size : 1)) == NULL) {
		sy_nomem(s);
		return NULL;
	}
	if (p != NULL)
		memcpy(rd->fixed, p, plen < size ? plen : size);
	return rd;
}

/* The varid of an aggregation, as an 8-byte LIBACT/PRINTA datum. */
static sy_rd *
add_varid(synth *s, sy_rd **rds, uint32_t *n, uint16_t action, uint64_t arg,
    uint64_t uarg, const sy_agg *a)
{
	uint8_t b[8];

	sy_store(s, b, (uint64_t)a->varid, 8);
	return add_fixed(s, rds, n, action, 8, arg, uarg, b, 8);
}

/* The encoding a record of this size takes when nothing else is said. */
static int
enc_for_size(uint32_t size)
{
	if (size == 0)
		return SY_ENC_NONE;
	if (size == 1 || size == 2 || size == 4 || size == 8)
		return SY_ENC_INT;
	return SY_ENC_BYTES;
}

/* A printf argument: 1/2/4/8, "string", or {"size": N}. */
static int
printf_arg(synth *s, json_t *a, uint32_t *size, int *enc)
{
	static const char *const keys[] = { "size", NULL };

	if (json_is_integer(a)) {
		json_int_t n = json_integer_value(a);

		if (n != 1 && n != 2 && n != 4 && n != 8)
			return sy_fail(s, "an integer argument is 1, 2, 4 or "
			    "8 bytes (use {\"size\": N} for others)");
		*size = (uint32_t)n;
		*enc = SY_ENC_INT;
		return 0;
	}
	if (json_is_string(a)) {
		if (strcmp(json_string_value(a), "string") != 0)
			return sy_fail(s, "expected 1, 2, 4, 8, \"string\" or "
			    "{\"size\": N}");
		*size = s->strsize;
		*enc = SY_ENC_BYTES;
		return 0;
	}
	if (sy_keys(s, a, keys) != 0 ||
	    sy_get_u32(s, a, "size", 1, 0, SY_MAX_BUF, size) != 0)
		return -1;
	*enc = enc_for_size(*size);
	return 0;
}

/* The kinds of REC, by the key that names them. */
enum rk {
	RK_TRACE, RK_PRINTF, RK_SYSTEM, RK_FREOPEN, RK_PRINTA, RK_STACK,
	RK_USTACK, RK_JSTACK, RK_SYM, RK_MOD, RK_USYM, RK_UMOD, RK_UADDR,
	RK_TRACEMEM, RK_EXIT, RK_CLEAR, RK_DENORMALIZE, RK_NORMALIZE,
	RK_TRUNC, RK_SETOPT, RK_FTRUNCATE, RK_SPECULATE, RK_COMMIT,
	RK_DISCARD, RK_CHILL, RK_STOP, RK_RAISE, RK_BREAKPOINT, RK_PANIC,
	RK_ACTION, RK_PRINT, RK_COUNT
};

static const struct rkind {
	const char *key;
	uint16_t action;     /* the record's action, where there is one */
	int keyok;           /* may be an aggregation key */
	int ownsize;         /* "size" is part of the kind, not an override */
	const char *extra[4];/* further keys it takes */
} rkinds[RK_COUNT] = {
	[RK_TRACE] = { "trace", DTC_ACT_DIFEXPR, 1, 1, { NULL } },
	[RK_PRINTF] = { "printf", DTC_ACT_PRINTF, 0, 0, { "args", NULL } },
	[RK_SYSTEM] = { "system", DTC_ACT_SYSTEM, 0, 0, { "args", NULL } },
	[RK_FREOPEN] = { "freopen", DTC_ACT_FREOPEN, 0, 0, { "args", NULL } },
	[RK_PRINTA] = { "printa", DTC_ACT_PRINTA, 0, 0, { "aggs", NULL } },
	[RK_STACK] = { "stack", DTC_ACT_STACK, 1, 0, { "pcsize", NULL } },
	[RK_USTACK] = { "ustack", DTC_ACT_USTACK, 1, 0, { "strsize", NULL } },
	[RK_JSTACK] = { "jstack", DTC_ACT_JSTACK, 1, 0, { "strsize", NULL } },
	[RK_SYM] = { "sym", DTC_ACT_SYM, 1, 0, { NULL } },
	[RK_MOD] = { "mod", DTC_ACT_MOD, 1, 0, { NULL } },
	[RK_USYM] = { "usym", DTC_ACT_USYM, 1, 0, { NULL } },
	[RK_UMOD] = { "umod", DTC_ACT_UMOD, 1, 0, { NULL } },
	[RK_UADDR] = { "uaddr", DTC_ACT_UADDR, 1, 0, { NULL } },
	[RK_TRACEMEM] = { "tracemem", DTC_ACT_TRACEMEM, 0, 0,
	    { "dynamic", NULL } },
	[RK_EXIT] = { "exit", DTC_ACT_EXIT, 0, 0, { NULL } },
	[RK_CLEAR] = { "clear", DTC_ACT_LIBACT, 0, 0, { NULL } },
	[RK_DENORMALIZE] = { "denormalize", DTC_ACT_LIBACT, 0, 0, { NULL } },
	[RK_NORMALIZE] = { "normalize", DTC_ACT_LIBACT, 0, 1, { NULL } },
	[RK_TRUNC] = { "trunc", DTC_ACT_LIBACT, 0, 1, { NULL } },
	[RK_SETOPT] = { "setopt", DTC_ACT_LIBACT, 0, 0, { "value", NULL } },
	[RK_FTRUNCATE] = { "ftruncate", DTC_ACT_LIBACT, 0, 0, { NULL } },
	[RK_SPECULATE] = { "speculate", DTC_ACT_SPECULATE, 0, 0, { NULL } },
	[RK_COMMIT] = { "commit", DTC_ACT_COMMIT, 0, 0, { NULL } },
	[RK_DISCARD] = { "discard", DTC_ACT_DISCARD, 0, 0, { NULL } },
	[RK_CHILL] = { "chill", DTC_ACT_CHILL, 0, 0, { NULL } },
	[RK_STOP] = { "stop", DTC_ACT_STOP, 0, 0, { NULL } },
	[RK_RAISE] = { "raise", DTC_ACT_RAISE, 0, 0, { NULL } },
	[RK_BREAKPOINT] = { "breakpoint", DTC_ACT_BREAKPOINT, 0, 0, { NULL } },
	[RK_PANIC] = { "panic", DTC_ACT_PANIC, 0, 0, { NULL } },
	[RK_ACTION] = { "action", 0, 1, 1, { NULL } },
	[RK_PRINT] = { "print", DTC_ACT_DIFEXPR, 0, 0, { NULL } },
};

static const char *const overrides[] = {
	"size", "offset", "alignment", "format", "arg", "uarg"
};

/* Which kind a REC object is: exactly one kind key must be present. */
static int
rec_kind(synth *s, json_t *v, int key, int *kind)
{
	int k, found = -1;

	if (sy_object(s, v) != 0)
		return -1;
	for (k = 0; k < RK_COUNT; k++) {
		if (json_object_get(v, rkinds[k].key) == NULL)
			continue;
		if (found >= 0)
			return sy_fail(s, "both \"%s\" and \"%s\": one action "
			    "per REC", rkinds[found].key, rkinds[k].key);
		found = k;
	}
	if (found < 0)
		return sy_fail(s, "no action key (trace, printf, printa, "
		    "stack, exit, action, ...)");
	if (key && !rkinds[found].keyok)
		return sy_fail(s, "%s() cannot be an aggregation key",
		    rkinds[found].key);
	*kind = found;
	return 0;
}

/* A flag-like kind ({"sym": true}) must say true. */
static int
want_true(synth *s, json_t *v, const char *key)
{
	size_t mark = sy_key(s, key);
	int rc = 0;

	if (!json_is_true(v))
		rc = sy_fail(s, "expected true");
	sy_pop(s, mark);
	return rc;
}

/* printf(), system(), freopen(): one record per argument. */
static int
rec_printf(synth *s, json_t *v, const char *kn, json_t *kv, uint16_t action,
    uint32_t fmtid, uint64_t uarg, sy_rd **rds, uint32_t *n)
{
	json_t *args = json_object_get(v, "args"), *a;
	size_t i, mark;
	uint32_t size = 0;
	int enc = SY_ENC_NONE;
	sy_rd *rd;

	mark = sy_key(s, kn);
	if (!json_is_string(kv))
		return sy_fail(s, "expected the format string");
	if (sy_format_add(s, json_string_value(kv), &fmtid) != 0)
		return -1;
	sy_pop(s, mark);
	mark = sy_key(s, "args");
	if (args != NULL && sy_array(s, args) != 0) {
		sy_pop(s, mark);
		return -1;
	}
	json_array_foreach(args, i, a) {
		size_t m2 = sy_idx(s, i);

		if (printf_arg(s, a, &size, &enc) != 0 ||
		    (rd = add_rd(s, rds, n, action, size, enc, 0, uarg)) == NULL)
			return -1;
		rd->rd.format = (uint16_t)fmtid;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	/* a printf without arguments still has one 8-byte record of 0 */
	if (args == NULL || json_array_size(args) == 0) {
		if ((rd = add_fixed(s, rds, n, action, 8, 0, uarg, NULL, 0)) ==
		    NULL)
			return -1;
		rd->rd.format = (uint16_t)fmtid;
	}
	return 0;
}

/* printa(): one 8-byte record per aggregation, holding its varid. */
static int
rec_printa(synth *s, json_t *v, const char *kn, json_t *kv, uint32_t fmtid,
    uint64_t uarg, sy_rd **rds, uint32_t *n)
{
	json_t *aggs = json_object_get(v, "aggs"), *a;
	size_t i, mark;
	sy_agg *agg;
	sy_rd *rd;

	mark = sy_key(s, kn);
	if (json_is_string(kv)) {
		if (sy_format_add(s, json_string_value(kv), &fmtid) != 0)
			return -1;
	} else if (!json_is_null(kv)) {
		return sy_fail(s, "expected a format string or null");
	}
	sy_pop(s, mark);
	mark = sy_key(s, "aggs");
	if (sy_array(s, aggs) != 0)
		return -1;
	if (json_array_size(aggs) == 0)
		return sy_fail(s, "printa needs at least one aggregation");
	json_array_foreach(aggs, i, a) {
		size_t m2 = sy_idx(s, i);

		if ((agg = sy_agg_lookup(s, a)) == NULL ||
		    (rd = add_varid(s, rds, n, DTC_ACT_PRINTA, 0, uarg,
		    agg)) == NULL)
			return -1;
		rd->rd.format = (uint16_t)fmtid;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

/* ustack()/jstack(): pid, nframes pcs, then the string table. */
static int
rec_ustack(synth *s, json_t *v, const char *kn, json_t *kv, uint16_t action,
    uint64_t uarg, sy_rd **rds, uint32_t *n)
{
	uint64_t nf, size;
	uint32_t ss, ptr = s->ilp32 ? 4 : 8;
	sy_rd *rd;

	size_t mark = sy_key(s, kn);

	if (sy_u64(s, kv, SY_MAX_FRAMES, &nf) != 0)
		return -1;
	sy_pop(s, mark);
	/* 0 frames means the option's default, as the kernel does */
	if (nf == 0)
		nf = action == DTC_ACT_JSTACK ? 50 : 20;
	if (sy_get_u32(s, v, "strsize", 0, action == DTC_ACT_JSTACK ? 512 : 0,
	    SY_MAX_BUF, &ss) != 0)
		return -1;
	size = (nf + 1) * 8 + ss;
	size = (size + ptr - 1) / ptr * ptr;
	if ((rd = add_rd(s, rds, n, action, (uint32_t)size, SY_ENC_USTACK,
	    (uint64_t)ss << 32 | nf, uarg)) == NULL)
		return -1;
	rd->nframes = (uint32_t)nf;
	rd->strsize = ss;
	return 0;
}

/* normalize()/trunc(): the varid, then n. */
static int
rec_varid_n(synth *s, json_t *v, const char *kn, json_t *kv, uint64_t arg,
    int nullok, uint64_t uarg, sy_rd **rds, uint32_t *n)
{
	sy_agg *agg;
	uint32_t size;
	sy_rd *rd;
	size_t mark = sy_key(s, kn);

	if ((agg = sy_agg_lookup(s, kv)) == NULL)
		return -1;
	sy_pop(s, mark);
	if (sy_get_u32(s, v, "size", 0, 8, SY_MAX_BUF, &size) != 0 ||
	    add_varid(s, rds, n, DTC_ACT_LIBACT, arg, uarg, agg) == NULL ||
	    (rd = add_rd(s, rds, n, DTC_ACT_LIBACT, size, enc_for_size(size),
	    arg, uarg)) == NULL)
		return -1;
	rd->nullok = nullok;
	return 0;
}

/* setopt(): the option name and value as strsize-byte strings. */
static int
rec_setopt(synth *s, json_t *v, const char *kn, json_t *kv, uint64_t arg,
    uint64_t uarg, sy_rd **rds, uint32_t *n)
{
	const char *name, *val;
	size_t mark = sy_key(s, kn);

	if (!json_is_string(kv))
		return sy_fail(s, "expected the option name");
	sy_pop(s, mark);
	name = json_string_value(kv);
	if (sy_get_str(s, v, "value", 0, NULL, &val) != 0)
		return -1;
	if (add_fixed(s, rds, n, DTC_ACT_LIBACT, s->strsize, arg, uarg, name,
	    strlen(name) + 1) == NULL)
		return -1;
	/* without a value libdtrace records the integer 0 (dt_cc.c) */
	if (val == NULL)
		return add_fixed(s, rds, n, DTC_ACT_LIBACT, 8, arg, uarg, NULL,
		    0) == NULL ? -1 : 0;
	return add_fixed(s, rds, n, DTC_ACT_LIBACT, s->strsize, arg, uarg,
	    val, strlen(val) + 1) == NULL ? -1 : 0;
}

/* trace(): an integer of 1/2/4/8 bytes, a string, or bytes. */
static int
rec_trace(synth *s, json_t *v, json_t *kv, uint64_t uarg, sy_rd **rds,
    uint32_t *n, int *size_used, char *what, size_t wlen)
{
	size_t mark = sy_key(s, "trace");
	const char *t;
	uint32_t size;

	if (json_is_integer(kv)) {
		json_int_t k = json_integer_value(kv);

		if (k != 1 && k != 2 && k != 4 && k != 8)
			return sy_fail(s, "an integer is 1, 2, 4 or 8 bytes");
		sy_pop(s, mark);
		snprintf(what, wlen, "trace(int%d)", (int)k * 8);
		return add_rd(s, rds, n, DTC_ACT_DIFEXPR, (uint32_t)k,
		    SY_ENC_INT, 0, uarg) == NULL ? -1 : 0;
	}
	t = json_is_string(kv) ? json_string_value(kv) : "";
	if (strcmp(t, "string") != 0 && strcmp(t, "bytes") != 0)
		return sy_fail(s, "expected 1, 2, 4, 8, \"string\" or "
		    "\"bytes\"");
	sy_pop(s, mark);
	/* a by-reference string is strsize bytes, whatever its length */
	if (sy_get_u32(s, v, "size", t[0] == 'b', s->strsize, SY_MAX_BUF,
	    &size) != 0)
		return -1;
	*size_used = 1;
	snprintf(what, wlen, "trace(%s)", t);
	return add_rd(s, rds, n, DTC_ACT_DIFEXPR, size, SY_ENC_BYTES, 0,
	    uarg) == NULL ? -1 : 0;
}

/* Overrides for bad-input fixtures: they change what the recdesc says. */
static int
rec_overrides(synth *s, json_t *v, sy_rd *rd, uint32_t n, int size_used)
{
	json_t *x;
	uint64_t u;
	uint32_t i;
	size_t mark;

	if (!size_used && (x = json_object_get(v, "size")) != NULL) {
		mark = sy_key(s, "size");
		if (sy_u64(s, x, SY_MAX_BUF, &u) != 0)
			return -1;
		sy_pop(s, mark);
		for (i = 0; i < n; i++) {
			if (rd[i].enc == SY_ENC_FIXED) {
				uint8_t *nf = realloc(rd[i].fixed, u ? u : 1);

				if (nf == NULL)
					return sy_nomem(s);
				if (u > rd[i].rd.size)
					memset(nf + rd[i].rd.size, 0,
					    u - rd[i].rd.size);
				rd[i].fixed = nf;
			} else if (rd[i].enc == SY_ENC_NONE ||
			    rd[i].enc == SY_ENC_INT) {
				rd[i].enc = enc_for_size((uint32_t)u);
			}
			rd[i].rd.size = (uint32_t)u;
			rd[i].rd.alignment = sy_natural_align((uint32_t)u);
		}
	}
	if ((x = json_object_get(v, "offset")) != NULL && n > 0) {
		mark = sy_key(s, "offset");
		if (sy_u64(s, x, UINT32_MAX, &u) != 0)
			return -1;
		sy_pop(s, mark);
		rd[0].rd.offset = (uint32_t)u;
		rd[0].has_offset = 1;
	}
	if ((x = json_object_get(v, "alignment")) != NULL) {
		mark = sy_key(s, "alignment");
		if (sy_u64(s, x, UINT16_MAX, &u) != 0)
			return -1;
		sy_pop(s, mark);
		for (i = 0; i < n; i++) {
			rd[i].rd.alignment = (uint16_t)u;
			rd[i].has_align = 1;
		}
	}
	if ((x = json_object_get(v, "format")) != NULL) {
		mark = sy_key(s, "format");
		if (sy_u64(s, x, UINT16_MAX, &u) != 0)
			return -1;
		sy_pop(s, mark);
		for (i = 0; i < n; i++)
			rd[i].rd.format = (uint16_t)u;
	}
	if ((x = json_object_get(v, "arg")) != NULL) {
		mark = sy_key(s, "arg");
		if (sy_u64(s, x, UINT64_MAX, &u) != 0)
			return -1;
		sy_pop(s, mark);
		for (i = 0; i < n; i++)
			rd[i].rd.arg = u;
	}
	return 0;
}

int
sy_rec_parse(synth *s, json_t *v, int key, uint64_t stmt, sy_rd **rds,
    uint32_t *nrds, sy_rec *rec)
{
	const char *allowed[16];
	const struct rkind *rk;
	int kind = 0, na = 0, size_used = 0, ndata = 0, rc = 0;
	uint32_t i, fmtid, first = *nrds, size;
	uint64_t uarg, base = s->act_base, u;
	json_t *kv;
	size_t mark;

	if (rec_kind(s, v, key, &kind) != 0)
		return -1;
	rk = &rkinds[kind];
	allowed[na++] = rk->key;
	for (i = 0; rk->extra[i] != NULL; i++)
		allowed[na++] = rk->extra[i];
	for (i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++)
		allowed[na++] = overrides[i];
	allowed[na] = NULL;
	if (sy_keys(s, v, allowed) != 0 ||
	    sy_get_u32(s, v, "format", 0, 0, UINT16_MAX, &fmtid) != 0 ||
	    sy_get_u64(s, v, "uarg", 0, stmt, UINT64_MAX, &uarg) != 0)
		return -1;
	kv = json_object_get(v, rk->key);
	memset(rec, 0, sizeof(*rec));
	snprintf(rec->what, sizeof(rec->what), "%s", rk->key);
	rec->shape = SY_SHAPE_ONE;

	switch (kind) {
	case RK_TRACE:
		rc = rec_trace(s, v, kv, uarg, rds, nrds, &size_used,
		    rec->what, sizeof(rec->what));
		break;
	case RK_PRINTF:
	case RK_SYSTEM:
	case RK_FREOPEN:
		rc = rec_printf(s, v, rk->key, kv, rk->action, fmtid, uarg,
		    rds, nrds);
		rec->shape = SY_SHAPE_LIST;
		break;
	case RK_PRINTA:
		rc = rec_printa(s, v, rk->key, kv, fmtid, uarg, rds, nrds);
		break;
	case RK_PRINT: {
		/* legacy print(): a DIFEXPR of the type's size whose format
		 * string is "module`id" (dtrace_print's lookup key) */
		sy_rd *rd;

		mark = sy_key(s, rk->key);
		if (!json_is_string(kv)) {
			rc = sy_fail(s, "expected \"module`id\"");
			break;
		}
		if (sy_ctf_size(s, json_string_value(kv), &size) != 0 ||
		    sy_format_add(s, json_string_value(kv), &fmtid) != 0 ||
		    (rd = add_rd(s, rds, nrds, DTC_ACT_DIFEXPR, size,
		    SY_ENC_BYTES, 0, uarg)) == NULL) {
			rc = -1;
			break;
		}
		rd->rd.format = (uint16_t)fmtid;
		sy_pop(s, mark);
		rc = 0;
		break;
	}
	case RK_STACK: {
		uint32_t pcsize;
		sy_rd *rd;

		mark = sy_key(s, rk->key);
		if (sy_u64(s, kv, SY_MAX_FRAMES, &u) != 0)
			return -1;
		sy_pop(s, mark);
		if (u == 0)
			u = s->stackframes;
		if (sy_get_u32(s, v, "pcsize", 0, s->ilp32 ? 4 : 8, 8,
		    &pcsize) != 0)
			return -1;
		if (pcsize == 0)
			return sy_fail(s, "pcsize 0");
		if ((rd = add_rd(s, rds, nrds, DTC_ACT_STACK,
		    (uint32_t)u * pcsize, SY_ENC_STACK, u, uarg)) == NULL)
			return -1;
		rd->nframes = (uint32_t)u;
		rd->pcsize = pcsize;
		break;
	}
	case RK_USTACK:
	case RK_JSTACK:
		rc = rec_ustack(s, v, rk->key, kv, rk->action, uarg, rds,
		    nrds);
		break;
	case RK_SYM:
	case RK_MOD:
	case RK_EXIT:
		if (want_true(s, kv, rk->key) != 0)
			return -1;
		rc = add_rd(s, rds, nrds, rk->action, kind == RK_EXIT ? 4 : 8,
		    SY_ENC_INT, 0, uarg) == NULL ? -1 : 0;
		break;
	case RK_USYM:
	case RK_UMOD:
	case RK_UADDR:
		if (want_true(s, kv, rk->key) != 0)
			return -1;
		rc = add_rd(s, rds, nrds, rk->action, 16, SY_ENC_PIDADDR, 0,
		    uarg) == NULL ? -1 : 0;
		break;
	case RK_TRACEMEM: {
		int dyn;

		mark = sy_key(s, rk->key);
		if (sy_u64(s, kv, SY_MAX_BUF, &u) != 0)
			return -1;
		sy_pop(s, mark);
		if (sy_get_bool(s, v, "dynamic", 0, &dyn) != 0)
			return -1;
		/* the dynamic size comes first, as its own record */
		if (dyn) {
			if (add_rd(s, rds, nrds, DTC_ACT_TRACEMEM_DYNSIZE, 8,
			    SY_ENC_INT, 0, uarg) == NULL)
				return -1;
			rec->shape = SY_SHAPE_LIST;
		}
		rc = add_rd(s, rds, nrds, DTC_ACT_TRACEMEM, (uint32_t)u,
		    SY_ENC_BYTES, 0, uarg) == NULL ? -1 : 0;
		break;
	}
	case RK_CLEAR:
	case RK_DENORMALIZE: {
		sy_agg *agg;

		mark = sy_key(s, rk->key);
		if ((agg = sy_agg_lookup(s, kv)) == NULL)
			return -1;
		sy_pop(s, mark);
		rc = add_varid(s, rds, nrds, DTC_ACT_LIBACT, base +
		    (kind == RK_CLEAR ? DTC_LIBACT_CLEAR :
		    DTC_LIBACT_DENORMALIZE), uarg, agg) == NULL ? -1 : 0;
		break;
	}
	case RK_NORMALIZE:
		rc = rec_varid_n(s, v, rk->key, kv,
		    base + DTC_LIBACT_NORMALIZE, 0, uarg, rds, nrds);
		size_used = 1;
		break;
	case RK_TRUNC:
		rc = rec_varid_n(s, v, rk->key, kv, base + DTC_LIBACT_TRUNC, 1,
		    uarg, rds, nrds);
		size_used = 1;
		break;
	case RK_SETOPT:
		rc = rec_setopt(s, v, rk->key, kv, base + DTC_LIBACT_SETOPT,
		    uarg, rds, nrds);
		break;
	case RK_FTRUNCATE:
		if (want_true(s, kv, rk->key) != 0)
			return -1;
		rc = add_fixed(s, rds, nrds, DTC_ACT_LIBACT, 4,
		    base + DTC_LIBACT_FTRUNCATE, uarg, NULL, 0) == NULL ? -1 : 0;
		break;
	case RK_ACTION:
		mark = sy_key(s, rk->key);
		if (sy_u64(s, kv, UINT16_MAX, &u) != 0)
			return -1;
		sy_pop(s, mark);
		if (sy_get_u32(s, v, "size", 1, 0, SY_MAX_BUF, &size) != 0)
			return -1;
		size_used = 1;
		rc = add_rd(s, rds, nrds, (uint16_t)u, size,
		    enc_for_size(size), 0, uarg) == NULL ? -1 : 0;
		break;
	default:    /* speculate, commit, ... : records of size 0 */
		if (want_true(s, kv, rk->key) != 0)
			return -1;
		rc = add_rd(s, rds, nrds, rk->action, 0, SY_ENC_NONE, 0,
		    uarg) == NULL ? -1 : 0;
		break;
	}
	if (rc != 0 || rec_overrides(s, v, *rds + first, *nrds - first,
	    size_used) != 0)
		return -1;
	rec->first = first;
	rec->n = *nrds - first;
	for (i = first; i < *nrds; i++)
		if ((*rds)[i].enc != SY_ENC_NONE &&
		    (*rds)[i].enc != SY_ENC_FIXED)
			ndata++;
	if (rec->shape == SY_SHAPE_ONE && ndata == 0)
		rec->shape = SY_SHAPE_NONE;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Data                                                                */
/* ------------------------------------------------------------------ */

/*
 * Bytes of a record: a JSON string is copied as dtrace_store_by_ref
 * copies a string (up to size bytes, NUL-terminated when it fits, the
 * rest zero); {"hex"} gives exact bytes, zero-padded.
 */
static int
enc_bytes(synth *s, json_t *v, uint8_t *dst, uint32_t size)
{
	uint8_t *b;
	size_t n;

	if (json_is_string(v)) {
		n = json_string_length(v);
		memcpy(dst, json_string_value(v), n < size ? n : size);
		return 0;
	}
	if (!json_is_object(v))
		return sy_fail(s, "expected a string or {\"hex\": ...}");
	if (sy_hex(s, v, &b, &n) != 0)
		return -1;
	if (n > size) {
		free(b);
		return sy_fail(s, "%zu bytes of hex for a record of %" PRIu32,
		    n, size);
	}
	memcpy(dst, b, n);
	free(b);
	return 0;
}

/* [pc, ...]: unused frames stay 0, as the kernel leaves them. */
static int
enc_pcs(synth *s, json_t *v, uint8_t *dst, uint32_t nframes, uint32_t pcsize)
{
	json_t *pc;
	size_t i, mark;
	uint64_t x;

	if (sy_array(s, v) != 0)
		return -1;
	if (json_array_size(v) > nframes)
		return sy_fail(s, "%zu pcs for %" PRIu32 " frames",
		    json_array_size(v), nframes);
	json_array_foreach(v, i, pc) {
		mark = sy_idx(s, i);
		if (sy_bits(s, pc, pcsize, &x) != 0)
			return -1;
		sy_pop(s, mark);
		sy_store(s, dst + i * pcsize, x, pcsize);
	}
	return 0;
}

/* {"pid": P, "pcs": [...], "strs": ["frame0", ...] or {"hex"}} */
static int
enc_ustack(synth *s, const sy_rd *rd, json_t *v, uint8_t *dst)
{
	static const char *const keys[] = { "pid", "pcs", "strs", NULL };
	json_t *pcs, *strs, *str;
	uint64_t pid;
	uint8_t *tab = dst + ((size_t)rd->nframes + 1) * 8;
	size_t i, n, off = 0, mark;

	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u64(s, v, "pid", 0, 0, UINT64_MAX, &pid) != 0)
		return -1;
	sy_store(s, dst, pid, 8);
	if ((pcs = json_object_get(v, "pcs")) != NULL) {
		mark = sy_key(s, "pcs");
		if (enc_pcs(s, pcs, dst + 8, rd->nframes, 8) != 0)
			return -1;
		sy_pop(s, mark);
	}
	if ((strs = json_object_get(v, "strs")) == NULL)
		return 0;
	mark = sy_key(s, "strs");
	if (json_is_object(strs)) {
		if (enc_bytes(s, strs, tab, rd->strsize) != 0)
			return -1;
		sy_pop(s, mark);
		return 0;
	}
	if (sy_array(s, strs) != 0)
		return -1;
	/* one NUL-terminated string per frame, back to back */
	json_array_foreach(strs, i, str) {
		size_t m2 = sy_idx(s, i);

		if (!json_is_string(str))
			return sy_fail(s, "expected a string");
		n = json_string_length(str) + 1;
		if (off + n > rd->strsize)
			return sy_fail(s, "the string table needs more than "
			    "strsize %" PRIu32 " bytes", rd->strsize);
		memcpy(tab + off, json_string_value(str), n);
		off += n;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

int
sy_rd_encode(synth *s, const sy_rd *rd, json_t *v, uint8_t *base,
    uint32_t limit)
{
	uint32_t size = rd->rd.size;
	uint8_t *dst = base + rd->rd.offset;
	uint64_t x;
	json_t *e;
	size_t mark;

	if (v != NULL && json_is_null(v))
		v = NULL;
	if (rd->enc == SY_ENC_NONE || rd->enc == SY_ENC_FIXED) {
		if (v != NULL)
			return sy_fail(s, "this record takes no data (null)");
	} else if (v == NULL && !rd->nullok) {
		return sy_fail(s, "missing data for this record");
	}
	/* a record placed outside its enabling by an override: no data */
	if ((uint64_t)rd->rd.offset + size > limit || size == 0)
		return 0;
	switch (rd->enc) {
	case SY_ENC_FIXED:
		memcpy(dst, rd->fixed, size);
		return 0;
	case SY_ENC_INT:
		if (v == NULL)
			return 0;
		if (size != 1 && size != 2 && size != 4 && size != 8)
			return enc_bytes(s, v, dst, size);
		if (sy_bits(s, v, size, &x) != 0)
			return -1;
		sy_store(s, dst, x, size);
		return 0;
	case SY_ENC_BYTES:
		return enc_bytes(s, v, dst, size);
	case SY_ENC_STACK:
		if (size < rd->nframes * rd->pcsize)
			return sy_fail(s, "stack record smaller than its frames");
		return enc_pcs(s, v, dst, rd->nframes, rd->pcsize);
	case SY_ENC_USTACK:
		if (size < (rd->nframes + 1) * 8 + rd->strsize)
			return sy_fail(s, "ustack record smaller than its frames");
		return enc_ustack(s, rd, v, dst);
	case SY_ENC_PIDADDR:
		if (size < 16)
			return sy_fail(s, "record smaller than pid and address");
		if (sy_array(s, v) != 0)
			return -1;
		if (json_array_size(v) != 2)
			return sy_fail(s, "expected [pid, address]");
		json_array_foreach(v, mark, e) {
			size_t m2 = sy_idx(s, mark);

			if (sy_bits(s, e, 8, &x) != 0)
				return -1;
			sy_pop(s, m2);
			sy_store(s, dst + mark * 8, x, 8);
		}
		return 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Enabled probes                                                      */
/* ------------------------------------------------------------------ */

/*
 * dtrace_ecb_resize: records at the running size rounded up to their
 * alignment (size-0 records are not aligned), the total rounded up to
 * 4.  Aggregations of the enabling add their tuple beyond the records
 * (dte_needed, what a ring reserves) and make its alignment 8 (the
 * varid record is 8 bytes).  A clause that has actions but stores
 * nothing gets size 0, except speculate() alone.
 */
static void
ep_layout(synth *s, sy_ep *ep, int aggonly)
{
	uint32_t offs = RECHDR_SIZE, maxalign = 4, needed, i, a, size;
	int acts = ep->nrds > 0 || aggonly, aggs = 0;
	sy_rd *rd;

	for (i = 0; i < ep->nrds; i++) {
		rd = &ep->rds[i];
		size = rd->rd.size;
		a = sy_natural_align(size);
		if (a > maxalign)
			maxalign = a;
		if (size != 0 && offs % a != 0)
			offs += a - offs % a;
		if (!rd->has_offset)
			rd->rd.offset = offs;
		if (!rd->has_align)
			rd->rd.alignment = (uint16_t)a;
		offs += size;
	}
	needed = offs;
	for (i = 0; i < s->naggs; i++) {
		if (s->aggs[i].epid != ep->epid)
			continue;
		acts = aggs = 1;
		maxalign = 8;
		if (sy_agg_needed(&s->aggs[i], offs) > needed)
			needed = sy_agg_needed(&s->aggs[i], offs);
	}
	ep->align = maxalign;
	if (acts && offs == RECHDR_SIZE && !(ep->nrds == 1 && !aggs &&
	    ep->rds[0].rd.action == DTC_ACT_SPECULATE)) {
		ep->size = 0;
		ep->needed = needed == RECHDR_SIZE ? 0 : needed;
		return;
	}
	ep->size = (offs + 3) & ~3u;
	ep->needed = (needed + 3) & ~3u;
}

/* libdtrace's ERROR enabling: trace(arg1) ... trace(arg5). */
static int
ep_error(synth *s, sy_ep *ep)
{
	uint32_t i;

	if ((ep->recs = calloc(5, sizeof(*ep->recs))) == NULL)
		return sy_nomem(s);
	for (i = 0; i < 5; i++) {
		if (add_rd(s, &ep->rds, &ep->nrds, DTC_ACT_DIFEXPR, 8,
		    SY_ENC_INT, 0, i + 1) == NULL)
			return -1;
		ep->recs[i].shape = SY_SHAPE_ONE;
		ep->recs[i].first = i;
		ep->recs[i].n = 1;
		snprintf(ep->recs[i].what, sizeof(ep->recs[i].what),
		    "trace(arg%u)", i + 1);
	}
	ep->nrecs = 5;
	return 0;
}

int
sy_ep_parse(synth *s, json_t *v, sy_ep *ep)
{
	static const char *const keys[] = { "epid", "probe", "recs", "error",
	    "aggonly", "uarg", "size", NULL };
	json_t *recs, *r;
	int error, aggonly;
	size_t i, mark;
	uint32_t size;

	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u32(s, v, "epid", 1, 0, UINT32_MAX, &ep->epid) != 0 ||
	    sy_get_u32(s, v, "probe", 1, 0, UINT32_MAX, &ep->probe) != 0 ||
	    sy_get_bool(s, v, "error", 0, &error) != 0 ||
	    sy_get_bool(s, v, "aggonly", 0, &aggonly) != 0 ||
	    sy_get_u64(s, v, "uarg", 0, error ? 1 : 0, UINT64_MAX,
	    &ep->uarg) != 0)
		return -1;
	if (ep->epid == 0) {
		mark = sy_key(s, "epid");
		sy_fail(s, "epid 0 is DTRACE_EPIDNONE (padding)");
		sy_pop(s, mark);
		return -1;
	}
	recs = json_object_get(v, "recs");
	if (error) {
		if (recs != NULL)
			return sy_fail(s, "the ERROR enabling (\"error\": true) "
			    "has its five records already: no \"recs\"");
		if (ep_error(s, ep) != 0)
			return -1;
	} else {
		mark = sy_key(s, "recs");
		if (sy_array(s, recs) != 0)
			return -1;
		if (aggonly && json_array_size(recs) > 0)
			return sy_fail(s, "an aggregation-only clause "
			    "(\"aggonly\": true) has no records");
		if (json_array_size(recs) > SY_MAX_RECS)
			return sy_fail(s, "too many records");
		ep->recs = calloc(json_array_size(recs) + 1,
		    sizeof(*ep->recs));
		if (ep->recs == NULL)
			return sy_nomem(s);
		json_array_foreach(recs, i, r) {
			size_t m2 = sy_idx(s, i);

			/* each REC is its own statement unless it says */
			if (sy_rec_parse(s, r, 0, i + 1, &ep->rds, &ep->nrds,
			    &ep->recs[i]) != 0)
				return -1;
			ep->nrecs++;
			sy_pop(s, m2);
		}
		sy_pop(s, mark);
	}
	ep_layout(s, ep, aggonly);
	if (json_object_get(v, "size") != NULL) {
		if (sy_get_u32(s, v, "size", 1, 0, SY_MAX_BUF, &size) != 0)
			return -1;
		ep->size = size;
		if (ep->needed < size)
			ep->needed = size;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

static int
takes_data(const sy_rd *rd)
{
	return rd->enc != SY_ENC_NONE && rd->enc != SY_ENC_FIXED;
}

/* The data item of one REC onto its records (rb: the record). */
static int
fill_rec(synth *s, const sy_ep *ep, const sy_rec *rec, json_t *item,
    uint8_t *rb)
{
	const sy_rd *rds = ep->rds + rec->first;
	uint32_t i, k = 0, ndata = 0;
	size_t mark;

	if (item != NULL && json_is_null(item))
		item = NULL;
	for (i = 0; i < rec->n; i++)
		ndata += takes_data(&rds[i]);
	switch (rec->shape) {
	case SY_SHAPE_NONE:
		if (item != NULL)
			return sy_fail(s, "%s takes no data (null)", rec->what);
		for (i = 0; i < rec->n; i++)
			if (sy_rd_encode(s, &rds[i], NULL, rb, ep->size) != 0)
				return -1;
		return 0;
	case SY_SHAPE_ONE:
		if (item == NULL && ndata > 0 && !rds[rec->n - 1].nullok)
			return sy_fail(s, "missing data for %s", rec->what);
		for (i = 0; i < rec->n; i++)
			if (sy_rd_encode(s, &rds[i], takes_data(&rds[i]) ?
			    item : NULL, rb, ep->size) != 0)
				return -1;
		return 0;
	}
	/* a list: one element per record that takes data */
	if (item == NULL && ndata > 0)
		return sy_fail(s, "missing data for %s: a list of %" PRIu32
		    " value%s", rec->what, ndata, ndata == 1 ? "" : "s");
	if (item != NULL && (!json_is_array(item) ||
	    json_array_size(item) != ndata))
		return sy_fail(s, "%s takes a list of %" PRIu32 " value%s",
		    rec->what, ndata, ndata == 1 ? "" : "s");
	for (i = 0; i < rec->n; i++) {
		if (!takes_data(&rds[i])) {
			if (sy_rd_encode(s, &rds[i], NULL, rb, ep->size) != 0)
				return -1;
			continue;
		}
		mark = sy_idx(s, k);
		if (sy_rd_encode(s, &rds[i], json_array_get(item, k), rb,
		    ep->size) != 0)
			return -1;
		sy_pop(s, mark);
		k++;
	}
	return 0;
}

/* Header (EPID, timestamp high word, low word) and data of a record. */
static int
fill_record(synth *s, const sy_ep *ep, json_t *data, uint64_t ts,
    uint8_t *rb)
{
	size_t i, nd, mark;

	if (ep->size >= 4)
		sy_store(s, rb, ep->epid, 4);
	if (ep->size >= RECHDR_SIZE) {
		sy_store(s, rb + 4, ts >> 32, 4);
		sy_store(s, rb + 8, ts & 0xffffffffu, 4);
	}
	if (data != NULL && json_is_null(data))
		data = NULL;
	mark = sy_key(s, "data");
	if (data != NULL && sy_array(s, data) != 0)
		return -1;
	nd = data != NULL ? json_array_size(data) : 0;
	if (nd > ep->nrecs)
		return sy_fail(s, "%zu data items for the %" PRIu32 " actions "
		    "of enabling %" PRIu32, nd, ep->nrecs, ep->epid);
	for (i = 0; i < ep->nrecs; i++) {
		size_t m2 = sy_idx(s, i);

		if (fill_rec(s, ep, &ep->recs[i], i < nd ?
		    json_array_get(data, i) : NULL, rb) != 0)
			return -1;
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	return 0;
}

/* One RECORD of a buffer: its enabling and timestamp. */
static int
record_head(synth *s, json_t *v, const sy_ep **epp, uint64_t *ts)
{
	static const char *const keys[] = { "epid", "ts", "data", NULL };
	const sy_ep *ep;
	uint32_t epid;
	size_t mark;

	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u32(s, v, "epid", 1, 0, UINT32_MAX, &epid) != 0 ||
	    sy_get_u64(s, v, "ts", 0, s->clock + 1, UINT64_MAX, ts) != 0)
		return -1;
	mark = sy_key(s, "epid");
	if ((ep = sy_ep_lookup(s, epid)) == NULL)
		return sy_fail(s, "no enabling with epid %" PRIu32 " in "
		    "eprobes", epid);
	if (ep->size == 0)
		return sy_fail(s, "enabling %" PRIu32 " stores no data (size "
		    "0): the kernel never writes a record for it", epid);
	sy_pop(s, mark);
	s->clock = *ts;
	*epp = ep;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */
/* ------------------------------------------------------------------ */

/* A switch buffer: records from offset 0, EPIDNONE words before each. */
static int
switch_record(synth *s, json_t *v, sy_bytes *out)
{
	const sy_ep *ep;
	uint64_t ts;

	if (record_head(s, v, &ep, &ts) != 0)
		return -1;
	if (out->len % 4 != 0)
		return sy_fail(s, "the buffer is at offset %zu, not a multiple "
		    "of 4 (raw bytes before?): no EPIDNONE padding fits",
		    out->len);
	while (out->len % ep->align != 0)
		if (sy_bytes_zero(s, out, 4) != 0)
			return -1;
	if (sy_bytes_zero(s, out, ep->size) != 0)
		return -1;
	return fill_record(s, ep, json_object_get(v, "data"), ts,
	    out->p + out->len - ep->size);
}

/* The kernel's per-CPU ring (DTRACEBUF_RING). */
typedef struct ring {
	uint8_t *p;
	uint64_t size;
	uint64_t off;       /* dtb_offset: where the next record goes */
	uint64_t xoff;      /* dtb_xamot_offset: the oldest record */
	int wrapped;        /* DTRACEBUF_WRAPPED */
	uint64_t drops;
} ring;

/*
 * dtrace_buffer_reserve for a ring: when the record does not fit before
 * the end, the tail is zeroed and writing starts again at 0; the oldest
 * offset then skips whole records (and EPIDNONE words) until the new
 * record fits before it.  Returns 1 for a drop (bigger than the ring).
 */
static int
ring_reserve(synth *s, ring *r, uint64_t needed, uint64_t align,
    uint64_t *offp)
{
	uint64_t offs = r->off, woffs, total, sz;
	const sy_ep *ep;
	uint32_t epid;

	total = needed + (offs & (align - 1));
	if (r->wrapped || offs + total > r->size) {
		woffs = r->xoff;
		if (offs + total > r->size) {
			if (total > r->size) {
				r->drops++;
				return 1;
			}
			if (!r->wrapped || woffs >= offs)
				woffs = 0;
			memset(r->p + offs, 0, r->size - offs);
			offs = 0;
			total = needed;
			r->wrapped = 1;
		} else if (woffs < offs) {
			goto out;
		}
		while (offs + total > woffs) {
			epid = (uint32_t)sy_load(s, r->p + woffs, 4);
			if (epid == 0) {
				sz = 4;
			} else if ((ep = sy_ep_lookup(s, epid)) == NULL ||
			    ep->size == 0) {
				return sy_fail(s, "ring: no enabling %" PRIu32
				    " to skip at offset %" PRIu64, epid, woffs);
			} else {
				sz = ep->size;
			}
			if (woffs + sz > r->size)
				return sy_fail(s, "ring: record at offset %"
				    PRIu64 " runs past the end", woffs);
			if (woffs + sz == r->size) {
				/* the new record fills the ring exactly */
				if (offs == 0) {
					r->wrapped = 0;
					r->off = 0;
					memset(r->p + total, 0,
					    r->size - total);
				}
				woffs = 0;
				break;
			}
			woffs += sz;
		}
		r->xoff = woffs;
	}
out:
	while (offs & (align - 1)) {
		memset(r->p + offs, 0, 4);
		offs += 4;
	}
	*offp = offs;
	return 0;
}

static int
ring_record(synth *s, json_t *v, ring *r)
{
	const sy_ep *ep;
	uint64_t ts, offs = 0;
	int rc;

	if (json_object_get(v, "raw") != NULL)
		return sy_fail(s, "raw bytes cannot go in a ring (use a "
		    "switch buffer with \"oldest\")");
	if (record_head(s, v, &ep, &ts) != 0)
		return -1;
	if ((rc = ring_reserve(s, r, ep->needed, ep->align, &offs)) != 0) {
		if (rc < 0)
			return -1;
		/* dropped: the data must still be good */
		uint8_t *tmp = calloc(1, ep->size);

		if (tmp == NULL)
			return sy_nomem(s);
		rc = fill_record(s, ep, json_object_get(v, "data"), ts, tmp);
		free(tmp);
		return rc;
	}
	memset(r->p + offs, 0, ep->size);
	if (fill_record(s, ep, json_object_get(v, "data"), ts,
	    r->p + offs) != 0)
		return -1;
	r->off = offs + ep->size;
	return 0;
}

/*
 * The snapshot of a stopped ring (DTRACEIOC_BUFSNAP): a wrapped ring
 * is polished (gaps zeroed) and returned whole with oldest = the
 * wrapped offset; otherwise only the used part.
 */
static void
ring_snap(ring *r, sy_bytes *out, dtc_writer_buf *wb)
{
	if (r->wrapped) {
		if (r->off < r->xoff)
			memset(r->p + r->off, 0, r->xoff - r->off);
		if (r->off > r->xoff) {
			memset(r->p + r->off, 0, r->size - r->off);
			memset(r->p, 0, r->xoff);
		}
		out->len = r->size;
	} else {
		out->len = r->off;
	}
	wb->oldest = r->xoff;
	wb->drops += r->drops;
}

int
sy_buf_build(synth *s, json_t *v, dtc_writer_buf *wb, sy_bytes *out)
{
	static const char *const keys[] = { "cpu", "drops", "errors",
	    "timestamp", "records", "ring", "oldest", "size", NULL };
	static const char *const rkeys[] = { "size", NULL };
	json_t *recs, *rv, *rg;
	ring r;
	uint32_t cpu;
	uint64_t x;
	size_t i, mark;

	memset(&r, 0, sizeof(r));
	out->len = 0;
	if (sy_keys(s, v, keys) != 0 ||
	    sy_get_u32(s, v, "cpu", 1, 0, s->ncpu - 1, &cpu) != 0 ||
	    sy_get_u64(s, v, "drops", 0, 0, UINT64_MAX, &wb->drops) != 0 ||
	    sy_get_u64(s, v, "errors", 0, 0, UINT32_MAX, &wb->errors) != 0)
		return -1;
	wb->cpu = (int)cpu;
	if ((rg = json_object_get(v, "ring")) != NULL) {
		mark = sy_key(s, "ring");
		if (sy_keys(s, rg, rkeys) != 0 ||
		    sy_get_u64(s, rg, "size", 1, 0, SY_MAX_BUF, &r.size) != 0)
			return -1;
		if (r.size == 0 || r.size % 8 != 0)
			return sy_fail(s, "a ring is a multiple of 8 bytes");
		sy_pop(s, mark);
		if (sy_bytes_zero(s, out, r.size) != 0)
			return -1;
		r.p = out->p;
	}
	recs = json_object_get(v, "records");
	mark = sy_key(s, "records");
	if (recs != NULL && sy_array(s, recs) != 0)
		return -1;
	json_array_foreach(recs, i, rv) {
		size_t m2 = sy_idx(s, i);
		uint8_t *raw;
		size_t n;

		if (rg != NULL) {
			if (ring_record(s, rv, &r) != 0)
				return -1;
		} else if (json_is_object(rv) &&
		    json_object_get(rv, "raw") != NULL) {
			size_t m3 = sy_key(s, "raw");

			if (json_object_size(rv) != 1) {
				sy_pop(s, m3);
				return sy_fail(s, "a raw record has no other "
				    "keys");
			}
			if (sy_hexstr(s, json_object_get(rv, "raw"), &raw,
			    &n) != 0)
				return -1;
			sy_pop(s, m3);
			if (sy_bytes_put(s, out, raw, n) != 0) {
				free(raw);
				return -1;
			}
			free(raw);
		} else if (switch_record(s, rv, out) != 0) {
			return -1;
		}
		sy_pop(s, m2);
	}
	sy_pop(s, mark);
	if (rg != NULL)
		ring_snap(&r, out, wb);
	else
		wb->oldest = 0;
	if (sy_get_u64(s, v, "timestamp", 0, s->clock + 1, UINT64_MAX,
	    &wb->timestamp) != 0 ||
	    sy_get_u64(s, v, "oldest", 0, wb->oldest, UINT64_MAX,
	    &wb->oldest) != 0)
		return -1;
	/* the descriptor's size is the length of the data */
	if (json_object_get(v, "size") != NULL) {
		if (sy_get_u64(s, v, "size", 1, 0, SY_MAX_BUF, &x) != 0)
			return -1;
		if (x > out->len && sy_bytes_zero(s, out, x - out->len) != 0)
			return -1;
		out->len = x;
	}
	wb->data = out->p;
	wb->size = out->len;
	return 0;
}
