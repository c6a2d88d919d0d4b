/* trace() of strings, quiet: empty, long, % signs, tabs and newlines */
#pragma D option quiet

BEGIN
{
	trace("hello"); trace("\n");
	trace(""); trace("|\n");
	trace("100% literal %d %s not a format\n");
	trace("tab\there\n");
	trace("two\nlines\n");
	trace(probeprov); trace(":"); trace(probename); trace("\n");
	trace(strjoin("abc", "def")); trace("\n");
	trace(substr("abcdefghij", 3, 4)); trace("\n");
	trace(execname); trace("\n");
	exit(0);
}
