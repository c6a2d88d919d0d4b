#pragma D option quiet
#pragma D option switchrate=20hz
#pragma D option aggrate=20hz

int i;

tick-10ms
/i < 40/
{
	printf("rec %d\n", i);
	@c[i % 4] = count();
	i++;
}

tick-10ms
/i == 40/
{
	printa("agg %d %@u\n", @c);
	exit(0);
}
