// One gzip member inflated in a single call (libdeflate), sized by the
// member's own length field. This is the fast path for upload bodies and for
// documents stored as the client compressed them; anything it does not handle
// (several members, trailing bytes, a length field that lies, a size over the
// cap) is reported as NotOnePiece so that the caller can take the streaming
// decoder, which is slower but bounded whatever the input claims.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gmserver {

enum class GzipOutcome { Ok, NotOnePiece };

// On Ok, *out holds exactly the member's decoded bytes (CRC and length
// checked), with `spare` bytes of extra capacity after them.
GzipOutcome inflate_gzip_member(std::string_view data, std::size_t max_bytes, std::string *out, std::size_t spare = 0);

// True when data is one gzip member without optional header fields (name,
// comment, extra), so that it holds nothing but the compressed bytes.
bool is_plain_gzip_header(std::string_view data);

}  // namespace gmserver
