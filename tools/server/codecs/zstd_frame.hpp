// zstd request bodies (Content-Encoding: zstd, RFC 8878). What gmlab-upload
// sends: one frame that declares its decoded size, decoded in one call into a
// buffer of exactly that size. Anything else (several frames, skippable
// frames, no declared size) takes a streaming decoder whose window and output
// are both bounded, so that neither a small body that expands into gigabytes
// nor a frame that asks for a huge window costs more than the cap.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gmserver {

enum class ZstdOutcome { Ok, TooLarge, WindowTooLarge, Corrupt };

// True when data starts with a zstd frame's magic number.
bool is_zstd_frame(std::string_view data);

// One frame, nothing after it, its size declared and at most max_bytes, and no
// dictionary: decoded in one call into exactly that many bytes (plus `spare`
// bytes of capacity). False, with *out unchanged, for anything else. Request
// bodies and stored documents (decompress_document) both go through it.
bool decode_one_zstd_frame(std::string_view data, std::size_t max_bytes, std::string *out, std::size_t spare = 0);

// On Ok, *out holds the decoded bytes with `spare` bytes of extra capacity,
// and *single_frame says whether the body was one frame that declared its size
// and uses no dictionary (what can be stored as it came and read back by
// decompress_document). On TooLarge the body decodes to more than max_bytes;
// on WindowTooLarge a streamed frame asks for more than kZstdMaxWindowLog.
ZstdOutcome decode_zstd_body(std::string_view data, std::size_t max_bytes, std::string *out, std::size_t spare,
                             bool *single_frame);

// The largest window a streamed frame may ask for: 8 MiB, far more than any
// run document needs, and what a decoder then holds per request.
constexpr int kZstdMaxWindowLog = 23;

}  // namespace gmserver
