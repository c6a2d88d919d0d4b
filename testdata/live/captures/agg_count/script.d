/* count(): unkeyed, int key, string key; printed at exit */
#pragma D option quiet

int i;

tick-1ms
/i < 20/
{
	@ = count();
	@bykey[i % 3] = count();
	@byname[i % 2 ? "odd" : "even"] = count();
	i++;
}

tick-1ms
/i >= 20/
{
	exit(0);
}
