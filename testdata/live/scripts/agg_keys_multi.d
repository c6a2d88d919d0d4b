/* keys of 1, 2 and 3 parts, mixed int and string, default print */
#pragma D option quiet

BEGIN
{
	@one[3] = sum(30); @one[1] = sum(10); @one[2] = sum(20);
	@two[1, "b"] = count(); @two[1, "a"] = count(); @two[2, "a"] = count();
	@two[1, "a"] = count();
	@three["x", 2, -3] = sum(1); @three["x", 1, 4] = sum(1);
	@three["w", 9, 9] = sum(2);
	@chr[(char)65] = count(); @chr[(char)-1] = count();
	@sh[(short)-2] = count(); @sh[(short)7] = count();
	@ll[(long long)-9223372036854775807 - 1] = count();
	@ll[(long long)9223372036854775807] = count();
	exit(0);
}
