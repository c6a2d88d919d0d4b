/* printa() of the same aggregations several times */
#pragma D option quiet

BEGIN
{
	@a = sum(10); @b = stddev(10); @b = stddev(30);
	@c = count(); @d = avg(10); @e = quantize(10);
}

END
{
	printa(@a); printa(@b); printa(@c); printa(@d); printa(@e);
	printa(@a); printa(@b); printa(@c); printa(@d); printa(@e);
}

BEGIN
{
	exit(0);
}
