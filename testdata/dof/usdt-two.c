#include <unistd.h>
#include "usdt-two.h"
int
main(int argc, char **argv)
{
	if (ALPHA_START_ENABLED())
		ALPHA_START(argc, argv[0]);
	ALPHA_DONE();
	BETA_GO(1, 2, 3);
	/* live_dof.sh lists the probes of a running process */
	if (argc > 1)
		pause();
	return 0;
}
