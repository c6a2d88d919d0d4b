/*
 * symbols.c - offline symbolization from the capture's ksyms and proc
 * items, producing the strings libdtrace's dtrace_addr2str and
 * dtrace_uaddr2str produce on a live system:
 *   "mod`sym+0x1f", "mod`sym", "mod`0xaddr" (module known, symbol not),
 *   "0xaddr" (nothing known).
 * Without the items every address prints the unresolved way, exactly as
 * dtrace prints an address it cannot resolve.
 */
#include <inttypes.h>
#include <string.h>

#include "capture.h"

/* The last symbol starting at or below addr, or -1. */
static ssize_t
below(const dtcp_ksym *syms, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

static int
contains(const dtcp_ksym *s, uint64_t addr)
{
	return addr == s->addr || (addr > s->addr && addr - s->addr < s->size);
}

/* Find the symbol holding addr; with same-start symbols sorted larger
 * first, walk back over the run that starts at the same address. */
static const dtcp_ksym *
find_sym(const dtcp_ksym *syms, size_t n, uint64_t addr, ssize_t *idx)
{
	ssize_t i = below(syms, n, addr), j;

	*idx = i;
	for (j = i; j >= 0 && j > i - 8; j--) {
		if (contains(&syms[j], addr))
			return &syms[j];
		if (j > 0 && syms[j - 1].addr != syms[j].addr &&
		    syms[j - 1].addr + syms[j - 1].size <= syms[j].addr)
			break;
	}
	return NULL;
}

int
dtc_capture_ksym_lookup(const dtcp_capture *r, uint64_t addr, dtc_symbol *sym)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;
	const dtcp_ksym *s;
	ssize_t i;

	memset(sym, 0, sizeof(*sym));
	if (m == NULL || m->nksyms == 0)
		return 0;
	if ((s = find_sym(m->ksyms, m->nksyms, addr, &i)) != NULL) {
		sym->module = s->module;
		sym->name = s->name;
		sym->start = s->addr;
		sym->size = s->size;
		return 1;
	}
	/* Between two symbols of one module: the module is known. */
	if (i >= 0 && (size_t)i + 1 < m->nksyms &&
	    strcmp(m->ksyms[i].module, m->ksyms[i + 1].module) == 0) {
		sym->module = m->ksyms[i].module;
		return 1;
	}
	return 0;
}

/*
 * libdtrace takes a record's process word as a pid_t (dt_print_ustack's
 * "(pid_t)*pc", dtrace_uaddr2str's pid_t argument): only the low 32
 * bits count (dtrace-utils' ustack word holds the tgid in both halves),
 * and a negative or zero pid_t is never grabbed.
 */
static int
pid_of(uint64_t word, uint64_t *pid)
{
	uint32_t p = (uint32_t)word;

	*pid = p;
	return p != 0 && p <= INT32_MAX;
}

static const dtcp_proc *
find_proc(const dtcp_meta *m, uint64_t word)
{
	uint64_t pid;

	if (!pid_of(word, &pid))
		return NULL;
	return dtcp_meta_proc(m, pid);
}

static const dtcp_umap *
find_map(const dtcp_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

static const char *
basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

int
dtc_capture_proc_known(const dtcp_capture *r, uint64_t pid)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;

	return m != NULL && find_proc(m, pid) != NULL;
}

int
dtc_capture_usym_lookup(const dtcp_capture *r, uint64_t pid, uint64_t addr,
    dtc_symbol *sym)
{
	const dtcp_meta *m = r != NULL ? &r->meta : NULL;
	const dtcp_proc *p;
	const dtcp_umap *map;
	const dtcp_ksym *s;
	ssize_t i;

	memset(sym, 0, sizeof(*sym));
	if (m == NULL || (p = find_proc(m, pid)) == NULL ||
	    (map = find_map(p, addr)) == NULL)
		return 0;
	sym->module = basename_of(map->path);
	sym->start = map->start;
	sym->size = map->end - map->start;
	if ((s = find_sym(map->syms, map->nsyms, addr, &i)) != NULL) {
		sym->name = s->name;
		sym->start = s->addr;
		sym->size = s->size;
	}
	return 1;
}

/* "0x%" PRIx64 written at p (at most 18 bytes); returns its end */
static char *
put_hex(char *p, uint64_t v)
{
	unsigned nd = v != 0 ? (67 - (unsigned)__builtin_clzll(v)) / 4 : 1;
	char *e = p + 2 + nd, *q = e;

	p[0] = '0';
	p[1] = 'x';
	do {
		*--q = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v != 0);
	return e;
}

