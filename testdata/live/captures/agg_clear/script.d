/* clear() between printa() calls, then new data */
#pragma D option quiet
#pragma D option aggrate=1ms
#pragma D option switchrate=10ms

BEGIN
{
	@c[1] = sum(10); @c[2] = sum(20);
	@q[1] = quantize(4);
	printa("%d %@d\n", @c);
	clear(@c);
	clear(@q);
	printa("%d %@d\n", @c);
	printa(@q);
	@c[3] = sum(30);
	printa("%d %@d\n", @c);
	exit(0);
}
