/* exit(3) from a clause; END still runs */
#pragma D option quiet

BEGIN
{
	printf("begin\n");
}

tick-10ms
{
	printf("exiting with 3\n");
	exit(3);
}

END
{
	printf("end\n");
}
