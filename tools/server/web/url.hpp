// Percent-encoding for the server's links (pages) and answers (API).
#pragma once

#include <string>

namespace gmserver {

// RFC 3986: everything but the unreserved characters is percent-encoded, so
// the result is safe in a path segment and in a query value alike.
inline std::string url_encode(const std::string &s) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace gmserver
