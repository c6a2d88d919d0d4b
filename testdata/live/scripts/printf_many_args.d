/* printf with many arguments of mixed sizes */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8,
	    9, 10, 11, 12);
	printf("%s=%d %s=%u %s=%x %s=%c %s=%ld\n", "a", (char)-1, "b",
	    (ushort_t)2, "c", 0xabc, "d", 'q', "e", (long)-99);
	exit(0);
}
