/* cbor.c - placeholder until the cbor emitter lands: refuses to start. */
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

const dtc_emitter dtc_fmt_cbor = {
	.name = "cbor",
	.description = "(not available yet)",
	.create = create,
	.destroy = destroy,
};
