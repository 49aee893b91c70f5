#ifndef LINKROUTER_CJANSSON_SHIM_H
#define LINKROUTER_CJANSSON_SHIM_H
#include <jansson.h>

/* json_typeof is a function-like macro, which Swift cannot import; this
   reads a value's type without Swift touching json_t's fields. */
static inline json_type lr_json_typeof(const json_t *json) {
    return json_typeof(json);
}
#endif
