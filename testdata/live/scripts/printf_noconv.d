/* printf without conversions, %% and adjacent records without newlines */
#pragma D option quiet

BEGIN
{
	printf("one ");
	trace(2);
	printf(" three");
	printf("\n");
	printf("100%%\n");
	printf("no newline at the end");
	exit(0);
}
