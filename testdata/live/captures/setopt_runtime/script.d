/* setopt() at run time: a good option and bad ones (errors on stderr) */
#pragma D option quiet

BEGIN
{
	@[1] = sum(1); @[2] = sum(2); @[3] = sum(3);
	printa("%d %@d\n", @);
	setopt("aggsortrev");
	printa("%d %@d\n", @);
	setopt("NoSuchOption");
	setopt("quiet", "um, no");
	setopt("bufsize", "1m");
	exit(0);
}
