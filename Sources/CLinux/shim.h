#define _GNU_SOURCE 1
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <netdb.h>
#include <unistd.h>
#include <fcntl.h>
#include <spawn.h>
