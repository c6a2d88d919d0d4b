/* llquantize: negative values, factors 2/10/16, steps < factor, lmag 0 ghost bins */
#pragma D option quiet

int i;

tick-1ms
/i < 50/
{
	@neg = llquantize(i % 3 ? -i * 13 : i * 7, 10, 0, 3, 20);
	@ghost = llquantize(i, 10, 0, 1, 20);
	@few = llquantize(i * 11, 10, 1, 2, 5);
	@two = llquantize(-i, 2, 1, 5, 2);
	@hex = llquantize(i * 100, 16, 1, 2, 16);
	@big = llquantize(i * 1000000000, 10, 8, 11, 10);
	i++;
}

tick-1ms
/i >= 50/
{
	printa("neg %@d\n", @neg);
	printa(@ghost);
	exit(0);
}
