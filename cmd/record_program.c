/*
 * record_program.c - dtsnap record's program item (dtsnap(5), program):
 * the D source of every -s/-n/-P/-m/-f/-i argument, the other options
 * and the macro arguments as given, and each clause's compiled program
 * as libdtrace built it, taken right after compilation, where `dtrace -S`
 * lists it (dt_program_compile), before linking into probe programs.
 *
 * libdtrace's API hands out a statement's clause only as its identifier
 * (dtsd_clause); the compiled clause hangs off it (di_data of a symbol
 * identifier).  That and the code generator's stack and context offsets
 * the listing's comments depend on come from dtrace-utils' private
 * headers (configure: DTRACE_UTILS_SRC); without them the item holds
 * the source and options only, and `dtsnap program -S` says why.
 *
 * Instructions are written as dtsnap(5) defines them (little-endian
 * fields, the destination register in the low nibble), whatever the
 * recording host's byte order.  The names of the BPF helpers a clause
 * calls are written with it, as this build's <linux/bpf.h> (dtrace-utils'
 * copy, the one libdtrace was built with) names them.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dtrace.h>
#ifdef HAVE_LIBDTRACE_PRIVATE
#include <dt_impl.h>
#include <dt_ident.h>
#include <dt_dctx.h>
#include <linux/bpf.h>
#endif

#include "cli.h"
#include "record_program.h"

/* a script larger than this is not a D program */
#define MAX_SCRIPT (64u << 20)

static struct {
	dtc_prog_source *src;
	size_t nsrc;
	dtc_prog_option *opt;
	size_t nopt;
	char **mac;
	size_t nmac;
	dtc_prog_clause *cl;
	size_t ncl;
	int no_clauses;         /* said once why clauses are missing */
	dtrace_ecbdesc_t *last;
	uint32_t cur;           /* the source being compiled */
	FILE *diag;
} rp;

/* the recorder's own warning (never dtrace's stderr, a tee) */
static void __attribute__((format(printf, 1, 2)))
pwarn(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || rp.diag == NULL)
		return;
	fputs("dtsnap record: ", rp.diag);
	cli_escape(rp.diag, msg, strlen(msg));
	putc('\n', rp.diag);
}

static void *
grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, (n + 1) * size);

	if (q != NULL)
		memset((char *)q + n * size, 0, size);
	return q;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

int
rec_program_begin(const rec_config *cfg)
{
	int i;

	memset(&rp, 0, sizeof(rp));
	rp.diag = cfg->diag;
	for (i = 0; i < cfg->nargs; i++) {
		int c = cfg->args[i].opt;
		dtc_prog_option *o;

		if (strchr("snPmfi", c) != NULL)
			continue;       /* sources, recorded as compiled */
		if ((o = grow(rp.opt, rp.nopt, sizeof(*o))) == NULL)
			return -1;
		rp.opt = o;
		o[rp.nopt].opt = (char)c;
		if (cfg->args[i].arg != NULL &&
		    (o[rp.nopt].arg = strdup(cfg->args[i].arg)) == NULL)
			return -1;
		rp.nopt++;
	}
	if (cfg->dargc > 0 &&
	    (rp.mac = calloc((size_t)cfg->dargc, sizeof(*rp.mac))) == NULL)
		return -1;
	for (i = 0; i < cfg->dargc; i++)
		if ((rp.mac[rp.nmac++] = strdup(cfg->dargv[i] != NULL ?
		    cfg->dargv[i] : "")) == NULL)
			return -1;
	return 0;
}

static char *
read_script(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "re");
	char *s = NULL, *t;
	size_t n = 0, cap = 0, got;

	if (fp == NULL)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			if (cap >= MAX_SCRIPT ||
			    (t = realloc(s, cap ? 2 * cap : 8192)) == NULL)
				break;
			s = t;
			cap = cap ? 2 * cap : 8192;
		}
		got = fread(s + n, 1, cap - n - 1, fp);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(fp) || s == NULL || !feof(fp)) {
		fclose(fp);
		free(s);
		return NULL;
	}
	fclose(fp);
	s[n] = '\0';
	*len = n;
	return s;
}

#ifdef HAVE_LIBDTRACE_PRIVATE
#define REC_HELPER(x) [BPF_FUNC_##x] = "bpf_" #x
static const char *const helper_name[] = {
	__BPF_FUNC_MAPPER(REC_HELPER)
};
#undef REC_HELPER

static dtc_prog_reloc *
relocs(const dof_relodesc_t *r, uint32_t n)
{
	dtc_prog_reloc *o = calloc(n ? n : 1, sizeof(*o));
	uint32_t i;

	if (o == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		o[i].name = r[i].dofr_name;
		o[i].type = r[i].dofr_type;
		o[i].offset = r[i].dofr_offset;
		o[i].data = r[i].dofr_data;
	}
	return o;
}

