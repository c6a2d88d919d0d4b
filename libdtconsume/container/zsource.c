/*
 * zsource.c - the zstd frame layer under the container reader: turns a
 * compressed capture (dtsnap(5), COMPRESSION) back into the CBOR bytes
 * container.c decodes, frame by frame.
 *
 * A writer ends a frame only between items, so every frame that decodes
 * whole hands over whole items.  A frame's output is held until libzstd
 * has seen its end (and its checksum): the bytes of a damaged frame never
 * reach the container, which then resynchronizes on the items of the
 * next frame as it would after any damage.  A frame that outgrows
 * ZS_HOLD_MAX is handed over as it decodes (nothing this writer writes
 * is that large); damage in it is still reported, and the container sees
 * the cut item.  A frame cut short by the end of the input is handed
 * over as far as it decoded: a killed recorder's last items are real.
 *
 * After damage the input is scanned, from the byte after the damaged
 * frame's start, for the next frame magic.  Bytes that are not a frame
 * between frames are skipped the same way.  Each event is reported once
 * (dtcp_zsource_damage) with the frame's number and its byte offset in
 * the compressed input.
 *
 * Memory is bounded by what libzstd needs for a window of at most
 * 2^DTCP_ZSTD_WINDOWLOG_MAX bytes (ZSTD_d_windowLogMax: a frame that asks
 * for more is an error, not an allocation) and by ZS_HOLD_MAX; a frame's
 * declared content size is never used.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "base.h"

#define ZS_HOLD_MAX ((size_t)16 << 20)
#define ZS_MAGIC_LEN 4
/* compressed bytes kept to rescan a damaged frame from its start */
#define ZS_IN_MAX ((size_t)4 << 20)

struct dtcp_zsource {
	ZSTD_DCtx *dctx;
	int fd;                  /* -1: memory input */
	const uint8_t *mem;
	size_t memlen;

	/* compressed input; in[0] is at offset in_off of the input */
	uint8_t *in;
	size_t inlen, inpos, incap;
	uint64_t in_off;
	bool in_eof;

	/* the current frame's output, from outpos on still to hand over */
	uint8_t *out;
	size_t outlen, outpos, outcap;
	bool streaming;          /* frame larger than ZS_HOLD_MAX */
	bool inframe;
	uint64_t frame_no;       /* frames started so far */
	uint64_t frame_off;      /* where the current frame starts */

	bool damaged;
	uint64_t damage_off;
	char damage[200];
	int ioerr;
};

/* The frame magics (RFC 8878, 3.1.1 and 3.1.2), little-endian. */
int
dtcp_zsource_is_frame(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t m;

	if (n < ZS_MAGIC_LEN)
		return 0;
	m = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	return m == ZSTD_MAGICNUMBER ||
	    (m & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START;
}

dtcp_zsource *
dtcp_zsource_new(int fd, const void *mem, size_t memlen,
    const void *prefix, size_t nprefix)
{
	dtcp_zsource *z;

	if ((z = calloc(1, sizeof(*z))) == NULL)
		return NULL;
	z->fd = fd;
	z->mem = mem;
	z->memlen = memlen;
	z->incap = ZSTD_DStreamInSize();
	if (z->incap < nprefix)
		z->incap = nprefix;
	if ((z->dctx = ZSTD_createDCtx()) == NULL ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_windowLogMax,
	    DTCP_ZSTD_WINDOWLOG_MAX)) ||
	    (fd >= 0 && (z->in = malloc(z->incap)) == NULL)) {
		dtcp_zsource_free(z);
		return NULL;
	}
	if (fd < 0) {
		/* memory input is decoded in place */
		z->in = (uint8_t *)(uintptr_t)mem;
		z->inlen = memlen;
		z->in_eof = true;
	} else if (nprefix > 0) {
		memcpy(z->in, prefix, nprefix);
		z->inlen = nprefix;
	}
	return z;
}

void
dtcp_zsource_free(dtcp_zsource *z)
{
	if (z == NULL)
		return;
	ZSTD_freeDCtx(z->dctx);
	if (z->fd >= 0)
		free(z->in);
	free(z->out);
	free(z);
}

