/* print() cut by printsize, set by pragma and changed by setopt() */
#pragma D option quiet
#pragma D option printsize=16

struct big {
	long a;
	long b;
	long c;
	char tail[8];
};

BEGIN
{
	this->b = (struct big *)alloca(sizeof (struct big));
	this->b->a = 1;
	this->b->b = 2;
	this->b->c = 3;
	this->b->tail[0] = 'z';
	print(this->b);
	setopt("printsize", "32");
	print(this->b);
	setopt("printsize", "100000");
	print(this->b);
	exit(0);
}
