#ifndef LINKROUTER_COPENSSL_SHIM_H
#define LINKROUTER_COPENSSL_SHIM_H
/* libcrypto is loaded with dlopen on first use (OpenSSLKit/LibCrypto.swift):
   linked, it was mapped and bound at every daemon start, ~1.4 MiB of the idle
   daemon's memory, for work (PKCE, ID-token checks) that waits for a login.
   Each function OpenSSLKit calls is declared by the headers under another
   name (lr_sym_NAME, never defined, never linked) and defined here under its
   own, as a call through the table of symbols looked up once. The cast uses
   the header's own type of the function (__typeof__ does not evaluate its
   operand), so a shim cannot disagree with OpenSSL's declaration, and the
   Swift code calls the names it always did. */

#define BN_bin2bn lr_sym_BN_bin2bn
#define BN_free lr_sym_BN_free
#define ECDSA_SIG_free lr_sym_ECDSA_SIG_free
#define ECDSA_SIG_new lr_sym_ECDSA_SIG_new
#define ECDSA_SIG_set0 lr_sym_ECDSA_SIG_set0
#define i2d_ECDSA_SIG lr_sym_i2d_ECDSA_SIG
#define ERR_clear_error lr_sym_ERR_clear_error
#define ERR_error_string_n lr_sym_ERR_error_string_n
#define ERR_get_error lr_sym_ERR_get_error
#define EVP_DigestFinal_ex lr_sym_EVP_DigestFinal_ex
#define EVP_DigestInit_ex lr_sym_EVP_DigestInit_ex
#define EVP_DigestUpdate lr_sym_EVP_DigestUpdate
#define EVP_DigestVerify lr_sym_EVP_DigestVerify
#define EVP_DigestVerifyInit lr_sym_EVP_DigestVerifyInit
#define EVP_MD_CTX_free lr_sym_EVP_MD_CTX_free
#define EVP_MD_CTX_new lr_sym_EVP_MD_CTX_new
#define EVP_PKEY_CTX_free lr_sym_EVP_PKEY_CTX_free
#define EVP_PKEY_CTX_new_from_name lr_sym_EVP_PKEY_CTX_new_from_name
#define EVP_PKEY_CTX_new_from_pkey lr_sym_EVP_PKEY_CTX_new_from_pkey
#define EVP_PKEY_CTX_set_rsa_mgf1_md lr_sym_EVP_PKEY_CTX_set_rsa_mgf1_md
#define EVP_PKEY_CTX_set_rsa_padding lr_sym_EVP_PKEY_CTX_set_rsa_padding
#define EVP_PKEY_CTX_set_rsa_pss_saltlen lr_sym_EVP_PKEY_CTX_set_rsa_pss_saltlen
#define EVP_PKEY_free lr_sym_EVP_PKEY_free
#define EVP_PKEY_fromdata lr_sym_EVP_PKEY_fromdata
#define EVP_PKEY_fromdata_init lr_sym_EVP_PKEY_fromdata_init
#define EVP_PKEY_get_bits lr_sym_EVP_PKEY_get_bits
#define EVP_PKEY_new_raw_public_key lr_sym_EVP_PKEY_new_raw_public_key
#define EVP_PKEY_public_check lr_sym_EVP_PKEY_public_check
#define EVP_sha256 lr_sym_EVP_sha256
#define OSSL_PARAM_BLD_free lr_sym_OSSL_PARAM_BLD_free
#define OSSL_PARAM_BLD_new lr_sym_OSSL_PARAM_BLD_new
#define OSSL_PARAM_BLD_push_BN lr_sym_OSSL_PARAM_BLD_push_BN
#define OSSL_PARAM_BLD_push_octet_string lr_sym_OSSL_PARAM_BLD_push_octet_string
#define OSSL_PARAM_BLD_push_utf8_string lr_sym_OSSL_PARAM_BLD_push_utf8_string
#define OSSL_PARAM_BLD_to_param lr_sym_OSSL_PARAM_BLD_to_param
#define OSSL_PARAM_free lr_sym_OSSL_PARAM_free
#define SHA256_Init lr_sym_SHA256_Init
#define SHA256_Update lr_sym_SHA256_Update
#define SHA256_Final lr_sym_SHA256_Final
#define BN_bn2binpad lr_sym_BN_bn2binpad
#define BN_clear_free lr_sym_BN_clear_free
#define d2i_ECDSA_SIG lr_sym_d2i_ECDSA_SIG
#define ECDSA_SIG_get0 lr_sym_ECDSA_SIG_get0
#define EVP_DigestSign lr_sym_EVP_DigestSign
#define EVP_DigestSignInit lr_sym_EVP_DigestSignInit
#define EVP_PKEY_CTX_set_group_name lr_sym_EVP_PKEY_CTX_set_group_name
#define EVP_PKEY_generate lr_sym_EVP_PKEY_generate
#define EVP_PKEY_get_bn_param lr_sym_EVP_PKEY_get_bn_param
#define EVP_PKEY_get_octet_string_param lr_sym_EVP_PKEY_get_octet_string_param
#define EVP_PKEY_keygen_init lr_sym_EVP_PKEY_keygen_init
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#undef BN_bin2bn
#undef BN_free
#undef ECDSA_SIG_free
#undef ECDSA_SIG_new
#undef ECDSA_SIG_set0
#undef i2d_ECDSA_SIG
#undef ERR_clear_error
#undef ERR_error_string_n
#undef ERR_get_error
#undef EVP_DigestFinal_ex
#undef EVP_DigestInit_ex
#undef EVP_DigestUpdate
#undef EVP_DigestVerify
#undef EVP_DigestVerifyInit
#undef EVP_MD_CTX_free
#undef EVP_MD_CTX_new
#undef EVP_PKEY_CTX_free
#undef EVP_PKEY_CTX_new_from_name
#undef EVP_PKEY_CTX_new_from_pkey
#undef EVP_PKEY_CTX_set_rsa_mgf1_md
#undef EVP_PKEY_CTX_set_rsa_padding
#undef EVP_PKEY_CTX_set_rsa_pss_saltlen
#undef EVP_PKEY_free
#undef EVP_PKEY_fromdata
#undef EVP_PKEY_fromdata_init
#undef EVP_PKEY_get_bits
#undef EVP_PKEY_new_raw_public_key
#undef EVP_PKEY_public_check
#undef EVP_sha256
#undef OSSL_PARAM_BLD_free
#undef OSSL_PARAM_BLD_new
#undef OSSL_PARAM_BLD_push_BN
#undef OSSL_PARAM_BLD_push_octet_string
#undef OSSL_PARAM_BLD_push_utf8_string
#undef OSSL_PARAM_BLD_to_param
#undef OSSL_PARAM_free
#undef SHA256_Init
#undef SHA256_Update
#undef SHA256_Final
#undef BN_bn2binpad
#undef BN_clear_free
#undef d2i_ECDSA_SIG
#undef ECDSA_SIG_get0
#undef EVP_DigestSign
#undef EVP_DigestSignInit
#undef EVP_PKEY_CTX_set_group_name
#undef EVP_PKEY_generate
#undef EVP_PKEY_get_bn_param
#undef EVP_PKEY_get_octet_string_param
#undef EVP_PKEY_keygen_init

