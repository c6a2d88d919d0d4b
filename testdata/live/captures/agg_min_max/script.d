/* min() and max() of mixed-sign values */
#pragma D option quiet

BEGIN
{
	@mn = min(5); @mn = min(-7); @mn = min(3);
	@mx = max(-5); @mx = max(-7); @mx = max(-3);
	@kmin["a"] = min(10); @kmin["a"] = min(2); @kmin["b"] = min(-2);
	@kmax["a"] = max(10); @kmax["a"] = max(2); @kmax["b"] = max(-2);
	exit(0);
}
