/* print() of kernel types (CTF from the running kernel's BTF) */
#pragma D option quiet

BEGIN
{
	this->ts = (struct timespec64 *)alloca(sizeof (struct timespec64));
	this->ts->tv_sec = 1700000000;
	this->ts->tv_nsec = 123456789;
	print(this->ts);
	this->lh = (struct list_head *)alloca(sizeof (struct list_head));
	this->lh->next = (struct list_head *)0xffff888000001000;
	print(this->lh);
	exit(0);
}
