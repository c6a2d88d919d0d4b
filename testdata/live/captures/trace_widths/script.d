/* trace() of every integer width, signed and unsigned, quiet */
#pragma D option quiet

BEGIN
{
	trace((char)-1); printf("\n");
	trace((char)65); printf("\n");
	trace((unsigned char)200); printf("\n");
	trace((short)-12345); printf("\n");
	trace((unsigned short)65535); printf("\n");
	trace((int)-2147483647 - 1); printf("\n");
	trace((unsigned int)4294967295); printf("\n");
	trace((long)-1); printf("\n");
	trace((unsigned long)-1); printf("\n");
	trace((long long)-9223372036854775807 - 1); printf("\n");
	trace((unsigned long long)1 << 63); printf("\n");
	trace((int8_t)-128); printf("\n");
	trace((uint8_t)255); printf("\n");
	trace((int16_t)-32768); printf("\n");
	trace((uint16_t)32768); printf("\n");
	trace((int32_t)0); printf("\n");
	trace((uint32_t)123456789); printf("\n");
	trace((int64_t)-42); printf("\n");
	trace((uint64_t)42); printf("\n");
	trace(1 + 2); trace(3); trace(-4); printf("\n");
	exit(0);
}
