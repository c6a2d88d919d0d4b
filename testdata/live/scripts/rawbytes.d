/* rawbytes: strings and integers traced as hex dumps */
#pragma D option rawbytes
#pragma D option strsize=8
#pragma D option quiet

BEGIN
{
	trace("abc");
	trace("abcdefghijk");
	trace(0x1234);
	printf("--\n");
	exit(0);
}
