/* proc provider: exec-success and exit of the traced command */
/* @@cmd: /bin/true */
#pragma D option quiet

proc:::exec-success
/pid == $target/
{
	printf("exec %s\n", execname);
}

proc:::exit
/pid == $target/
{
	printf("exit %s %d\n", execname, args[0]);
}
