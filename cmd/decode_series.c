/*
 * decode_series.c - dtconsume's operands grouped into captures: the
 * parts of a series named on the command line (in any order, as a shell
 * glob lists them or not) are read as the one capture they were cut
 * from (dtc_reader_open_series); every other file is a capture of its own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "decode.h"

decode_unit *
decode_units(char **files, int nfiles, int *nunits)
{
	dtc_part_info *pi;
	decode_unit *u;
	char **paths;
	dtc_error err;
	int *part, i, j, n = 0;

	/* units, then the paths they point into, in one block */
	u = malloc((size_t)nfiles * (sizeof(*u) + sizeof(*paths)) + 1);
	pi = calloc((size_t)nfiles + 1, sizeof(*pi));
	part = calloc((size_t)nfiles + 1, sizeof(*part));
	if (u == NULL || pi == NULL || part == NULL) {
		free(u);
		free(pi);
		free(part);
		return NULL;
	}
	paths = (char **)(u + nfiles);
	/* a file that cannot be read is not a part: its open says why */
	for (i = 0; i < nfiles; i++)
		part[i] = strcmp(files[i], "-") != 0 &&
		    dtc_part_probe(files[i], &pi[i], &err) == 1;
	for (i = 0; i < nfiles; i++) {
		if (part[i] < 0)
			continue;
		u[n].paths = paths;
		u[n].n = 0;
		paths[u[n].n++] = files[i];
		for (j = i + 1; part[i] && j < nfiles; j++)
			if (part[j] == 1 &&
			    strcmp(pi[j].series, pi[i].series) == 0) {
				paths[u[n].n++] = files[j];
				part[j] = -1;
			}
		paths += u[n].n;
		n++;
	}
	free(pi);
	free(part);
	*nunits = n;
	return u;
}
