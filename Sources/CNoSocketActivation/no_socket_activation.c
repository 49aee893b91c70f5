/* linkctl's front links Debian's libdbus statically (libdbus-1.a from
 * libdbus-1-dev), so that it starts without loading libdbus-1.so and, behind
 * it, libsystemd, libgcrypt, liblzma, libzstd, liblz4 and libcap: 1.3 M of the
 * 1.6 M instructions a `dbus-send` spends are that loading (bench/notes.md).
 * The archive's sysdeps object refers to two of libsystemd's calls, for the
 * listening sockets systemd hands a socket-activated bus server
 * (`_dbus_listen_systemd_sockets`, dbus-daemon's). A client never listens:
 * these say what they would say to any process systemd did not start with
 * sockets, "none". */
#include "no_socket_activation.h"

int sd_listen_fds(int unset_environment) {
    (void)unset_environment;
    return 0;
}

int sd_is_socket(int fd, int family, int type, int listening) {
    (void)fd;
    (void)family;
    (void)type;
    (void)listening;
    return 0;
}
