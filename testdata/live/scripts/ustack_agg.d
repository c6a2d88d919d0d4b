/* ustack() as an aggregation key, printed with %k and by default */
/* @@cmd: @PROGDIR@/liveprog spin 500 */
#pragma D option quiet

profile-997
/pid == $target/
{
	@[ustack(5)] = count();
	@fn[ufunc(uregs[R_PC])] = count();
}

END
{
	trunc(@, 3);
	printa("%k%@d\n", @);
}
