// The model against the hardware counters across uploads: the counter rows
// that validation adds (counter_rows.hpp), the aggregates keeping a series'
// headline and its counter rows apart, aggregates stored before counter rows
// still decoding and merging, and the point codec leaving counter rows out of
// what the export reads.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "aggregate.hpp"
#include "counter_rows.hpp"
#include "point_codec.hpp"
#include "validate.hpp"

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

const json *entry(const json &list, const std::string &name, const std::string &field) {
    for (const json &e : list)
        if (e["name"] == name && e["field"] == field) return &e;
    return nullptr;
}

}  // namespace

TEST(CounterRows, FieldsNameTheirKindAndFigure) {
    EXPECT_EQ(counter_field(CounterRow::Counted, "sectors_per_request_ld"), "counters.sectors_per_request_ld");
    EXPECT_EQ(counter_field(CounterRow::Model, "sectors_per_request_ld"), "model.sectors_per_request_ld");
    EXPECT_EQ(counter_field(CounterRow::Tolerance, "a.b"), "tolerance.a.b");
    std::string_view counter;
    EXPECT_EQ(counter_row("model.dram__bytes_read.sum", &counter), CounterRow::Model);
    EXPECT_EQ(counter, "dram__bytes_read.sum");
    for (const char *headline : {"bandwidth_gbs", "median_ms", "predicted.sectors_per_request", "counters.", "modelx"})
        EXPECT_EQ(counter_row(headline), CounterRow::None) << headline;
}

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

TEST(CounterRows, AggregatesKeepASeriesHeadlineAndItsCounterRowsApart) {
    std::vector<PointRow> rows;
    auto upload = [&](const std::string &run, double counted) {
        std::vector<PointRow> u = {{run, "stride_copy", "guide", "bandwidth_gbs", 1, 3000},
                                   {run, "stride_copy", "guide", "counters.sectors_per_request_ld", 1, counted},
                                   {run, "stride_copy", "guide", "model.sectors_per_request_ld", 1, 4},
                                   {run, "stride_copy", "guide", "tolerance.sectors_per_request_ld", 1, 0},
                                   {run, "stride_copy", "other", "bandwidth_gbs", 1, 1500}};
        rows.insert(rows.end(), u.begin(), u.end());
        return u;
    };
    HistogramAggregate h;
    h.fold_rows(upload("a", 4), +1);
    h.fold_rows(upload("b", 4), +1);
    const auto last = upload("c", 5);
    h.fold_rows(last, +1);
    Aggregator exact;
    for (const PointRow &r : rows) exact.add(r);
    for (const json &agg : {h.result(), exact.result()}) {
        // "series": one entry per name with its headline, in order, as every reader expects.
        ASSERT_EQ(agg["series"].size(), 2u) << agg.dump();
        EXPECT_EQ(agg["series"][0]["name"], "guide");
        EXPECT_EQ(agg["series"][0]["field"], "bandwidth_gbs");
        EXPECT_EQ(agg["series"][0]["points"][0]["median"], 3000.0);
        EXPECT_EQ(agg["series"][1]["name"], "other");
        ASSERT_EQ(agg["counters"].size(), 3u);
        const json *counted = entry(agg["counters"], "guide", "counters.sectors_per_request_ld");
        ASSERT_TRUE(counted);
        EXPECT_EQ((*counted)["points"][0]["n"], 3);
        EXPECT_EQ((*counted)["points"][0]["median"], 4.0);
        EXPECT_EQ((*counted)["points"][0]["q3"], 4.5);
        ASSERT_TRUE(entry(agg["counters"], "guide", "model.sectors_per_request_ld"));
        EXPECT_EQ(agg["uploads"], 3);
    }
    // Folded out again, the counter rows leave with their upload.
    h.fold_rows(last, -1);
    EXPECT_EQ((*entry(h.result()["counters"], "guide", "counters.sectors_per_request_ld"))["points"][0]["q3"], 4.0);
    // An aggregate without counter rows has no "counters": it reads as before.
    HistogramAggregate plain;
    plain.fold_rows({{"a", "stream", "copy", "bandwidth_gbs", 1, 3000}}, +1);
    EXPECT_FALSE(plain.result().contains("counters"));
}

