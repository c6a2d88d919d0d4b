/* drops: a tiny principal buffer and a slow switchrate (drop counts vary) */
/* @@flags: -x bufsize=4k -x switchrate=1s */
/* @@cmd: @PROGDIR@/liveprog spin 300 */
#pragma D option quiet

profile-4999
{
	printf("%s %d %d %d %d\n", "padding padding padding padding", cpu,
	    timestamp, walltimestamp, pid);
}

tick-1ms
{
	printf("%d\n", timestamp);
}
