/*
 * registry.c - output format names to emitters, and nothing else.
 */
#include <string.h>

#include "emitter.h"

static const dtc_emitter *const emitters[] = {
	&dtc_fmt_text,
	&dtc_fmt_json,
	&dtc_fmt_cbor,
	&dtc_fmt_json_freebsd,
	&dtc_fmt_folded,
	&dtc_fmt_flamegraph,
	&dtc_fmt_speedscope,
	&dtc_fmt_trace_event,
#ifdef DTC_HAVE_PERFETTO
	&dtc_fmt_perfetto,
#endif
	&dtc_fmt_null,
	NULL
};

const dtc_emitter *
dtc_emitter_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	/* "null" is what the source file is called; "none" what we show */
	if (strcmp(name, "null") == 0)
		name = "none";
	for (i = 0; emitters[i] != NULL; i++) {
		if (strcmp(emitters[i]->name, name) == 0)
			return emitters[i];
	}
	return NULL;
}

const dtc_emitter *const *
dtc_emitter_list(void)
{
	return emitters;
}
