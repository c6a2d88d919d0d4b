/*
 * pccache.c - the by-pc cache of text.c and model.c (see pccache.h).
 */
#include <stdlib.h>
#include <string.h>

#include "pccache.h"

void
pccache_init(pccache *c, unsigned bits, size_t esize)
{
	memset(c, 0, sizeof(*c));
	c->bits = bits;
	/* whole 8-byte words: every entry's pc stays aligned */
	c->esize = (esize + 7) & ~(size_t)7;
	c->epoch = 1;
}

size_t
pccache_max(const pccache *c)
{
	size_t n = c->esize - offsetof(struct pccache_entry, b);

	return n > UINT8_MAX ? UINT8_MAX : n;
}

void
pccache_free(pccache *c)
{
	free(c->slots);
	c->slots = NULL;
}

void
pccache_reset(pccache *c, const dtc_event *ev)
{
	if (++c->epoch == 0) {
		/* wrapped: entries of epoch 1 would come back */
		if (c->slots != NULL)
			memset(c->slots, 0, c->esize << c->bits);
		c->epoch = 1;
	}
	c->reader = ev->reader;
	c->pass = ev->pass;
}

int
pccache_alloc(pccache *c)
{
	if (c->failed)
		return -1;
	if ((c->slots = calloc((size_t)1 << c->bits, c->esize)) == NULL) {
		c->failed = 1;
		return -1;
	}
	return 0;
}

void
pccache_put(pccache *c, uint64_t pc, const void *p, size_t n)
{
	struct pccache_entry *e;

	if (n > pccache_max(c) || (e = pccache_slot(c, pc)) == NULL)
		return;
	memcpy(e->b, p, n);
	e->len = (uint8_t)n;
	e->pc = pc;
	e->epoch = c->epoch;
}
