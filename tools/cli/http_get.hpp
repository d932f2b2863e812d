// One HTTP GET of a small JSON document from a gmlab-server, through libcurl
// where this gmlab was built with it (GM_HAVE_CURL): what `gmlab check
// --server` reads the crowd's quantiles with and `gmlab report --server` the
// crowd's medians. Bounded: 3 s to connect, 5 s in all, 8 MiB at most.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmcli {

struct HttpGetResult {
    nlohmann::json doc;  // the parsed body: null where there is none or it is not JSON
    long status = 0;     // the HTTP status; 0 where no answer came (then `why` says what happened)
    std::string why;     // "" or why there is no document: the transport's error, the status, a body not JSON
};

HttpGetResult http_get_json(const std::string &url);

// Text as one segment of a URL's path: every byte but RFC 3986's unreserved
// characters percent-encoded (as curl_easy_escape does).
std::string path_segment(const std::string &text);

// "http://host:port/prefix" without its trailing slashes.
std::string server_base(const std::string &server);

}  // namespace gmcli
