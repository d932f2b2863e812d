// The report library's decompression as a build without zlib and libzstd has
// it (tools/report/compressed.cpp compiled here with GM_REPORT_ZLIB=0 and
// GM_REPORT_ZSTD=0): a compressed document is refused with a message that
// names the format and the command that decompresses it; plain JSON passes.
#include <string>

#include <gtest/gtest.h>

#include "compressed.hpp"
#include "document.hpp"

namespace {

std::string refusal(const std::string &bytes, const std::string &where) {
    try {
        gmreport::decompressed(bytes, where);
    } catch (const gmreport::ReportError &e) {
        return e.what();
    }
    return "";
}

TEST(CompressedWithoutLibraries, GzipSaysHowToDecompress) {
    EXPECT_FALSE(gmreport::can_decompress(gmreport::Compression::gzip));
    EXPECT_EQ(refusal(std::string("\x1f\x8b\x08\x00rest", 8), "runs/a.json.gz"),
              "runs/a.json.gz: is a gzip-compressed document, and this gmlab was built without zlib: decompress it first "
              "(gzip -dc runs/a.json.gz > run.json) and pass run.json");
}

TEST(CompressedWithoutLibraries, ZstdSaysHowToDecompress) {
    EXPECT_FALSE(gmreport::can_decompress(gmreport::Compression::zstd));
    EXPECT_EQ(refusal(std::string("\x28\xb5\x2f\xfd\x04rest", 9), "b.json.zst"),
              "b.json.zst: is a zstd-compressed document, and this gmlab was built without libzstd: decompress it first "
              "(zstd -dc b.json.zst > run.json) and pass run.json");
}

TEST(CompressedWithoutLibraries, PlainJsonPasses) {
    EXPECT_TRUE(gmreport::can_decompress(gmreport::Compression::none));
    EXPECT_EQ(gmreport::decompressed("{\"schema\": \"gmlab.run/1.2\"}", "c.json"), "{\"schema\": \"gmlab.run/1.2\"}");
}

}  // namespace
