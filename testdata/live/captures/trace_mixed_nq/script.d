/* several records of mixed kinds in one clause, not quiet */
BEGIN
{
	trace(1);
	trace("two");
	trace((char)3);
	printf("four %d", 4);
	trace((uint64_t)5);
	printf("\n");
}

BEGIN
{
	printf("%s", "only printf");
}

BEGIN
{
}

BEGIN
{
	exit(0);
}
