/*
 * program.c - the program behind a capture: the program item (dtsnap(5),
 * program) read into a dtc_program, and its clauses listed as `dtrace -S`
 * of DTrace for Linux lists them.
 *
 * The item is read apart from dtc_reader (dtc_program_read_*): the
 * program is asked about without decoding a trace, so the capture is
 * scanned with the container alone and reading stops at the first
 * program item.  Everything the returned dtc_program points to is
 * allocated for it and kept in one list, so that one call frees it.
 *
 * The listing follows the layout of dtrace-utils' dt_dis.c, which is
 * what an auditor compares it with: the column widths, the "! ..."
 * comments padded to column 30 of the instruction, and the guesses that
 * name a variable from the instructions before it (the code generator's
 * fixed sequences: those guesses read back up to 12 instructions, and
 * here never before the clause's first one).  The constants those
 * guesses need vary with the libdtrace release, so the capture carries
 * them (abi); the numbers of the variable and type tables are the
 * item's own, defined in dtsnap(5).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoders.h"

/* dtsnap(5), program: the values of the vars entries */
#define KIND_ARRAY 0
#define KIND_SCALAR 1
#define KIND_AGG 2
#define SCOPE_GLOBAL 0
#define SCOPE_THREAD 1
#define SCOPE_LOCAL 2
#define VF_REF 0x1
#define VF_MOD 0x2
#define TYPE_CTF 0
#define TYPE_STRING 1
#define TYPE_ANY 2
#define TF_BYREF 0x1
#define VAR_UBASE 0x500      /* the first user variable id */

/* eBPF (the kernel's instruction set): classes, fields, registers */
#define C_LD 0x00
#define C_LDX 0x01
#define C_ST 0x02
#define C_STX 0x03
#define C_ALU 0x04
#define C_JMP 0x05
#define C_JMP32 0x06
#define C_ALU64 0x07
#define M_IMM 0x00
#define M_MEM 0x60
#define M_XADD 0xc0
#define SRC_X 0x08
#define REG_R9 9
#define REG_FP 10
#define PSEUDO_CALL 1
#define R_NONE 0
#define R_64_64 1
#define R_64_32 10

#define INSN_LEN 30          /* where the comments start */

/* A program item holds what one dtrace(1) command line compiled. */
#define MAX_CLAUSES 65536

struct prog {
	dtc_program pub;
	void **allocs;
	size_t nallocs, cap;
};

typedef struct insn {
	uint8_t code, dst, src;
	int16_t off;
	int32_t imm;
} insn;

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct rd {
	struct prog *p;
	const dtcp_container *c;
	const dtcp_item *it;
	dtc_error *err;
} rd;

