/*
 * liveprog - the user program the live scripts trace (via @@cmd:).
 * Built by cmd/tests/live.sh with cc -O0 -fno-omit-frame-pointer so that
 * ustack() walks real frames through named functions.
 *
 *   liveprog            open /dev/null, write a known line 3 times through
 *                       alpha() -> beta() -> gamma(), call getpid(), exit 0
 *   liveprog spin MS    burn CPU in alpha() -> beta() -> spin() for MS ms
 *   liveprog exit N     as the default, then exit with status N
 *   liveprog linger MS  as the default, then sleep MS ms before exiting (so
 *                       that dtrace can still read its maps when it prints)
 *
 * It never writes to stdout: dtrace -c shares its stdout with the child,
 * and the suites compare dtrace's stdout byte for byte.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char line[] = "liveprog: hello, dtrace\n";
static volatile unsigned long sink;

__attribute__((noinline)) static void
gamma_(int fd, int i)
{
	char buf[64];

	memcpy(buf, line, sizeof(line));
	buf[10] = (char)('0' + i);
	(void)write(fd, buf, sizeof(line) - 1);
}

__attribute__((noinline)) static void
beta(int fd, int i)
{
	gamma_(fd, i);
}

__attribute__((noinline)) static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void
spin(double until)
{
	while (now_ms() < until) {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
	}
}

__attribute__((noinline)) static void
alpha(int fd, int i, double until)
{
	if (until > 0)
		spin(until);
	else
		beta(fd, i);
}

int
main(int argc, char **argv)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return 2;
	if (argc == 3 && strcmp(argv[1], "spin") == 0) {
		alpha(fd, 0, now_ms() + atoi(argv[2]));
		return 0;
	}
	for (int i = 0; i < 3; i++)
		alpha(fd, i, 0);
	(void)getpid();
	close(fd);
	if (argc == 3 && strcmp(argv[1], "linger") == 0)
		usleep(atoi(argv[2]) * 1000);
	if (argc == 3 && strcmp(argv[1], "exit") == 0)
		return atoi(argv[2]);
	return 0;
}
