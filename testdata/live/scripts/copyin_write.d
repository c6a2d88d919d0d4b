/* copyin() of write(2) data printed with %s (not NUL-terminated) and stringof */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option quiet

syscall::write:entry
/pid == $target/
{
	printf("[%s]\n", stringof(copyin(arg1, arg2 - 1)));
	printf("fd=%d len=%d\n", arg0, arg2);
	@[execname, copyinstr(arg1, 9)] = count();
}
