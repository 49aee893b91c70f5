#ifndef LINKROUTER_CMICROHTTPD_SHIM_H
#define LINKROUTER_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <dlfcn.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* libmicrohttpd is loaded with dlopen on the first loopback session (it pulls
   in gnutls and eight more libraries a daemon without one never needs), so
   each call goes through the function pointer dlsym returned. Swift cannot
   call variadic functions or cast to them; these shims do, one per function. */

static inline struct MHD_Daemon *lr_mhd_start(void *fn, unsigned int flags, MHD_AccessHandlerCallback handler,
                                              void *handler_context, const struct MHD_OptionItem *options) {
    typedef struct MHD_Daemon *(*start_t)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *, MHD_AccessHandlerCallback, void *, ...);
    return ((start_t)fn)(flags, 0, NULL, NULL, handler, handler_context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static inline int lr_mhd_epoll_fd(void *fn, struct MHD_Daemon *daemon) {
    typedef const union MHD_DaemonInfo *(*info_t)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    const union MHD_DaemonInfo *info = ((info_t)fn)(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

static inline enum MHD_Result lr_mhd_run(void *fn, struct MHD_Daemon *daemon) {
    return ((enum MHD_Result (*)(struct MHD_Daemon *))fn)(daemon);
}

static inline enum MHD_Result lr_mhd_get_timeout(void *fn, struct MHD_Daemon *daemon, MHD_UNSIGNED_LONG_LONG *timeout) {
    return ((enum MHD_Result (*)(struct MHD_Daemon *, MHD_UNSIGNED_LONG_LONG *))fn)(daemon, timeout);
}

static inline void lr_mhd_stop(void *fn, struct MHD_Daemon *daemon) {
    ((void (*)(struct MHD_Daemon *))fn)(daemon);
}

static inline const char *lr_mhd_header(void *fn, struct MHD_Connection *connection, const char *key) {
    return ((const char *(*)(struct MHD_Connection *, enum MHD_ValueKind, const char *))fn)(connection, MHD_HEADER_KIND, key);
}

static inline struct MHD_Response *lr_mhd_response(void *fn, size_t size, void *buffer) {
    return ((struct MHD_Response *(*)(size_t, void *, enum MHD_ResponseMemoryMode))fn)(size, buffer, MHD_RESPMEM_MUST_COPY);
}

static inline enum MHD_Result lr_mhd_add_header(void *fn, struct MHD_Response *response, const char *key, const char *value) {
    return ((enum MHD_Result (*)(struct MHD_Response *, const char *, const char *))fn)(response, key, value);
}

static inline enum MHD_Result lr_mhd_queue(void *fn, struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    return ((enum MHD_Result (*)(struct MHD_Connection *, unsigned int, struct MHD_Response *))fn)(connection, status, response);
}

static inline void lr_mhd_destroy_response(void *fn, struct MHD_Response *response) {
    ((void (*)(struct MHD_Response *))fn)(response);
}
/* The client's TCP port (host order), or -1; its address (4 or 16 bytes, network order) into `address`, its
   family (4 or 6) into `family`: the listener looks the connection's owner up by them. */
static inline int lr_mhd_client(void *fn, struct MHD_Connection *connection, unsigned char address[16], int *family) {
    typedef const union MHD_ConnectionInfo *(*info_t)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    const union MHD_ConnectionInfo *info = ((info_t)fn)(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return -1;
    if (info->client_addr->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)info->client_addr;
        memcpy(address, &a->sin_addr, 4);
        *family = 4;
        return ntohs(a->sin_port);
    }
    if (info->client_addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)info->client_addr;
        memcpy(address, &a->sin6_addr, 16);
        *family = 6;
        return ntohs(a->sin6_port);
    }
    return -1;
}
#endif
