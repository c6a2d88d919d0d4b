/*
 * synth.h - dtsnap synth: turn a JSON description of what a DTrace
 * kernel recorded into a .dtsnap capture (testdata/SYNTH.md, dtsnap(1)).
 *
 * The layout logic (record offsets, EPIDNONE padding, aggregation entries,
 * ring wrapping) follows the legacy kernel, so the buffers are the bytes a
 * real capture would hold; only the container is written through the
 * public writer API.
 */
#ifndef DTC_SYNTH_H
#define DTC_SYNTH_H

#include <stdio.h>

#include "dtconsume.h"

/*
 * Read the description at descpath ("-" = stdin) and write the capture
 * to out.  Returns 0, or -1 with err set: description problems are
 * DTC_E_BADVALUE and their text starts with the JSON path of the
 * offending value ("passes[0].bufs[1].records[3].data[2]: expected a
 * string"); err->source is descpath.  On error, out may hold a partial
 * capture.
 */
int synth_run(const char *descpath, FILE *out, dtc_error *err);

/* The same, from a description already in memory (name for messages). */
int synth_run_buffer(const char *buf, size_t len, const char *name,
    FILE *out, dtc_error *err);

#endif /* DTC_SYNTH_H */
