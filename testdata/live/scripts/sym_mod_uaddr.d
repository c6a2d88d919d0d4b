/* sym mod func usym umod uaddr ufunc of profile pcs of the traced program */
/* @@cmd: @PROGDIR@/liveprog spin 400 */
#pragma D option quiet

profile-997
/pid == $target && arg1 != 0/
{
	@u[usym(arg1)] = count();
	@um[umod(arg1)] = count();
	@uf[ufunc(arg1)] = count();
	@ua[uaddr(arg1)] = count();
}

profile-997
/arg0 != 0/
{
	@k[sym(arg0)] = count();
	@km[mod(arg0)] = count();
	@kf[func(arg0)] = count();
}

END
{
	trunc(@u, 5); trunc(@ua, 3); trunc(@k, 5); trunc(@kf, 5);
	printa(@u);
	printa(@um);
	printa(@uf);
	printa("kmod %a %@d\n", @km);
	printf("done (printa(\"%%A\") of usym keys is rejected by dtrace at run time)\n");
}
