#ifndef LINKRUNWAY_COPENSSL_SHIM_H
#define LINKRUNWAY_COPENSSL_SHIM_H
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/// HMAC-SHA256 (RFC 2104) with its key absorbed once: the SHA-256 states after the inner and the outer padded key,
/// copied for each message, so a message costs two compressions and no allocation.
struct lr_hmac_sha256_key {
    SHA256_CTX inner;
    SHA256_CTX outer;
};

static inline void lr_hmac_sha256_prepare(struct lr_hmac_sha256_key *k, const unsigned char *key, size_t len) {
    unsigned char block[64] = {0};
    unsigned char pad[64];
    if (len > sizeof block) SHA256(key, len, block); else memcpy(block, key, len);
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&k->inner);
    SHA256_Update(&k->inner, pad, sizeof pad);
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&k->outer);
    SHA256_Update(&k->outer, pad, sizeof pad);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
}

static inline void lr_hmac_sha256_run(const struct lr_hmac_sha256_key *k, const void *message, size_t len, unsigned char out[32]) {
    SHA256_CTX c = k->inner;
    unsigned char inner[32];
    SHA256_Update(&c, message, len);
    SHA256_Final(inner, &c);
    c = k->outer;
    SHA256_Update(&c, inner, sizeof inner);
    SHA256_Final(out, &c);
    OPENSSL_cleanse(&c, sizeof c);
    OPENSSL_cleanse(inner, sizeof inner);
}

/// CRYPTO_memcmp compares in time independent of the contents (0 when equal).
static inline int lr_constant_time_equal(const void *a, const void *b, size_t len) {
    return CRYPTO_memcmp(a, b, len) == 0;
}

/* The STACK_OF(X509) helpers are macros Swift cannot import. */
static inline STACK_OF(X509) *lr_x509_stack_new(void) { return sk_X509_new_null(); }
static inline int lr_x509_stack_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void lr_x509_stack_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

/// A new P-256 key (EVP_EC_gen is a variadic macro Swift cannot call).
static inline EVP_PKEY *lr_generate_p256(void) { return EVP_EC_gen("P-256"); }

/// A new EC key on a named curve ("P-256", "P-192", …).
static inline EVP_PKEY *lr_generate_ec(const char *curve) { return EVP_EC_gen(curve); }

/// The OpenSSL error queue as text (and cleared); the queue is per thread, so call it right after the failing call.
static inline void lr_error_text(char *buffer, size_t length) {
    unsigned long code = ERR_get_error();
    if (code == 0) { if (length) buffer[0] = 0; }
    else ERR_error_string_n(code, buffer, length);
    ERR_clear_error();
}

#endif
