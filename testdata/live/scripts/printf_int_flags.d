/* printf flags - + 0 # space, with widths */
#pragma D option quiet

BEGIN
{
	printf("[%8d] [%-8d] [%08d] [%+8d] [% 8d]\n", 123, 123, 123, 123, 123);
	printf("[%8d] [%-8d] [%08d] [%+8d] [% 8d]\n", -123, -123, -123, -123, -123);
	printf("[%#x] [%#X] [%#o] [%#8x] [%#-8x] [%#08x]\n", 0x123, 0x123, 0123,
	    0x123, 0x123, 0x123);
	printf("[%+d] [% d] [%+i] [% i]\n", 0, 0, 7, 7);
	printf("[%-+8d] [%-08d] [%+08d] [% 08d]\n", 42, 42, 42, 42);
	printf("[%x] [%#x] [%#o]\n", 0, 0, 0);
	printf("[%-5c] [%5c]\n", 'z', 'z');
	printf("[%1d] [%2d] [%20d]\n", 12345, 12345, -12345);
	exit(0);
}
