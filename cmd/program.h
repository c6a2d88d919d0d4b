/*
 * program.h - dtsnap program (program.c): the program behind a capture.
 */
#ifndef DTC_CMD_PROGRAM_H
#define DTC_CMD_PROGRAM_H

#include "cli.h"

extern const char program_usage[];
/* argv[0] is "program" */
int program_main(cli *c, int argc, char **argv);

#endif
