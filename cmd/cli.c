/*
 * cli.c - shared bits of the command-line programs.  The library never
 * prints or exits; these programs own stderr and the exit status.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1        /* fopencookie */
#endif
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void
cli_init(cli *c, const char *argv0)
{
	const char *p = argv0 != NULL ? strrchr(argv0, '/') : NULL;

	c->progname = p != NULL ? p + 1 : (argv0 != NULL ? argv0 : "dtconsume");
	/* libtool wrappers run the real binary as lt-NAME */
	if (strncmp(c->progname, "lt-", 3) == 0)
		c->progname += 3;
	c->status = CLI_EXIT_OK;
	c->progress = NULL;
}

static void
vmsg(cli *c, const char *fmt, va_list ap)
{
	if (c->progress != NULL)
		cli_progress_hold(c->progress);
	fprintf(stderr, "%s: ", c->progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (c->progress != NULL)
		cli_progress_release(c->progress);
}

void
cli_note(cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, fmt, ap);
	va_end(ap);
}

void
cli_warn(cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, fmt, ap);
	va_end(ap);
	if (c->status < CLI_EXIT_WARN)
		c->status = CLI_EXIT_WARN;
}

void
cli_report(cli *c, const dtc_error *err)
{
	char buf[512];

	dtc_error_format(err, buf, sizeof(buf));
	cli_warn(c, "%s", buf);
}

void
cli_report_usage(cli *c, const dtc_error *err)
{
	char buf[512];

	dtc_error_format(err, buf, sizeof(buf));
	cli_note(c, "%s", buf);
	c->status = CLI_EXIT_USAGE;
}

static void
vusage(cli *c, const char *fmt, va_list ap)
{
	vmsg(c, fmt, ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", c->progname);
	c->status = CLI_EXIT_USAGE;
}

void
cli_usage_warn(cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage(c, fmt, ap);
	va_end(ap);
}

void
cli_usage_error(cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage(c, fmt, ap);
	va_end(ap);
	exit(CLI_EXIT_USAGE);
}

/* ------------------------------------------------------------------ */
/* Output files                                                        */
/* ------------------------------------------------------------------ */

/* "DIR/.BASE.XXXXXX" beside target (the name kept short enough for any
 * file system: NAME_MAX counts the dot and the suffix too). */
static char *
tmp_template(const char *target)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash != NULL ? slash + 1 : target;
	size_t dirlen = (size_t)(base - target), blen = strlen(base);
	char *t;

	if (blen > 200)
		blen = 200;
	if ((t = malloc(dirlen + blen + 9)) == NULL)
		return NULL;
	memcpy(t, target, dirlen);
	t[dirlen] = '.';
	memcpy(t + dirlen + 1, base, blen);
	memcpy(t + dirlen + 1 + blen, ".XXXXXX", 8);
	return t;
}

static int
open_fail(cli *c, cli_out *o, const char *path, int e)
{
	cli_warn(c, "cannot write %s: %s", path, strerror(e));
	free(o->target);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return -1;
}

int
cli_out_open(cli *c, cli_out *o, const char *path)
{
	struct stat sb;
	mode_t mode, um;
	char *real;
	int fd, e;

	memset(o, 0, sizeof(*o));
	if (path == NULL) {
		o->fp = stdout;
		o->name = "standard output";
		return 0;
	}
	o->name = path;
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return open_fail(c, o, path, EISDIR);
		if (!S_ISREG(sb.st_mode)) {
			/* a device or a pipe: written as it is */
			if ((o->fp = fopen(path, "w")) == NULL)
				return open_fail(c, o, path, errno);
			return 0;
		}
		mode = sb.st_mode & 07777;
		/* the file a symbolic link names is the one replaced */
		real = realpath(path, NULL);
		o->target = real != NULL ? real : strdup(path);
	} else if (errno == ENOENT) {
		um = umask(0);
		umask(um);
		mode = 0666 & ~um;
		o->target = strdup(path);
	} else {
		return open_fail(c, o, path, errno);
	}
	if (o->target == NULL || (o->tmp = tmp_template(o->target)) == NULL)
		return open_fail(c, o, path, ENOMEM);
	if ((fd = mkstemp(o->tmp)) < 0) {
		e = errno;
		free(o->tmp);
		o->tmp = NULL;
		return open_fail(c, o, path, e);
	}
	if (fchmod(fd, mode) != 0 || (o->fp = fdopen(fd, "w")) == NULL) {
		e = errno;
		close(fd);
		unlink(o->tmp);
		return open_fail(c, o, path, e);
	}
	return 0;
}

