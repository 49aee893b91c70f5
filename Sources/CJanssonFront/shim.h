#ifndef LINKROUTER_CJANSSONFRONT_SHIM_H
#define LINKROUTER_CJANSSONFRONT_SHIM_H
/* Jansson for linkctl's front, which links Debian's static libjansson
   (libjansson-dev) and so calls it directly: the front starts without
   loading a shared library, and pays for Jansson only when it reads JSON
   (kubectl's KUBERNETES_EXEC_INFO). The full linkctl loads it with dlopen
   (CJansson/shim.h says why). */
#include <jansson.h>

/* json_typeof is a function-like macro, which Swift cannot import. */
static inline json_type lr_front_json_typeof(const json_t *json) { return json_typeof(json); }
#endif
