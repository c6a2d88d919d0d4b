/*
 * fuzz_zstd.c - fuzz target: a zstd-compressed capture (dtsnap(5)
 * COMPRESSION), as dtconsume reads it.
 *
 * The test itself is fuzz_container.c's (included below): the capture is
 * decoded from memory, from a pipe and through dtc_reader_consume, and the
 * three must agree.  What differs is the mutator, which damages what a
 * compressed capture is made of, the zstd frames:
 *   - a frame cut at a random byte (the rest of the input kept or not);
 *   - a byte of a frame header (magic, frame header descriptor, window
 *     descriptor, dictionary id, content size) changed;
 *   - a frame's content size rewritten to a wrong value;
 *   - a skippable frame (magic 0x184D2A5?) inserted between frames, with
 *     a size that may run past the input;
 *   - a frame deleted, duplicated or moved;
 *   - a frame decompressed, its items damaged by fuzz_container.c's own
 *     structure mutator (renamed container_mutator here) and compressed
 *     again, so that the container reader behind the zstd layer gets
 *     damage the frame checksums do not catch;
 * and, a quarter of the time, libFuzzer's byte mutations.  Frames are
 * found with libzstd (ZSTD_findFrameCompressedSize), as zsource.c finds
 * them; a part of the input that is no frame ends the list.
 *
 * Seeds: compressed captures, e.g. the conformance fixtures through
 * dtsnap convert --zstd (fuzz/README).  Its reproducers go with the
 * container target's (testdata/fuzz/container), which fuzz_replay_container
 * replays: the test is the same.
 */
#define LLVMFuzzerCustomMutator container_mutator
#include "fuzz_container.c"
#undef LLVMFuzzerCustomMutator

#include <zstd.h>

#define MAXFRAMES 256
#define SKIP_MAGIC 0x184D2A50u

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed);

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The frames' starts; at[n] is where the last one ends. */
static size_t
frame_starts(const uint8_t *d, size_t size, size_t *at)
{
	size_t n = 0, pos = 0, len;

	while (pos < size && n < MAXFRAMES) {
		len = ZSTD_findFrameCompressedSize(d + pos, size - pos);
		if (ZSTD_isError(len) || len == 0)
			break;
		at[n++] = pos;
		pos += len;
	}
	at[n] = pos;
	return n;
}

/* Where a zstd frame's content size field is and how long: 0 without. */
static size_t
fcs_field(const uint8_t *f, size_t len, size_t *pos)
{
	static const size_t did[] = { 0, 1, 2, 4 };
	uint8_t fhd;
	int single;
	size_t n;

	if (len < 6 || le32(f) != ZSTD_MAGICNUMBER)
		return 0;
	fhd = f[4];
	single = (fhd >> 5) & 1;
	switch (fhd >> 6) {
	case 0:
		n = single ? 1 : 0;
		break;
	case 1:
		n = 2;
		break;
	case 2:
		n = 4;
		break;
	default:
		n = 8;
		break;
	}
	*pos = 5 + (single ? 0 : 1) + did[fhd & 3];
	return *pos + n <= len ? n : 0;
}

/* Frame k decompressed, mutated by container_mutator, compressed again. */
static size_t
remix_frame(uint8_t *data, size_t size, size_t max, const size_t *at,
    size_t k, uint32_t *s)
{
	size_t flen = at[k + 1] - at[k], plen, cap, clen, out = size;
	unsigned long long fcs;
	uint8_t *plain, *comp;

	fcs = ZSTD_getFrameContentSize(data + at[k], flen);
	if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN ||
	    fcs > 4 * max + 4096)
		return size;
	cap = (size_t)fcs + 256;
	if ((plain = malloc(cap)) == NULL)
		return size;
	plen = ZSTD_decompress(plain, cap, data + at[k], flen);
	if (ZSTD_isError(plen)) {
		free(plain);
		return size;
	}
	plen = container_mutator(plain, plen, cap, rnd(s));
	if ((comp = malloc(ZSTD_compressBound(plen))) != NULL) {
		clen = ZSTD_compress(comp, ZSTD_compressBound(plen), plain, plen,
		    1);
		if (!ZSTD_isError(clen))
			out = replace_bytes(data, size, max, at[k], flen, comp,
			    clen);
		free(comp);
	}
	free(plain);
	return out;
}

size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed)
{
	size_t at[MAXFRAMES + 1], n, k, a, b, pos, len, i;
	uint32_t s = seed;
	uint8_t buf[4 + 4 + 32], *copy;

	n = frame_starts(data, size, at);
	if (n == 0 || rnd(&s) % 4 == 0)
		return LLVMFuzzerMutate != NULL ?
		    LLVMFuzzerMutate(data, size, max) : size;
	k = rnd(&s) % n;
	a = at[k];
	b = at[k + 1];
	switch (rnd(&s) % 8) {
	case 0:			/* a frame cut short, the rest kept or not */
		pos = a + rnd(&s) % (b - a);
		if (rnd(&s) % 2)
			return pos;
		return replace_bytes(data, size, max, pos, b - pos, NULL, 0);
	case 1:			/* a byte of the frame header */
		len = b - a < 18 ? b - a : 18;
		data[a + rnd(&s) % len] ^= (uint8_t)(1 + rnd(&s) % 255);
		return size;
	case 2:			/* a wrong content size */
		if ((len = fcs_field(data + a, b - a, &pos)) == 0)
			return size;
		for (i = 0; i < len; i++)
			data[a + pos + i] = rnd(&s) % 2 ? (uint8_t)rnd(&s) :
			    data[a + pos + i] + (i == 0 ? 1 : 0);
		return size;
	case 3:			/* a skippable frame between frames */
		len = rnd(&s) % 33;
		put_le32(buf, SKIP_MAGIC | (rnd(&s) & 0xf));
		put_le32(buf + 4, rnd(&s) % 8 ? (uint32_t)len : rnd(&s));
		for (i = 0; i < len; i++)
			buf[8 + i] = (uint8_t)rnd(&s);
		return replace_bytes(data, size, max, rnd(&s) % 2 ? a : b, 0,
		    buf, 8 + len);
	case 4:			/* a frame deleted */
		return replace_bytes(data, size, max, a, b - a, NULL, 0);
	case 5:			/* a frame duplicated or moved */
		if ((copy = malloc(b - a)) == NULL)
			return size;
		memcpy(copy, data + a, b - a);
		pos = at[rnd(&s) % (n + 1)];
		if (rnd(&s) % 2) {
			len = replace_bytes(data, size, max, pos, 0, copy,
			    b - a);
		} else {
			len = replace_bytes(data, size, max, a, b - a, NULL, 0);
			pos = pos > b ? pos - (b - a) : pos > a ? a : pos;
			len = replace_bytes(data, len, max, pos, 0, copy, b - a);
		}
		free(copy);
		return len;
	default:		/* the items inside a frame */
		return remix_frame(data, size, max, at, k, &s);
	}
}
