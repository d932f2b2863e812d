#include "http_get.hpp"

#include <cctype>
#include <cstdio>

#ifdef GM_HAVE_CURL
#include <curl/curl.h>
#endif

namespace gmcli {

namespace {

#ifdef GM_HAVE_CURL
std::size_t collect(char *data, std::size_t size, std::size_t n, void *out) {
    auto *s = static_cast<std::string *>(out);
    if (s->size() > (8u << 20)) return 0;  // the documents asked for are small: refuse a flood
    s->append(data, size * n);
    return size * n;
}
#endif

}  // namespace

std::string path_segment(const std::string &text) {
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            char b[4];
            std::snprintf(b, sizeof b, "%%%02X", c);
            out += b;
        }
    }
    return out;
}

std::string server_base(const std::string &server) {
    std::string base = server;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base;
}

HttpGetResult http_get_json(const std::string &url) {
    HttpGetResult out;
#ifdef GM_HAVE_CURL
    CURL *curl = curl_easy_init();
    if (!curl) {
        out.why = "libcurl did not initialise";
        return out;
    }
    std::string body;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 3L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 5L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    const CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK) {
        out.status = 0;
        out.why = url + ": " + curl_easy_strerror(rc);
        return out;
    }
    if (out.status != 200) {
        out.why = url + " answered HTTP " + std::to_string(out.status);
        return out;
    }
    out.doc = nlohmann::json::parse(body, nullptr, false);
    if (out.doc.is_discarded() || !out.doc.is_object()) {
        out.doc = nullptr;
        out.why = url + " did not answer a JSON object";
    }
    return out;
#else
    (void)url;
    out.why = "this gmlab was built without libcurl (configure with -DGM_BUILD_UPLOAD=ON)";
    return out;
#endif
}

}  // namespace gmcli
