/*
 * jstr.c - JSON strings for the formats that write JSON themselves.
 *
 * Names (probes, functions, frames) are plain ASCII nearly always and
 * are written between quotes as they are, with no allocation: these
 * formats write one or more per firing.  Anything else is encoded by
 * jansson, so its escapes are the ones json.c's output has.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jstr.h"

static void
put_jansson(FILE *fp, json_t *j)
{
	char *t;

	if (j == NULL || (t = json_dumps(j, JSON_ENCODE_ANY)) == NULL) {
		fputs("\"\"", fp);
		json_decref(j);
		return;
	}
	fputs(t, fp);
	free(t);
	json_decref(j);
}

json_t *
jstr_json(const char *s, size_t n)
{
	json_t *j;
	char *l;
	size_t i, k;

	if ((j = json_stringn(s, n)) != NULL)
		return j;
	/* not UTF-8: Latin-1 */
	if (n > (((size_t)-1) - 1) / 2 || (l = malloc(2 * n + 1)) == NULL)
		return NULL;
	for (i = k = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x80) {
			l[k++] = (char)c;
		} else {
			l[k++] = (char)(0xc0 | c >> 6);
			l[k++] = (char)(0x80 | (c & 0x3f));
		}
	}
	j = json_stringn(l, k);
	free(l);
	return j;
}

void
jstr_put(FILE *fp, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			break;
	}
	if (i == n) {
		putc('"', fp);
		fwrite(s, 1, n, fp);
		putc('"', fp);
		return;
	}
	put_jansson(fp, jstr_json(s, n));
}
