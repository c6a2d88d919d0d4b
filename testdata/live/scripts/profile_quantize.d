/* profile-997 for 1 second: pids and a quantize of timestamps deltas */
#pragma D option quiet

uint64_t last[int];

profile-997
/last[cpu]/
{
	@d = quantize(timestamp - last[cpu]);
}

profile-997
{
	last[cpu] = timestamp;
	@c = count();
}

tick-1s
{
	exit(0);
}
