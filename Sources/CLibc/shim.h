#ifndef LINKROUTER_CLIBC_SHIM_H
#define LINKROUTER_CLIBC_SHIM_H
/* The C library for linkctl's front, which is built in Embedded Swift and so
   has no Glibc module: the few calls it makes (arguments, environment,
   writing, exec, its socket to the bus). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* errno is a macro Swift cannot import. */
static inline int lr_errno(void) { return errno; }
#endif
