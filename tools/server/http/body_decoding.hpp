// Undoes a request body's Content-Encoding (zstd, gzip or deflate) without
// ever holding more than a fixed number of decoded bytes: a small compressed
// body may not expand into gigabytes (a "gzip bomb").
#pragma once

#include <cstddef>
#include <string>

namespace gmserver {

enum class DecodeOutcome { Ok, TooLarge, Corrupt, UnsupportedEncoding };

// encoding: the Content-Encoding header ("" or "identity": nothing to do).
// On Ok, *body holds the decoded bytes; otherwise *body is unchanged and
// *message says what was wrong. as_received, when given, receives the body as
// received if it was a single plain gzip member (codecs/gzip_member.hpp) or a
// single zstd frame that declares its size (codecs/zstd_frame.hpp), so that it
// can be stored as it is; otherwise it is left empty.
DecodeOutcome decode_body(const std::string &encoding, std::string *body, std::size_t max_bytes, std::string *message,
                          std::string *as_received = nullptr);

// Decoded bodies keep this much spare capacity, so that the JSON parser, which
// reads a little past the end, needs no copy of them.
constexpr std::size_t kDecodedSpareBytes = 64;

}  // namespace gmserver
