/* Functions from a shared library opened when first needed (dlopen) rather than linked: linked, a
   library and those it brings cost every process their relocations and tables at load, whether it
   is used or not. COpenSSL's, CUdev's and CQRencode's shims declare theirs with M3D_OPENED_LIBRARY.

   The functions are static inline, so each object file that calls m3d_PREFIX() has its own table
   and its own once: each library is reached from one Swift file (OpenSSLLibrary.swift, Udev.swift,
   QRCode.swift) or after it, which keeps it to one dlopen and one table per process. */
#ifndef M3D_OPENED_LIBRARY_H
#define M3D_OPENED_LIBRARY_H
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct m3d_opened_library {
    int loaded;
    char error[256];
};

/* Opens `libraries` (at most 4; each stays open for the process's life) and fills `slot` with the
   `count` functions named by `names`, each from the first library that has it. On failure `state`
   says why (the loader's message, or the function missing) and stays not loaded. */
static inline void m3d_open_library(struct m3d_opened_library *state, const char *const *libraries,
                                    unsigned long library_count, const char *const *names, void **slot,
                                    unsigned long count) {
    void *handles[4];
    if (library_count > 4) library_count = 4;
    for (unsigned long i = 0; i < library_count; i++) {
        handles[i] = dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            snprintf(state->error, sizeof state->error, "%s", dlerror());
            return;
        }
    }
    for (unsigned long f = 0; f < count; f++) {
        void *found = NULL;
        for (unsigned long i = 0; i < library_count && !found; i++) found = dlsym(handles[i], names[f]);
        if (!found) {
            snprintf(state->error, sizeof state->error, "%s has no %s", libraries[0], names[f]);
            return;
        }
        slot[f] = found;
    }
    state->loaded = 1;
}

#define M3D_OPENED_FIELD(name) __typeof__(name) *_Nonnull name;
#define M3D_OPENED_NAME(name) #name,

/* Declares `struct m3d_PREFIX`, one pointer per function that FUNCTIONS(F) lists (each typed from
   its header's declaration, so no prototype is written by hand); `m3d_PREFIX()`, the table with the
   libraries (the remaining arguments, file names) opened on the first call, once from any thread,
   or NULL if they could not be; and `m3d_PREFIX_error()`, why not. */
#define M3D_OPENED_LIBRARY(prefix, FUNCTIONS, ...) \
    struct m3d_##prefix { FUNCTIONS(M3D_OPENED_FIELD) }; \
    union m3d_##prefix##_slots { \
        struct m3d_##prefix functions; \
        void *slot[sizeof(struct m3d_##prefix) / sizeof(void *)]; \
    }; \
    static inline struct m3d_opened_library *m3d_##prefix##_state(void) { \
        static struct m3d_opened_library state; \
        return &state; \
    } \
    static inline union m3d_##prefix##_slots *m3d_##prefix##_slots(void) { \
        static union m3d_##prefix##_slots slots; \
        return &slots; \
    } \
    static inline void m3d_##prefix##_load(void) { \
        static const char *const libraries[] = {__VA_ARGS__}; \
        static const char *const names[] = {FUNCTIONS(M3D_OPENED_NAME)}; \
        m3d_open_library(m3d_##prefix##_state(), libraries, sizeof libraries / sizeof *libraries, names, \
                         m3d_##prefix##_slots()->slot, sizeof names / sizeof *names); \
    } \
    static inline const struct m3d_##prefix *m3d_##prefix(void) { \
        static pthread_once_t once = PTHREAD_ONCE_INIT; \
        pthread_once(&once, m3d_##prefix##_load); \
        return m3d_##prefix##_state()->loaded ? &m3d_##prefix##_slots()->functions : NULL; \
    } \
    static inline const char *m3d_##prefix##_error(void) { return m3d_##prefix##_state()->error; }

#endif
