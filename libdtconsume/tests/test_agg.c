#include <check.h>
#include <stdlib.h>
int main(void) { return 77; }
