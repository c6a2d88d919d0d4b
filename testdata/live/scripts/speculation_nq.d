/* speculations in non-quiet mode: commit one, discard another */
BEGIN
{
	self->a = speculation();
	self->b = speculation();
}

BEGIN
{
	speculate(self->a);
	printf("committed %d", 1);
}

BEGIN
{
	speculate(self->b);
	printf("discarded %d", 2);
}

BEGIN
{
	commit(self->a);
	discard(self->b);
}

BEGIN
{
	exit(0);
}
