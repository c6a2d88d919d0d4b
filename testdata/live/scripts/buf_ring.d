/* bufpolicy=ring: only the newest records survive */
#pragma D option quiet
#pragma D option bufpolicy=ring
#pragma D option bufsize=16k

int i;

tick-1ms
/i < 200/
{
	printf("%d\n", i++);
}

tick-1ms
/i >= 200/
{
	exit(0);
}