static int
add_helper(dtc_prog_clause *c, int32_t id)
{
	dtc_prog_helper *h;
	size_t i;

	if (id < 0 || id >= __BPF_FUNC_MAX_ID ||
	    (size_t)id >= sizeof(helper_name) / sizeof(helper_name[0]) ||
	    helper_name[id] == NULL)
		return 0;       /* listed as an unknown helper */
	for (i = 0; i < c->nhelpers; i++)
		if (c->helpers[i].id == (uint32_t)id)
			return 0;
	if ((h = grow((void *)c->helpers, c->nhelpers, sizeof(*h))) == NULL)
		return -1;
	h[c->nhelpers].id = (uint32_t)id;
	h[c->nhelpers].name = helper_name[id];
	c->helpers = h;
	c->nhelpers++;
	return 0;
}

static int
clause_of(const dtrace_stmtdesc_t *sdp, const dtrace_difo_t *dp,
    dtc_prog_clause *c)
{
	uint8_t *b;
	dtc_prog_var *v;
	char *st;
	uint32_t i;

	c->source = rp.cur;
	if ((c->name = strdup(sdp->dtsd_clause->di_name)) == NULL)
		return -1;
	if (sdp->dtsd_ecbdesc != rp.last) {
		const dtrace_probedesc_t *pd = &sdp->dtsd_ecbdesc->dted_probe;

		rp.last = sdp->dtsd_ecbdesc;
		c->has_probe = 1;
		if ((c->probe[0] = strdup(pd->prv)) == NULL ||
		    (c->probe[1] = strdup(pd->mod)) == NULL ||
		    (c->probe[2] = strdup(pd->fun)) == NULL ||
		    (c->probe[3] = strdup(pd->prb)) == NULL)
			return -1;
	}
	if ((b = calloc(dp->dtdo_len ? dp->dtdo_len : 1, 8)) == NULL)
		return -1;
	c->insns = b;
	c->ninsns = dp->dtdo_len;
	for (i = 0; i < dp->dtdo_len; i++, b += 8) {
		const struct bpf_insn *x = &dp->dtdo_buf[i];

		b[0] = x->code;
		b[1] = (uint8_t)(x->dst_reg | x->src_reg << 4);
		b[2] = (uint8_t)((uint16_t)x->off);
		b[3] = (uint8_t)((uint16_t)x->off >> 8);
		b[4] = (uint8_t)((uint32_t)x->imm);
		b[5] = (uint8_t)((uint32_t)x->imm >> 8);
		b[6] = (uint8_t)((uint32_t)x->imm >> 16);
		b[7] = (uint8_t)((uint32_t)x->imm >> 24);
		if (x->code == (BPF_JMP | BPF_CALL) &&
		    x->src_reg != BPF_PSEUDO_CALL &&
		    add_helper(c, x->imm) != 0)
			return -1;
	}
	if ((st = malloc(dp->dtdo_strlen ? dp->dtdo_strlen : 1)) == NULL)
		return -1;
	if (dp->dtdo_strlen)
		memcpy(st, dp->dtdo_strtab, dp->dtdo_strlen);
	c->strtab = st;
	c->strlen = dp->dtdo_strlen;
	if ((v = calloc(dp->dtdo_varlen ? dp->dtdo_varlen : 1,
	    sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < dp->dtdo_varlen; i++) {
		const dtrace_difv_t *dv = &dp->dtdo_vartab[i];

		v[i].name = dv->dtdv_name;
		v[i].id = dv->dtdv_id;
		v[i].offset = dv->dtdv_offset;
		v[i].kind = dv->dtdv_kind;
		v[i].scope = dv->dtdv_scope;
		v[i].from = dv->dtdv_insn_from;
		v[i].to = dv->dtdv_insn_to;
		v[i].flags = dv->dtdv_flags;
		v[i].tkind = dv->dtdv_type.dtdt_kind;
		v[i].tckind = dv->dtdv_type.dtdt_ckind;
		v[i].tflags = dv->dtdv_type.dtdt_flags;
		v[i].tsize = dv->dtdv_type.dtdt_size;
	}
	c->vars = v;
	c->nvars = dp->dtdo_varlen;
	if ((c->brel = relocs(dp->dtdo_breltab, dp->dtdo_brelen)) == NULL ||
	    (c->krel = relocs(dp->dtdo_kreltab, dp->dtdo_krelen)) == NULL ||
	    (c->urel = relocs(dp->dtdo_ureltab, dp->dtdo_urelen)) == NULL)
		return -1;
	c->nbrel = dp->dtdo_brelen;
	c->nkrel = dp->dtdo_krelen;
	c->nurel = dp->dtdo_urelen;
	/*
	 * dtrace-utils 2.0's assembler never fills the translator table
	 * (dt_as.c keeps that code under FIXME); its member types are
	 * named by a function libdtrace does not export, so a table that
	 * is there one day is said to be missing rather than guessed.
	 */
	if (dp->dtdo_xlmlen != 0)
		pwarn("clause %s refers to %u translator members: "
		    "not recorded, `dtsnap program -S` will not list them",
		    c->name, dp->dtdo_xlmlen);
	return 0;
}

static int
one_stmt(dtrace_hdl_t *dtp, dtrace_prog_t *pgp, dtrace_stmtdesc_t *sdp,
    void *arg)
{
	const dt_ident_t *idp = sdp->dtsd_clause;
	dtc_prog_clause *cl;

	(void)dtp;
	(void)pgp;
	(void)arg;
	if (idp == NULL || idp->di_kind != DT_IDENT_SYMBOL ||
	    idp->di_data == NULL)
		return 0;
	if ((cl = grow(rp.cl, rp.ncl, sizeof(*cl))) == NULL)
		return -1;
	rp.cl = cl;
	if (clause_of(sdp, idp->di_data, &cl[rp.ncl]) != 0) {
		rp.ncl++;       /* freed with the rest */
		return -1;
	}
	rp.ncl++;
	return 0;
}
#endif

int
rec_program_compiled(struct dtrace_hdl *dtp, struct dtrace_prog *pgp,
    int opt, const char *arg)
{
	dtc_prog_source *s;
	char *text;
	size_t len;

	if ((s = grow(rp.src, rp.nsrc, sizeof(*s))) == NULL)
		return -1;
	rp.src = s;
	s += rp.nsrc;
	s->opt = (char)opt;
	if (opt == 's') {
		if ((text = read_script(arg, &len)) == NULL) {
			pwarn("cannot read %s again for the program "
			    "item: %s", arg, errno ? strerror(errno) :
			    "too large");
			text = strdup("");
			len = 0;
		}
	} else {
		text = dup_or_null(arg);
		len = text != NULL ? strlen(text) : 0;
	}
	s->text = text;
	s->len = len;
	if (text == NULL || (s->arg = strdup(arg)) == NULL)
		return -1;
	rp.cur = (uint32_t)rp.nsrc++;
#ifdef HAVE_LIBDTRACE_PRIVATE
	rp.last = NULL;     /* dtrace -S lists each argument on its own */
	if (dtrace_stmt_iter(dtp, pgp, one_stmt, NULL) != 0)
		return -1;
#else
	(void)dtp;
	(void)pgp;
	if (!rp.no_clauses++)
		pwarn("built without libdtrace's private headers: "
		    "the program item holds no compiled clauses");
#endif
	return 0;
}

int
rec_program_write(dtc_writer *w, dtc_error *err)
{
	dtc_program p;

	memset(&p, 0, sizeof(p));
	p.sources = rp.src;
	p.nsources = rp.nsrc;
	p.options = rp.opt;
	p.noptions = rp.nopt;
	p.macros = (const char *const *)rp.mac;
	p.nmacros = rp.nmac;
	p.clauses = rp.cl;
	p.nclauses = rp.ncl;
#ifdef HAVE_LIBDTRACE_PRIVATE
	p.listings = 1;         /* DT_DISASM_OPT_CLAUSE */
	p.has_abi = 1;
	p.abi.stk_dctx = DT_STK_DCTX;
	p.abi.stk_spill_base = DT_STK_SPILL_BASE;
	p.abi.stk_slot = DT_STK_SLOT_SZ;
	p.abi.stk_nregs = DT_STK_NREGS;
	p.abi.dctx_strtab = DCTX_STRTAB;
	p.abi.dctx_gvars = DCTX_GVARS;
	p.abi.dctx_lvars = DCTX_LVARS;
	p.abi.ident_undef = DT_IDENT_UNDEF;
#endif
	return dtc_writer_add_program(w, &p, err);
}

void
rec_program_free(void)
{
	size_t i, j;

	for (i = 0; i < rp.nsrc; i++) {
		free((void *)rp.src[i].arg);
		free((void *)rp.src[i].text);
	}
	for (i = 0; i < rp.nopt; i++)
		free((void *)rp.opt[i].arg);
	for (i = 0; i < rp.nmac; i++)
		free(rp.mac[i]);
	for (i = 0; i < rp.ncl; i++) {
		dtc_prog_clause *c = &rp.cl[i];

		free((void *)c->name);
		for (j = 0; j < 4; j++)
			free((void *)c->probe[j]);
		free((void *)c->insns);
		free((void *)c->strtab);
		free((void *)c->vars);
		free((void *)c->brel);
		free((void *)c->krel);
		free((void *)c->urel);
		free((void *)c->helpers);
	}
	free(rp.src);
	free(rp.opt);
	free(rp.mac);
	free(rp.cl);
	memset(&rp, 0, sizeof(rp));
}
