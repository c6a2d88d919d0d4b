/* translated arguments: reordered, dropped, and typed anew */
provider xl {
	probe swap(int a, char *b) : (char *b, int a);
	probe pick(long x, long y, long z) : (long z);
	probe same(short s);
};
