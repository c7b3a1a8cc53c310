/* Counts heap allocations of the process it is preloaded into (LD_PRELOAD), for bench.py's allocation benchmark:
   every malloc, calloc, realloc, aligned allocation and free goes through here first and adds one to a counter.
   SIGUSR2 writes the counts to the file named by LINKRUNWAY_ALLOC_COUNT_FILE. The bench's own tool, never linked
   into LinkRunway. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ulong allocations;
static atomic_ulong frees;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void (*real_free)(void *);

/* dlsym may itself call calloc before the real one is known: a small static arena answers those calls. */
static char bootstrap[65536];
static size_t bootstrap_used;

static void *from_bootstrap(size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (bootstrap_used + size > sizeof bootstrap) return NULL;
    void *p = bootstrap + bootstrap_used;
    bootstrap_used += size;
    return p;
}

static int is_bootstrap(void *p) { return (char *)p >= bootstrap && (char *)p < bootstrap + sizeof bootstrap; }

static void report(int sig) {
    (void)sig;
    const char *path = getenv("LINKRUNWAY_ALLOC_COUNT_FILE");
    if (!path) return;
    char line[64];
    int n = snprintf(line, sizeof line, "%lu %lu\n", atomic_load(&allocations), atomic_load(&frees));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) < 0) { /* nothing to do */ }
        close(fd);
    }
}

static int initializing;

/* Looks the real functions up on the first allocation (libraries' constructors allocate before this one's runs);
   allocations dlsym makes meanwhile come from the arena. */
static void setup(void) {
    if (real_malloc || initializing) return;
    initializing = 1;
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_free = dlsym(RTLD_NEXT, "free");
    initializing = 0;
}

__attribute__((constructor)) static void install(void) {
    setup();
    signal(SIGUSR2, report);
}

void *malloc(size_t size) {
    setup();
    if (!real_malloc) return from_bootstrap(size);
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return real_malloc(size);
}

void *calloc(size_t count, size_t size) {
    setup();
    if (!real_calloc) {
        void *p = from_bootstrap(count * size);
        if (p) memset(p, 0, count * size);
        return p;
    }
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return real_calloc(count, size);
}

void *realloc(void *p, size_t size) {
    if (is_bootstrap(p)) {
        void *q = malloc(size);
        if (q) memcpy(q, p, size);
        return q;
    }
    setup();
    if (!real_realloc) return NULL;
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return real_realloc(p, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    setup();
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return real_posix_memalign(out, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    setup();
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return real_aligned_alloc(alignment, size);
}

void free(void *p) {
    if (!p || is_bootstrap(p)) return;
    setup();
    atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    real_free(p);
}
