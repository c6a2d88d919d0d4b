/*
 * synth_dof.c - the "dof" key of a synth description: DOF written as dof
 * items (dtsnap(5), dof), from a file next to the description or from
 * hex.
 *
 *   "dof": [ { "file": "usdt.dof", "name": "usdt.o" },
 *            { "hex": "7f444f46...", "name": "enabling 1" } ]
 *
 * The bytes are written as they are: a fixture of damaged DOF is made by
 * damaging the file, and the reader, not synth, says what is wrong with
 * it.  A relative "file" is found in the description's directory, so a
 * case directory carries its DOF next to its desc.json.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_private.h"

/* the file's bytes: bounded like every buffer a description makes */
static int
read_file(synth *s, const char *file, uint8_t **out, size_t *n)
{
	char path[4096];
	const char *slash = strrchr(s->name, '/');
	size_t len = 0, cap = 0, got;
	uint8_t *buf = NULL, *nb;
	FILE *fp;

	if (file[0] != '/' && slash != NULL && s->name[0] != '<')
		snprintf(path, sizeof(path), "%.*s/%s",
		    (int)(slash - s->name), s->name, file);
	else
		snprintf(path, sizeof(path), "%s", file);
	if ((fp = fopen(path, "rb")) == NULL)
		return sy_fail(s, "%s: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			if (cap >= SY_MAX_BUF) {
				fclose(fp);
				free(buf);
				return sy_fail(s, "%s: larger than %zu bytes",
				    path, SY_MAX_BUF);
			}
			cap = cap ? 2 * cap : 4096;
			if ((nb = realloc(buf, cap)) == NULL) {
				fclose(fp);
				free(buf);
				return sy_nomem(s);
			}
			buf = nb;
		}
		if ((got = fread(buf + len, 1, cap - len, fp)) == 0)
			break;
		len += got;
	}
	if (ferror(fp)) {
		fclose(fp);
		free(buf);
		return sy_fail(s, "%s: %s", path, strerror(errno));
	}
	fclose(fp);
	*out = buf;
	*n = len;
	return 0;
}

/* One entry: checked (w NULL) or written. */
static int
one(synth *s, json_t *v, dtc_writer *w)
{
	static const char *const keys[] = { "file", "hex", "name", NULL };
	const char *file = NULL, *name = NULL;
	uint8_t *data = NULL;
	size_t n = 0, mark;
	int rc;

	if (sy_object(s, v) != 0 || sy_keys(s, v, keys) != 0 ||
	    sy_get_str(s, v, "file", 0, NULL, &file) != 0 ||
	    sy_get_str(s, v, "name", 0, NULL, &name) != 0)
		return -1;
	if ((file != NULL) == (json_object_get(v, "hex") != NULL))
		return sy_fail(s, "one of file and hex");
	if (file != NULL) {
		mark = sy_key(s, "file");
		rc = read_file(s, file, &data, &n);
	} else {
		mark = sy_key(s, "hex");
		rc = sy_hexstr(s, json_object_get(v, "hex"), &data, &n);
	}
	if (rc != 0)
		return -1;
	sy_pop(s, mark);
	rc = 0;
	if (w != NULL && dtc_writer_add_dof(w, name, data != NULL ? data :
	    (const uint8_t *)"", n, s->err) != DTC_OK)
		rc = -1;
	free(data);
	return rc;
}

int
sy_dof(synth *s, json_t *arr, dtc_writer *w)
{
	size_t i, mark;
	json_t *v;

	if (arr == NULL)
		return 0;
	mark = sy_key(s, "dof");
	if (sy_array(s, arr) != 0)
		return -1;
	json_array_foreach(arr, i, v) {
		size_t m = sy_idx(s, i);

		if (one(s, v, w) != 0)
			return -1;
		sy_pop(s, m);
	}
	sy_pop(s, mark);
	return 0;
}
