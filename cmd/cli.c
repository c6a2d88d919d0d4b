/*
 * cli.c - shared bits of the command-line programs.  The library never
 * prints or exits; these programs own stderr and the exit status.
 *
 * Every message written here is escaped (cli_escape below): messages
 * quote capture text (option and probe names, item kinds, format
 * strings, system() commands) and file names, and a capture made to
 * attack whoever decodes it must not reach the terminal with escape
 * sequences or line breaks of its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1        /* fopencookie */
#endif
#include <errno.h>
#include <fcntl.h>
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

/* ------------------------------------------------------------------ */
/* Escaping                                                            */
/* ------------------------------------------------------------------ */

/*
 * The form: every byte a terminal could take as a control is written
 * "\xNN" (two lower-case hex digits): C0 controls (0x00-0x1f, newline and
 * tab included: a message is one line), DEL (0x7f), the C1 controls in
 * their UTF-8 form (U+0080-U+009F, C2 80-C2 9F: xterm obeys U+009B as
 * CSI) and every byte that is not part of well-formed UTF-8 (stray
 * continuation bytes, overlong forms, surrogates, code points above
 * U+10FFFF, a sequence cut short).  Everything else, printable ASCII and
 * well-formed UTF-8, is written as it is, so names in any script read as
 * they were written.
 *
 * Why "\xNN" for all of them rather than \n, \t or \e: it is the form
 * `dtsnap info` and `dtsnap dump` already give capture text, so a name
 * reads the same in a table and in a message; it names the byte exactly
 * whatever it is; and a message quoting D source (where "\n" is two
 * characters of a format string) cannot be confused with a newline byte.
 *
 * Why invalid UTF-8 is escaped rather than passed on: on a terminal that
 * takes 8-bit controls, a lone 0x9b is CSI just as ESC [ is, and a byte
 * that is not UTF-8 would otherwise turn a message into text no UTF-8
 * reader (a log, a JSON tool) accepts.  The cost is that a Latin-1 file
 * name shows its accented letters as \xNN; the decision does not depend
 * on the locale, so messages are the same in every environment (and in
 * the tests).
 *
 * A backslash is left as it is: escaping it would change every message
 * that quotes a D string or a path with one, and the goal is a safe
 * terminal, not a reversible encoding.
 */

/* Where escaped text goes: a small buffer in front of a stream, so that
 * a message reaches stderr (unbuffered) in one write, not byte by byte. */
typedef struct escbuf {
	FILE *fp;
	size_t n;
	int failed;
	char b[512];
} escbuf;

static void
esc_flush(escbuf *e)
{
	if (e->n > 0 && fwrite(e->b, 1, e->n, e->fp) != e->n)
		e->failed = 1;
	e->n = 0;
}

static void
esc_raw(escbuf *e, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		size_t k = sizeof(e->b) - e->n;

		if (k == 0) {
			esc_flush(e);
			continue;
		}
		if (k > n)
			k = n;
		memcpy(e->b + e->n, s, k);
		e->n += k;
		s += k;
		n -= k;
	}
}

static void
esc_byte(escbuf *e, unsigned char ch)
{
	static const char hex[] = "0123456789abcdef";
	char x[4] = { '\\', 'x', hex[ch >> 4], hex[ch & 15] };

	esc_raw(e, x, sizeof(x));
}

/*
 * The bytes at s (n of them) that may be written as they are: 1 for
 * printable ASCII, 2 to 4 for a well-formed UTF-8 character other than a
 * C1 control; 0 when the byte at s must be escaped; -1 when s holds the
 * well-formed start of a character that the n bytes cut short.
 */
