/* ustack() of the traced program (alive when dtrace prints) at write(2): main -> alpha -> beta -> gamma_ */
/* @@cmd: @PROGDIR@/liveprog linger 1500 */
#pragma D option quiet
#pragma D option switchrate=100ms

syscall::write:entry
/pid == $target/
{
	ustack();
	ustack(2);
	printf("--\n");
}
