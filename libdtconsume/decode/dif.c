/*
 * dif.c - DIF objects (DTrace Intermediate Format, OpenDTrace
 * specification chapters 7-8) listed as illumos `dtrace -S` lists them
 * (lib/libdtrace/common/dt_dis.c): the instruction table with each
 * instruction's operands and its "!" comment (variable names, integer
 * and string table values, subroutine names), the variable table, and
 * the relocation tables.
 *
 * A DIFO read from DOF is not libdtrace's compiled one, so two parts of
 * dt_dis.c's output have no source here and are left out: the DIFO's
 * address (the caller prints the header line) and the translator member
 * table, whose names and types live in the compiler's parse tree (xlate
 * and xlarg print without their comment).  Operand fields are decoded
 * per the specification's instruction formats; an opcode outside the
 * table prints "(illegal opcode)" as dt_dis does.  Strings are cut at
 * the end of the DIFO's string table (dof.c gives it a NUL past its end).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base.h"

/* Operand layouts of the instruction table (one per dt_dis_* printer) */
enum form {
	F_STR, F_LOG, F_R1RD, F_CMP, F_TST, F_BRANCH, F_LOAD, F_STORE, F_RET,
	F_SETX, F_SETS, F_LDA, F_LDV, F_STV, F_STA, F_CALL, F_PUSHT, F_XLATE
};

