/* aggsortrev: reverse value order; with aggsortkey: reverse key order */
#pragma D option quiet
#pragma D option aggsortrev

BEGIN
{
	@a[5] = sum(1); @a[3] = sum(9); @a[4] = sum(4); @a[1] = sum(2);
	printa(@a);
	setopt("aggsortkey");
	printa(@a);
	exit(0);
}
