/* printf %s of literals, variables, built-ins and string functions */
#pragma D option quiet

BEGIN
{
	s = "a global string";
	self->t = "thread-local";
	this->c = "clause-local";
	printf("%s|%s|%s\n", s, self->t, this->c);
	printf("%s %s %s %s\n", probeprov, probemod, probefunc, probename);
	printf("%s\n", strjoin(strjoin("a", "b"), "c"));
	printf("%s %d\n", substr("dtconsume", 2), strlen("dtconsume"));
	printf("%s|\n", lltostr(-1234567890123LL));
	printf("[%s]\n", "");
	printf("%s%s%s\n", "x", "y", "z");
	exit(0);
}