static int
bad(rd *r, const dtcp_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
bad(rd *r, const dtcp_node *n, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dtcp_error_set(r->err, DTC_E_BADVALUE, dtcp_container_source(r->c),
	    r->it->index, (long long)(n != NULL ? n->offset : r->it->offset),
	    -1, "program item: %s", msg);
	return DTC_WARN;
}

static void *
palloc(struct prog *p, size_t n, size_t size)
{
	void *m, **grown;

	if (p->nallocs == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;

		if ((grown = realloc(p->allocs, cap * sizeof(*grown))) == NULL)
			return NULL;
		p->allocs = grown;
		p->cap = cap;
	}
	if ((m = calloc(n ? n : 1, size)) == NULL)
		return NULL;
	p->allocs[p->nallocs++] = m;
	return m;
}

static int
nomem(rd *r)
{
	dtcp_error_set(r->err, DTC_E_NOMEM, dtcp_container_source(r->c),
	    r->it->index, (long long)r->it->offset, -1, "out of memory");
	return DTC_FATAL;
}

/* a text or byte node copied, NUL-ended */
static int
copy_str(rd *r, const dtcp_node *n, int type, const char **out,
    size_t *len)
{
	char *s;

	if (n == NULL || n->type != type)
		return bad(r, n, "%s expected",
		    type == DTCP_N_TEXT ? "text" : "bytes");
	if ((s = palloc(r->p, n->len + 1, 1)) == NULL)
		return nomem(r);
	if (n->len > 0)
		memcpy(s, n->ptr, n->len);
	*out = s;
	if (len != NULL)
		*len = n->len;
	return DTC_OK;
}

static int
key_str(rd *r, const dtcp_node *map, const char *key, int type,
    const char **out, size_t *len)
{
	const dtcp_node *n = dtcp_map_get(map, key);

	if (n == NULL)
		return bad(r, map, "no key '%s'", key);
	return copy_str(r, n, type, out, len);
}

static int
key_opt(rd *r, const dtcp_node *map, char *opt)
{
	const char *s;
	size_t len;
	int rc;

	if ((rc = key_str(r, map, "opt", DTCP_N_TEXT, &s, &len)) != DTC_OK)
		return rc;
	if (len != 1 || s[0] == '\0')
		return bad(r, map, "an option letter is one character");
	*opt = s[0];
	return DTC_OK;
}

static int
get_array(rd *r, const dtcp_node *map, const char *key,
    const dtcp_node **out)
{
	const dtcp_node *n = dtcp_map_get(map, key);

	if (n == NULL || n->type != DTCP_N_ARRAY)
		return bad(r, n != NULL ? n : map, "key '%s' is not an array",
		    key);
	*out = n;
	return DTC_OK;
}

/* an array of count unsigned integers each at most max */
static int
uints(rd *r, const dtcp_node *arr, uint32_t count, uint64_t *v,
    const uint64_t *max)
{
	const dtcp_node *n;
	uint32_t i;

	if (arr->type != DTCP_N_ARRAY || arr->count != count)
		return bad(r, arr, "an array of %u integers expected", count);
	for (i = 0, n = dtcp_first_child(arr); i < count;
	    i++, n = dtcp_next_sibling(n)) {
		if (n->type != DTCP_N_UINT || n->u > max[i])
			return bad(r, n, "element %u of the array is not an "
			    "integer from 0 to %llu", i,
			    (unsigned long long)max[i]);
		v[i] = n->u;
	}
	return DTC_OK;
}

static int
read_relocs(rd *r, const dtcp_node *cl, const char *key,
    const dtc_prog_reloc **out, size_t *nout)
{
	static const uint64_t max[4] = { UINT32_MAX, UINT32_MAX, UINT64_MAX,
	    UINT64_MAX };
	const dtcp_node *arr = NULL, *n;
	dtc_prog_reloc *rl;
	uint64_t v[4];
	uint32_t i;
	int rc;

	if ((rc = get_array(r, cl, key, &arr)) != DTC_OK)
		return rc;
	if ((rl = palloc(r->p, arr->count, sizeof(*rl))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n)) {
		if ((rc = uints(r, n, 4, v, max)) != DTC_OK)
			return rc;
		rl[i].name = (uint32_t)v[0];
		rl[i].type = (uint32_t)v[1];
		rl[i].offset = v[2];
		rl[i].data = v[3];
	}
	*out = rl;
	*nout = arr->count;
	return DTC_OK;
}

static int
read_vars(rd *r, const dtcp_node *cl, dtc_prog_clause *c)
{
	static const uint64_t max[12] = { UINT32_MAX, UINT32_MAX, UINT32_MAX,
	    UINT8_MAX, UINT8_MAX, UINT32_MAX, UINT32_MAX, UINT16_MAX,
	    UINT8_MAX, UINT8_MAX, UINT8_MAX, UINT32_MAX };
	const dtcp_node *arr = NULL, *n;
	dtc_prog_var *vs;
	uint64_t v[12];
	uint32_t i;
	int rc;

	if ((rc = get_array(r, cl, "vars", &arr)) != DTC_OK)
		return rc;
	if ((vs = palloc(r->p, arr->count, sizeof(*vs))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n)) {
		if ((rc = uints(r, n, 12, v, max)) != DTC_OK)
			return rc;
		vs[i].name = (uint32_t)v[0];
		vs[i].id = (uint32_t)v[1];
		vs[i].offset = (uint32_t)v[2];
		vs[i].kind = (uint8_t)v[3];
		vs[i].scope = (uint8_t)v[4];
		vs[i].from = (uint32_t)v[5];
		vs[i].to = (uint32_t)v[6];
		vs[i].flags = (uint16_t)v[7];
		vs[i].tkind = (uint8_t)v[8];
		vs[i].tckind = (uint8_t)v[9];
		vs[i].tflags = (uint8_t)v[10];
		vs[i].tsize = (uint32_t)v[11];
	}
	c->vars = vs;
	c->nvars = arr->count;
	return DTC_OK;
}

static int
read_xlate(rd *r, const dtcp_node *cl, dtc_prog_clause *c)
{
	const dtcp_node *arr = NULL, *n, *e;
	dtc_prog_xlate *x;
	uint32_t i;
	int rc;

	if ((rc = get_array(r, cl, "xlate", &arr)) != DTC_OK)
		return rc;
	if ((x = palloc(r->p, arr->count, sizeof(*x))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n)) {
		if (n->type != DTCP_N_ARRAY || n->count != 4)
			return bad(r, n, "an xlate entry is an array of 4");
		e = dtcp_first_child(n);
		if (e->type != DTCP_N_UINT || e->u > UINT32_MAX)
			return bad(r, e, "bad translator id");
		x[i].id = (uint32_t)e->u;
		e = dtcp_next_sibling(e);
		if (e->type == DTCP_N_UINT && e->u <= INT32_MAX)
			x[i].arg = (int32_t)e->u;
		else if (e->type == DTCP_N_NEGINT && e->u <= INT32_MAX)
			x[i].arg = (int32_t)(-1 - (int64_t)e->u);
		else
			return bad(r, e, "bad translator argument");
		e = dtcp_next_sibling(e);
		if ((rc = copy_str(r, e, DTCP_N_TEXT, &x[i].member, NULL)) !=
		    DTC_OK ||
		    (rc = copy_str(r, dtcp_next_sibling(e), DTCP_N_TEXT,
		    &x[i].type, NULL)) != DTC_OK)
			return rc;
	}
	c->xlate = x;
	c->nxlate = arr->count;
	return DTC_OK;
}

static int
read_helpers(rd *r, const dtcp_node *cl, dtc_prog_clause *c)
{
	const dtcp_node *arr = NULL, *n, *e;
	dtc_prog_helper *h;
	uint32_t i;
	int rc;

	if ((rc = get_array(r, cl, "helpers", &arr)) != DTC_OK)
		return rc;
	if ((h = palloc(r->p, arr->count, sizeof(*h))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n)) {
		if (n->type != DTCP_N_ARRAY || n->count != 2 ||
		    (e = dtcp_first_child(n))->type != DTCP_N_UINT ||
		    e->u > INT32_MAX)
			return bad(r, n, "a helpers entry is [id, name]");
		h[i].id = (uint32_t)e->u;
		if ((rc = copy_str(r, dtcp_next_sibling(e), DTCP_N_TEXT,
		    &h[i].name, NULL)) != DTC_OK)
			return rc;
	}
	c->helpers = h;
	c->nhelpers = arr->count;
	return DTC_OK;
}

static int
read_clause(rd *r, const dtcp_node *cl, dtc_prog_clause *c)
{
	const dtcp_node *n;
	const char *s;
	size_t len;
	int rc, i;

	if (cl->type != DTCP_N_MAP)
		return bad(r, cl, "a clause is a map");
	if ((n = dtcp_map_get(cl, "source")) == NULL ||
	    n->type != DTCP_N_UINT || n->u >= r->p->pub.nsources)
		return bad(r, n != NULL ? n : cl, "a clause's 'source' is not "
		    "the index of a source");
	c->source = (uint32_t)n->u;
	if ((rc = key_str(r, cl, "name", DTCP_N_TEXT, &c->name, NULL)) !=
	    DTC_OK)
		return rc;
	if ((n = dtcp_map_get(cl, "probe")) != NULL) {
		if (n->type != DTCP_N_ARRAY || n->count != 4)
			return bad(r, n, "a clause's 'probe' is an array of 4 "
			    "texts");
		c->has_probe = 1;
		for (i = 0, n = dtcp_first_child(n); i < 4;
		    i++, n = dtcp_next_sibling(n))
			if ((rc = copy_str(r, n, DTCP_N_TEXT, &c->probe[i],
			    NULL)) != DTC_OK)
				return rc;
	}
	if ((rc = key_str(r, cl, "insns", DTCP_N_BYTES, &s, &len)) != DTC_OK)
		return rc;
	if (len % 8 != 0)
		return bad(r, dtcp_map_get(cl, "insns"), "'insns' holds %zu "
		    "bytes, not a whole number of 8-byte instructions", len);
	c->insns = (const uint8_t *)s;
	c->ninsns = len / 8;
	if ((rc = key_str(r, cl, "strtab", DTCP_N_BYTES, &c->strtab,
	    &c->strlen)) != DTC_OK ||
	    (rc = read_vars(r, cl, c)) != DTC_OK ||
	    (rc = read_relocs(r, cl, "brel", &c->brel, &c->nbrel)) != DTC_OK ||
	    (rc = read_relocs(r, cl, "krel", &c->krel, &c->nkrel)) != DTC_OK ||
	    (rc = read_relocs(r, cl, "urel", &c->urel, &c->nurel)) != DTC_OK ||
	    (rc = read_xlate(r, cl, c)) != DTC_OK ||
	    (rc = read_helpers(r, cl, c)) != DTC_OK)
		return rc;
	return DTC_OK;
}

static int
read_abi(rd *r, const dtcp_node *map)
{
	static const char *const keys[7] = { "stk_dctx", "stk_spill_base",
	    "stk_slot", "stk_nregs", "dctx_strtab", "dctx_gvars",
	    "dctx_lvars" };
	dtc_prog_abi *a = &r->p->pub.abi;
	int64_t *dst[7] = { &a->stk_dctx, &a->stk_spill_base, &a->stk_slot,
	    &a->stk_nregs, &a->dctx_strtab, &a->dctx_gvars, &a->dctx_lvars };
	int64_t v;
	int i;

	if (map->type != DTCP_N_MAP)
		return bad(r, map, "'abi' is not a map");
	for (i = 0; i < 7; i++) {
		if (dtcp_get_i64(r->c, r->it, map, keys[i], 1, &v, r->err) !=
		    DTC_OK)
			return DTC_WARN;
		if (v < INT16_MIN || v > INT16_MAX)
			return bad(r, map, "abi '%s' is %lld, not a 16-bit "
			    "offset", keys[i], (long long)v);
		*dst[i] = v;
	}
	if (a->stk_slot <= 0 || a->stk_nregs < 0 || a->stk_nregs > 16)
		return bad(r, map, "abi: a stack slot of %lld bytes, %lld "
		    "registers", (long long)a->stk_slot,
		    (long long)a->stk_nregs);
	if (dtcp_get_u64(r->c, r->it, map, "ident_undef", 1, &a->ident_undef,
	    r->err) != DTC_OK)
		return DTC_WARN;
	r->p->pub.has_abi = 1;
	return DTC_OK;
}

static int
read_item(rd *r)
{
	const dtcp_node *map = &r->it->nodes[0], *arr = NULL, *n;
	dtc_program *pub = &r->p->pub;
	dtc_prog_source *src;
	dtc_prog_option *opt;
	dtc_prog_clause *cl;
	const char **mac;
	uint64_t u;
	uint32_t i;
	int rc;

	if ((rc = get_array(r, map, "sources", &arr)) != DTC_OK)
		return rc;
	if ((src = palloc(r->p, arr->count, sizeof(*src))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n)) {
		if (n->type != DTCP_N_MAP)
			return bad(r, n, "a source is a map");
		if ((rc = key_opt(r, n, &src[i].opt)) != DTC_OK ||
		    (rc = key_str(r, n, "arg", DTCP_N_TEXT, &src[i].arg,
		    NULL)) != DTC_OK ||
		    (rc = key_str(r, n, "text", DTCP_N_TEXT, &src[i].text,
		    &src[i].len)) != DTC_OK)
			return rc;
	}
	pub->sources = src;
	pub->nsources = arr->count;

	if ((rc = get_array(r, map, "options", &arr)) != DTC_OK)
		return rc;
	if ((opt = palloc(r->p, arr->count, sizeof(*opt))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n)) {
		if (n->type != DTCP_N_MAP)
			return bad(r, n, "an option is a map");
		if ((rc = key_opt(r, n, &opt[i].opt)) != DTC_OK)
			return rc;
		if (dtcp_map_get(n, "arg") != NULL &&
		    (rc = key_str(r, n, "arg", DTCP_N_TEXT, &opt[i].arg,
		    NULL)) != DTC_OK)
			return rc;
	}
	pub->options = opt;
	pub->noptions = arr->count;

	if ((rc = get_array(r, map, "macros", &arr)) != DTC_OK)
		return rc;
	if ((mac = palloc(r->p, arr->count, sizeof(*mac))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n))
		if ((rc = copy_str(r, n, DTCP_N_TEXT, &mac[i], NULL)) !=
		    DTC_OK)
			return rc;
	pub->macros = mac;
	pub->nmacros = arr->count;

	u = 0;
	if (dtcp_get_u64(r->c, r->it, map, "listings", 0, &u, r->err) ==
	    DTC_FAILED)
		return DTC_WARN;
	pub->listings = (unsigned)(u & 0xf);
	if ((n = dtcp_map_get(map, "abi")) != NULL &&
	    (rc = read_abi(r, n)) != DTC_OK)
		return rc;

	if ((rc = get_array(r, map, "clauses", &arr)) != DTC_OK)
		return rc;
	if (arr->count > MAX_CLAUSES)
		return bad(r, arr, "%u clauses, more than %d", arr->count,
		    MAX_CLAUSES);
	if ((cl = palloc(r->p, arr->count, sizeof(*cl))) == NULL)
		return nomem(r);
	for (i = 0, n = dtcp_first_child(arr); i < arr->count;
	    i++, n = dtcp_next_sibling(n))
		if ((rc = read_clause(r, n, &cl[i])) != DTC_OK)
			return rc;
	pub->clauses = cl;
	pub->nclauses = arr->count;
	return DTC_OK;
}

void
dtc_program_free(dtc_program *pub)
{
	struct prog *p = (struct prog *)pub;
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nallocs; i++)
		free(p->allocs[i]);
	free(p->allocs);
	free(p);
}

