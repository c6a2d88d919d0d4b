/*
 * record_uaddr.c - dtsnap record's user addresses (DTrace for Linux):
 * what libdtrace answered for the ustack(), usym(), umod() and uaddr()
 * values it printed, written as proc items (dtsnap(5)).
 *
 * record_dtrace.c calls in just before libdtrace prints a record set
 * (rec_uaddr_record) and before the final aggregation print
 * (rec_uaddr_final).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include <dtrace.h>

#include "record.h"
#include "record_uaddr.h"


/*
 * ustack(), usym(), umod() and uaddr() values (records and aggregation
 * keys) are resolved by libdtrace when it prints them, against the
 * process as libproc then sees it (dt_print_ustack, dt_print_usym,
 * dt_print_umod: dt_proc_grab, Plookup_by_addr, Pobjname).  The answer
 * rests on state only libdtrace has, so it is libdtrace that is asked,
 * through its public dtrace_uaddr2str(), which takes that same path:
 *   - its cached grab: a -c child grabbed while stopped at exec() is not
 *     seen to map its libraries, and a process that has gone is raw;
 *   - libproc's file_dyn_base (rtld_db, or the first segment for a
 *     noninvasive grab) and its symbol tables (.symtab, .dynsym, the
 *     MiniDebugInfo of .gnu_debugdata, debuginfo files);
 *   - sym_by_addr's binary search, which sees only the symbols on its
 *     path, and byaddr_cmp's preference among aliases.
 * Re-reading the ELF files could not reproduce all of that.
 *
 * At each moment libdtrace resolves (chew: just before a record set is
 * printed, its printa()s included; before the final aggregation print)
 * every (pid, pc) it will print is asked again, and the answer kept
 * (libdtrace may answer raw while it cannot grab a process yet and
 * symbolized a moment later, or the other way once it has gone): "obj`name+0xoff" is a symbol name at
 * pc - off (sized to cover the pcs seen), "obj`0x..." a pc in obj without
 * a symbol, "0x..." a pc libdtrace could not resolve.  The mapping
 * ranges and paths are the lines of /proc/PID/maps (read at first sight
 * of the pid, again when a pc falls outside what was read) whose file is
 * the object libdtrace named; a pc libdtrace left raw is cut out of them.
 * The proc item of a pid is written again, before the record, whenever an
 * answer changed: a record decodes with the newest proc item before it
 * (dtsnap(5)), i.e. with the answers libdtrace gave when it printed it.
 * For the records libdtrace prints by themselves the answer is the text
 * it printed (see "What libdtrace printed" below); for aggregation keys
 * our lookup just before it prints them.
 */
enum { UANS_RAW, UANS_MOD, UANS_SYM };

typedef struct upc {
	uint64_t pc;
	uint64_t off;		/* UANS_SYM: pc - the symbol's address */
	char *obj;		/* UANS_MOD, UANS_SYM: base name */
	char *name;		/* UANS_SYM */
	uint32_t epoch;		/* when last asked; 0 never */
	uint8_t ans;
	uint8_t isol;		/* write_proc: in a map of its own */
} upc_t;

typedef struct uproc {
	pid_t pid;
	int dirty;
	char comm[64];
	char *maps;		/* /proc/PID/maps as last read, or NULL */
	upc_t *pcs;
	size_t npcs, cap;
} uproc_t;

/* bounds on the work: beyond them addresses stay unresolved */
#define	UPROC_MAX	4096
#define	UPC_MAX		(1u << 20)	/* (pid, pc) pairs in all */

static struct {
	uproc_t *procs;
	size_t nprocs, cap;
	size_t npcs;
	/* (pid, pc) -> proc index << 32 | pc index + 1; open addressing */
	uint64_t *hkey_pid, *hkey_pc, *hval;
	size_t hcap;
	uint32_t epoch;		/* the pass being consumed, + 1 */
	dtrace_hdl_t *dtp;
	rec_sink *sink;
	/* what libdtrace prints: its stream, buffered in obuf (ours) */
	FILE *ofp;
	/* a record set held back until libdtrace has printed it */
	uint8_t *prec;
	size_t plen, pcap;
	int pcpu, pending;
	const dtrace_datadesc_t *pdd;
	/* the record of it being printed now: index into pdd, or -1 */
	int orec;
	char *scratch;
} ua;

