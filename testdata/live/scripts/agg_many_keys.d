/* 300 keys, value ties ordered by key */
#pragma D option quiet

int i;

tick-1ms
/i < 300/
{
	@[i] = sum(i % 7);
	@s[i % 50] = count();
	i++;
}

tick-1ms
/i >= 300/
{
	exit(0);
}
