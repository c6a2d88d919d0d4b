/*
 * dtconsume - print what dtrace(1) printed, from a capture.
 * Everything is in decode.c; this program only picks the text output.
 */
#include "decode.h"

int
main(int argc, char **argv)
{
	return decode_main(argc, argv, "text");
}
