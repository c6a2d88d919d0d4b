/* -c of a command that exits with a status; dtrace ends when it exits */
/* @@cmd: @PROGDIR@/liveprog exit 5 */
#pragma D option quiet

proc:::exit
/pid == $target/
{
	printf("exit reason %d\n", args[0]);
}

END
{
	printf("end\n");
}
