#ifndef LINKRUNWAY_CMICROHTTPD_SHIM_H
#define LINKRUNWAY_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>
#include "guard.h"

#if MHD_VERSION < 0x00097100
#error "libmicrohttpd 0.9.71 or newer is required (handlers return enum MHD_Result)"
#endif

/// Settings for lr_mhd_start; zero means "library default" for the limits.
struct lr_mhd_settings {
    unsigned int flags;
    const char *host;            /* numeric IPv4 or IPv6 address, or NULL for all IPv4 addresses */
    uint16_t port;               /* 0 picks a free port */
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int connection_timeout_seconds;
    size_t connection_memory_limit;  /* bounds the request line and headers */
    unsigned int listen_backlog;
    struct lr_guard *guard;      /* slow-client guard, or NULL */
};

/// Starts a daemon; MHD_start_daemon is variadic, which Swift cannot call.
/// Returns NULL when the address is invalid or the daemon cannot start.
static inline struct MHD_Daemon *lr_mhd_start(const struct lr_mhd_settings *s,
                                              MHD_AccessHandlerCallback handler, void *handler_cls,
                                              MHD_RequestCompletedCallback completed, void *completed_cls) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *addr = NULL;
    unsigned int flags = s->flags;
    if (s->host != NULL && s->host[0] != '\0') {
        memset(&v4, 0, sizeof v4);
        memset(&v6, 0, sizeof v6);
        if (inet_pton(AF_INET, s->host, &v4.sin_addr) == 1) {
            v4.sin_family = AF_INET;
            v4.sin_port = htons(s->port);
            addr = (struct sockaddr *)&v4;
        } else if (inet_pton(AF_INET6, s->host, &v6.sin6_addr) == 1) {
            v6.sin6_family = AF_INET6;
            v6.sin6_port = htons(s->port);
            addr = (struct sockaddr *)&v6;
            flags |= MHD_USE_IPv6;
        } else {
            return NULL;
        }
    }
    struct MHD_OptionItem options[12];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls };
    /* No MHD_OPTION_LISTENING_ADDRESS_REUSE: with SO_REUSEPORT a second server on a busy port would start and split
       the requests with the first. libmicrohttpd still sets SO_REUSEADDR, so a restart is not held up by TIME_WAIT. */
    if (addr) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, addr };
    if (s->thread_pool_size > 1) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, s->thread_pool_size, NULL };
    if (s->connection_limit) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, s->connection_limit, NULL };
    if (s->per_ip_connection_limit) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->per_ip_connection_limit, NULL };
    if (s->connection_timeout_seconds) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout_seconds, NULL };
    if (s->connection_memory_limit) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)s->connection_memory_limit, NULL };
    if (s->listen_backlog) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_BACKLOG_SIZE, s->listen_backlog, NULL };
    if (s->guard) options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)lr_guard_connection, s->guard };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(flags, s->port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port the daemon listens on (useful after asking for port 0); 0 when unknown.
static inline uint16_t lr_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// Writes the client's numeric address into buf; returns 0 on success.
static inline int lr_mhd_client_address(struct MHD_Connection *connection, char *buf, size_t len) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return -1;
    const struct sockaddr *sa = info->client_addr;
    const void *src;
    if (sa->sa_family == AF_INET) src = &((const struct sockaddr_in *)sa)->sin_addr;
    else if (sa->sa_family == AF_INET6) src = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    else return -1;
    return inet_ntop(sa->sa_family, src, buf, (socklen_t)len) ? 0 : -1;
}

#endif
