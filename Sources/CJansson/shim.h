#ifndef LINKROUTER_CJANSSON_SHIM_H
#define LINKROUTER_CJANSSON_SHIM_H
#include <jansson.h>

/* Jansson is loaded with dlopen on the first JSON parsed or written
   (JSONKit/LibJansson.swift): linkctl links JSONKit for one verb (credential
   kube), and a library linked would be loaded, its symbols bound, by every
   `linkctl open` of every click (~100 k instructions). Its functions are
   looked up once into this table; each shim calls one through the type
   jansson.h declares for it (LR_JSON), so a shim cannot disagree with the
   header. __typeof__ does not evaluate its operand: nothing here refers to a
   Jansson symbol, and nothing links the library. */
struct lr_json_functions {
    void *loadb, *dumpb, *delete_;
    void *null, *true_, *false_, *integer, *integer_value, *real, *real_value;
    void *stringn, *string_value, *string_length;
    void *array, *array_size, *array_get, *array_append_new;
    void *object, *object_size, *object_iter, *object_iter_next, *object_iter_key, *object_iter_key_len, *object_iter_value,
        *object_setn_new;
};

typedef const struct lr_json_functions *lr_json;

#define LR_JSON(f, field, name) ((__typeof__(&json_##name))(f)->field)

static inline json_t *lr_json_loadb(lr_json f, const char *buffer, size_t length, size_t flags, json_error_t *error) {
    return LR_JSON(f, loadb, loadb)(buffer, length, flags, error);
}
static inline size_t lr_json_dumpb(lr_json f, const json_t *json, char *buffer, size_t size, size_t flags) {
    return LR_JSON(f, dumpb, dumpb)(json, buffer, size, flags);
}
/* json_decref is an inline function of jansson.h that calls json_delete. */
static inline void lr_json_decref(lr_json f, json_t *json) {
    if (json && json->refcount != (size_t)-1 && JSON_INTERNAL_DECREF(json) == 0) LR_JSON(f, delete_, delete)(json);
}
/* json_typeof is a function-like macro, which Swift cannot import. */
static inline json_type lr_json_typeof(const json_t *json) { return json_typeof(json); }

static inline json_t *lr_json_null(lr_json f) { return LR_JSON(f, null, null)(); }
static inline json_t *lr_json_true(lr_json f) { return LR_JSON(f, true_, true)(); }
static inline json_t *lr_json_false(lr_json f) { return LR_JSON(f, false_, false)(); }
static inline json_t *lr_json_integer(lr_json f, json_int_t value) { return LR_JSON(f, integer, integer)(value); }
static inline json_int_t lr_json_integer_value(lr_json f, const json_t *json) { return LR_JSON(f, integer_value, integer_value)(json); }
static inline json_t *lr_json_real(lr_json f, double value) { return LR_JSON(f, real, real)(value); }
static inline double lr_json_real_value(lr_json f, const json_t *json) { return LR_JSON(f, real_value, real_value)(json); }
static inline json_t *lr_json_stringn(lr_json f, const char *value, size_t length) { return LR_JSON(f, stringn, stringn)(value, length); }
static inline const char *lr_json_string_value(lr_json f, const json_t *json) { return LR_JSON(f, string_value, string_value)(json); }
static inline size_t lr_json_string_length(lr_json f, const json_t *json) { return LR_JSON(f, string_length, string_length)(json); }
static inline json_t *lr_json_array(lr_json f) { return LR_JSON(f, array, array)(); }
static inline size_t lr_json_array_size(lr_json f, const json_t *json) { return LR_JSON(f, array_size, array_size)(json); }
static inline json_t *lr_json_array_get(lr_json f, const json_t *json, size_t index) { return LR_JSON(f, array_get, array_get)(json, index); }
static inline int lr_json_array_append_new(lr_json f, json_t *json, json_t *value) { return LR_JSON(f, array_append_new, array_append_new)(json, value); }
static inline json_t *lr_json_object(lr_json f) { return LR_JSON(f, object, object)(); }
static inline size_t lr_json_object_size(lr_json f, const json_t *json) { return LR_JSON(f, object_size, object_size)(json); }
static inline void *lr_json_object_iter(lr_json f, json_t *json) { return LR_JSON(f, object_iter, object_iter)(json); }
static inline void *lr_json_object_iter_next(lr_json f, json_t *json, void *iter) { return LR_JSON(f, object_iter_next, object_iter_next)(json, iter); }
static inline const char *lr_json_object_iter_key(lr_json f, void *iter) { return LR_JSON(f, object_iter_key, object_iter_key)(iter); }
static inline size_t lr_json_object_iter_key_len(lr_json f, void *iter) { return LR_JSON(f, object_iter_key_len, object_iter_key_len)(iter); }
static inline json_t *lr_json_object_iter_value(lr_json f, void *iter) { return LR_JSON(f, object_iter_value, object_iter_value)(iter); }
static inline int lr_json_object_setn_new(lr_json f, json_t *json, const char *key, size_t length, json_t *value) {
    return LR_JSON(f, object_setn_new, object_setn_new)(json, key, length, value);
}
#endif
