/*
 * dtsnap - inspect, check, dump, convert and synthesize .dtsnap
 * captures (dtsnap(1)).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "synth.h"
#include "dtc_private.h"

/* ------------------------------------------------------------------ */
/* synth                                                               */
/* ------------------------------------------------------------------ */

static const char synth_usage[] =
"usage: dtsnap synth DESC.json [-o OUT.dtsnap]\n"
"\n"
"Write the capture a JSON description stands for (testdata/SYNTH.md,\n"
"dtsnap(1)).  DESC \"-\" reads standard input; OUT defaults to standard\n"
"output.  Records and aggregation entries are laid out as the kernel\n"
"lays them out.\n";

static int
cmd_synth(cli *c, int argc, char **argv)
{
	const char *in = NULL, *outpath = NULL;
	FILE *out = stdout;
	dtc_error err;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(synth_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "-o") == 0) {
			if (++i == argc)
				cli_usage_error(c, "synth: -o needs a file name");
			outpath = argv[i];
		} else if (strncmp(argv[i], "-o", 2) == 0) {
			outpath = argv[i] + 2;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			cli_usage_error(c, "synth: unknown option '%s'", argv[i]);
		} else if (in == NULL) {
			in = argv[i];
		} else {
			cli_usage_error(c, "synth: one description at a time");
		}
	}
	if (in == NULL)
		cli_usage_error(c, "synth: no description given");
	if (outpath != NULL && strcmp(outpath, "-") != 0 &&
	    (out = fopen(outpath, "wb")) == NULL) {
		cli_warn(c, "%s: %s", outpath, strerror(errno));
		return CLI_EXIT_WARN;
	}
	dtc_error_clear(&err);
	rc = synth_run(in, out, &err);
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		cli_warn(c, "%s: %s", outpath, strerror(errno));
		rc = -1;
	}
	if (rc != 0) {
		if (err.code != DTC_E_NONE)
			cli_report(c, &err);
		/* a half-written capture would pass for one cut short */
		if (out != stdout)
			(void)unlink(outpath);
		return CLI_EXIT_WARN;
	}
	return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static const char main_usage[] =
"usage: dtsnap COMMAND [ARGS]\n"
"\n"
"Commands:\n"
"  info FILE                       header, CPUs, passes, probes, aggregations\n"
"  validate FILE                   check every item and record\n"
"  dump FILE                       every item and principal record\n"
"  convert [-f json|cbor] IN [-o OUT]  CBOR <-> JSON Lines\n"
"  synth DESC.json [-o OUT]        write the capture a description stands for\n"
"\n"
"'dtsnap COMMAND --help' describes one command.  See dtsnap(1).\n";

int
main(int argc, char **argv)
{
	cli c;

	cli_init(&c, argv[0]);
	if (argc < 2)
		cli_usage_error(&c, "no command given");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(main_usage, stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "synth") == 0)
		return cmd_synth(&c, argc - 1, argv + 1);
	cli_usage_error(&c, "unknown command '%s'", argv[1]);
}
