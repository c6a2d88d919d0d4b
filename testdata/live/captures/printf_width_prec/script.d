/* printf widths, precisions, %*d, %.*s and %*.*s */
#pragma D option quiet

BEGIN
{
	printf("[%5d] [%.3d] [%8.5d] [%-8.5d] [%.0d]\n", 42, 42, 42, 42, 0);
	printf("[%*d] [%-*d] [%*d]\n", 6, 7, 6, 7, -6, 7);
	printf("[%.*d] [%*.*d]\n", 4, 7, 8, 4, 7);
	printf("[%10s] [%-10s] [%.3s] [%10.3s] [%-10.3s]\n", "hello", "hello",
	    "hello", "hello", "hello");
	printf("[%*s] [%-*s] [%.*s] [%*.*s]\n", 7, "ab", 7, "ab", 1, "ab", 5, 1,
	    "ab");
	printf("[%.0s] [%0s] [%s]\n", "gone", "", "");
	printf("[%?d] [%-?d]\n", 1, 2);
	exit(0);
}
