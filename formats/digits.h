/*
 * digits.h - decimal digits for the text and JSON writers, which print
 * integers millions of times a second (timestamps have 15 to 19 digits).
 */
#ifndef DTC_DIGITS_H
#define DTC_DIGITS_H

/* The digits of v, written backwards ending at end; returns the start.
 * Two digits a step: a 64-bit division by 100 costs no more than by 10. */
static inline char *
digits_u64(char *end, unsigned long long v)
{
	static const char d2[] =
	    "00010203040506070809101112131415161718192021222324252627282930"
	    "31323334353637383940414243444546474849505152535455565758596061"
	    "62636465666768697071727374757677787980818283848586878889909192"
	    "93949596979899";

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		end[0] = d2[2 * r];
		end[1] = d2[2 * r + 1];
	}
	if (v >= 10) {
		end -= 2;
		end[0] = d2[2 * v];
		end[1] = d2[2 * v + 1];
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

#endif
