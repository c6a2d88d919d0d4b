/*
 * dof.c - the DTrace Object Format (DOF) from bytes: header, section
 * headers, providers and probes, ECB and action descriptions, DIF objects
 * (OpenDTrace specification, chapter 6; dof_*_t of sys/dtrace.h).
 *
 * Untrusted input: every offset, size and count is checked against the
 * bytes before it is used, every link to another section must name a
 * section of the type the link is for, and every string must end inside
 * its string table.  A problem is recorded (dtc_dof_problem: the section,
 * the byte offset in the DOF) and only the entry concerned is dropped,
 * so that the rest is still listed.  Links are followed one level only
 * (an ECB to its probe description, actions and predicate DIFO; a DIFO
 * header to its DIF, string, integer and variable tables), and each DIFO
 * is parsed once, by section: a loop of links cannot make the parser go
 * round.  What is kept is allocated in proportion to the input: a table
 * section is converted once however many entries link to it (cache), a
 * probes section belongs to one provider, offsets point into their
 * converted section, argument mappings into the bytes, argument type
 * lists have a budget of one pointer per input byte, and the problem
 * list is capped.
 *
 * Both encodings (DOF_ENCODE_LSB, MSB) are read; the structures are the
 * same in both data models.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* section types (dof_sec_t.dofs_type) */
enum {
	S_NONE = 0, S_COMMENTS, S_SOURCE, S_ECBDESC, S_PROBEDESC, S_ACTDESC,
	S_DIFOHDR, S_DIF, S_STRTAB, S_VARTAB, S_RELTAB, S_TYPTAB, S_URELHDR,
	S_KRELHDR, S_OPTDESC, S_PROVIDER, S_PROBES, S_PRARGS, S_PROFFS,
	S_INTTAB, S_UTSNAME, S_XLTAB, S_XLMEMBERS, S_XLIMPORT, S_XLEXPORT,
	S_PREXPORT, S_PRENOFFS, S_NTYPES
};

static const char *const secnames[S_NTYPES] = {
	"none", "comments", "source", "ecbdesc", "probedesc", "actdesc",
	"difohdr", "dif", "strtab", "vartab", "reltab", "typtab", "urelhdr",
	"krelhdr", "optdesc", "provider", "probes", "prargs", "proffs",
	"inttab", "utsname", "xltab", "xlmembers", "xlimport", "xlexport",
	"prexport", "prenoffs"
};

#define HDRSIZE 64          /* dof_hdr_t */
#define SECSIZE 32          /* dof_sec_t */
#define ECBSIZE 24          /* dof_ecbdesc_t */
#define PDESCSIZE 24        /* dof_probedesc_t */
#define ACTSIZE 32          /* dof_actdesc_t */
#define PROVSIZE_V1 40      /* dof_provider_t without dofpv_prenoffs */
#define PROVSIZE 44
#define PROBESIZE 48        /* dof_probe_t */
#define VARSIZE 20          /* dtrace_difv_t */
#define RELHSIZE 12         /* dof_relohdr_t */
#define RELSIZE 24          /* dof_relodesc_t */
#define NONE_IDX 0xffffffffU
#define MAXPROBLEMS 256     /* problems kept; the rest only counted */

struct dtc_dof {
	uint8_t *buf;
	size_t len;
	int msb;
	char source[256];
	dtc_dof_header hdr;
	dtc_dof_section *secs;
	size_t nsecs;
	dtc_dof_probe *probes;
	size_t nprobes, capprobes;
	dtc_dof_ecb *ecbs;
	size_t necbs;
	dtc_dof_difo *difos;
	size_t ndifos;
	long *difo_of;          /* per section: its DIFO index, or -1 */
	void **cache;           /* per section: what was parsed of it */
	size_t *cachen;         /* its entries */
	uint32_t *cacheaux;     /* reltab: the strtab its names came from */
	uint64_t argbudget;     /* argument type pointers still allowed */
	dtc_error *probs;
	size_t nprobs, capprobs, lost;
	void **allocs;          /* everything else the object owns */
	size_t nallocs, capallocs;
};

/* ------------------------------------------------------------------ */
/* Bytes                                                               */
/* ------------------------------------------------------------------ */

