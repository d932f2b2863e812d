#include "codecs/zstd_frame.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include <zstd.h>
#include <zstd_errors.h>

namespace gmserver {

namespace {

using DCtx = std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx *)>;

// One decoder per thread, reset before each use.
ZSTD_DCtx *thread_decoder() {
    thread_local DCtx ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (ctx) ZSTD_DCtx_reset(ctx.get(), ZSTD_reset_session_and_parameters);
    return ctx.get();
}

}  // namespace

bool is_zstd_frame(std::string_view data) {
    static constexpr unsigned char kMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
    return data.size() >= 4 && std::memcmp(data.data(), kMagic, 4) == 0;
}

// The output buffer is the window, so the frame's window size costs nothing.
bool decode_one_zstd_frame(std::string_view data, std::size_t max_bytes, std::string *out, std::size_t spare) {
    const unsigned long long size = ZSTD_getFrameContentSize(data.data(), data.size());
    if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR || size > max_bytes) return false;
    if (ZSTD_findFrameCompressedSize(data.data(), data.size()) != data.size()) return false;
    if (ZSTD_getDictID_fromFrame(data.data(), data.size()) != 0) return false;
    ZSTD_DCtx *d = thread_decoder();
    if (!d) return false;
    std::string decoded;
    decoded.reserve(static_cast<std::size_t>(size) + spare);
    decoded.resize(static_cast<std::size_t>(size));
    const std::size_t n = ZSTD_decompressDCtx(d, decoded.data(), decoded.size(), data.data(), data.size());
    if (ZSTD_isError(n) || n != size) return false;
    *out = std::move(decoded);
    return true;
}

ZstdOutcome decode_zstd_body(std::string_view data, std::size_t max_bytes, std::string *out, std::size_t spare,
                             bool *single_frame) {
    *single_frame = false;
    if (decode_one_zstd_frame(data, max_bytes, out, spare)) {
        *single_frame = true;
        return ZstdOutcome::Ok;
    }
    // A decoder of its own: a frame's window (up to 8 MiB) is held by the
    // decoder, and a thread's decoder would keep the largest one it saw.
    DCtx own(ZSTD_createDCtx(), ZSTD_freeDCtx);
    ZSTD_DCtx *d = own.get();
    if (!d || ZSTD_isError(ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, kZstdMaxWindowLog))) return ZstdOutcome::Corrupt;
    std::string decoded;
    // Grown as needed, never past the cap plus one byte (which tells "too large").
    decoded.resize(std::min<std::size_t>(max_bytes + 1, std::max<std::size_t>(data.size() * 8, 4096)));
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    std::size_t produced = 0, last = 1;
    while (in.pos < in.size || last != 0) {
        if (produced == decoded.size()) {
            if (decoded.size() > max_bytes) return ZstdOutcome::TooLarge;
            decoded.resize(std::min<std::size_t>(max_bytes + 1, decoded.size() * 2));
        }
        ZSTD_outBuffer o{decoded.data() + produced, decoded.size() - produced, 0};
        last = ZSTD_decompressStream(d, &o, &in);
        produced += o.pos;
        if (ZSTD_isError(last))
            return ZSTD_getErrorCode(last) == ZSTD_error_frameParameter_windowTooLarge ? ZstdOutcome::WindowTooLarge
                                                                                      : ZstdOutcome::Corrupt;
        if (produced > max_bytes) return ZstdOutcome::TooLarge;
        // No input left, no output made, frame unfinished: the body stops early.
        if (in.pos == in.size && o.pos == 0 && last != 0) return ZstdOutcome::Corrupt;
    }
    decoded.resize(produced);
    decoded.reserve(produced + spare);
    *out = std::move(decoded);
    return ZstdOutcome::Ok;
}

}  // namespace gmserver
