/*
 * cli.c - shared bits of the command-line programs.  The library never
 * prints or exits; these programs own stderr and the exit status.
 */
#include <stdlib.h>
#include <string.h>

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
}

static void
vmsg(cli *c, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", c->progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
cli_usage_error(cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(c, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", c->progname);
	exit(CLI_EXIT_USAGE);
}
