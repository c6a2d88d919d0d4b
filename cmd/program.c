/*
 * program.c - dtsnap program: what a capture's program item says
 * (dtsnap(5), program): the D source and the command line it was run
 * with, or with -S its clauses listed byte for byte as `dtrace -S`
 * listed them on the recording host (dtc_program_disasm).
 *
 * Standard output is the listing and nothing else, so that it can be
 * compared with what dtrace -S wrote; what the capture cannot give goes
 * to standard error and makes the exit status 1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtconsume.h"
#include "program.h"

const char program_usage[] =
"usage: dtsnap program [-S [-x disasm=LEVELS]] FILE\n"
"\n"
"Print the program a capture of dtsnap record carries: the options and\n"
"macro arguments of its command line, then the D source of every -s, -n,\n"
"-P, -m, -f and -i argument.  With -S, print instead each clause as\n"
"libdtrace compiled it, in the layout of dtrace -S (to standard output,\n"
"where dtrace writes it to standard error).  -x disasm= picks the listings\n"
"as dtrace's option does (1: clauses, the only one a capture holds);\n"
"by default the one the recorded command line asked for, else 1.\n";

/* what the recorded command line's -x disasm= asked for, else 1 */
static unsigned
recorded_levels(const dtc_program *p)
{
	unsigned v = 1;
	size_t i;

	for (i = 0; i < p->noptions; i++)
		if (p->options[i].opt == 'x' && p->options[i].arg != NULL &&
		    strncmp(p->options[i].arg, "disasm=", 7) == 0)
			v = (unsigned)strtoul(p->options[i].arg + 7, NULL, 0);
	return v;
}

static void
print_source(const dtc_program *p, FILE *fp)
{
	size_t i;

	fputs("options:", fp);
	for (i = 0; i < p->noptions; i++) {
		fprintf(fp, " -%c", p->options[i].opt);
		if (p->options[i].arg != NULL)
			fprintf(fp, " %s", p->options[i].arg);
	}
	fputs("\nmacros:", fp);
	for (i = 0; i < p->nmacros; i++)
		fprintf(fp, " %s", p->macros[i]);
	fputc('\n', fp);
	for (i = 0; i < p->nsources; i++) {
		const dtc_prog_source *s = &p->sources[i];

		/* an -n argument is its source: the header names the file */
		if (s->opt == 's')
			fprintf(fp, "\nsource %zu: -s %s\n", i + 1, s->arg);
		else
			fprintf(fp, "\nsource %zu: -%c\n", i + 1, s->opt);
		fwrite(s->text, 1, s->len, fp);
		if (s->len == 0 || s->text[s->len - 1] != '\n')
			fputc('\n', fp);
	}
}

int
program_main(cli *c, int argc, char **argv)
{
	const char *path = NULL, *x = NULL;
	dtc_program *p = NULL;
	dtc_error err;
	dtc_buf out;
	unsigned levels;
	char *end;
	int i, rc, dis = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(program_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "-S") == 0)
			dis = 1;
		else if (strcmp(argv[i], "-x") == 0) {
			if (++i == argc)
				cli_usage_error(c, "program: -x needs disasm=LEVELS");
			x = argv[i];
		} else if (strncmp(argv[i], "-x", 2) == 0)
			x = argv[i] + 2;
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			cli_usage_error(c, "program: unknown option '%s'", argv[i]);
		else if (path != NULL)
			cli_usage_error(c, "program: one file at a time");
		else
			path = argv[i];
	}
	if (path == NULL)
		cli_usage_error(c, "program: no file given");
	levels = 0;
	if (x != NULL) {
		if (!dis)
			cli_usage_error(c, "program: -x disasm= goes with -S");
		if (strncmp(x, "disasm=", 7) != 0 || x[7] == '\0' ||
		    (levels = (unsigned)strtoul(x + 7, &end, 0), *end != '\0'))
			cli_usage_error(c, "program: -x takes disasm=LEVELS, not "
			    "'%s'", x);
	}
	dtc_error_clear(&err);
	rc = dtc_program_read_file(path, &p, &err);
	if (rc == DTC_EOF) {
		if (err.code != DTC_E_NONE)
			cli_report(c, &err);
		cli_warn(c, "%s: no program item (a capture of dtsnap record "
		    "holds one since issue 23)", path);
		return CLI_EXIT_WARN;
	}
	if (rc != DTC_OK) {
		cli_report(c, &err);
		return CLI_EXIT_WARN;
	}
	if (!dis) {
		print_source(p, stdout);
	} else {
		if (x == NULL)
			levels = recorded_levels(p);
		if (levels & ~p->listings & 0xf)
			cli_warn(c, "%s: the capture holds the disasm listings "
			    "%u, not %u: the probe programs (2, 4, 8) are built "
			    "when tracing starts and are not recorded", path,
			    p->listings, levels & ~p->listings & 0xf);
		dtc_buf_init(&out);
		if ((levels & p->listings & 1) &&
		    dtc_program_disasm(p, &out, &err) != DTC_OK)
			cli_report(c, &err);
		else
			fwrite(out.s, 1, out.len, stdout);
		dtc_buf_free(&out);
	}
	dtc_program_free(p);
	if (fflush(stdout) == EOF)
		cli_warn(c, "program: cannot write standard output");
	return c->status;
}