/*
 * The meta reader's hook (meta.c): a program item met while decoding is
 * checked, so that damage in it is reported where it is, and dropped.
 */
int
dtcp_program_check_item(const dtcp_container *c, const dtcp_item *it,
    dtc_error *err)
{
	struct prog *p = calloc(1, sizeof(*p));
	rd r = { p, c, it, err };
	int rc;

	if (p == NULL)
		return nomem(&r);
	rc = read_item(&r);
	dtc_program_free(&p->pub);
	return rc;
}

static int
scan(dtcp_container *c, dtc_program **out, dtc_error *err)
{
	dtc_error first;
	dtcp_item it;
	int rc, warned = 0;

	*out = NULL;
	dtc_error_clear(&first);
	if (c == NULL)
		return DTC_FATAL;
	for (;;) {
		dtc_error_clear(err);
		rc = dtcp_container_next(c, &it, err);
		if (rc == DTC_WARN) {
			/* damage elsewhere does not hide the program */
			if (!warned++)
				first = *err;
			continue;
		}
		if (rc != DTC_OK)
			break;
		if (strcmp(it.kind, "program") == 0) {
			struct prog *p = calloc(1, sizeof(*p));
			rd r = { p, c, &it, err };

			if (p == NULL) {
				rc = nomem(&r);
				break;
			}
			if ((rc = read_item(&r)) != DTC_OK) {
				dtc_program_free(&p->pub);
				break;
			}
			*out = &p->pub;
			dtc_error_clear(err);
			break;
		}
	}
	dtcp_container_close(c);
	if (rc == DTC_EOF && warned)
		*err = first;
	return rc;
}

