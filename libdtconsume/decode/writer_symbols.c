/*
 * writer_symbols.c - dtc_writer_copy_symbols(): the kernel symbols and
 * process mappings one capture holds, written into a new capture.
 *
 * A program that writes a capture derived from another (the Python
 * binding's merged aggregations) needs the source's symbols so that its
 * output symbolizes as the source did; the symbol tables are the
 * capture's own state, so this reads them here rather than exposing
 * their layout.  Layer 1: it reads the capture and calls only the
 * writer's public calls.
 */
#include <stdlib.h>

#include "capture.h"

/* One process's mappings as the writer takes them, then written. */
static int
copy_proc(dtc_writer *w, const dtcp_proc *p, dtc_error *err)
{
	dtc_writer_map *maps;
	dtc_writer_usym *syms = NULL;
	size_t j, k, n = 0;
	int rc;

	for (j = 0; j < p->nmaps; j++)
		n += p->maps[j].nsyms;
	maps = calloc(p->nmaps ? p->nmaps : 1, sizeof(*maps));
	if (maps == NULL || (syms = calloc(n ? n : 1, sizeof(*syms))) == NULL) {
		free(maps);
		dtcp_error_set(err, DTC_E_NOMEM, NULL, -1, -1, -1,
		    "out of memory copying the mappings of process %llu",
		    (unsigned long long)p->pid);
		return DTC_FATAL;
	}
	for (j = 0, n = 0; j < p->nmaps; j++) {
		maps[j].start = p->maps[j].start;
		maps[j].end = p->maps[j].end;
		maps[j].path = p->maps[j].path;
		maps[j].nsyms = p->maps[j].nsyms;
		maps[j].syms = syms + n;
		for (k = 0; k < p->maps[j].nsyms; k++, n++) {
			syms[n].addr = p->maps[j].syms[k].addr;
			syms[n].size = p->maps[j].syms[k].size;
			syms[n].name = p->maps[j].syms[k].name;
		}
	}
	rc = dtc_writer_add_proc(w, p->pid, p->execname, p->nmaps, maps, err);
	free(syms);
	free(maps);
	return rc;
}

int
dtc_writer_copy_symbols(dtc_writer *w, const dtc_capture *c, dtc_error *err)
{
	const dtcp_meta *m = &c->meta;
	size_t i;
	int rc;

	if (m->nksyms > 0) {
		if ((rc = dtc_writer_ksyms_begin(w, m->nksyms, err)) != DTC_OK)
			return rc;
		for (i = 0; i < m->nksyms; i++)
			if ((rc = dtc_writer_add_ksym(w, m->ksyms[i].addr,
			    m->ksyms[i].size, m->ksyms[i].module,
			    m->ksyms[i].name, err)) != DTC_OK)
				return rc;
		if ((rc = dtc_writer_ksyms_end(w, err)) != DTC_OK)
			return rc;
	}
	for (i = 0; i < m->nprocs; i++)
		if ((rc = copy_proc(w, &m->procs[i], err)) != DTC_OK)
			return rc;
	return DTC_OK;
}