static int
utf8_ok(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int len, i;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;    /* controls, DEL, continuations, overlong leads */
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	/* the second byte's range rules out overlong forms, surrogates
	 * and what lies past U+10FFFF; C2 80-9F are the C1 controls */
	if (c == 0xc2)
		lo = 0xa0;
	else if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

/*
 * Escape n bytes of s into e; a newline stays one when keep_nl (the
 * emitter's stream, whose lines are messages of their own).  more: more
 * bytes follow, so a character cut short at the end is left for them.
 * Returns the bytes consumed (all of them unless more).
 */
static size_t
esc_text(escbuf *e, const unsigned char *s, size_t n, int keep_nl, int more)
{
	size_t i = 0, run = 0;
	int k;

	while (i < n) {
		k = utf8_ok(s + i, n - i);
		if (k < 0 && more)
			break;
		if (k > 0) {
			i += (size_t)k;
			continue;
		}
		esc_raw(e, s + run, i - run);
		if (s[i] == '\n' && keep_nl)
			esc_raw(e, "\n", 1);
		else
			esc_byte(e, s[i]);
		run = ++i;
	}
	esc_raw(e, s + run, i - run);
	return i;
}

void
cli_escape(FILE *fp, const char *s, size_t n)
{
	escbuf e = { .fp = fp };

	esc_text(&e, (const unsigned char *)s, n, 0, 0);
	esc_flush(&e);
}

/* s escaped into buf (len bytes with the NUL), cut before an escape or a
 * character that would not fit whole: for the progress line's name. */
static void
esc_into(char *buf, size_t len, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0, left = strlen(str);
	int k;

	while (left > 0) {
		if ((k = utf8_ok(s, left)) > 0) {
			if (n + (size_t)k >= len)
				break;
			memcpy(buf + n, s, (size_t)k);
			n += (size_t)k;
		} else {
			if (n + 4 >= len)
				break;
			snprintf(buf + n, len - n, "\\x%02x", *s);
			n += 4;
			k = 1;
		}
		s += k;
		left -= (size_t)k;
	}
	buf[n] = '\0';
}

/* "prog: text\n" in one write, the progress line off the screen. */
static void
put_line(cli *c, const char *text, size_t n)
{
	escbuf e = { .fp = stderr };

	if (c->progress != NULL)
		cli_progress_hold(c->progress);
	esc_text(&e, (const unsigned char *)c->progname, strlen(c->progname),
	    0, 0);
	esc_raw(&e, ": ", 2);
	esc_text(&e, (const unsigned char *)text, n, 0, 0);
	esc_raw(&e, "\n", 1);
	esc_flush(&e);
	if (c->progress != NULL)
		cli_progress_release(c->progress);
}

static void
vmsg(cli *c, const char *fmt, va_list ap)
{
	char small[512], *big = NULL;
	const char *text = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0) {
		small[0] = '\0';
		n = 0;
	} else if ((size_t)n >= sizeof(small)) {
		if ((big = malloc((size_t)n + 1)) != NULL &&
		    vsnprintf(big, (size_t)n + 1, fmt, ap) == n)
			text = big;
		else
			n = (int)sizeof(small) - 1;   /* cut rather than lost */
	}
	put_line(c, text, (size_t)n);
	free(big);
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
	char buf[DTC_ERROR_TEXT_MAX];

	dtc_error_format(err, buf, sizeof(buf));
	cli_warn(c, "%s", buf);
}

void
cli_report_usage(cli *c, const dtc_error *err)
{
	char buf[DTC_ERROR_TEXT_MAX];

	dtc_error_format(err, buf, sizeof(buf));
	cli_note(c, "%s", buf);
	c->status = CLI_EXIT_USAGE;
}

static void
vusage(cli *c, const char *fmt, va_list ap)
{
	escbuf e = { .fp = stderr };
	const char *p = c->progname;

	vmsg(c, fmt, ap);
	esc_raw(&e, "Try '", 5);
	esc_text(&e, (const unsigned char *)p, strlen(p), 0, 0);
	esc_raw(&e, " --help' for more information.\n", 31);
	esc_flush(&e);
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
	int fd, e, exists;

	memset(o, 0, sizeof(*o));
	if (path == NULL) {
		o->fp = stdout;
		o->name = "standard output";
		return 0;
	}
	o->name = path;
	/*
	 * lstat, not stat: a symbolic link is never followed (one planted
	 * in a sticky directory would aim a root's output at any file).
	 * The check is no race: what is written goes to a new file made
	 * by mkostemp, and rename(2) replaces a name, never what a link
	 * there points at.
	 */
	if (lstat(path, &sb) == 0) {
		exists = 1;
		if (S_ISLNK(sb.st_mode)) {
			cli_warn(c, "cannot write %s: it is a symbolic link "
			    "(not followed: name the file it points at)",
			    path);
			memset(o, 0, sizeof(*o));
			return -1;
		}
		if (S_ISDIR(sb.st_mode))
			return open_fail(c, o, path, EISDIR);
		if (!S_ISREG(sb.st_mode)) {
			/* a device or a pipe: written as it is; O_NOFOLLOW
			 * and no O_CREAT, so that a link or a file put there
			 * since the lstat is refused, not written */
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY |
			    O_CLOEXEC);
			if (fd < 0)
				return open_fail(c, o, path, errno);
			if (fstat(fd, &sb) != 0 || S_ISREG(sb.st_mode) ||
			    (o->fp = fdopen(fd, "w")) == NULL) {
				e = S_ISREG(sb.st_mode) ? EEXIST : errno;
				close(fd);
				return open_fail(c, o, path, e);
			}
			return 0;
		}
		mode = sb.st_mode & 07777;
	} else if (errno == ENOENT) {
		exists = 0;
		um = umask(0);
		umask(um);
		mode = 0666 & ~um;
	} else {
		return open_fail(c, o, path, errno);
	}
	if ((o->target = strdup(path)) == NULL ||
	    (o->tmp = tmp_template(o->target)) == NULL)
		return open_fail(c, o, path, ENOMEM);
	if ((fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		e = errno;
		free(o->tmp);
		o->tmp = NULL;
		return open_fail(c, o, path, e);
	}
	/* the file replaced keeps its owner when root replaces it (best
	 * effort: a user cannot give a file away, and need not) */
	if (exists && geteuid() == 0)
		(void)fchown(fd, sb.st_uid, sb.st_gid);
	if (fchmod(fd, mode) != 0 || (o->fp = fdopen(fd, "w")) == NULL) {
		e = errno;
		close(fd);
		unlink(o->tmp);
		return open_fail(c, o, path, e);
	}
	return 0;
}

