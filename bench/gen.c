/*
 * gen.c - dtcbench-gen: large, realistic, seeded .dtsnap captures for the
 * benchmarks (bench/run.sh).  Not installed; the same seed and scale give
 * the same bytes.
 *
 * Everything goes through the public writer API (dtc_writer_*), and the
 * buffer bytes are laid out as a DTrace kernel lays them out
 * (../shared/reference/libdtrace-abi-facts.md sections 3, 4 and 7):
 *   - a record is the 12-byte dtrace_rechdr_t (EPID, then the timestamp's
 *     HIGH 32 bits, then the low 32 bits) followed by its data records at
 *     the recdesc offsets (dte_size starts at 12, each datum is placed at
 *     dte_size rounded up to its alignment, the record size is rounded up
 *     to 4);
 *   - before a record the buffer offset is aligned to the ECB's alignment
 *     with 4-byte EPIDNONE (0) words (dtrace_buffer_reserve);
 *   - strings are strsize bytes: the text, its NUL, zero padding;
 *   - stack() is nframes 8-byte pcs, zero past the real depth;
 *   - an aggregation entry is aggid (uint32) at 0, 4 stale bytes, the
 *     variable id (int64) at 8, the keys at their alignment, the value
 *     8-aligned; quantize is 127 int64 buckets.
 * Principal buffers follow the default switch policy: one snapshot per
 * CPU per consume pass, each at most bufsize (4m) bytes.
 *
 * Workloads (-w), sizes at scale 1 (-s 1/8 .. 1 scales them):
 *   printf  8 CPUs, quiet; syscall:::entry { printf("%s %d %d\n",
 *           execname, pid, arg0); } pickled as FreeBSD does, "%s %i %lli\n"
 *           (a 256-byte string, a 4-byte and an 8-byte record); 1 GiB of
 *           buffers
 *   trace   8 CPUs, not quiet; syscall:::entry { trace(arg0); } and
 *           syscall:::return { trace((int)arg1); trace(errno); } (records of
 *           24 and 20 bytes, so EPIDNONE padding appears); 1 GiB
 *   stack   8 CPUs, not quiet; profile:::profile-997 { stack(); } (20
 *           frames) with a 50,000-symbol ksyms table; 256 MiB
 *   agg     16 CPUs; syscall:::entry { @c[arg0] = count();
 *           @q[arg0 >> 4] = quantize(arg1); } on 8 probes: 1M distinct
 *           count keys present on every CPU (16 x 1M entries) and 64k
 *           quantize keys on 2 CPUs each
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtconsume.h"

#define RECHDR 12
#define BUFSIZE_DEFAULT (4u << 20)  /* dtrace(1)'s bufsize=4m */
#define STRSIZE 256
#define NFRAMES 20
#define QBUCKETS 127

static const char *progname = "gen";

/* ------------------------------------------------------------ rng */

static uint64_t rs;

static uint64_t
rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
rndn(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Skewed pick in [0, n): small indexes are much more frequent, as a
 * few processes and system calls dominate a real trace. */
static uint64_t
rndskew(uint64_t n)
{
	uint64_t a = rndn(n), b = rndn(n);

	return (a * b) / (n ? n : 1);
}

/* ------------------------------------------------------------ helpers */

static void
die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void
chk(int rc, const dtc_error *err, const char *what)
{
	char buf[512];

	if (rc == DTC_OK)
		return;
	dtc_error_format(err, buf, sizeof(buf));
	die("%s: %s", what, buf);
}

static void *
xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (p == NULL)
		die("out of memory");
	return p;
}

static void
st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);     /* host order: the capture says which */
}

static void
st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint16_t
natural_align(uint32_t size)
{
	if (size == 0)
		return 1;
	return size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : size % 2 == 0 ? 2 : 1;
}

/* ------------------------------------------------------------ ECBs */

/* An ECB as dtrace_ecb_resize lays it out. */
typedef struct ecb {
	dtc_eprobedesc ep;
	dtc_recdesc recs[4];
	uint32_t align;          /* dte_alignment */
} ecb;

static void
ecb_init(ecb *e, uint32_t epid, uint32_t probeid)
{
	memset(e, 0, sizeof(*e));
	e->ep.epid = epid;
	e->ep.probeid = probeid;
	e->ep.size = RECHDR;     /* dte_size */
	e->ep.recs = e->recs;
	e->align = 4;
}

