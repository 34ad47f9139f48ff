/* proto_rows.h - shorthand for writing the L1 protocol tables, for the
 * proto_*.c files only (generic names, kept out of protocol.h).
 *
 * ROW(state, event, next, message, actions), with the CM_L1S_, CM_L1E_ and
 * CM_MSG_ prefixes dropped, and the two action sets every table uses. */
#ifndef CM_PROTO_ROWS_H
#define CM_PROTO_ROWS_H

#include "sim/protocol.h"

#define ROW(s, e, n, m, a)                                                     \
    {                                                                          \
        CM_L1S_##s, CM_L1E_##e, CM_L1S_##n, CM_MSG_##m, (a)                    \
    }
#define MISS (CM_ACT_ALLOCATE | CM_ACT_MSHR | CM_ACT_SEND) /* fetch a line */
#define THRU (CM_ACT_MSHR | CM_ACT_SEND) /* through to L2, no allocation */

#endif
