#include "usdt-xlate.h"
static int
work(int n)
{
	XL_SWAP(n, "x");
	if (XL_PICK_ENABLED())
		XL_PICK(1, 2, n);
	XL_SAME(7);
	return n;
}
int
main(int argc, char **argv)
{
	(void)argv;
	XL_SAME(argc);
	return work(argc);
}
