#include <unistd.h>
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
	int n;

	(void)argv;
	XL_SAME(argc);
	n = work(argc);
	/* live_dof.sh lists the probes of a running process */
	if (argc > 1)
		pause();
	return n;
}
