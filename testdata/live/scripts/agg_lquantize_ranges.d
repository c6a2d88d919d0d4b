/* lquantize with step 1, large ranges and values outside */
#pragma D option quiet

BEGIN
{
	@a = lquantize(-20, -10, 10, 1, 25);
	@a = lquantize(20, -10, 10, 1, -100);
	@a = lquantize(-10, -10, 10, 1, 15);
	@a = lquantize(10, -10, 10, 1, 150);
	@b[1] = lquantize(0, 0, 1000, 100);
	@b[2] = lquantize(999, 0, 1000, 100);
	@b[3] = lquantize(1000, 0, 1000, 100);
	exit(0);
}
