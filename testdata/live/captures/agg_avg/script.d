/* avg(): rounding toward zero, negative means, keyed */
#pragma D option quiet

BEGIN
{
	@a = avg(1); @a = avg(2);
	@n = avg(-1); @n = avg(-2);
	@k["x"] = avg(10); @k["x"] = avg(21);
	@k["y"] = avg(-100); @k["y"] = avg(50);
	@big = avg(9223372036854775807); @big = avg(1);
	exit(0);
}
