#include <stdint.h>
#include <unistd.h>
#include "usdt-names.h"
static int
handle(uintptr_t id, char *what)
{
	SVC_REQUEST_START(id, what);
	SVC_REQUEST_DONE(id, 0);
	return 0;
}
static void
busy(int n)
{
	SVC_MANY(n, 2L, "x", 4U, 5, 'c', 7LL, 8UL, 9, 10);
	if (SVC_MANY_ENABLED())
		SVC_REQUEST_DONE(0, n);
}
int
main(int argc, char **argv)
{
	busy(argc);
	handle(1, argv[0]);
	/* live_dof.sh lists the probes of a running process */
	if (argc > 1)
		pause();
	return 0;
}
