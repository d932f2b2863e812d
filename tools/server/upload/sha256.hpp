// SHA-256 (FIPS 180-4), used to store only a hash of each delete token.
#pragma once

#include <string>

namespace gmserver {

// Lower-case hex SHA-256 of the bytes of text.
std::string sha256_hex(const std::string &text);

}  // namespace gmserver
