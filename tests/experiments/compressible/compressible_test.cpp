// Host-side parts of the compressible-memory experiment: its parameters and
// the data it streams, which host and device compute alike.
#include <gtest/gtest.h>

#include "core/experiment/registry.hpp"
#include "experiments/compressible/compressible_data.hpp"
#include "unit_checks.hpp"

using namespace gmlab;
using nlohmann::json;

TEST(CompressibleParams, DefaultsMeasureEverything) {
    const Experiment &e = find_experiment("compressible");
    EXPECT_TRUE(e.default_suite);
    json r = resolve_params(e.params, json::object(), e.name);
    EXPECT_EQ(r["bytes"], 0);  // the default working set
    EXPECT_EQ(r["memory"], json({"compressible", "plain"}));
    EXPECT_EQ(r["data"], json({"zeros", "repeated", "random"}));
    EXPECT_EQ(r["operations"], json({"read", "write"}));
    EXPECT_TRUE(contains(param_error("compressible", {{"data", "ones"}}), "data must be one of zeros, repeated, random"));
    EXPECT_TRUE(contains(param_error("compressible", {{"bytes", "2048GiB"}}), "bytes must be in 0.."));
}

TEST(CompressibleData, ZerosRepeatedAndRandom) {
    for (std::uint64_t i : {0ULL, 1ULL, 12345ULL}) EXPECT_EQ(data_word(DataKind::Zeros, i, 7), 0u);
    for (std::uint64_t i = 0; i < 64; ++i) {
        EXPECT_EQ(data_word(DataKind::Repeated, i, 7), data_word(DataKind::Repeated, i + kRepeatWords, 7));
        EXPECT_EQ(data_word(DataKind::Random, i, 7), pattern_word(i, 7));
    }
    // The repeated block is not one word repeated: it varies inside its period.
    EXPECT_NE(data_word(DataKind::Repeated, 0, 7), data_word(DataKind::Repeated, 1, 7));
}
