/*
 * compat.c - the 0.x names of renamed calls (dtconsume.h's last block,
 * libdtconsume(3) NAMES): each is a real exported function, so that a
 * binary linked against 0.2 or earlier still finds it, calling the
 * conforming name.  The header maps each old name to the new one with a
 * macro, which also makes the library's own definitions (still written
 * with the old names in their files) define the new symbols; here the
 * macros are undone to define the old ones.  On the readers' layer, the
 * highest it calls (readers, writers and errors alike).
 */
#include "config.h"

#include "dtconsume.h"

#undef dtc_open_file
#undef dtc_open_fd
#undef dtc_open_memory
#undef dtc_open_series
#undef dtc_close
#undef dtc_next
#undef dtc_consume
#undef dtc_consume_sized
#undef dtc_set_option
#undef dtc_get_option
#undef dtc_get_option_string
#undef dtc_option_isset
#undef dtc_select
#undef dtc_record_string
#undef dtc_typed_render
#undef dtc_typed_walk
#undef dtc_hist_render
#undef dtc_ksym_lookup
#undef dtc_usym_lookup
#undef dtc_proc_known
#undef dtc_addr_text
#undef dtc_uaddr_text
#undef dtc_mod_text
#undef dtc_umod_text
#undef dtc_frame_text
#undef dtc_printf_render
#undef dtc_printa_render
#undef dtc_text_cut
#undef dtc_strerror
#undef dtc_series_part
#undef dtc_writer_ksym
#undef dtc_writer_aggsnap_entry

dtc_reader *dtc_open_file(const char *path, unsigned flags, dtc_error *err);
dtc_reader *
dtc_open_file(const char *path, unsigned flags, dtc_error *err)
{
	return dtc_reader_open_file(path, flags, err);
}

dtc_reader *dtc_open_fd(int fd, const char *name, unsigned flags,
    dtc_error *err);
dtc_reader *
dtc_open_fd(int fd, const char *name, unsigned flags, dtc_error *err)
{
	return dtc_reader_open_fd(fd, name, flags, err);
}

dtc_reader *dtc_open_memory(const void *buf, size_t len, const char *name,
    unsigned flags, dtc_error *err);
dtc_reader *
dtc_open_memory(const void *buf, size_t len, const char *name, unsigned flags,
    dtc_error *err)
{
	return dtc_reader_open_memory(buf, len, name, flags, err);
}

dtc_reader *dtc_open_series(const char *const *paths, size_t n, unsigned flags,
    dtc_error *err);
dtc_reader *
dtc_open_series(const char *const *paths, size_t n, unsigned flags,
    dtc_error *err)
{
	return dtc_reader_open_series(paths, n, flags, err);
}

void dtc_close(dtc_reader *r);
void
dtc_close(dtc_reader *r)
{
	dtc_reader_close(r);
}

int dtc_next(dtc_reader *r, const dtc_event **ev, dtc_error *err);
int
dtc_next(dtc_reader *r, const dtc_event **ev, dtc_error *err)
{
	return dtc_reader_next(r, ev, err);
}

int (dtc_consume)(dtc_reader *r, const dtc_handler *h, void *arg,
    dtc_error *err);
int
(dtc_consume)(dtc_reader *r, const dtc_handler *h, void *arg, dtc_error *err)
{
	return (dtc_reader_consume)(r, h, arg, err);
}

int dtc_consume_sized(dtc_reader *r, const dtc_handler *h, size_t hsize,
    void *arg, dtc_error *err);
int
dtc_consume_sized(dtc_reader *r, const dtc_handler *h, size_t hsize, void *arg,
    dtc_error *err)
{
	return dtc_reader_consume_sized(r, h, hsize, arg, err);
}

int dtc_set_option(dtc_reader *r, const char *name, const char *value,
    dtc_error *err);
int
dtc_set_option(dtc_reader *r, const char *name, const char *value,
    dtc_error *err)
{
	return dtc_reader_set_option(r, name, value, err);
}

int64_t dtc_get_option(const dtc_reader *r, const char *name);
int64_t
dtc_get_option(const dtc_reader *r, const char *name)
{
	return dtc_reader_get_option(r, name);
}

const char *dtc_get_option_string(const dtc_reader *r, const char *name);
const char *
dtc_get_option_string(const dtc_reader *r, const char *name)
{
	return dtc_reader_get_option_string(r, name);
}

int dtc_option_isset(const dtc_reader *r, const char *name);
int
dtc_option_isset(const dtc_reader *r, const char *name)
{
	return dtc_reader_option_isset(r, name);
}

int dtc_select(dtc_reader *r, const char *what, const char *value,
    dtc_error *err);
int
dtc_select(dtc_reader *r, const char *what, const char *value, dtc_error *err)
{
	return dtc_reader_select(r, what, value, err);
}

int dtc_record_string(const dtc_reader *r, const dtc_value *v, size_t *len);
int
dtc_record_string(const dtc_reader *r, const dtc_value *v, size_t *len)
{
	return dtc_reader_record_string(r, v, len);
}

int dtc_typed_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err);
int
dtc_typed_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err)
{
	return dtc_reader_typed_render(r, v, out, err);
}

