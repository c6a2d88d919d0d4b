/* walltimestamp with %Y and %T, and timestamp deltas (values vary) */
#pragma D option quiet

BEGIN
{
	start = timestamp;
	printf("%Y\n", walltimestamp);
	printf("%T\n", walltimestamp);
}

tick-50ms
{
	printf("elapsed > 0: %d\n", timestamp > start);
	printf("%d\n", (timestamp - start) / 1000000000);
	exit(0);
}
