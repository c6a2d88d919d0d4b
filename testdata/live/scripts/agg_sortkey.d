/* aggsortkey: sort by key, not value */
/* @@flags: -x aggsortkey */
#pragma D option quiet

BEGIN
{
	@[5] = sum(1); @[3] = sum(9); @[4] = sum(4); @[1] = sum(2); @[2] = sum(2);
	@s["b"] = sum(1); @s["c"] = sum(3); @s["a"] = sum(2);
	exit(0);
}
