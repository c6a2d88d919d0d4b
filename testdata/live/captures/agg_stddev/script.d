/* stddev() of large, negative and keyed values */
#pragma D option quiet

BEGIN
{
	@a = stddev(5000000000); @a = stddev(5000000100); @a = stddev(5000000900);
	@b = stddev(-10); @b = stddev(-20); @b = stddev(-60);
	@c[1] = stddev(1);
	@c[2] = stddev(2); @c[2] = stddev(4); @c[2] = stddev(4); @c[2] = stddev(4);
	@c[2] = stddev(5); @c[2] = stddev(5); @c[2] = stddev(7); @c[2] = stddev(9);
	exit(0);
}
