#ifndef LINKROUTER_CSODIUM_SHIM_H
#define LINKROUTER_CSODIUM_SHIM_H
#include <stddef.h>
#include <stdint.h>

/* libsodium (Debian: libsodium23) is loaded with dlopen when the first
   oidc-agent client asks for the encrypted form: a daemon no such client
   talks to never maps it. So no header of its is needed to build: these are
   the calls the agent's crypto_box needs, with libsodium's own signatures,
   one shim each, called through the pointer dlsym returned. */

/* int sodium_init(void) */
static inline int lr_sodium_init(void *fn) { return ((int (*)(void))fn)(); }

/* int crypto_box_keypair(unsigned char *pk, unsigned char *sk) */
static inline int lr_box_keypair(void *fn, unsigned char *pk, unsigned char *sk) {
    return ((int (*)(unsigned char *, unsigned char *))fn)(pk, sk);
}

/* int crypto_box_easy(unsigned char *c, const unsigned char *m, unsigned long long mlen,
                       const unsigned char *n, const unsigned char *pk, const unsigned char *sk) */
static inline int lr_box_easy(void *fn, unsigned char *c, const unsigned char *m, unsigned long long mlen,
                              const unsigned char *n, const unsigned char *pk, const unsigned char *sk) {
    typedef int (*f)(unsigned char *, const unsigned char *, unsigned long long, const unsigned char *,
                     const unsigned char *, const unsigned char *);
    return ((f)fn)(c, m, mlen, n, pk, sk);
}

/* int crypto_box_open_easy(unsigned char *m, const unsigned char *c, unsigned long long clen,
                            const unsigned char *n, const unsigned char *pk, const unsigned char *sk) */
static inline int lr_box_open_easy(void *fn, unsigned char *m, const unsigned char *c, unsigned long long clen,
                                   const unsigned char *n, const unsigned char *pk, const unsigned char *sk) {
    typedef int (*f)(unsigned char *, const unsigned char *, unsigned long long, const unsigned char *,
                     const unsigned char *, const unsigned char *);
    return ((f)fn)(m, c, clen, n, pk, sk);
}

/* void sodium_memzero(void *pnt, size_t len) */
static inline void lr_memzero(void *fn, void *p, size_t len) { ((void (*)(void *, size_t))fn)(p, len); }

/* char *sodium_bin2base64(char *b64, size_t b64_maxlen, const unsigned char *bin, size_t bin_len, int variant) */
static inline char *lr_bin2base64(void *fn, char *b64, size_t maxlen, const unsigned char *bin, size_t len, int variant) {
    return ((char *(*)(char *, size_t, const unsigned char *, size_t, int))fn)(b64, maxlen, bin, len, variant);
}

/* int sodium_base642bin(unsigned char *bin, size_t bin_maxlen, const char *b64, size_t b64_len,
                         const char *ignore, size_t *bin_len, const char **b64_end, int variant) */
static inline int lr_base642bin(void *fn, unsigned char *bin, size_t maxlen, const char *b64, size_t b64len,
                                size_t *binlen, const char **end, int variant) {
    typedef int (*f)(unsigned char *, size_t, const char *, size_t, const char *, size_t *, const char **, int);
    return ((f)fn)(bin, maxlen, b64, b64len, NULL, binlen, end, variant);
}

/* libsodium's constants (sodium/crypto_box.h, sodium/utils.h): fixed by its ABI. */
enum {
    LR_BOX_PUBLICKEYBYTES = 32,
    LR_BOX_SECRETKEYBYTES = 32,
    LR_BOX_NONCEBYTES = 24,
    LR_BOX_MACBYTES = 16,
    LR_BASE64_VARIANT_ORIGINAL = 1,
};
#endif