static size_t
uhash(uint64_t pid, uint64_t pc, size_t cap)
{
	uint64_t h = (pc ^ (pid * UINT64_C(0x9e3779b97f4a7c15))) *
	    UINT64_C(0xff51afd7ed558ccd);

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static int
uhash_grow(void)
{
	size_t ncap = ua.hcap ? ua.hcap * 2 : 4096, i, j;
	uint64_t *kp = calloc(ncap, 8), *kc = calloc(ncap, 8),
	    *v = calloc(ncap, 8);

	if (kp == NULL || kc == NULL || v == NULL) {
		free(kp);
		free(kc);
		free(v);
		return -1;
	}
	for (i = 0; i < ua.hcap; i++) {
		if (ua.hval[i] == 0)
			continue;
		for (j = uhash(ua.hkey_pid[i], ua.hkey_pc[i], ncap); v[j] != 0;
		    j = (j + 1) & (ncap - 1))
			continue;
		kp[j] = ua.hkey_pid[i];
		kc[j] = ua.hkey_pc[i];
		v[j] = ua.hval[i];
	}
	free(ua.hkey_pid);
	free(ua.hkey_pc);
	free(ua.hval);
	ua.hkey_pid = kp;
	ua.hkey_pc = kc;
	ua.hval = v;
	ua.hcap = ncap;
	return 0;
}

/* /proc/PID/maps, whole, or NULL once the process has gone. */
static char *
read_maps(pid_t pid)
{
	char path[64], *buf = NULL;
	size_t cap = 0, len = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *nb;

			if (cap > (64u << 20) ||
			    (nb = realloc(buf, cap ? cap * 2 : 16384)) == NULL)
				break;
			buf = nb;
			cap = cap ? cap * 2 : 16384;
		}
		if ((n = fread(buf + len, 1, cap - len - 1, f)) == 0)
			break;
		len += n;
	}
	fclose(f);
	if (buf == NULL || len == 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static uproc_t *
uproc_get(pid_t pid, size_t *idx)
{
	uproc_t *p;
	size_t i;
	char path[64];
	FILE *f;

	for (i = ua.nprocs; i-- > 0;) {
		if (ua.procs[i].pid == pid) {
			*idx = i;
			return &ua.procs[i];
		}
	}
	if (ua.nprocs >= UPROC_MAX ||
	    rec_grow(&ua.procs, &ua.cap, ua.nprocs, sizeof(*ua.procs)) != 0)
		return NULL;
	p = &ua.procs[ua.nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	/* first sight: the mappings while the process is (likely) alive */
	p->maps = read_maps(pid);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(p->comm, sizeof(p->comm), f) != NULL)
			p->comm[strcspn(p->comm, "\n")] = '\0';
		fclose(f);
	}
	*idx = ua.nprocs++;
	return p;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* One line of /proc/PID/maps: 0 when parsed, the path in path[]. */
static int
maps_line(const char *line, uint64_t *start, uint64_t *end, char *path,
    size_t pathlen)
{
	unsigned long long s, e;
	int n = 0;
	const char *p;
	size_t len;

	path[0] = '\0';
	if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &s, &e, &n) < 2 ||
	    n == 0)
		return -1;
	p = line + n;
	len = strcspn(p, "\n");
	if (len >= pathlen)
		len = pathlen - 1;
	memcpy(path, p, len);
	path[len] = '\0';
	*start = s;
	*end = e;
	return 0;
}

/* Whether the maps text has a line of object obj holding pc. */
static int
maps_cover(const char *maps, uint64_t pc, const char *obj)
{
	char path[4096];
	uint64_t s, e;

	for (; maps != NULL && *maps != '\0'; maps += strcspn(maps, "\n"),
	    maps += *maps == '\n') {
		if (maps_line(maps, &s, &e, path, sizeof(path)) == 0 &&
		    pc >= s && pc < e && strcmp(base_name(path), obj) == 0)
			return 1;
	}
	return 0;
}

/*
 * dtrace_uaddr2str()'s text: "obj`name+0xoff", "obj`name", "obj`0xpc"
 * or "0xpc".  0 when the answer differs from what x held.
 */
static int
upc_parse(upc_t *x, const char *s)
{
	const char *bq = strchr(s, '`'), *rest, *plus, *q;
	char hex[40];
	uint64_t off = 0;
	uint8_t ans;
	size_t olen, nlen;

	if (bq == NULL) {
		ans = UANS_RAW;
		olen = nlen = 0;
		rest = NULL;
	} else {
		rest = bq + 1;
		olen = (size_t)(bq - s);
		nlen = strlen(rest);
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)x->pc);
		if (strcmp(rest, hex) == 0) {
			ans = UANS_MOD;
		} else {
			ans = UANS_SYM;
			/* the last "+0x" followed by hex digits only */
			for (plus = NULL, q = rest; (q = strstr(q, "+0x")) != NULL;
			    q++)
				plus = q;
			if (plus != NULL && plus[3] != '\0' &&
			    strspn(plus + 3, "0123456789abcdef") ==
			    strlen(plus + 3)) {
				off = strtoull(plus + 3, NULL, 16);
				if (off <= x->pc)
					nlen = (size_t)(plus - rest);
				else
					off = 0;
			}
		}
	}
	if (x->epoch != 0 && x->ans == ans && x->off == off &&
	    (ans == UANS_RAW || (strlen(x->obj) == olen &&
	    strncmp(x->obj, s, olen) == 0)) &&
	    (ans != UANS_SYM || (strlen(x->name) == nlen &&
	    strncmp(x->name, rest, nlen) == 0)))
		return 1;
	free(x->obj);
	free(x->name);
	x->obj = x->name = NULL;
	x->ans = ans;
	x->off = off;
	if (ans != UANS_RAW && (x->obj = strndup(s, olen)) == NULL)
		x->ans = UANS_RAW;
	if (ans == UANS_SYM && (x->name = strndup(rest, nlen)) == NULL)
		x->ans = UANS_MOD;
	return 0;
}

