/* names with "__" (listed as "-"), many arguments, three functions */
provider svc {
	probe request__start(uintptr_t, char *);
	probe request__done(uintptr_t, int);
	probe many(int, long, char *, unsigned int, short, char, long long,
	    unsigned long, int, int);
};
