/* division by zero at run time */
#pragma D option quiet

BEGIN
{
	x = 0;
	printf("%d\n", 10 / x);
}

BEGIN
{
	printf("%d\n", 10 % x);
}

BEGIN
{
	printf("done\n");
	exit(0);
}
