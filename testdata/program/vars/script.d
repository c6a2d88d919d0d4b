/*
 * The program item (issue 23): one clause of each kind of variable
 * access dtrace -S comments on, a second clause under the same probe
 * description, strings, an aggregation, associative arrays and a
 * macro argument; recorded with -n and -x options as well.
 */
#pragma D option quiet

int g;
self int t;

BEGIN
{
	g = 1;
	self->t = 2;
	this->l = 3;
	a["k"] = 4;
	self->b[1] = 5;
	@c[probename] = count();
	printf("%d %d %d %d %d %s %s\n", g, self->t, this->l, a["k"],
	    self->b[1], "str", $$1);
}

BEGIN
/g == 1/
{
	trace(timestamp);
	exit(0);
}
