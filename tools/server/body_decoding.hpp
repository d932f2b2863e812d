// Undoes a request body's Content-Encoding (gzip or deflate) without ever
// holding more than a fixed number of decoded bytes: a small compressed body
// may not expand into gigabytes (a "gzip bomb").
#pragma once

#include <cstddef>
#include <string>

namespace gmserver {

enum class DecodeOutcome { Ok, TooLarge, Corrupt, UnsupportedEncoding };

// encoding: the Content-Encoding header ("" or "identity": nothing to do).
// On Ok, *body holds the decoded bytes; otherwise *body is unchanged and
// *message says what was wrong.
DecodeOutcome decode_body(const std::string &encoding, std::string *body, std::size_t max_bytes, std::string *message);

}  // namespace gmserver
