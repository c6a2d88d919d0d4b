/* llquantize edge cases: ghost bins at the ends of the range, steps < factor with lmag 0, labels longer than 15 characters */
#pragma D option quiet

BEGIN
{
	@one = llquantize(1, 10, 0, 1, 20);
	@two = llquantize(2, 10, 0, 1, 20);
	@mtwo = llquantize(-2, 10, 0, 1, 20);
	@nine = llquantize(9, 10, 0, 1, 20);
	@sf0 = llquantize(3, 10, 0, 2, 5);
	@sf0 = llquantize(-37, 10, 0, 2, 5);
	@long = llquantize(-5, 10, 14, 15, 10);
	@long = llquantize(123456789012345678, 10, 14, 15, 10);
	@empty = llquantize(1, 4, 0, 2, 16);
	clear(@empty);
	printa(@empty);
	exit(0);
}
