/*
 * dtsnap_dof.c - `dtsnap dof FILE`: a DOF object listed (dtsnap(1), DOF).
 *
 * The input is an ELF object whose .SUNW_dof section holds the DOF (what
 * `dtrace -G` writes and USDT binaries carry; found with libelf, which
 * reads the file from memory here), or a raw DOF file.  The library
 * parses the bytes (dof.c) and disassembles the DIF (dif.c); this file
 * only finds the bytes and prints.  The listing follows what illumos
 * mdb's dtrace module shows of a DOF (::dofdump, ::dof_sec,
 * ::dof_ecbdesc, ::difo): the header, the section table, then the
 * probes as `dtrace -l -v` lists them, the ECB descriptions, and each
 * DIFO in illumos `dtrace -S` layout.  Problems go to stderr (located:
 * file, section, byte offset) and the listing goes on without the
 * entries concerned.  A capture's dof items (dtsnap(5), dof) are listed
 * one after another, each as its bytes would be from a file of their
 * own, its problems located in the capture (item, byte offset).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <jansson.h>
#include <libelf.h>

#include "cli.h"
#include "dtsnap_dof.h"
#include "jstr.h"

#define MAXFILE ((size_t)1 << 30)   /* bytes of an input file read */

static const char dof_usage[] =
"usage: dtsnap dof [-f text|json] FILE\n"
"\n"
"List the DOF (DTrace Object Format) of FILE: an ELF object's .SUNW_dof\n"
"section (dtrace -G output, USDT binaries), a raw DOF file, or every dof\n"
"item of a capture.  Prints the header, the sections, the probes as\n"
"dtrace -l -v lists them, the ECB descriptions and each DIF object as\n"
"illumos dtrace -S disassembles it.\n"
"\n"
"  -f, --format FORMAT   text (default) or json\n"
"  -h, --help            this text\n";

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

