/* printa() with %*d: a key part as the dynamic width */
#pragma D option quiet

BEGIN
{
	@[10, 100] = sum(1);
	@[-10, 200] = sum(2);
	printa("[%*d] %@d\n", @);
	exit(0);
}
