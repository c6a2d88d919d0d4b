/* tick-1ms counts for 1 second, per CPU (counts vary) */
#pragma D option quiet

tick-1ms
{
	@ticks = count();
}

profile-1ms
{
	@bycpu[cpu] = count();
}

tick-1s
{
	exit(0);
}
