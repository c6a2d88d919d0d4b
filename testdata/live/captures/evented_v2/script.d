/* @@cmd: @PROGDIR@/liveprog */
/* entry/return pairs with trace(timestamp): speedscope's evented profile from a DTrace v2 capture (dtconsume -f speedscope) */
#pragma D option quiet

syscall::write:entry,
syscall::write:return,
syscall::close:entry,
syscall::close:return
/pid == $target/
{
	trace(timestamp);
}
