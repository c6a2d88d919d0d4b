/* several speculations committed in reverse order */
#pragma D option quiet
#pragma D option nspec=4

BEGIN
{
	i = speculation(); j = speculation(); k = speculation();
}

BEGIN { speculate(i); printf("i\n"); }
BEGIN { speculate(j); printf("j\n"); }
BEGIN { speculate(k); printf("k\n"); }

BEGIN
{
	commit(k);
	commit(j);
	discard(i);
}

BEGIN
{
	printf("done\n");
	exit(0);
}
