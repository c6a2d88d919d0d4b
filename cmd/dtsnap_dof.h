/*
 * dtsnap_dof.h - `dtsnap dof` (dtsnap_dof.c), called by dtsnap.c's main.
 */
#ifndef DTSNAP_DOF_H
#define DTSNAP_DOF_H

#include "cli.h"

/* argv[0] is "dof"; returns the exit status */
int dtsnap_dof_main(cli *c, int argc, char **argv);

#endif
