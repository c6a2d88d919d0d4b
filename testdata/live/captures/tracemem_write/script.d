/* tracemem() of a write(2) buffer: fixed and dynamic sizes */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option quiet

syscall::write:entry
/pid == $target/
{
	this->p = (char *)copyin(arg1, 24);
	tracemem(this->p, 24);
	tracemem(this->p, 24, 8);
	tracemem(this->p, 24, 0);
	tracemem(this->p, 24, 100);
	printf("--\n");
}
