/* two providers, an is-enabled probe */
provider alpha {
	probe start(int, char *);
	probe done();
};
provider beta {
	probe go(long, long, long);
};
