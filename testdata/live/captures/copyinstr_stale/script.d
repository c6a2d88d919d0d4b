/* copyinstr() into a reused buffer: a path shorter than the one before it
 * leaves that one's tail after its NUL (recorded with
 * -c '/bin/cat /etc/os-release /etc/hostname /etc/passwd /etc/hosts
 * /etc/ld.so.cache'): JSON, CBOR and Python give the text up to the NUL */
#pragma D option quiet

syscall::openat:entry
/pid == $target/
{
	trace(copyinstr(arg1));
	printf("|%s|\n", copyinstr(arg1));
}
