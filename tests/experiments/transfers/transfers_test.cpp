// Host-side parts of the transfer experiments: parameter ranges, the byte
// comparison, the linear fit, and the not-applicable result document.
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/experiment/figure.hpp"
#include "core/experiment/registry.hpp"
#include "core/experiment/result.hpp"
#include "experiments/common/transfer_common.hpp"
#include "unit_checks.hpp"

using namespace gmlab;
using nlohmann::json;

TEST(TransferParams, DefaultsAreTheIssuesSweep) {
    json r = resolve_params(find_experiment("transfer").params, json::object(), "transfer");
    EXPECT_EQ(r["min_size"], 4096);
    EXPECT_EQ(r["max_size"], 256LL << 20);
    EXPECT_EQ(r["memory"], json({"pinned", "pageable"}));
    json o = resolve_params(find_experiment("copy_overlap").params, json::object(), "copy_overlap");
    EXPECT_EQ(o["streams"], json({1, 2, 4, 8}));
    for (const char *name : {"transfer", "transfer_batching", "zero_copy", "copy_overlap", "peer"})
        EXPECT_TRUE(find_experiment(name).default_suite) << name;
}

TEST(TransferParams, BadInputIsRefusedWithTheRange) {
    EXPECT_TRUE(contains(param_error("transfer", {{"min_size", 0}}), "min_size must be in 1..")) << param_error("transfer", {{"min_size", 0}});
    EXPECT_TRUE(contains(param_error("transfer", {{"max_size", "0"}}), "max_size must be in 1.."));
    EXPECT_TRUE(contains(param_error("transfer", {{"max_size", "2048GiB"}}), "max_size must be in 1.."));
    EXPECT_TRUE(contains(param_error("transfer", {{"memory", "mapped"}}), "memory must be one of pinned, pageable"));
    EXPECT_TRUE(contains(param_error("transfer_batching", {{"counts", "0,4"}}), "counts must be in 1..65536, got 0"));
    EXPECT_TRUE(contains(param_error("transfer_batching", {{"chunk_sizes", "0"}}), "chunk_sizes must be in 1.."));
    EXPECT_TRUE(contains(param_error("zero_copy", {{"stride", 1}}), "stride must be in 2..4096, got 1"));
    EXPECT_TRUE(contains(param_error("zero_copy", {{"bytes", 0}}), "bytes must be in 4.."));
    EXPECT_TRUE(contains(param_error("copy_overlap", {{"streams", "0"}}), "streams must be in 1..64, got 0"));
    EXPECT_TRUE(contains(param_error("copy_overlap", {{"streams", "65"}}), "streams must be in 1..64, got 65"));
    EXPECT_TRUE(contains(param_error("peer", {{"peers", "-2"}}), "peers must be in -1..1023, got -2"));
    EXPECT_TRUE(contains(param_error("peer", {{"bytes", 0}}), "bytes must be in 16.."));
}

TEST(TransferCommon, ComparisonNamesTheFirstBadByte) {
    std::vector<unsigned char> a(10001), b;
    fill_pattern_host(a.data(), a.size(), 7);
    b = a;
    Result r;
    EXPECT_NO_THROW(check_same_bytes(b.data(), a.data(), a.size(), "same", r));
    EXPECT_EQ(r.verification.elements_checked, 10001u);
    b[9000] ^= 1;
    try {
        check_same_bytes(b.data(), a.data(), a.size(), "changed", r);
        FAIL() << "a changed byte passed";
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_VERIFICATION_FAILED);
        EXPECT_TRUE(contains(e.what(), "9000")) << e.what();
    }
    // The partial last word comes from the next pattern word, so a prefix fill matches a longer one.
    std::vector<unsigned char> c(10003);
    fill_pattern_host(c.data(), c.size(), 7);
    EXPECT_EQ(std::memcmp(a.data(), c.data(), a.size()), 0);
}

TEST(TransferCommon, FitRecoversOverheadAndBandwidth) {
    // time_ms = copies x 0.005 + MB x 0.04 (25 GB/s)
    std::vector<double> copies = {1, 16, 256, 1, 1, 1024}, mb = {0.004, 0.065, 1.05, 0.065, 1.05, 4.19}, ms;
    for (std::size_t i = 0; i < copies.size(); ++i) ms.push_back(copies[i] * 0.005 + mb[i] * 0.04);
    double a = 0, b = 0;
    ASSERT_TRUE(fit_two(copies, mb, ms, &a, &b));
    EXPECT_NEAR(a, 0.005, 1e-9);
    EXPECT_NEAR(b, 0.04, 1e-9);
    EXPECT_FALSE(fit_two({1, 2}, {2, 4}, {1, 2}, &a, &b));  // proportional: not both determined
    EXPECT_EQ(size_text(4096), "4 KiB");
    EXPECT_EQ(size_text(1 << 30), "1 GiB");
    EXPECT_EQ(size_text(1000), "1000 B");
}

TEST(ResultDocument, NotApplicableHasNoSeriesAndSaysWhy) {
    Result r;
    r.experiment = "peer";
    r.not_applicable("needs two GPUs");
    json doc = to_json(r);
    EXPECT_EQ(doc["applicable"], false);
    EXPECT_TRUE(doc["series"].empty());
    EXPECT_EQ(doc["verification"]["elements_checked"], 0);
    EXPECT_EQ(doc["notes"], json({"needs two GPUs"}));
    Result ok;
    EXPECT_FALSE(to_json(ok).contains("applicable"));
}

// Every experiment that reads its points against the host link writes the
// link's bandwidth through the one declaration, and declares it.
TEST(TransferFigures, HostLinkFigureIsDeclaredWhereItIsWritten) {
    for (const char *name : {"transfer", "transfer_batching", "zero_copy", "copy_overlap"}) {
        const Figure *f = declared_figure(find_experiment(name), "host_link_theoretical_gbs");
        ASSERT_NE(f, nullptr) << name;
        EXPECT_EQ(f->meaning, host_link_figure().meaning) << name;
    }
    Result r;
    DeviceInfo dev;
    dev.host_link.theoretical_gbs = 25;
    EXPECT_DOUBLE_EQ(use_host_link_reference(dev, 2, r), 50);
    EXPECT_DOUBLE_EQ(r.summary_values.at("host_link_theoretical_gbs"), 50);
}

// The committed four-GPU peer run: every key of its summary is a figure peer
// declares, and so are the keys of the all_to_one and one_to_all patterns.
TEST(TransferFigures, PeerDeclaresEveryKeyOfTheFourGpuRun) {
    std::ifstream in(std::string(GM_SOURCE_DIR) + "/results/nvidia-h200-x4-peer.json");
    ASSERT_TRUE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    const json run = json::parse(text.str());
    const Experiment &peer = find_experiment("peer");
    std::size_t checked = 0;
    for (const json &r : run.at("results"))
        for (const auto &[key, value] : r.at("summary").items()) {
            EXPECT_NE(declared_figure(peer, key), nullptr) << key;
            ++checked;
        }
    EXPECT_GT(checked, 20u);
    for (const char *key : {"all_to_one_gbs_min", "all_to_one_gbs_max", "one_to_all_gbs_min", "one_to_all_gbs_max"}) {
        const Figure *f = declared_figure(peer, key);
        ASSERT_NE(f, nullptr) << key;
        EXPECT_EQ(f->name, key);
        EXPECT_EQ(f->unit, "GB/s");
    }
}
