/* cohmod.h - the public API of libcohmod, for programs that embed the
 * models: `#include <cohmod/cohmod.h>` and build with
 * `pkg-config --cflags --libs cohmod` (examples/embed.c).
 *
 *  - data/err.h       errors as values: every call returns a cm_status
 *                     and fills a cm_err with one line saying what failed
 *  - data/params.h    the parameter registry (data/params.def): defaults,
 *                     presets (tc2013, li2014), --set-style assignment
 *  - data/table.h     CSV tables on libcsv, the one number format
 *  - models/mshr.h    L1 MSHR occupancy as a closed queueing network
 *  - models/reuse.h   reuse (LRU stack) distances, exact and sampled
 *  - models/mrc.h     miss-ratio curves and set-associative models from
 *                     reuse distances
 *  - models/reuse_stream.h  reuse histograms of a trace file
 * `make install` copies these and the headers they include under
 * PREFIX/include/cohmod/, their includes rewritten to <cohmod/...>, so an
 * installed program never needs the source tree.  The rest of the library
 * (the simulator, the coherence models) is linked but not yet a public
 * interface. */
#ifndef COHMOD_H
#define COHMOD_H

#include "data/err.h"
#include "data/params.h"
#include "data/table.h"
#include "models/mrc.h"
#include "models/mshr.h"
#include "models/reuse.h"
#include "models/reuse_stream.h"

#endif
