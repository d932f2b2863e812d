// Run documents compressed as gmlab-upload sends them and gmlab-server serves
// them (gzip, zstd), read by the report library's loader whatever the file is
// called; truncated, damaged and oversized ones refused with a clear message.
// Host only; skipped for a format this build reads without (see
// compressed_missing_test.cpp for that build's message).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "compressed.hpp"
#include "document.hpp"

#if GM_REPORT_ZLIB
#include <zlib.h>
#endif
#if GM_REPORT_ZSTD
#include <zstd.h>
#endif

using gmreport::Compression;
using nlohmann::json;

namespace {

std::string read_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

const std::string &committed_run() {
    static const std::string text = read_file(std::string(GM_SOURCE_DIR) + "/results/nvidia-h200.json");
    return text;
}

#if GM_REPORT_ZLIB
std::string gzip(const std::string &data) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&z, data.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}
#endif

#if GM_REPORT_ZSTD
// declare_size false: a streamed frame that does not say how large it is.
std::string zstd(const std::string &data, bool declare_size = true) {
    if (declare_size) {
        std::string out(ZSTD_compressBound(data.size()), '\0');
        const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 19);
        EXPECT_FALSE(ZSTD_isError(n));
        out.resize(n);
        return out;
    }
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    std::string out(ZSTD_compressBound(data.size()) + 64, '\0');
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    while (ZSTD_compressStream2(c, &o, &in, ZSTD_e_end) != 0) {
    }
    ZSTD_freeCCtx(c);
    out.resize(o.pos);
    return out;
}
#endif

#if GM_REPORT_ZSTD
// RFC 8878 3.1.1.1: magic, descriptor, window descriptor, dictionary id, content size.
std::size_t frame_header_bytes(const std::string &frame) {
    const unsigned d = static_cast<unsigned char>(frame[4]);
    const bool single_segment = d & 0x20;
    const std::size_t dict[] = {0, 1, 2, 4}, size[] = {single_segment ? 1u : 0u, 2, 4, 8};
    return 4 + 1 + (single_segment ? 0 : 1) + dict[d & 3] + size[d >> 6];
}
#endif

class CompressedDocuments : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("gmlab-compressed-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string write(const std::string &name, const std::string &bytes) {
        const std::string path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    // The loader's message for the file, or "" where it loads.
    std::string refusal(const std::string &name, const std::string &bytes) {
        try {
            gmreport::load_run(write(name, bytes));
        } catch (const gmreport::ReportError &e) {
            return e.what();
        }
        return "";
    }
    std::filesystem::path dir_;
};

TEST(Compression, ToldByTheFirstBytes) {
    EXPECT_EQ(gmreport::compression_of(std::string("\x1f\x8b\x08", 3)), Compression::gzip);
    EXPECT_EQ(gmreport::compression_of(std::string("\x28\xb5\x2f\xfd\x00", 5)), Compression::zstd);
    EXPECT_EQ(gmreport::compression_of("{\"schema\": 1}"), Compression::none);
    EXPECT_EQ(gmreport::compression_of(std::string("\x1f", 1)), Compression::none);
    EXPECT_EQ(gmreport::decompressed("{}", "x.json"), "{}");
}

#if GM_REPORT_ZLIB
TEST_F(CompressedDocuments, GzipReadsWhateverTheFileIsCalled) {
    const json plain = gmreport::load_run(write("plain.json", committed_run()));
    EXPECT_EQ(gmreport::load_run(write("run.json.gz", gzip(committed_run()))), plain);
    EXPECT_EQ(gmreport::load_run(write("run.json", gzip(committed_run()))), plain);
    // Two members one after the other (cat a.gz b.gz) are one document.
    const std::string &t = committed_run();
    EXPECT_EQ(gmreport::load_run(write("two.gz", gzip(t.substr(0, 1000)) + gzip(t.substr(1000)))), plain);
}

