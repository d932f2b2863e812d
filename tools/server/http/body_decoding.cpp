#include "http/body_decoding.hpp"

#include <algorithm>
#include <cctype>

#include <zlib.h>

#include "codecs/gzip_member.hpp"
#include "codecs/zstd_frame.hpp"

namespace gmserver {

namespace {
std::string lower_trimmed(const std::string &s) {
    std::string out;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return out;
}
}  // namespace

DecodeOutcome decode_body(const std::string &encoding, std::string *body, std::size_t max_bytes, std::string *message,
                          std::string *as_received) {
    if (as_received) as_received->clear();
    const std::string e = lower_trimmed(encoding);
    if (e.empty() || e == "identity") return DecodeOutcome::Ok;
    if (e == "zstd") {
        std::string decoded;
        bool single_frame = false;
        switch (decode_zstd_body(*body, max_bytes, &decoded, kDecodedSpareBytes, &single_frame)) {
        case ZstdOutcome::Ok:
            if (as_received && single_frame) *as_received = std::move(*body);
            *body = std::move(decoded);
            return DecodeOutcome::Ok;
        case ZstdOutcome::TooLarge:
            *message = "the body decompresses to more than " + std::to_string(max_bytes) + " bytes";
            return DecodeOutcome::TooLarge;
        case ZstdOutcome::WindowTooLarge:
            *message = "the body's zstd frame asks for a window over " + std::to_string((1u << kZstdMaxWindowLog) >> 20) +
                       " MiB; compress with a smaller window or declare the content size";
            return DecodeOutcome::TooLarge;
        case ZstdOutcome::Corrupt:
            *message = "the body is not valid zstd data";
            return DecodeOutcome::Corrupt;
        }
    }
    int window_bits;
    if (e == "gzip" || e == "x-gzip") {
        // What clients send, one member: decoded in one call, about three
        // times faster than the stream below, which takes everything else.
        std::string decoded;
        if (inflate_gzip_member(*body, max_bytes, &decoded, kDecodedSpareBytes) == GzipOutcome::Ok) {
            if (as_received && is_plain_gzip_header(*body)) *as_received = std::move(*body);
            *body = std::move(decoded);
            return DecodeOutcome::Ok;
        }
        window_bits = 16 + MAX_WBITS;
    }
    else if (e == "deflate") window_bits = MAX_WBITS;  // zlib-wrapped, as HTTP defines it
    else {
        *message = "Content-Encoding " + encoding + " is not supported (zstd, gzip, deflate or identity)";
        return DecodeOutcome::UnsupportedEncoding;
    }
    z_stream z{};
    if (inflateInit2(&z, window_bits) != Z_OK) {
        *message = "the decompressor could not be set up";
        return DecodeOutcome::Corrupt;
    }
    std::string out;
    // Most uploads compress 5-10x: start there, grow as needed, never past the cap.
    out.resize(std::min<std::size_t>(max_bytes + 1, std::max<std::size_t>(body->size() * 8, 4096)));
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(body->data()));
    z.avail_in = static_cast<uInt>(body->size());
    std::size_t produced = 0;
    int rc = Z_OK;
    DecodeOutcome outcome = DecodeOutcome::Ok;
    while (true) {
        if (produced == out.size()) {
            if (out.size() > max_bytes) {
                outcome = DecodeOutcome::TooLarge;
                break;
            }
            out.resize(std::min<std::size_t>(max_bytes + 1, out.size() * 2));
        }
        z.next_out = reinterpret_cast<Bytef *>(&out[produced]);
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - produced, 1u << 30));
        const uInt before = z.avail_out;
        rc = inflate(&z, Z_NO_FLUSH);
        produced += before - z.avail_out;
        if (produced > max_bytes) {
            outcome = DecodeOutcome::TooLarge;
            break;
        }
        if (rc == Z_STREAM_END) break;
        if (rc == Z_BUF_ERROR && z.avail_in == 0) {  // input ended before the stream did
            outcome = DecodeOutcome::Corrupt;
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            outcome = DecodeOutcome::Corrupt;
            break;
        }
    }
    inflateEnd(&z);
    if (outcome == DecodeOutcome::TooLarge) {
        *message = "the body decompresses to more than " + std::to_string(max_bytes) + " bytes";
        return outcome;
    }
    if (outcome == DecodeOutcome::Corrupt) {
        *message = "the body is not valid " + e + " data";
        return outcome;
    }
    out.resize(produced);
    *body = std::move(out);
    return DecodeOutcome::Ok;
}

}  // namespace gmserver
