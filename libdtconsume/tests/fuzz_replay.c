/*
 * fuzz_replay.c - run a fuzz target without libFuzzer.
 *
 * Linked with one fuzz_<target>.c, this main() feeds every file named on
 * the command line (directories are walked, one level per argument, in
 * name order) to LLVMFuzzerTestOneInput, the way zstd's
 * tests/fuzz/regression_driver.c does.  Each input is copied into a
 * buffer of exactly its size, so that a read past its end is caught by
 * AddressSanitizer or valgrind as it would be under libFuzzer.
 *
 * Without arguments it replays $top_srcdir/testdata/fuzz/FUZZ_TARGET (the
 * regression corpus make check runs).  Exit status: 0, or 1 when a file
 * cannot be read; a crash is a crash.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int verbose;

static int
run_file(const char *path)
{
	FILE *fp;
	uint8_t *buf;
	long n;

	if ((fp = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0) {
		fprintf(stderr, "fuzz_replay: %s: cannot size\n", path);
		fclose(fp);
		return 1;
	}
	/* malloc(0) may return NULL: always ask for one byte at least */
	if ((buf = malloc(n > 0 ? (size_t)n : 1)) == NULL ||
	    fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		fprintf(stderr, "fuzz_replay: %s: cannot read\n", path);
		free(buf);
		fclose(fp);
		return 1;
	}
	fclose(fp);
	if (verbose)
		fprintf(stderr, "fuzz_replay: %s (%ld bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int
namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
run_path(const char *path, int *nfiles)
{
	struct stat sb;
	struct dirent *de;
	DIR *d;
	char **names = NULL, *p;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (stat(path, &sb) != 0) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		(*nfiles)++;
		return run_file(path);
	}
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) != NULL) {
		char **nn;

		/* README and other notes beside the inputs are not inputs */
		if (de->d_name[0] == '.' || strcmp(de->d_name, "README") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nn = realloc(names, cap * sizeof(*names))) == NULL)
				abort();
			names = nn;
		}
		if ((p = malloc(strlen(path) + strlen(de->d_name) + 2)) == NULL)
			abort();
		sprintf(p, "%s/%s", path, de->d_name);
		names[n++] = p;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), namecmp);
	for (i = 0; i < n; i++) {
		if (stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode)) {
			(*nfiles)++;
			rc |= run_file(names[i]);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	int i, rc = 0, nfiles = 0;
	const char *top;
	char *dflt;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		verbose = 1;
		argv++;
		argc--;
	}
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			rc |= run_path(argv[i], &nfiles);
	} else {
#ifdef FUZZ_TARGET
		if ((top = getenv("top_srcdir")) == NULL)
			top = ".";
		if ((dflt = malloc(strlen(top) + sizeof("/testdata/fuzz/") +
		    strlen(FUZZ_TARGET))) == NULL)
			abort();
		sprintf(dflt, "%s/testdata/fuzz/%s", top, FUZZ_TARGET);
		rc = run_path(dflt, &nfiles);
		free(dflt);
#else
		(void)top;
		(void)dflt;
		fprintf(stderr, "usage: %s [-v] file|dir...\n", argv[0]);
		return 2;
#endif
	}
	printf("fuzz_replay: %d input%s replayed\n", nfiles,
	    nfiles == 1 ? "" : "s");
	return rc;
}
