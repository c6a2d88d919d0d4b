/* print() of a pointer to a script-defined struct */
#pragma D option quiet

struct point {
	int x;
	int y;
	char name[8];
	long z;
};

BEGIN
{
	this->p = (struct point *)alloca(sizeof (struct point));
	this->p->x = 3;
	this->p->y = -4;
	this->p->name[0] = 'p';
	this->p->name[1] = 't';
	this->p->z = 123456789012;
	print(this->p);
	printf("\n");
	exit(0);
}
