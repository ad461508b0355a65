/* Built-in simulator presets, embedded from presets/NAME.spec at build time. */
#ifndef MT_PRESETS_H
#define MT_PRESETS_H

typedef struct {
    const char *name; /* file name without .spec, e.g. "h100" */
    const char *text; /* the spec file's text */
} mt_preset;

extern const mt_preset mt_presets[]; /* terminated by {NULL, NULL} */

#endif
