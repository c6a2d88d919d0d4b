/* syscall counts of a command (counts vary between runs) */
/* @@cmd: /bin/cat /dev/null */
#pragma D option quiet

syscall:::entry
/pid == $target/
{
	@[probefunc] = count();
}

/*
 * dtrace -c alone did not end here when every syscall entry probe was
 * enabled (the child's exit went unnoticed until SIGINT), so end on its exit.
 */
proc:::exit
/pid == $target/
{
	exit(0);
}
