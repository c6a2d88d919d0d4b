/* aggregations in non-quiet mode: aggregating clauses print no probe line */
BEGIN
{
	@a = count();
}

BEGIN
{
	@b["key"] = sum(5);
	trace("traced");
}

BEGIN
{
	exit(0);
}
