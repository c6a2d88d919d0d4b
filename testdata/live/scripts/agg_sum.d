/* sum() of positive and negative values, keyed and unkeyed */
#pragma D option quiet

BEGIN
{
	@s = sum(100);
	@s = sum(-30);
	@k[1] = sum(5);
	@k[2] = sum(-5);
	@k[3] = sum(9223372036854775807);
	@k[1] = sum(10);
	@neg = sum(-1);
	exit(0);
}
