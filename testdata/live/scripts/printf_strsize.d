/* strings truncated by a small strsize */
/* @@flags: -x strsize=8 */
#pragma D option quiet

BEGIN
{
	printf("[%s]\n", "0123456789abcdef");
	trace("abcdefghijklmnop"); printf("\n");
	printf("[%s] [%s]\n", strjoin("abcd", "efghij"), "short");
	exit(0);
}
