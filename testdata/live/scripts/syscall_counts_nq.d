/* syscall entry/return of a command, not quiet, with return values */
/* @@cmd: @PROGDIR@/liveprog */

syscall::write:return,
syscall::getpid:return
/pid == $target/
{
	trace(arg1);
}
