/* flowindent is ignored in quiet mode output */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option flowindent
#pragma D option quiet

syscall::write:entry,
syscall::write:return
/pid == $target/
{
	printf("%s:%s\n", probefunc, probename);
}