static const struct op {
	const char *name;
	enum form form;
} ops[] = {
	{ "(illegal opcode)", F_STR },
	{ "or", F_LOG }, { "xor", F_LOG }, { "and", F_LOG }, { "sll", F_LOG },
	{ "srl", F_LOG }, { "sub", F_LOG }, { "add", F_LOG }, { "mul", F_LOG },
	{ "sdiv", F_LOG }, { "udiv", F_LOG }, { "srem", F_LOG },
	{ "urem", F_LOG }, { "not", F_R1RD }, { "mov", F_R1RD },
	{ "cmp", F_CMP }, { "tst", F_TST }, { "ba", F_BRANCH },
	{ "be", F_BRANCH }, { "bne", F_BRANCH }, { "bg", F_BRANCH },
	{ "bgu", F_BRANCH }, { "bge", F_BRANCH }, { "bgeu", F_BRANCH },
	{ "bl", F_BRANCH }, { "blu", F_BRANCH }, { "ble", F_BRANCH },
	{ "bleu", F_BRANCH }, { "ldsb", F_LOAD }, { "ldsh", F_LOAD },
	{ "ldsw", F_LOAD }, { "ldub", F_LOAD }, { "lduh", F_LOAD },
	{ "lduw", F_LOAD }, { "ldx", F_LOAD }, { "ret", F_RET },
	{ "nop", F_STR }, { "setx", F_SETX }, { "sets", F_SETS },
	{ "scmp", F_CMP }, { "ldga", F_LDA }, { "ldgs", F_LDV },
	{ "stgs", F_STV }, { "ldta", F_LDA }, { "ldts", F_LDV },
	{ "stts", F_STV }, { "sra", F_LOG }, { "call", F_CALL },
	{ "pushtr", F_PUSHT }, { "pushtv", F_PUSHT }, { "popts", F_STR },
	{ "flushts", F_STR }, { "ldgaa", F_LDV }, { "ldtaa", F_LDV },
	{ "stgaa", F_STV }, { "sttaa", F_STV }, { "ldls", F_LDV },
	{ "stls", F_STV }, { "allocs", F_R1RD }, { "copys", F_LOG },
	{ "stb", F_STORE }, { "sth", F_STORE }, { "stw", F_STORE },
	{ "stx", F_STORE }, { "uldsb", F_LOAD }, { "uldsh", F_LOAD },
	{ "uldsw", F_LOAD }, { "uldub", F_LOAD }, { "ulduh", F_LOAD },
	{ "ulduw", F_LOAD }, { "uldx", F_LOAD }, { "rldsb", F_LOAD },
	{ "rldsh", F_LOAD }, { "rldsw", F_LOAD }, { "rldub", F_LOAD },
	{ "rlduh", F_LOAD }, { "rlduw", F_LOAD }, { "rldx", F_LOAD },
	{ "xlate", F_XLATE }, { "xlarg", F_XLATE }, { "stga", F_STA },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* illumos DIF_SUBR_* numbering, names as D spells them */
static const char *const subrs[] = {
	"rand", "mutex_owned", "mutex_owner", "mutex_type_adaptive",
	"mutex_type_spin", "rw_read_held", "rw_write_held", "rw_iswriter",
	"copyin", "copyinstr", "speculation", "progenyof", "strlen",
	"copyout", "copyoutstr", "alloca", "bcopy", "copyinto", "msgdsize",
	"msgsize", "getmajor", "getminor", "ddi_pathname", "strjoin",
	"lltostr", "basename", "dirname", "cleanpath", "strchr", "strrchr",
	"strstr", "strtok", "substr", "index", "rindex", "htons", "htonl",
	"htonll", "ntohs", "ntohl", "ntohll", "inet_ntop", "inet_ntoa",
	"inet_ntoa6", "toupper", "tolower", "getf", "json", "strtoll",
};

const char *
dtc_dif_subrname(unsigned subr)
{
	return subr < sizeof(subrs) / sizeof(subrs[0]) ? subrs[subr] :
	    "unknown";
}

#define OP(i)   (((i) >> 24) & 0xff)
#define R1(i)   (((i) >> 16) & 0xff)
#define R2(i)   (((i) >> 8) & 0xff)
#define RD(i)   ((i) & 0xff)
#define LABEL(i) ((i) & 0xffffff)
#define IDX16(i) (((i) >> 8) & 0xffff)

int
dtc_dif_typestr(uint8_t kind, uint8_t ckind, uint8_t flags, uint32_t size,
    dtc_buf *out)
{
	/* CTF kinds 0-13, as dt_dis.c names them */
	static const char *const ckinds[] = {
		"unknown", "integer", "float", "pointer", "array", "function",
		"struct", "union", "enum", "forward", "typedef", "volatile",
		"const", "restrict"
	};
	char k[16], ck[16];

	if (kind == 0)
		snprintf(k, sizeof(k), "D type");
	else if (kind == 1)
		snprintf(k, sizeof(k), "string");
	else
		snprintf(k, sizeof(k), "0x%x", kind);
	if (ckind < sizeof(ckinds) / sizeof(ckinds[0]))
		snprintf(ck, sizeof(ck), "%s", ckinds[ckind]);
	else
		snprintf(ck, sizeof(ck), "0x%x", ckind);
	/* DIF_TF_BYREF 1, DIF_TF_BYUREF 2 */
	if (flags & 3)
		return 0 - (dtc_buf_printf(out, "%s (%s) by %sref (size %lu)", k, ck,
		    (flags & 2) ? "user " : "", (unsigned long)size) < 0);
	return 0 - (dtc_buf_printf(out, "%s (%s) (size %lu)", k, ck,
	    (unsigned long)size) < 0);
}

/* The name of variable id in scope, when the table has it (dt_dis.c's
 * first match by id and scope, kept only when its name is in range). */
static const char *
varname(const dtc_dof_difo *f, unsigned id, unsigned scope)
{
	size_t i;

	for (i = 0; i < f->nvars; i++) {
		if (f->vars[i].id == id && f->vars[i].scope == scope) {
			if (f->vars[i].name < f->strlen)
				return f->strtab + f->vars[i].name;
			break;
		}
	}
	return NULL;
}

/* scope from the mnemonic's third letter: ld(g|t|l)..., st(g|t|l)... */
static unsigned
scope_of(const char *name)
{
	switch (name[2]) {
	case 'l': return 2;
	case 't': return 1;
	case 'g': return 0;
	default: return ~0U;
	}
}

static int
var_comment(dtc_buf *o, const dtc_dof_difo *f, unsigned var,
    const char *name)
{
	const char *v = varname(f, var, scope_of(name));

	return v == NULL ? 0 : 0 > dtc_buf_printf(o, "\t\t! DT_VAR(%u) = \"%s\"",
	    var, v);
}

static int
instr(dtc_buf *o, const dtc_dof_difo *f, uint32_t in)
{
	unsigned opc = OP(in);
	const struct op *op = &ops[opc < NOPS ? opc : 0];
	const char *n = op->name;
	unsigned x;
	int rc = 0;

	switch (op->form) {
	case F_STR:
		return 0 > dtc_buf_printf(o, "%s", n);
	case F_LOG:
		return 0 > dtc_buf_printf(o, "%-4s %%r%u, %%r%u, %%r%u", n, R1(in),
		    R2(in), RD(in));
	case F_R1RD:
		return 0 > dtc_buf_printf(o, "%-4s %%r%u, %%r%u", n, R1(in), RD(in));
	case F_CMP:
		return 0 > dtc_buf_printf(o, "%-4s %%r%u, %%r%u", n, R1(in), R2(in));
	case F_TST:
		return 0 > dtc_buf_printf(o, "%-4s %%r%u", n, R1(in));
	case F_BRANCH:
		return 0 > dtc_buf_printf(o, "%-4s %u", n, LABEL(in));
	case F_LOAD:
		return 0 > dtc_buf_printf(o, "%-4s [%%r%u], %%r%u", n, R1(in),
		    RD(in));
	case F_STORE:
		return 0 > dtc_buf_printf(o, "%-4s %%r%u, [%%r%u]", n, R1(in),
		    RD(in));
	case F_RET:
		return 0 > dtc_buf_printf(o, "%-4s %%r%u", n, RD(in));
	case F_SETX:
		x = IDX16(in);
		rc |= 0 > dtc_buf_printf(o, "%-4s DT_INTEGER[%u], %%r%u", n, x,
		    RD(in));
		if (x < f->intlen)
			rc |= 0 > dtc_buf_printf(o, "\t\t! 0x%llx",
			    (unsigned long long)f->inttab[x]);
		return rc;
	case F_SETS:
		x = IDX16(in);
		rc |= 0 > dtc_buf_printf(o, "%-4s DT_STRING[%u], %%r%u", n, x,
		    RD(in));
		if (x < f->strlen)
			rc |= 0 > dtc_buf_printf(o, "\t\t! \"%s\"", f->strtab + x);
		return rc;
	case F_LDA:
		/* the variable is in the r1 field */
		x = R1(in);
		rc |= 0 > dtc_buf_printf(o, "%-4s DT_VAR(%u), %%r%u, %%r%u", n, x,
		    R2(in), RD(in));
		return rc | var_comment(o, f, x, n);
	case F_LDV:
		x = IDX16(in);
		rc |= 0 > dtc_buf_printf(o, "%-4s DT_VAR(%u), %%r%u", n, x, RD(in));
		return rc | var_comment(o, f, x, n);
	case F_STV:
		x = IDX16(in);
		rc |= 0 > dtc_buf_printf(o, "%-4s %%r%u, DT_VAR(%u)", n, RD(in), x);
		return rc | var_comment(o, f, x, n);
	case F_STA:
		x = IDX16(in);
		rc |= 0 > dtc_buf_printf(o, "%-4s DT_VAR(%u), %%r%u, %%r%u", n, x,
		    R2(in), RD(in));
		return rc | var_comment(o, f, x, n);
	case F_CALL:
		x = IDX16(in);
		return 0 > dtc_buf_printf(o, "%-4s DIF_SUBR(%u), %%r%u\t\t! %s", n,
		    x, RD(in), dtc_dif_subrname(x));
	case F_PUSHT: {
		static const char *const tn[] = { "D type", "string" };
		const char *pad;

		x = R1(in);
		if (opc == 49) {        /* pushtv */
			rc |= 0 > dtc_buf_printf(o, "%-4s DT_TYPE(%u), %%r%u", n, x,
			    RD(in));
			pad = "\t\t";
		} else {
			rc |= 0 > dtc_buf_printf(o, "%-4s DT_TYPE(%u), %%r%u, %%r%u",
			    n, x, R2(in), RD(in));
			pad = "\t";
		}
		if (x < 2)
			rc |= 0 > dtc_buf_printf(o, "%s! DT_TYPE(%u) = %s", pad, x,
			    tn[x]);
		return rc;
	}
	case F_XLATE:
		return 0 > dtc_buf_printf(o, "%-4s DT_XLREF[%u], %%r%u", n,
		    IDX16(in), RD(in));
	}
	return 0;
}

static int
rtab(dtc_buf *o, const char *tag, const dtc_dof_reloc *r, size_t n)
{
	int rc;
	size_t i;

	rc = 0 > dtc_buf_printf(o, "\n%-4s %-8s %-8s %s\n", tag, "OFFSET", "DATA",
	    "NAME");
	for (i = 0; i < n; i++)
		rc |= 0 > dtc_buf_printf(o, "%-4u %-8llu %-8llu %s\n", r[i].type,
		    (unsigned long long)r[i].offset,
		    (unsigned long long)r[i].data,
		    r[i].str != NULL ? r[i].str : "");
	return rc;
}

int
dtc_dif_dis(const dtc_dof_difo *f, dtc_buf *o)
{
	size_t i;
	int rc;

	rc = 0 > dtc_buf_printf(o, "%-3s %-8s    %s\n", "OFF", "OPCODE",
	    "INSTRUCTION");
	for (i = 0; i < f->len; i++) {
		rc |= 0 > dtc_buf_printf(o, "%02lu: %08x    ", (unsigned long)i,
		    f->text[i]);
		rc |= instr(o, f, f->text[i]);
		rc |= 0 > dtc_buf_append(o, "\n", 1);
	}
	if (f->nvars != 0)
		rc |= 0 > dtc_buf_printf(o, "\n%-16s %-4s %-3s %-3s %-4s %s\n",
		    "NAME", "ID", "KND", "SCP", "FLAG", "TYPE");
	for (i = 0; i < f->nvars; i++) {
		const dtc_dof_var *v = &f->vars[i];
		char kind[8], scope[8], flags[24] = "";
		size_t fl;

		if (v->kind == 0)
			snprintf(kind, sizeof(kind), "arr");
		else if (v->kind == 1)
			snprintf(kind, sizeof(kind), "scl");
		else
			snprintf(kind, sizeof(kind), "%u", v->kind);
		if (v->scope == 0)
			snprintf(scope, sizeof(scope), "glb");
		else if (v->scope == 1)
			snprintf(scope, sizeof(scope), "tls");
		else if (v->scope == 2)
			snprintf(scope, sizeof(scope), "loc");
		else
			snprintf(scope, sizeof(scope), "%u", v->scope);
		/* DIFV_F_REF 1, DIFV_F_MOD 2; others in hex first */
		if (v->flags & ~3U)
			snprintf(flags, sizeof(flags), "/0x%x", v->flags & ~3U);
		fl = strlen(flags);
		if (v->flags & 1)
			snprintf(flags + fl, sizeof(flags) - fl, "/r");
		fl = strlen(flags);
		if (v->flags & 2)
			snprintf(flags + fl, sizeof(flags) - fl, "/w");
		rc |= 0 > dtc_buf_printf(o, "%-16s %-4x %-3s %-3s %-4s ",
		    v->name < f->strlen ? f->strtab + v->name : "", v->id, kind,
		    scope, flags[0] ? flags + 1 : "");
		rc |= dtc_dif_typestr(v->tkind, v->tckind, v->tflags, v->tsize,
		    o);
		rc |= 0 > dtc_buf_append(o, "\n", 1);
	}
	if (f->nkrel != 0)
		rc |= rtab(o, "KREL", f->krel, f->nkrel);
	if (f->nurel != 0)
		rc |= rtab(o, "UREL", f->urel, f->nurel);
	return rc != 0 ? -1 : 0;
}
