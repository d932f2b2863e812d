// One POST of a compressed document through libcurl, repeated with bounded
// exponential backoff while the failure may be temporary.
#include <curl/curl.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <ctime>

#include "upload.hpp"

namespace gmupload {

using nlohmann::json;

namespace {

struct Answer {
    CURLcode curl = CURLE_OK;
    std::string curl_error;
    long status = 0;
    std::string body;
    double retry_after_s = -1;  // < 0: the server sent none
};

size_t on_body(char *data, size_t size, size_t n, void *user) {
    auto *body = static_cast<std::string *>(user);
    // A result answer is small; do not let a misbehaving server fill memory.
    if (body->size() < (1u << 20)) body->append(data, size * n);
    return size * n;
}

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

// Retry-After is either delay-seconds or an HTTP date (RFC 9110 10.2.3).
double parse_retry_after(const std::string &value) {
    const std::string v = trim(value);
    if (v.empty()) return -1;
    if (std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::strtod(v.c_str(), nullptr);
    const time_t when = curl_getdate(v.c_str(), nullptr);
    if (when < 0) return -1;
    return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

size_t on_header(char *data, size_t size, size_t n, void *user) {
    auto *a = static_cast<Answer *>(user);
    const std::string line(data, size * n);
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        if (name == "retry-after") a->retry_after_s = parse_retry_after(line.substr(colon + 1));
    }
    return size * n;
}

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// A compressed body and the Content-Encoding that names it.
struct Body {
    std::string data;
    const char *encoding_header;
};

Answer post_once(const std::string &url, const Body &body, const SendOptions &opt) {
    Answer a;
    CURL *c = curl_easy_init();
    if (!c) {
        a.curl = CURLE_FAILED_INIT;
        a.curl_error = "cannot start libcurl";
        return a;
    }
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_slist *headers = nullptr;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, body.encoding_header);
    headers = curl_slist_append(headers, "Accept: application/json");
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.data.size()));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gmlab-upload");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // a redirected POST is not followed blindly
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(opt.timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opt.connect_timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, opt.insecure ? 0L : 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, opt.insecure ? 0L : 2L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &a.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &a);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    a.curl = curl_easy_perform(c);
    if (a.curl != CURLE_OK) {
        a.curl_error = errbuf[0] ? errbuf : curl_easy_strerror(a.curl);
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.status);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);
    return a;
}

// The server's {code, message}, or the start of whatever it answered.
std::string server_message(const Answer &a) {
    const json j = json::parse(a.body, nullptr, false);
    std::string m = "HTTP " + std::to_string(a.status);
    if (j.is_object() && j.contains("message") && j["message"].is_string()) {
        if (j.contains("code") && (j["code"].is_string() || j["code"].is_number())) m += " " + j["code"].dump();
        return m + ": " + j["message"].get<std::string>();
    }
    return a.body.empty() ? m : m + ": " + a.body.substr(0, 200);
}

// Errors worth retrying: the server may be back, or the path may recover.
// Certificate problems, bad URLs and the like will not change by waiting.
bool transient(CURLcode c) {
    switch (c) {
        case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_CONNECT: case CURLE_OPERATION_TIMEDOUT:
        case CURLE_SEND_ERROR: case CURLE_RECV_ERROR: case CURLE_GOT_NOTHING: case CURLE_PARTIAL_FILE:
        case CURLE_SSL_CONNECT_ERROR: case CURLE_COULDNT_RESOLVE_PROXY: case CURLE_HTTP2:
            return true;
        default:
            return false;
    }
}

// Joins a relative result URL ("/results/ID") to the server's base.
std::string absolute_url(const std::string &server, const std::string &url) {
    if (url.empty() || url.find("://") != std::string::npos) return url;
    const auto scheme = server.find("://");
    const auto path = server.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    const std::string origin = path == std::string::npos ? server : server.substr(0, path);
    return url[0] == '/' ? origin + url : origin + "/" + url;
}

}  // namespace

