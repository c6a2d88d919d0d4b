/* printf floating conversions of zero doubles and floats (D cannot compute floats) */
#pragma D option quiet

double d;
float f;

BEGIN
{
	printf("[%e] [%E] [%f] [%g] [%G]\n", d, d, d, d, d);
	printf("[%e] [%E] [%f] [%g] [%G]\n", f, f, f, f, f);
	printf("[%5.2f] [%-10.3e] [%+f] [%010.1f] [%.0e]\n", d, d, d, d, d);
	printf("[%#g] [% g] [%12G]\n", d, d, d);
	exit(0);
}