static void
ecb_add(ecb *e, uint16_t action, uint32_t size, uint16_t format, uint64_t arg,
    uint64_t uarg)
{
	dtc_recdesc *rd = &e->recs[e->ep.nrecs++];
	uint16_t a = natural_align(size);

	rd->action = action;
	rd->size = size;
	rd->alignment = a;
	rd->format = format;
	rd->arg = arg;
	rd->uarg = uarg;
	rd->offset = (e->ep.size + a - 1) & ~(uint32_t)(a - 1);
	e->ep.size = rd->offset + size;
	if (a > e->align)
		e->align = a;
}

static void
ecb_done(ecb *e)
{
	e->ep.size = (e->ep.size + 3) & ~3u;
}

/* ------------------------------------------------------------ buffers */

/* One CPU's principal buffer being filled (dtrace_buffer_reserve). */
typedef struct pbuf {
	uint8_t *data;
	size_t off, cap, limit;
} pbuf;

/* Reserve room for a record of e; NULL when the buffer is "full" (the
 * switch interval ends).  The EPIDNONE padding is written here. */
static uint8_t *
reserve(pbuf *b, const ecb *e, uint64_t ts)
{
	size_t off = b->off;
	uint8_t *p;

	while (off % e->align != 0)
		off += 4;
	if (off + e->ep.size > b->limit)
		return NULL;
	memset(b->data + b->off, 0, off - b->off);   /* EPIDNONE words */
	p = b->data + off;
	memset(p, 0, e->ep.size);
	st32(p, e->ep.epid);
	st32(p + 4, (uint32_t)(ts >> 32));   /* high word first */
	st32(p + 8, (uint32_t)ts);
	b->off = off + e->ep.size;
	return p;
}

/* ------------------------------------------------------------ world */

static const char *const syscalls[] = {
	"read", "write", "ioctl", "clock_gettime", "kevent", "recvfrom",
	"sendto", "fstat", "openat", "close", "mmap", "munmap", "select",
	"poll", "sigprocmask", "getpid", "lseek", "fcntl", "pread", "pwrite",
	"readv", "writev", "getdirentries", "fstatat", "madvise", "mprotect",
	"_umtx_op", "thr_self", "gettimeofday", "nanosleep", "accept4",
	"connect", "socket", "setsockopt", "getsockopt", "recvmsg", "sendmsg",
	"shutdown", "pipe2", "dup2", "access", "readlink", "sysctl",
	"__sysctlbyname", "issetugid", "sigaction", "sigreturn", "wait4",
	"fork", "execve", "exit", "cap_enter", "chdir", "fchdir", "getcwd",
	"kqueue", "rename", "unlink", "mkdir", "rmdir", "utimensat", "fsync",
	"ftruncate", "sched_yield"
};
#define NSYSCALLS (sizeof(syscalls) / sizeof(syscalls[0]))

static const char *const execnames[] = {
	"sshd", "bash", "make", "cc", "ld.lld", "clang", "nginx", "postgres",
	"python3.11", "node", "java", "zfskern", "syslogd", "cron", "devd",
	"ntpd", "sh", "git", "tmux", "vim", "awk", "sed", "grep", "find",
	"rsync", "tar", "xz", "zstd", "redis-server", "memcached", "haproxy",
	"unbound"
};
#define NEXEC (sizeof(execnames) / sizeof(execnames[0]))

typedef struct proc {
	uint32_t pid;
	const char *execname;
} proc;

#define NPROCS 400
static proc procs[NPROCS];

static void
make_procs(void)
{
	size_t i;

	for (i = 0; i < NPROCS; i++) {
		procs[i].pid = (uint32_t)(100 + rndn(99000));
		procs[i].execname = execnames[rndskew(NEXEC)];
	}
}

/* A syscall's first argument: small descriptors for I/O calls, sizes,
 * or user addresses, so that the printed widths vary as in real traces. */
static uint64_t
arg0_for(size_t sc)
{
	switch (rndn(4)) {
	case 0:
	case 1:
		return rndn(64);                         /* fds */
	case 2:
		return rndn(1 << 20);                    /* sizes, flags */
	default:
		return 0x800000000ULL + (rndn(1ULL << 28) << 4); /* pointers */
	}
	(void)sc;
}