int
dtc_program_read_file(const char *path, dtc_program **out, dtc_error *err)
{
	dtc_error_clear(err);
	return scan(dtcp_container_open_file(path, err), out, err);
}

int
dtc_program_read_fd(int fd, const char *name, dtc_program **out,
    dtc_error *err)
{
	dtc_error_clear(err);
	return scan(dtcp_container_open_fd(fd, name, err), out, err);
}

int
dtc_program_read_memory(const void *buf, size_t len, const char *name,
    dtc_program **out, dtc_error *err)
{
	dtc_error_clear(err);
	return scan(dtcp_container_open_memory(buf, len, name, err), out, err);
}

/* ------------------------------------------------------------------ */
/* The listing                                                         */
/* ------------------------------------------------------------------ */

typedef struct dis {
	const dtc_program *p;
	const dtc_prog_clause *c;
	const insn *in;          /* the clause's instructions, decoded */
	dtc_buf *out;
	int fail;
} dis;

static int
put(dis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* appends; returns the characters written, as fprintf does */
static int
put(dis *d, const char *fmt, ...)
{
	char small[256], *s = small;
	va_list ap, aq;
	int n;

	va_start(ap, fmt);
	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= sizeof(small)) {
		if ((s = malloc((size_t)n + 1)) != NULL)
			vsnprintf(s, (size_t)n + 1, fmt, aq);
	}
	va_end(aq);
	if (n < 0 || s == NULL || dtc_buf_append(d->out, s, (size_t)n) != 0) {
		d->fail = 1;
		n = 0;
	}
	if (s != small)
		free(s);
	return n;
}

