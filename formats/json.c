/* json.c - placeholder until the json emitter lands: refuses to start. */
#include <stddef.h>

#include "emitter.h"

static void *
create(const dtc_emitter_opts *o)
{
	(void)o;
	return NULL;
}

static int
destroy(void *st)
{
	(void)st;
	return 0;
}

const dtc_emitter dtc_fmt_json = {
	.name = "json",
	.description = "(not available yet)",
	.create = create,
	.destroy = destroy,
};
