#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/experiment/params.hpp"
#include "core/experiment/registry.hpp"

using namespace gmlab;
using nlohmann::json;

namespace {

std::vector<ParamSpec> specs() {
    ParamSpec words = int_list_param("word_sizes", {4, 8, 16}, 4, 16, "bytes per word");
    words.allowed = {4, 8, 16};
    ParamSpec block = int_param("block_size", 256, 32, 1024, "threads");
    block.multiple_of = 32;
    return {int_list_param("strides", {1, 2}, 1, 32, "strides"),
            std::move(words),
            std::move(block),
            size_param("elements", 0, 0, 1LL << 36, "words"),
            double_param("scalar", 0.4, -10, 10, "scalar"),
            bool_param("include_memcpy", true, "memcpy"),
            enum_list_param("variants", {"guide", "ilp4"}, {"guide", "ilp4"}, "kernels"),
            enum_param("mode", "fast", {"fast", "slow"}, "mode")};
}

std::string error_of(const json &given) {
    try {
        resolve_params(specs(), given, "demo");
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Params, DefaultsFillEverything) {
    json r = resolve_params(specs(), json::object(), "demo");
    EXPECT_EQ(r["strides"], json({1, 2}));
    EXPECT_EQ(r["block_size"], 256);
    EXPECT_EQ(r["include_memcpy"], true);
    EXPECT_EQ(r["mode"], "fast");
    EXPECT_EQ(resolve_params(specs(), json(), "demo"), r);  // null means {}
}

TEST(Params, ListsAcceptArraysRangesAndText) {
    EXPECT_EQ(resolve_params(specs(), {{"strides", "1..4,8,16"}}, "d")["strides"], json({1, 2, 3, 4, 8, 16}));
    EXPECT_EQ(resolve_params(specs(), {{"strides", json({3, 3, 5})}}, "d")["strides"], json({3, 5}));
    EXPECT_EQ(resolve_params(specs(), {{"strides", 7}}, "d")["strides"], json({7}));
    EXPECT_EQ(resolve_params(specs(), {{"variants", "ilp4"}}, "d")["variants"], json({"ilp4"}));
    EXPECT_EQ(resolve_params(specs(), {{"word_sizes", "16,4"}}, "d")["word_sizes"], json({16, 4}));
}

TEST(Params, ScalarsAcceptTextFromTheCommandLine) {
    json r = resolve_params(specs(), {{"block_size", "512"}, {"scalar", "-2.5"}, {"include_memcpy", "false"},
                                      {"elements", "256MiB"}, {"mode", "slow"}},
                            "d");
    EXPECT_EQ(r["block_size"], 512);
    EXPECT_EQ(r["scalar"], -2.5);
    EXPECT_EQ(r["include_memcpy"], false);
    EXPECT_EQ(r["elements"], 256LL << 20);
    EXPECT_EQ(r["mode"], "slow");
}

TEST(Params, ErrorsNameTheParameterAndTheRange) {
    EXPECT_EQ(error_of({{"strides", json({0})}}), "strides must be in 1..32, got 0");
    EXPECT_EQ(error_of({{"strides", "1..33"}}), "strides must be in 1..32, got 33");
    EXPECT_EQ(error_of({{"word_sizes", json({12})}}), "word_sizes must be one of 4, 8, 16, got 12");
    EXPECT_EQ(error_of({{"block_size", 100}}), "block_size must be a multiple of 32, got 100");
    EXPECT_EQ(error_of({{"block_size", 2048}}), "block_size must be in 32..1024, got 2048");
    EXPECT_EQ(error_of({{"block_size", "abc"}}), "block_size must be an integer, got abc");
    EXPECT_EQ(error_of({{"block_size", 1.5}}), "block_size must be an integer, got 1.5");
    EXPECT_EQ(error_of({{"scalar", 11}}), "scalar must be in -10..10, got 11");
    EXPECT_EQ(error_of({{"include_memcpy", "maybe"}}), "include_memcpy must be true or false, got maybe");
    EXPECT_EQ(error_of({{"variants", "fast"}}), "variants must be one of guide, ilp4, got 'fast'");
    EXPECT_EQ(error_of({{"mode", 3}}), "mode must be a string, one of fast, slow, got 3");
    EXPECT_EQ(error_of({{"strides", json::array()}}), "strides must hold at least one value");
    EXPECT_EQ(error_of({{"strides", "4..1"}}), "strides: range '4..1' runs backwards");
    EXPECT_EQ(error_of({{"strides", "x"}}), "strides: 'x' is not an integer (lists look like 1..32 or 4,8,16)");
    EXPECT_EQ(error_of({{"elements", "12 parsecs"}}), "elements: unknown unit 'parsecs' (use B, KiB, MiB, GiB, KB, MB or GB)");
    EXPECT_EQ(error_of(json::array({1})), "parameters of demo must be a JSON object, got [1]");
    EXPECT_NE(error_of({{"stride", 2}}).find("unknown parameter 'stride' for experiment demo; known: strides,"),
              std::string::npos);
}

TEST(Params, SizesUnderstandUnits) {
    EXPECT_EQ(parse_size("4096", "s"), 4096);
    EXPECT_EQ(parse_size("1KiB", "s"), 1024);
    EXPECT_EQ(parse_size("2 GiB", "s"), 2LL << 30);
    EXPECT_EQ(parse_size("1GB", "s"), 1000000000LL);
    EXPECT_THROW(parse_size("", "s"), Error);
    EXPECT_THROW(parse_size("-5", "s"), Error);
    EXPECT_THROW(parse_size("99999999999999999999GiB", "s"), Error);
}

TEST(Params, AccessorsReadResolvedValues) {
    Params p(resolve_params(specs(), {{"strides", "3"}}, "d"));
    EXPECT_EQ(p.integers("strides"), (std::vector<long long>{3}));
    EXPECT_EQ(p.integer("block_size"), 256);
    EXPECT_TRUE(p.is_auto("elements"));
    EXPECT_EQ(p.texts("variants").size(), 2u);
    EXPECT_THROW(p.integer("undeclared"), Error);
}

TEST(Params, DescribeCarriesBoundsAndChoices) {
    auto all = specs();
    json d = describe(all[1]);
    EXPECT_EQ(d["type"], "int_list");
    EXPECT_EQ(d["allowed"], json({4, 8, 16}));
    json b = describe(all[2]);
    EXPECT_EQ(b["min"], 32);
    EXPECT_EQ(b["multiple_of"], 32);
    EXPECT_EQ(describe(all[6])["choices"], json({"guide", "ilp4"}));
}

// gmlab run --quick: every experiment of the default suite has quick
// parameters, and they are valid parameters of that experiment.
TEST(QuickParameters, EveryDefaultExperimentHasValidOnes) {
    int seen = 0;
    for (const gmlab::Experiment &e : gmlab::registry()) {
        if (!e.default_suite) continue;
        ++seen;
        ASSERT_TRUE(e.quick.is_object()) << e.name;
        EXPECT_FALSE(e.quick.empty()) << e.name << " has no quick parameters";
        EXPECT_NO_THROW(gmlab::resolve_params(e.params, e.quick, e.name)) << e.name;
        EXPECT_EQ(gmlab::describe(e)["quick_parameters"], e.quick) << e.name;
    }
    EXPECT_GE(seen, 20);
}