/* ------------------------------------------------------------ capture */

typedef struct gen {
	dtc_writer *w;
	dtc_error err;
	int ncpu;
	uint64_t target;         /* buffer bytes to write (principal) */
	uint64_t written;        /* buffer bytes written */
	uint64_t firings, values;
	uint64_t t0;             /* hrtime of pass 1 */
	uint32_t npasses;
	size_t bufsize;
	pbuf *bufs;
} gen;

static void
header(gen *g, int ncpu, const char *what)
{
	dtc_writer_header h;
	char producer[128];

	memset(&h, 0, sizeof(h));
	h.big_endian = 0;
	{
		const uint16_t one = 1;
		h.big_endian = *(const uint8_t *)&one == 0;
	}
	h.ilp32 = 0;
	h.os = "FreeBSD";
	h.release = "14.1-RELEASE";
	h.host = "bench.example.org";
	snprintf(producer, sizeof(producer), "dtcbench-gen %s", what);
	h.producer = producer;
	h.ncpu = (uint32_t)ncpu;
	h.dt_act_base = 55;
	g->ncpu = ncpu;
	dtc_error_clear(&g->err);
	if ((g->w = dtc_writer_new(stdout, &h, &g->err)) == NULL)
		chk(DTC_FATAL, &g->err, "writer");
	g->t0 = 86400ULL * 1000000000ULL * 3 + rndn(1000000000ULL);
	chk(dtc_writer_add_clock(g->w, g->t0, 1718000000ULL * 1000000000ULL +
	    rndn(1000000000ULL), &g->err), &g->err, "clock");
}

static void
option(gen *g, const char *name, const char *val)
{
	chk(dtc_writer_add_option(g->w, name, val, 0, &g->err), &g->err, name);
}

static void
probe(gen *g, uint32_t id, const char *prov, const char *mod,
    const char *func, const char *name)
{
	dtc_probedesc p = { id, prov, mod, func, name, NULL };

	chk(dtc_writer_add_probe(g->w, &p, &g->err), &g->err, "probe");
}

static void
status(gen *g, uint32_t pass, int last)
{
	dtc_writer_status st;

	memset(&st, 0, sizeof(st));
	st.pass = pass;
	st.began_on = 0;
	st.ended_on = last ? g->ncpu - 1 : -1;
	st.exiting = last;
	chk(dtc_writer_add_status(g->w, &st, &g->err), &g->err, "status");
}

static void
start_bufs(gen *g)
{
	int c;

	g->bufsize = BUFSIZE_DEFAULT;
	g->bufs = xcalloc((size_t)g->ncpu, sizeof(*g->bufs));
	for (c = 0; c < g->ncpu; c++) {
		g->bufs[c].data = xcalloc(1, g->bufsize);
		g->bufs[c].cap = g->bufsize;
	}
}

/*
 * The switch interval of one pass: each CPU's buffer is filled to 60-100%
 * of bufsize (the last pass to whatever the target leaves), and the
 * snapshots written in CPU order after the pass's status item.
 * fire(g, cpu, buf, ts) writes one record and returns 0 when it no longer
 * fits.
 */
typedef int (*fire_fn)(gen *g, int cpu, pbuf *b, uint64_t ts);

static void
run_passes(gen *g, fire_fn fire, uint32_t avgrec)
{
	uint32_t pass = 0;
	int c, last = 0;

	while (!last) {
		uint64_t start = g->t0 + (uint64_t)pass * 1000000000ULL;
		/* a full pass may overshoot the target: never wrap around */
		uint64_t left = g->target > g->written ?
		    g->target - g->written : 0;
		uint64_t per = left / (uint64_t)g->ncpu;

		pass++;
		if (per <= g->bufsize * 6 / 10 + g->bufsize / 5)
			last = 1;
		status(g, pass, last);
		for (c = 0; c < g->ncpu; c++) {
			pbuf *b = &g->bufs[c];
			dtc_writer_buf wb;
			uint64_t nexp, step, ts, i;

			b->off = 0;
			b->limit = last ? (per < g->bufsize ? per : g->bufsize) :
			    g->bufsize * (60 + rndn(41)) / 100;
			nexp = b->limit / avgrec + 1;
			step = 1000000000ULL / nexp;
			ts = start + rndn(step);
			for (i = 0;; i++) {
				if (!fire(g, c, b, ts))
					break;
				ts += step / 2 + rndn(step);
			}
			memset(&wb, 0, sizeof(wb));
			wb.pass = pass;
			wb.cpu = c;
			wb.data = b->data;
			wb.size = b->off;
			/* the switch ioctl runs about when the pass ends */
			wb.timestamp = start + 1000000000ULL + (uint64_t)c * 7000;
			chk(dtc_writer_add_buf(g->w, &wb, &g->err), &g->err,
			    "buf");
			g->written += b->off;
		}
		/* a runaway loop must not fill the disk */
		if (g->written > g->target + (uint64_t)g->ncpu * g->bufsize)
			die("internal error: wrote %" PRIu64 " bytes for a "
			    "target of %" PRIu64, g->written, g->target);
	}
	g->npasses = pass;
}

