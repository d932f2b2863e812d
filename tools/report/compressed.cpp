#include "compressed.hpp"

#include <algorithm>
#include <climits>
#include <memory>

#include "document.hpp"
#include "table.hpp"

// Set by tools/report/CMakeLists.txt: 1 where zlib / libzstd were found.
#ifndef GM_REPORT_ZLIB
#define GM_REPORT_ZLIB 0
#endif
#ifndef GM_REPORT_ZSTD
#define GM_REPORT_ZSTD 0
#endif
#if GM_REPORT_ZLIB
#include <zlib.h>
#endif
#if GM_REPORT_ZSTD
#include <zstd.h>
#include <zstd_errors.h>
#endif

namespace gmreport {

namespace {

[[noreturn]] void bad(const std::string &where, const std::string &what) { throw ReportError(where + ": " + what); }

// The decoders below run twice over a document: once to count its size,
// writing into a small scratch buffer and stopping past the limit, then into a
// string of exactly that size. So a file that expands past the limit costs the
// time to decode up to the limit and no more memory than the scratch buffer.
constexpr std::size_t kScratch = 256 * 1024;

// Where decoded bytes go: counted (out null) or appended to *out.
class Sink {
public:
    Sink(std::string *out, std::size_t limit) : out_(out), limit_(limit) {}
    char *buffer() { return scratch_.data(); }
    std::size_t room() const { return scratch_.size(); }
    // The scratch buffer's first n bytes are decoded output; false past the limit.
    bool put(std::size_t n) {
        total_ += n;
        if (total_ > limit_) return false;
        if (out_) out_->append(scratch_.data(), n);
        return true;
    }
    std::size_t total() const { return total_; }
    std::size_t limit() const { return limit_; }

private:
    std::string *out_;
    std::size_t limit_, total_ = 0;
    std::string scratch_ = std::string(kScratch, '\0');
};

[[maybe_unused]] std::string too_large(Compression c, const Sink &sink) {
    return std::string("is a ") + compression_name(c) + " document that expands to more than " +
           gmreport::bytes_text(double(sink.limit())) + ", far more than any gmlab document: not read (a damaged file or a decompression bomb?)";
}

#if GM_REPORT_ZLIB
void gunzip(const std::string &in, const std::string &where, Sink &sink) {
    z_stream z{};
    // windowBits 15 + 16: a gzip wrapper (header and CRC-32), not a bare zlib stream.
    if (inflateInit2(&z, 15 + 16) != Z_OK) bad(where, "cannot start zlib to read this gzip document");
    const std::unique_ptr<z_stream, int (*)(z_stream *)> end(&z, inflateEnd);
    std::size_t fed = 0;  // input handed to zlib, in pieces of at most UINT_MAX bytes
    for (;;) {
        if (z.avail_in == 0 && fed < in.size()) {
            const std::size_t n = std::min<std::size_t>(in.size() - fed, UINT_MAX);
            z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data() + fed));
            z.avail_in = static_cast<uInt>(n);
            fed += n;
        }
        z.next_out = reinterpret_cast<Bytef *>(sink.buffer());
        z.avail_out = static_cast<uInt>(sink.room());
        const int rc = inflate(&z, Z_NO_FLUSH);
        if (!sink.put(sink.room() - z.avail_out)) bad(where, too_large(Compression::gzip, sink));
        const bool input_left = z.avail_in > 0 || fed < in.size();
        if (rc == Z_STREAM_END) {
            if (!input_left) return;
            // Another member (gzip a; gzip b; cat) continues the same document.
            const std::size_t next = fed - z.avail_in;
            if (in.size() - next >= 2 && static_cast<unsigned char>(in[next]) == 0x1f && static_cast<unsigned char>(in[next + 1]) == 0x8b) {
                inflateReset(&z);
                continue;
            }
            bad(where, "is a damaged gzip document (other bytes follow the end of its compressed data)");
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            bad(where, std::string("is a damaged gzip document (zlib: ") + (z.msg ? z.msg : "cannot be decompressed") + ")");
        // All input taken and the output not full: zlib needs bytes the file does not have.
        if (!input_left && z.avail_out > 0)
            bad(where, "is a truncated gzip document (its compressed data ends early: an interrupted download or copy?)");
    }
}
#endif

#if GM_REPORT_ZSTD
void unzstd(const std::string &in, const std::string &where, Sink &sink) {
    const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx *)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!d) bad(where, "cannot start libzstd to read this zstd document");
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    for (;;) {
        ZSTD_outBuffer o{sink.buffer(), sink.room(), 0};
        // 0 once a frame is whole; after it, further frames continue the document.
        const std::size_t rc = ZSTD_decompressStream(d.get(), &o, &src);
        if (ZSTD_isError(rc)) {
            if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge)
                bad(where, "is a zstd document compressed with a window larger than libzstd reads by default (zstd --long?): "
                           "decompress it first (zstd -d --long=31 -c " + where + " > run.json) and pass run.json");
            bad(where, std::string("is a damaged zstd document (libzstd: ") + ZSTD_getErrorName(rc) + ")");
        }
        if (!sink.put(o.pos)) bad(where, too_large(Compression::zstd, sink));
        // All input taken: done where the last frame ended, cut short where
        // libzstd wants more although it had room to write.
        if (src.pos == src.size && rc == 0) return;
        if (src.pos == src.size && o.pos < o.size)
            bad(where, "is a truncated zstd document (its compressed data ends early: an interrupted download or copy?)");
    }
}

