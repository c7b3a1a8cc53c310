#ifndef LINKRUNWAY_CRESOLV_SHIM_H
#define LINKRUNWAY_CRESOLV_SHIM_H

#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <resolv.h>
#include <netdb.h>

/* The TXT records of `name`, each record's character-strings joined, one record a line in `out`. `server_ip` NULL asks
   the system's resolvers, else that IPv4 address at `server_port`. Returns how many records were found (0 when the
   name or its TXT records do not exist), or -1 when no answer could be had or read. */
static inline int lr_txt_lookup(const char *name, const char *server_ip, int server_port, char *out, int out_len) {
    struct __res_state state;
    memset(&state, 0, sizeof state);
    if (res_ninit(&state) != 0) return -1;
    if (server_ip) {
        struct sockaddr_in address;
        memset(&address, 0, sizeof address);
        address.sin_family = AF_INET;
        address.sin_port = htons((unsigned short)server_port);
        if (inet_pton(AF_INET, server_ip, &address.sin_addr) != 1) { res_nclose(&state); return -1; }
        state.nsaddr_list[0] = address;
        state.nscount = 1;
    }
    state.retrans = 2;
    state.retry = 2;
    unsigned char answer[8192];
    int length = res_nquery(&state, name, ns_c_in, ns_t_txt, answer, sizeof answer);
    int failure = state.res_h_errno;
    res_nclose(&state);
    if (length < 0) return (failure == HOST_NOT_FOUND || failure == NO_DATA) ? 0 : -1;
    ns_msg message;
    if (ns_initparse(answer, length, &message) < 0) return -1;
    int records = 0, used = 0;
    for (int i = 0; i < ns_msg_count(message, ns_s_an); i++) {
        ns_rr record;
        if (ns_parserr(&message, ns_s_an, i, &record) < 0) return -1;
        if (ns_rr_type(record) != ns_t_txt) continue;
        const unsigned char *data = ns_rr_rdata(record);
        int size = ns_rr_rdlen(record), at = 0;
        while (at < size) {
            int n = data[at++];
            if (at + n > size || used + n + 2 > out_len) return -1;
            memcpy(out + used, data + at, (size_t)n);
            used += n;
            at += n;
        }
        out[used++] = '\n';
        records++;
    }
    out[used] = 0;
    return records;
}

#endif
