#ifndef LINKROUTER_NO_SOCKET_ACTIVATION_H
#define LINKROUTER_NO_SOCKET_ACTIVATION_H
/* libsystemd's two socket-activation calls, answered "no sockets" for a
 * statically linked libdbus client (no_socket_activation.c says why). */
int sd_listen_fds(int unset_environment);
int sd_is_socket(int fd, int family, int type, int listening);
#endif
