/* normalize() of sum/count/avg/quantize and denormalize() */
#pragma D option quiet

int i;

tick-1ms
/i < 20/
{
	@s[i % 4] = sum(i * 100);
	@c[i % 4] = count();
	@q = quantize(i * 10);
	@d[i % 4] = sum(i * 100);
	@l = lquantize(i, 0, 20, 5);
	i++;
}

tick-1ms
/i >= 20/
{
	normalize(@s, 5);
	normalize(@c, 2);
	normalize(@q, 3);
	normalize(@d, 10);
	denormalize(@d);
	normalize(@l, 4);
	printa("s %d %@d\n", @s);
	printa("d %d %@d\n", @d);
	exit(0);
}
