/* escape sequences in formats and strings */
#pragma D option quiet

BEGIN
{
	printf("tab\tend\n");
	printf("backslash \\ quote \" apostrophe '\n");
	printf("octal \101\102\103 hex \x41\n");
	printf("%s\n", "string with \"quotes\" and \\");
	printf("bell-less \a|\n");
	exit(0);
}
