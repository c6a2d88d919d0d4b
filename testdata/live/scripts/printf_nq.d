/* printf in non-quiet mode: output follows the probe column */
BEGIN
{
	printf("hello world %d", 1);
}

BEGIN
{
	printf("%d\n", 3);
}

BEGIN
{
	printf("%s %s\n", "two", "strings");
	trace(5);
}

BEGIN
{
	exit(0);
}
