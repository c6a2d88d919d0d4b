/*
 * v2.c - DTrace v2 (DTrace for Linux, dtrace-utils) captures: statement,
 * aggregation and snapshot items turned into the tables and buffers the
 * rest of the library decodes (see dtsnap(5), DTRACE V2 ITEMS).
 */
#include "config.h"

#include "dtc_private.h"
