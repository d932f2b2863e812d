#include "upload/sha256.hpp"

#include <cstdio>
#include <stdexcept>

#include <openssl/evp.h>

namespace gmserver {

// OpenSSL's SHA-256 (libcrypto), which uses the processor's SHA instructions
// where it has them: a run's identity hashes tens of kilobytes per upload.
std::string sha256_hex(const std::string &text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1 || size != 32)
        throw std::runtime_error("SHA-256 failed (libcrypto)");
    char out[65];
    for (unsigned i = 0; i < 32; ++i) std::snprintf(out + 2 * i, 3, "%02x", digest[i]);
    return std::string(out, 64);
}

}  // namespace gmserver
