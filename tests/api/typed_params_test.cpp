// The typed entry points' structs turned into gm_run's parameters
// (src/api/typed_params.cpp), without a device: the lists they build resolve
// to exactly what the text form "min..max" resolves to, and a bad field is
// named as the caller wrote it, before any list is built.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <tuple>

#include "api/typed_params.hpp"
#include "core/error.hpp"
#include "core/experiment/params.hpp"
#include "core/experiment/registry.hpp"

using namespace gmlab;
using nlohmann::json;

namespace {

json typed_resolved(const std::string &experiment, const json &given) {
    return resolve_params(find_experiment(experiment).params, given, experiment);
}

template <class Params> std::string typed_error_of(json (*build)(const Params &), const Params &p) {
    try {
        build(p);
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

std::string typed_range(int lo, int hi) { return std::to_string(lo) + ".." + std::to_string(hi); }

}  // namespace

TEST(TypedParams, OffsetCopyResolvesAsItsTextForm) {
    gm_offset_copy_params p;
    gm_offset_copy_params_init(&p);
    for (auto [lo, hi, word, variants] : {std::tuple{0, 32, 4, 0}, {3, 7, 8, int(GM_COPY_GUIDE)}, {5, 5, 16, int(GM_COPY_ILP4)}}) {
        p.min_offset = lo, p.max_offset = hi, p.word_size = word, p.variants = variants, p.elements = 1 << 20;
        const json built = offset_copy_params_json(p);
        ASSERT_TRUE(built.at("offsets").is_array()) << built.dump();
        json text = built;
        text["offsets"] = typed_range(lo, hi);
        EXPECT_EQ(typed_resolved("offset_copy", built), typed_resolved("offset_copy", text)) << typed_range(lo, hi);
    }
}

TEST(TypedParams, StrideCopyResolvesAsItsTextForm) {
    gm_stride_copy_params p;
    gm_stride_copy_params_init(&p);
    for (auto [lo, hi, word] : {std::tuple{1, 32, 0}, {3, 4, 16}, {32, 32, 8}}) {
        p.min_stride = lo, p.max_stride = hi, p.word_size = word;
        const json built = stride_copy_params_json(p);
        ASSERT_TRUE(built.at("strides").is_array()) << built.dump();
        EXPECT_EQ(built.contains("word_sizes"), word != 0);
        json text = built;
        text["strides"] = typed_range(lo, hi);
        EXPECT_EQ(typed_resolved("stride_copy", built), typed_resolved("stride_copy", text)) << typed_range(lo, hi);
    }
}

TEST(TypedParams, BadBoundsAreNamedAsTheStructNamesThem) {
    gm_offset_copy_params o;
    gm_offset_copy_params_init(&o);
    o.min_offset = 5, o.max_offset = 2;
    EXPECT_EQ(typed_error_of(offset_copy_params_json, o), "max_offset must be at least min_offset (5), got 2");
    o.min_offset = -1, o.max_offset = 2;
    EXPECT_EQ(typed_error_of(offset_copy_params_json, o), "min_offset must be in 0..32, got -1");
    o.min_offset = 0, o.max_offset = INT_MAX;  // refused before a list of INT_MAX values is built
    EXPECT_EQ(typed_error_of(offset_copy_params_json, o), "max_offset must be in 0..32, got " + std::to_string(INT_MAX));

    gm_stride_copy_params s;
    gm_stride_copy_params_init(&s);
    s.min_stride = 0;
    EXPECT_EQ(typed_error_of(stride_copy_params_json, s), "min_stride must be in 1..32, got 0");
    s.min_stride = 1, s.max_stride = 33;
    EXPECT_EQ(typed_error_of(stride_copy_params_json, s), "max_stride must be in 1..32, got 33");
    s.max_stride = 32, s.variants = 4;
    EXPECT_EQ(typed_error_of(stride_copy_params_json, s),
              "variants must be a combination of GM_COPY_GUIDE and GM_COPY_ILP4 (0..3), got 4");
}
