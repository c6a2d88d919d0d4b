/* profile-997 kernel and user stacks for 1 second (counts vary) */
#pragma D option quiet

profile-997
{
	@k[stack()] = count();
	@u[ustack(4)] = count();
}

tick-1s
{
	trunc(@k, 10);
	trunc(@u, 10);
	exit(0);
}