std::string check_server_url(const std::string &server) {
    if (server.empty()) return "no server given (--server URL)";
    if (server.rfind("http://", 0) != 0 && server.rfind("https://", 0) != 0)
        return "the server URL must start with http:// or https://, got \"" + server + "\"";
    if (server.find_first_of(" \t\r\n") != std::string::npos) return "the server URL must not contain spaces";
    return "";
}

std::string results_endpoint(const std::string &server) {
    std::string base = server.empty() ? "<server>" : server;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base + "/api/v1/results";
}

std::string gzip(const std::string &data) {
    z_stream z{};
    // windowBits 15 + 16: a gzip wrapper rather than a bare zlib stream.
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("gzip: cannot start zlib");
    std::string out(deflateBound(&z, data.size()) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef *>(&out[0]);
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    const size_t n = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) throw std::runtime_error("gzip: compression failed");
    out.resize(n);
    return out;
}

std::string zstd_frame(const std::string &data) {
    std::string out(ZSTD_compressBound(data.size()), '\0');
    const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), kZstdLevel);
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

SendResult send(const std::string &json_text, const SendOptions &opt) {
    global_init();
    const std::string url = results_endpoint(opt.server);
    Body body{zstd_frame(json_text), "Content-Encoding: zstd"};
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> jitter(0.5, 1.0);
    SendResult r;
    bool fell_back = false;
    for (int attempt = 0;; ++attempt) {
        r.attempts = attempt + 1;
        const Answer a = post_once(url, body, opt);
        r.http_status = a.status;
        bool retry = false;
        // A server (or proxy) that does not take zstd says 415: the same
        // document goes again at once as gzip, which every gmlab-server takes.
        if (a.curl == CURLE_OK && a.status == 415 && !fell_back) {
            fell_back = true;
            body = Body{gzip(json_text), "Content-Encoding: gzip"};
            if (opt.log) *opt.log << "gmlab-upload: the server does not take zstd; sending gzip\n";
            --attempt;
            continue;
        }
        if (a.curl != CURLE_OK) {
            r.kind = SendResult::Unavailable;
            r.message = a.curl_error;
            retry = transient(a.curl);
        } else if (a.status >= 200 && a.status < 300) {
            const json j = json::parse(a.body, nullptr, false);
            if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) {
                r.kind = SendResult::Unavailable;
                r.message = "HTTP " + std::to_string(a.status) + " without a result id in the answer";
                return r;  // something answered that is not a gmlab-server; retrying will not help
            }
            r.kind = SendResult::Accepted;
            r.id = j["id"];
            r.url = absolute_url(opt.server, j.value("url", ""));
            r.delete_token = j.value("delete_token", "");
            r.gpu_url = j.contains("gpu_url") && j["gpu_url"].is_string() ? absolute_url(opt.server, j["gpu_url"]) : "";
            r.message.clear();
            return r;
        } else if (a.status == 429 || a.status >= 500) {
            r.kind = SendResult::Unavailable;
            r.message = server_message(a);
            retry = true;
        } else {
            r.kind = SendResult::Rejected;
            r.message = server_message(a);
            return r;
        }
        if (!retry || attempt >= opt.retries) return r;
        // Exponential backoff with jitter so that many clients do not retry in
        // step; a Retry-After from the server is a floor on the wait.
        double wait = std::min(opt.max_delay_s, opt.backoff_s * std::pow(2.0, attempt)) * jitter(rng);
        if (a.retry_after_s >= 0) {
            if (a.retry_after_s > opt.max_delay_s) {
                r.message += " (the server asks to wait " + std::to_string(static_cast<long>(a.retry_after_s)) +
                             " s, longer than " + std::to_string(static_cast<long>(opt.max_delay_s)) + " s)";
                return r;
            }
            wait = std::max(wait, a.retry_after_s);
        }
        if (opt.log)
            *opt.log << "gmlab-upload: attempt " << r.attempts << " failed (" << r.message << "); retrying in "
                     << std::round(wait * 10) / 10 << " s\n";
        std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
}

}  // namespace gmupload
