/* printf %d/%u/%x/%o of one value cast to every width */
#pragma D option quiet

BEGIN
{
	x = 0x1234567890abcdefLL;
	printf("%d %d %d %d\n", (char)x, (short)x, (int)x, (long long)x);
	printf("%u %u %u %u\n", (uchar_t)x, (ushort_t)x, (uint_t)x, (uint64_t)x);
	printf("%x %x %x %x\n", (char)x, (short)x, (int)x, (long long)x);
	printf("%o %o %o %o\n", (uchar_t)x, (ushort_t)x, (uint_t)x, (uint64_t)x);
	printf("%p %p\n", (void *)x, (int *)0x12345678);
	exit(0);
}
