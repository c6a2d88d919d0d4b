/* synth_private.h: not written yet */
#include "synth.h"
