/* printf %p and %a of kernel addresses, %p of plain numbers */
#pragma D option quiet

BEGIN
{
	printf("%p %p %p\n", (void *)0, (void *)97, (void *)0xffffffff81000000);
	printf("%a\n", (uint64_t)&`_text);
	printf("%a %a\n", (uint64_t)&`vfs_read, (uint64_t)&`vfs_read + 4);
	printf("[%20p] [%-20p]\n", (void *)0x1234, (void *)0x1234);
	exit(0);
}
