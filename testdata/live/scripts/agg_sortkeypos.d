/* aggsortkeypos: sort by the second key part */
#pragma D option quiet
#pragma D option aggsortkey
#pragma D option aggsortkeypos=1

BEGIN
{
	@[1, "c"] = sum(1); @[2, "a"] = sum(2); @[3, "b"] = sum(3);
	@[0, "b"] = sum(4);
	printa("%d %s %@d\n", @);
	setopt("aggsortrev");
	printa("%d %s %@d\n", @);
	exit(0);
}
