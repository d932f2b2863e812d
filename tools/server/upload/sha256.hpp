// SHA-256 (FIPS 180-4, from libcrypto): the hash stored of each delete token,
// and a run's identity (run_identity.hpp).
#pragma once

#include <string>

namespace gmserver {

// Lower-case hex SHA-256 of the bytes of text.
std::string sha256_hex(const std::string &text);

}  // namespace gmserver
