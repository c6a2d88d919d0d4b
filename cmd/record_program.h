/*
 * record_program.h - dtsnap record's program item (record_program.c):
 * what record_dtrace.c hands it while it parses the command line and
 * compiles, and the item it writes when the capture starts.
 */
#ifndef DTC_RECORD_PROGRAM_H
#define DTC_RECORD_PROGRAM_H

#include "record.h"

struct dtrace_hdl;
struct dtrace_prog;

/* Before the options are parsed (parsing edits -x arguments in place). */
int rec_program_begin(const rec_config *cfg);
/* A -s/-n/-P/-m/-f/-i argument compiled: its source (for -s, the file
 * is read again) and its clauses as libdtrace built them. */
int rec_program_compiled(struct dtrace_hdl *dtp, struct dtrace_prog *pgp,
    int opt, const char *arg);
/* The program item, written after the header. */
int rec_program_write(dtc_writer *w, dtc_error *err);
void rec_program_free(void);

#endif
