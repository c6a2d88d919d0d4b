/* printa() with formats: key and value conversions, widths, text around */
#pragma D option quiet

BEGIN
{
	@c["a", 1] = count(); @c["b", 2] = count(); @c["b", 2] = count();
	@s[10] = sum(-5); @s[20] = sum(5);
	@q = quantize(3);
	printa("%s %d -> %@d\n", @c);
	printa("[%-5s|%3d|%@8u]\n", @c);
	printa("key %d value %@d\n", @s);
	printa("%@x %@o\n", @s);
	printa("no conversions\n", @s);
	printa("hist:%@d|\n", @q);
	printa("%10d %@-10d|\n", @s);
	exit(0);
}
