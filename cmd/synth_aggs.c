/* synth_aggs.c: not written yet */
#include "synth_private.h"
