/* The fixed private keys the signature benchmarks use (see test_keys.c for why fixed). */
#ifndef BP_CPU_TEST_KEYS_H
#define BP_CPU_TEST_KEYS_H

#include <openssl/evp.h>

/* "rsa1024" .. "rsa4096", "ecdsa-p256", "ed25519"; NULL when unknown or on error. */
EVP_PKEY *bp_test_key_load(const char *name);

#endif
