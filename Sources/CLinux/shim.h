#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <netdb.h>
#include <unistd.h>
#include <fcntl.h>
#include <spawn.h>
#include <linux/uhid.h>
#include <linux/input.h>
#include <sys/stat.h>
#include <sys/inotify.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <arpa/inet.h>
/* getifaddrs(3) and the interface flags, for the addresses a phone can open the page at. */
#include <ifaddrs.h>
#include <net/if.h>
/* TCP_DEFER_ACCEPT, for the phone page's listener. */
#include <netinet/tcp.h>
/* GNU extensions, declared here rather than through _GNU_SOURCE, which would change struct layouts
   that other modules (libevdev, libudev, swift-system) see without it. */
int ppoll (struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);
int pipe2 (int pipefd[2], int flags);
#include <sys/socket.h>
int accept4 (int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
/* setns(2), for the VM tests that put a socket in another network namespace. */
int setns (int fd, int nstype);
#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif
/* recvmmsg(2) and sendmmsg(2): many datagrams in one call. struct mmsghdr and the calls are GNU
   extensions; declared under names of our own (sendmmsg's symbol is glibc's; recvmmsg is made
   through syscall(2), below) so they cannot clash with a module that sees glibc's. */
struct mouse3d_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
/* MSG_WAITFORONE (GNU): return once one datagram is in, even on a blocking socket. */
#define MOUSE3D_MSG_WAITFORONE 0x10000
struct timespec;
/* sendmmsg(2): many datagrams, each to its own address, in one call. */
int mouse3d_sendmmsg (int sockfd, struct mouse3d_mmsghdr *msgvec, unsigned int vlen, int flags) __asm__("sendmmsg");
/* The calls a receiver makes at every wake-up, made straight through syscall(2). glibc's wrappers
   of these cancellation points mark the thread cancellable and back around each call in a process
   with threads (a receiver has its store's writer): two atomic operations a call, six a wake-up,
   1.5 % of a receiver at 64 senders (perf). mouse3d cancels no thread. Each returns -1 and sets
   errno on failure, as the wrapper does. */
#include <sys/syscall.h>
static inline int mouse3d_recvmmsg_direct(int sockfd, struct mouse3d_mmsghdr *msgvec, unsigned int vlen, int flags) {
    return (int) syscall(SYS_recvmmsg, sockfd, msgvec, vlen, flags, (struct timespec *) 0);
}
static inline int mouse3d_epoll_pwait2_direct(int epfd, struct epoll_event *events, int maxevents,
                                              const struct timespec *timeout) {
    /* No signal mask: the size is not looked at (the kernel checks it only with a mask). */
    return (int) syscall(SYS_epoll_pwait2, epfd, events, maxevents, timeout, (const sigset_t *) 0, (unsigned long) 8);
}
static inline long mouse3d_write_direct(int fd, const void *buffer, unsigned long count) {
    return syscall(SYS_write, fd, buffer, count);
}

/* prctl(2) is variadic, which Swift cannot call: the two timer-slack requests. */
#include <sys/prctl.h>
static inline int mouse3d_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0UL, 0UL, 0UL);
}
static inline long mouse3d_timer_slack(void) { return (long) prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL); }
/* The calling thread's id (gettid(2), which glibc declares only under _GNU_SOURCE), and its name
   as /proc and `top -H` show it (PR_SET_NAME: at most 15 bytes). */
static inline int mouse3d_thread_id(void) { return (int) syscall(SYS_gettid); }
static inline int mouse3d_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long) name, 0UL, 0UL, 0UL);
}
/* Swaps two paths atomically (renameat2(2) with RENAME_EXCHANGE, 1 << 1 in <linux/fs.h>; glibc
   declares renameat2 only under _GNU_SOURCE). EINVAL where the file system cannot. */
static inline int mouse3d_exchange_paths(const char *first, const char *second) {
    return (int) syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, 1U << 1);
}
