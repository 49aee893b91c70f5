#ifndef LINKROUTER_CCURL_SHIM_H
#define LINKROUTER_CCURL_SHIM_H
#include <curl/curl.h>

/* libcurl is loaded with dlopen by the first HTTPClient (HTTPKit/LibCurl.swift):
   it pulls in some thirty libraries (libssl, nghttp2, libssh2, LDAP, Kerberos,
   libidn2...) that a daemon making no request never needs. Its functions are
   looked up once into this table; each shim below calls one through the type
   curl.h declares for it (LR_CURL), so a shim cannot disagree with the header.
   __typeof__ does not evaluate its operand: nothing here refers to a libcurl
   symbol, and nothing links the library. */
struct lr_curl_functions {
    void *global_init, *version, *free;
    void *easy_init, *easy_cleanup, *easy_setopt, *easy_getinfo, *easy_strerror;
    void *multi_init, *multi_cleanup, *multi_add_handle, *multi_remove_handle, *multi_setopt, *multi_socket_action,
        *multi_info_read, *multi_strerror;
    void *share_init, *share_cleanup, *share_setopt;
    void *slist_append, *slist_free_all;
    void *url, *url_cleanup, *url_set, *url_get;
};

/* The function curl_<name> from the table f, with its declared type. */
#define LR_CURL(f, name) ((__typeof__(&curl_##name))(f)->name)

typedef const struct lr_curl_functions *lr_curl;

/* CURL_GLOBAL_DEFAULT is a macro of macros joined by |, which Swift does not import. */
static inline CURLcode lr_curl_global_init(lr_curl f) { return LR_CURL(f, global_init)(CURL_GLOBAL_DEFAULT); }
static inline const char *lr_curl_version(lr_curl f) { return LR_CURL(f, version)(); }
static inline void lr_curl_free(lr_curl f, void *p) { LR_CURL(f, free)(p); }

static inline CURL *lr_curl_easy_init(lr_curl f) { return LR_CURL(f, easy_init)(); }
static inline void lr_curl_easy_cleanup(lr_curl f, CURL *easy) { LR_CURL(f, easy_cleanup)(easy); }
static inline const char *lr_curl_easy_strerror(lr_curl f, CURLcode code) { return LR_CURL(f, easy_strerror)(code); }

/* curl_easy_setopt, curl_multi_setopt, curl_share_setopt and curl_easy_getinfo
   are variadic, which Swift cannot call. Each shim below passes exactly one
   argument type, the one libcurl's va_arg reads for that kind of option. */

/* CURLOPTTYPE_LONG options: switches, timeouts, VERIFYHOST, SSLVERSION. */
static inline CURLcode lr_curl_easy_setopt_long(lr_curl f, CURL *easy, CURLoption option, long value) {
    return LR_CURL(f, easy_setopt)(easy, option, value);
}

/* CURLOPTTYPE_OFF_T options (MAXFILESIZE_LARGE, POSTFIELDSIZE_LARGE): curl_off_t, not long. */
static inline CURLcode lr_curl_easy_setopt_off_t(lr_curl f, CURL *easy, CURLoption option, curl_off_t value) {
    return LR_CURL(f, easy_setopt)(easy, option, value);
}

/* CURLOPTTYPE_STRINGPOINT options: libcurl copies the string; NULL restores the default. */
static inline CURLcode lr_curl_easy_setopt_string(lr_curl f, CURL *easy, CURLoption option, const char *value) {
    return LR_CURL(f, easy_setopt)(easy, option, value);
}

/* CURLOPTTYPE_OBJECTPOINT/SLISTPOINT/CBPOINT options: the share and URL handles, header lists,
   callback data, the error buffer, COPYPOSTFIELDS; they must outlive the transfer unless copied. */
static inline CURLcode lr_curl_easy_setopt_pointer(lr_curl f, CURL *easy, CURLoption option, const void *value) {
    return LR_CURL(f, easy_setopt)(easy, option, value);
}

/* WRITEFUNCTION and HEADERFUNCTION: a function pointer is not a data pointer in C's varargs. */
static inline CURLcode lr_curl_easy_setopt_write_callback(lr_curl f, CURL *easy, CURLoption option, curl_write_callback value) {
    return LR_CURL(f, easy_setopt)(easy, option, value);
}