/* pads an instruction of n characters to the comment column */
static void
comment(dis *d, int n)
{
	put(d, "%*s", n > INSN_LEN ? 0 : INSN_LEN - n, "");
}

static const char *
reg(unsigned r)
{
	static const char *const name[16] = { "%r0", "%r1", "%r2", "%r3",
	    "%r4", "%r5", "%r6", "%r7", "%r8", "%r9", "%fp", "%r11", "%r12",
	    "%r13", "%r14", "%r15" };

	return name[r & 0xf];
}

static const char *
str_at(const dtc_prog_clause *c, uint64_t off)
{
	return off < c->strlen ? c->strtab + off : NULL;
}

static void
prefix(dis *d, uint32_t i, const insn *x)
{
	put(d, "%04u %05u: %02x %01x %01x %04x %08x    ", i, i * 8,
	    x->code, x->dst, x->src, (unsigned)(uint16_t)x->off,
	    (uint32_t)x->imm);
}

/* the variable by id or by storage offset, live at instruction addr */
static const char *
var_by(const dtc_prog_clause *c, int by_id, uint32_t key, unsigned scope,
    uint32_t addr)
{
	size_t i;

	if (by_id)
		key &= 0x0fff;
	for (i = 0; i < c->nvars; i++) {
		const dtc_prog_var *v = &c->vars[i];

		if ((by_id ? v->id : v->offset) != key || v->scope != scope ||
		    (!by_id && v->kind == KIND_AGG) ||
		    v->from > addr || addr > v->to)
			continue;
		return str_at(c, v->name);
	}
	return NULL;
}

static int
spill_slot(const dtc_prog_abi *a, int16_t off, int nregs, unsigned r)
{
	int64_t lo = a->stk_spill_base - nregs * a->stk_slot;

	return off <= a->stk_spill_base && off >= lo &&
	    (int64_t)r == -(off - a->stk_spill_base) / a->stk_slot;
}

/* the "! name" comment of a variable access or a string constant */
static void
refname(dis *d, uint32_t addr, const char *rname, int n)
{
	const dtc_prog_abi *a = &d->p->abi;
	const insn *x = &d->in[addr], *p1, *p2;
	const uint8_t ldcode = C_LDX | M_MEM | 0x18, addcode = C_ALU64 | 0x00;
	const char *s;
	unsigned dst, scope;
	uint32_t off;

	if (rname != NULL) {
		comment(d, n);
		put(d, "! %s\n", rname);
		return;
	}
	if (addr < 1 || (p1 = x - 1)->code != ldcode || p1->imm != 0)
		goto out;
	dst = p1->dst;
	if (p1->src != REG_R9) {
		if (addr < 2 || (p2 = x - 2)->code != ldcode || p2->imm != 0 ||
		    p2->dst != dst || p2->src != REG_FP ||
		    p2->off != a->stk_dctx || p1->src != dst)
			goto out;
	}
	if (p1->off == a->dctx_gvars)
		scope = SCOPE_GLOBAL;
	else if (p1->off == a->dctx_lvars)
		scope = SCOPE_LOCAL;
	else if (p1->off == a->dctx_strtab) {
		if (x->dst == dst && x->code == addcode && x->src == 0 &&
		    x->off == 0 && (s = str_at(d->c, (uint32_t)x->imm)) !=
		    NULL) {
			comment(d, n);
			put(d, "! \"%s\"", s);
		}
		goto out;
	} else
		goto out;

	if ((x->code & 0x07) == C_LDX && (x->code & 0xe0) == M_MEM &&
	    x->src == dst && x->imm == 0)
		off = (uint32_t)(int32_t)x->off;
	else if ((x->code & 0x07) == C_STX && (x->code & 0xe0) == M_MEM &&
	    x->dst == dst && x->src != dst && x->imm == 0)
		off = (uint32_t)(int32_t)x->off;
	else if (x->code == addcode && x->dst == dst && x->src == 0 &&
	    x->off == 0)
		off = (uint32_t)x->imm;
	else
		goto out;
	if ((s = var_by(d->c, 0, off, scope, addr)) != NULL) {
		comment(d, n);
		put(d, "! %s%s", scope == SCOPE_LOCAL ? "this->" : "", s);
	}
out:
	put(d, "\n");
}

static const char *
orn(const char *s)
{
	return s != NULL ? s : "(null)";
}

