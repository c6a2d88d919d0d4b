/* printa() formats consuming only some key parts, char and string keys */
#pragma D option quiet

BEGIN
{
	@[1, 2, 3, 4, 5] = count();
	@c['x'] = sum(1); @c['a'] = sum(1);
	printa(@);
	printa("\n", @);
	printa("%d\n", @);
	printa("%d %d %d %d %d\n", @);
	printa("%d %d %d %d %d %@d\n", @);
	printa("%c\n", @c);
	exit(0);
}
