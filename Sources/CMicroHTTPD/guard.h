#ifndef LINKRUNWAY_CMICROHTTPD_GUARD_H
#define LINKRUNWAY_CMICROHTTPD_GUARD_H

/* Slow and greedy clients. libmicrohttpd's connection timeout counts idle time only, so a client that sends a header
   line every few seconds holds its connection for ever. The guard tracks every connection from the moment it opens
   and, from a thread of its own, shuts down (shutdown(2), after which libmicrohttpd closes the connection as usual):
   - a connection whose request headers are not complete within the header deadline of its opening or of its last
     response (so an idle keep-alive connection also goes after that long);
   - a connection sending its body more slowly than the minimum rate, after a grace period;
   - the oldest connections still sending headers or bodies, while there are more of them than the cap. */

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

enum lr_phase { LR_FREE = 0, LR_HEADERS = 1, LR_BODY = 2, LR_HANDLED = 3 };

struct lr_conn {
    int phase;
    int fd;
    int64_t since_ms;       /* when the current phase began */
    int64_t opened_ms;
    uint64_t body_bytes;
};

struct lr_guard {
    pthread_mutex_t lock;
    pthread_t sweeper;
    int running;
    struct lr_conn *slots;
    unsigned int capacity;
    unsigned int header_deadline_ms;
    unsigned int body_grace_ms;
    unsigned int min_body_bytes_per_second;
    unsigned int max_pending;   /* connections in the header or body phase at once */
    uint64_t shed;              /* connections shut down so far */
};

static inline int64_t lr_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static inline void lr_guard_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                                       enum MHD_ConnectionNotificationCode code) {
    struct lr_guard *guard = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        pthread_mutex_lock(&guard->lock);
        *socket_context = NULL;
        for (unsigned int i = 0; i < guard->capacity; i++) {
            if (guard->slots[i].phase != LR_FREE) continue;
            int64_t now = lr_now_ms();
            guard->slots[i] = (struct lr_conn){ LR_HEADERS, info ? info->connect_fd : -1, now, now, 0 };
            *socket_context = &guard->slots[i];
            break;
        }
        pthread_mutex_unlock(&guard->lock);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        pthread_mutex_lock(&guard->lock);
        ((struct lr_conn *)*socket_context)->phase = LR_FREE;
        pthread_mutex_unlock(&guard->lock);
        *socket_context = NULL;
    }
}

/* The request's headers are complete (phase LR_BODY), its body is complete and it is being answered (LR_HANDLED), or
   its response went out and the connection waits for the next request (LR_HEADERS). */
static inline void lr_guard_phase(struct lr_guard *guard, struct MHD_Connection *connection, int phase) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (!guard || !info || !info->socket_context) return;
    pthread_mutex_lock(&guard->lock);
    struct lr_conn *slot = info->socket_context;
    if (slot->phase != LR_FREE) {
        slot->phase = phase;
        slot->since_ms = lr_now_ms();
        slot->body_bytes = 0;
    }
    pthread_mutex_unlock(&guard->lock);
}

static inline void lr_guard_body(struct lr_guard *guard, struct MHD_Connection *connection, size_t bytes) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (!guard || !info || !info->socket_context) return;
    pthread_mutex_lock(&guard->lock);
    ((struct lr_conn *)info->socket_context)->body_bytes += bytes;
    pthread_mutex_unlock(&guard->lock);
}

static inline void lr_guard_shed(struct lr_guard *guard, struct lr_conn *slot) {
    if (slot->fd >= 0) shutdown(slot->fd, SHUT_RDWR);
    slot->phase = LR_HANDLED;   /* shut down once; libmicrohttpd's close frees the slot */
    guard->shed++;
}

static inline void lr_guard_sweep(struct lr_guard *guard) {
    int64_t now = lr_now_ms();
    unsigned int pending = 0;
    pthread_mutex_lock(&guard->lock);
    for (unsigned int i = 0; i < guard->capacity; i++) {
        struct lr_conn *slot = &guard->slots[i];
        int64_t age = now - slot->since_ms;
        if (slot->phase == LR_HEADERS && age > guard->header_deadline_ms) {
            lr_guard_shed(guard, slot);
        } else if (slot->phase == LR_BODY && age > guard->body_grace_ms
                   && slot->body_bytes * 1000 < (uint64_t)age * guard->min_body_bytes_per_second) {
            lr_guard_shed(guard, slot);
        } else if (slot->phase == LR_HEADERS || slot->phase == LR_BODY) {
            pending++;
        }
    }
    /* Over the cap: the oldest go first. */
    while (pending > guard->max_pending) {
        struct lr_conn *oldest = NULL;
        for (unsigned int i = 0; i < guard->capacity; i++) {
            struct lr_conn *slot = &guard->slots[i];
            if ((slot->phase == LR_HEADERS || slot->phase == LR_BODY) && (!oldest || slot->opened_ms < oldest->opened_ms)) oldest = slot;
        }
        if (!oldest) break;
        lr_guard_shed(guard, oldest);
        pending--;
    }
    pthread_mutex_unlock(&guard->lock);
}

static inline void *lr_guard_run(void *argument) {
    struct lr_guard *guard = argument;
    for (;;) {
        pthread_mutex_lock(&guard->lock);
        int running = guard->running;
        pthread_mutex_unlock(&guard->lock);
        if (!running) return NULL;
        lr_guard_sweep(guard);
        usleep(100 * 1000);
    }
}

static inline struct lr_guard *lr_guard_create(unsigned int capacity, unsigned int header_deadline_ms, unsigned int body_grace_ms,
                                               unsigned int min_body_bytes_per_second, unsigned int max_pending) {
    struct lr_guard *guard = calloc(1, sizeof *guard);
    if (!guard) return NULL;
    guard->slots = calloc(capacity, sizeof *guard->slots);
    if (!guard->slots) { free(guard); return NULL; }
    pthread_mutex_init(&guard->lock, NULL);
    guard->capacity = capacity;
    guard->header_deadline_ms = header_deadline_ms;
    guard->body_grace_ms = body_grace_ms;
    guard->min_body_bytes_per_second = min_body_bytes_per_second;
    guard->max_pending = max_pending;
    guard->running = 1;
    if (pthread_create(&guard->sweeper, NULL, lr_guard_run, guard) != 0) {
        free(guard->slots);
        free(guard);
        return NULL;
    }
    return guard;
}

/* Stops the sweeper; call after the daemon has stopped. */
static inline void lr_guard_destroy(struct lr_guard *guard) {
    if (!guard) return;
    pthread_mutex_lock(&guard->lock);
    guard->running = 0;
    pthread_mutex_unlock(&guard->lock);
    pthread_join(guard->sweeper, NULL);
    pthread_mutex_destroy(&guard->lock);
    free(guard->slots);
    free(guard);
}

static inline uint64_t lr_guard_shed_count(struct lr_guard *guard) {
    pthread_mutex_lock(&guard->lock);
    uint64_t shed = guard->shed;
    pthread_mutex_unlock(&guard->lock);
    return shed;
}

#endif
