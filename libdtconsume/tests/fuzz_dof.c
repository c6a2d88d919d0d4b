/*
 * fuzz_dof.c - fuzz target: DOF objects (dof.c) and the DIF
 * disassembler (dif.c).
 *
 * The input is the DOF's bytes.  dtc_dof_open either refuses them with
 * a reason or returns an object; then every section, probe, ECB and
 * action is read back and each string and array it points to is
 * touched (so that a pointer outside what the object owns shows under
 * AddressSanitizer), every problem must carry a text, and every DIFO is
 * disassembled, with its line count checked against its instructions.
 *
 * Build with libFuzzer (make fuzz), or with fuzz_replay.c as a plain
 * program that replays files (make check replays testdata/fuzz/dof).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtc_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint8_t sink;

static void
touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	size_t i;

	for (i = 0; p != NULL && i < n; i++)
		sink ^= b[i];
}

static void
touch_str(const char *s)
{
	if (s != NULL)
		touch(s, strlen(s) + 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dtc_error err = DTC_ERROR_INIT;
	dtc_dof *d;
	dtc_buf b;
	size_t i, j, lines;

	if ((d = dtc_dof_open(data, size, "fuzz", &err)) == NULL) {
		if (err.code == DTC_E_NONE || err.text[0] == '\0')
			abort();
		return 0;
	}
	for (i = 0; i < dtc_dof_nproblems(d); i++)
		if (dtc_dof_problem(d, i)->text[0] == '\0')
			abort();
	for (i = 0; i < dtc_dof_nsections(d); i++) {
		const dtc_dof_section *s = dtc_dof_section_get(d, i);

		if (s->ok && (s->offset > size || s->size > size - s->offset))
			abort();
	}
	for (i = 0; i < dtc_dof_nprobes(d); i++) {
		const dtc_dof_probe *p = dtc_dof_probe_get(d, i);

		touch_str(p->provider);
		touch_str(p->function);
		touch_str(p->name);
		for (j = 0; j < p->nargc; j++)
			touch_str(p->nargv[j]);
		for (j = 0; j < p->xargc; j++) {
			touch_str(p->xargv[j]);
			touch(&p->argmap[j], 1);
		}
		touch(p->offs, p->noffs * 4);
		touch(p->enoffs, p->nenoffs * 4);
	}
	for (i = 0; i < dtc_dof_necbs(d); i++) {
		const dtc_dof_ecb *e = dtc_dof_ecb_get(d, i);

		touch_str(e->provider);
		touch_str(e->module);
		touch_str(e->function);
		touch_str(e->name);
		if (e->pred >= (long)dtc_dof_ndifos(d))
			abort();
		for (j = 0; j < e->nactions; j++) {
			touch_str(e->actions[j].str);
			if (e->actions[j].difo >= (long)dtc_dof_ndifos(d))
				abort();
		}
	}
	dtc_buf_init(&b);
	for (i = 0; i < dtc_dof_ndifos(d); i++) {
		const dtc_dof_difo *f = dtc_dof_difo_get(d, i);

		touch(f->text, f->len * 4);
		touch(f->strtab, f->strlen + 1);
		touch(f->inttab, f->intlen * 8);
		touch(f->vars, f->nvars * sizeof(*f->vars));
		for (j = 0; j < f->nkrel; j++)
			touch_str(f->krel[j].str);
		for (j = 0; j < f->nurel; j++)
			touch_str(f->urel[j].str);
		dtc_buf_reset(&b);
		if (dtc_dif_dis(f, &b) != 0)
			abort();
		/* the title, then one line per instruction, before any table
		 * (a string may hold a newline: count only up to the table) */
		for (j = 0, lines = 0; j < b.len && lines <= f->len; j++)
			lines += b.s[j] == '\n';
		if (lines < (f->len < 1 ? 1 : f->len))
			abort();
	}
	dtc_buf_free(&b);
	dtc_dof_close(d);
	return 0;
}