/* ------------------------------------------------------------ printf */

static ecb *printf_ecbs;

static int
fire_printf(gen *g, int cpu, pbuf *b, uint64_t ts)
{
	size_t sc = rndskew(NSYSCALLS);
	const ecb *e = &printf_ecbs[sc];
	const proc *p = &procs[rndskew(NPROCS)];
	uint8_t *r = reserve(b, e, ts);

	if (r == NULL)
		return 0;
	/* dtrace_store_by_ref: the string, its NUL, zeros up to strsize */
	memcpy(r + e->recs[0].offset, p->execname, strlen(p->execname));
	st32(r + e->recs[1].offset, p->pid);
	st64(r + e->recs[2].offset, arg0_for(sc));
	g->firings++;
	g->values += 3;
	(void)cpu;
	return 1;
}

static void
w_printf(gen *g)
{
	const char *fmt = "%s %i %lli\n";  /* FreeBSD's pickled "%s %d %d\n" */
	uint32_t fid = 1;
	size_t i;

	header(g, 8, "printf");
	option(g, "quiet", "1");
	option(g, "strsize", "256");
	option(g, "bufsize", "4m");
	option(g, "bufpolicy", "switch");
	printf_ecbs = xcalloc(NSYSCALLS, sizeof(*printf_ecbs));
	for (i = 0; i < NSYSCALLS; i++) {
		ecb *e = &printf_ecbs[i];
		uint32_t pid = 60000 + 2 * (uint32_t)i;
		int k;

		probe(g, pid, "syscall", "freebsd", syscalls[i], "entry");
		ecb_init(e, (uint32_t)i + 1, pid);
		/* every record of the statement has its own format index
		 * for the same string (dt_dof.c) */
		ecb_add(e, DTC_ACT_PRINTF, STRSIZE, (uint16_t)fid, 0, 0x4a1000);
		ecb_add(e, DTC_ACT_PRINTF, 4, (uint16_t)(fid + 1), 0, 0x4a1000);
		ecb_add(e, DTC_ACT_PRINTF, 8, (uint16_t)(fid + 2), 0, 0x4a1000);
		ecb_done(e);
		for (k = 0; k < 3; k++)
			chk(dtc_writer_add_format(g->w, fid + (uint32_t)k, fmt,
			    &g->err), &g->err, "format");
		fid += 3;
		chk(dtc_writer_add_eprobe(g->w, &e->ep, &g->err), &g->err,
		    "eprobe");
	}
	start_bufs(g);
	run_passes(g, fire_printf, printf_ecbs[0].ep.size);
}

/* ------------------------------------------------------------ trace */

static ecb *trace_entry, *trace_return;
static int *pending_return;   /* per CPU: the syscall in flight, or -1 */

static int
fire_trace(gen *g, int cpu, pbuf *b, uint64_t ts)
{
	uint8_t *r;
	int sc = pending_return[cpu];

	if (sc < 0) {
		const ecb *e;

		sc = (int)rndskew(NSYSCALLS);
		e = &trace_entry[sc];
		if ((r = reserve(b, e, ts)) == NULL)
			return 0;
		st64(r + e->recs[0].offset, arg0_for((size_t)sc));
		pending_return[cpu] = sc;
		g->values += 1;
	} else {
		const ecb *e = &trace_return[sc];
		uint64_t rv = rndn(16) == 0 ? (uint64_t)-1 : rndn(4096);

		if ((r = reserve(b, e, ts)) == NULL)
			return 0;
		st32(r + e->recs[0].offset, (uint32_t)rv);
		st32(r + e->recs[1].offset, rv == (uint64_t)-1 ?
		    (uint32_t)(1 + rndn(90)) : 0);
		pending_return[cpu] = -1;
		g->values += 2;
	}
	g->firings++;
	return 1;
}