struct lr_crypto_functions {
    void *BN_bin2bn, *BN_free, *ECDSA_SIG_free, *ECDSA_SIG_new, *ECDSA_SIG_set0, *i2d_ECDSA_SIG, *ERR_clear_error, *ERR_error_string_n, *ERR_get_error, *EVP_DigestFinal_ex, *EVP_DigestInit_ex, *EVP_DigestUpdate, *EVP_DigestVerify, *EVP_DigestVerifyInit, *EVP_MD_CTX_free, *EVP_MD_CTX_new, *EVP_PKEY_CTX_free, *EVP_PKEY_CTX_new_from_name, *EVP_PKEY_CTX_new_from_pkey, *EVP_PKEY_CTX_set_rsa_mgf1_md, *EVP_PKEY_CTX_set_rsa_padding, *EVP_PKEY_CTX_set_rsa_pss_saltlen, *EVP_PKEY_free, *EVP_PKEY_fromdata, *EVP_PKEY_fromdata_init, *EVP_PKEY_get_bits, *EVP_PKEY_new_raw_public_key, *EVP_PKEY_public_check, *EVP_sha256, *OSSL_PARAM_BLD_free, *OSSL_PARAM_BLD_new, *OSSL_PARAM_BLD_push_BN, *OSSL_PARAM_BLD_push_octet_string, *OSSL_PARAM_BLD_push_utf8_string, *OSSL_PARAM_BLD_to_param, *OSSL_PARAM_free;
    /* Signing (DPoP proofs with a key the daemon makes and keeps). */
    void *BN_bn2binpad, *BN_clear_free, *d2i_ECDSA_SIG, *ECDSA_SIG_get0, *EVP_DigestSign, *EVP_DigestSignInit, *EVP_PKEY_CTX_set_group_name, *EVP_PKEY_generate, *EVP_PKEY_get_bn_param, *EVP_PKEY_get_octet_string_param, *EVP_PKEY_keygen_init;
    /* SHA-256 without OpenSSL 3's providers (OpenSSLKit/SHA256.swift says why). */
    void *SHA256_Init, *SHA256_Update, *SHA256_Final;
};

/* The table, filled on first use; defined in Swift (LibCrypto.swift, @_cdecl). */
const struct lr_crypto_functions *lr_crypto(void);

