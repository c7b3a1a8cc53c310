#ifndef LINKRUNWAY_CCURL_SHIM_H
#define LINKRUNWAY_CCURL_SHIM_H

#include <sys/socket.h>
#include <netinet/in.h>
#include <curl/curl.h>

/* curl_easy_setopt is variadic, which Swift cannot call: one typed wrapper per kind of value. */

static inline CURLcode lr_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode lr_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode lr_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

typedef curl_socket_t (*lr_curl_open_socket)(void *context, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode lr_curl_set_open_socket(CURL *handle, lr_curl_open_socket callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

typedef size_t (*lr_curl_write)(char *data, size_t size, size_t count, void *context);
static inline CURLcode lr_curl_set_write(CURL *handle, lr_curl_write callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline long lr_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

#endif
