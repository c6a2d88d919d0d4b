/*
 * ctf_private.h - typed print() through GNU libctf (issue 12).
 *
 * Only the files that call libctf include this header; it is empty of
 * declarations when configure found no libctf (HAVE_LIBCTF unset), and
 * print() records then decode as raw bytes.
 *
 *   ctfopen.c        CTF bytes of a capture -> a libctf dictionary, after
 *                    checks that keep hostile bytes away from libctf
 *   ctf.c            the capture's dictionaries by module, id maps, the
 *                    reader's public typed-value calls
 *   ctfprint_v2.c    print()'s text as dtrace-utils prints it
 *                    (libdtrace/dt_printf.c dt_print_type)
 *   ctfprint_legacy.c print()'s text as illumos/FreeBSD print it
 *                    (libdtrace/common/dt_print.c dtrace_print)
 *   ctfwalk.c        a flavor-free walk of a typed value (JSON, CBOR)
 */
#ifndef DTC_CTF_PRIVATE_H
#define DTC_CTF_PRIVATE_H

#include "config.h"
#include "decoders.h"

#ifdef HAVE_LIBCTF
#include <ctf-api.h>

/*
 * Open CTF bytes (as ctf_write_mem writes them) as a dictionary.  The
 * bytes must stay valid and unchanged while the dictionary lives.
 * Returns NULL with a lower-case reason in why (no trailing period).
 * A dictionary that opens but holds a type no compiler writes (an integer
 * wider than its bytes) gets the first such in note (else note[0] is
 * NUL): it prints as libdtrace prints it, and the reader says so.
 */
ctf_dict_t *dtcp_ctf_open(const uint8_t *data, size_t size, char *why,
    size_t whylen, char *note, size_t notelen);

/*
 * Append to out exactly what dtrace-utils' dt_print_type() prints for a
 * print() record: the "%p = *\n" address line, then the value of type
 * `type` of fp laid over data[0..size).  size is the data record's size;
 * printsize the printsize option in force (dtrace-utils cuts the data to
 * it).  swap: the data is in the other byte order than this host.
 * Nothing more is appended once out->len has reached lim (the message
 * cap, maxmsgsize: SIZE_MAX for none); the caller cuts what passed it
 * (dtc_reader_text_cut).
 * Returns 0, or -1 with *why set to a short static reason (out may then
 * hold a partial text).
 */
int dtcp_ctfprint_v2(ctf_dict_t *fp, ctf_id_t type, uint64_t addr,
    const uint8_t *data, size_t size, uint64_t printsize, int swap,
    dtc_buf *out, size_t lim, const char **why);

/*
 * Append to out exactly what illumos (illumos != 0) or FreeBSD libdtrace
 * prints for a print() record of type `type` of fp over data[0..size)
 * (dt_print.c dtrace_print()), everything that function prints and
 * nothing the record loop prints around it; lim as above.
 */
int dtcp_ctfprint_legacy(ctf_dict_t *fp, ctf_id_t type,
    const uint8_t *data, size_t size, int swap, int illumos,
    dtc_buf *out, size_t lim, const char **why);

/*
 * Walk a typed value in layout order, calling fn for every node (see
 * dtc_tnode in dtconsume.h).  depth 0 is the value itself.  Bounded:
 * at most DTCP_CTF_MAXDEPTH levels and DTCP_CTF_MAXNODES nodes; beyond
 * them the walk stops with -1 and *why set.  fn returning non-zero stops
 * the walk and is returned.
 */
#define DTCP_CTF_MAXDEPTH DTC_TYPED_MAXDEPTH
#define DTCP_CTF_MAXNODES 100000
int dtcp_ctf_walk(ctf_dict_t *fp, ctf_id_t type, const uint8_t *data,
    size_t size, int swap, int (*fn)(const dtc_tnode *n, void *arg),
    void *arg, const char **why);

#endif /* HAVE_LIBCTF */
#endif