// A frame that declares its size says at once whether it is too large.
void check_declared_size(const std::string &in, const std::string &where, std::size_t limit) {
    const unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared > limit)
        bad(where, "is a zstd document that declares " + gmreport::bytes_text(double(declared)) + ", more than the " +
                       gmreport::bytes_text(double(limit)) + " any gmlab document stays under: not read (a damaged file or a decompression bomb?)");
}
#endif

}  // namespace

Compression compression_of(const std::string &bytes) {
    auto at = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    if (bytes.size() >= 2 && at(0) == 0x1f && at(1) == 0x8b) return Compression::gzip;
    if (bytes.size() >= 4 && at(0) == 0x28 && at(1) == 0xb5 && at(2) == 0x2f && at(3) == 0xfd) return Compression::zstd;
    return Compression::none;
}

const char *compression_name(Compression c) {
    switch (c) {
    case Compression::gzip: return "gzip";
    case Compression::zstd: return "zstd";
    default: return "";
    }
}

bool can_decompress(Compression c) {
    switch (c) {
    case Compression::gzip: return GM_REPORT_ZLIB;
    case Compression::zstd: return GM_REPORT_ZSTD;
    default: return true;
    }
}

std::string decompressed(const std::string &bytes, const std::string &where, std::size_t limit) {
    const Compression c = compression_of(bytes);
    if (c == Compression::none) return bytes;
    if (!can_decompress(c)) {
        const bool gz = c == Compression::gzip;
        bad(where, std::string("is a ") + compression_name(c) + "-compressed document, and this gmlab was built without " +
                       (gz ? "zlib" : "libzstd") + ": decompress it first (" + (gz ? "gzip" : "zstd") + " -dc " + where +
                       " > run.json) and pass run.json");
    }
#if GM_REPORT_ZSTD
    if (c == Compression::zstd) check_declared_size(bytes, where, limit);
#endif
    // Counted first (nothing kept), then decoded into a string of that size.
    auto decode = [&](Sink &sink) {
#if GM_REPORT_ZLIB
        if (c == Compression::gzip) gunzip(bytes, where, sink);
#endif
#if GM_REPORT_ZSTD
        if (c == Compression::zstd) unzstd(bytes, where, sink);
#endif
        (void)sink;
    };
    Sink count(nullptr, limit);
    decode(count);
    std::string text;
    text.reserve(count.total());
    Sink keep(&text, limit);
    decode(keep);
    return text;
}

}  // namespace gmreport
