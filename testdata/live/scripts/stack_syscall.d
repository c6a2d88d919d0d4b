/* stack() of a kernel stack at a syscall of the traced program */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option quiet

syscall::write:entry
/pid == $target && n++ == 0/
{
	stack();
	stack(3);
	printf("end of stacks\n");
}