#define LR_CRYPTO(name) ((__typeof__(&lr_sym_##name))lr_crypto()->name)

static inline BIGNUM *BN_bin2bn(const unsigned char *s, int len, BIGNUM *ret) { return LR_CRYPTO(BN_bin2bn)(s, len, ret); }
static inline void BN_free(BIGNUM *a) { LR_CRYPTO(BN_free)(a); }
static inline void ECDSA_SIG_free(ECDSA_SIG *sig) { LR_CRYPTO(ECDSA_SIG_free)(sig); }
static inline ECDSA_SIG *ECDSA_SIG_new(void) { return LR_CRYPTO(ECDSA_SIG_new)(); }
static inline int ECDSA_SIG_set0(ECDSA_SIG *sig, BIGNUM *r, BIGNUM *s) { return LR_CRYPTO(ECDSA_SIG_set0)(sig, r, s); }
static inline int i2d_ECDSA_SIG(const ECDSA_SIG *sig, unsigned char **pp) { return LR_CRYPTO(i2d_ECDSA_SIG)(sig, pp); }
static inline void ERR_clear_error(void) { LR_CRYPTO(ERR_clear_error)(); }
static inline void ERR_error_string_n(unsigned long e, char *buf, size_t len) { LR_CRYPTO(ERR_error_string_n)(e, buf, len); }
static inline unsigned long ERR_get_error(void) { return LR_CRYPTO(ERR_get_error)(); }
static inline int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s) { return LR_CRYPTO(EVP_DigestFinal_ex)(ctx, md, s); }
static inline int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl) { return LR_CRYPTO(EVP_DigestInit_ex)(ctx, type, impl); }
static inline int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt) { return LR_CRYPTO(EVP_DigestUpdate)(ctx, d, cnt); }
static inline int EVP_DigestVerify(EVP_MD_CTX *ctx, const unsigned char *sigret, size_t siglen, const unsigned char *tbs, size_t tbslen) { return LR_CRYPTO(EVP_DigestVerify)(ctx, sigret, siglen, tbs, tbslen); }
static inline int EVP_DigestVerifyInit(EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey) { return LR_CRYPTO(EVP_DigestVerifyInit)(ctx, pctx, type, e, pkey); }
static inline void EVP_MD_CTX_free(EVP_MD_CTX *ctx) { LR_CRYPTO(EVP_MD_CTX_free)(ctx); }
static inline EVP_MD_CTX *EVP_MD_CTX_new(void) { return LR_CRYPTO(EVP_MD_CTX_new)(); }
static inline void EVP_PKEY_CTX_free(EVP_PKEY_CTX *ctx) { LR_CRYPTO(EVP_PKEY_CTX_free)(ctx); }
static inline EVP_PKEY_CTX *EVP_PKEY_CTX_new_from_name(OSSL_LIB_CTX *libctx, const char *name, const char *propquery) { return LR_CRYPTO(EVP_PKEY_CTX_new_from_name)(libctx, name, propquery); }
static inline EVP_PKEY_CTX *EVP_PKEY_CTX_new_from_pkey(OSSL_LIB_CTX *libctx, EVP_PKEY *pkey, const char *propquery) { return LR_CRYPTO(EVP_PKEY_CTX_new_from_pkey)(libctx, pkey, propquery); }
static inline int EVP_PKEY_CTX_set_rsa_mgf1_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) { return LR_CRYPTO(EVP_PKEY_CTX_set_rsa_mgf1_md)(ctx, md); }
static inline int EVP_PKEY_CTX_set_rsa_padding(EVP_PKEY_CTX *ctx, int pad_mode) { return LR_CRYPTO(EVP_PKEY_CTX_set_rsa_padding)(ctx, pad_mode); }
static inline int EVP_PKEY_CTX_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int saltlen) { return LR_CRYPTO(EVP_PKEY_CTX_set_rsa_pss_saltlen)(ctx, saltlen); }
static inline void EVP_PKEY_free(EVP_PKEY *pkey) { LR_CRYPTO(EVP_PKEY_free)(pkey); }
static inline int EVP_PKEY_fromdata(EVP_PKEY_CTX *ctx, EVP_PKEY **ppkey, int selection, OSSL_PARAM params[]) { return LR_CRYPTO(EVP_PKEY_fromdata)(ctx, ppkey, selection, params); }
static inline int EVP_PKEY_fromdata_init(EVP_PKEY_CTX *ctx) { return LR_CRYPTO(EVP_PKEY_fromdata_init)(ctx); }
static inline int EVP_PKEY_get_bits(const EVP_PKEY *pkey) { return LR_CRYPTO(EVP_PKEY_get_bits)(pkey); }
static inline EVP_PKEY *EVP_PKEY_new_raw_public_key(int type, ENGINE *e, const unsigned char *pub, size_t len) { return LR_CRYPTO(EVP_PKEY_new_raw_public_key)(type, e, pub, len); }
static inline int EVP_PKEY_public_check(EVP_PKEY_CTX *ctx) { return LR_CRYPTO(EVP_PKEY_public_check)(ctx); }
static inline const EVP_MD *EVP_sha256(void) { return LR_CRYPTO(EVP_sha256)(); }
static inline void OSSL_PARAM_BLD_free(OSSL_PARAM_BLD *bld) { LR_CRYPTO(OSSL_PARAM_BLD_free)(bld); }
static inline OSSL_PARAM_BLD *OSSL_PARAM_BLD_new(void) { return LR_CRYPTO(OSSL_PARAM_BLD_new)(); }
static inline int OSSL_PARAM_BLD_push_BN(OSSL_PARAM_BLD *bld, const char *key, const BIGNUM *bn) { return LR_CRYPTO(OSSL_PARAM_BLD_push_BN)(bld, key, bn); }
static inline int OSSL_PARAM_BLD_push_octet_string(OSSL_PARAM_BLD *bld, const char *key, const void *buf, size_t bsize) { return LR_CRYPTO(OSSL_PARAM_BLD_push_octet_string)(bld, key, buf, bsize); }
static inline int OSSL_PARAM_BLD_push_utf8_string(OSSL_PARAM_BLD *bld, const char *key, const char *buf, size_t bsize) { return LR_CRYPTO(OSSL_PARAM_BLD_push_utf8_string)(bld, key, buf, bsize); }
static inline OSSL_PARAM *OSSL_PARAM_BLD_to_param(OSSL_PARAM_BLD *bld) { return LR_CRYPTO(OSSL_PARAM_BLD_to_param)(bld); }
static inline void OSSL_PARAM_free(OSSL_PARAM *p) { LR_CRYPTO(OSSL_PARAM_free)(p); }
/* Deprecated in OpenSSL 3.0, still in libcrypto.so.3's ABI: the digest without a provider fetch. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static inline int SHA256_Init(SHA256_CTX *c) { return LR_CRYPTO(SHA256_Init)(c); }
static inline int SHA256_Update(SHA256_CTX *c, const void *data, size_t len) { return LR_CRYPTO(SHA256_Update)(c, data, len); }
static inline int SHA256_Final(unsigned char *md, SHA256_CTX *c) { return LR_CRYPTO(SHA256_Final)(md, c); }
#pragma clang diagnostic pop
static inline int BN_bn2binpad(const BIGNUM *a, unsigned char *to, int tolen) { return LR_CRYPTO(BN_bn2binpad)(a, to, tolen); }
static inline void BN_clear_free(BIGNUM *a) { LR_CRYPTO(BN_clear_free)(a); }
static inline ECDSA_SIG *d2i_ECDSA_SIG(ECDSA_SIG **sig, const unsigned char **pp, long len) { return LR_CRYPTO(d2i_ECDSA_SIG)(sig, pp, len); }
static inline void ECDSA_SIG_get0(const ECDSA_SIG *sig, const BIGNUM **pr, const BIGNUM **ps) { LR_CRYPTO(ECDSA_SIG_get0)(sig, pr, ps); }
static inline int EVP_DigestSign(EVP_MD_CTX *ctx, unsigned char *sigret, size_t *siglen, const unsigned char *tbs, size_t tbslen) { return LR_CRYPTO(EVP_DigestSign)(ctx, sigret, siglen, tbs, tbslen); }
static inline int EVP_DigestSignInit(EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey) { return LR_CRYPTO(EVP_DigestSignInit)(ctx, pctx, type, e, pkey); }
static inline int EVP_PKEY_CTX_set_group_name(EVP_PKEY_CTX *ctx, const char *name) { return LR_CRYPTO(EVP_PKEY_CTX_set_group_name)(ctx, name); }
static inline int EVP_PKEY_generate(EVP_PKEY_CTX *ctx, EVP_PKEY **ppkey) { return LR_CRYPTO(EVP_PKEY_generate)(ctx, ppkey); }
static inline int EVP_PKEY_get_bn_param(const EVP_PKEY *pkey, const char *key_name, BIGNUM **bn) { return LR_CRYPTO(EVP_PKEY_get_bn_param)(pkey, key_name, bn); }
static inline int EVP_PKEY_get_octet_string_param(const EVP_PKEY *pkey, const char *key_name, unsigned char *buf, size_t max_buf_sz, size_t *out_len) { return LR_CRYPTO(EVP_PKEY_get_octet_string_param)(pkey, key_name, buf, max_buf_sz, out_len); }
static inline int EVP_PKEY_keygen_init(EVP_PKEY_CTX *ctx) { return LR_CRYPTO(EVP_PKEY_keygen_init)(ctx); }
#endif
