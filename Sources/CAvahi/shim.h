/* Avahi's client library for DNS-SD: receivers announce themselves, senders browse.

   Opened when discovery is first used (dlopen), not linked: linked, libavahi-client brings libdbus,
   libsystemd, libgcrypt, liblzma, libzstd, liblz4, libgpg-error and libcap into every process, 1 MB
   resident in a `send --to HOST` or a `run` that never looks for anyone (bench stream: peak RSS).
   The headers give the types; M3D_OPENED_LIBRARY (CLinux/opened_library.h) declares the table and
   m3d_avahi(), which opens the libraries on first use. */
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/error.h>
#include <avahi-common/alternative.h>
#include <avahi-common/malloc.h>
#include "../CLinux/opened_library.h"

/* The library file names opened (scripts/build-deb.sh adds their packages to Depends). */
#define M3D_LIBAVAHI_CLIENT "libavahi-client.so.3"
#define M3D_LIBAVAHI_COMMON "libavahi-common.so.3"

#define M3D_AVAHI_FUNCTIONS(F) \
    F(avahi_alternative_service_name) F(avahi_client_errno) F(avahi_client_free) F(avahi_client_new) \
    F(avahi_entry_group_add_service_strlst) F(avahi_entry_group_commit) F(avahi_entry_group_get_client) \
    F(avahi_entry_group_is_empty) F(avahi_entry_group_new) F(avahi_entry_group_reset) F(avahi_free) \
    F(avahi_service_browser_free) F(avahi_service_browser_get_client) F(avahi_service_browser_new) \
    F(avahi_service_resolver_free) F(avahi_service_resolver_new) F(avahi_strerror) F(avahi_string_list_add) \
    F(avahi_string_list_free) F(avahi_string_list_get_next) F(avahi_string_list_get_size) \
    F(avahi_string_list_get_text) F(avahi_threaded_poll_free) F(avahi_threaded_poll_get) \
    F(avahi_threaded_poll_lock) F(avahi_threaded_poll_new) F(avahi_threaded_poll_start) \
    F(avahi_threaded_poll_stop) F(avahi_threaded_poll_unlock)

M3D_OPENED_LIBRARY(avahi, M3D_AVAHI_FUNCTIONS, M3D_LIBAVAHI_CLIENT, M3D_LIBAVAHI_COMMON)
