/* @@cmd: @PROGDIR@/liveprog linger 1500 */
/* ustack(), usym(), umod(), uaddr() of the traced program at write(2), alive when dtrace prints: main -> alpha -> beta -> gamma_ */
#pragma D option quiet
#pragma D option switchrate=100ms

syscall::write:entry
/pid == $target/
{
	ustack(5);
	usym(uregs[R_PC]);
	umod(uregs[R_PC]);
	uaddr(uregs[R_PC]);
	printf("\n");
	@[ustack(3)] = count();
	printa(@);
}