static void
append_hex(dtc_buf *out, uint64_t v)
{
	char b[20];

	dtc_buf_append(out, b, (size_t)(put_hex(b, v) - b));
}

/*
 * A name from the capture (a module's, a symbol's), as much of it as the
 * message cap leaves: out never holds more than lim bytes of a symbol's
 * text, whatever the capture's names (dtc_capture_text_cut cuts the last byte).
 */
static void
append_name(dtc_buf *out, const char *s, size_t lim)
{
	size_t n = strnlen(s, lim - (out->len < lim ? out->len : lim));

	dtc_buf_append(out, s, n);
}

/*
 * Appends rather than dtc_buf_printf: this runs for every stack frame,
 * and vfprintf was a third of the time of a stack() capture's text.  A
 * text that fits SYM_LOCAL bytes is put together on the stack and
 * appended once: five dtc_buf_append calls were 225 instructions a frame.
 * Names as much of them as the cap leaves (append_name's rule): the
 * module one byte past the cap at most, the symbol what is left of that.
 */
#define SYM_LOCAL 256
static void
sym_text(const dtcp_capture *r, const dtc_symbol *s, int found, uint64_t addr,
    int exact_only, dtc_buf *out)
{
	size_t cap, max, mn, nn = 0;
	const char *mod;
	char b[SYM_LOCAL], *p;
	int off;

	if (!found) {
		append_hex(out, addr);
		return;
	}
	/* one byte past the cap: enough to tell a text that passed it */
	cap = dtcp_msg_cap(r);
	max = cap == 0 ? SIZE_MAX : cap + 1;
	mod = s->module != NULL ? s->module : "(null)";  /* as glibc's %s */
	mn = strnlen(mod, max);
	if (s->name != NULL)
		nn = strnlen(s->name, mn < max ? max - mn - 1 : 0);
	off = s->name != NULL && !exact_only && addr != s->start;
	/* module, "`", name, "+", and 18 bytes of "0x..." */
	if (mn < sizeof(b) - 20 && nn < sizeof(b) - 20 - mn) {
		p = b;
		memcpy(p, mod, mn);
		p += mn;
		*p++ = '`';
		if (s->name == NULL) {
			p = put_hex(p, addr);
		} else {
			memcpy(p, s->name, nn);
			p += nn;
			if (off) {
				*p++ = '+';
				p = put_hex(p, addr - s->start);
			}
		}
		dtc_buf_append(out, b, (size_t)(p - b));
		return;
	}
	dtc_buf_append(out, mod, mn);
	dtc_buf_append(out, "`", 1);
	if (s->name == NULL) {
		append_hex(out, addr);
	} else {
		dtc_buf_append(out, s->name, nn);
		if (off) {
			dtc_buf_append(out, "+", 1);
			append_hex(out, addr - s->start);
		}
	}
}

/* mod() and umod(): the module's name, under the cap as above. */
static void
mod_name(const dtcp_capture *r, const char *mod, dtc_buf *out)
{
	size_t cap = dtcp_msg_cap(r);

	append_name(out, mod, cap == 0 || cap > SIZE_MAX - 2 - out->len ?
	    SIZE_MAX : out->len + cap + 1);
}

void
dtc_capture_addr_text(const dtcp_capture *r, uint64_t addr, int exact_only,
    dtc_buf *out)
{
	dtc_symbol s;
	int found = dtc_capture_ksym_lookup(r, addr, &s);

	sym_text(r, &s, found, addr, exact_only, out);
}

void
dtc_capture_frame_text(const dtcp_capture *r, uint64_t pc, dtc_buf *out)
{
	dtc_capture_addr_text(r, pc, 0, out);
}

void
dtc_capture_uaddr_text(const dtcp_capture *r, uint64_t pid, uint64_t addr,
    int exact_only, dtc_buf *out)
{
	dtc_symbol s;
	int found = dtc_capture_usym_lookup(r, pid, addr, &s);

	sym_text(r, &s, found, addr, exact_only, out);
}

void
dtc_capture_mod_text(const dtcp_capture *r, uint64_t addr, dtc_buf *out)
{
	dtc_symbol s;

	if (dtc_capture_ksym_lookup(r, addr, &s) && s.module != NULL)
		mod_name(r, s.module, out);
	else
		dtc_buf_printf(out, "0x%" PRIx64, addr);
}

void
dtc_capture_umod_text(const dtcp_capture *r, uint64_t pid, uint64_t addr,
    dtc_buf *out)
{
	dtc_symbol s;

	if (dtc_capture_usym_lookup(r, pid, addr, &s) && s.module != NULL)
		mod_name(r, s.module, out);
	else
		dtc_buf_printf(out, "0x%" PRIx64, addr);
}