/* More compressed input, keeping in[keep, inlen).  -1: read error. */
static int
more(dtcp_zsource *z, size_t keep)
{
	ssize_t n;

	if (z->in_eof)
		return 0;
	if (keep > 0) {
		memmove(z->in, z->in + keep, z->inlen - keep);
		z->inlen -= keep;
		z->inpos -= keep;
		z->in_off += keep;
	}
	if (z->inlen == z->incap)
		return 0;       /* caller holds a whole buffer: use it */
	for (;;) {
		n = read(z->fd, z->in + z->inlen, z->incap - z->inlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			z->ioerr = errno;
			return -1;
		}
		if (n == 0)
			z->in_eof = true;
		z->inlen += (size_t)n;
		return 0;
	}
}

static void
report(dtcp_zsource *z, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
report(dtcp_zsource *z, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	z->damaged = true;
	z->damage_off = off;
	va_start(ap, fmt);
	vsnprintf(z->damage, sizeof(z->damage), fmt, ap);
	va_end(ap);
}

/*
 * Skip to the next frame magic at or after inpos.  0: found or the input
 * ended (z->inpos == z->inlen, z->in_eof), -1: read error.
 */
static int
seek_frame(dtcp_zsource *z)
{
	for (;;) {
		while (z->inlen - z->inpos >= ZS_MAGIC_LEN) {
			if (dtcp_zsource_is_frame(z->in + z->inpos,
			    z->inlen - z->inpos))
				return 0;
			z->inpos++;
		}
		if (z->in_eof) {
			z->inpos = z->inlen;
			return 0;
		}
		if (more(z, z->inpos) != 0)
			return -1;
	}
}

/* Give the output buffer room for at least one more block. */
static int
grow_out(dtcp_zsource *z)
{
	size_t ncap;
	uint8_t *p;

	if (z->outcap - z->outlen >= ZSTD_DStreamOutSize())
		return 0;
	ncap = z->outcap ? z->outcap * 2 : 2 * ZSTD_DStreamOutSize();
	if (ncap < z->outlen + ZSTD_DStreamOutSize())
		ncap = z->outlen + ZSTD_DStreamOutSize();
	if ((p = realloc(z->out, ncap)) == NULL)
		return -1;
	z->out = p;
	z->outcap = ncap;
	return 0;
}

/*
 * Where the input buffer may be cut before more is read: the current
 * frame's start, so that damage later in it can rescan from there, when
 * the buffer can hold it (up to ZS_IN_MAX), else what is consumed.
 */
static size_t
keep_from(dtcp_zsource *z)
{
	size_t fs;
	uint8_t *p;

	if (z->frame_off < z->in_off)
		return z->inpos;
	fs = (size_t)(z->frame_off - z->in_off);
	if (fs > 0 || z->inlen < z->incap)
		return fs;
	if (z->incap >= ZS_IN_MAX ||
	    (p = realloc(z->in, z->incap * 2)) == NULL)
		return z->inpos;
	z->in = p;
	z->incap *= 2;
	return 0;
}

/*
 * libzstd's reason for a damaged frame, the same whether the input came
 * whole (memory) or in pieces (a pipe).  Which of three errors libzstd
 * meets first in a frame whose content disagrees with its header or
 * blocks depends on how the input arrived: blocks that outgrow a
 * single-segment frame's declared content size are "Destination buffer
 * is too small" piecewise and "Data corruption detected" whole; another
 * damaged frame was "Data corruption detected" piecewise and "Src size
 * is incorrect" whole (found by fuzz_zstd, testdata/fuzz/container).
 * All three say "Data corruption detected".
 */
static const char *
damage_why(size_t ret)
{
	switch (ZSTD_getErrorCode(ret)) {
	case ZSTD_error_dstSize_tooSmall:
	case ZSTD_error_srcSize_wrong:
		return ZSTD_getErrorString(ZSTD_error_corruption_detected);
	default:
		return ZSTD_getErrorName(ret);
	}
}

/*
 * Decode until there is output to hand over, damage to report or the
 * end.  DTCP_ZS_* codes.
 */
static int
step(dtcp_zsource *z)
{
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;
	size_t ret, skipped;
	uint64_t at;

	if (!z->inframe) {
		at = z->in_off + z->inpos;
		if (z->inlen - z->inpos < ZS_MAGIC_LEN && !z->in_eof &&
		    more(z, z->inpos) != 0)
			return DTCP_ZS_IOERR;
		if (z->inpos == z->inlen && z->in_eof)
			return DTCP_ZS_EOF;
		if (!dtcp_zsource_is_frame(z->in + z->inpos,
		    z->inlen - z->inpos)) {
			if (seek_frame(z) != 0)
				return DTCP_ZS_IOERR;
			skipped = (size_t)(z->in_off + z->inpos - at);
			report(z, at, "%zu byte%s at compressed byte %llu "
			    "(after zstd frame %llu) %s not a zstd frame: "
			    "skipped", skipped, skipped == 1 ? "" : "s",
			    (unsigned long long)at,
			    (unsigned long long)z->frame_no,
			    skipped == 1 ? "is" : "are");
			return DTCP_ZS_DAMAGE;
		}
		z->inframe = true;
		z->streaming = false;
		z->frame_no++;
		z->frame_off = at;
		z->outlen = z->outpos = 0;
		ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
	}
	for (;;) {
		if (grow_out(z) != 0)
			return DTCP_ZS_NOMEM;
		ib.src = z->in;
		ib.size = z->inlen;
		ib.pos = z->inpos;
		ob.dst = z->out;
		ob.size = z->outcap;
		ob.pos = z->outlen;
		ret = ZSTD_decompressStream(z->dctx, &ob, &ib);
		z->inpos = ib.pos;
		z->outlen = ob.pos;
		if (ZSTD_isError(ret)) {
			size_t lost = z->outlen - z->outpos;

			report(z, z->frame_off, "zstd frame %llu at compressed "
			    "byte %llu is damaged (%s): %s%zu decompressed "
			    "byte%s dropped, reading on at the next frame",
			    (unsigned long long)z->frame_no,
			    (unsigned long long)z->frame_off,
			    damage_why(ret),
			    z->streaming ? "its last " : "its ", lost,
			    lost == 1 ? "" : "s");
			z->outlen = z->outpos = 0;
			z->inframe = false;
			/* the next frame may start anywhere after this one's
			 * start: its length is not known */
			if (z->frame_off + 1 < z->in_off) {
				/* already moved past: scan what is held */
				z->inpos = 0;
			} else {
				z->inpos = (size_t)(z->frame_off + 1 -
				    z->in_off);
			}
			if (seek_frame(z) != 0)
				return DTCP_ZS_IOERR;
			return DTCP_ZS_DAMAGE;
		}
		if (ret == 0) {
			z->inframe = false;
			return DTCP_ZS_DATA;
		}
		if (z->streaming || z->outlen >= ZS_HOLD_MAX) {
			z->streaming = true;
			if (z->outlen > z->outpos)
				return DTCP_ZS_DATA;
		}
		if (z->inpos == z->inlen) {
			if (z->in_eof) {
				z->inframe = false;
				report(z, z->frame_off, "zstd frame %llu at "
				    "compressed byte %llu is cut short at "
				    "compressed byte %llu: its %zu decompressed "
				    "byte%s kept", (unsigned long long)z->frame_no,
				    (unsigned long long)z->frame_off,
				    (unsigned long long)(z->in_off + z->inlen),
				    z->outlen - z->outpos,
				    z->outlen - z->outpos == 1 ? "" : "s");
				return DTCP_ZS_DAMAGE;
			}
			if (more(z, keep_from(z)) != 0)
				return DTCP_ZS_IOERR;
		}
	}
}

ssize_t
dtcp_zsource_read(dtcp_zsource *z, void *buf, size_t want, int *status)
{
	size_t n;
	int r;

	*status = DTCP_ZS_DATA;
	while (z->outpos == z->outlen) {
		if (z->damaged) {
			/* the report waits until the caller took it */
			*status = DTCP_ZS_DAMAGE;
			return -1;
		}
		r = step(z);
		if (r == DTCP_ZS_DATA)
			continue;
		if (r == DTCP_ZS_DAMAGE && z->outpos < z->outlen)
			break;  /* hand over a cut frame's bytes first */
		if (r == DTCP_ZS_EOF)
			return 0;
		*status = r;
		return -1;
	}
	n = z->outlen - z->outpos;
	if (n > want)
		n = want;
	memcpy(buf, z->out + z->outpos, n);
	z->outpos += n;
	return (ssize_t)n;
}

int
dtcp_zsource_damage(dtcp_zsource *z, char *msg, size_t len,
    long long *offset)
{
	if (!z->damaged)
		return 0;
	z->damaged = false;
	snprintf(msg, len, "%s", z->damage);
	*offset = (long long)z->damage_off;
	return 1;
}

const char *
dtcp_zsource_ioerror(const dtcp_zsource *z)
{
	return strerror(z->ioerr);
}
