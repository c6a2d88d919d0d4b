/* synth.c */
#include "synth.h"
