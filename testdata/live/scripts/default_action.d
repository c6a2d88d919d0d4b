/* the default action of empty clauses (not quiet), BEGIN/END */
BEGIN
{
}

BEGIN
{
}

tick-10ms
/n++ == 1/
{
	exit(0);
}

END
{
}
