#ifndef LINKROUTER_CCURL_SHIM_H
#define LINKROUTER_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt, curl_multi_setopt, curl_share_setopt and curl_easy_getinfo
   are variadic, which Swift cannot call. Each shim below passes exactly one
   argument type, the one libcurl's va_arg reads for that kind of option. */

/* CURLOPTTYPE_LONG options: switches, timeouts, VERIFYHOST, SSLVERSION. */
static inline CURLcode lr_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

/* CURLOPTTYPE_OFF_T options (MAXFILESIZE_LARGE, POSTFIELDSIZE_LARGE): curl_off_t, not long. */
static inline CURLcode lr_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

/* CURLOPTTYPE_STRINGPOINT options: libcurl copies the string; NULL restores the default. */
static inline CURLcode lr_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

/* CURLOPTTYPE_OBJECTPOINT/SLISTPOINT/CBPOINT options: the share and URL handles, header lists,
   callback data, the error buffer, COPYPOSTFIELDS; they must outlive the transfer unless copied. */
static inline CURLcode lr_curl_easy_setopt_pointer(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}

/* WRITEFUNCTION and HEADERFUNCTION: a function pointer is not a data pointer in C's varargs. */
static inline CURLcode lr_curl_easy_setopt_write_callback(CURL *easy, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(easy, option, value);
}

/* CURLINFO_LONG values (RESPONSE_CODE): the out-parameter must be a long *. */
static inline CURLcode lr_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

/* CURLMOPT_SOCKETDATA and TIMERDATA: the context handed back to the callbacks. */
static inline CURLMcode lr_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

/* CURLMOPT_SOCKETFUNCTION: NULL detaches it before cleanup. */
static inline CURLMcode lr_curl_multi_setopt_socket_callback(CURLM *multi, curl_socket_callback value) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, value);
}

/* CURLMOPT_TIMERFUNCTION: NULL detaches it before cleanup. */
static inline CURLMcode lr_curl_multi_setopt_timer_callback(CURLM *multi, curl_multi_timer_callback value) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, value);
}

/* CURLSHOPT_SHARE reads an int-sized curl_lock_data, not a long. */
static inline CURLSHcode lr_curl_share_setopt_lock_data(CURLSH *share, CURLSHoption option, curl_lock_data value) {
    return curl_share_setopt(share, option, value);
}

/* CURL_GLOBAL_DEFAULT is a macro of macros joined by |, which Swift does not import. */
static inline CURLcode lr_curl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

#endif
