/* printf %Y and %T of fixed times (TZ of the recorder and the decoder: UTC) */
#pragma D option quiet

inline uint64_t NANOSEC = 1000000000;

BEGIN
{
	printf("%Y\n", (uint64_t)0);
	printf("%Y\n", (uint64_t)1062609821 * NANOSEC);
	printf("%T\n", (uint64_t)1062609821 * NANOSEC);
	printf("%Y|%T\n", (uint64_t)0x7fffffff * NANOSEC, (uint64_t)86399 * NANOSEC);
	exit(0);
}
