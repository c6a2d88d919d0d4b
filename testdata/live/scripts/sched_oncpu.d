/* sched:::on-cpu / off-cpu of the traced program (counts vary) */
/* @@cmd: @PROGDIR@/liveprog spin 200 */
#pragma D option quiet

sched:::on-cpu
/pid == $target/
{
	@on[execname] = count();
}

sched:::off-cpu
/pid == $target/
{
	@off[execname] = count();
}

END
{
	printf("%s\n", "sched done");
}
