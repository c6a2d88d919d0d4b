/* printa() without a format, then the same aggregation not re-printed */
#pragma D option quiet

BEGIN
{
	@c["a"] = count(); @c["b"] = count(); @c["b"] = count();
	@q = quantize(5);
	@u = sum(1);
	printa(@c);
	printa(@q);
	printf("after printa\n");
	exit(0);
}
