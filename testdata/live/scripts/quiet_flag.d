/* -q on the command line instead of a pragma */
/* @@flags: -q */

BEGIN
{
	trace("quiet by -q");
	printf("\n");
	@ = count();
	exit(0);
}
