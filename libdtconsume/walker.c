/* walker.c: not written yet */
#include "dtc_private.h"
