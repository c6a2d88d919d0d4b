/*
 * cli.h - what the three programs share: their name in messages,
 * "prog: file: message" reporting, and exit status bookkeeping.
 */
#ifndef DTC_CLI_H
#define DTC_CLI_H

#include <stdarg.h>
#include <stdio.h>

#include "dtconsume.h"

/* Exit statuses of every program. */
#define CLI_EXIT_OK 0       /* everything decoded */
#define CLI_EXIT_WARN 1     /* decoded, but something was skipped or broken */
#define CLI_EXIT_USAGE 2    /* bad command line */

typedef struct cli {
	const char *progname;
	int status;          /* worst exit status so far */
} cli;

void cli_init(cli *c, const char *argv0);
/* "prog: message\n" on stderr; raises status to CLI_EXIT_WARN. */
void cli_warn(cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "prog: " + dtc_error_format(err) on stderr; raises status. */
void cli_report(cli *c, const dtc_error *err);
/* "prog: message\n" on stderr and exit(CLI_EXIT_USAGE). */
void cli_usage_error(cli *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

#endif
