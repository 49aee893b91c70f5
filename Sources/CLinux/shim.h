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
#endif