int
cli_out_commit(cli *c, cli_out *o)
{
	int rc = 0;

	if (o->tmp == NULL)
		return 0;
	if (fflush(o->fp) != 0 || rename(o->tmp, o->target) != 0) {
		cli_warn(c, "cannot replace %s: %s", o->name, strerror(errno));
		rc = -1;
		(void)unlink(o->tmp);
	}
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return rc;
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
		esc_into(q->name, sizeof(q->name),
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

/*
 * The emitter's error stream.  Its lines are messages of their own (the
 * drop and error lines dtrace prints, "dtconsume: system() not executed:
 * CMD"), written as the decode goes, so it is escaped as a stream: the
 * same form as the messages above, a newline kept as the end of a line,
 * and a UTF-8 character that a write cuts in two kept (pend) until the
 * next write completes it.  Each write takes the progress line, while
 * there is one, off the screen first.
 */
typedef struct errstream {
	cli *c;
	unsigned char pend[4];
	size_t npend;
} errstream;

static ssize_t
errstream_write(void *cookie, const char *buf, size_t size)
{
	errstream *es = cookie;
	cli_progress *p = es->c->progress;
	const unsigned char *s = (const unsigned char *)buf;
	escbuf e = { .fp = stderr };
	size_t used = 0, i;
	int k;

	if (p != NULL)
		cli_progress_hold(p);
	if (es->npend > 0) {
		unsigned char t[8];
		size_t m = size < 4 ? size : 4;

		memcpy(t, es->pend, es->npend);
		memcpy(t + es->npend, s, m);
		k = utf8_ok(t, es->npend + m);
		if (k < 0 && m == size) {
			/* still cut short: all of it waits */
			memcpy(es->pend + es->npend, s, m);
			es->npend += m;
			used = size;
		} else if (k > 0) {
			esc_raw(&e, t, (size_t)k);
			used = (size_t)k - es->npend;
			es->npend = 0;
		} else {
			/* the byte that broke it starts afresh below; a lead
			 * and continuation bytes are nothing alone */
			for (i = 0; i < es->npend; i++)
				esc_byte(&e, es->pend[i]);
			es->npend = 0;
		}
	}
	if (used < size) {
		used += esc_text(&e, s + used, size - used, 1, 1);
		/* at most 3 bytes: the well-formed start of a character */
		es->npend = size - used;
		memcpy(es->pend, s + used, es->npend);
	}
	esc_flush(&e);
	fflush(stderr);
	if (p != NULL)
		cli_progress_release(p);
	return e.failed ? -1 : (ssize_t)size;
}

static int
errstream_close(void *cookie)
{
	errstream *es = cookie;
	escbuf e = { .fp = stderr };
	size_t i;

	/* a character the stream ended inside */
	for (i = 0; i < es->npend; i++)
		esc_byte(&e, es->pend[i]);
	esc_flush(&e);
	free(es);
	return e.failed ? EOF : 0;
}

FILE *
cli_progress_stream(cli *c)
{
	static const cookie_io_functions_t io = {
		.write = errstream_write, .close = errstream_close
	};
	errstream *es;
	FILE *fp;

	if ((es = calloc(1, sizeof(*es))) == NULL)
		return stderr;
	es->c = c;
	if ((fp = fopencookie(es, "w", io)) == NULL) {
		free(es);
		return stderr;
	}
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