/* Ask libdtrace about (pid, pc), once per moment; -1 when out of memory. */
/* dtrace_uaddr2str()'s text: in buf, or malloc'd when longer; NULL
 * when out of memory. */
static char *
uaddr_text(pid_t pid, uint64_t pc, char *buf, size_t bufsize)
{
	int len = dtrace_uaddr2str(ua.dtp, pid, pc, buf, (int)bufsize);
	char *s;

	if (len < (int)bufsize)
		return buf;
	if ((s = malloc((size_t)len + 1)) != NULL)
		dtrace_uaddr2str(ua.dtp, pid, pc, s, len + 1);
	return s;
}

/* The entry of (pid, pc), made at first sight; NULL when out of memory
 * (*nomem) or beyond the bounds (left unresolved). */
static upc_t *
upc_find(pid_t pid, uint64_t pc, uproc_t **pp, int *nomem)
{
	uint64_t tgid = (uint32_t)pid;
	size_t h, pi, xi;
	uproc_t *p;

	*nomem = 0;
	if (ua.npcs * 2 >= ua.hcap && ua.npcs < UPC_MAX && uhash_grow() != 0) {
		*nomem = 1;
		return NULL;
	}
	for (h = uhash(tgid, pc, ua.hcap); ua.hval[h] != 0;
	    h = (h + 1) & (ua.hcap - 1)) {
		if (ua.hkey_pid[h] == tgid && ua.hkey_pc[h] == pc)
			break;
	}
	if (ua.hval[h] != 0) {
		pi = (size_t)(ua.hval[h] >> 32);
		xi = (size_t)(ua.hval[h] & UINT32_MAX) - 1;
		p = &ua.procs[pi];
	} else {
		if (ua.npcs >= UPC_MAX || (p = uproc_get(pid, &pi)) == NULL)
			return NULL;	/* bounded: left unresolved */
		if (rec_grow(&p->pcs, &p->cap, p->npcs, sizeof(*p->pcs)) != 0) {
			*nomem = 1;
			return NULL;
		}
		xi = p->npcs++;
		memset(&p->pcs[xi], 0, sizeof(p->pcs[xi]));
		p->pcs[xi].pc = pc;
		ua.hkey_pid[h] = tgid;
		ua.hkey_pc[h] = pc;
		ua.hval[h] = (uint64_t)pi << 32 | (uint64_t)(xi + 1);
		ua.npcs++;
	}
	*pp = p;
	return &p->pcs[xi];
}

/* x (of p) answered s now: the proc item is due when that changed. */
static void
upc_answer(uproc_t *p, upc_t *x, const char *s)
{
	if (upc_parse(x, s) != 0)
		return;
	p->dirty = 1;
	/* a mapping that appeared after the maps were read */
	if (x->ans != UANS_RAW && !maps_cover(p->maps, x->pc, x->obj)) {
		char *m = read_maps(p->pid);

		if (m != NULL) {
			free(p->maps);
			p->maps = m;
		}
	}
}

static int
uaddr_ask(uint64_t tgid, uint64_t pc)
{
	char buf[1024], *s;
	uproc_t *p;
	upc_t *x;
	pid_t pid = (pid_t)tgid;
	int nomem;

	/* as libdtrace: a pid_t (dtrace-utils' ustack word holds the tgid
	 * in both halves); one that cannot be grabbed stays raw */
	if (pid <= 0 || pc == 0)
		return 0;
	if ((x = upc_find(pid, pc, &p, &nomem)) == NULL)
		return nomem ? -1 : 0;
	if (x->epoch == ua.epoch)
		return 0;
	if ((s = uaddr_text(pid, pc, buf, sizeof(buf))) == NULL)
		return -1;
	upc_answer(p, x, s);
	x->epoch = ua.epoch;
	if (s != buf)
		free(s);
	return 0;
}

/* The user addresses of one value: a ustack() record or key (tgid, then
 * nframes pcs up to the first 0), or a usym/umod/uaddr pair. */
static int
uaddr_value(int action, uint64_t arg, const uint8_t *p, size_t size)
{
	uint64_t tgid, pc;
	uint32_t i, n;

	if (size < 16)
		return 0;
	memcpy(&tgid, p, 8);
	switch (action) {
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		n = DTRACE_USTACK_NFRAMES(arg);
		for (i = 0; i < n && (size_t)(i + 2) * 8 <= size; i++) {
			memcpy(&pc, p + (size_t)(i + 1) * 8, 8);
			if (pc == 0)
				break;
			if (uaddr_ask(tgid, pc) != 0)
				return -1;
		}
		return 0;
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		memcpy(&pc, p + 8, 8);
		return uaddr_ask(tgid, pc);
	}
	return 0;
}

