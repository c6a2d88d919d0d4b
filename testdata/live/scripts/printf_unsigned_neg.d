/* printf of negative values through unsigned and hex conversions */
#pragma D option quiet

BEGIN
{
	printf("%u %x %o\n", -1, -1, -1);
	printf("%u %x\n", (char)-1, (char)-1);
	printf("%u %x\n", (short)-2, (short)-2);
	printf("%lu %lx %ld\n", (ulong_t)-3, (ulong_t)-3, (long)-3);
	printf("%d %d\n", (unsigned int)4294967295, (uint64_t)-1);
	exit(0);
}
