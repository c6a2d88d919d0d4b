/* flowindent with syscall entry/return probes of the traced program */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option flowindent

syscall::write:entry,
syscall::write:return,
syscall::close:entry,
syscall::close:return
/pid == $target/
{
}
