// A gzip member made with zlib, for tests of what reads one.
#pragma once

#include <string>

#include <zlib.h>

namespace gmserver::test_support {

// level: zlib's 0 (stored blocks, no compression) .. 9.
inline std::string gzip(const std::string &in, int level = Z_BEST_COMPRESSION) {
    z_stream z{};
    deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, in.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef *>(&out[0]);
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

}  // namespace gmserver::test_support