static void
w_trace(gen *g)
{
	size_t i;
	int c;

	header(g, 8, "trace");
	option(g, "strsize", "256");
	option(g, "bufsize", "4m");
	option(g, "bufpolicy", "switch");
	trace_entry = xcalloc(NSYSCALLS, sizeof(*trace_entry));
	trace_return = xcalloc(NSYSCALLS, sizeof(*trace_return));
	for (i = 0; i < NSYSCALLS; i++) {
		uint32_t id = 60000 + 2 * (uint32_t)i;

		probe(g, id, "syscall", "freebsd", syscalls[i], "entry");
		probe(g, id + 1, "syscall", "freebsd", syscalls[i], "return");
		ecb_init(&trace_entry[i], (uint32_t)i + 1, id);
		ecb_add(&trace_entry[i], DTC_ACT_DIFEXPR, 8, 0, 0, 0x4b1000);
		ecb_done(&trace_entry[i]);
		ecb_init(&trace_return[i], (uint32_t)(NSYSCALLS + i + 1), id + 1);
		ecb_add(&trace_return[i], DTC_ACT_DIFEXPR, 4, 0, 0, 0x4b2000);
		ecb_add(&trace_return[i], DTC_ACT_DIFEXPR, 4, 0, 0, 0x4b3000);
		ecb_done(&trace_return[i]);
		chk(dtc_writer_add_eprobe(g->w, &trace_entry[i].ep, &g->err),
		    &g->err, "eprobe");
		chk(dtc_writer_add_eprobe(g->w, &trace_return[i].ep, &g->err),
		    &g->err, "eprobe");
	}
	pending_return = xcalloc(8, sizeof(int));
	for (c = 0; c < 8; c++)
		pending_return[c] = -1;
	start_bufs(g);
	run_passes(g, fire_trace, 22);
}

/* ------------------------------------------------------------ stack */

#define NKSYMS 50000
#define NPATHS 4096

typedef struct ksym {
	uint64_t addr, size;
	const char *module;
	char name[48];
} ksym;

static ksym *ksyms;
static uint64_t (*paths)[NFRAMES];
static ecb stack_ecb;

static const char *const prefixes[] = {
	"vm_", "vfs_", "tcp_", "udp_", "ip_", "ufs_", "sched_", "intr_",
	"taskqueue_", "bus_", "pmap_", "uma_", "malloc_", "kern_", "sys_",
	"sleepq_", "turnstile_", "mtx_", "rw_", "sx_", "callout_", "soreceive_",
	"sosend_", "in_pcb", "ether_", "netisr_", "g_", "bio_", "devfs_",
	"tmpfs_", "nfs_", "cpu_", "acpi_", "pci_", "lapic_", "fork_", "proc_",
	"thread_", "witness_", "lock_"
};
static const char *const words[] = {
	"alloc", "free", "lookup", "insert", "remove", "start", "done", "wait",
	"wakeup", "switch", "fault", "page", "object", "map", "enter", "exit",
	"read", "write", "ioctl", "attach", "detach", "intr", "handler", "poll",
	"input", "output", "timer", "clock", "run", "yield", "lock", "unlock",
	"try", "flush", "sync", "commit", "init", "fini", "queue", "dispatch"
};
static const char *const modules[] = {
	"kernel", "zfs.ko", "if_em.ko", "nvme.ko", "linux64.ko", "pf.ko",
	"dtrace.ko", "tmpfs.ko"
};

static void
make_ksyms(void)
{
	uint64_t addr = 0xffffffff80200000ULL;
	size_t i, nwords = sizeof(words) / sizeof(words[0]);
	size_t npre = sizeof(prefixes) / sizeof(prefixes[0]);

	ksyms = xcalloc(NKSYMS, sizeof(*ksyms));
	for (i = 0; i < NKSYMS; i++) {
		ksym *s = &ksyms[i];
		size_t m = i < NKSYMS * 8 / 10 ? 0 :
		    1 + (i - NKSYMS * 8 / 10) * 7 / (NKSYMS - NKSYMS * 8 / 10);

		if (i > 0 && s[-1].module != modules[m])
			addr = (addr + 0x1000000) & ~0xfffULL;  /* next module */
		s->module = modules[m];
		s->addr = addr;
		s->size = 16 * (2 + rndskew(120));
		snprintf(s->name, sizeof(s->name), "%s%s_%s%s",
		    prefixes[rndn(npre)], words[rndn(nwords)],
		    words[rndn(nwords)], rndn(4) == 0 ? "_locked" : "");
		addr += s->size + 16 * rndn(4);
	}
}

