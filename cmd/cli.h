/*
 * cli.h - what the three programs share: their name in messages,
 * "prog: file: message" reporting, exit status bookkeeping, and output
 * files that replace what they name only when a run succeeds.
 */
#ifndef DTC_CLI_H
#define DTC_CLI_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "dtconsume.h"

/* Exit statuses of every program. */
#define CLI_EXIT_OK 0       /* everything decoded */
#define CLI_EXIT_WARN 1     /* decoded, but something was skipped or broken */
#define CLI_EXIT_USAGE 2    /* bad command line */
#define CLI_EXIT_NOMATCH 3  /* decoded cleanly; the selection matched nothing */

typedef struct cli_progress cli_progress;

typedef struct cli {
	const char *progname;
	int status;          /* worst exit status so far */
	cli_progress *progress; /* a progress line to clear before messages */
} cli;

void cli_init(cli *c, const char *argv0);
/*
 * Every message below is escaped before it reaches stderr, the program's
 * name included: control bytes (newline and tab too: a message is one
 * line), DEL, UTF-8 C1 controls and bytes that are not well-formed UTF-8
 * are written "\xNN"; printable ASCII and well-formed UTF-8 stay as they
 * are.  cli.c says why this form.
 */
/* n bytes of s on fp, escaped as the messages are (no newline added). */
void cli_escape(FILE *fp, const char *s, size_t n);
/* "prog: message\n" on stderr; raises status to CLI_EXIT_WARN. */
void cli_warn(cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same without raising the status: for what is worth knowing but
 * wrong with nothing. */
void cli_note(cli *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "prog: " + dtc_error_format(err) on stderr; raises status. */
void cli_report(cli *c, const dtc_error *err);
/* The same for a request the input cannot honour (a time selection
 * without the capture's clock): status becomes CLI_EXIT_USAGE. */
void cli_report_usage(cli *c, const dtc_error *err);
/* "prog: message\n" and "Try 'prog --help' for more information." on
 * stderr; status becomes CLI_EXIT_USAGE.  For a bad command line found
 * when there is something to clean up before exiting. */
void cli_usage_warn(cli *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, then exit(CLI_EXIT_USAGE). */
void cli_usage_error(cli *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/*
 * An output file (-o).  A regular file is written as a temporary file in
 * its directory (".NAME.XXXXXX", mode of the file it replaces, or 0666
 * less the umask for a new one) and renamed over it by cli_out_close, so
 * that a run that fails leaves the previous file as it was.  Anything
 * else (a terminal, /dev/null, /dev/full, a pipe) is written in place:
 * there is nothing to rename over.  A symbolic link is refused, never
 * followed (the name must be the file itself).  Every descriptor is
 * close-on-exec.  Standard output is written as it is.
 */
typedef struct cli_out {
	FILE *fp;            /* where the output goes */
	const char *name;    /* for messages: the path, or "standard output" */
	char *target;        /* renamed over at the end; NULL: in place */
	char *tmp;           /* the temporary file; NULL: in place */
} cli_out;

/* path NULL: standard output.  Returns 0, or -1 after "prog: cannot
 * write PATH: reason" (status raised to CLI_EXIT_WARN). */
int cli_out_open(cli *c, cli_out *o, const char *path);
/*
 * The end of the output.  failed: a write already failed (err its errno,
 * or 0 when not known).  The output is flushed and closed; then, when
 * nothing failed and commit is set, the temporary file is renamed over
 * the target, else it is removed.  Returns 0, or -1 after "prog: error
 * writing NAME: reason" (status raised).
 */
int cli_out_close(cli *c, cli_out *o, int commit, int failed, int err);
/*
 * The temporary file renamed over the target now, before the end (the
 * recorder, at its first item: a recording killed later must leave its
 * capture under its name); cli_out_close then only closes.  Returns 0,
 * or -1 after "prog: cannot replace NAME: reason" (the temporary file
 * removed; fp stays open, writing to nothing that has a name).
 */
int cli_out_commit(cli *c, cli_out *o);

/*
 * A progress line for long decodes on standard error, when it is a
 * terminal:
 *   dtconsume: cap.dtsnap: 312.4 MiB of 1.2 GiB (25%), 1.8M records/s, ETA 0:42
 * redrawn in place four times a second by a thread of its own, and taken
 * off the screen before any message and at the end.  A thread, because
 * the decoding runs inside the library's loop and comes back only with
 * the events it delivers: a selection that leaves out most firings would
 * leave a line drawn from the events stale for long stretches.  The
 * thread reads only dtc_reader_position() and the records counter.
 * It draws once the decode has run after_ms, or at once for a capture
 * over 256 MiB; after_ms 0 draws at the start of every capture.
 */
struct cli_progress {
	uint64_t records;    /* delivered in this capture: written by the
	                      * decoding thread with cli_progress_records */
	struct cli_progress_priv *priv;
};

/* Also set as c->progress; NULL when standard error is not a terminal
 * (or out of memory). */
cli_progress *cli_progress_start(cli *c, uint64_t after_ms);
/* The capture now decoded (r NULL: none, e.g. before dtc_reader_close); total
 * its size in bytes, 0 when not known (a pipe). */
void cli_progress_file(cli_progress *p, const dtc_reader *r,
    const char *name, uint64_t total);
/* Records so far in this capture; one writer, so a plain store. */
static inline void
cli_progress_records(cli_progress *p, uint64_t n)
{
	__atomic_store_n(&p->records, n, __ATOMIC_RELAXED);
}
/* Around what the decoding thread writes on standard error: the line is
 * taken off the screen first, and not drawn again until release. */
void cli_progress_hold(cli_progress *p);
void cli_progress_release(cli_progress *p);
/* A stream for messages written as the decode goes (an emitter's error
 * stream), escaped as the messages above are except that a newline stays
 * one (its lines are messages of their own); each line takes the progress
 * line, while there is one, off the screen first.  fclose it when done
 * (it may outlive cli_progress_end).  stderr itself, unescaped, only when
 * out of memory. */
FILE *cli_progress_stream(cli *c);
/* Stop the thread, clear the line, free c->progress (NULL is fine). */
void cli_progress_end(cli *c);

#endif
