// What an upload's shape may be: the limits derived from an experiment's
// declared axes within the operator's floors and ceilings, the table the
// server builds from its library, and validation refusing what lies outside.
#include <gtest/gtest.h>

#include <string>

#include "upload/validate.hpp"
#include "web/declared_shapes.hpp"

using namespace gmserver;

namespace {

// A document of one stride_copy result with `series` series of `points` points.
std::string document(std::size_t series, std::size_t points, const std::string &experiment = "stride_copy") {
    std::string s;
    for (std::size_t i = 0; i < series; ++i) {
        std::string p;
        for (std::size_t k = 0; k < points; ++k)
            p += std::string(k ? "," : "") + R"({"x": )" + std::to_string(k + 1) +
                 R"(, "time_ms": {"median": 0.2, "min": 0.1, "max": 0.3, "mean": 0.2, "stddev": 0.05, "n": 10}})";
        s += std::string(i ? "," : "") + R"({"name": "s)" + std::to_string(i) + R"(", "y": {"field": "median_ms"}, "points": [)" + p + "]}";
    }
    return R"({"schema": "gmlab.run/1.1", "library": {"name": "gmlab", "version": "0.1.0", "abi": 1},
        "command": "gmlab run", "created_at": "2026-11-23T00:00:00Z", "settings": {},
        "device": {"name": "NVIDIA H200", "compute_capability": "9.0", "global_memory_bytes": 150109880320,
                   "memory_bus_width_bits": 6016, "theoretical_bandwidth_gbs": 4800, "l2_cache_bytes": 62914560},
        "results": [{"schema": "gmlab.result/1.1", "experiment": {"name": ")" + experiment + R"("}, "series": [)" + s + "]}]}";
}

ValidationLimits with_table(const ShapeSettings &settings = {}) {
    ValidationLimits l;
    l.shapes = declared_shapes(settings);
    return l;
}

}  // namespace

TEST(ShapeLimits, DerivedFromTheDeclaredAxesWithinFloorAndCeiling) {
    ShapeSettings s;
    s.min_points_allowance = 10;
    s.max_points_per_series = 100;
    s.min_series_allowance = 2;
    s.max_series_per_result = 50;
    s.axis_slack = 2;
    const ExperimentShape few = derive_shape(3, 1, s);
    EXPECT_EQ(few.max_points, 10u);  // the floor
    EXPECT_EQ(few.max_series, 2u);
    const ExperimentShape some = derive_shape(33, 6, s);
    EXPECT_EQ(some.max_points, 66u);  // twice what the axes hold
    EXPECT_EQ(some.max_series, 12u);
    const ExperimentShape many = derive_shape(1000000, 1000, s);
    EXPECT_EQ(many.max_points, 100u);  // the ceiling
    EXPECT_EQ(many.max_series, 50u);
    EXPECT_EQ(derive_shape(0, 1, s).max_points, 10u);  // x is no list parameter: the floor
}

TEST(ShapeLimits, TheLibrarysExperimentsOnly) {
    const auto table = declared_shapes(ShapeSettings{});
    ASSERT_TRUE(table);
    for (const char *name : {"stream", "offset_copy", "stride_copy", "latency", "transfer", "cache_hints"})
        EXPECT_NE(table->find(name), nullptr) << name;
    EXPECT_EQ(table->find("invented_000"), nullptr);
    // offset_copy's x axis: offsets 0..32, 33 values.
    EXPECT_EQ(table->find("offset_copy")->declared_points, 33u);
    EXPECT_LE(table->max_results, 256u);
}

TEST(ShapeLimits, ValidationRefusesWhatLiesOutsideNamingTheField) {
    const ValidationLimits limits = with_table();
    EXPECT_TRUE(validate_upload(document(2, 16), limits).ok);
    const ValidatedUpload points = validate_upload(document(1, 300), limits);
    EXPECT_FALSE(points.ok);
    EXPECT_EQ(points.error_code, "too_many_points");
    EXPECT_NE(points.error_message.find("results[0].series[0].points"), std::string::npos) << points.error_message;
    const ValidatedUpload series = validate_upload(document(600, 1), limits);
    EXPECT_EQ(series.error_code, "too_many_series");
    const ValidatedUpload invented = validate_upload(document(1, 1, "invented_000"), limits);
    EXPECT_EQ(invented.error_code, "unknown_experiment");
    EXPECT_NE(invented.error_message.find("results[0].experiment.name"), std::string::npos);
    // Without a table (the default limits): any experiment, any shape within the size limits.
    EXPECT_TRUE(validate_upload(document(1, 300, "invented_000")).ok);
}
