/*
 * dt2json - the same decoder, writing JSON Lines (dtconsume -f json).
 */
#include "decode.h"

int
main(int argc, char **argv)
{
	return decode_main(argc, argv, "json");
}