/* what a call of one of libdtrace's variable lookups looks up */
static const char *
call_note(dis *d, const char *fn, uint32_t addr, char *buf, size_t len)
{
	const insn *x = &d->in[addr];
	uint32_t back, varid;

	if (strcmp(fn, "dt_get_bvar") == 0) {
		if (addr < 2)
			return NULL;
		snprintf(buf, len, "%s", orn(var_by(d->c, 1,
		    (uint32_t)x[-2].imm, SCOPE_GLOBAL, addr)));
		return buf;
	}
	if (strcmp(fn, "dt_get_agg") == 0) {
		back = 6;
		if (addr >= 5 && x[-5].code == (C_LD | M_IMM | 0x18) &&
		    x[-4].code == 0)
			back = 7;
		if (addr < back)
			return NULL;
		snprintf(buf, len, "@%s", orn(var_by(d->c, 1,
		    (uint32_t)x[-(int)back].imm, SCOPE_GLOBAL, addr)));
		return buf;
	}
	if (strcmp(fn, "dt_get_tvar") == 0) {
		if (addr < 2)
			return NULL;
		back = x[-2].src == REG_R9 ? 5 : 6;
		if (addr < back)
			return NULL;
		snprintf(buf, len, "self->%s", orn(var_by(d->c, 1,
		    (uint32_t)x[-(int)back].imm + VAR_UBASE, SCOPE_THREAD,
		    addr)));
		return buf;
	}
	if (strcmp(fn, "dt_get_assoc") == 0) {
		if (addr < 11)
			return NULL;
		varid = (uint32_t)x[-7].imm + VAR_UBASE;
		if (x[-11].code == (C_STX | M_MEM | 0x18))
			snprintf(buf, len, "self->%s[]", orn(var_by(d->c, 1,
			    varid, SCOPE_THREAD, addr)));
		else if (x[-11].code == (C_ST | M_MEM | 0x18))
			snprintf(buf, len, "%s[]", orn(var_by(d->c, 1, varid,
			    SCOPE_GLOBAL, addr)));
		else
			snprintf(buf, len, "???[]");
		return buf;
	}
	return NULL;
}

static void
do_call(dis *d, uint32_t addr, const char *rname)
{
	const insn *x = &d->in[addr];
	const char *fn = NULL, *note = NULL;
	char buf[256], nbuf[256];
	size_t i;
	int n;

	if (x->src == PSEUDO_CALL) {
		if (rname == NULL) {
			snprintf(buf, sizeof(buf), "%d", x->imm);
			fn = buf;
		} else {
			fn = rname;
			note = call_note(d, fn, addr, nbuf, sizeof(nbuf));
		}
	} else {
		for (i = 0; i < d->c->nhelpers; i++)
			if (x->imm >= 0 && d->c->helpers[i].id ==
			    (uint32_t)x->imm)
				fn = d->c->helpers[i].name;
		if (fn == NULL) {
			snprintf(buf, sizeof(buf), "helper#%d", x->imm);
			fn = buf;
			note = "unknown helper";
		}
	}
	if (note != NULL) {
		n = put(d, "%-4s %s", "call", fn);
		comment(d, n);
		put(d, "! %s\n", note);
	} else
		put(d, "%-4s %s\n", "call", fn);
}

static const char *const alu_name[16] = { "add", "sub", "mul", "div", "or",
    "and", "lsh", "rsh", "neg", "mod", "xor", "mov", "arsh", NULL, NULL,
    NULL };
static const char *const jmp_name[16] = { NULL, "jeq", "jgt", "jge", "jset",
    "jne", "jsgt", "jsge", NULL, NULL, "jlt", "jle", "jslt", "jsle", NULL,
    NULL };
static const char *const size_sfx[4] = { "w", "h", "b", "dw" };

static void
branch(dis *d, uint32_t addr, const insn *x, const char *name)
{
	int n, sgn;

	/* jsgt 0x60, jsge 0x70, jslt 0xc0, jsle 0xd0 take a signed imm */
	sgn = (x->code & 0xf0) == 0x60 || (x->code & 0xf0) == 0x70 ||
	    (x->code & 0xf0) == 0xc0 || (x->code & 0xf0) == 0xd0;
	if (x->code & SRC_X)
		n = put(d, "%-4s %s, %s, %d", name, reg(x->dst), reg(x->src),
		    x->off);
	else if (sgn)
		n = put(d, "%-4s %s, %d, %d", name, reg(x->dst), x->imm,
		    x->off);
	else
		n = put(d, "%-4s %s, %u, %d", name, reg(x->dst),
		    (uint32_t)x->imm, x->off);
	comment(d, n);
	put(d, "! -> %03u\n", (uint32_t)(addr + 1 + x->off));
}

