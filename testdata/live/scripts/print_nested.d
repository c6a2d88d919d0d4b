/* print() of a D struct with nested structs, a union, arrays and enums */
#pragma D option quiet

enum color { RED = 1, GREEN = 2, BLUE = 4 };

struct inner {
	short s;
	unsigned char u8;
	enum color c;
};

struct outer {
	struct inner first;
	struct inner second;
	union {
		int i;
		char b[4];
	} un;
	int arr[3];
	char name[6];
	enum color nc;
	long neg;
	void *p;
	struct inner *ip;
};

BEGIN
{
	this->o = (struct outer *)alloca(sizeof (struct outer));
	this->o->first.s = -7;
	this->o->first.u8 = 200;
	this->o->first.c = GREEN;
	this->o->second.c = 3;
	this->o->un.i = 0x41424344;
	this->o->arr[1] = 42;
	this->o->name[0] = 'a';
	this->o->name[1] = 'b';
	this->o->name[2] = 'c';
	this->o->nc = BLUE;
	this->o->neg = -1234567890123;
	this->o->p = (void *)0x1000;
	print(this->o);
	exit(0);
}