static int
is_uaction(int action)
{
	return action == DTRACEACT_USTACK || action == DTRACEACT_JSTACK ||
	    action == DTRACEACT_USYM || action == DTRACEACT_UMOD ||
	    action == DTRACEACT_UADDR;
}

typedef struct ukeywalk {
	const uint32_t *varids;	/* NULL: every aggregation */
	size_t nvarids;
	int failed;
} ukeywalk_t;

static int
ukey_entry(const dtrace_aggdata_t *agd, void *arg)
{
	ukeywalk_t *kw = arg;
	const dtrace_aggdesc_t *desc = agd->dtada_desc;
	const dtrace_recdesc_t *kr;
	uint32_t aggid;
	size_t i;
	uint_t j;

	memcpy(&aggid, agd->dtada_key, sizeof(aggid));
	if (kw->varids != NULL) {
		for (i = 0; i < kw->nvarids && kw->varids[i] != aggid; i++)
			continue;
		if (i == kw->nvarids)
			return DTRACE_AGGWALK_NEXT;
	}
	for (j = 0; j < desc->dtagd_nkrecs; j++) {
		kr = &desc->dtagd_krecs[j];
		if (!is_uaction(kr->dtrd_action) ||
		    kr->dtrd_offset + kr->dtrd_size > desc->dtagd_ksize)
			continue;
		if (uaddr_value(kr->dtrd_action, kr->dtrd_arg,
		    (const uint8_t *)agd->dtada_key + kr->dtrd_offset,
		    kr->dtrd_size) != 0) {
			kw->failed = 1;
			return DTRACE_AGGWALK_ABORT;
		}
	}
	return DTRACE_AGGWALK_NEXT;
}

static void
uproc_free(uproc_t *p)
{
	size_t i;

	for (i = 0; i < p->npcs; i++) {
		free(p->pcs[i].obj);
		free(p->pcs[i].name);
	}
	free(p->pcs);
	free(p->maps);
}

typedef struct umap {
	uint64_t start, end;
	char *path;
	dtc_writer_usym *syms;	/* sorted by address */
	size_t nsyms;
	uint64_t maxend;	/* the furthest end of this map and those before */
} umap_t;

