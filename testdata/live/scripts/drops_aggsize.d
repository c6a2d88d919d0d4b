/* aggregation drops: a tiny aggsize */
/* @@flags: -x aggsize=512 */
#pragma D option quiet

int i;

tick-1ms
/i < 200/
{
	@[i] = count();
	i++;
}

tick-1ms
/i >= 200/
{
	exit(0);
}
