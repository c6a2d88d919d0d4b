/* trace() of a struct, a union and a char array: hex dumps (not quiet) */
struct s {
	int a;
	char b;
	int c;
};
union u {
	int i;
	char c[4];
};
struct s st;
union u un;

BEGIN
{
	st.a = 0x1234;
	st.b = 0;
	st.c = 0x9876;
	trace(st);
}

BEGIN
{
	un.i = 0x12345678;
	trace(un);
}

BEGIN
{
	trace(curthread->comm);
}

BEGIN
{
	exit(0);
}
