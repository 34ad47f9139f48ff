/* presets.h - the machine presets compiled into the binary.
 * The table itself is generated from the CSV files of data/configs at build time. */
#ifndef CM_PRESETS_H
#define CM_PRESETS_H

#include <stddef.h>

typedef struct cm_preset_blob {
    const char *name;
    const char *text;
    size_t len;
} cm_preset_blob;

extern const cm_preset_blob cm_presets_embedded[];
extern const size_t cm_presets_embedded_count;

#endif
