/*
 * dtc_private.h - every internal header of the library at once (base.h,
 * decoders.h, agg.h, reader.h), for its unit tests and fuzz targets, which
 * reach into several layers.  No file of the library includes it (each
 * includes its own layer's header), and no program or binding does
 * (cmd/tests/layers.sh checks it): they have dtconsume.h.
 */
#ifndef DTC_PRIVATE_H
#define DTC_PRIVATE_H

#include "base.h"
#include "decoders.h"
#include "agg.h"
#include "reader.h"

#endif /* DTC_PRIVATE_H */
