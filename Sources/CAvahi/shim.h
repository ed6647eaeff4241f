/* Avahi's client library for DNS-SD: receivers announce themselves, senders browse.

   Opened when discovery is first used (dlopen), not linked: linked, libavahi-client brings libdbus,
   libsystemd, libgcrypt, liblzma, libzstd, liblz4, libgpg-error and libcap into every process, 1 MB
   resident in a `send --to HOST` or a `run` that never looks for anyone (bench stream: peak RSS).
   The headers give the types; the table below gives each function the type its header declares,
   and m3d_avahi() fills it once (as COpenSSL's shim does for OpenSSL). */
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/error.h>
#include <avahi-common/alternative.h>
#include <avahi-common/malloc.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

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

/* One pointer per function, typed from its declaration. */
struct m3d_avahi {
#define M3D_FIELD(name) __typeof__(name) *_Nonnull name;
    M3D_AVAHI_FUNCTIONS(M3D_FIELD)
#undef M3D_FIELD
};

struct m3d_avahi_state {
    pthread_once_t once;
    struct m3d_avahi table;
    int loaded;
    char error[256];
};

static inline struct m3d_avahi_state *m3d_avahi_state(void) {
    static struct m3d_avahi_state state = {PTHREAD_ONCE_INIT};
    return &state;
}

static inline void m3d_avahi_load(void) {
    struct m3d_avahi_state *s = m3d_avahi_state();
    /* The client library needs the common one and brings it; both stay open for the process's life. */
    void *client = dlopen(M3D_LIBAVAHI_CLIENT, RTLD_NOW | RTLD_LOCAL);
    void *common = client ? dlopen(M3D_LIBAVAHI_COMMON, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!client || !common) {
        snprintf(s->error, sizeof s->error, "%s", dlerror());
        return;
    }
#define M3D_LOOKUP(name) \
    { \
        void *found = dlsym(client, #name); \
        if (!found) found = dlsym(common, #name); \
        if (!found) { \
            snprintf(s->error, sizeof s->error, "%s has no %s", M3D_LIBAVAHI_CLIENT, #name); \
            return; \
        } \
        s->table.name = (__typeof__(name) *)found; \
    }
    M3D_AVAHI_FUNCTIONS(M3D_LOOKUP)
#undef M3D_LOOKUP
    s->loaded = 1;
}

/* The table, Avahi opened on the first call (from any thread, once); NULL if it could not be:
   m3d_avahi_error() says why. */
static inline const struct m3d_avahi *m3d_avahi(void) {
    struct m3d_avahi_state *s = m3d_avahi_state();
    pthread_once(&s->once, m3d_avahi_load);
    return s->loaded ? &s->table : NULL;
}

static inline const char *m3d_avahi_error(void) { return m3d_avahi_state()->error; }
