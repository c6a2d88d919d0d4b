/* printf integer conversions %d %i %u %x %X %o %c of several values */
#pragma D option quiet

BEGIN
{
	printf("%d %i %u %x %X %o\n", 0, 0, 0, 0, 0, 0);
	printf("%d %i %u %x %X %o\n", 97, 97, 97, 97, 97, 97);
	printf("%d %i %u %x %X %o\n", -97, -97, -97, -97, -97, -97);
	printf("%d %i %u %x %X %o\n", 2147483647, 2147483647, 2147483647,
	    2147483647, 2147483647, 2147483647);
	printf("%d %u %x\n", (long)-1, (long)-1, (long)-1);
	printf("%c%c%c %c\n", 'a', 'B', '0', 126);
	printf("%c|\n", (char)32);
	printf("%d %d %d %d\n", (char)-5, (short)-5, (int)-5, (long long)-5);
	printf("%u %u %u %u\n", (uchar_t)251, (ushort_t)65531, (uint_t)4294967291,
	    (uint64_t)-5);
	printf("%x %X %o\n", 0xdeadbeef, 0xcafebabe, 0777);
	printf("%%d is %d, %%%% is %%\n", 5);
	exit(0);
}
