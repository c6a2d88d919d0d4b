/*
 * pccache.h - bytes kept by pc: what an emitter made of a kernel stack
 * frame (its text, its encoded members), in a direct-mapped cache.
 *
 * Stacks repeat, and what a kernel frame becomes (a binary search over
 * ksyms and a string built, in the library, then printed or encoded) is
 * the same every time its pc comes while the symbol tables stay the
 * same.  They change only between passes (a ksyms item read for the next
 * pass) and with the reader, and may have grown before the aggregations
 * printed at the end: pccache_reset and pccache_sync start a new epoch
 * then, and an entry of an older epoch is empty.  The table is allocated
 * at the first lookup; without memory the cache does without.
 */
#ifndef DTC_PCCACHE_H
#define DTC_PCCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "dtconsume.h"

typedef struct pccache {
	unsigned char *slots;    /* 1 << bits entries of esize bytes, or NULL */
	unsigned bits;
	size_t esize;
	int failed;              /* no memory for the slots */
	uint32_t epoch;          /* entries of another epoch are empty */
	const dtc_reader *reader;
	uint32_t pass;
} pccache;

/* 1 << bits entries (bits 1 to 32) of esize bytes each (a few bytes of it are the pc
 * and length: pccache_max says how many are left for the data). */
void pccache_init(pccache *c, unsigned bits, size_t esize);
size_t pccache_max(const pccache *c);
void pccache_free(pccache *c);
/* A new epoch: what was kept is forgotten; ev's reader and pass noted. */
void pccache_reset(pccache *c, const dtc_event *ev);
/* The same, when ev comes from another reader or pass than the last. */
static inline void
pccache_sync(pccache *c, const dtc_event *ev)
{
	if (ev->reader != c->reader || ev->pass != c->pass)
		pccache_reset(c, ev);
}
struct pccache_entry {
	uint64_t pc;
	uint32_t epoch;          /* 0: empty */
	uint8_t len;
	unsigned char b[];
};
/* the slots, allocated at the first lookup; NULL without memory */
int pccache_alloc(pccache *c);

/* pc's slot (Fibonacci hashing: return addresses differ in their low
 * bits), or NULL */
static inline struct pccache_entry *
pccache_slot(pccache *c, uint64_t pc)
{
	if (c->slots == NULL && pccache_alloc(c) != 0)
		return NULL;
	return (struct pccache_entry *)(void *)(c->slots + c->esize *
	    (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> (64 - c->bits)));
}

/* The bytes kept for pc in this epoch (*len of them), or NULL.  Inline:
 * it runs for every frame. */
static inline const void *
pccache_get(pccache *c, uint64_t pc, size_t *len)
{
	struct pccache_entry *e = pccache_slot(c, pc);

	if (e == NULL || e->epoch != c->epoch || e->pc != pc)
		return NULL;
	*len = e->len;
	return e->b;
}
/* Keep n bytes for pc, replacing what its slot held; nothing is kept
 * when n is over pccache_max or there is no memory. */
void pccache_put(pccache *c, uint64_t pc, const void *p, size_t n);

#endif
