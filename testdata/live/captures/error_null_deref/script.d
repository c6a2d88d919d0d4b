/* the ERROR probe: a NULL dereference, reported and traced */
#pragma D option quiet

BEGIN
{
	printf("before\n");
	trace(*(int *)0);
	printf("not reached\n");
}

ERROR
{
	printf("ERROR probe: fault %d\n", arg4);
}

BEGIN
{
	printf("next clause runs\n");
	exit(0);
}
