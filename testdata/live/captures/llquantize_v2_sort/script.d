/* llquantize: value sorting, aggsortrev, trunc, normalize, printa %@, clear */
#pragma D option quiet

int i;

tick-1ms
/i < 40/
{
	@s[i % 5] = llquantize(i % 5 == 2 ? -i * 10 : i * (i % 5), 10, 0, 2, 10);
	@z[i % 4] = llquantize(i % 4 == 1 ? 0 : i % 4, 10, 1, 2, 10);
	@c = llquantize(i, 10, 0, 1, 10);
	i++;
}

tick-1ms
/i == 40/
{
	printa("%d %@d\n", @s);
	printa(@z);
	trunc(@s, 2);
	printa(@s);
	normalize(@z, 2);
	printa("%d:%@d", @z);
	printa(@c);
	clear(@c);
	printa(@c);
	i++;
}

tick-1ms
/i > 40/
{
	setopt("aggsortrev");
	printa(@s);
	exit(0);
}
