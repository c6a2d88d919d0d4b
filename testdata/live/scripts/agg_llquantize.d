/* llquantize(): factor 10 and 2, linear steps within decades */
#pragma D option quiet

int i;

tick-1ms
/i < 60/
{
	@a = llquantize(i * 37, 10, 0, 4, 10);
	@b = llquantize(i, 2, 0, 6, 4);
	@k[i % 2 ? "odd" : "even"] = llquantize(i * i, 10, 1, 3, 5);
	i++;
}

tick-1ms
/i >= 60/
{
	@n = llquantize(-5, 10, 0, 2, 10);
	@n = llquantize(0, 10, 0, 2, 10);
	exit(0);
}
