/*
 * stackprof.h - folded stacks, grouped, for the formats that draw them
 * (flamegraph.c, speedscope.c).
 *
 * The stacks are folded.c's: which records and aggregation rows count,
 * how a frame reads, what --folded-key keeps.  stackprof runs folded.c's
 * emitter through its ordinary interface (dtc_fmt_folded) into memory,
 * once per group: one group for everything (a flame graph), or one per
 * probe recording stacks and one per aggregation printing with a stack
 * key (speedscope's profiles).  What folded.c writes at the end is then
 * read back line by line: it is a few lines per distinct stack, never
 * per record, so reading it again costs nothing that matters.
 */
#ifndef DTC_STACKPROF_H
#define DTC_STACKPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emitter.h"

/* folded.c's mark after a kernel frame's text when opts.folded_kmark is
 * set: a control byte, which a frame's own text never holds (folded.c
 * turns those into '_') */
#define STACKPROF_KMARK '\001'

typedef struct sp_group {
	char *name;              /* probe or "@agg[,@agg]"; NULL: group 0 of
	                          * a split run (messages only) */
	void *fst;               /* folded.c's state */
	FILE *mem;               /* its output (open_memstream) */
	char *buf;               /* after stackprof_finish: folded lines */
	size_t len;
} sp_group;

typedef struct stackprof {
	dtc_emitter_opts o;      /* the caller's, out replaced per group */
	int split;               /* a group per probe / aggregation */
	sp_group *g;
	size_t ng, capg;
	dtc_buf sources;         /* capture names, ", " between them */
	dtc_buf labels;          /* probes and aggregations with stacks */
	dtc_buf scratch;
	int nomem;
} stackprof;

/* 0, or -1 (no memory; sp is empty and may be freed) */
int stackprof_init(stackprof *sp, const dtc_emitter_opts *o, int split);
/* the callbacks; their arg is the stackprof */
extern const dtc_handler stackprof_handler;
/* Every group's folded.c output into its buf; 0 or -1 (a group could not
 * write: out of memory). */
int stackprof_finish(stackprof *sp);
void stackprof_free(stackprof *sp);

/* One folded line: frames root first, separated by ';', and a count. */
typedef struct sp_line {
	const char *frames;      /* not NUL-terminated */
	size_t len;
	int64_t count;
} sp_line;
/* The next line of buf[*pos, len): 1, or 0 at the end. */
int stackprof_next_line(const char *buf, size_t len, size_t *pos,
    sp_line *l);
/* The next frame of a line: 1 and *f / *n (kernel frames: *kernel 1 and
 * the mark left out), or 0 at the end. */
int stackprof_next_frame(const sp_line *l, size_t *pos, const char **f,
    size_t *n, int *kernel);

#endif
