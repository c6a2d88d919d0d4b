/* syscall counts of a command (counts vary between runs) */
/* @@cmd: /bin/cat /dev/null */
#pragma D option quiet

/*
 * Not syscall:::entry: with every syscall entry probe enabled, dtrace -c
 * did not notice the child's exit here and ran until SIGINT.
 */
syscall::openat:entry,
syscall::close:entry,
syscall::read:entry,
syscall::mmap:entry,
syscall::munmap:entry,
syscall::brk:entry,
syscall::newfstatat:entry,
syscall::exit_group:entry
/pid == $target/
{
	@[probefunc] = count();
}
