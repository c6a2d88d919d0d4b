/* not written yet */
#include "emitter.h"
