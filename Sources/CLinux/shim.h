#ifndef LINKROUTER_CLINUX_SHIM_H
#define LINKROUTER_CLINUX_SHIM_H
/* Linux interfaces the Glibc module leaves out: signalfd, timerfd, inotify, prctl, malloc_trim. */
#include <spawn.h>
#include <signal.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/random.h>

/* POSIX_SPAWN_SETSID is defined only under _GNU_SOURCE, which the Glibc
   module is not built with; this is its glibc value (glibc >= 2.26). */
enum { LR_POSIX_SPAWN_SETSID = 0x80 };

/* Likewise declared only under _GNU_SOURCE; all are in glibc >= 2.29. */
extern int mkostemp(char *template_name, int flags);
extern int pipe2(int pipefd[2], int flags);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

/* prctl is variadic, which Swift cannot call: the one use linkrouter has. */
static inline int lr_set_dumpable(int on) { return prctl(PR_SET_DUMPABLE, (unsigned long)on, 0UL, 0UL, 0UL); }
/* The peer of a UNIX socket as the kernel recorded it at connect (SO_PEERCRED; struct ucred is declared only
   under _GNU_SOURCE, so its layout is spelled here: pid_t, uid_t, gid_t). */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
static inline int lr_peer_credentials(int fd, int *pid, unsigned *uid, unsigned *gid) {
    struct { int pid; unsigned uid; unsigned gid; } c;
    socklen_t length = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &length) != 0 || length != sizeof c) return -1;
    *pid = c.pid; *uid = c.uid; *gid = c.gid;
    return 0;
}

/* pidfd_open (Linux 5.3; syscall 434 on every architecture): glibc 2.36 has no wrapper Swift can call, as
   syscall() is variadic. -1 with errno (ENOSYS on an older kernel). */
/* accept4 is declared only under _GNU_SOURCE: a connection taken non-blocking and close-on-exec at once. */
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int lr_accept_nonblocking(int fd) { return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC); }

static inline int lr_pidfd_open(int pid) { return (int)syscall(434, pid, 0); }
#endif
