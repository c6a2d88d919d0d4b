/*
 * parts.h - what dtsnap split (split.c) and dtsnap record's rotation
 * (record_rotate.c) share about the files of a series (dtsnap(1),
 * RECORDING IN PRODUCTION; dtsnap(5), SERIES).
 */
#ifndef DTC_PARTS_H
#define DTC_PARTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dtconsume.h"

/*
 * The name of part index of a series named base: base without a
 * trailing ".dtsnap", a dot, the index in at least six digits, then
 * ".dtsnap" again when base had it (cap.dtsnap: cap.000000.dtsnap,
 * cap.000001.dtsnap; trace: trace.000000).  Six digits sort in part
 * order as shell globs list names.  -1 when it does not fit in len.
 */
int part_path(char *buf, size_t len, const char *base, long index);
/* A new series' name: 16 hex digits from getrandom(2) (time and pid
 * when that fails), so that parts of two runs never pass for one. */
void series_name(char *buf, size_t len);
/*
 * info_part.c: what dtsnap info says of a part (its clock item, item 1,
 * and the keys of its end item): part_note sees every item's map.
 */
#define PART_CPUS 1024
typedef struct partstat {
	int is_part, has_end;
	char series[64];
	uint64_t part, replayed, hrtime, walltime;
	uint64_t more, first, last;
	int window;
	uint64_t let_go_records, let_go_bytes;
	uint32_t ncpu;                  /* drops[] holds the first PART_CPUS */
	uint64_t drops[PART_CPUS];
} partstat;
void part_note(partstat *p, const char *kind, long long index,
    const dtc_node *map);
void part_print(FILE *f, const partstat *p);

/* dtsnap split (split.c) */
struct cli;
int cmd_split(struct cli *c, int argc, char **argv);

#endif
