/* trunc() to N largest, N smallest (negative) and all */
#pragma D option quiet

int i;

tick-1ms
/i < 30/
{
	@a[i] = sum(i);
	@b[i] = sum(i);
	@c[i] = sum(i);
	@h[i % 5] = lquantize(i, 0, 30, 10);
	i++;
}

tick-1ms
/i >= 30/
{
	trunc(@a, 3);
	trunc(@b, -3);
	trunc(@c);
	trunc(@h, 2);
	printa("a %d %@d\n", @a);
	printa("b %d %@d\n", @b);
	printa("c %d %@d\n", @c);
	exit(0);
}
