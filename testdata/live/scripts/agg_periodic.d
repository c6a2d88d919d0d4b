/* periodic printa() and clear() of tick counts (values vary between runs) */
#pragma D option quiet
#pragma D option aggrate=10ms
#pragma D option switchrate=10ms

tick-1ms
{
	@ticks = count();
	@bycpu[cpu] = count();
}

tick-100ms
/n++ < 4/
{
	printa("ticks %@d\n", @ticks);
	clear(@ticks);
}

tick-100ms
/n >= 4/
{
	exit(0);
}
