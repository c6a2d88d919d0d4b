/* many consume passes: output over 40 buffer switches stays in order */
#pragma D option quiet
#pragma D option switchrate=10ms
#pragma D option aggrate=10ms

int i;

tick-10ms
/i < 40/
{
	printf("tick %d\n", i);
	@[i % 4] = count();
	i++;
}

tick-10ms
/i >= 40/
{
	exit(0);
}
