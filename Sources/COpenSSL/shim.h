#ifndef LINKRUNWAY_COPENSSL_SHIM_H
#define LINKRUNWAY_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

/// CRYPTO_memcmp compares in time independent of the contents (0 when equal).
static inline int lr_constant_time_equal(const void *a, const void *b, size_t len) {
    return CRYPTO_memcmp(a, b, len) == 0;
}

#endif
