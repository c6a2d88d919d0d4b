/* tracemem() in non-quiet mode */
/* @@cmd: @PROGDIR@/liveprog */

syscall::write:entry
/pid == $target && n++ == 0/
{
	tracemem(copyin(arg1, 16), 16);
}