static uint64_t
retaddr(const ksym *s)
{
	return s->addr + 5 + rndn(s->size - 5);
}

static void
make_paths(void)
{
	size_t i, k;

	paths = xcalloc(NPATHS, sizeof(*paths));
	for (i = 0; i < NPATHS; i++) {
		uint32_t depth = 6 + (uint32_t)rndn(NFRAMES - 5);

		/* most samples share the outer frames (fork_exit, syscall
		 * and interrupt entry): take those from a few roots */
		for (k = 0; k < depth; k++) {
			size_t si = k + 3 >= depth ? rndn(64) :
			    rndskew(NKSYMS);
			paths[i][k] = retaddr(&ksyms[si]);
		}
	}
}

static int
fire_stack(gen *g, int cpu, pbuf *b, uint64_t ts)
{
	const ecb *e = &stack_ecb;
	uint8_t *r = reserve(b, e, ts);
	const uint64_t *path;
	size_t k;

	if (r == NULL)
		return 0;
	path = paths[rndskew(NPATHS)];
	for (k = 0; k < NFRAMES; k++)
		st64(r + e->recs[0].offset + 8 * k, path[k]);  /* 0 past depth */
	g->firings++;
	g->values++;
	(void)cpu;
	return 1;
}

static void
w_stack(gen *g)
{
	dtc_error *err = &g->err;
	size_t i;

	header(g, 8, "stack");
	option(g, "strsize", "256");
	option(g, "bufsize", "4m");
	option(g, "bufpolicy", "switch");
	option(g, "stackframes", "20");
	make_ksyms();
	make_paths();
	chk(dtc_writer_ksyms_begin(g->w, NKSYMS, err), err, "ksyms");
	for (i = 0; i < NKSYMS; i++)
		chk(dtc_writer_add_ksym(g->w, ksyms[i].addr, ksyms[i].size,
		    ksyms[i].module, ksyms[i].name, err), err, "ksym");
	chk(dtc_writer_ksyms_end(g->w, err), err, "ksyms");
	probe(g, 71234, "profile", "", "", "profile-997");
	ecb_init(&stack_ecb, 1, 71234);
	ecb_add(&stack_ecb, DTC_ACT_STACK, NFRAMES * 8, 0, NFRAMES, 0x4c1000);
	ecb_done(&stack_ecb);
	chk(dtc_writer_add_eprobe(g->w, &stack_ecb.ep, err), err, "eprobe");
	start_bufs(g);
	run_passes(g, fire_stack, stack_ecb.ep.size);
}

/* ------------------------------------------------------------ agg */

#define AGG_NPROBES 8

/* An aggregation entry layout (dtrace_ecb_resize for aggregations). */
typedef struct aggl {
	dtc_aggdesc ad;
	dtc_recdesc recs[3];
} aggl;

static void
agg_layout(aggl *a, uint32_t aggid, uint32_t epid, int64_t varid,
    const char *name, uint16_t func, uint32_t vsize)
{
	uint32_t off;

	memset(a, 0, sizeof(*a));
	a->ad.id = aggid;
	a->ad.epid = epid;
	a->ad.varid = varid;
	a->ad.name = name;
	a->ad.nrecs = 3;
	a->ad.recs = a->recs;
	/* rec 0: the variable id, 8-aligned after the aggid word */
	a->recs[0].action = DTC_ACT_DIFEXPR;
	a->recs[0].size = 8;
	a->recs[0].alignment = 8;
	a->recs[0].offset = 8;
	a->recs[0].uarg = (uint64_t)varid;
	/* rec 1: the key (arg0 or arg0 >> 4, an int64) */
	a->recs[1].action = DTC_ACT_DIFEXPR;
	a->recs[1].size = 8;
	a->recs[1].alignment = 8;
	a->recs[1].offset = 16;
	/* rec 2: the value, 8-aligned */
	off = 24;
	a->recs[2].action = func;
	a->recs[2].size = vsize;
	a->recs[2].alignment = 8;
	a->recs[2].offset = off;
	a->ad.size = off + vsize;
}