// The stored form of a stride_copy aggregate of two uploads, as encoded before
// counter rows existed (series matched by name alone), with its API answer.
const char kOldBlob[] =
    "\x47\x4d\x48\x31\x02\x02\x13\x67\x75\x69\x64\x65\x2c\x20\x34\x2d\x62\x79\x74\x65\x20\x77\x6f\x72\x64\x73\x0d\x62\x61\x6e"
    "\x64\x77\x69\x64\x74\x68\x5f\x67\x62\x73\x02\x00\x00\x00\x00\x00\x00\xf0\x3f\x02\xa0\x8c\xf6\x01\x02\x00\x00\x00\x00\x00"
    "\x70\xa7\x40\x02\x02\x00\x00\x00\x00\x00\x71\xa7\x40\x00\x00\x00\x00\x00\x00\x00\x40\x02\xcc\xf6\xf5\x01\x02\x00\x00\x00"
    "\x00\x00\x70\x97\x40\x82\x02\x02\x00\x00\x00\x00\x00\x00\x99\x40\x13\x67\x75\x69\x64\x65\x2c\x20\x38\x2d\x62\x79\x74\x65"
    "\x20\x77\x6f\x72\x64\x73\x0d\x62\x61\x6e\x64\x77\x69\x64\x74\x68\x5f\x67\x62\x73\x01\x00\x00\x00\x00\x00\x00\xf0\x3f\x01"
    "\xa4\x8d\xf6\x01\x04\x00\x00\x00\x00\x00\x38\xa8\x40";
const char kOldResult[] =
    R"({"quantiles":"linear interpolation between closest ranks (type 7) over values kept in bins of 0.05 % relative width: )"
    R"(within 0.05 % of the exact value, exact where a bin holds one distinct value","resolution":0.0005,"series":[)"
    R"({"field":"bandwidth_gbs","name":"guide, 4-byte words","points":[{"median":3000.25,"n":2,"q1":3000.125,"q3":3000.375,"x":1.0},)"
    R"({"median":1550.0,"n":2,"q1":1525.0,"q3":1575.0,"x":2.0}]},{"field":"bandwidth_gbs","name":"guide, 8-byte words","points":)"
    R"([{"median":3100.0,"n":2,"q1":3100.0,"q3":3100.0,"x":1.0}]}],"uploads":2})";

TEST(CounterRows, AnAggregateStoredBeforeCounterRowsDecodesAndTakesThem) {
    const std::string blob(kOldBlob, sizeof kOldBlob - 1);
    ASSERT_EQ(blob.size(), 163u);
    HistogramAggregate h = HistogramAggregate::decode(blob);
    EXPECT_EQ(h.result(), json::parse(kOldResult));
    EXPECT_EQ(h.encode(), blob);  // the stored form itself is unchanged
    // A new upload with counter rows: its headline joins the stored series,
    // its counter rows come in beside them.
    h.fold_rows({{"c", "stride_copy", "guide, 4-byte words", "bandwidth_gbs", 2, 1600},
                 {"c", "stride_copy", "guide, 4-byte words", "counters.sectors_per_request_ld", 2, 8},
                 {"c", "stride_copy", "guide, 4-byte words", "model.sectors_per_request_ld", 2, 8}},
                +1);
    const json agg = h.result();
    ASSERT_EQ(agg["series"].size(), 2u);
    EXPECT_EQ(agg["series"][0]["points"][1]["n"], 3);
    EXPECT_EQ(agg["series"][0]["points"][1]["median"], 1600.0);
    EXPECT_EQ(agg["counters"].size(), 2u);
    EXPECT_EQ(agg["uploads"], 3);
    EXPECT_EQ(HistogramAggregate::decode(h.encode()).result(), agg);
}

TEST(CounterRows, ThePointCodecHandsCounterRowsToTheAggregatesOnly) {
    const std::vector<PointRow> rows = {{"r", "stride_copy", "guide", "bandwidth_gbs", 1, 3000},
                                        {"r", "stride_copy", "guide", "counters.sectors_per_request_ld", 1, 4},
                                        {"r", "stride_copy", "guide", "model.sectors_per_request_ld", 1, 4},
                                        {"r", "stride_copy", "guide", "bandwidth_gbs", 2, 1600}};
    std::vector<const PointRow *> refs;
    for (const PointRow &r : rows) refs.push_back(&r);
    const std::string blob = encode_points(refs);
    std::vector<PointRow> headline, all;
    ASSERT_TRUE(decode_points(blob, "r", "stride_copy", [&](const PointRow &p) { headline.push_back(p); }));
    ASSERT_TRUE(decode_points(blob, "r", "stride_copy", [&](const PointRow &p) { all.push_back(p); }, true));
    ASSERT_EQ(headline.size(), 2u);
    EXPECT_EQ(headline[0].field, "bandwidth_gbs");
    EXPECT_EQ(headline[1].x, 2.0);
    EXPECT_EQ(all.size(), 4u);
    std::vector<std::string> strings;
    std::vector<HistogramAggregate::Point> points;
    ASSERT_TRUE(decode_point_set(blob, strings, points));
    EXPECT_EQ(points.size(), 4u);
}
