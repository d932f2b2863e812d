// The counter rows that validation adds beside a point's headline
// (storage/counter_rows.hpp): for counted points of a series with an
// agreement only, and a malformed agreement loses its rows but not the upload.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "upload/validate.hpp"

using namespace gmserver;
using nlohmann::json;

namespace {

json time_ms() { return {{"median", 0.2}, {"min", 0.1}, {"max", 0.3}, {"mean", 0.2}, {"stddev", 0.05}, {"n", 10}}; }

// A point of stride_copy at stride x; counted points carry counters.
json point(double x, const json &counters = nullptr, const json &predicted = {{"sectors_per_request", 4.0}}) {
    json p = {{"x", x}, {"time_ms", time_ms()}, {"predicted", predicted}, {"values", json::object()}};
    if (!counters.is_null()) p["counters"] = counters;
    return p;
}

json series(const std::string &name, const json &points, const json &agreement = nullptr) {
    json s = {{"name", name}, {"y", {{"field", "median_ms"}}}, {"points", points}};
    if (!agreement.is_null()) s["agreement"] = agreement;
    return s;
}

json document(const json &all_series) {
    return {{"schema", "gmlab.run/1.2"},
            {"library", {{"name", "gmlab"}, {"version", "0.1.0"}, {"abi", 1}}},
            {"command", "gmlab run --counters auto"},
            {"created_at", "2026-11-23T00:00:00Z"},
            {"settings", json::object()},
            {"device",
             {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"global_memory_bytes", 150109880320.0},
              {"memory_bus_width_bits", 6016}, {"theoretical_bandwidth_gbs", 4800}, {"l2_cache_bytes", 62914560}}},
            {"results",
             {{{"schema", "gmlab.result/1.2"},
               {"experiment", {{"name", "stride_copy"}}},
               {"counters", {{"available", true}, {"mode", "auto"}, {"passes", 3}}},
               {"series", all_series}}}}};
}

const json kAgreement = {
    {"sectors_per_request_ld", {{"prediction", "sectors_per_request"}, {"tolerance", 0.0}, {"points", 2}, {"agreeing", 2}, {"share", 1.0}}},
    {"sectors_per_request_st", {{"prediction", "sectors_per_request"}, {"tolerance", 0.001}, {"points", 2}, {"agreeing", 2}, {"share", 1.0}}}};

// (series, field, x) -> value of the rows.
std::map<std::tuple<std::string, std::string, double>, double> by_key(const std::vector<PointRow> &rows) {
    std::map<std::tuple<std::string, std::string, double>, double> out;
    for (const PointRow &r : rows) out[{r.series, r.field, r.x}] = r.value;
    return out;
}

std::size_t count_field(const std::vector<PointRow> &rows, const std::string &field) {
    std::size_t n = 0;
    for (const PointRow &r : rows) n += r.field == field;
    return n;
}

}  // namespace

TEST(CounterRows, ValidationAddsThemForCountedPointsOfSeriesWithAgreementOnly) {
    const json counted = {{"sectors_per_request_ld", 4.0}, {"sectors_per_request_st", 4.002}, {"dram__bytes_read.sum", 1.6e7}};
    const json doc = document(json::array({
        // x 1 and 4 counted, x 2 not (--counters auto), x 8 counted but without the prediction.
        series("guide, 4-byte words",
               json::array({point(1, counted), point(2), point(4, {{"sectors_per_request_ld", 16.0}}, {{"sectors_per_request", 16.0}}),
                            point(8, counted, json::object())}),
               kAgreement),
        // Counted, but the series claims no agreement: its counters explain, they do not confirm.
        series("no claim", json::array({point(1, counted)})),
    }));
    const ValidatedUpload v = validate_upload(doc.dump());
    ASSERT_TRUE(v.ok) << v.error_message;
    EXPECT_EQ(count_field(v.points, "median_ms"), 5u);  // every point's headline, as before
    EXPECT_EQ(count_field(v.points, "counters.sectors_per_request_ld"), 2u);
    EXPECT_EQ(count_field(v.points, "model.sectors_per_request_ld"), 2u);
    EXPECT_EQ(count_field(v.points, "tolerance.sectors_per_request_ld"), 2u);
    EXPECT_EQ(count_field(v.points, "counters.sectors_per_request_st"), 1u);  // x 4 did not count the stores
    EXPECT_EQ(count_field(v.points, "counters.dram__bytes_read.sum"), 0u);    // not in the agreement
    EXPECT_EQ(v.points.size(), 5u + 3 * 2 + 3 * 1);
    const auto rows = by_key(v.points);
    EXPECT_EQ(rows.at({"guide, 4-byte words", "counters.sectors_per_request_ld", 4.0}), 16.0);
    EXPECT_EQ(rows.at({"guide, 4-byte words", "model.sectors_per_request_ld", 4.0}), 16.0);
    EXPECT_EQ(rows.at({"guide, 4-byte words", "counters.sectors_per_request_st", 1.0}), 4.002);
    EXPECT_EQ(rows.at({"guide, 4-byte words", "model.sectors_per_request_st", 1.0}), 4.0);
    EXPECT_EQ(rows.at({"guide, 4-byte words", "tolerance.sectors_per_request_st", 1.0}), 0.001);
    EXPECT_EQ(rows.count({"guide, 4-byte words", "counters.sectors_per_request_ld", 2.0}), 0u);
    EXPECT_EQ(rows.count({"guide, 4-byte words", "counters.sectors_per_request_ld", 8.0}), 0u);
    for (const PointRow &r : v.points)
        if (r.series == "no claim") EXPECT_EQ(r.field, "median_ms");
    // A series' rows: its headline first, then each counter row field together.
    EXPECT_EQ(v.points[0].field, "median_ms");
    EXPECT_EQ(v.points[4].field, "counters.sectors_per_request_ld");
    EXPECT_EQ(v.points[5].field, "counters.sectors_per_request_ld");
    EXPECT_EQ(v.points[6].field, "model.sectors_per_request_ld");
}

TEST(CounterRows, AMalformedAgreementLosesItsRowsButNotTheUpload) {
    const json counted = {{"sectors_per_request_ld", 4.0}, {"sectors_per_request_st", 4.0}, {"x", 1.0}};
    const json agreement = {{"sectors_per_request_ld", {{"prediction", 7}, {"tolerance", 0.0}}},
                            {"sectors_per_request_st", {{"prediction", "sectors_per_request"}, {"tolerance", -1.0}}},
                            {"x", "everything"}};
    for (const json &block : {agreement, json("all"), json::array()}) {
        const ValidatedUpload v = validate_upload(document(json::array({series("s", json::array({point(1, counted)}), block)})).dump());
        ASSERT_TRUE(v.ok) << v.error_message;
        ASSERT_EQ(v.points.size(), 1u) << block.dump();
        EXPECT_EQ(v.points[0].field, "median_ms");
    }
}