static uint8_t *
grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (need > *cap) {
		size_t nc = *cap ? *cap : 1 << 20;

		while (nc < need)
			nc *= 2;
		if ((*buf = realloc(*buf, nc)) == NULL)
			die("out of memory");
		*cap = nc;
	}
	return *buf;
}

/* A key for index i: user-space-address-like, distinct, unordered. */
static uint64_t
agg_key(uint64_t i)
{
	uint64_t x = i * 0x9e3779b97f4a7c15ULL;

	return 0x800000000ULL + ((x >> 28) << 4) + (i & 0xf);
}

static void
w_agg(gen *g, double scale)
{
	dtc_error *err = &g->err;
	aggl *cnt, *qnt;
	uint64_t nkeys = (uint64_t)(1000000 * scale), nq = nkeys / 16;
	uint64_t *order, i, k;
	uint8_t *buf = NULL, *junk;
	size_t cap = 0;
	int c, p;

	if (nkeys < 16)
		nkeys = 16;
	nq = nkeys / 16;
	header(g, 16, "agg");
	option(g, "strsize", "256");
	option(g, "aggsize", "256m");
	option(g, "bufsize", "4m");
	cnt = xcalloc(AGG_NPROBES, sizeof(*cnt));
	qnt = xcalloc(AGG_NPROBES, sizeof(*qnt));
	for (p = 0; p < AGG_NPROBES; p++) {
		ecb e;
		uint32_t id = 60000 + 2 * (uint32_t)p;

		probe(g, id, "syscall", "freebsd", syscalls[p], "entry");
		/* aggregating actions store no principal data: size 0 */
		memset(&e, 0, sizeof(e));
		e.ep.epid = (uint32_t)p + 1;
		e.ep.probeid = id;
		chk(dtc_writer_add_eprobe(g->w, &e.ep, err), err, "eprobe");
		agg_layout(&cnt[p], 2 * (uint32_t)p + 1, (uint32_t)p + 1, 1, "c",
		    DTC_AGG_COUNT, 8);
		agg_layout(&qnt[p], 2 * (uint32_t)p + 2, (uint32_t)p + 1, 2, "q",
		    DTC_AGG_QUANTIZE, QBUCKETS * 8);
		chk(dtc_writer_add_agg(g->w, &cnt[p].ad, err), err, "agg");
		chk(dtc_writer_add_agg(g->w, &qnt[p].ad, err), err, "agg");
	}
	status(g, 1, 1);
	order = xcalloc(nkeys + nq, sizeof(*order));
	junk = xcalloc(1, 8);
	for (c = 0; c < g->ncpu; c++) {
		size_t n = 0, len = 0;
		dtc_writer_buf wb;

		/* this CPU's entries: every count key, the quantize keys
		 * whose two home CPUs include this one; in first-seen order */
		for (i = 0; i < nkeys; i++)
			order[n++] = i;
		for (k = 0; k < nq; k++)
			if ((int)(k % 16) == c || (int)((k * 7 + 3) % 16) == c)
				order[n++] = nkeys + k;
		for (i = n - 1; i > 0; i--) {
			uint64_t j = rndn(i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < n; i++) {
			int isq = order[i] >= nkeys;
			uint64_t key = isq ? order[i] - nkeys : order[i];
			const aggl *a = isq ? &qnt[key % AGG_NPROBES] :
			    &cnt[(agg_key(key) >> 4) % AGG_NPROBES];
			uint8_t *e;

			e = grow(&buf, &cap, len + a->ad.size) + len;
			memset(e, 0, a->ad.size);
			st32(e, a->ad.id);
			st32(e + 4, (uint32_t)rnd());   /* stale scratch bytes */
			st64(e + a->recs[0].offset, (uint64_t)a->ad.varid);
			if (isq) {
				uint64_t *bk = (uint64_t *)(void *)(e +
				    a->recs[2].offset);
				uint32_t center = 64 + (uint32_t)rndn(30);
				uint32_t w = 1 + (uint32_t)rndn(5), b;

				st64(e + a->recs[1].offset, agg_key(key) >> 4);
				for (b = center - w / 2; b < center - w / 2 + w &&
				    b < QBUCKETS; b++)
					bk[b] = 1 + rndskew(5000);
			} else {
				st64(e + a->recs[1].offset, agg_key(key));
				st64(e + a->recs[2].offset, 1 + rndskew(1000));
			}
			len += a->ad.size;
			g->values++;
		}
		memset(&wb, 0, sizeof(wb));
		wb.pass = 1;
		wb.cpu = c;
		wb.data = buf;
		wb.size = len;
		chk(dtc_writer_add_aggbuf(g->w, &wb, err), err, "aggbuf");
		g->written += len;
	}
	/* the pass's principal buffers: nothing but aggregations ran */
	for (c = 0; c < g->ncpu; c++) {
		dtc_writer_buf wb;

		memset(&wb, 0, sizeof(wb));
		wb.pass = 1;
		wb.cpu = c;
		wb.timestamp = g->t0 + 1000000000ULL;
		chk(dtc_writer_add_buf(g->w, &wb, err), err, "buf");
	}
	g->npasses = 1;
	free(buf);
	free(order);
	free(junk);
}

/* ------------------------------------------------------------ main */

static void
usage(FILE *fp)
{
	fprintf(fp,
"Usage: %s -w printf|trace|stack|agg [-s SCALE] [-S SEED] [-i INFO] -o FILE\n"
"Write a large, realistic .dtsnap capture for the benchmarks.\n"
"  -s SCALE  1/8, 1/4, 1/2, 1 or a decimal fraction (default 1)\n"
"  -S SEED   random seed (default 1): same seed and scale, same bytes\n"
"  -i INFO   also write the counts (shell variables) to INFO\n",
	    progname);
}

static double
parse_scale(const char *s)
{
	char *end;
	double a = strtod(s, &end), b = 1;

	if (*end == '/')
		b = strtod(end + 1, &end);
	if (*end != '\0' || !(a > 0) || !(b > 0) || a / b > 64)
		die("bad scale '%s'", s);
	return a / b;
}

int
main(int argc, char **argv)
{
	const char *what = NULL, *out = NULL, *info = NULL;
	double scale = 1;
	uint64_t seed = 1;
	gen g;
	int ch;
	FILE *fp;
	static char obuf[1 << 20];

	progname = argv[0];
	while ((ch = getopt(argc, argv, "w:s:S:o:i:h")) != -1) {
		switch (ch) {
		case 'w': what = optarg; break;
		case 's': scale = parse_scale(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'o': out = optarg; break;
		case 'i': info = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (what == NULL || out == NULL || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (freopen(out, "wb", stdout) == NULL)
		die("%s: %s", out, strerror(errno));
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	rs = seed * 0x2545f4914f6cdd1dULL + 17;
	memset(&g, 0, sizeof(g));
	make_procs();
	if (strcmp(what, "printf") == 0) {
		g.target = (uint64_t)(scale * (1ULL << 30));
		w_printf(&g);
	} else if (strcmp(what, "trace") == 0) {
		g.target = (uint64_t)(scale * (1ULL << 30));
		w_trace(&g);
	} else if (strcmp(what, "stack") == 0) {
		g.target = (uint64_t)(scale * (256ULL << 20));
		w_stack(&g);
	} else if (strcmp(what, "agg") == 0) {
		w_agg(&g, scale);
	} else {
		die("unknown workload '%s'", what);
	}
	chk(dtc_writer_end(g.w, 0, &g.err), &g.err, "end");
	if (fclose(stdout) != 0)
		die("%s: %s", out, strerror(errno));
	if (info != NULL) {
		if ((fp = fopen(info, "w")) == NULL)
			die("%s: %s", info, strerror(errno));
		/* firings: buffer records (EPIDs); values: data records
		 * (recdescs) or aggregation entries */
		fprintf(fp, "workload=%s\nscale=%g\nseed=%" PRIu64 "\n"
		    "firings=%" PRIu64 "\nvalues=%" PRIu64 "\n"
		    "bufbytes=%" PRIu64 "\npasses=%u\nncpu=%d\n", what, scale,
		    seed, g.firings, g.values, g.written, g.npasses, g.ncpu);
		fclose(fp);
	}
	return 0;
}