TEST_F(CompressedDocuments, GzipTruncatedOrDamagedSaysSo) {
    const std::string gz = gzip(committed_run());
    EXPECT_NE(refusal("half.json.gz", gz.substr(0, gz.size() / 2)).find("half.json.gz: is a truncated gzip document"), std::string::npos);
    EXPECT_NE(refusal("tail.json.gz", gz.substr(0, gz.size() - 3)).find("is a truncated gzip document"), std::string::npos);
    EXPECT_NE(refusal("magic.json.gz", gz.substr(0, 2)).find("is a truncated gzip document"), std::string::npos);
    std::string bad = gz;
    for (std::size_t i = 40; i < 80; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    EXPECT_NE(refusal("bad.json.gz", bad).find("bad.json.gz: is a damaged gzip document (zlib: "), std::string::npos) << refusal("bad.json.gz", bad);
    EXPECT_NE(refusal("after.json.gz", gz + "trailing").find("is a damaged gzip document (other bytes follow"), std::string::npos);
    EXPECT_NE(refusal("text.gz", gzip("not json")).find("text.gz: is a gzip document whose content is not valid JSON"), std::string::npos);
    EXPECT_NE(refusal("empty.gz", gzip("")).find("empty.gz: is an empty gzip document"), std::string::npos);
}

TEST(CompressedLimit, GzipPastTheLimitIsRefused) {
    const std::string zeros(2 << 20, '0');
    const std::string gz = gzip(zeros);
    EXPECT_LT(gz.size(), 16u << 10);
    EXPECT_EQ(gmreport::decompressed(gz, "ok.gz", 2 << 20), zeros);  // exactly at the limit: read
    try {
        gmreport::decompressed(gz, "bomb.gz", 1 << 20);
        FAIL() << "2 MiB read past a 1 MiB limit";
    } catch (const gmreport::ReportError &e) {
        EXPECT_NE(std::string(e.what()).find("bomb.gz: is a gzip document that expands to more than 1 MiB"), std::string::npos) << e.what();
    }
}
#endif

#if GM_REPORT_ZSTD
TEST_F(CompressedDocuments, ZstdReadsWhateverTheFileIsCalled) {
    const json plain = gmreport::load_run(write("plain.json", committed_run()));
    EXPECT_EQ(gmreport::load_run(write("run.json.zst", zstd(committed_run()))), plain);
    EXPECT_EQ(gmreport::load_run(write("download", zstd(committed_run(), false))), plain);
    const std::string &t = committed_run();
    EXPECT_EQ(gmreport::load_run(write("two.zst", zstd(t.substr(0, 1000)) + zstd(t.substr(1000), false))), plain);
}

TEST_F(CompressedDocuments, ZstdTruncatedOrDamagedSaysSo) {
    for (bool declared : {true, false}) {
        const std::string zs = zstd(committed_run(), declared);
        EXPECT_NE(refusal("half.json.zst", zs.substr(0, zs.size() / 2)).find("half.json.zst: is a truncated zstd document"), std::string::npos);
        EXPECT_NE(refusal("tail.json.zst", zs.substr(0, zs.size() - 3)).find("is a truncated zstd document"), std::string::npos);
        EXPECT_NE(refusal("magic.json.zst", zs.substr(0, 4)).find("is a truncated zstd document"), std::string::npos);
        // The first block's type made the reserved one (zstd has no checksum by default:
        // damage inside a block's data may decode to other text, which the JSON parser then refuses).
        std::string bad = zs;
        const std::size_t header = frame_header_bytes(zs);
        bad[header] = static_cast<char>(bad[header] | 0x06);
        EXPECT_NE(refusal("bad.json.zst", bad).find("bad.json.zst: is a damaged zstd document (libzstd: "), std::string::npos)
            << refusal("bad.json.zst", bad);
        EXPECT_NE(refusal("after.json.zst", zs + "trailing").find("is a damaged zstd document"), std::string::npos);
    }
    EXPECT_NE(refusal("text.zst", zstd("[1, 2")).find("text.zst: is a zstd document whose content is not valid JSON"), std::string::npos);
}

TEST(CompressedLimit, ZstdPastTheLimitIsRefused) {
    const std::string zeros(2 << 20, '0');
    EXPECT_EQ(gmreport::decompressed(zstd(zeros), "ok.zst", 2 << 20), zeros);
    EXPECT_EQ(gmreport::decompressed(zstd(zeros, false), "ok.zst", 2 << 20), zeros);
    // A frame that declares its size is refused before anything is decoded...
    try {
        gmreport::decompressed(zstd(zeros), "declared.zst", 1 << 20);
        FAIL();
    } catch (const gmreport::ReportError &e) {
        EXPECT_NE(std::string(e.what()).find("declared.zst: is a zstd document that declares 2 MiB, more than the 1 MiB"), std::string::npos)
            << e.what();
    }
    // ... one that does not, once the output passes the limit.
    try {
        gmreport::decompressed(zstd(zeros, false), "streamed.zst", 1 << 20);
        FAIL();
    } catch (const gmreport::ReportError &e) {
        EXPECT_NE(std::string(e.what()).find("streamed.zst: is a zstd document that expands to more than 1 MiB"), std::string::npos) << e.what();
    }
}
#endif

TEST(CompressedLimit, TheDefaultIsOneGiB) { EXPECT_EQ(gmreport::kMaxDocumentBytes, std::size_t(1) << 30); }

}  // namespace
