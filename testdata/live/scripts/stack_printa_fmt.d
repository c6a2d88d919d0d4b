/* kernel stacks as keys, printed with %k, %-20k and default */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option quiet

syscall::write:entry,
syscall::openat:entry
/pid == $target/
{
	@[stack(4)] = count();
	@p[probefunc, stack(2)] = count();
}

END
{
	printa("%k %@d\n", @);
	printa("%s %-20k|%@d\n", @p);
}
