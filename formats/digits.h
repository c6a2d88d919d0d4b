/*
 * digits.h - decimal digits for the text and JSON writers, which print
 * integers millions of times a second (timestamps have 15 to 19 digits).
 */
#ifndef DTC_DIGITS_H
#define DTC_DIGITS_H

#include <stdint.h>
#include <string.h>

static const char digits_d2[] =
    "00010203040506070809101112131415161718192021222324252627282930"
    "31323334353637383940414243444546474849505152535455565758596061"
    "62636465666768697071727374757677787980818283848586878889909192"
    "93949596979899";

/* the two digits of r < 100, ending at end */
static inline char *
digits_2(char *end, uint32_t r)
{
	end -= 2;
	memcpy(end, digits_d2 + 2 * r, 2);   /* one 16-bit move */
	return end;
}

/* the digits of v < 10^8, without leading zeros */
static inline char *
digits_u32(char *end, uint32_t v)
{
	while (v >= 100) {
		end = digits_2(end, v % 100);
		v /= 100;
	}
	if (v >= 10)
		return digits_2(end, v);
	*--end = (char)('0' + v);
	return end;
}

/* The digits of v, written backwards ending at end; returns the start.
 * Eight digits a step in 64-bit arithmetic, then two a step in 32-bit:
 * a timestamp costs two 64-bit divisions instead of ten. */
static inline char *
digits_u64(char *end, unsigned long long v)
{
	while (v >= 100000000) {
		uint32_t lo = (uint32_t)(v % 100000000);
		uint32_t hi4 = lo / 10000, lo4 = lo % 10000;

		v /= 100000000;
		end = digits_2(end, lo4 % 100);
		end = digits_2(end, lo4 / 100);
		end = digits_2(end, hi4 % 100);
		end = digits_2(end, hi4 / 100);
	}
	return digits_u32(end, (uint32_t)v);
}

/* How many digits v has (1 for 0): from its bit length, a guess of
 * log10 that is exact or one too many, then one comparison. */
static inline unsigned
digits_count(unsigned long long v)
{
	static const unsigned long long p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
		1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
		10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - ((v | 1) < p10[t]);
}

#endif
