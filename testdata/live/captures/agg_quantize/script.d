/* quantize(): unkeyed and keyed, negative values, weights */
#pragma D option quiet

int i;

tick-1ms
/i < 50/
{
	@q = quantize(i * i);
	@k[i % 2] = quantize(i - 25);
	@w = quantize(i, i % 4);
	i++;
}

tick-1ms
/i >= 50/
{
	@z = quantize(0);
	@big = quantize(0x4000000000000000, 3);
	@big = quantize(-9223372036854775807 - 1);
	exit(0);
}