/* one instruction after its prefix: the instructions it took beyond one */
static uint32_t
one(dis *d, uint32_t addr, const char *rname)
{
	const dtc_prog_abi *a = &d->p->abi;
	const insn *x = &d->in[addr];
	unsigned cls = x->code & 0x07, op = x->code >> 4;
	unsigned sz = (x->code >> 3) & 0x3, mode = x->code & 0xe0;
	char name[8];
	int n;

	switch (cls) {
	case C_ALU:
	case C_ALU64:
		if (op == 0xd && cls == C_ALU) {
			n = put(d, "%-4s %s, %d", x->code & SRC_X ? "tobe" :
			    "tole", reg(x->dst), x->imm);
			refname(d, addr, rname, n);
			return 0;
		}
		if (alu_name[op] == NULL)
			break;
		if (op == 0x8) {
			if (x->code & SRC_X)
				break;
			put(d, "%-4s %s\n", "neg", reg(x->dst));
		} else if (x->code & SRC_X)
			put(d, "%-4s %s, %s\n", alu_name[op], reg(x->dst),
			    reg(x->src));
		else {
			n = put(d, "%-4s %s, %d", alu_name[op], reg(x->dst),
			    x->imm);
			refname(d, addr, rname, n);
		}
		return 0;
	case C_JMP:
	case C_JMP32:
		if (cls == C_JMP && x->code == (C_JMP | 0x80)) {
			do_call(d, addr, rname);
			return 0;
		}
		if (cls == C_JMP && x->code == (C_JMP | 0x90)) {
			put(d, "exit\n");
			return 0;
		}
		if (cls == C_JMP && x->code == C_JMP) {
			if (x->off == 0)
				put(d, "nop\n");
			else {
				n = put(d, "%-4s %d", "ja", x->off);
				comment(d, n);
				put(d, "! -> %03u\n",
				    (uint32_t)(addr + 1 + x->off));
			}
			return 0;
		}
		if (jmp_name[op] == NULL)
			break;
		branch(d, addr, x, jmp_name[op]);
		return 0;
	case C_STX:
		if (mode == M_XADD && (sz == 0 || sz == 3))
			snprintf(name, sizeof(name), "xadd");
		else if (mode == M_MEM)
			snprintf(name, sizeof(name), "st%s", size_sfx[sz]);
		else
			break;
		n = put(d, "%-4s [%s%+d], %s", name, reg(x->dst), x->off,
		    reg(x->src));
		if (x->code == (C_STX | M_MEM | 0x18) && x->dst == REG_FP &&
		    spill_slot(a, x->off, (int)a->stk_nregs - 1, x->src)) {
			comment(d, n);
			put(d, "! spill %s\n", reg(x->src));
		} else
			refname(d, addr, rname, n);
		return 0;
	case C_ST:
		if (mode != M_MEM)
			break;
		snprintf(name, sizeof(name), "st%s", size_sfx[sz]);
		n = put(d, "%-4s [%s%+d], %d", name, reg(x->dst), x->off,
		    x->imm);
		if (rname != NULL) {
			comment(d, n);
			put(d, "! = %s\n", rname);
		} else
			put(d, "\n");
		return 0;
	case C_LDX:
		if (mode != M_MEM)
			break;
		snprintf(name, sizeof(name), "ld%s", size_sfx[sz]);
		n = put(d, "%-4s %s, [%s%+d]", name, reg(x->dst), reg(x->src),
		    x->off);
		if (x->code == (C_LDX | M_MEM | 0x18) && x->src == REG_FP &&
		    spill_slot(a, x->off, (int)a->stk_nregs, x->dst)) {
			comment(d, n);
			put(d, "! restore %s\n", reg(x->dst));
		} else
			refname(d, addr, rname, n);
		return 0;
	case C_LD:
		if (x->code != (C_LD | M_IMM | 0x18))
			break;
		{
			static const insn none;
			const insn *y = addr + 1 < d->c->ninsns ? x + 1 : &none;

			put(d, "%-4s %s, 0x%08x%08x\n", "lddw", reg(x->dst),
			    (uint32_t)y->imm, (uint32_t)x->imm);
			prefix(d, addr + 1, y);
			if (rname != NULL)
				put(d, "%*s! %s\n", INSN_LEN, "", rname);
			else
				put(d, "\n");
		}
		return 1;
	}
	put(d, "(illegal opcode)\n");
	return 0;
}

static const char *
ckind_name(unsigned k, char *buf, size_t len)
{
	static const char *const name[14] = { "unknown", "integer", "float",
	    "pointer", "array", "function", "struct", "union", "enum",
	    "forward", "typedef", "volatile", "const", "restrict" };

	if (k < 14)
		return name[k];
	snprintf(buf, len, "0x%x", k);
	return buf;
}

static void
var_table(dis *d)
{
	const dtc_prog_clause *c = d->c;
	size_t i;

	if (c->nvars != 0)
		put(d, "\n%-16s %-4s %-6s %-3s %-3s %-11s %-4s %s\n", "NAME",
		    "ID", "OFFSET", "KND", "SCP", "RANGE", "FLAG", "TYPE");
	for (i = 0; i < c->nvars; i++) {
		const dtc_prog_var *v = &c->vars[i];
		char offset[11] = "", flags[16] = "", kind[4], scope[4];
		char range[12], tk[16], ck[16];

		if (v->offset != UINT32_MAX)
			snprintf(offset, sizeof(offset), "%u", v->offset);
		if (v->kind == KIND_AGG)
			strcpy(kind, "agg");
		else if (v->kind == KIND_ARRAY)
			strcpy(kind, "arr");
		else if (v->kind == KIND_SCALAR)
			strcpy(kind, "scl");
		else
			snprintf(kind, sizeof(kind), "%u", v->kind);
		if (v->scope == SCOPE_GLOBAL)
			strcpy(scope, "glb");
		else if (v->scope == SCOPE_THREAD)
			strcpy(scope, "tls");
		else if (v->scope == SCOPE_LOCAL)
			strcpy(scope, "loc");
		else
			snprintf(scope, sizeof(scope), "%u", v->scope);
		/* the widths cut what does not fit, as in dt_dis.c */
		snprintf(range, sizeof(range), "[%u-%u]", v->from, v->to);
		if (v->flags & ~(VF_REF | VF_MOD))
			snprintf(flags, sizeof(flags), "/0x%x",
			    v->flags & ~(VF_REF | VF_MOD));
		if (v->flags & VF_REF)
			strcat(flags, "/r");
		if (v->flags & VF_MOD)
			strcat(flags, "/w");
		if (v->tkind == TYPE_CTF)
			strcpy(tk, "D type");
		else if (v->tkind == TYPE_STRING)
			strcpy(tk, "string");
		else if (v->tkind == TYPE_ANY)
			strcpy(tk, "any");
		else
			snprintf(tk, sizeof(tk), "0x%x", v->tkind);
		put(d, "%-16s %-4x %-6s %-3s %-3s %-11s %-4s %s (%s) %s(size "
		    "%lu)\n", orn(str_at(c, v->name)), v->id, offset, kind,
		    scope, range, flags + 1, tk, ckind_name(v->tckind, ck,
		    sizeof(ck)), v->tflags & TF_BYREF ? "by ref " : "",
		    (unsigned long)v->tsize);
	}
}

