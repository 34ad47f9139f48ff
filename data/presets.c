/* presets.c - lookup of the embedded machine presets (see params.h). */
#include <string.h>

#include "data/params.h"
#include "data/presets.h"

size_t cm_preset_count(void) { return cm_presets_embedded_count; }

const char *cm_preset_name(size_t i)
{
    return i < cm_presets_embedded_count ? cm_presets_embedded[i].name : NULL;
}

const char *cm_preset_text(const char *name, size_t *len)
{
    for (size_t i = 0; name && i < cm_presets_embedded_count; i++) {
        if (strcmp(cm_presets_embedded[i].name, name) == 0) {
            if (len) *len = cm_presets_embedded[i].len;
            return cm_presets_embedded[i].text;
        }
    }
    return NULL;
}
