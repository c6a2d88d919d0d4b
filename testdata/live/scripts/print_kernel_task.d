/* print() of kernel structures: a struct file laid out by the script and
 * a member of the consumer's own task (print() of curthread->comm, an
 * array, does not compile in dtrace-utils) */
#pragma D option quiet

BEGIN
{
	this->f = (struct file *)alloca(sizeof (struct file));
	this->f->f_flags = 0x8002;
	this->f->f_mode = 0x1d;
	print(this->f);
	print(&curthread->pid);
	exit(0);
}
