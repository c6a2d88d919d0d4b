/* bufpolicy=fill: tracing stops when the buffer is full */
#pragma D option quiet
#pragma D option bufpolicy=fill
#pragma D option bufsize=4k

int i;

tick-1ms
/i < 300/
{
	printf("record %d\n", i++);
}

tick-1ms
/i >= 300/
{
	exit(0);
}
