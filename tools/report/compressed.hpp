// Documents as gmlab-upload sends them and gmlab-server serves them: gzip
// (.json.gz) or zstd (.json.zst), told apart by their first bytes, never by the
// file's name. Whether this build reads each format was decided when it was
// configured (zlib and libzstd where found); without one, a compressed file of
// that format is refused with the command that decompresses it.
#pragma once

#include <cstddef>
#include <string>

namespace gmreport {

enum class Compression { none, gzip, zstd };

// gzip: 1f 8b; zstd: 28 b5 2f fd; anything else is taken as it is.
Compression compression_of(const std::string &bytes);

// "gzip", "zstd" or "" (none).
const char *compression_name(Compression c);

// Whether this build was made with the library that reads the format.
bool can_decompress(Compression c);

// No gmlab document comes near this (a standard suite is about 1 MiB, with
// every sample a few MiB): a file that expands past it is refused rather than
// allowed to fill the machine's memory.
inline constexpr std::size_t kMaxDocumentBytes = std::size_t(1) << 30;

// The document in `bytes`: decompressed where it is gzip or zstd (several
// gzip members or zstd frames one after the other are one document), as it is
// otherwise. Throws ReportError naming `where` for a format this build cannot
// read (saying how to decompress it), for truncated or damaged compressed data,
// and for more than `limit` bytes of output.
std::string decompressed(const std::string &bytes, const std::string &where, std::size_t limit = kMaxDocumentBytes);

}  // namespace gmreport
