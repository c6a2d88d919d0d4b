/* cli.c */
#include "cli.h"
