/* pid provider: entry/return of the traced program's functions, ustack */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option quiet

pid$target::beta:entry
{
	printf("beta(%d, %d)\n", arg0, arg1);
	ustack();
}

pid$target::gamma_:return
{
	printf("gamma_ returned\n");
}

pid$target::main:entry
{
	printf("main argc=%d\n", arg0);
}
