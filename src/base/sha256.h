/* sha256.h: FIPS 180-4 SHA-256, for fingerprints and file checksums */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sha256 {
        uint32_t h[8];
        uint64_t len;
        uint8_t buf[64];
        size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_final(struct sha256 *s, uint8_t out[32]);
/* lower-case hex of the first nbytes of the digest of data */
void sha256_hex(const void *data, size_t n, size_t nbytes, char *out);
/* tests: true makes every digest use the portable code, false lets the CPU's
 * SHA extensions back in where it has them; returns whether the portable
 * code was in use before */
bool sha256_set_portable(bool portable);