static int
umap_cmp(const void *a, const void *b)
{
	const umap_t *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int
usym_cmp(const void *a, const void *b)
{
	const dtc_writer_usym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void
umaps_free(umap_t *maps, size_t nmaps)
{
	size_t i;

	for (i = 0; i < nmaps; i++) {
		free(maps[i].path);
		free(maps[i].syms);
	}
	free(maps);
}

static int
umap_add(umap_t **maps, size_t *nmaps, size_t *cap, uint64_t start,
    uint64_t end, const char *path)
{
	if (rec_grow(maps, cap, *nmaps, sizeof(**maps)) != 0 ||
	    ((*maps)[*nmaps].path = strdup(path)) == NULL)
		return -1;
	(*maps)[*nmaps].start = start;
	(*maps)[(*nmaps)++].end = end;
	return 0;
}

/* The answer a pc is written with in a map of its own (an isolated
 * one), or cut out of every map (one left raw). */
static int
upc_alone(const upc_t *x)
{
	return x->ans == UANS_RAW || x->isol;
}

/*
 * The mappings and symbols of p's answers, sorted, empty ones dropped:
 * the lines of /proc/PID/maps that libdtrace named a pc in; an object
 * the maps text does not show (gone) as the pc alone; raw and isolated
 * pcs cut out of them, an isolated pc then in a one-byte map of its own;
 * the symbols of a map, one per (address, name), sized to its pcs.
 */
static int
umaps_build(const uproc_t *p, umap_t **mapsp, size_t *nmapsp)
{
	umap_t *maps = NULL, *m;
	size_t nmaps = 0, cap = 0, i, j, k;
	const char *l;
	char path[4096];
	uint64_t s, e;

	for (l = p->maps; l != NULL && *l != '\0'; l += strcspn(l, "\n"),
	    l += *l == '\n') {
		if (maps_line(l, &s, &e, path, sizeof(path)) != 0)
			continue;
		for (i = 0; i < p->npcs; i++) {
			const upc_t *x = &p->pcs[i];

			if (!upc_alone(x) && x->pc >= s && x->pc < e &&
			    strcmp(base_name(path), x->obj) == 0)
				break;
		}
		if (i < p->npcs && umap_add(&maps, &nmaps, &cap, s, e, path) != 0)
			goto fail;
	}
	for (i = 0; i < p->npcs; i++) {
		const upc_t *x = &p->pcs[i];

		if (upc_alone(x))
			continue;
		for (j = 0; j < nmaps; j++)
			if (x->pc >= maps[j].start && x->pc < maps[j].end &&
			    strcmp(base_name(maps[j].path), x->obj) == 0)
				break;
		if (j == nmaps && umap_add(&maps, &nmaps, &cap, x->pc,
		    x->pc + 1, x->obj) != 0)
			goto fail;
	}
	for (i = 0; i < p->npcs; i++) {
		const upc_t *x = &p->pcs[i];

		if (!upc_alone(x))
			continue;
		for (j = 0; j < nmaps; j++) {
			if (x->pc < maps[j].start || x->pc >= maps[j].end)
				continue;
			if (x->pc + 1 < maps[j].end && umap_add(&maps, &nmaps,
			    &cap, x->pc + 1, maps[j].end, maps[j].path) != 0)
				goto fail;
			maps[j].end = x->pc;	/* may leave it empty */
		}
	}
	for (i = 0; i < p->npcs; i++)
		if (p->pcs[i].isol && p->pcs[i].ans != UANS_RAW &&
		    umap_add(&maps, &nmaps, &cap, p->pcs[i].pc,
		    p->pcs[i].pc + 1, p->pcs[i].obj) != 0)
			goto fail;
	for (i = j = 0; i < nmaps; i++) {
		if (maps[i].start < maps[i].end)
			maps[j++] = maps[i];
		else
			free(maps[i].path);
	}
	nmaps = j;
	qsort(maps, nmaps, sizeof(*maps), umap_cmp);
	for (i = 0; i < nmaps; i++)
		maps[i].maxend = i > 0 && maps[i - 1].maxend > maps[i].end ?
		    maps[i - 1].maxend : maps[i].end;
	for (i = 0; i < p->npcs; i++) {
		const upc_t *x = &p->pcs[i];
		uint64_t at;

		if (x->ans != UANS_SYM)
			continue;
		for (m = NULL, j = 0; j < nmaps && m == NULL; j++)
			if (x->pc >= maps[j].start && x->pc < maps[j].end)
				m = &maps[j];
		if (m == NULL)
			continue;
		at = x->pc - x->off;
		for (k = 0; k < m->nsyms; k++)
			if (m->syms[k].addr == at &&
			    strcmp(m->syms[k].name, x->name) == 0)
				break;
		if (k == m->nsyms) {
			dtc_writer_usym *ns = realloc(m->syms,
			    (m->nsyms + 1) * sizeof(*ns));

			if (ns == NULL)
				goto fail;
			m->syms = ns;
			ns[k].addr = at;
			ns[k].size = 0;
			ns[k].name = x->name;
			m->nsyms++;
		}
		if (m->syms[k].size < x->off + 1)
			m->syms[k].size = x->off + 1;
	}
	for (i = 0; i < nmaps; i++)
		if (maps[i].nsyms > 1)
			qsort(maps[i].syms, maps[i].nsyms, sizeof(*maps[i].syms),
			    usym_cmp);
	*mapsp = maps;
	*nmapsp = nmaps;
	return 0;
fail:
	umaps_free(maps, nmaps);
	return -1;
}

/* The last of the n elements (of size elsize, address first) whose
 * address is at or below a: maps by start, symbols by address; -1. */
static ssize_t
at_or_below(const void *base, size_t n, size_t elsize, uint64_t a)
{
	size_t lo = 0, hi = n;
	uint64_t v;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&v, (const char *)base + mid * elsize, sizeof(v));
		if (v <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

/*
 * Whether the maps give x's answer whichever way a reader looks it up:
 * exactly one map holds the pc, of x's object; in it, for a symbol
 * answer, x's symbol is the only one that holds the pc and the last to
 * start at or below it (no alias at its address); for an object answer,
 * no symbol holds the pc.  A symbol answer that another moment's
 * answers would shadow (a symbol sized to a pc libdtrace answered later
 * without one, an alias, a nested symbol) fails this.
 */
static int
upc_clean(const upc_t *x, const umap_t *maps, size_t nmaps)
{
	const umap_t *m;
	const dtc_writer_usym *sy;
	ssize_t i, j;
	uint64_t reach = 0;

	i = at_or_below(maps, nmaps, sizeof(*maps), x->pc);
	if (i < 0 || x->pc >= maps[i].end || (i > 0 &&
	    maps[i - 1].maxend > x->pc) ||
	    strcmp(base_name(maps[i].path), x->obj) != 0)
		return 0;
	m = &maps[i];
	i = at_or_below(m->syms, m->nsyms, sizeof(*m->syms), x->pc);
	for (j = 0; j < i; j++)
		if (m->syms[j].addr + m->syms[j].size > reach)
			reach = m->syms[j].addr + m->syms[j].size;
	if (x->ans == UANS_MOD)
		return reach <= x->pc && (i < 0 ||
		    m->syms[i].addr + m->syms[i].size <= x->pc);
	if (i < 0)
		return 0;
	sy = &m->syms[i];
	return sy->addr == x->pc - x->off && strcmp(sy->name, x->name) == 0 &&
	    x->pc - sy->addr < sy->size && reach <= x->pc &&
	    (i == 0 || m->syms[i - 1].addr != sy->addr);
}

/*
 * The proc item of p from its answers (see the comment above): every pc
 * of it decodes with the answer libdtrace gave last, also where answers
 * of different moments overlap (a pc answered without a symbol inside
 * the symbol another pc was answered with): such a pc is isolated, in a
 * one-byte map of its own.
 */
static int
write_proc(uproc_t *p)
{
	umap_t *maps = NULL;
	dtc_writer_map *wm = NULL;
	size_t nmaps = 0, i, j;
	dtc_writer *w;
	int rc = -1, round, dirty;

	for (i = 0; i < p->npcs; i++)
		p->pcs[i].isol = 0;
	/* isolating a pc only takes symbols out of the others' maps: the
	 * second round is clean; the third isolates what is left */
	for (round = 0; ; round++) {
		if (umaps_build(p, &maps, &nmaps) != 0)
			return -1;
		for (dirty = 0, i = 0; i < p->npcs; i++) {
			upc_t *x = &p->pcs[i];

			if (upc_alone(x) || upc_clean(x, maps, nmaps))
				continue;
			x->isol = 1;
			dirty = 1;
		}
		if (!dirty || round == 2)
			break;
		umaps_free(maps, nmaps);
		maps = NULL;
	}
	if (nmaps > 0 && (wm = calloc(nmaps, sizeof(*wm))) == NULL)
		goto out;
	for (i = j = 0; i < nmaps; i++) {
		wm[j].start = maps[i].start;
		wm[j].end = maps[i].end;
		wm[j].path = maps[i].path;
		wm[j].nsyms = maps[i].nsyms;
		wm[j].syms = maps[i].syms;
		j++;
	}
	/* a stream item: the records before it were consumed with the
	 * process as the previous item describes it */
	if ((w = rec_sink_writer(ua.sink)) != NULL)
		rc = rec_sink_check(ua.sink, dtc_writer_add_proc(w,
		    (uint64_t)p->pid, p->comm, j, wm, rec_sink_err(ua.sink)));
out:
	umaps_free(maps, nmaps);
	free(wm);
	return rc;
}

/* After a moment of resolving: the proc items of the pids it changed. */
static int
write_procs(void)
{
	size_t i;

	for (i = 0; i < ua.nprocs; i++) {
		if (!ua.procs[i].dirty)
			continue;
		ua.procs[i].dirty = 0;
		if (write_proc(&ua.procs[i]) != 0)
			return -1;
	}
	return 0;
}

/* The statement's user addresses, asked just before libdtrace prints
 * its records (data: the record from its size word). */
static int
uaddr_stmt(const dtrace_datadesc_t *dd, const uint8_t *data, size_t size)
{
	const dtrace_recdesc_t *rd;
	int i;

	for (i = 0; i < dd->dtdd_nrecs; i++) {
		rd = &dd->dtdd_recs[i];
		if (!is_uaction(rd->dtrd_action) ||
		    rd->dtrd_offset + rd->dtrd_size > size)
			continue;
		if (uaddr_value(rd->dtrd_action, rd->dtrd_arg,
		    data + rd->dtrd_offset, rd->dtrd_size) != 0)
			return -1;
	}
	return 0;
}

/* The user keys of the aggregations the printa() at record first of dd
 * prints (its aggregation ids: that record's data and the next records
 * of the same printa; base: the record from its size word), or of all
 * of them (dd NULL: the final print). */
static int
uaddr_aggs(const dtrace_datadesc_t *dd, const uint8_t *base, int first)
{
	ukeywalk_t kw = { NULL, 0, 0 };
	uint32_t *ids = NULL;
	const dtrace_recdesc_t *rec;
	uint32_t size;
	int i;

	if (dd != NULL) {
		if (first < 0 || first >= dd->dtdd_nrecs)
			return 0;
		rec = &dd->dtdd_recs[first];
		memcpy(&size, base, sizeof(size));
		if ((ids = calloc((size_t)(dd->dtdd_nrecs - first),
		    sizeof(*ids))) == NULL)
			return -1;
		for (i = first; i < dd->dtdd_nrecs &&
		    dd->dtdd_recs[i].dtrd_action == rec->dtrd_action &&
		    dd->dtdd_recs[i].dtrd_arg == rec->dtrd_arg; i++) {
			if (dd->dtdd_recs[i].dtrd_offset + 4 >
			    sizeof(size) + (size_t)size)
				break;
			memcpy(&ids[kw.nvarids++],
			    base + dd->dtdd_recs[i].dtrd_offset, 4);
		}
		kw.varids = ids;
	}
	if (dtrace_aggregate_walk(ua.dtp, ukey_entry, &kw) != 0 && kw.failed) {
		free(ids);
		return -1;
	}
	free(ids);
	return kw.failed ? -1 : 0;
}

/*
 * What libdtrace printed.  Its answer for an address can change between
 * our lookup and its own (its control thread updates the process
 * handle, a process that has gone is answered raw from some moment on,
 * the shell's stack was seen raw and symbolized within microseconds), so
 * for the records it prints by themselves (ustack, usym, umod, uaddr) it
 * is its printed text that is recorded: the stream it prints into is
 * buffered in a buffer of ours, flushed before such a record is printed
 * and read (__fpending) when the next record's callback comes; the
 * record set is written after it has been printed, with the answers
 * of its text.  A record it could not see printed (the stream was
 * freopen()ed, the text is not what the action prints) keeps our
 * lookup's answer.
 */
#define	OBUF_SIZE	((size_t)1 << 20)

/* the stream's buffer, for as long as the stream may be flushed (the
 * tee is closed after the backend returns) */
static char *obuf;

/* "text" as libdtrace's "  %-50s" printed it, the padding taken off */
static const char *
padded(char *t, size_t n)
{
	if (n < 2 || t[0] != ' ' || t[1] != ' ')
		return NULL;
	while (n > 2 && t[n - 1] == ' ')
		n--;
	t[n] = '\0';
	return t + 2;
}

/* pc of pid was printed as text (the action's own form). */
static void
observed(int action, pid_t pid, uint64_t pc, const char *text)
{
	char buf[1200], hex[24];
	const char *bq;
	uproc_t *p;
	upc_t *x;
	int nomem;

	if (pid <= 0 || pc == 0 ||
	    (x = upc_find(pid, pc, &p, &nomem)) == NULL)
		return;
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)pc);
	bq = strchr(text, '`');
	switch (action) {
	case DTRACEACT_USYM:
		/* the symbol's name alone: its offset is our lookup's
		 * when that found the same symbol, else none */
		if (bq != NULL && strncmp(bq + 1, "0x", 2) != 0 &&
		    strchr(bq, '+') == NULL) {
			if (x->ans == UANS_SYM &&
			    strlen(x->obj) == (size_t)(bq - text) &&
			    strncmp(x->obj, text, (size_t)(bq - text)) == 0 &&
			    strcmp(x->name, bq + 1) == 0)
				return;
			snprintf(buf, sizeof(buf), "%s", text);
			text = buf;
		}
		break;
	case DTRACEACT_UMOD:
		if (strcmp(text, hex) == 0)
			break;		/* raw */
		if (x->ans != UANS_RAW && strcmp(x->obj, text) == 0)
			return;
		snprintf(buf, sizeof(buf), "%s`%s", text, hex);
		text = buf;
		break;
	}
	upc_answer(p, x, text);
}

/* The text of record i of the held record set, n bytes at t. */
static void
observe(int i, char *t, size_t n)
{
	const dtrace_recdesc_t *rd = &ua.pdd->dtdd_recs[i];
	const uint8_t *v = ua.prec + rd->dtrd_offset;
	uint64_t tgid, pc;
	uint32_t k, nf;
	char *nl;
	const char *text;

	if (rd->dtrd_offset + rd->dtrd_size > ua.plen || rd->dtrd_size < 16)
		return;
	memcpy(&tgid, v, 8);
	t[n] = '\0';
	if (strlen(t) != n)
		return;
	switch (rd->dtrd_action) {
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		/* "\n", then a line a frame: the indent, the text */
		if (DTRACE_USTACK_STRSIZE(rd->dtrd_arg) != 0 || *t++ != '\n')
			return;
		nf = DTRACE_USTACK_NFRAMES(rd->dtrd_arg);
		for (k = 0; k < nf && (size_t)(k + 2) * 8 <= rd->dtrd_size;
		    k++) {
			memcpy(&pc, v + (size_t)(k + 1) * 8, 8);
			if (pc == 0)
				break;
			if ((nl = strchr(t, '\n')) == NULL)
				return;
			*nl = '\0';
			t += strspn(t, " ");
			observed(rd->dtrd_action, (pid_t)tgid, pc, t);
			t = nl + 1;
		}
		return;
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		if ((text = padded(t, n)) == NULL)
			return;
		memcpy(&pc, v + 8, 8);
		observed(rd->dtrd_action, (pid_t)tgid, pc, text);
		return;
	}
}

/* The record being printed is done: what it printed, read. */
static void
observe_end(void)
{
	size_t n;

	if (ua.orec < 0)
		return;
	n = __fpending(ua.ofp);
	/* parsed in a copy: the buffer's bytes are still to be written */
	if (__fbufsize(ua.ofp) == OBUF_SIZE && n < OBUF_SIZE &&
	    (ua.scratch != NULL ||
	    (ua.scratch = malloc(OBUF_SIZE + 1)) != NULL)) {
		memcpy(ua.scratch, obuf, n);
		observe(ua.orec, ua.scratch, n);
	}
	ua.orec = -1;
}

FILE *
rec_uaddr_stream(FILE *ofp)
{
	if ((obuf == NULL && (obuf = malloc(OBUF_SIZE)) == NULL) ||
	    setvbuf(ofp, obuf, _IOFBF, OBUF_SIZE) != 0)
		return ofp;
	ua.ofp = ofp;
	return ofp;
}

static int
is_plain_uaction(const dtrace_recdesc_t *rd)
{
	return is_uaction(rd->dtrd_action) && rd->dtrd_format == NULL;
}

int
rec_uaddr_chewrec(const dtrace_recdesc_t *rec)
{
	int i;

	if (rec == NULL)
		return rec_uaddr_flush();
	observe_end();
	if (!ua.pending || !is_plain_uaction(rec) ||
	    __fbufsize(ua.ofp) != OBUF_SIZE)
		return 0;
	for (i = 0; i < ua.pdd->dtdd_nrecs; i++)
		if (&ua.pdd->dtdd_recs[i] == rec)
			break;
	if (i == ua.pdd->dtdd_nrecs || fflush(ua.ofp) == EOF) {
		clearerr(ua.ofp);
		return 0;
	}
	ua.orec = i;
	return 0;
}

int
rec_uaddr_flush(void)
{
	int rc;

	observe_end();
	if (!ua.pending)
		return 0;
	ua.pending = 0;
	if ((rc = write_procs()) == 0)
		rc = rec_sink_record(ua.sink, ua.pcpu, ua.prec, ua.plen);
	return rc;
}

/*
 * libdtrace prints the record set next: the user addresses of its
 * records and of the aggregations its printa()s print, asked as it will
 * resolve them, and the proc items of what changed written before the
 * record, so that the record decodes with them and the records before it
 * with the answers of their own moment.  libdtrace calls the record
 * callback for a printa()'s first record only: a new printa starts where
 * the record before is not a printa record of the same format.
 */
int
rec_uaddr_record(const dtrace_datadesc_t *dd, int cpu, const uint8_t *rec,
    size_t size)
{
	const dtrace_recdesc_t *rd, *prev;
	int i, plain = 0;

	if (rec_uaddr_flush() != 0)
		return -1;
	ua.epoch++;
	if (uaddr_stmt(dd, rec, size) != 0)
		return -1;
	for (i = 0; i < dd->dtdd_nrecs; i++) {
		rd = &dd->dtdd_recs[i];
		prev = i > 0 ? &dd->dtdd_recs[i - 1] : NULL;
		if (rd->dtrd_action != DTRACEACT_PRINTA || (prev != NULL &&
		    prev->dtrd_action == DTRACEACT_PRINTA &&
		    prev->dtrd_arg == rd->dtrd_arg))
			continue;
		if (uaddr_aggs(dd, rec, i) != 0)
			return -1;
	}
	for (i = 0; i < dd->dtdd_nrecs; i++)
		plain |= is_plain_uaction(&dd->dtdd_recs[i]);
	if (!plain || obuf == NULL || __fbufsize(ua.ofp) != OBUF_SIZE) {
		if (write_procs() != 0)
			return -1;
		return rec_sink_record(ua.sink, cpu, rec, size);
	}
	/* held until printed (rec_uaddr_chewrec, rec_uaddr_flush) */
	if (size > ua.pcap) {
		uint8_t *np = realloc(ua.prec, size);

		if (np == NULL)
			return -1;
		ua.prec = np;
		ua.pcap = size;
	}
	memcpy(ua.prec, rec, size);
	ua.plen = size;
	ua.pcpu = cpu;
	ua.pdd = dd;
	ua.pending = 1;
	return 0;
}

/* Before the final aggregation print: the user keys of all of them. */
int
rec_uaddr_final(void)
{
	if (rec_uaddr_flush() != 0)
		return -1;
	ua.epoch++;
	if (uaddr_aggs(NULL, NULL, 0) != 0)
		return -1;
	return write_procs();
}

void
rec_uaddr_init(dtrace_hdl_t *dtp, rec_sink *sink)
{
	FILE *ofp = ua.ofp;	/* rec_uaddr_stream may come first */

	memset(&ua, 0, sizeof(ua));
	ua.dtp = dtp;
	ua.sink = sink;
	ua.ofp = ofp;
	ua.orec = -1;
}

void
rec_uaddr_free(void)
{
	size_t i;

	for (i = 0; i < ua.nprocs; i++)
		uproc_free(&ua.procs[i]);
	free(ua.procs);
	free(ua.hkey_pid);
	free(ua.hkey_pc);
	free(ua.hval);
	free(ua.prec);
	free(ua.scratch);
	memset(&ua, 0, sizeof(ua));
}
