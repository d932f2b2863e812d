// An upload on its way in, without a server: the SHA-256 of delete tokens,
// GPU keys, submission ids, and validation of both forms of a document.
#include <gtest/gtest.h>

#include "upload/sha256.hpp"
#include "upload/validate.hpp"

using namespace gmserver;

TEST(Sha256, KnownAnswers) {
    // FIPS 180-4 examples, and a message that needs a second padding block.
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(GpuKey, Normalises) {
    EXPECT_EQ(gpu_key("NVIDIA H200", "9.0", 150109880320ull, 6016), "nvidia-h200-cc9.0-140gib-6016bit");
    EXPECT_EQ(gpu_key("  NVIDIA  GeForce RTX 4090!! ", "8.9", 25757220864ull, 384), "nvidia-geforce-rtx-4090-cc8.9-24gib-384bit");
    EXPECT_EQ(gpu_key("<script>", "7.5", 0, 0), "script-cc7.5-0gib-0bit");
    EXPECT_EQ(gpu_key("???", "7.5", 1ull << 30, 64), "gpu-cc7.5-1gib-64bit");
}

TEST(SubmissionId, Charset) {
    EXPECT_TRUE(valid_submission_id("a-b_c.9"));
    EXPECT_TRUE(valid_submission_id(std::string(128, 'x')));
    EXPECT_FALSE(valid_submission_id(""));
    EXPECT_FALSE(valid_submission_id(std::string(129, 'x')));
    EXPECT_FALSE(valid_submission_id("a b"));
    EXPECT_FALSE(valid_submission_id("x'; DROP TABLE runs;--"));
}

// Upload validation reads both forms of a point (every sample, or the deciles
// of a compact document) in both schema versions.
namespace {

std::string upload(const std::string &run_schema, const std::string &result_schema, const std::string &time_extra,
                   const std::string &run_extra = "", const std::string &result_extra = "") {
    return R"({"schema": ")" + run_schema + R"(", "library": {"name": "gmlab", "version": "0.1.0", "abi": 1},
        "command": "gmlab run", "created_at": "2026-11-23T00:00:00Z", "settings": {},)" + run_extra + R"(
        "device": {"name": "NVIDIA H200", "compute_capability": "9.0", "global_memory_bytes": 150109880320,
                   "memory_bus_width_bits": 6016, "theoretical_bandwidth_gbs": 4800, "l2_cache_bytes": 62914560},
        "results": [{"schema": ")" + result_schema + R"(", "experiment": {"name": "stride_copy"},)" + result_extra + R"(
            "series": [{"name": "guide", "y": {"field": "median_ms"}, "points": [{"x": 1,
            "time_ms": {"median": 0.2, "min": 0.1, "max": 0.3, "mean": 0.2, "stddev": 0.05, "n": 10)" + time_extra + R"(}}]}]}]})";
}

const char *kDeciles = R"(, "quantiles": [0.11, 0.12, 0.15, 0.18, 0.2, 0.21, 0.24, 0.27, 0.29])";

}  // namespace

TEST(Validate, AcceptsBothFormsInBothVersions) {
    for (const auto &[run, result] : {std::pair<std::string, std::string>{"gmlab.run/1", "gmlab.result/1"},
                                      {"gmlab.run/1.1", "gmlab.result/1.1"}, {"gmlab.run/1.1", "gmlab.result/1"},
                                      {"gmlab.run/1.2", "gmlab.result/1.2"}, {"gmlab.run/1.2", "gmlab.result/1.1"}}) {
        const ValidatedUpload full = validate_upload(upload(run, result, R"(, "samples": [0.1, 0.2, 0.3])"));
        EXPECT_TRUE(full.ok) << run << " " << result << ": " << full.error_message;
        const ValidatedUpload compact = validate_upload(upload(run, result, kDeciles));
        EXPECT_TRUE(compact.ok) << run << " " << result << ": " << compact.error_message;
        ASSERT_EQ(compact.points.size(), 1u);
        EXPECT_EQ(compact.points[0].value, 0.2);  // the series' y.field, median_ms
        const ValidatedUpload both = validate_upload(upload(run, result, std::string(kDeciles) + R"(, "samples": [0.2])"));
        EXPECT_TRUE(both.ok) << both.error_message;
        const ValidatedUpload bare = validate_upload(upload(run, result, ""));
        EXPECT_TRUE(bare.ok) << bare.error_message;  // statistics alone, as trimmed uploads have
    }
}

