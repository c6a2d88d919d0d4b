/*
 * test_program.c - the program item (program.c): written with
 * dtc_writer_add_program and read back field by field; a clause of hand
 * made instructions listed by dtc_program_disasm against text written
 * here by hand from the layout of dtrace-utils' dt_dis.c (prefix
 * columns, mnemonics, the comment column 30, spill/restore, branch
 * targets, relocation names, string constants and variables found from
 * the code generator's sequences, the variable and relocation tables),
 * including instructions its code generator never emits (tobe, xadd, an
 * illegal opcode, an unknown helper) and a clause cut after an lddw.
 * The same listing against real dtrace -S is cmd/tests/program.sh's and
 * live_program.sh's.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"
#include "util.h"

static void
ins(uint8_t *b, uint8_t code, uint8_t dst, uint8_t src, int16_t off,
    int32_t imm)
{
	b[0] = code;
	b[1] = (uint8_t)(dst | src << 4);
	b[2] = (uint8_t)((uint16_t)off);
	b[3] = (uint8_t)((uint16_t)off >> 8);
	b[4] = (uint8_t)imm;
	b[5] = (uint8_t)((uint32_t)imm >> 8);
	b[6] = (uint8_t)((uint32_t)imm >> 16);
	b[7] = (uint8_t)((uint32_t)imm >> 24);
}

static uint8_t code1[21 * 8], code2[8], code3[8];
static const char strtab[] = "\0foo\0abc\0gv";
static const dtc_prog_var vars[] = {
	{ .name = 9, .id = 0x500, .offset = 16, .from = 0, .to = 30,
	  .kind = 1, .scope = 0, .flags = 1, .tkind = 0, .tckind = 1,
	  .tsize = 8 },
};
static const dtc_prog_reloc brel[] = {
	{ .name = 1, .type = 1, .offset = 40, .data = 7 },
	{ .name = 5, .type = 10, .offset = 7992, .data = 4294967295u },
};
static const dtc_prog_helper helpers[] = { { 6, "bpf_trace_printk" } };
static dtc_prog_clause clauses[3];
static const dtc_prog_source sources[] = {
	{ 's', "x.d", "BEGIN { exit(0); }\n", 19 },
	{ 'n', "END", "END", 3 },
};
static const dtc_prog_option options[] = { { 'q', NULL },
	{ 'x', "strsize=64" } };
static const char *const macros[] = { "dtrace", "a b" };
static dtc_program prog;

static void
build(void)
{
	uint8_t *b = code1;

	ins(b + 0, 0xb7, 0, 0, 0, 0);
	ins(b + 8, 0x7b, 10, 0, -24, 0);
	ins(b + 16, 0x79, 0, 10, -24, 0);
	ins(b + 24, 0x15, 0, 0, 2, 5);
	ins(b + 32, 0x65, 1, 0, -2, -1);
	ins(b + 40, 0x18, 2, 0, 0, 2);
	ins(b + 48, 0x00, 0, 0, 0, 1);
	ins(b + 56, 0x85, 0, 0, 0, 6);
	ins(b + 64, 0x85, 0, 0, 0, 9999);
	ins(b + 72, 0xff, 0, 0, 0, 0);
	ins(b + 80, 0xdc, 3, 0, 0, 16);
	ins(b + 88, 0xdb, 1, 2, 8, 0);
	ins(b + 96, 0x05, 0, 0, 0, 0);
	ins(b + 104, 0x05, 0, 0, -3, 0);
	ins(b + 112, 0x79, 3, 10, -8, 0);
	ins(b + 120, 0x79, 3, 3, 48, 0);
	ins(b + 128, 0x07, 3, 0, 0, 5);
	ins(b + 136, 0x79, 4, 10, -8, 0);
	ins(b + 144, 0x79, 4, 4, 72, 0);
	ins(b + 152, 0x79, 5, 4, 16, 0);
	ins(b + 160, 0x95, 0, 0, 0, 0);
	ins(code2, 0x95, 0, 0, 0, 0);
	ins(code3, 0x18, 0, 0, 0, 0);

	memset(clauses, 0, sizeof(clauses));
	clauses[0].source = 0;
	clauses[0].name = "dt_clause_0";
	clauses[0].has_probe = 1;
	clauses[0].probe[0] = "dtrace";
	clauses[0].probe[1] = "";
	clauses[0].probe[2] = "";
	clauses[0].probe[3] = "BEGIN";
	clauses[0].insns = code1;
	clauses[0].ninsns = 21;
	clauses[0].strtab = strtab;
	clauses[0].strlen = sizeof(strtab);
	clauses[0].vars = vars;
	clauses[0].nvars = 1;
	clauses[0].brel = brel;
	clauses[0].nbrel = 2;
	clauses[0].helpers = helpers;
	clauses[0].nhelpers = 1;
	clauses[1].source = 1;
	clauses[1].name = "dt_clause_1";
	clauses[1].insns = code2;
	clauses[1].ninsns = 1;
	clauses[2].source = 1;
	clauses[2].name = "dt_clause_2";
	clauses[2].insns = code3;
	clauses[2].ninsns = 1;

	memset(&prog, 0, sizeof(prog));
	prog.sources = sources;
	prog.nsources = 2;
	prog.options = options;
	prog.noptions = 2;
	prog.macros = macros;
	prog.nmacros = 2;
	prog.clauses = clauses;
	prog.nclauses = 3;
	prog.has_abi = 1;
	prog.listings = 1;
	prog.abi = (dtc_prog_abi){ .stk_dctx = -8, .stk_spill_base = -24,
	    .stk_slot = 8, .stk_nregs = 9, .dctx_strtab = 48,
	    .dctx_gvars = 72, .dctx_lvars = 80,
	    .ident_undef = 4294967295u };
}

static const char expected[] =
"\n"
"Disassembly of clause dtrace:::BEGIN, <dt_clause_0>:\n"
"INS  OFF    OPCODE                  INSTRUCTION\n"
"0000 00000: b7 0 0 0000 00000000    mov  %r0, 0\n"
"0001 00008: 7b a 0 ffe8 00000000    stdw [%fp-24], %r0            ! spill %r0\n"
"0002 00016: 79 0 a ffe8 00000000    lddw %r0, [%fp-24]            ! restore %r0\n"
"0003 00024: 15 0 0 0002 00000005    jeq  %r0, 5, 2                ! -> 006\n"
"0004 00032: 65 1 0 fffe ffffffff    jsgt %r1, -1, -2              ! -> 003\n"
"0005 00040: 18 2 0 0000 00000002    lddw %r2, 0x0000000100000002\n"
"0006 00048: 00 0 0 0000 00000001                                  ! foo\n"
"0007 00056: 85 0 0 0000 00000006    call bpf_trace_printk\n"
"0008 00064: 85 0 0 0000 0000270f    call helper#9999              ! unknown helper\n"
"0009 00072: ff 0 0 0000 00000000    (illegal opcode)\n"
"0010 00080: dc 3 0 0000 00000010    tobe %r3, 16\n"
"0011 00088: db 1 2 0008 00000000    xadd [%r1+8], %r2\n"
"0012 00096: 05 0 0 0000 00000000    nop\n"
"0013 00104: 05 0 0 fffd 00000000    ja   -3                       ! -> 011\n"
"0014 00112: 79 3 a fff8 00000000    lddw %r3, [%fp-8]\n"
"0015 00120: 79 3 3 0030 00000000    lddw %r3, [%r3+48]\n"
"0016 00128: 07 3 0 0000 00000005    add  %r3, 5                   ! \"abc\"\n"
"0017 00136: 79 4 a fff8 00000000    lddw %r4, [%fp-8]\n"
"0018 00144: 79 4 4 0048 00000000    lddw %r4, [%r4+72]\n"
"0019 00152: 79 5 4 0010 00000000    lddw %r5, [%r4+16]            ! gv\n"
"0020 00160: 95 0 0 0000 00000000    exit\n"
"\n"
"NAME             ID   OFFSET KND SCP RANGE       FLAG TYPE\n"
"gv               500  16     scl glb [0-30]      r    D type (integer) (size 8)\n"
"\n"
"BPF               OFFSET   VALUE    NAME\n"
"R_BPF_INSN_64     40       7        foo\n"
"R_BPF_INSN_DISP32 7992     *UND*    abc\n"
"\n"
"\n"
"Disassembly of clause <dt_clause_1>:\n"
"INS  OFF    OPCODE                  INSTRUCTION\n"
"0000 00000: 95 0 0 0000 00000000    exit\n"
"\n"
"\n"
"Disassembly of clause <dt_clause_2>:\n"
"INS  OFF    OPCODE                  INSTRUCTION\n"
"0000 00000: 18 0 0 0000 00000000    lddw %r0, 0x0000000000000000\n"
"0001 00008: 00 0 0 0000 00000000    \n"
"\n";

START_TEST(test_listing)
{
	dtc_buf b;
	dtc_error err;

	build();
	dtc_buf_init(&b);
	ck_assert_int_eq(dtc_program_disasm(&prog, &b, &err), DTC_OK);
	ck_assert_uint_eq(b.len, strlen(expected));
	ck_assert_str_eq(b.s, expected);
	dtc_buf_free(&b);
}
END_TEST

START_TEST(test_no_abi)
{
	dtc_buf b;
	dtc_error err;

	build();
	prog.has_abi = 0;
	dtc_buf_init(&b);
	ck_assert_int_eq(dtc_program_disasm(&prog, &b, &err), DTC_FAILED);
	ck_assert_ptr_nonnull(strstr(err.text, "no abi"));
	dtc_buf_free(&b);
}
END_TEST

/* written, read back: every field as it went in */
START_TEST(test_roundtrip)
{
	static const dtc_writer_header h = { .os = "Linux", .release = "6.1",
	    .host = "box", .producer = "test_program", .ncpu = 2,
	    .dt_act_base = 55, .flavor = "dtrace-v2" };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	dtc_writer *w;
	dtc_program *p = NULL;
	dtc_error err;
	dtc_buf a, b;

	build();
	ck_assert_ptr_nonnull(f);
	w = dtc_writer_new(f, &h, &err);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(dtc_writer_add_program(w, &prog, &err), DTC_OK);
	ck_assert_int_eq(dtc_writer_end(w, 0, &err), DTC_OK);
	fclose(f);

	ck_assert_int_eq(dtc_program_read_memory(buf, len, "mem", &p, &err),
	    DTC_OK);
	ck_assert_uint_eq(p->nsources, 2);
	ck_assert_int_eq(p->sources[0].opt, 's');
	ck_assert_str_eq(p->sources[0].arg, "x.d");
	ck_assert_uint_eq(p->sources[0].len, 19);
	ck_assert_str_eq(p->sources[0].text, "BEGIN { exit(0); }\n");
	ck_assert_int_eq(p->sources[1].opt, 'n');
	ck_assert_uint_eq(p->noptions, 2);
	ck_assert_int_eq(p->options[0].opt, 'q');
	ck_assert_ptr_null(p->options[0].arg);
	ck_assert_str_eq(p->options[1].arg, "strsize=64");
	ck_assert_uint_eq(p->nmacros, 2);
	ck_assert_str_eq(p->macros[1], "a b");
	ck_assert_uint_eq(p->listings, 1);
	ck_assert_int_eq(p->has_abi, 1);
	ck_assert(memcmp(&p->abi, &prog.abi, sizeof(p->abi)) == 0);
	ck_assert_uint_eq(p->nclauses, 3);
	ck_assert_int_eq(p->clauses[0].has_probe, 1);
	ck_assert_str_eq(p->clauses[0].probe[3], "BEGIN");
	ck_assert_int_eq(p->clauses[1].has_probe, 0);
	ck_assert_uint_eq(p->clauses[0].ninsns, 21);
	ck_assert(memcmp(p->clauses[0].insns, code1, sizeof(code1)) == 0);
	ck_assert_uint_eq(p->clauses[0].strlen, sizeof(strtab));
	ck_assert(memcmp(p->clauses[0].strtab, strtab, sizeof(strtab)) == 0);
	ck_assert(memcmp(p->clauses[0].vars, vars, sizeof(vars)) == 0);
	ck_assert(memcmp(p->clauses[0].brel, brel, sizeof(brel)) == 0);
	ck_assert_uint_eq(p->clauses[0].nhelpers, 1);
	ck_assert_str_eq(p->clauses[0].helpers[0].name, "bpf_trace_printk");
	/* and so the same listing */
	dtc_buf_init(&a);
	dtc_buf_init(&b);
	ck_assert_int_eq(dtc_program_disasm(&prog, &a, &err), DTC_OK);
	ck_assert_int_eq(dtc_program_disasm(p, &b, &err), DTC_OK);
	ck_assert_str_eq(a.s, b.s);
	dtc_buf_free(&a);
	dtc_buf_free(&b);
	dtc_program_free(p);

	/* every cut of the capture: an error or EOF, never a crash */
	for (i = 1; i < len; i++) {
		p = NULL;
		(void)dtc_program_read_memory(buf, i, "mem", &p, &err);
		dtc_program_free(p);
	}
	free(buf);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("program");
	TCase *tc = tcase_create("program");

	tcase_add_test(tc, test_listing);
	tcase_add_test(tc, test_no_abi);
	tcase_add_test(tc, test_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return util_run_suite(suite());
}
