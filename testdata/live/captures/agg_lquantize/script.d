/* lquantize(): below/above range rows, step > 1, keyed, weights */
#pragma D option quiet

int i;

tick-1ms
/i < 40/
{
	@l = lquantize(i, 0, 30, 5);
	@k[i % 3] = lquantize(i - 20, -10, 10, 2);
	@w["weighted"] = lquantize(i % 7, 0, 7, 1, i % 2 ? -1 : 3);
	i++;
}

tick-1ms
/i >= 40/
{
	@d = lquantize(5, 0, 10);
	exit(0);
}