TEST(Validate, RejectsBrokenDecilesAndUnknownVersions) {
    struct Case {
        std::string body, code, where;
    };
    const Case cases[] = {
        {upload("gmlab.run/1.1", "gmlab.result/1.1", R"(, "quantiles": [0.2, 0.2])"), "invalid_document", "time_ms.quantiles: must hold 9"},
        {upload("gmlab.run/1.1", "gmlab.result/1.1", R"(, "quantiles": "many")"), "invalid_document", "time_ms.quantiles: must be an array"},
        {upload("gmlab.run/1.1", "gmlab.result/1.1", R"(, "quantiles": [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, "x"])"), "invalid_document",
         "must hold numbers"},
        {upload("gmlab.run/1.1", "gmlab.result/1.1", R"(, "quantiles": [0.29, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2])"), "implausible",
         "must not decrease"},
        {upload("gmlab.run/1.1", "gmlab.result/1.1", R"(, "quantiles": [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.9])"), "implausible",
         "outside min..max"},
        {upload("gmlab.run/1.1", "gmlab.result/1.1", R"(, "quantiles": [0, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2])"), "implausible",
         "finite and > 0"},
        {upload("gmlab.run/2", "gmlab.result/1.1", kDeciles), "invalid_document", "document.schema"},
        {upload("gmlab.run/1.1", "gmlab.result/1.4", kDeciles), "invalid_document", "results[0].schema"},
        {upload("gmlab.run/1.1", "gmlab.result/1.1", kDeciles, R"("quick": true,)"), "invalid_document", "document.quick"},
        {upload("gmlab.run/1.1", "gmlab.result/1.1", kDeciles, "", R"("quick": true,)"), "invalid_document", "results[0].quick"},
    };
    for (const Case &c : cases) {
        const ValidatedUpload v = validate_upload(c.body);
        EXPECT_FALSE(v.ok) << c.where;
        EXPECT_EQ(v.error_code, c.code) << c.where << ": " << v.error_message;
        EXPECT_NE(v.error_message.find(c.where), std::string::npos) << v.error_message;
    }
    // quick: false is no quick run.
    EXPECT_TRUE(validate_upload(upload("gmlab.run/1.1", "gmlab.result/1.1", kDeciles, R"("quick": false,)")).ok);
}

// Schema 1.2: a point's hardware counters are numbers, finite and >= 0.
TEST(Validate, CountersOfAPoint) {
    // Closes time_ms early so that "counters" is a member of the point.
    auto with_counters = [](const std::string &members) {
        return upload("gmlab.run/1.2", "gmlab.result/1.2", std::string(kDeciles) + R"(}, "counters": {)" + members);
    };
    const ValidatedUpload good = validate_upload(with_counters(R"("sectors_per_request_ld": 4, "dram__bytes_read.sum": 1.6e7)"));
    EXPECT_TRUE(good.ok) << good.error_message;
    const ValidatedUpload text = validate_upload(with_counters(R"("dram__bytes_read.sum": "many")"));
    EXPECT_EQ(text.error_code, "invalid_document");
    EXPECT_NE(text.error_message.find("counters.dram__bytes_read.sum: must be a number"), std::string::npos) << text.error_message;
    const ValidatedUpload negative = validate_upload(with_counters(R"("sectors_per_request_ld": -4)"));
    EXPECT_EQ(negative.error_code, "implausible");
    EXPECT_NE(negative.error_message.find("counters.sectors_per_request_ld: must be finite, 0..1e18"), std::string::npos)
        << negative.error_message;
    const ValidatedUpload not_object = validate_upload(upload("gmlab.run/1.2", "gmlab.result/1.2", std::string(kDeciles) + R"(}, "counters": 5, "z": {)"));
    EXPECT_EQ(not_object.error_code, "invalid_document");
    EXPECT_NE(not_object.error_message.find(".counters"), std::string::npos) << not_object.error_message;
}
