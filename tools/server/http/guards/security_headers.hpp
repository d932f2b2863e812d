// The headers every answer carries, whatever handler made it: no answer is
// sniffed into another type, and an HTML page runs only its own inline
// scripts and styles (Chart.js and the drawing script are inlined, as in a
// saved report), loads nothing from elsewhere, posts forms only here, and is
// never framed by another site.
#pragma once

#include "http/http_message.hpp"

namespace gmserver {

// What an HTML page may do. 'unsafe-inline' because the pages inline their
// scripts and styles; every text they show is escaped, and nothing may come
// from another origin, so injected markup can neither load a script nor send
// data anywhere.
inline constexpr const char *kPageContentSecurityPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

inline void add_security_headers(HttpResponse &res) {
    res.headers.emplace("X-Content-Type-Options", "nosniff");
    const auto type = res.headers.find("Content-Type");
    if (type != res.headers.end() && type->second.rfind("text/html", 0) == 0) {
        res.headers.emplace("Content-Security-Policy", kPageContentSecurityPolicy);
        res.headers.emplace("X-Frame-Options", "DENY");
        res.headers.emplace("Referrer-Policy", "same-origin");
    }
}

}  // namespace gmserver