static void
reloc_table(dis *d, const char *tag, const dtc_prog_reloc *r, size_t n)
{
	const char *t;
	size_t i;

	if (n == 0)
		return;
	put(d, "\n%-17s %-8s %-8s %s\n", tag, "OFFSET", "VALUE", "NAME");
	for (i = 0; i < n; i++) {
		t = r[i].type == R_NONE ? "R_BPF_NONE" : r[i].type == R_64_64 ?
		    "R_BPF_INSN_64" : r[i].type == R_64_32 ?
		    "R_BPF_INSN_DISP32" : "R_???";
		if (r[i].data != d->p->abi.ident_undef)
			put(d, "%-17s %-8llu %-8llu %s\n", t,
			    (unsigned long long)r[i].offset,
			    (unsigned long long)r[i].data,
			    orn(str_at(d->c, r[i].name)));
		else
			put(d, "%-17s %-8llu %-8s %s\n", t,
			    (unsigned long long)r[i].offset, "*UND*",
			    orn(str_at(d->c, r[i].name)));
	}
}

static int
clause(dis *d, const dtc_prog_clause *c, insn *in)
{
	const dtc_prog_reloc *rp = c->brel;
	size_t cnt = c->nbrel, i;
	uint32_t addr;

	for (i = 0; i < c->ninsns; i++) {
		const uint8_t *b = c->insns + 8 * i;

		in[i].code = b[0];
		in[i].dst = b[1] & 0xf;
		in[i].src = b[1] >> 4;
		in[i].off = (int16_t)(b[2] | b[3] << 8);
		in[i].imm = (int32_t)((uint32_t)b[4] | (uint32_t)b[5] << 8 |
		    (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24);
	}
	d->c = c;
	d->in = in;
	if (c->has_probe)
		put(d, "\nDisassembly of clause %s:%s:%s:%s, <%s>:\n",
		    c->probe[0], c->probe[1], c->probe[2], c->probe[3],
		    c->name);
	else
		put(d, "\nDisassembly of clause <%s>:\n", c->name);
	put(d, "%-4s %-5s  %-20s    %s\n", "INS", "OFF", "OPCODE",
	    "INSTRUCTION");
	for (addr = 0; addr < c->ninsns; addr++) {
		const char *rname = NULL;

		prefix(d, addr, &in[addr]);
		/* the next relocation, when it is this instruction's */
		for (; cnt != 0; cnt--, rp++) {
			if (rp->offset < (uint64_t)addr * 8)
				continue;
			if (rp->offset == (uint64_t)addr * 8)
				rname = str_at(c, rp->name);
			break;
		}
		addr += one(d, addr, rname);
	}
	var_table(d);
	if (c->nxlate != 0)
		put(d, "\n%-4s %-3s %-12s %s\n", "XLID", "ARG", "MEMBER",
		    "TYPE");
	for (i = 0; i < c->nxlate; i++)
		put(d, "%-4u %-3d %-12s %s\n", c->xlate[i].id, c->xlate[i].arg,
		    c->xlate[i].member, c->xlate[i].type);
	reloc_table(d, "BPF", c->brel, c->nbrel);
	reloc_table(d, "KREL", c->krel, c->nkrel);
	reloc_table(d, "UREL", c->urel, c->nurel);
	put(d, "\n");
	return d->fail ? -1 : 0;
}

int
dtc_program_disasm(const dtc_program *p, dtc_buf *out, dtc_error *err)
{
	dis d = { p, NULL, NULL, out, 0 };
	insn *in;
	size_t i, max = 0;

	dtc_error_clear(err);
	if (!p->has_abi) {
		dtcp_error_set(err, DTC_E_BADVALUE, NULL, -1, -1, -1,
		    "the program item has no abi: its clauses cannot be "
		    "listed as dtrace -S lists them");
		return DTC_FAILED;
	}
	for (i = 0; i < p->nclauses; i++)
		if (p->clauses[i].ninsns > max)
			max = p->clauses[i].ninsns;
	if ((in = calloc(max ? max : 1, sizeof(*in))) == NULL) {
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory");
		return DTC_FATAL;
	}
	for (i = 0; i < p->nclauses; i++)
		if (clause(&d, &p->clauses[i], in) != 0)
			break;
	free(in);
	if (d.fail) {
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory");
		return DTC_FATAL;
	}
	return DTC_OK;
}
