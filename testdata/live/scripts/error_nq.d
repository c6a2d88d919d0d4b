/* runtime errors in non-quiet mode: bad address and copyinstr(0) */
BEGIN
{
	trace(*(long *)8);
}

BEGIN
{
	trace(copyinstr(0));
}

BEGIN
{
	exit(0);
}