int dtc_typed_walk(const dtc_reader *r, const dtc_value *v,
    int (*fn)(const dtc_tnode *n, void *arg), void *arg, dtc_error *err);
int
dtc_typed_walk(const dtc_reader *r, const dtc_value *v,
    int (*fn)(const dtc_tnode *n, void *arg), void *arg, dtc_error *err)
{
	return dtc_reader_typed_walk(r, v, fn, arg, err);
}

int dtc_hist_render(const dtc_reader *r, const dtc_aggval *v, dtc_buf *out);
int
dtc_hist_render(const dtc_reader *r, const dtc_aggval *v, dtc_buf *out)
{
	return dtc_reader_hist_render(r, v, out);
}

int dtc_ksym_lookup(const dtc_reader *r, uint64_t addr, dtc_symbol *sym);
int
dtc_ksym_lookup(const dtc_reader *r, uint64_t addr, dtc_symbol *sym)
{
	return dtc_reader_ksym_lookup(r, addr, sym);
}

int dtc_usym_lookup(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_symbol *sym);
int
dtc_usym_lookup(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_symbol *sym)
{
	return dtc_reader_usym_lookup(r, pid, addr, sym);
}

int dtc_proc_known(const dtc_reader *r, uint64_t pid);
int
dtc_proc_known(const dtc_reader *r, uint64_t pid)
{
	return dtc_reader_proc_known(r, pid);
}

void dtc_addr_text(const dtc_reader *r, uint64_t addr, int exact_only,
    dtc_buf *out);
void
dtc_addr_text(const dtc_reader *r, uint64_t addr, int exact_only, dtc_buf *out)
{
	dtc_reader_addr_text(r, addr, exact_only, out);
}

void dtc_uaddr_text(const dtc_reader *r, uint64_t pid, uint64_t addr,
    int exact_only, dtc_buf *out);
void
dtc_uaddr_text(const dtc_reader *r, uint64_t pid, uint64_t addr, int exact_only,
    dtc_buf *out)
{
	dtc_reader_uaddr_text(r, pid, addr, exact_only, out);
}

void dtc_mod_text(const dtc_reader *r, uint64_t addr, dtc_buf *out);
void
dtc_mod_text(const dtc_reader *r, uint64_t addr, dtc_buf *out)
{
	dtc_reader_mod_text(r, addr, out);
}

void dtc_umod_text(const dtc_reader *r, uint64_t pid, uint64_t addr,
    dtc_buf *out);
void
dtc_umod_text(const dtc_reader *r, uint64_t pid, uint64_t addr, dtc_buf *out)
{
	dtc_reader_umod_text(r, pid, addr, out);
}

void dtc_frame_text(const dtc_reader *r, uint64_t pc, dtc_buf *out);
void
dtc_frame_text(const dtc_reader *r, uint64_t pc, dtc_buf *out)
{
	dtc_reader_frame_text(r, pc, out);
}

int dtc_printf_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err);
int
dtc_printf_render(const dtc_reader *r, const dtc_value *v, dtc_buf *out,
    dtc_error *err)
{
	return dtc_reader_printf_render(r, v, out, err);
}

int dtc_printa_render(const dtc_reader *r, const dtc_aggprint *ap,
    const dtc_aggrow *row, dtc_buf *out, dtc_error *err);
int
dtc_printa_render(const dtc_reader *r, const dtc_aggprint *ap,
    const dtc_aggrow *row, dtc_buf *out, dtc_error *err)
{
	return dtc_reader_printa_render(r, ap, row, out, err);
}

int dtc_text_cut(const dtc_reader *r, dtc_buf *out, size_t start,
    const char *what, dtc_error *err);
int
dtc_text_cut(const dtc_reader *r, dtc_buf *out, size_t start, const char *what,
    dtc_error *err)
{
	return dtc_reader_text_cut(r, out, start, what, err);
}

const char *dtc_strerror(int code);
const char *
dtc_strerror(int code)
{
	return dtc_error_string(code);
}

dtc_writer *dtc_series_part(dtc_series_writer *s, FILE *out, uint64_t hrtime,
    uint64_t walltime, dtc_error *err);
dtc_writer *
dtc_series_part(dtc_series_writer *s, FILE *out, uint64_t hrtime,
    uint64_t walltime, dtc_error *err)
{
	return dtc_series_begin_part(s, out, hrtime, walltime, err);
}

int dtc_writer_ksym(dtc_writer *w, uint64_t addr, uint64_t size,
    const char *module, const char *name, dtc_error *err);
int
dtc_writer_ksym(dtc_writer *w, uint64_t addr, uint64_t size, const char *module,
    const char *name, dtc_error *err)
{
	return dtc_writer_add_ksym(w, addr, size, module, name, err);
}

int dtc_writer_aggsnap_entry(dtc_writer *w, uint32_t aggid, const void *key,
    size_t ksize, const void *data, size_t dsize, dtc_error *err);
int
dtc_writer_aggsnap_entry(dtc_writer *w, uint32_t aggid, const void *key,
    size_t ksize, const void *data, size_t dsize, dtc_error *err)
{
	return dtc_writer_add_aggsnap_entry(w, aggid, key, ksize, data, dsize,
	    err);
}
