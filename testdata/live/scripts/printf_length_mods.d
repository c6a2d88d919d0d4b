/* printf length modifiers: %hd %ld %lld %hu %lu %llu %hx %lx %llX %ho (v2 has no %hh) */
#pragma D option quiet

BEGIN
{
	this->v = 0x1234567890abcdefLL;
	printf("%hd %d %ld %lld\n", (short)this->v, (int)this->v,
	    (long)this->v, (long long)this->v);
	printf("%hu %u %lu %llu\n", (ushort_t)this->v, (uint_t)this->v,
	    (ulong_t)this->v, (u_longlong_t)this->v);
	printf("%hx %x %lx %llx\n", (short)this->v, (int)this->v, (long)this->v,
	    (long long)this->v);
	printf("%ho %lo %llX %lX\n", (ushort_t)this->v, (ulong_t)this->v,
	    (u_longlong_t)this->v, (ulong_t)this->v);
	printf("%hd %ld %lld\n", (short)-1, (long)-1, (long long)-1);
	printf("%hi %li %lli\n", (short)-7, (long)-7, (long long)-7);
	exit(0);
}
