#include "codecs/gzip_member.hpp"

#include <memory>

#include <libdeflate.h>

namespace gmserver {

namespace {
constexpr std::size_t kHeaderBytes = 10, kTrailerBytes = 8;
}  // namespace

bool is_plain_gzip_header(std::string_view data) {
    // ID1 ID2 CM FLG: 0x1f 0x8b, deflate, and no FTEXT/FHCRC/FEXTRA/FNAME/FCOMMENT.
    return data.size() >= kHeaderBytes + kTrailerBytes && static_cast<unsigned char>(data[0]) == 0x1f &&
           static_cast<unsigned char>(data[1]) == 0x8b && data[2] == 8 && data[3] == 0;
}

GzipOutcome inflate_gzip_member(std::string_view data, std::size_t max_bytes, std::string *out, std::size_t spare) {
    if (data.size() < kHeaderBytes + kTrailerBytes) return GzipOutcome::NotOnePiece;
    // ISIZE: the decoded length modulo 2^32, little-endian, in the last 4 bytes.
    const auto *t = reinterpret_cast<const unsigned char *>(data.data() + data.size() - 4);
    const std::size_t size = std::size_t(t[0]) | std::size_t(t[1]) << 8 | std::size_t(t[2]) << 16 | std::size_t(t[3]) << 24;
    if (size > max_bytes) return GzipOutcome::NotOnePiece;
    thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor *)> d(
        libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
    if (!d) return GzipOutcome::NotOnePiece;
    std::string decoded;
    decoded.reserve(size + spare);
    decoded.resize(size);
    std::size_t used_in = 0, produced = 0;
    // A buffer of exactly ISIZE bytes: a member that decodes to more stops
    // with "insufficient space", so a lying length field costs no memory.
    const libdeflate_result r =
        libdeflate_gzip_decompress_ex(d.get(), data.data(), data.size(), decoded.data(), size, &used_in, &produced);
    if (r != LIBDEFLATE_SUCCESS || used_in != data.size() || produced != size) return GzipOutcome::NotOnePiece;
    *out = std::move(decoded);
    return GzipOutcome::Ok;
}

}  // namespace gmserver
