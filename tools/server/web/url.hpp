// Percent-encoding for the server's links (pages) and answers (API), and the
// check of a Host header before it goes into a URL the server hands out.
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

// Whether a Host header is a plain host[:port] that may be put into the URLs
// the server hands out (without --public-url): a name or IPv4 address of
// letters, digits, '-', '.', '_' and '~', or an IPv6 address in brackets,
// then at most a port of 1 to 5 digits up to 65535; 255 characters at most.
// Anything else (spaces, slashes, '@', quotes, '<', '>', control characters,
// percent escapes) could turn the URL into another site's or into markup.
inline bool valid_host_header(const std::string &h) {
    if (h.empty() || h.size() > 255) return false;
    std::size_t end_of_host = 0;
    if (h[0] == '[') {
        const std::size_t close = h.find(']');
        if (close == std::string::npos || close < 3) return false;
        for (std::size_t i = 1; i < close; ++i) {
            const char c = h[i];
            const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex && c != ':' && c != '.') return false;
        }
        end_of_host = close + 1;
    } else {
        while (end_of_host < h.size() && h[end_of_host] != ':') {
            const char c = h[end_of_host];
            const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '.' || c == '_' || c == '~';
            if (!ok) return false;
            ++end_of_host;
        }
        if (end_of_host == 0) return false;
    }
    if (end_of_host == h.size()) return true;
    if (h[end_of_host] != ':') return false;
    const std::string port = h.substr(end_of_host + 1);
    if (port.empty() || port.size() > 5) return false;
    for (char c : port)
        if (c < '0' || c > '9') return false;
    return std::stol(port) <= 65535;
}

}  // namespace gmserver
