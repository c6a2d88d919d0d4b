/* string keys: lengths, ordering, a histogram with a string key */
#pragma D option quiet

BEGIN
{
	@s["alpha"] = count(); @s["beta"] = count(); @s["beta"] = count();
	@s[""] = count();
	@s["a key that is rather longer than the usual column width"] = count();
	@s["Zeta"] = count();
	@h["histogram key"] = quantize(1); @h["histogram key"] = quantize(100);
	@h2["k2"] = lquantize(3, 0, 5);
	exit(0);
}
