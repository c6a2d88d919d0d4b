/* synth_records.c: not written yet */
#include "synth_private.h"
