#ifndef LINKROUTER_CSECRET_SHIM_H
#define LINKROUTER_CSECRET_SHIM_H
#include <stdint.h>
#include <dlfcn.h>

/* libsecret (and with it GLib) is loaded with dlopen on the first keyring
   call: a daemon that never keeps a token never maps it. So no header of
   theirs is needed to build: these are the few types the calls use, as
   GLib's and libsecret's ABI has fixed them, and one shim per function,
   called through the pointer dlsym returned. */

/* GError (glib/gerror.h): stable since GLib 2.0. */
typedef struct lr_gerror {
    uint32_t domain;
    int code;
    char *message;
} lr_gerror;

/* GHashTable *g_hash_table_new_full (GHashFunc, GEqualFunc, GDestroyNotify, GDestroyNotify) */
static inline void *lr_hash_new(void *fn, void *hash, void *equal, void *free_key, void *free_value) {
    typedef void *(*f)(void *, void *, void *, void *);
    return ((f)fn)(hash, equal, free_key, free_value);
}

/* gboolean g_hash_table_insert (GHashTable *, gpointer key, gpointer value) */
static inline int lr_hash_insert(void *fn, void *table, void *key, void *value) {
    return ((int (*)(void *, void *, void *))fn)(table, key, value);
}

/* One-argument calls: g_hash_table_unref, g_object_unref, g_free, g_error_free,
   g_cancellable_cancel, secret_schema_unref, secret_password_free. */
static inline void lr_call1(void *fn, void *arg) { ((void (*)(void *))fn)(arg); }

/* gchar *g_strdup (const gchar *) */
static inline void *lr_strdup(void *fn, const char *s) { return ((void *(*)(const char *))fn)(s); }

/* void secret_service_disconnect (void) */
static inline void lr_call0(void *fn) { ((void (*)(void))fn)(); }

/* GCancellable *g_cancellable_new (void) */
static inline void *lr_new0(void *fn) { return ((void *(*)(void))fn)(); }

/* const gchar *g_quark_to_string (GQuark) */
static inline const char *lr_quark_to_string(void *fn, uint32_t quark) { return ((const char *(*)(uint32_t))fn)(quark); }

/* SecretSchema *secret_schema_newv (const gchar *name, SecretSchemaFlags, GHashTable *names_and_types) */
static inline void *lr_schema_newv(void *fn, const char *name, int flags, void *types) {
    return ((void *(*)(const char *, int, void *))fn)(name, flags, types);
}

/* gboolean secret_password_storev_sync (const SecretSchema *, GHashTable *attributes, const gchar *collection,
   const gchar *label, const gchar *password, GCancellable *, GError **) */
static inline int lr_storev(void *fn, void *schema, void *attributes, const char *collection, const char *label,
                            const char *password, void *cancellable, lr_gerror **error) {
    typedef int (*f)(void *, void *, const char *, const char *, const char *, void *, lr_gerror **);
    return ((f)fn)(schema, attributes, collection, label, password, cancellable, error);
}

/* gchar *secret_password_lookupv_sync (const SecretSchema *, GHashTable *, GCancellable *, GError **) */
static inline char *lr_lookupv(void *fn, void *schema, void *attributes, void *cancellable, lr_gerror **error) {
    return ((char *(*)(void *, void *, void *, lr_gerror **))fn)(schema, attributes, cancellable, error);
}

/* gboolean secret_password_clearv_sync (const SecretSchema *, GHashTable *, GCancellable *, GError **) */
static inline int lr_clearv(void *fn, void *schema, void *attributes, void *cancellable, lr_gerror **error) {
    return ((int (*)(void *, void *, void *, lr_gerror **))fn)(schema, attributes, cancellable, error);
}
#endif