static uint8_t *
slurp(cli *c, const char *path, size_t *lenp)
{
	FILE *fp;
	uint8_t *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;

	if ((fp = fopen(path, "rb")) == NULL) {
		cli_warn(c, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			if (cap >= MAXFILE) {
				cli_warn(c, "%s: larger than %zu bytes", path,
				    MAXFILE);
				goto fail;
			}
			cap = cap ? cap * 2 : 65536;
			if ((nb = realloc(buf, cap)) == NULL) {
				cli_warn(c, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		cli_warn(c, "%s: %s", path, strerror(errno));
		goto fail;
	}
	fclose(fp);
	*lenp = len;
	return buf;
fail:
	free(buf);
	fclose(fp);
	return NULL;
}

/* The .SUNW_dof section of an ELF image: its bytes in img (libelf reads
 * the image in place) and its name for messages. */
static int
elf_dof(cli *c, const char *path, uint8_t *img, size_t len,
    const uint8_t **dof, size_t *doflen)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int found = 0;

	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (e = elf_memory((char *)img, len)) == NULL) {
		cli_warn(c, "%s: not an ELF object: %s", path,
		    elf_errmsg(-1));
		return -1;
	}
	if (elf_getshdrstrndx(e, &shstrndx) != 0) {
		cli_warn(c, "%s: no section names: %s", path, elf_errmsg(-1));
		elf_end(e);
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *name;
		Elf_Data *data;

		if (gelf_getshdr(scn, &sh) == NULL ||
		    (name = elf_strptr(e, shstrndx, sh.sh_name)) == NULL ||
		    strcmp(name, ".SUNW_dof") != 0)
			continue;
		if (sh.sh_type == SHT_NOBITS ||
		    (data = elf_rawdata(scn, NULL)) == NULL ||
		    data->d_buf == NULL) {
			cli_warn(c, "%s: .SUNW_dof has no data", path);
			elf_end(e);
			return -1;
		}
		/* the raw bytes, in img: DOF says its own byte order, so
		 * nothing of the ELF's applies */
		*dof = data->d_buf;
		*doflen = data->d_size;
		found = 1;
		break;
	}
	elf_end(e);
	if (!found) {
		cli_warn(c, "%s: no .SUNW_dof section", path);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

static const char *const stabnames[] = {
	"Internal", "Private", "Obsolete", "External", "Unstable",
	"Evolving", "Stable", "Standard"
};
static const char *const classnames[] = {
	"Unknown", "CPU", "Platform", "Group", "ISA", "Common"
};

static const char *
stab(unsigned s)
{
	return s < 8 ? stabnames[s] : "Unknown";
}

static const char *
dclass(unsigned s)
{
	return s < 6 ? classnames[s] : "Unknown";
}

/* dt_attr_min of the provider, module, function and name attributes:
 * what dtrace -l -v calls the probe description's */
static uint32_t
attr_min(const uint32_t *a, int n)
{
	unsigned nm = 0xff, dt = 0xff, cl = 0xff;
	int i;

	for (i = 0; i < n; i++) {
		if ((a[i] >> 24 & 0xff) < nm)
			nm = a[i] >> 24 & 0xff;
		if ((a[i] >> 16 & 0xff) < dt)
			dt = a[i] >> 16 & 0xff;
		if ((a[i] >> 8 & 0xff) < cl)
			cl = a[i] >> 8 & 0xff;
	}
	return nm << 24 | dt << 16 | cl << 8;
}

static const struct { uint32_t kind; const char *name; } actkinds[] = {
	{ 0, "none" }, { 1, "difexpr" }, { 2, "exit" }, { 3, "printf" },
	{ 4, "printa" }, { 5, "libact" }, { 6, "tracemem" },
	{ 7, "tracemem-dynsize" }, { 8, "printm" }, { 9, "printt" },
	{ 0x101, "ustack" }, { 0x102, "jstack" }, { 0x103, "usym" },
	{ 0x104, "umod" }, { 0x105, "uaddr" }, { 0x201, "stop" },
	{ 0x202, "raise" }, { 0x203, "system" }, { 0x204, "freopen" },
	{ 0x401, "stack" }, { 0x402, "sym" }, { 0x403, "mod" },
	{ 0x501, "breakpoint" }, { 0x502, "panic" }, { 0x503, "chill" },
	{ 0x601, "speculate" }, { 0x602, "commit" }, { 0x603, "discard" },
	{ 0x701, "count" }, { 0x702, "min" }, { 0x703, "max" },
	{ 0x704, "avg" }, { 0x705, "sum" }, { 0x706, "stddev" },
	{ 0x707, "quantize" }, { 0x708, "lquantize" },
	{ 0x709, "llquantize" },
};

static const char *
actname(uint32_t kind)
{
	size_t i;

	for (i = 0; i < sizeof(actkinds) / sizeof(actkinds[0]); i++)
		if (actkinds[i].kind == kind)
			return actkinds[i].name;
	return "?";
}

static const char *
secname(uint32_t type)
{
	const char *n = dtc_dof_secname(type);

	return n != NULL ? n : "?";
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

static void
attrs(FILE *o, const char *title, uint32_t a)
{
	fprintf(o, "\t%s\n", title);
	fprintf(o, "\t\tIdentifier Names: %s\n", stab(a >> 24 & 0xff));
	fprintf(o, "\t\tData Semantics:   %s\n", stab(a >> 16 & 0xff));
	fprintf(o, "\t\tDependency Class: %s\n", dclass(a >> 8 & 0xff));
}

static void
text_difo(FILE *o, const dtc_dof_difo *f)
{
	dtc_buf b;

	dtc_buf_init(&b);
	dtc_dif_typestr(f->rkind, f->rckind, f->rflags, f->rsize, &b);
	fprintf(o, "\nDIFO [section %u] returns %s\n", f->section,
	    b.s != NULL ? b.s : "");
	dtc_buf_reset(&b);
	if (dtc_dif_dis(f, &b) == 0 && b.len > 0)
		fwrite(b.s, 1, b.len, o);
	dtc_buf_free(&b);
}

static void
text_list(FILE *o, const char *what, const dtc_dof *d)
{
	const dtc_dof_header *h = dtc_dof_header_get(d);
	size_t i, j;

	fprintf(o, "%s: DOF version %u, %s, %s, DIF version %u, "
	    "%u integer and %u tuple registers\n", what, h->ident[6],
	    h->ident[4] == 1 ? "ILP32" : h->ident[4] == 2 ? "LP64" : "model ?",
	    h->ident[5] == 1 ? "LSB" : "MSB", h->ident[7], h->ident[8],
	    h->ident[9]);
	fprintf(o, "flags 0x%x, header %u bytes, %u sections of %u bytes at "
	    "%" PRIu64 ", %" PRIu64 " bytes loadable, %" PRIu64 " in all\n",
	    h->flags, h->hdrsize, h->secnum, h->secsize, h->secoff, h->loadsz,
	    h->filesz);

	fprintf(o, "\n%5s %-10s %5s %5s %7s %10s %10s\n", "INDEX", "TYPE",
	    "ALIGN", "FLAGS", "ENTSIZE", "OFFSET", "SIZE");
	for (i = 0; i < dtc_dof_nsections(d); i++) {
		const dtc_dof_section *s = dtc_dof_section_get(d, i);

		fprintf(o, "%5zu %-10s %5u %5s %7u %10" PRIu64 " %10" PRIu64
		    "%s\n", i, secname(s->type), s->align,
		    s->flags == 1 ? "load" : s->flags == 0 ? "-" : "?",
		    s->entsize, s->offset, s->size, s->ok ? "" : " (damaged)");
	}

	if (dtc_dof_nprobes(d) > 0)
		fprintf(o, "\n%10s %17s %33s %s\n", "PROVIDER", "MODULE",
		    "FUNCTION", "NAME");
	for (i = 0; i < dtc_dof_nprobes(d); i++) {
		const dtc_dof_probe *p = dtc_dof_probe_get(d, i);

		fprintf(o, "%10s %17s %33s %s\n\n", p->provider, "-",
		    p->function, p->name);
		attrs(o, "Probe Description Attributes", attr_min(p->attr, 4));
		fputc('\n', o);
		attrs(o, "Argument Attributes", p->attr[4]);
		fprintf(o, "\n\tArgument Types\n");
		if (p->xargc == 0 && p->nargc == 0)
			fprintf(o, "\t\tNone\n");
		for (j = 0; j < (p->xargc ? p->xargc : p->nargc); j++)
			fprintf(o, "\t\targs[%zu]: %s\n", j,
			    p->xargc ? p->xargv[j] : p->nargv[j]);
		fprintf(o, "\n\tNative Argument Types\n");
		if (p->nargc == 0)
			fprintf(o, "\t\tNone\n");
		for (j = 0; j < p->nargc; j++)
			fprintf(o, "\t\targ%zu: %s\n", j, p->nargv[j]);
		if (p->xargc > 0) {
			fprintf(o, "\n\tTranslations\n");
			for (j = 0; j < p->xargc; j++)
				fprintf(o, "\t\targs[%zu] from arg%u\n", j,
				    p->argmap[j]);
		}
		fprintf(o, "\n\tAddress 0x%" PRIx64 "\n\tOffsets", p->addr);
		for (j = 0; j < p->noffs; j++)
			fprintf(o, " 0x%x", p->offs[j]);
		fprintf(o, "\n\tIs-enabled Offsets");
		for (j = 0; j < p->nenoffs; j++)
			fprintf(o, " 0x%x", p->enoffs[j]);
		fprintf(o, "\n\n");
	}

	for (i = 0; i < dtc_dof_necbs(d); i++) {
		const dtc_dof_ecb *e = dtc_dof_ecb_get(d, i);

		fprintf(o, "%sECB [section %u] %s:%s:%s:%s", i == 0 &&
		    dtc_dof_nprobes(d) == 0 ? "\n" : "", e->section,
		    e->provider, e->module, e->function, e->name);
		if (e->id != 0)
			fprintf(o, " id %u", e->id);
		if (e->uarg != 0)
			fprintf(o, " uarg 0x%" PRIx64, e->uarg);
		fputc('\n', o);
		if (e->pred >= 0)
			fprintf(o, "\tpredicate DIFO [section %u]\n",
			    dtc_dof_difo_get(d, (size_t)e->pred)->section);
		for (j = 0; j < e->nactions; j++) {
			const dtc_dof_action *a = &e->actions[j];

			fprintf(o, "\taction %zu: %s (0x%x)", j,
			    actname(a->kind), a->kind);
			if (a->difo >= 0)
				fprintf(o, " DIFO [section %u]",
				    dtc_dof_difo_get(d, (size_t)a->difo)->section);
			if (a->ntuple)
				fprintf(o, " ntuple %u", a->ntuple);
			if (a->str != NULL)
				fprintf(o, " \"%s\"", a->str);
			else if (a->arg != 0)
				fprintf(o, " arg 0x%" PRIx64, a->arg);
			if (a->uarg != 0)
				fprintf(o, " uarg 0x%" PRIx64, a->uarg);
			fputc('\n', o);
		}
	}

	for (i = 0; i < dtc_dof_ndifos(d); i++)
		text_difo(o, dtc_dof_difo_get(d, i));
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

/* DOF bytes as a JSON string: UTF-8 as it is, anything else read as
 * Latin-1 as the other JSON writers do, so that jansson never refuses a
 * string and leaves its object out */
static json_t *
jtextn(const char *s, size_t n)
{
	json_t *j = jstr_json(s, n);

	return j != NULL ? j : json_string("");
}

static json_t *
jtext(const char *s)
{
	return jtextn(s, strlen(s));
}

static json_t *
jstrs(const char **v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, jtext(v[i]));
	return a;
}

static json_t *
ju32s(const uint32_t *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *
jattr(uint32_t a)
{
	return json_pack("{s:s, s:s, s:s}", "name", stab(a >> 24 & 0xff),
	    "data", stab(a >> 16 & 0xff), "class", dclass(a >> 8 & 0xff));
}

/* a uint64 as JSON: an integer when it fits, else a decimal string */
static json_t *
ju64(uint64_t v)
{
	char s[24];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(s, sizeof(s), "%" PRIu64, v);
	return json_string(s);
}

static json_t *
json_difo(const dtc_dof_difo *f)
{
	json_t *o, *ins, *vars, *ints;
	dtc_buf b;
	size_t i;

	dtc_buf_init(&b);
	dtc_dif_typestr(f->rkind, f->rckind, f->rflags, f->rsize, &b);
	o = json_pack("{s:I, s:s}", "section", (json_int_t)f->section,
	    "returns", b.s != NULL ? b.s : "");
	ins = json_array();
	/* each instruction's text is its line of the disassembly of a
	 * one-instruction DIFO with the same tables: the line after the
	 * title, past its "00: xxxxxxxx    " */
	for (i = 0; i < f->len; i++) {
		dtc_dof_difo one = *f;
		char *nl, *line;

		one.text = &f->text[i];
		one.len = 1;
		one.nkrel = one.nurel = 0;
		dtc_buf_reset(&b);
		dtc_dif_dis(&one, &b);
		line = b.s != NULL ? strchr(b.s, '\n') : NULL;
		line = line != NULL && strlen(line) > 17 ? line + 17 : "";
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		json_array_append_new(ins, json_pack("{s:I, s:I, s:o}", "off",
		    (json_int_t)i, "instr", (json_int_t)f->text[i], "text",
		    jtext(line)));
	}
	json_object_set_new(o, "instructions", ins);
	ints = json_array();
	for (i = 0; i < f->intlen; i++)
		json_array_append_new(ints, ju64(f->inttab[i]));
	json_object_set_new(o, "integers", ints);
	json_object_set_new(o, "strings", jtextn(f->strtab, f->strlen));
	vars = json_array();
	for (i = 0; i < f->nvars; i++) {
		const dtc_dof_var *v = &f->vars[i];

		dtc_buf_reset(&b);
		dtc_dif_typestr(v->tkind, v->tckind, v->tflags, v->tsize, &b);
		json_array_append_new(vars, json_pack("{s:o, s:I, s:I, s:I, "
		    "s:I, s:s}", "name", jtext(v->name < f->strlen ?
		    f->strtab + v->name : ""), "id", (json_int_t)v->id, "kind",
		    (json_int_t)v->kind, "scope", (json_int_t)v->scope, "flags",
		    (json_int_t)v->flags, "type", b.s != NULL ? b.s : ""));
	}
	json_object_set_new(o, "variables", vars);
	dtc_buf_free(&b);
	return o;
}

/* A problem of d, located in the capture when d is a dof item's. */
static void
problem_at(const dtc_dof *d, size_t i, const dtc_dof_item *item,
    dtc_error *out)
{
	if (item != NULL)
		dtc_dof_item_locate(item, dtc_dof_problem(d, i), out);
	else
		*out = *dtc_dof_problem(d, i);
}

static json_t *
json_list(const dtc_dof *d, const dtc_dof_item *item)
{
	const dtc_dof_header *h = dtc_dof_header_get(d);
	json_t *o, *a;
	size_t i, j;

	o = json_object();
	json_object_set_new(o, "header", json_pack("{s:I, s:I, s:I, s:I, "
	    "s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
	    "model", (json_int_t)h->ident[4], "encoding",
	    (json_int_t)h->ident[5], "version", (json_int_t)h->ident[6],
	    "difvers", (json_int_t)h->ident[7], "difireg",
	    (json_int_t)h->ident[8], "diftreg", (json_int_t)h->ident[9],
	    "flags", (json_int_t)h->flags, "hdrsize", (json_int_t)h->hdrsize,
	    "secsize", (json_int_t)h->secsize, "secnum",
	    (json_int_t)h->secnum, "secoff", ju64(h->secoff), "loadsz", ju64(h->loadsz), "filesz",
	    ju64(h->filesz)));
	a = json_array();
	for (i = 0; i < dtc_dof_nsections(d); i++) {
		const dtc_dof_section *s = dtc_dof_section_get(d, i);

		json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I, s:I, "
		    "s:I, s:o, s:o, s:b}", "index", (json_int_t)i, "type",
		    secname(s->type), "type_id", (json_int_t)s->type, "align",
		    (json_int_t)s->align, "flags", (json_int_t)s->flags,
		    "entsize", (json_int_t)s->entsize, "offset",
		    ju64(s->offset), "size", ju64(s->size), "ok", s->ok));
	}
	json_object_set_new(o, "sections", a);
	a = json_array();
	for (i = 0; i < dtc_dof_nprobes(d); i++) {
		const dtc_dof_probe *p = dtc_dof_probe_get(d, i);
		json_t *m = json_array();

		for (j = 0; j < p->xargc; j++)
			json_array_append_new(m, json_integer(p->argmap[j]));
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:I, s:I, "
		    "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		    "provider", jtext(p->provider), "function",
		    jtext(p->function), "name", jtext(p->name),
		    "provider_section", (json_int_t)p->provsec,
		    "probes_section", (json_int_t)p->probesec,
		    "address", ju64(p->addr),
		    "native_args", jstrs(p->nargv, p->nargc),
		    "translated_args", jstrs(p->xargv, p->xargc),
		    "argmap", m, "offsets", ju32s(p->offs, p->noffs),
		    "enabled_offsets", ju32s(p->enoffs, p->nenoffs),
		    "probe_attributes", jattr(attr_min(p->attr, 4)),
		    "argument_attributes", jattr(p->attr[4])));
	}
	json_object_set_new(o, "probes", a);
	a = json_array();
	for (i = 0; i < dtc_dof_necbs(d); i++) {
		const dtc_dof_ecb *e = dtc_dof_ecb_get(d, i);
		json_t *acts = json_array(), *x;

		for (j = 0; j < e->nactions; j++) {
			const dtc_dof_action *ac = &e->actions[j];

			x = json_pack("{s:s, s:I, s:I, s:o, s:o}", "kind",
			    actname(ac->kind), "kind_id", (json_int_t)ac->kind,
			    "ntuple", (json_int_t)ac->ntuple, "arg",
			    ju64(ac->arg), "uarg", ju64(ac->uarg));
			if (ac->difo >= 0)
				json_object_set_new(x, "difo_section",
				    json_integer(dtc_dof_difo_get(d,
				    (size_t)ac->difo)->section));
			if (ac->str != NULL)
				json_object_set_new(x, "string",
				    jtext(ac->str));
			json_array_append_new(acts, x);
		}
		x = json_pack("{s:I, s:o, s:o, s:o, s:o, s:I, s:o, s:o}",
		    "section", (json_int_t)e->section, "provider",
		    jtext(e->provider), "module", jtext(e->module), "function",
		    jtext(e->function), "name", jtext(e->name), "id", (json_int_t)e->id, "uarg", ju64(e->uarg),
		    "actions", acts);
		if (e->pred >= 0)
			json_object_set_new(x, "predicate_section",
			    json_integer(dtc_dof_difo_get(d,
			    (size_t)e->pred)->section));
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "ecbs", a);
	a = json_array();
	for (i = 0; i < dtc_dof_ndifos(d); i++)
		json_array_append_new(a, json_difo(dtc_dof_difo_get(d, i)));
	json_object_set_new(o, "difos", a);
	a = json_array();
	for (i = 0; i < dtc_dof_nproblems(d); i++) {
		char msg[DTC_ERROR_TEXT_MAX];
		dtc_error e;

		problem_at(d, i, item, &e);
		dtc_error_format(&e, msg, sizeof(msg));
		json_array_append_new(a, json_pack("{s:I, s:o, s:o}",
		    "offset", (json_int_t)e.offset, "text", jtext(e.text),
		    "message", jtext(msg)));
	}
	json_object_set_new(o, "problems", a);
	return o;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

/* One DOF listed: its problems on stderr, the listing on stdout. */
static void
list(cli *c, dtc_dof *d, const char *what, const dtc_dof_item *item,
    int json, json_t *into)
{
	dtc_error e;
	size_t i;

	for (i = 0; i < dtc_dof_nproblems(d); i++) {
		problem_at(d, i, item, &e);
		cli_report(c, &e);
	}
	if (into != NULL) {
		json_t *x = json_pack("{s:I, s:I, s:I, s:o, s:o}", "item",
		    (json_int_t)item->index, "offset", (json_int_t)item->offset,
		    "data_offset", (json_int_t)item->data_offset, "name",
		    jtext(item->name), "dof", json_list(d, item));

		json_array_append_new(into, x);
	} else if (json) {
		json_t *o = json_list(d, NULL);

		json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		text_list(stdout, what, d);
	}
}

/* A capture: every dof item, each listed as a DOF file of its own. */
struct capture_list {
	cli *c;
	json_t *items;       /* -f json: the items, else NULL */
	size_t n;
};

static int
capture_item(void *arg, const dtc_dof_item *item, const dtc_error *warning)
{
	struct capture_list *cl = arg;
	dtc_error err = DTC_ERROR_INIT;
	char what[512] = "";
	dtc_dof *d;

	if (item == NULL) {
		cli_report(cl->c, warning);
		return 0;
	}
	if ((d = dtc_dof_item_open(item, &err)) == NULL) {
		cli_report(cl->c, &err);
		return 0;
	}
	if (cl->items == NULL) {
		snprintf(what, sizeof(what), "%s item %lld%s%s%s",
		    item->source, item->index, item->name[0] != '\0' ? " (" :
		    "", item->name, item->name[0] != '\0' ? ")" : "");
		if (cl->n > 0)
			fputc('\n', stdout);
	}
	list(cl->c, d, what, item, cl->items != NULL, cl->items);
	cl->n++;
	dtc_dof_close(d);
	return 0;
}

static int
list_capture(cli *c, const char *path, int json)
{
	struct capture_list cl = { c, json ? json_array() : NULL, 0 };
	dtc_error err = DTC_ERROR_INIT;
	int rc;

	rc = dtc_dof_items_file(path, capture_item, &cl, &err);
	if (rc == DTC_EOF)
		cli_warn(c, "%s: no dof item in the capture", path);
	else if (rc != DTC_OK)
		cli_report(c, &err);
	if (json) {
		json_t *o = json_pack("{s:o, s:o}", "capture", jtext(path),
		    "items", cl.items);

		json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(o);
	}
	return rc == DTC_OK ? CLI_EXIT_OK : CLI_EXIT_WARN;
}

/*
 * A capture starts with its header map (CBOR major type 5) or a zstd
 * frame; ELF and DOF with their magic.  Anything else is read as DOF and
 * refused as such, with the reason.
 */
static int
is_capture(cli *c, const char *path)
{
	unsigned char m[4];
	size_t n;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL)
		return 0;       /* slurp says why */
	n = fread(m, 1, sizeof(m), fp);
	fclose(fp);
	(void)c;
	return (n >= 1 && m[0] >= 0xa0 && m[0] <= 0xbf) ||
	    (n == 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f &&
	    m[3] == 0xfd);
}

int
dtsnap_dof_main(cli *c, int argc, char **argv)
{
	const char *path = NULL, *fmt = "text";
	uint8_t *img;
	const uint8_t *dof;
	size_t len, doflen;
	dtc_error err = DTC_ERROR_INIT;
	dtc_dof *d;
	int json, k, rc = CLI_EXIT_OK;

	for (k = 1; k < argc; k++) {
		if (strcmp(argv[k], "-h") == 0 ||
		    strcmp(argv[k], "--help") == 0) {
			fputs(dof_usage, stdout);
			return CLI_EXIT_OK;
		} else if (strcmp(argv[k], "-f") == 0 ||
		    strcmp(argv[k], "--format") == 0) {
			if (++k == argc)
				cli_usage_error(c, "dof: %s needs a value",
				    argv[k - 1]);
			fmt = argv[k];
		} else if (strncmp(argv[k], "--format=", 9) == 0) {
			fmt = argv[k] + 9;
		} else if (argv[k][0] == '-' && argv[k][1] != '\0') {
			cli_usage_error(c, "dof: unknown option '%s'", argv[k]);
		} else if (path != NULL) {
			cli_usage_error(c, "dof: one file at a time");
		} else {
			path = argv[k];
		}
	}
	if (path == NULL)
		cli_usage_error(c, "dof: no file given");
	if (strcmp(fmt, "text") == 0)
		json = 0;
	else if (strcmp(fmt, "json") == 0)
		json = 1;
	else
		cli_usage_error(c, "dof: -f takes text or json, not '%s'", fmt);

	if (is_capture(c, path)) {
		rc = list_capture(c, path, json);
		goto out;
	}
	if ((img = slurp(c, path, &len)) == NULL)
		return CLI_EXIT_WARN;
	if (len >= 4 && memcmp(img, "\177ELF", 4) == 0) {
		if (elf_dof(c, path, img, len, &dof, &doflen) != 0) {
			free(img);
			return CLI_EXIT_WARN;
		}
	} else {
		dof = img;
		doflen = len;
	}
	if ((d = dtc_dof_open(dof, doflen, path, &err)) == NULL) {
		cli_report(c, &err);
		free(img);
		return CLI_EXIT_WARN;
	}
	free(img);
	list(c, d, path, NULL, json, NULL);
	dtc_dof_close(d);
out:
	if (fflush(stdout) != 0) {
		cli_warn(c, "standard output: %s", strerror(errno));
		return CLI_EXIT_WARN;
	}
	return rc != CLI_EXIT_OK ? rc : c->status;
}