int
cli_out_close(cli *c, cli_out *o, int commit, int failed, int err)
{
	int rc = 0;

	if (o->fp == NULL)
		return 0;
	/* a stream that failed before may fail again here, with its errno */
	if (fflush(o->fp) != 0) {
		failed = 1;
		err = errno;
	}
	if (ferror(o->fp))
		failed = 1;
	if (o->fp != stdout && fclose(o->fp) != 0 && !failed) {
		failed = 1;
		err = errno;
	}
	o->fp = NULL;
	if (failed) {
		if (err != 0)
			cli_warn(c, "error writing %s: %s", o->name,
			    strerror(err));
		else
			cli_warn(c, "error writing %s", o->name);
		rc = -1;
	}
	if (o->tmp != NULL) {
		if (commit && !failed) {
			if (rename(o->tmp, o->target) != 0) {
				cli_warn(c, "cannot replace %s: %s", o->name,
				    strerror(errno));
				rc = -1;
				unlink(o->tmp);
			}
		} else {
			unlink(o->tmp);
		}
	}
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Progress                                                            */
/* ------------------------------------------------------------------ */

#define PROGRESS_BIG ((uint64_t)256 << 20)   /* bytes: draw at once */
#define PROGRESS_TICK_NS 250000000ull      /* redraw period */

struct cli_progress_priv {
	const char *progname;
	pthread_t thread;
	pthread_mutex_t mu;      /* the fields below; taken before stderr's
	                          * stream lock, never after it */
	pthread_cond_t cv;
	int stop;
	const dtc_reader *r;     /* the capture decoded, or NULL */
	char name[48];
	uint64_t total;          /* its bytes, 0 when not known */
	uint64_t t0;             /* when it started (CLOCK_MONOTONIC ns) */
	uint64_t after_ns;
	int drawn;               /* a line is on the screen */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 1536 -> "1.5 KiB" */
static void
fmt_bytes(char *buf, size_t len, uint64_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
}

/* 1834567 -> "1.8M" */
static void
fmt_rate(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.1fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

/* Draw the line; p->mu held.  The stream lock keeps a message of the
 * decoding thread and the line apart. */
static void
progress_draw(struct cli_progress_priv *q, uint64_t records)
{
	char line[256], pos[32], tot[32], rate[32];
	uint64_t at = dtc_reader_position(q->r), el = now_ns() - q->t0;
	double secs = (double)el / 1e9;
	struct winsize ws;
	size_t n, width = sizeof(line) - 1;

	fmt_bytes(pos, sizeof(pos), at);
	fmt_rate(rate, sizeof(rate), secs > 0 ? (double)records / secs : 0);
	if (q->total > 0) {
		fmt_bytes(tot, sizeof(tot), q->total);
		n = (size_t)snprintf(line, sizeof(line), "%s: %s: %s of %s "
		    "(%d%%), %s records/s", q->progname, q->name, pos, tot,
		    at >= q->total ? 100 : (int)(at * 100 / q->total), rate);
		if (at > 0 && at < q->total && n < sizeof(line)) {
			/* the time left at the pace so far */
			unsigned long long left = (unsigned long long)(
			    (double)(q->total - at) * secs / (double)at);
			unsigned long long h = left / 3600, m = left / 60 % 60,
			    sec = left % 60;

			if (h > 0)
				snprintf(line + n, sizeof(line) - n,
				    ", ETA %llu:%02llu:%02llu", h, m, sec);
			else
				snprintf(line + n, sizeof(line) - n,
				    ", ETA %llu:%02llu", m, sec);
		}
	} else {
		snprintf(line, sizeof(line), "%s: %s: %s, %s records/s",
		    q->progname, q->name, pos, rate);
	}
	/* a line longer than the terminal would wrap, and \r would then
	 * redraw only its last part */
	if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
	    (size_t)ws.ws_col - 1 < width)
		width = (size_t)ws.ws_col - 1;
	if (strlen(line) > width)
		line[width] = '\0';
	flockfile(stderr);
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	q->drawn = 1;
	funlockfile(stderr);
}

static void *
progress_main(void *arg)
{
	cli_progress *p = arg;
	struct cli_progress_priv *q = p->priv;
	struct timespec until;
	uint64_t t;

	pthread_mutex_lock(&q->mu);
	while (!q->stop) {
		t = now_ns() + PROGRESS_TICK_NS;
		until.tv_sec = (time_t)(t / 1000000000u);
		until.tv_nsec = (long)(t % 1000000000u);
		pthread_cond_timedwait(&q->cv, &q->mu, &until);
		if (q->stop)
			break;
		if (q->r != NULL && (q->total > PROGRESS_BIG ||
		    now_ns() - q->t0 >= q->after_ns))
			progress_draw(q, __atomic_load_n(&p->records,
			    __ATOMIC_RELAXED));
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

cli_progress *
cli_progress_start(cli *c, uint64_t after_ms)
{
	cli_progress *p;
	struct cli_progress_priv *q;
	pthread_condattr_t ca;

	if (!isatty(2) || (p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	if ((q = calloc(1, sizeof(*q))) == NULL) {
		free(p);
		return NULL;
	}
	p->priv = q;
	q->progname = c->progname;
	q->after_ns = after_ms * 1000000u;
	pthread_mutex_init(&q->mu, NULL);
	/* the waits count in the clock the times are taken in */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&q->thread, NULL, progress_main, p) != 0) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
		free(q);
		free(p);
		return NULL;
	}
	c->progress = p;
	return p;
}

void
cli_progress_file(cli_progress *p, const dtc_reader *r, const char *name,
    uint64_t total)
{
	struct cli_progress_priv *q;
	const char *base;

	if (p == NULL)
		return;
	q = p->priv;
	pthread_mutex_lock(&q->mu);
	q->r = r;
	if (r != NULL) {
		base = strrchr(name, '/');
		snprintf(q->name, sizeof(q->name), "%s",
		    base != NULL ? base + 1 : name);
		q->total = total;
		q->t0 = now_ns();
		__atomic_store_n(&p->records, 0, __ATOMIC_RELAXED);
		/* at once when asked to: a test sees the line however short
		 * the decode */
		if (q->after_ns == 0)
			progress_draw(q, 0);
	}
	pthread_mutex_unlock(&q->mu);
}

/* The thread draws holding mu, then the stream lock: the same order
 * here, or the two could wait for each other. */
void
cli_progress_hold(cli_progress *p)
{
	pthread_mutex_lock(&p->priv->mu);
	flockfile(stderr);
	if (p->priv->drawn) {
		fputs("\r\033[K", stderr);
		p->priv->drawn = 0;
	}
}

void
cli_progress_release(cli_progress *p)
{
	funlockfile(stderr);
	pthread_mutex_unlock(&p->priv->mu);
}

/* The stream's writes: a line at a time (it is line buffered), with
 * the progress line, while there is one, off the screen meanwhile. */
static ssize_t
progress_stream_write(void *cookie, const char *buf, size_t size)
{
	cli *c = cookie;
	cli_progress *p = c->progress;
	size_t n;

	if (p != NULL)
		cli_progress_hold(p);
	n = fwrite(buf, 1, size, stderr);
	fflush(stderr);
	if (p != NULL)
		cli_progress_release(p);
	return n == size ? (ssize_t)n : -1;
}

FILE *
cli_progress_stream(cli *c)
{
	static const cookie_io_functions_t io = {
		.write = progress_stream_write
	};
	FILE *fp;

	if (c->progress == NULL || (fp = fopencookie(c, "w", io)) == NULL)
		return stderr;
	setvbuf(fp, NULL, _IOLBF, 0);
	return fp;
}

void
cli_progress_end(cli *c)
{
	cli_progress *p = c->progress;
	struct cli_progress_priv *q;

	if (p == NULL)
		return;
	c->progress = NULL;
	q = p->priv;
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->thread, NULL);
	cli_progress_hold(p);
	fflush(stderr);
	cli_progress_release(p);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q);
	free(p);
}