static uint16_t
rd16(const dtc_dof *d, uint64_t off)
{
	const uint8_t *p = d->buf + off;

	return d->msb ? (uint16_t)(p[0] << 8 | p[1]) :
	    (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t
rd32(const dtc_dof *d, uint64_t off)
{
	const uint8_t *p = d->buf + off;

	if (d->msb)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[1] << 8 | p[0];
}

static uint64_t
rd64(const dtc_dof *d, uint64_t off)
{
	uint64_t a = rd32(d, off), b = rd32(d, off + 4);

	return d->msb ? a << 32 | b : b << 32 | a;
}

/* ------------------------------------------------------------------ */
/* Problems and memory                                                 */
/* ------------------------------------------------------------------ */

static void
problem(dtc_dof *d, int code, long long sec, uint64_t off, const char *fmt,
    ...) __attribute__((format(printf, 5, 6)));

static void
problem(dtc_dof *d, int code, long long sec, uint64_t off, const char *fmt,
    ...)
{
	dtc_error *e;
	char text[sizeof(e->text)];
	va_list ap;
	size_t n;

	if (d->nprobs >= MAXPROBLEMS) {
		d->lost++;
		return;
	}
	if (d->nprobs == MAXPROBLEMS - 1) {
		/* the last slot says that the list stops here */
		code = DTC_E_LIMIT;
		sec = -1;
		fmt = "more problems, not listed";
	}
	if (d->nprobs == d->capprobs) {
		if (d->capprobs >= MAXPROBLEMS ||
		    (e = realloc(d->probs, (d->capprobs ? d->capprobs * 2 : 8) *
		    sizeof(*e))) == NULL) {
			d->lost++;
			return;
		}
		d->probs = e;
		d->capprobs = d->capprobs ? d->capprobs * 2 : 8;
	}
	e = &d->probs[d->nprobs++];
	dtc_error_clear(e);
	n = 0;
	if (sec >= 0) {
		const char *name = (size_t)sec < d->nsecs ?
		    dtc_dof_secname(d->secs[sec].type) : NULL;

		n = (size_t)snprintf(text, sizeof(text), "section %lld (%s): ",
		    sec, name != NULL ? name : "?");
		if (n >= sizeof(text))
			n = sizeof(text) - 1;
	}
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof(text) - n, fmt, ap);
	va_end(ap);
	dtcp_error_set(e, code, d->source, -1, (long long)off, -1, "%s", text);
}

/* calloc whose block the object frees at close; NULL on failure */
static void *
own(dtc_dof *d, size_t n, size_t size)
{
	void *p, **a;

	if (d->nallocs == d->capallocs) {
		size_t cap = d->capallocs ? d->capallocs * 2 : 16;

		if ((a = realloc(d->allocs, cap * sizeof(*a))) == NULL)
			return NULL;
		d->allocs = a;
		d->capallocs = cap;
	}
	if ((p = calloc(n ? n : 1, size ? size : 1)) == NULL)
		return NULL;
	d->allocs[d->nallocs++] = p;
	return p;
}

/* What section sec was converted to, when it was already (n entries). */
static void *
cached(const dtc_dof *d, uint32_t sec, size_t *n)
{
	*n = d->cachen[sec];
	return d->cache[sec];
}

static void *
keep(dtc_dof *d, uint32_t sec, void *p, size_t n)
{
	d->cache[sec] = p;
	d->cachen[sec] = n;
	return p;
}

/* ------------------------------------------------------------------ */
/* Sections, links, strings                                            */
/* ------------------------------------------------------------------ */

const char *
dtc_dof_secname(uint32_t type)
{
	return type < S_NTYPES ? secnames[type] : NULL;
}

/* The usable section idx of type `type' that section `from' links to
 * (its field at byte `at'), or NULL after saying why. */
static const dtc_dof_section *
link_to(dtc_dof *d, uint32_t from, uint64_t at, uint32_t idx, uint32_t type,
    const char *what)
{
	const dtc_dof_section *s;

	if (idx >= d->nsecs) {
		problem(d, DTC_E_BADVALUE, from, at, "%s links to section %u "
		    "of %zu", what, idx, d->nsecs);
		return NULL;
	}
	s = &d->secs[idx];
	if (s->type != type) {
		const char *name = dtc_dof_secname(s->type);

		if (name != NULL)
			problem(d, DTC_E_BADVALUE, from, at, "%s links to section "
			    "%u, of type %s, not %s", what, idx, name,
			    secnames[type]);
		else
			problem(d, DTC_E_BADVALUE, from, at, "%s links to section "
			    "%u, of type %u, not %s", what, idx, s->type,
			    secnames[type]);
		return NULL;
	}
	if (!s->ok) {
		problem(d, DTC_E_BADVALUE, from, at, "%s links to section %u, "
		    "which is damaged", what, idx);
		return NULL;
	}
	return s;
}

/* String off of string table section st (usable, type strtab). */
static const char *
str_at(dtc_dof *d, uint32_t from, uint64_t at, const dtc_dof_section *st,
    uint32_t off, const char *what)
{
	const char *s, *nul;

	if (off >= st->size) {
		problem(d, DTC_E_BADVALUE, from, at, "%s: string offset %u "
		    "outside string table section %td (%llu bytes)", what, off,
		    st - d->secs, (unsigned long long)st->size);
		return NULL;
	}
	s = (const char *)d->buf + st->offset + off;
	if ((nul = memchr(s, '\0', st->size - off)) == NULL) {
		problem(d, DTC_E_BADVALUE, from, at, "%s: string at %u runs "
		    "past the end of string table section %td", what, off,
		    st - d->secs);
		return NULL;
	}
	return s;
}

/* Entry size of a table section: its entsize, at least min (the fields
 * read), and whole entries; 0 after saying why. */
static uint32_t
entsize_of(dtc_dof *d, uint32_t i, uint32_t min)
{
	const dtc_dof_section *s = &d->secs[i];
	uint64_t at = d->hdr.secoff + (uint64_t)i * d->hdr.secsize;

	if (s->entsize < min) {
		problem(d, DTC_E_BADVALUE, i, at, "entry size %u, less than "
		    "the %u bytes of an entry", s->entsize, min);
		return 0;
	}
	if (s->size % s->entsize != 0)
		problem(d, DTC_E_BADVALUE, i, at, "size %llu is not a "
		    "multiple of the entry size %u (the last %llu bytes are "
		    "ignored)", (unsigned long long)s->size, s->entsize,
		    (unsigned long long)(s->size % s->entsize));
	return s->entsize;
}

static void
read_sections(dtc_dof *d)
{
	size_t i;

	for (i = 0; i < d->nsecs; i++) {
		dtc_dof_section *s = &d->secs[i];
		uint64_t at = d->hdr.secoff + (uint64_t)i * d->hdr.secsize;

		s->type = rd32(d, at);
		s->align = rd32(d, at + 4);
		s->flags = rd32(d, at + 8);
		s->entsize = rd32(d, at + 12);
		s->offset = rd64(d, at + 16);
		s->size = rd64(d, at + 24);
		s->ok = 1;
		if (s->offset > d->len || s->size > d->len - s->offset) {
			problem(d, DTC_E_OVERRUN, (long long)i, at, "data at "
			    "offset %llu, %llu bytes, runs past the end of the "
			    "DOF (%zu bytes)", (unsigned long long)s->offset,
			    (unsigned long long)s->size, d->len);
			s->ok = 0;
			continue;
		}
		if (s->align > 1 && (s->align & (s->align - 1)) == 0 &&
		    s->offset % s->align != 0)
			problem(d, DTC_E_BADVALUE, (long long)i, at, "offset "
			    "%llu is not aligned to %u",
			    (unsigned long long)s->offset, s->align);
		if (s->type == S_STRTAB && s->size > 0 &&
		    d->buf[s->offset + s->size - 1] != '\0')
			problem(d, DTC_E_BADVALUE, (long long)i,
			    s->offset + s->size - 1, "string table does not "
			    "end with a NUL");
		if (s->type == S_DIF && s->size % 4 != 0)
			problem(d, DTC_E_BADVALUE, (long long)i, at, "DIF of "
			    "%llu bytes, not whole instructions",
			    (unsigned long long)s->size);
	}
}

/* ------------------------------------------------------------------ */
/* DIF objects                                                         */
/* ------------------------------------------------------------------ */

static void
read_relocs(dtc_dof *d, uint32_t i)
{
	const dtc_dof_section *h = &d->secs[i], *st, *rs;
	dtc_dof_difo *f;
	dtc_dof_reloc *r;
	uint32_t tgt, es, n, k, rsec;
	uint64_t o = h->offset;
	size_t nr;

	if (h->size < RELHSIZE) {
		problem(d, DTC_E_TRUNCATED, i, o, "relocation header of %llu "
		    "bytes, less than %d", (unsigned long long)h->size,
		    RELHSIZE);
		return;
	}
	/* relocations of other sections (a USDT object's probe addresses)
	 * are the linker's business: only a DIFO's are listed */
	tgt = rd32(d, o + 8);
	if (tgt < d->nsecs && d->secs[tgt].type != S_DIFOHDR)
		return;
	if (link_to(d, i, o + 8, tgt, S_DIFOHDR, "target") == NULL ||
	    d->difo_of[tgt] < 0)
		return;
	if ((st = link_to(d, i, o, rd32(d, o), S_STRTAB,
	    "relocation names")) == NULL ||
	    (rs = link_to(d, i, o + 4, rd32(d, o + 4), S_RELTAB,
	    "relocations")) == NULL)
		return;
	f = &d->difos[d->difo_of[tgt]];
	if ((h->type == S_KRELHDR ? f->nkrel : f->nurel) != 0) {
		problem(d, DTC_E_DUPLICATE, i, o, "second %s relocation "
		    "header for DIFO section %u (ignored)",
		    h->type == S_KRELHDR ? "kernel" : "user", tgt);
		return;
	}
	rsec = (uint32_t)(rs - d->secs);
	if ((r = cached(d, rsec, &nr)) != NULL) {
		/* the names were read from the first header's string table */
		if (d->cacheaux[rsec] != (uint32_t)(st - d->secs)) {
			problem(d, DTC_E_DUPLICATE, i, o, "relocations of "
			    "section %u named from string table %td, but from "
			    "%u before (ignored)", rsec, st - d->secs,
			    d->cacheaux[rsec]);
			return;
		}
		n = (uint32_t)nr;
	} else {
		if ((es = entsize_of(d, rsec, RELSIZE)) == 0)
			return;
		n = (uint32_t)(rs->size / es);
		if ((r = own(d, n, sizeof(*r))) == NULL)
			return;
		for (k = 0; k < n; k++) {
			uint64_t e = rs->offset + (uint64_t)k * es;

			r[k].name = rd32(d, e);
			r[k].type = rd32(d, e + 4);
			r[k].offset = rd64(d, e + 8);
			r[k].data = rd64(d, e + 16);
			r[k].str = str_at(d, rsec, e, st, r[k].name,
			    "relocation name");
		}
		keep(d, rsec, r, n);
		d->cacheaux[rsec] = (uint32_t)(st - d->secs);
	}
	if (h->type == S_KRELHDR) {
		f->krel = r;
		f->nkrel = n;
	} else {
		f->urel = r;
		f->nurel = n;
	}
}

/* Section i, a DIFO header: its links, each once. */
static void
read_difo(dtc_dof *d, uint32_t i)
{
	const dtc_dof_section *h = &d->secs[i];
	dtc_dof_difo *f = &d->difos[d->ndifos];
	uint64_t o = h->offset, at;
	uint32_t nlinks, k, j;
	int seen[S_NTYPES] = { 0 };

	if (h->size < 8 || (h->size - 8) % 4 != 0) {
		problem(d, DTC_E_BADVALUE, i, o, "DIFO header of %llu bytes "
		    "(8, then 4 per link)", (unsigned long long)h->size);
		return;
	}
	memset(f, 0, sizeof(*f));
	f->section = i;
	f->rkind = d->buf[o];
	f->rckind = d->buf[o + 1];
	f->rflags = d->buf[o + 2];
	f->rsize = rd32(d, o + 4);
	f->strtab = "";
	nlinks = (uint32_t)((h->size - 8) / 4);
	for (k = 0; k < nlinks; k++) {
		const dtc_dof_section *s;
		uint32_t idx, type, n;

		at = o + 8 + (uint64_t)k * 4;
		idx = rd32(d, at);
		if (idx >= d->nsecs) {
			problem(d, DTC_E_BADVALUE, i, at, "link %u to section "
			    "%u of %zu", k, idx, d->nsecs);
			continue;
		}
		s = &d->secs[idx];
		type = s->type;
		if (type != S_DIF && type != S_STRTAB && type != S_INTTAB &&
		    type != S_VARTAB && type != S_XLTAB) {
			problem(d, DTC_E_BADVALUE, i, at, "link %u to section "
			    "%u, of type %s, which a DIFO does not hold", k, idx,
			    dtc_dof_secname(type) ? dtc_dof_secname(type) : "?");
			continue;
		}
		if (!s->ok) {
			problem(d, DTC_E_BADVALUE, i, at, "link %u to section "
			    "%u, which is damaged", k, idx);
			continue;
		}
		if (seen[type]++) {
			problem(d, DTC_E_DUPLICATE, i, at, "second %s link "
			    "(section %u, ignored)", secnames[type], idx);
			continue;
		}
		/* a table another DIFO linked to is converted already */
		if (type != S_XLTAB) {
			size_t cn;
			void *c = cached(d, idx, &cn);

			if (c != NULL) {
				if (type == S_DIF) {
					f->text = c;
					f->len = cn;
				} else if (type == S_STRTAB) {
					f->strtab = c;
					f->strlen = cn;
				} else if (type == S_INTTAB) {
					f->inttab = c;
					f->intlen = cn;
				} else {
					f->vars = c;
					f->nvars = cn;
				}
				continue;
			}
		}
		switch (type) {
		case S_DIF: {
			uint32_t *t;

			n = (uint32_t)(s->size / 4);
			if ((t = own(d, n, sizeof(*t))) == NULL)
				return;
			for (j = 0; j < n; j++)
				t[j] = rd32(d, s->offset + (uint64_t)j * 4);
			f->text = keep(d, idx, t, n);
			f->len = n;
			break;
		}
		case S_STRTAB: {
			char *t;

			/* a copy with a NUL after it: dt_dis prints strings
			 * up to their NUL, and this one always has one */
			if ((t = own(d, (size_t)s->size + 1, 1)) == NULL)
				return;
			memcpy(t, d->buf + s->offset, (size_t)s->size);
			f->strtab = keep(d, idx, t, (size_t)s->size);
			f->strlen = (size_t)s->size;
			break;
		}
		case S_INTTAB: {
			uint64_t *t;

			if (s->size % 8 != 0)
				problem(d, DTC_E_BADVALUE, idx, s->offset,
				    "integer table of %llu bytes, not whole "
				    "integers", (unsigned long long)s->size);
			n = (uint32_t)(s->size / 8);
			if ((t = own(d, n, sizeof(*t))) == NULL)
				return;
			for (j = 0; j < n; j++)
				t[j] = rd64(d, s->offset + (uint64_t)j * 8);
			f->inttab = keep(d, idx, t, n);
			f->intlen = n;
			break;
		}
		case S_VARTAB: {
			dtc_dof_var *v;
			uint32_t es;

			if ((es = entsize_of(d, idx, VARSIZE)) == 0)
				break;
			n = (uint32_t)(s->size / es);
			if ((v = own(d, n, sizeof(*v))) == NULL)
				return;
			for (j = 0; j < n; j++) {
				uint64_t e = s->offset + (uint64_t)j * es;

				v[j].name = rd32(d, e);
				v[j].id = rd32(d, e + 4);
				v[j].kind = d->buf[e + 8];
				v[j].scope = d->buf[e + 9];
				v[j].flags = rd16(d, e + 10);
				v[j].tkind = d->buf[e + 12];
				v[j].tckind = d->buf[e + 13];
				v[j].tflags = d->buf[e + 14];
				v[j].tsize = rd32(d, e + 16);
			}
			f->vars = keep(d, idx, v, n);
			f->nvars = n;
			break;
		}
		default:
			break;
		}
	}
	if (!seen[S_DIF])
		problem(d, DTC_E_MISSINGKEY, i, o, "DIFO without DIF");
	/* names outside the string table are said here once; the
	 * disassembler leaves them out as dt_dis does */
	for (j = 0; j < f->nvars; j++)
		if (f->vars[j].name >= f->strlen)
			problem(d, DTC_E_BADVALUE, i, o, "variable %u: name "
			    "offset %u outside the DIFO's string table (%zu "
			    "bytes)", j, f->vars[j].name, f->strlen);
	d->difo_of[i] = (long)d->ndifos++;
}

/* ------------------------------------------------------------------ */
/* Providers and probes                                                */
/* ------------------------------------------------------------------ */

/* n strings one after another from string off of st (argument lists) */
static const char **
str_list(dtc_dof *d, uint32_t from, uint64_t at, const dtc_dof_section *st,
    uint32_t off, unsigned n, const char *what)
{
	const char **v;
	unsigned k;

	if (n > d->argbudget) {
		problem(d, DTC_E_LIMIT, from, at, "%s: more argument types "
		    "than the DOF has bytes", what);
		return NULL;
	}
	d->argbudget -= n;
	if ((v = own(d, n, sizeof(*v))) == NULL)
		return NULL;
	for (k = 0; k < n; k++) {
		if ((v[k] = str_at(d, from, at, st, off, what)) == NULL)
			return NULL;
		off += (uint32_t)strlen(v[k]) + 1;
	}
	return v;
}

/* count uint32s from index idx of section s (proffs, prenoffs): a
 * pointer into the section, converted once */
static const uint32_t *
u32_run(dtc_dof *d, uint32_t from, uint64_t at, const dtc_dof_section *s,
    uint32_t idx, size_t count, const char *what)
{
	uint32_t *v, sec = (uint32_t)(s - d->secs);
	size_t k, n;

	if (count == 0)
		return NULL;
	if ((uint64_t)idx + count > s->size / 4) {
		problem(d, DTC_E_BADVALUE, from, at, "%s %u..%llu outside "
		    "section %td (%llu entries)", what, idx,
		    (unsigned long long)idx + count - 1, s - d->secs,
		    (unsigned long long)(s->size / 4));
		return NULL;
	}
	if ((v = cached(d, sec, &n)) == NULL) {
		n = (size_t)(s->size / 4);
		if ((v = own(d, n, sizeof(*v))) == NULL)
			return NULL;
		for (k = 0; k < n; k++)
			v[k] = rd32(d, s->offset + (uint64_t)k * 4);
		keep(d, sec, v, n);
	}
	return v + idx;
}

static void
read_provider(dtc_dof *d, uint32_t i)
{
	const dtc_dof_section *h = &d->secs[i], *st, *ps, *args, *offs,
	    *enoffs = NULL;
	uint64_t o = h->offset;
	const char *pname;
	uint32_t attr[5], es, n, k;
	int a;

	if (h->size < PROVSIZE_V1) {
		problem(d, DTC_E_TRUNCATED, i, o, "provider of %llu bytes, "
		    "less than %d", (unsigned long long)h->size, PROVSIZE_V1);
		return;
	}
	if ((st = link_to(d, i, o, rd32(d, o), S_STRTAB, "strings")) == NULL ||
	    (pname = str_at(d, i, o + 16, st, rd32(d, o + 16),
	    "provider name")) == NULL)
		return;
	if ((ps = link_to(d, i, o + 4, rd32(d, o + 4), S_PROBES,
	    "probes")) == NULL)
		return;
	args = link_to(d, i, o + 8, rd32(d, o + 8), S_PRARGS, "arguments");
	offs = link_to(d, i, o + 12, rd32(d, o + 12), S_PROFFS, "offsets");
	/* index 0 is "none" here, as the kernel reads it (DOF_SECT_NONE):
	 * version 1 providers have no such field, later ones write 0 */
	if (h->size >= PROVSIZE && rd32(d, o + 40) != 0 &&
	    rd32(d, o + 40) != NONE_IDX)
		enoffs = link_to(d, i, o + 40, rd32(d, o + 40), S_PRENOFFS,
		    "is-enabled offsets");
	for (a = 0; a < 5; a++)
		attr[a] = rd32(d, o + 20 + (uint64_t)a * 4);
	/* a probes section is one provider's: were it shared, each
	 * provider would list (and allocate) all its probes again */
	if (d->cache[ps - d->secs] != NULL) {
		problem(d, DTC_E_DUPLICATE, i, o + 4, "probes section %td "
		    "belongs to an earlier provider (ignored)", ps - d->secs);
		return;
	}
	keep(d, (uint32_t)(ps - d->secs), d, 0);
	if ((es = entsize_of(d, (uint32_t)(ps - d->secs), PROBESIZE)) == 0)
		return;
	n = (uint32_t)(ps->size / es);
	if (d->nprobes + n > d->capprobes) {
		size_t cap = d->nprobes + n;
		dtc_dof_probe *p = realloc(d->probes, cap * sizeof(*p));

		if (p == NULL)
			return;
		d->probes = p;
		d->capprobes = cap;
	}
	for (k = 0; k < n; k++) {
		uint32_t psec = (uint32_t)(ps - d->secs);
		uint64_t e = ps->offset + (uint64_t)k * es;
		dtc_dof_probe *p = &d->probes[d->nprobes];
		uint32_t argidx;

		memset(p, 0, sizeof(*p));
		p->provsec = i;
		p->probesec = psec;
		p->index = k;
		p->provider = pname;
		memcpy(p->attr, attr, sizeof(attr));
		p->addr = rd64(d, e);
		if ((p->function = str_at(d, psec, e + 8, st, rd32(d, e + 8),
		    "probe function")) == NULL ||
		    (p->name = str_at(d, psec, e + 12, st, rd32(d, e + 12),
		    "probe name")) == NULL)
			continue;
		p->nargc = d->buf[e + 32];
		p->xargc = d->buf[e + 33];
		p->noffs = rd16(d, e + 34);
		p->nenoffs = rd16(d, e + 40);
		if (p->nargc > 0 && (p->nargv = str_list(d, psec, e + 16, st,
		    rd32(d, e + 16), p->nargc, "native argument")) == NULL)
			continue;
		if (p->xargc > 0 && (p->xargv = str_list(d, psec, e + 20, st,
		    rd32(d, e + 20), p->xargc, "translated argument")) == NULL)
			continue;
		argidx = rd32(d, e + 24);
		if (p->xargc > 0) {
			const uint8_t *m;
			unsigned j;

			if (args == NULL)
				continue;
			if ((uint64_t)argidx + p->xargc > args->size) {
				problem(d, DTC_E_BADVALUE, psec, e + 24,
				    "argument mapping %u..%u outside section "
				    "%td (%llu bytes)", argidx,
				    argidx + p->xargc - 1, args - d->secs,
				    (unsigned long long)args->size);
				continue;
			}
			m = d->buf + args->offset + argidx;
			for (j = 0; j < p->xargc; j++)
				if (m[j] >= p->nargc)
					problem(d, DTC_E_BADVALUE, psec, e + 24,
					    "translated argument %u maps to "
					    "native argument %u of %u", j, m[j],
					    p->nargc);
			p->argmap = m;
		}
		if (p->noffs > 0) {
			if (offs == NULL)
				continue;
			if ((p->offs = u32_run(d, psec, e + 28, offs,
			    rd32(d, e + 28), p->noffs, "offsets")) == NULL)
				continue;
		}
		if (p->nenoffs > 0) {
			if (enoffs == NULL) {
				problem(d, DTC_E_MISSINGKEY, psec, e + 40,
				    "is-enabled offsets without a prenoffs "
				    "section");
				continue;
			}
			if ((p->enoffs = u32_run(d, psec, e + 36, enoffs,
			    rd32(d, e + 36), p->nenoffs,
			    "is-enabled offsets")) == NULL)
				continue;
		}
		d->nprobes++;
	}
}

/* ------------------------------------------------------------------ */
/* ECB and action descriptions                                         */
/* ------------------------------------------------------------------ */

static long
difo_link(dtc_dof *d, uint32_t from, uint64_t at, uint32_t idx,
    const char *what)
{
	if (idx == NONE_IDX)
		return -1;
	if (link_to(d, from, at, idx, S_DIFOHDR, what) == NULL)
		return -1;
	return d->difo_of[idx];
}

static void
read_ecb(dtc_dof *d, uint32_t i)
{
	const dtc_dof_section *h = &d->secs[i], *pd, *st, *as;
	dtc_dof_ecb *c = &d->ecbs[d->necbs];
	dtc_dof_action *acts;
	uint64_t o = h->offset, p;
	uint32_t es, n, k, aidx;

	if (h->size < ECBSIZE) {
		problem(d, DTC_E_TRUNCATED, i, o, "ECB description of %llu "
		    "bytes, less than %d", (unsigned long long)h->size, ECBSIZE);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->section = i;
	c->uarg = rd64(d, o + 16);
	if ((pd = link_to(d, i, o, rd32(d, o), S_PROBEDESC,
	    "probe description")) == NULL)
		return;
	p = pd->offset;
	if (pd->size < PDESCSIZE) {
		problem(d, DTC_E_TRUNCATED, (uint32_t)(pd - d->secs), p,
		    "probe description of %llu bytes, less than %d",
		    (unsigned long long)pd->size, PDESCSIZE);
		return;
	}
	if ((st = link_to(d, (uint32_t)(pd - d->secs), p, rd32(d, p),
	    S_STRTAB, "strings")) == NULL)
		return;
	if ((c->provider = str_at(d, (uint32_t)(pd - d->secs), p + 4, st,
	    rd32(d, p + 4), "provider")) == NULL ||
	    (c->module = str_at(d, (uint32_t)(pd - d->secs), p + 8, st,
	    rd32(d, p + 8), "module")) == NULL ||
	    (c->function = str_at(d, (uint32_t)(pd - d->secs), p + 12, st,
	    rd32(d, p + 12), "function")) == NULL ||
	    (c->name = str_at(d, (uint32_t)(pd - d->secs), p + 16, st,
	    rd32(d, p + 16), "name")) == NULL)
		return;
	c->id = rd32(d, p + 20);
	c->pred = difo_link(d, i, o + 4, rd32(d, o + 4), "predicate");
	aidx = rd32(d, o + 8);
	if (aidx != NONE_IDX && (as = link_to(d, i, o + 8, aidx, S_ACTDESC,
	    "actions")) != NULL &&
	    (c->actions = cached(d, aidx, &c->nactions)) != NULL) {
		/* another ECB's actions: read once */
	} else if (aidx != NONE_IDX && as != NULL &&
	    (es = entsize_of(d, aidx, ACTSIZE)) != 0) {
		n = (uint32_t)(as->size / es);
		if ((acts = own(d, n, sizeof(*acts))) == NULL)
			return;
		for (k = 0; k < n; k++) {
			uint64_t e = as->offset + (uint64_t)k * es;
			uint32_t sidx = rd32(d, e + 4);
			const dtc_dof_section *ss;

			acts[k].difo = difo_link(d, aidx, e, rd32(d, e),
			    "action DIFO");
			acts[k].kind = rd32(d, e + 8);
			acts[k].ntuple = rd32(d, e + 12);
			acts[k].arg = rd64(d, e + 16);
			acts[k].uarg = rd64(d, e + 24);
			if (sidx != NONE_IDX && (ss = link_to(d, aidx, e + 4,
			    sidx, S_STRTAB, "action strings")) != NULL) {
				if (acts[k].arg > UINT32_MAX)
					problem(d, DTC_E_BADVALUE, aidx, e + 16,
					    "string offset %llu outside string "
					    "table section %u",
					    (unsigned long long)acts[k].arg,
					    sidx);
				else
					acts[k].str = str_at(d, aidx, e + 16,
					    ss, (uint32_t)acts[k].arg,
					    "action string");
			}
		}
		c->actions = keep(d, aidx, acts, n);
		c->nactions = n;
	}
	d->necbs++;
}

/* ------------------------------------------------------------------ */
/* The object                                                          */
/* ------------------------------------------------------------------ */

dtc_dof *
dtc_dof_open(const void *data, size_t len, const char *source,
    dtc_error *err)
{
	dtc_dof *d;
	const uint8_t *b = data;
	size_t i, ndifo = 0, necb = 0;

	dtc_error_clear(err);
	if (source == NULL)
		source = "<memory>";
	if (len < HDRSIZE || b == NULL || memcmp(b, "\177DOF", 4) != 0) {
		dtcp_error_set(err, DTC_E_BADHEADER, source, -1, 0, -1,
		    len < 4 || b == NULL || memcmp(b, "\177DOF", 4) != 0 ?
		    "no DOF magic (\\177DOF)" : "DOF header cut short (%zu of "
		    "64 bytes)", len);
		return NULL;
	}
	if (b[5] != 1 && b[5] != 2) {
		dtcp_error_set(err, DTC_E_BADHEADER, source, -1, 5, -1,
		    "unknown DOF encoding %u (1: LSB, 2: MSB)", b[5]);
		return NULL;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL ||
	    (d->buf = malloc(len)) == NULL) {
		free(d);
		dtcp_error_set(err, DTC_E_NOMEM, source, -1, -1, -1, NULL);
		return NULL;
	}
	memcpy(d->buf, b, len);
	d->len = len;
	d->msb = b[5] == 2;
	snprintf(d->source, sizeof(d->source), "%s", source);
	memcpy(d->hdr.ident, b, 16);
	d->hdr.flags = rd32(d, 16);
	d->hdr.hdrsize = rd32(d, 20);
	d->hdr.secsize = rd32(d, 24);
	d->hdr.secnum = rd32(d, 28);
	d->hdr.secoff = rd64(d, 32);
	d->hdr.loadsz = rd64(d, 40);
	d->hdr.filesz = rd64(d, 48);
	if (b[4] != 1 && b[4] != 2)
		problem(d, DTC_E_BADVALUE, -1, 4, "header: unknown data model "
		    "%u (1: ILP32, 2: LP64)", b[4]);
	if (b[6] < 1 || b[6] > 3)
		problem(d, DTC_E_VERSION, -1, 6, "header: unknown DOF version "
		    "%u", b[6]);
	if (b[7] < 1 || b[7] > 2)
		problem(d, DTC_E_VERSION, -1, 7, "header: unknown DIF version "
		    "%u", b[7]);
	if (d->hdr.hdrsize < HDRSIZE)
		problem(d, DTC_E_BADVALUE, -1, 20, "header: header size %u, "
		    "less than %d", d->hdr.hdrsize, HDRSIZE);
	if (d->hdr.filesz != len)
		problem(d, d->hdr.filesz > len ? DTC_E_TRUNCATED :
		    DTC_E_BADVALUE, -1, 48, "header: file size %llu, but %zu "
		    "bytes are here", (unsigned long long)d->hdr.filesz, len);
	if (d->hdr.loadsz > d->hdr.filesz)
		problem(d, DTC_E_BADVALUE, -1, 40, "header: loadable size "
		    "%llu past the file size %llu",
		    (unsigned long long)d->hdr.loadsz,
		    (unsigned long long)d->hdr.filesz);
	/* the section table: whole, inside the bytes, entries as large as
	 * a dof_sec_t; otherwise no section is read at all */
	if (d->hdr.secsize < SECSIZE)
		problem(d, DTC_E_BADVALUE, -1, 24, "header: section header "
		    "size %u, less than %d", d->hdr.secsize, SECSIZE);
	else if (d->hdr.secoff > len ||
	    (uint64_t)d->hdr.secnum * d->hdr.secsize > len - d->hdr.secoff)
		problem(d, DTC_E_OVERRUN, -1, 28, "header: %u section headers "
		    "of %u bytes at offset %llu run past the end of the DOF "
		    "(%zu bytes)", d->hdr.secnum, d->hdr.secsize,
		    (unsigned long long)d->hdr.secoff, len);
	else
		d->nsecs = d->hdr.secnum;
	if (d->nsecs > 0 &&
	    ((d->secs = calloc(d->nsecs, sizeof(*d->secs))) == NULL ||
	    (d->difo_of = calloc(d->nsecs, sizeof(*d->difo_of))) == NULL ||
	    (d->cache = calloc(d->nsecs, sizeof(*d->cache))) == NULL ||
	    (d->cachen = calloc(d->nsecs, sizeof(*d->cachen))) == NULL ||
	    (d->cacheaux = calloc(d->nsecs, sizeof(*d->cacheaux))) == NULL))
		goto nomem;
	d->argbudget = len;
	read_sections(d);
	for (i = 0; i < d->nsecs; i++) {
		d->difo_of[i] = -1;
		ndifo += d->secs[i].type == S_DIFOHDR;
		necb += d->secs[i].type == S_ECBDESC;
	}
	if ((ndifo > 0 && (d->difos = own(d, ndifo, sizeof(*d->difos))) ==
	    NULL) || (necb > 0 && (d->ecbs = own(d, necb,
	    sizeof(*d->ecbs))) == NULL))
		goto nomem;
	/* DIFOs first, so that ECBs, actions and relocations find them */
	for (i = 0; i < d->nsecs; i++)
		if (d->secs[i].ok && d->secs[i].type == S_DIFOHDR)
			read_difo(d, (uint32_t)i);
	for (i = 0; i < d->nsecs; i++) {
		if (!d->secs[i].ok)
			continue;
		switch (d->secs[i].type) {
		case S_URELHDR:
		case S_KRELHDR:
			read_relocs(d, (uint32_t)i);
			break;
		case S_PROVIDER:
			read_provider(d, (uint32_t)i);
			break;
		case S_ECBDESC:
			read_ecb(d, (uint32_t)i);
			break;
		}
	}
	return d;
nomem:
	dtc_dof_close(d);
	dtcp_error_set(err, DTC_E_NOMEM, source, -1, -1, -1, NULL);
	return NULL;
}

void
dtc_dof_close(dtc_dof *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nallocs; i++)
		free(d->allocs[i]);
	free(d->allocs);
	free(d->probes);
	free(d->probs);
	free(d->difo_of);
	free(d->cache);
	free(d->cachen);
	free(d->cacheaux);
	free(d->secs);
	free(d->buf);
	free(d);
}

const dtc_dof_header *
dtc_dof_header_get(const dtc_dof *d)
{
	return &d->hdr;
}

size_t
dtc_dof_nsections(const dtc_dof *d)
{
	return d->nsecs;
}

const dtc_dof_section *
dtc_dof_section_get(const dtc_dof *d, size_t i)
{
	return i < d->nsecs ? &d->secs[i] : NULL;
}

size_t
dtc_dof_nprobes(const dtc_dof *d)
{
	return d->nprobes;
}

const dtc_dof_probe *
dtc_dof_probe_get(const dtc_dof *d, size_t i)
{
	return i < d->nprobes ? &d->probes[i] : NULL;
}

size_t
dtc_dof_necbs(const dtc_dof *d)
{
	return d->necbs;
}

const dtc_dof_ecb *
dtc_dof_ecb_get(const dtc_dof *d, size_t i)
{
	return i < d->necbs ? &d->ecbs[i] : NULL;
}

size_t
dtc_dof_ndifos(const dtc_dof *d)
{
	return d->ndifos;
}

const dtc_dof_difo *
dtc_dof_difo_get(const dtc_dof *d, size_t i)
{
	return i < d->ndifos ? &d->difos[i] : NULL;
}

size_t
dtc_dof_nproblems(const dtc_dof *d)
{
	return d->nprobs;
}

const dtc_error *
dtc_dof_problem(const dtc_dof *d, size_t i)
{
	return i < d->nprobs ? &d->probs[i] : NULL;
}
