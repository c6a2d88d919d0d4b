/* emitter.h: placeholder, replaced below */
#include "dtconsume.h"