/* CURLINFO_LONG values (RESPONSE_CODE): the out-parameter must be a long *. */
static inline CURLcode lr_curl_easy_getinfo_long(lr_curl f, CURL *easy, CURLINFO info, long *value) {
    return LR_CURL(f, easy_getinfo)(easy, info, value);
}

static inline CURLM *lr_curl_multi_init(lr_curl f) { return LR_CURL(f, multi_init)(); }
static inline CURLMcode lr_curl_multi_cleanup(lr_curl f, CURLM *multi) { return LR_CURL(f, multi_cleanup)(multi); }
static inline CURLMcode lr_curl_multi_add_handle(lr_curl f, CURLM *multi, CURL *easy) { return LR_CURL(f, multi_add_handle)(multi, easy); }
static inline CURLMcode lr_curl_multi_remove_handle(lr_curl f, CURLM *multi, CURL *easy) { return LR_CURL(f, multi_remove_handle)(multi, easy); }
static inline CURLMcode lr_curl_multi_socket_action(lr_curl f, CURLM *multi, curl_socket_t fd, int events, int *running) {
    return LR_CURL(f, multi_socket_action)(multi, fd, events, running);
}
static inline CURLMsg *lr_curl_multi_info_read(lr_curl f, CURLM *multi, int *left) { return LR_CURL(f, multi_info_read)(multi, left); }
static inline const char *lr_curl_multi_strerror(lr_curl f, CURLMcode code) { return LR_CURL(f, multi_strerror)(code); }

/* CURLMOPT_SOCKETDATA and TIMERDATA: the context handed back to the callbacks. */
static inline CURLMcode lr_curl_multi_setopt_pointer(lr_curl f, CURLM *multi, CURLMoption option, void *value) {
    return LR_CURL(f, multi_setopt)(multi, option, value);
}

/* CURLMOPT_SOCKETFUNCTION: NULL detaches it before cleanup. */
static inline CURLMcode lr_curl_multi_setopt_socket_callback(lr_curl f, CURLM *multi, curl_socket_callback value) {
    return LR_CURL(f, multi_setopt)(multi, CURLMOPT_SOCKETFUNCTION, value);
}

/* CURLMOPT_TIMERFUNCTION: NULL detaches it before cleanup. */
static inline CURLMcode lr_curl_multi_setopt_timer_callback(lr_curl f, CURLM *multi, curl_multi_timer_callback value) {
    return LR_CURL(f, multi_setopt)(multi, CURLMOPT_TIMERFUNCTION, value);
}

static inline CURLSH *lr_curl_share_init(lr_curl f) { return LR_CURL(f, share_init)(); }
static inline CURLSHcode lr_curl_share_cleanup(lr_curl f, CURLSH *share) { return LR_CURL(f, share_cleanup)(share); }

/* CURLSHOPT_SHARE reads an int-sized curl_lock_data, not a long. */
static inline CURLSHcode lr_curl_share_setopt_lock_data(lr_curl f, CURLSH *share, CURLSHoption option, curl_lock_data value) {
    return LR_CURL(f, share_setopt)(share, option, value);
}

static inline struct curl_slist *lr_curl_slist_append(lr_curl f, struct curl_slist *list, const char *line) {
    return LR_CURL(f, slist_append)(list, line);
}
static inline void lr_curl_slist_free_all(lr_curl f, struct curl_slist *list) { LR_CURL(f, slist_free_all)(list); }

static inline CURLU *lr_curl_url(lr_curl f) { return LR_CURL(f, url)(); }
static inline void lr_curl_url_cleanup(lr_curl f, CURLU *url) { LR_CURL(f, url_cleanup)(url); }
static inline CURLUcode lr_curl_url_set(lr_curl f, CURLU *url, CURLUPart part, const char *text, unsigned int flags) {
    return LR_CURL(f, url_set)(url, part, text, flags);
}
static inline CURLUcode lr_curl_url_get(lr_curl f, CURLU *url, CURLUPart part, char **text, unsigned int flags) {
    return LR_CURL(f, url_get)(url, part, text, flags);
}

#endif
