/* every aggregating function, unkeyed, printed at exit in id order */
#pragma D option quiet

BEGIN
{
	@a = count(); @a = count();
	@b = sum(12);
	@c = min(-4);
	@d = max(44);
	@e = avg(7);
	@f = stddev(3); @f = stddev(5);
	@g = quantize(17);
	@h = lquantize(17, 0, 50, 10);
	@i = llquantize(17, 10, 0, 2, 5);
	exit(0);
}
