/* aggsortpos: sort a multi-aggregation printa by the Nth aggregation */
#pragma D option quiet

BEGIN
{
	@a[1] = sum(3); @a[2] = sum(2); @a[3] = sum(1);
	@b[1] = sum(1); @b[2] = sum(3); @b[3] = sum(2);
	printa("%d %@d %@d\n", @a, @b);
	setopt("aggsortpos", "1");
	printa("%d %@d %@d\n", @a, @b);
	setopt("aggsortrev");
	printa("%d %@d %@d\n", @a, @b);
	exit(0);
}
