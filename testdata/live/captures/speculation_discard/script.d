/* speculation discarded: speculative output never appears */
#pragma D option quiet

BEGIN
{
	self->spec = speculation();
}

BEGIN
{
	speculate(self->spec);
	printf("never printed\n");
}

BEGIN
{
	discard(self->spec);
	printf("discarded\n");
	exit(0);
}
