/* speculation(), speculate(), commit(): committed output appears */
#pragma D option quiet

BEGIN
{
	self->spec = speculation();
	printf("Speculation ID: %d\n", self->spec);
}

BEGIN
{
	speculate(self->spec);
	printf("speculative line %d\n", 1);
	trace("speculative trace\n");
}

BEGIN
{
	commit(self->spec);
}

BEGIN
{
	printf("after commit\n");
	exit(0);
}
