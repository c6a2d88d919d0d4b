/* printa() of several aggregations joined by key, missing entries print 0 */
#pragma D option quiet

BEGIN
{
	@a[1] = count(); @a[2] = count(); @a[2] = count();
	@b[2] = sum(20); @b[3] = sum(30);
	@c[1] = max(7); @c[3] = max(9);
	@d[1] = quantize(1);
	printa("%d: %@d %@d %@d\n", @a, @b, @c);
	printa("%d: %@d %@d\n", @c, @a);
	printa(@a, @b);
	printa("%d %@d\n%@d\n", @a, @d);
	exit(0);
}
