/* nspec=1: the second speculation() fails (a failed-speculation message) */
#pragma D option quiet
#pragma D option nspec=1

BEGIN
{
	a = speculation();
	b = speculation();
	printf("%d %d\n", a, b);
	discard(a);
}

tick-100ms
/n++ == 2/
{
	exit(0);
}
