/* negative weights: ordering by value, bars left of the axis */
#pragma D option quiet

BEGIN
{
	@s["neg"] = sum(-10); @s["pos"] = sum(10); @s["zero"] = sum(0);
	@q["a"] = quantize(8, -3); @q["a"] = quantize(2, 5);
	@q["b"] = quantize(1, -1);
	@l = lquantize(3, 0, 10, 1, -4); @l = lquantize(5, 0, 10, 1, 2);
	exit(0);
}
