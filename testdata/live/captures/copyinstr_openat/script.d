/* copyinstr() of openat(2) paths of the traced program */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option quiet

syscall::openat:entry
/pid == $target/
{
	printf("openat %s\n", copyinstr(arg1));
	trace(copyinstr(arg1, 5));
	printf("|\n");
}
